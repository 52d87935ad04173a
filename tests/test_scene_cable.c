/* SPDX-License-Identifier: MIT */
/* Scene loader tests of "cables": a full scene, defaults, exact one-line messages for bad
   values, --set overrides and the sim_scene_to_json round trip. Runs in tests/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "scene/scene.h"
#include "scene_text.h"

static void test_full_scene(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  int rc = sim_scene_load("data/scenes/loader_cable.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->ncables, 2);
  const sim_cable_def *d = &s->cables[0];
  CHECK_INT(d->body, 0);
  CHECK_INT(d->npoints, 3);
  CHECK_NEAR(d->points[0][0], 0.25, 0);
  CHECK_NEAR(d->points[0][1], 0.1, 0);
  CHECK_NEAR(d->points[1][1], 2, 0);
  CHECK_NEAR(d->points[2][1], 3.9, 0);
  CHECK_NEAR(d->points[2][2], 0.1, 0);
  CHECK_NEAR(d->compliance, 1e-12, 0);
  CHECK_INT(d->nkeys, 3);
  CHECK_NEAR(d->key_time[0], 0.5, 0);
  CHECK_NEAR(d->key_pull[0], 0, 0);
  CHECK_NEAR(d->key_time[1], 1.5, 0);
  CHECK_NEAR(d->key_pull[1], 0.3, 0);
  CHECK_NEAR(d->key_time[2], 3, 0);
  CHECK(d->key_pull[2] == 0.1 + 0.2);
  d = &s->cables[1]; /* defaults: no compliance, no pull */
  CHECK_INT(d->body, 1);
  CHECK_INT(d->npoints, 2);
  CHECK_NEAR(d->points[1][0], 3.2, 0);
  CHECK_NEAR(d->compliance, 0, 0);
  CHECK_INT(d->nkeys, 0);
  /* unused slots stay zero (structs compare with memcmp) */
  CHECK_NEAR(d->points[2][0], 0, 0);
  CHECK_NEAR(d->key_time[0], 0, 0);

  sim_default_scene(s);
  CHECK_INT(s->ncables, 0);
  rc = load("{'bodies': [{'mesh': {'type': 'icosphere'}}], 'cables': []}", NULL, 0, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_INT(s->ncables, 0);
}

#define B "{'mesh': {'type': 'icosphere'}}"
#define SC(cable) "{'bodies': [" B "], 'cables': [" cable "]}"
#define P2 "'points': [[0, 0, 0], [1, 0, 0]]"
static const bad_case bad_cases[] = {
    {SC("{'body': 0}"),
     "bad.json:1:58: cables.0: missing required key \"points\" ([[x, y, z], ...], at least 2)"},
    {SC("{" P2 "}"), "bad.json:1:58: cables.0: missing required key \"body\" (a body index)"},
    {SC("{'body': 0, 'points': [[0, 0, 0]]}"),
     "bad.json:1:80: cables.0.points: expected 2..32 points [x, y, z], got 1"},
    {SC("{'body': 0, 'points': [[0, 0, 0], [1, 0]]}"),
     "bad.json:1:92: cables.0.points.1: expected an array of 3 numbers, got an array of 2"},
    {SC("{'body': 0, 'points': [[0, 0, 0], [1e999, 0, 0]]}"),
     "bad.json:1:93: cables.0.points.1.0: expected a finite number, got one too large for a "
     "double"},
    {SC("{'body': 0, 'points': [[0, 0, 0], [1, 0, 0], [1, 0, 0]]}"),
     "bad.json:1:103: cables.0.points.2: expected a point more than 1e-12 from points.1, got the "
     "same point"},
    {SC("{'body': 0, 'points': [[0, 0, 0], [1e-13, 0, 0]]}"),
     "bad.json:1:92: cables.0.points.1: expected a point more than 1e-12 from points.0, got one "
     "1e-13 away"},
    {SC("{'body': 0, 'points': 'a'}"),
     "bad.json:1:80: cables.0.points: expected an array of points [x, y, z], got a string"},
    {SC("{'body': 0, 'points': [[0, 0, 0], 'x']}"),
     "bad.json:1:92: cables.0.points.1: expected an array of 3 numbers, got a string"},
    {SC("{'body': 1, " P2 "}"), "bad.json:1:67: cables.0.body: expected a body index 0..0, got 1"},
    {SC("{'body': -1, " P2 "}"),
     "bad.json:1:67: cables.0.body: expected a body index 0..0, got -1"},
    {SC("{'body': 0.5, " P2 "}"), "bad.json:1:67: cables.0.body: expected an integer, got 0.5"},
    {SC("{'body': 0, " P2 ", 'compliance': -1}"),
     "bad.json:1:118: cables.0.compliance: expected a number >= 0, got -1"},
    {SC("{'body': 0, " P2 ", 'pull': [[0, 0], [1, 0.1], [1, 0.2]]}"),
     "bad.json:1:132: cables.0.pull.2.0: expected a time > 1 (pull.1.0: times strictly "
     "increasing), got 1"},
    {SC("{'body': 0, " P2 ", 'pull': [[-1, 0]]}"),
     "bad.json:1:114: cables.0.pull.0.0: expected a number >= 0, got -1"},
    {SC("{'body': 0, " P2 ", 'pull': [[0, 0, 1]]}"),
     "bad.json:1:113: cables.0.pull.0: expected an array of 2 numbers, got an array of 3"},
    {SC("{'body': 0, " P2 ", 'pull': 5}"),
     "bad.json:1:112: cables.0.pull: expected an array of keys [time, pull], got a number"},
    {SC("{'body': 0, " P2 ", 'pull': [[0, 1]]}"),
     "bad.json:1:117: cables.0.pull.0.1: expected a pull < 1 (the rest length, through the "
     "points), got 1"},
    {SC("{'body': 0, " P2 ", 'pull': [[0, 1e999]]}"),
     "bad.json:1:117: cables.0.pull.0.1: expected a finite number, got one too large for a double"},
    {SC("{'body': 0, " P2 ", 'complience': 1}"),
     "bad.json:1:104: cables.0.complience: unknown key \"complience\" (did you mean "
     "\"compliance\"?)"},
    {SC("{'body': 0, " P2 ", 'zz': 1}"),
     "bad.json:1:104: cables.0.zz: unknown key \"zz\" (allowed: \"body\", \"points\", "
     "\"compliance\", \"pull\")"},
    {SC("{'body': 0, " P2 ", 'body': 0}"),
     "bad.json:1:104: cables.0.body: duplicate key \"body\" (each key may appear once)"},
    {SC("1"), "bad.json:1:58: cables.0: expected an object (a cable), got a number"},
    {"{'bodies': [" B "], 'cables': {}}",
     "bad.json:1:57: cables: expected an array, got an object"},
    {"{'bodies': [" B "], 'cabels': []}",
     "bad.json:1:47: cabels: unknown key \"cabels\" (did you mean \"cables\"?)"},
};

static void test_bad_scenes(void) {
  const int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  check_bad_cases(bad_cases, n);
}

/* Too many points, keys or cables: the loader stops at the array, before any slot overflows. */
static void test_limits(void) {
  static char text[8192];
  sim_status st;
  char *p = text;
  p += sprintf(p, "{'bodies': [" B "], 'cables': [{'body': 0, 'points': [");
  for (int i = 0; i <= SIM_MAX_CABLE_POINTS; i++) p += sprintf(p, "%s[%d, 0, 0]", i ? ", " : "", i);
  sprintf(p, "]}]}");
  CHECK_INT(load(text, NULL, 0, &st), SIM_ERR_SCENE);
  CHECK_MSG(st,
            "bad.json:1:80: cables.0.points: expected an array of at most 32 points [x, y, z], got "
            "an array of 33");

  p = text;
  p += sprintf(p, "{'bodies': [" B "], 'cables': [{'body': 0, " P2 ", 'pull': [");
  for (int k = 0; k <= SIM_MAX_CABLE_KEYS; k++) p += sprintf(p, "%s[%d, 0]", k ? ", " : "", k);
  sprintf(p, "]}]}");
  CHECK_INT(load(text, NULL, 0, &st), SIM_ERR_SCENE);
  CHECK_MSG(st,
            "bad.json:1:112: cables.0.pull: expected an array of at most 16 keys [time, pull], got "
            "an array of 17");

  p = text;
  p += sprintf(p, "{'bodies': [" B "], 'cables': [");
  for (int i = 0; i <= SIM_MAX_CABLES; i++) p += sprintf(p, "%s{'body': 0, " P2 "}", i ? ", " : "");
  sprintf(p, "]}");
  CHECK_INT(load(text, NULL, 0, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json:1:434: cables.8: expected at most 8 cables");

  /* exactly at the limits loads */
  p = text;
  p += sprintf(p, "{'bodies': [" B "], 'cables': [{'body': 0, 'points': [");
  for (int i = 0; i < SIM_MAX_CABLE_POINTS; i++) p += sprintf(p, "%s[%d, 0, 0]", i ? ", " : "", i);
  p += sprintf(p, "], 'pull': [");
  for (int k = 0; k < SIM_MAX_CABLE_KEYS; k++) p += sprintf(p, "%s[%d, 0.5]", k ? ", " : "", k);
  sprintf(p, "]}]}");
  CHECK_INT(load(text, NULL, 0, &st), SIM_OK);
  CHECK_INT(g_scene.cables[0].npoints, SIM_MAX_CABLE_POINTS);
  CHECK_INT(g_scene.cables[0].nkeys, SIM_MAX_CABLE_KEYS);
  CHECK_NEAR(g_scene.cables[0].points[SIM_MAX_CABLE_POINTS - 1][0], SIM_MAX_CABLE_POINTS - 1, 0);
  CHECK_NEAR(g_scene.cables[0].key_time[SIM_MAX_CABLE_KEYS - 1], SIM_MAX_CABLE_KEYS - 1, 0);

  /* a scene built in code: counts out of range */
  sim_scene *s = &g_scene;
  CHECK_INT(load(SC("{'body': 0, " P2 "}"), NULL, 0, &st), SIM_OK);
  s->cables[0].npoints = 1;
  CHECK_INT(sim_scene_validate(s, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json: cables.0.points: expected 2..32 points [x, y, z], got 1");
  s->cables[0].npoints = 2;
  s->cables[0].points[1][1] = INFINITY;
  CHECK_INT(sim_scene_validate(s, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json: cables.0.points.1.1: expected a finite number, got inf");
  s->cables[0].points[1][1] = 0;
  s->ncables = SIM_MAX_CABLES + 1;
  CHECK_INT(sim_scene_validate(s, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json: cables: expected 0..8 cables, got 9");
}

#define BASE                                            \
  "{\n  'bodies': [{'mesh': {'type': 'icosphere'}}],\n" \
  "  'cables': [{'body': 0, 'points': [[0, 0, 0], [0.5, 0, 0]]}]\n}"

static void test_overrides(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  const char *good[] = {"cables.0.compliance=1e-9", "cables.0.points.1=[0, 0.5, 0]",
                        "cables.0.pull=[[0, 0], [2, 0.1]]", "cables.0.pull.1.1=0.2",
                        "cables.1={\"body\": 0, \"points\": [[0, 0, 0], [0, 0, 0.25]]}"};
  int rc = load(BASE, good, 5, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->ncables, 2);
  CHECK_NEAR(s->cables[0].compliance, 1e-9, 0);
  CHECK_NEAR(s->cables[0].points[1][0], 0, 0);
  CHECK_NEAR(s->cables[0].points[1][1], 0.5, 0);
  CHECK_INT(s->cables[0].nkeys, 2);
  CHECK_NEAR(s->cables[0].key_time[1], 2, 0);
  CHECK_NEAR(s->cables[0].key_pull[1], 0.2, 0);
  CHECK_NEAR(s->cables[1].points[1][2], 0.25, 0);
  CHECK_NEAR(s->cables[1].compliance, 0, 0);

  /* a cable made entirely by overrides */
  const char *make[] = {"cables.0.body=0", "cables.0.points=[[0, 0, 0], [0, 1, 0]]"};
  rc = sim_scene_load_string(q("{'bodies': [{'mesh': {'type': 'icosphere'}}]}"), "x.json", make, 2,
                             s, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_INT(s->ncables, 1);
  CHECK_NEAR(s->cables[0].points[1][1], 1, 0);

  static const bad_override bad[] = {
      {"cables.0.compliance=-1",
       "--set cables.0.compliance=-1: cables.0.compliance: expected a number >= 0, got -1"},
      {"cables.0.points.1=[0, 0, 0]",
       "--set cables.0.points.1=[0, 0, 0]: cables.0.points.1: expected a point more than 1e-12 "
       "from points.0, got the same point"},
      {"cables.0.pull=[[1, 0], [0.5, 0]]",
       "--set cables.0.pull=[[1, 0], [0.5, 0]]: cables.0.pull.1.0: expected a time > 1 (pull.0.0: "
       "times strictly increasing), got 0.5"},
      {"cables.0.body=3",
       "--set cables.0.body=3: cables.0.body: expected a body index 0..0, got 3"},
      {"cables.0.complience=1",
       "--set cables.0.complience=1: cables.0.complience: unknown key \"complience\" (did you mean "
       "\"compliance\"?)"},
      {"cables.0.points=null",
       "--set cables.0.points=null: cables.0: missing required key \"points\" ([[x, y, z], ...], "
       "at least 2)"},
      {"cables.2.body=0",
       "--set cables.2.body=0: cables has 1 element: expected an index 0..1 (1 appends), got 2"},
  };
  check_bad_overrides(BASE, bad, (int)(sizeof bad / sizeof bad[0]));
}

static void test_round_trip(void) {
  sim_status st;
  char *text = NULL, *text2 = NULL;
  int rc = sim_scene_load("data/scenes/loader_cable.json", NULL, 0, &g_scene, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (!text) return;
  rc = sim_scene_load_string(text, "roundtrip.json", NULL, 0, &g_scene2, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n%s\n", st.msg, text);
  memcpy(g_scene2.file, g_scene.file, sizeof g_scene.file);
  CHECK(memcmp(&g_scene, &g_scene2, sizeof g_scene) == 0);
  CHECK_INT(sim_scene_to_json(&g_scene2, &text2), SIM_OK);
  CHECK(text2 && strcmp(text, text2) == 0);
  /* the layout: one point or key per line; defaults written too */
  CHECK_STR_CONTAINS(text,
                     "\"points\": [\n        [0.25, 0.1, 0],\n        [0.25, 2, 0],\n"
                     "        [0.25, 3.9, 0.1]\n      ],\n      \"compliance\": 1e-12,\n"
                     "      \"pull\": [\n        [0.5, 0],\n        [1.5, 0.3],\n"
                     "        [3, 0.30000000000000004]\n      ]\n");
  CHECK_STR_CONTAINS(text, "\"compliance\": 0,\n      \"pull\": []\n");
  free(text);
  free(text2);
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  test_full_scene();
  test_bad_scenes();
  test_limits();
  test_overrides();
  test_round_trip();
  CHECK_INT(sim_mem_in_use(), mem0); /* every sim_malloc freed */
  return check_summary("test_scene_cable");
}
