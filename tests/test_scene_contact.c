/* SPDX-License-Identifier: MIT */
/* Scene loader tests of "contact" and "obstacles": a full scene, defaults, exact one-line
   messages for bad values, --set overrides and the sim_scene_to_json round trip. Runs in tests/. */
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
  int rc = sim_scene_load("data/scenes/loader_contact.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  const sim_contact_def *c = &s->contact;
  CHECK_NEAR(c->margin, 0.03, 0);
  CHECK_NEAR(c->min_separation, 0.01, 0);
  CHECK_INT(c->ncp, SIM_SCENE_NCP_MIN_MAP);
  CHECK_INT(c->preconditioner, SIM_SCENE_PRECOND_MASS);
  CHECK_INT(c->cr_iterations, 24);
  CHECK_NEAR(c->cr_tolerance, 1e-9, 0);
  CHECK_NEAR(c->max_force, 100, 0);
  CHECK_INT(c->warm_start, 0);
  CHECK_INT(c->bodies, 0);
  CHECK_INT(c->self_collision, 1);
  CHECK_INT(c->creases, 0);
  CHECK_NEAR(c->mu, 0.25, 0);
  CHECK_INT(c->delassus, SIM_SCENE_DELASSUS_OPERATOR);
  CHECK_INT(c->formulation, SIM_SCENE_FORM_PAPER);
  CHECK_INT(c->cr_preconditioner, SIM_SCENE_CR_NONE);
  CHECK_INT(c->newton_steps, 3);
  CHECK_INT(c->redetect, 3);
  CHECK_INT(c->line_search, 0);
  CHECK_NEAR(c->newton_tolerance, 1e-6, 0);
  CHECK_INT(c->end_newton_steps, 7);
  CHECK_NEAR(c->end_tolerance, 2e-4, 0);
  CHECK_INT(s->nobstacles, 7);

  const sim_obstacle_def *o = &s->obstacles[0];
  CHECK(strcmp(o->name, "floor") == 0);
  CHECK_INT(o->type, SIM_OBST_PLANE);
  CHECK_NEAR(o->point[1], -2, 0);
  CHECK_NEAR(o->normal[0], 0, 0);
  CHECK_NEAR(o->normal[1], 1, 0); /* normalised */
  CHECK_NEAR(o->mu, 0.5, 0);
  CHECK_NEAR(o->margin, 0.05, 0);
  CHECK_INT((int)o->touches, 3); /* default: every body */
  CHECK_INT(o->nsteps, 0);

  o = &s->obstacles[1];
  CHECK(strcmp(o->name, "obstacle1") == 0);
  CHECK_INT(o->type, SIM_OBST_BOX);
  CHECK_NEAR(o->center[0], 1, 0);
  CHECK_NEAR(o->half_extents[0], 0.5, 0);
  CHECK_NEAR(o->half_extents[1], 0.25, 0);
  CHECK_NEAR(o->half_extents[2], 1, 0);
  CHECK_NEAR(o->rotate_deg[1], 45, 0);
  CHECK_NEAR(o->mu, 0, 0);
  CHECK_INT((int)o->touches, 2); /* "sheet" */

  o = &s->obstacles[2];
  CHECK(strcmp(o->name, "ball_obstacle") == 0);
  CHECK_INT(o->type, SIM_OBST_SPHERE);
  CHECK_NEAR(o->center[1], 1, 0);
  CHECK_NEAR(o->radius, 0.3, 0);
  CHECK_INT((int)o->touches, 3); /* 0 and "sheet" */

  o = &s->obstacles[3];
  CHECK_INT(o->type, SIM_OBST_CAPSULE);
  CHECK_NEAR(o->a[0], -1, 0);
  CHECK_NEAR(o->b[0], 1, 0);
  CHECK_NEAR(o->radius, 0.2, 0);
  CHECK_NEAR(o->mu, 0.1, 0);

  o = &s->obstacles[4];
  CHECK(strcmp(o->name, "roller") == 0);
  CHECK_INT(o->type, SIM_OBST_CYLINDER);
  CHECK_NEAR(o->point[2], -1.5, 0);
  CHECK_NEAR(o->axis[0], 1, 0); /* normalised */
  CHECK_NEAR(o->radius, 1, 0);
  CHECK_NEAR(o->height, 4, 0);
  CHECK_NEAR(o->spin, -3, 0);
  CHECK_INT((int)o->touches, 1); /* "ball" */
  CHECK_INT(o->nsteps, 2);
  CHECK_INT(o->steps[0].kind, SIM_STEP_WAIT);
  CHECK_NEAR(o->steps[0].duration, 1, 0);
  CHECK_INT(o->steps[1].kind, SIM_STEP_PULLING);
  CHECK_NEAR(o->steps[1].direction[2], 1, 0); /* normalised, like a pin's */
  CHECK_NEAR(o->steps[1].speed, 0.5, 0);
  CHECK_NEAR(o->steps[1].length, 1, 0);

  o = &s->obstacles[5];
  CHECK_INT(o->type, SIM_OBST_TORUS);
  CHECK_NEAR(o->center[1], 0.5, 0);
  CHECK_NEAR(o->axis[2], 1, 0);
  CHECK_NEAR(o->major, 1, 0);
  CHECK_NEAR(o->minor, 0.25, 0);
  CHECK_INT(o->nsteps, 1);
  CHECK_INT(o->steps[0].kind, SIM_STEP_ROLLING);
  CHECK_NEAR(o->steps[0].speed, 45, 0);
  CHECK_NEAR(o->steps[0].angle, 90, 0);

  o = &s->obstacles[6];
  CHECK(strcmp(o->name, "cube") == 0);
  CHECK_INT(o->type, SIM_OBST_MESH);
  const char *suffix = "/tests/data/scenes/meshes/unit_cube.obj"; /* resolved, absolute */
  size_t pl = strlen(o->path), sl = strlen(suffix);
  CHECK(o->path[0] == '/' && pl > sl && strcmp(o->path + pl - sl, suffix) == 0);
  CHECK_NEAR(o->transform.translate[1], -1, 0);
  CHECK_NEAR(o->transform.rotate_deg[1], 30, 0);
  for (int k = 0; k < 3; k++) CHECK_NEAR(o->transform.scale[k], 2, 0);
  CHECK_INT(o->closed, SIM_CLOSED_NO);
  CHECK_NEAR(o->mu, 0.2, 0);
  CHECK_INT((int)o->touches, 0); /* [] : none */
}

static void test_defaults(void) {
  sim_contact_def c;
  sim_default_contact(&c);
  CHECK_NEAR(c.margin, 0.01, 0);
  CHECK_NEAR(c.min_separation, 0, 0);
  CHECK_INT(c.ncp, SIM_SCENE_NCP_FISCHER_BURMEISTER);
  CHECK_INT(c.preconditioner, SIM_SCENE_PRECOND_DELASSUS);
  CHECK_INT(c.cr_iterations, 10);
  CHECK_NEAR(c.cr_tolerance, 0, 0);
  CHECK_NEAR(c.max_force, 0, 0);
  CHECK_INT(c.warm_start, 1);
  CHECK_INT(c.bodies, 1);
  CHECK_INT(c.self_collision, 0);
  CHECK_INT(c.edge_edge, 0);
  CHECK_INT(c.obstacle_edges, 0);
  CHECK_INT(c.creases, 1);
  sim_default_scene(&g_scene);
  CHECK(memcmp(&g_scene.contact, &c, sizeof c) == 0);
  CHECK_INT(g_scene.nobstacles, 0);

  sim_status st;
  int rc = load(
      "{'bodies': [{'name': 'a', 'mesh': {'type': 'icosphere'}},"
      " {'name': 'b', 'mesh': {'type': 'icosphere'}}],"
      " 'obstacles': [{'type': 'plane', 'normal': [0, 1, 0]},"
      " {'type': 'cylinder', 'point': [0, 0, 0], 'axis': [1, 0, 0], 'radius': 1},"
      " {'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.obj'}]}",
      NULL, 0, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  const sim_scene *s = &g_scene;
  CHECK(memcmp(&s->contact, &c, sizeof c) == 0); /* no "contact": all defaults */
  CHECK_INT(s->nobstacles, 3);
  for (int i = 0; i < 3; i++) {
    char name[24];
    snprintf(name, sizeof name, "obstacle%d", i);
    CHECK(strcmp(s->obstacles[i].name, name) == 0);
    CHECK_NEAR(s->obstacles[i].mu, 0, 0);
    CHECK(isnan(s->obstacles[i].margin)); /* none of its own: contact.margin */
    CHECK_INT((int)s->obstacles[i].touches, 3); /* both bodies */
    CHECK_INT(s->obstacles[i].nsteps, 0);
  }
  for (int k = 0; k < 3; k++) CHECK_NEAR(s->obstacles[0].point[k], 0, 0);
  CHECK_NEAR(s->obstacles[1].height, 0, 0); /* infinite */
  CHECK_NEAR(s->obstacles[1].spin, 0, 0);
  CHECK_INT(s->obstacles[2].closed, SIM_CLOSED_AUTO);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(s->obstacles[2].transform.scale[k], 1, 0);
    CHECK_NEAR(s->obstacles[2].transform.translate[k], 0, 0);
    CHECK_NEAR(s->obstacles[2].transform.rotate_deg[k], 0, 0);
  }
  /* box rotate defaults to 0 */
  rc = load(
      "{'bodies': [{'mesh': {'type': 'icosphere'}}], 'obstacles': [{'type': 'box',"
      " 'center': [0, 0, 0], 'half_extents': [1, 1, 1]}]}",
      NULL, 0, &st);
  CHECK_INT(rc, SIM_OK);
  for (int k = 0; k < 3; k++) CHECK_NEAR(g_scene.obstacles[0].rotate_deg[k], 0, 0);
  CHECK_INT((int)g_scene.obstacles[0].touches, 1);

  /* a scene built in code: the default obstacle touches every body; validation of the structs */
  sim_scene *w = &g_scene2;
  sim_default_scene(w);
  w->nbodies = 1;
  w->nobstacles = 1;
  sim_default_obstacle_def(&w->obstacles[0], SIM_OBST_SPHERE);
  CHECK_INT((int)w->obstacles[0].touches, (int)SIM_TOUCHES_ALL);
  CHECK_INT(sim_scene_validate(w, &st), SIM_OK);
  w->obstacles[0].touches = 2;
  CHECK_INT(sim_scene_validate(w, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "scene: obstacles.0.touches: expected body indices 0..0, got 1");
  w->obstacles[0].touches = 1;
  w->nobstacles = SIM_MAX_OBSTACLES + 1;
  CHECK_INT(sim_scene_validate(w, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "scene: obstacles: expected 0..64 obstacles, got 65");
  w->nobstacles = 1;
  w->contact.cr_iterations = 0;
  CHECK_INT(sim_scene_validate(w, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "scene: contact.cr_iterations: expected an integer >= 1, got 0");
}

#define BODIES "{'bodies': [{'name': 'ball', 'mesh': {'type': 'icosphere'}}], "
#define PLANE "{'type': 'plane', 'normal': [0, 1, 0]}"
static const bad_case bad_cases[] = {
    {BODIES "'contact': 5}", "bad.json:1:74: contact: expected an object, got a number"},
    {BODIES "'contact': {'margin': 'big'}}",
     "bad.json:1:85: contact.margin: expected a number, got a string"},
    {BODIES "'contact': {'margin': -1}}",
     "bad.json:1:85: contact.margin: expected a number >= 0, got -1"},
    {BODIES "'contact': {'marign': 0.1}}",
     "bad.json:1:75: contact.marign: unknown key \"marign\" (did you mean \"margin\"?)"},
    {BODIES "'contact': {'friction': 0.1}}",
     "bad.json:1:75: contact.friction: unknown key \"friction\" (allowed: \"margin\", "
     "\"min_separation\", \"ncp\", \"preconditioner\", \"cr_iterations\", \"cr_tolerance\", "
     "\"max_force\", \"warm_start\", \"bodies\", \"self_collision\", \"edge_edge\", "
     "\"obstacle_edges\", \"mu\", "
     "\"delassus\", "
     "\"formulation\", \"cr_preconditioner\", \"newton_steps\", \"newton_tolerance\", "
     "\"redetect\", \"line_search\", \"cr_precision\", \"newton_jacobian\", \"creases\", "
     "\"end_newton_steps\", \"end_tolerance\")"},
    {BODIES "'contact': {'newton_jacobian': 'exakt'}}",
     "bad.json:1:94: contact.newton_jacobian: expected one of \"lagged\", \"exact\", got "
     "\"exakt\" (did you mean \"exact\"?)"},
    {BODIES "'contact': {'newton_jacobian': 'exact', 'formulation': 'paper'}}",
     "bad.json:1:94: contact.newton_jacobian: \"exact\" needs \"formulation\": "
     "\"compliance\""},
    {BODIES "'contact': {'line_search': 4, 'formulation': 'paper'}}",
     "bad.json:1:90: contact.line_search: needs \"formulation\": \"compliance\" (the paper's form "
     "takes the full Newton step; 0 or no line_search there)"},
    {BODIES "'contact': {'cr_precision': 'half'}}",
     "bad.json:1:91: contact.cr_precision: expected one of \"double\", \"float\", got \"half\""},
    {BODIES "'contact': {'min_separation': -0.01}}",
     "bad.json:1:93: contact.min_separation: expected a number >= 0, got -0.01"},
    {BODIES "'contact': {'margin': 0.01, 'min_separation': 0.02}}",
     "bad.json:1:109: contact.min_separation: expected a number <= 0.01 (contact.margin), got "
     "0.02"},
    {BODIES "'contact': {'ncp': 'fischer'}}",
     "bad.json:1:82: contact.ncp: expected one of \"fischer_burmeister\", \"min_map\", got "
     "\"fischer\" (did you mean \"fischer_burmeister\"?)"},
    {BODIES "'contact': {'ncp': 'newton'}}",
     "bad.json:1:82: contact.ncp: expected one of \"fischer_burmeister\", \"min_map\", got "
     "\"newton\""},
    {BODIES "'contact': {'preconditioner': 'mas'}}",
     "bad.json:1:93: contact.preconditioner: expected one of \"delassus\", \"mass\", got \"mas\" "
     "(did you mean \"mass\"?)"},
    {BODIES "'contact': {'cr_iterations': 0}}",
     "bad.json:1:92: contact.cr_iterations: expected an integer >= 1, got 0"},
    {BODIES "'contact': {'cr_iterations': 1001}}",
     "bad.json:1:92: contact.cr_iterations: expected an integer <= 1000, got 1001"},
    {BODIES "'contact': {'cr_iterations': 2.5}}",
     "bad.json:1:92: contact.cr_iterations: expected an integer, got 2.5"},
    {BODIES "'contact': {'cr_tolerance': -1e-9}}",
     "bad.json:1:91: contact.cr_tolerance: expected a number >= 0, got -1e-09"},
    {BODIES "'contact': {'newton_tolerance': -1}}",
     "bad.json:1:95: contact.newton_tolerance: expected a number >= 0, got -1"},
    {BODIES "'contact': {'newton_steps': 0}}",
     "bad.json:1:91: contact.newton_steps: expected an integer >= 1, got 0"},
    {BODIES "'contact': {'redetect': 11}}",
     "bad.json:1:87: contact.redetect: expected an integer <= 10, got 11"},
    {BODIES "'contact': {'end_newton_steps': -1}}",
     "bad.json:1:95: contact.end_newton_steps: expected an integer >= 0, got -1"},
    {BODIES "'contact': {'end_tolerance': 'tight'}}",
     "bad.json:1:92: contact.end_tolerance: expected a number, got a string"},
    {BODIES "'contact': {'line_search': -1}}",
     "bad.json:1:90: contact.line_search: expected an integer >= 0, got -1"},
    {BODIES "'contact': {'line_search': 31}}",
     "bad.json:1:90: contact.line_search: expected an integer <= 30, got 31"},
    {BODIES "'contact': {'formulation': 'exact'}}",
     "bad.json:1:90: contact.formulation: expected one of \"compliance\", \"paper\", got "
     "\"exact\""},
    {BODIES "'contact': {'cr_preconditioner': 'ilu'}}",
     "bad.json:1:96: contact.cr_preconditioner: expected one of \"jacobi\", \"none\", got \"ilu\""},
    {BODIES "'contact': {'max_force': -100}}",
     "bad.json:1:88: contact.max_force: expected a number >= 0, got -100"},
    {BODIES "'contact': {'warm_start': 1}}",
     "bad.json:1:89: contact.warm_start: expected true or false, got a number"},
    {BODIES "'contact': {'bodies': 'yes'}}",
     "bad.json:1:85: contact.bodies: expected true or false, got a string"},
    {BODIES "'contact': {'self_collision': null}}",
     "bad.json:1:93: contact.self_collision: expected true or false, got null"},
    {BODIES "'contact': {'creases': 0}}",
     "bad.json:1:86: contact.creases: expected true or false, got a number"},
    {BODIES "'contact': {'obstacle_edges': 1}}",
     "bad.json:1:93: contact.obstacle_edges: expected true or false, got a number"},
    {BODIES "'obstacles': {}}", "bad.json:1:76: obstacles: expected an array, got an object"},
    {BODIES "'obstacles': [5]}",
     "bad.json:1:77: obstacles.0: expected an object (an obstacle), got a number"},
    {BODIES "'obstacles': [{'radius': 1}]}",
     "bad.json:1:77: obstacles.0: missing required key \"type\" (one of \"plane\", \"box\", "
     "\"sphere\", \"capsule\", \"cylinder\", \"torus\", \"mesh\")"},
    {BODIES "'obstacles': [{'type': 'sphre', 'radius': 1}]}",
     "bad.json:1:86: obstacles.0.type: expected one of \"plane\", \"box\", \"sphere\", "
     "\"capsule\", \"cylinder\", \"torus\", \"mesh\", got \"sphre\" (did you mean \"sphere\"?)"},
    {BODIES "'obstacles': [{'type': 'cone'}]}",
     "bad.json:1:86: obstacles.0.type: expected one of \"plane\", \"box\", \"sphere\", "
     "\"capsule\", \"cylinder\", \"torus\", \"mesh\", got \"cone\""},
    {BODIES "'obstacles': [{'type': 3}]}",
     "bad.json:1:86: obstacles.0.type: expected one of \"plane\", \"box\", \"sphere\", "
     "\"capsule\", \"cylinder\", \"torus\", \"mesh\", got a number"},
    {BODIES "'obstacles': [{'type': 'plane', 'nromal': [0, 1, 0]}]}",
     "bad.json:1:95: obstacles.0.nromal: unknown key \"nromal\" for obstacle type \"plane\" (did "
     "you mean \"normal\"?)"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'radius': 1}]}",
     "bad.json:1:116: obstacles.0.radius: unknown key \"radius\" for obstacle type \"plane\" "
     "(allowed: \"name\", \"type\", \"point\", \"normal\", \"mu\", \"margin\", \"touches\", "
     "\"script\")"},
    {BODIES "'obstacles': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'spin': 3}]}",
     "bad.json:1:130: obstacles.0.spin: unknown key \"spin\" for obstacle type \"sphere\" "
     "(allowed: \"name\", \"type\", \"center\", \"radius\", \"mu\", \"margin\", \"touches\", "
     "\"script\")"},
    {BODIES "'obstacles': [{'type': 'plane'}]}",
     "bad.json:1:77: obstacles.0: missing required key \"normal\" (required for obstacle type "
     "\"plane\")"},
    {BODIES "'obstacles': [{'type': 'capsule', 'a': [0, 0, 0], 'radius': 1}]}",
     "bad.json:1:77: obstacles.0: missing required key \"b\" (required for obstacle type "
     "\"capsule\")"},
    {BODIES "'obstacles': [{'type': 'mesh'}]}",
     "bad.json:1:77: obstacles.0: missing required key \"path\" (required for obstacle type "
     "\"mesh\")"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 0, 0]}]}",
     "bad.json:1:105: obstacles.0.normal: expected a nonzero vector, got [0, 0, 0]"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1]}]}",
     "bad.json:1:105: obstacles.0.normal: expected an array of 3 numbers, got an array of 2"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': 'up'}]}",
     "bad.json:1:105: obstacles.0.normal: expected an array of 3 numbers, got a string"},
    {BODIES "'obstacles': [{'type': 'box', 'center': [0, 0, 0], 'half_extents': [1, 0, 1]}]}",
     "bad.json:1:134: obstacles.0.half_extents.1: expected a number > 0, got 0"},
    {BODIES "'obstacles': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': -1}]}",
     "bad.json:1:127: obstacles.0.radius: expected a number > 0, got -1"},
    {BODIES "'obstacles': [{'type': 'capsule', 'a': [1, 2, 3], 'b': [1, 2, 3], 'radius': 1}]}",
     "bad.json:1:118: obstacles.0.b: expected an end point different from a (a capsule needs a "
     "length)"},
    {BODIES "'obstacles': [{'type': 'capsule', 'a': [0, 0, 0], 'b': [1, 0, 0], 'radius': 0}]}",
     "bad.json:1:139: obstacles.0.radius: expected a number > 0, got 0"},
    {BODIES
     "'obstacles': [{'type': 'cylinder', 'point': [0, 0, 0], 'axis': [0, 0, 0], 'radius': 1}]}",
     "bad.json:1:126: obstacles.0.axis: expected a nonzero vector, got [0, 0, 0]"},
    {BODIES "'obstacles': [{'type': 'cylinder', 'point': [0, 0, 0], 'axis': [1, 0, 0], 'radius': "
            "1, 'height': -2}]}",
     "bad.json:1:160: obstacles.0.height: expected a number >= 0, got -2"},
    {BODIES "'obstacles': [{'type': 'cylinder', 'point': [0, 0, 0], 'axis': [1, 0, 0], 'radius': "
            "1, 'spin': 'fast'}]}",
     "bad.json:1:158: obstacles.0.spin: expected a number, got a string"},
    {BODIES "'obstacles': [{'type': 'torus', 'center': [0, 0, 0], 'axis': [0, 1, 0], 'major': 1, "
            "'minor': 1}]}",
     "bad.json:1:144: obstacles.0.major: expected a number > 1 (minor), got 1"},
    {BODIES "'obstacles': [{'type': 'torus', 'center': [0, 0, 0], 'axis': [0, 1, 0], 'major': 0.5, "
            "'minor': 1}]}",
     "bad.json:1:144: obstacles.0.major: expected a number > 1 (minor), got 0.5"},
    {BODIES "'obstacles': [{'type': 'torus', 'center': [0, 0, 0], 'axis': [0, 1, 0], 'major': 1, "
            "'minor': 0}]}",
     "bad.json:1:156: obstacles.0.minor: expected a number > 0, got 0"},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'meshes/nope.obj'}]}",
     "bad.json:1:102: obstacles.0.path: file not found: meshes/nope.obj"},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.ply'}]}",
     "bad.json:1:102: obstacles.0.path: expected a file ending in .obj, .off or .stl (a surface), "
     "got \"data/scenes/meshes/unit_cube.ply\""},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.obj', 'closed': "
            "'yes'}]}",
     "bad.json:1:148: obstacles.0.closed: expected \"auto\", true or false, got \"yes\""},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.obj', 'closed': "
            "'aut'}]}",
     "bad.json:1:148: obstacles.0.closed: expected \"auto\", true or false, got \"aut\" (did you "
     "mean \"auto\"?)"},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.obj', "
            "'transform': {'scale': 0}}]}",
     "bad.json:1:161: obstacles.0.transform.scale: expected a number > 0, got 0"},
    {BODIES "'obstacles': [{'type': 'mesh', 'path': 'data/scenes/meshes/unit_cube.obj', "
            "'transform': {'rotat': [0, 0, 0]}}]}",
     "bad.json:1:152: obstacles.0.transform.rotat: unknown key \"rotat\" (did you mean "
     "\"rotate\"?)"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'mu': -0.5}]}",
     "bad.json:1:122: obstacles.0.mu: expected a number >= 0, got -0.5"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'margin': -0.1}]}",
     "bad.json:1:126: obstacles.0.margin: expected a number >= 0, got -0.1"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'margin': '1cm'}]}",
     "bad.json:1:126: obstacles.0.margin: expected a number, got a string"},
    {BODIES "'contact': {'min_separation': 0.005}, "
            "'obstacles': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'margin': 0.002}]}",
     "bad.json:1:178: obstacles.0.margin: expected a number >= 0.005 (contact.min_separation), "
     "got 0.002"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': ['bal']}]}",
     "bad.json:1:128: obstacles.0.touches.0: unknown body \"bal\" (bodies: \"ball\") (did you mean "
     "\"ball\"?)"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': ['cloth']}]}",
     "bad.json:1:128: obstacles.0.touches.0: unknown body \"cloth\" (bodies: \"ball\")"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': [1]}]}",
     "bad.json:1:128: obstacles.0.touches.0: expected a body index 0..0, got 1"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': ['ball', 0]}]}",
     "bad.json:1:136: obstacles.0.touches.1: body \"ball\" (index 0) is listed twice"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': 'ball'}]}",
     "bad.json:1:127: obstacles.0.touches: expected an array of body names or indices, got a "
     "string"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'touches': [true]}]}",
     "bad.json:1:128: obstacles.0.touches.0: expected a body name or index, got true"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'script': [{'type': 'wait', "
            "'duration': 0}]}]}",
     "bad.json:1:156: obstacles.0.script.0.duration: expected a number > 0, got 0"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'script': [{'type': 'rolling', "
            "'axis': [0, 1, 0], 'speed': 5}]}]}",
     "bad.json:1:127: obstacles.0.script.0: missing required key \"angle\" for a \"rolling\" step"},
    {BODIES "'obstacles': [{'type': 'plane', 'normal': [0, 1, 0], 'script': {}}]}",
     "bad.json:1:126: obstacles.0.script: expected an array of steps, got an object"},
    {BODIES "'obstacles': [{'name': 'wall', 'type': 'plane', 'normal': [0, 1, 0]}, {'name': "
            "'wall', 'type': 'plane', 'normal': [1, 0, 0]}]}",
     "bad.json:1:142: obstacles.1.name: duplicate obstacle name \"wall\" (also obstacles.0)"},
    {BODIES "'obstacles': [{'name': 'a wall', 'type': 'plane', 'normal': [0, 1, 0]}]}",
     "bad.json:1:86: obstacles.0.name: expected a name of letters, digits, '_', '-' and '.', got "
     "\"a wall\""},
};

/* 65 planes: one over the limit */
static const char *too_many_obstacles(void) {
  static char buf[4096];
  size_t n = (size_t)snprintf(buf, sizeof buf, "%s'obstacles': [", BODIES);
  for (int i = 0; i <= SIM_MAX_OBSTACLES; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", PLANE);
  snprintf(buf + n, sizeof buf - n, "]}");
  return buf;
}

/* an obstacle script of 17 steps: one over the limit */
static const char *too_many_steps(void) {
  static char buf[2048];
  size_t n = (size_t)snprintf(buf, sizeof buf,
                              "%s'obstacles': [{'type': 'sphere', 'center': [0, "
                              "0, 0], 'radius': 1, 'script': [",
                              BODIES);
  for (int i = 0; i <= SIM_MAX_STEPS; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{'type': 'wait', 'duration': 1}",
                          i ? ", " : "");
  snprintf(buf + n, sizeof buf - n, "]}]}");
  return buf;
}

static void test_bad_scenes(void) {
  const int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  CHECK(n >= 30);
  check_bad_cases(bad_cases, n);
  sim_status st;
  CHECK_INT(load(too_many_obstacles(), NULL, 0, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json:1:2637: obstacles.64: expected at most 64 obstacles");
  CHECK_INT(load(too_many_steps(), NULL, 0, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json:1:669: obstacles.0.script.16: expected at most 16 steps per obstacle");
}

#define BASE                                                           \
  "{\n  'bodies': [{'name': 'ball', 'mesh': {'type': 'icosphere'}},\n" \
  "             {'name': 'bar', 'mesh': {'type': 'icosphere'}}],\n"    \
  "  'contact': {'margin': 0.02},\n"                                   \
  "  'obstacles': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1}]\n}"

static void test_overrides(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  const char *good[] = {"contact.margin=0.05",
                        "contact.ncp=min_map",
                        "contact.warm_start=false",
                        "contact.max_force=1e12",
                        "obstacles.0.radius=2",
                        "obstacles.0.touches=[\"bar\"]",
                        "obstacles.0.script.0={\"type\": \"wait\", \"duration\": 3}",
                        "obstacles.1={\"type\": \"cylinder\", \"point\": [0, -1, 1.3], "
                        "\"axis\": [1, 0, 0], \"radius\": 1, \"spin\": 3}",
                        "obstacles.1.mu=0.5"};
  int rc = load(BASE, good, 9, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_NEAR(s->contact.margin, 0.05, 0);
  CHECK_INT(s->contact.ncp, SIM_SCENE_NCP_MIN_MAP);
  CHECK_INT(s->contact.warm_start, 0);
  CHECK_NEAR(s->contact.max_force, 1e12, 0);
  CHECK_INT(s->nobstacles, 2);
  CHECK_NEAR(s->obstacles[0].radius, 2, 0);
  CHECK_INT((int)s->obstacles[0].touches, 2);
  CHECK_INT(s->obstacles[0].nsteps, 1);
  CHECK_NEAR(s->obstacles[0].steps[0].duration, 3, 0);
  CHECK_INT(s->obstacles[1].type, SIM_OBST_CYLINDER);
  CHECK_NEAR(s->obstacles[1].spin, 3, 0);
  CHECK_NEAR(s->obstacles[1].mu, 0.5, 0);
  /* null removes a key: the default applies again */
  const char *reset = "contact.margin=null";
  CHECK_INT(load(BASE, &reset, 1, &st), SIM_OK);
  CHECK_NEAR(s->contact.margin, 0.01, 0);

  static const bad_override bad[] = {
      {"contact.cr_iterations=0",
       "--set contact.cr_iterations=0: contact.cr_iterations: expected an integer >= 1, got 0"},
      {"contact.min_separation=0.03",
       "--set contact.min_separation=0.03: contact.min_separation: expected a number <= 0.02 "
       "(contact.margin), got 0.03"},
      {"contact.self_collision=yes",
       "--set contact.self_collision=yes: contact.self_collision: expected true or false, got a "
       "string"},
      {"contact.preconditioner=delasus",
       "--set contact.preconditioner=delasus: contact.preconditioner: expected one of "
       "\"delassus\", \"mass\", got \"delasus\" (did you mean \"delassus\"?)"},
      {"obstacles.0.type=sphre",
       "--set obstacles.0.type=sphre: obstacles.0.type: expected one of \"plane\", \"box\", "
       "\"sphere\", \"capsule\", \"cylinder\", \"torus\", \"mesh\", got \"sphre\" (did you mean "
       "\"sphere\"?)"},
      {"obstacles.0.touches=[\"bal\"]",
       "--set obstacles.0.touches=[\"bal\"]: obstacles.0.touches.0: unknown body \"bal\" (bodies: "
       "\"ball\", \"bar\") (did you mean \"ball\"?)"},
      {"obstacles.0.radius=0",
       "--set obstacles.0.radius=0: obstacles.0.radius: expected a number > 0, got 0"},
      {"obstacles.2={\"type\": \"plane\", \"normal\": [0, 1, 0]}",
       "--set obstacles.2={\"type\": \"plane\", \"normal\": [0, 1, 0]}: obstacles has 1 element: "
       "expected an index 0..1 (1 appends), got 2"},
  };
  check_bad_overrides(BASE, bad, (int)(sizeof bad / sizeof bad[0]));
}

/* load -> JSON -> load gives the same struct, and the same JSON again */
static void round_trip(const char *what) {
  sim_status st;
  char *text = NULL, *text2 = NULL;
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (!text) return;
  int rc = sim_scene_load_string(text, "roundtrip.json", NULL, 0, &g_scene2, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n%s\n", st.msg, text);
  memcpy(g_scene2.file, g_scene.file, sizeof g_scene.file);
  check_report(memcmp(&g_scene, &g_scene2, sizeof g_scene) == 0, __FILE__, __LINE__,
               "%s: sim_scene_to_json -> load gives the same struct", what);
  CHECK_INT(sim_scene_to_json(&g_scene2, &text2), SIM_OK);
  CHECK(text2 && strcmp(text, text2) == 0);
  free(text);
  free(text2);
}

static void test_round_trip(void) {
  sim_status st;
  CHECK_INT(sim_scene_load("data/scenes/loader_contact.json", NULL, 0, &g_scene, &st), SIM_OK);
  round_trip("loader_contact.json");
  char *text = NULL;
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (text) {
    CHECK_STR_CONTAINS(text, "\"ncp\": \"min_map\"");
    CHECK_STR_CONTAINS(text, "\"warm_start\": false");
    CHECK_STR_CONTAINS(text, "\"self_collision\": true");
    CHECK_STR_CONTAINS(text, "\"touches\": [\"ball\", \"sheet\"]");
    CHECK_STR_CONTAINS(text, "\"touches\": []");
    CHECK_STR_CONTAINS(text, "\"closed\": false");
    free(text);
  }
  /* contact.obstacle_edges read and written back */
  CHECK_INT(load(BODIES "'contact': {'obstacle_edges': true}}", NULL, 0, &st), SIM_OK);
  CHECK_INT(g_scene.contact.obstacle_edges, 1);
  round_trip("obstacle_edges");
  /* defaults are written out: the contact object, touches naming every body, closed "auto" */
  CHECK_INT(load("{'bodies': [{'mesh': {'type': 'icosphere'}}], 'obstacles': [{'type': 'mesh',"
                 " 'path': 'data/scenes/meshes/unit_cube.obj'}, {'type': 'torus', 'center': [0, "
                 "0, 0], 'axis': [0, 1, 0], 'major': 2, 'minor': 1}]}",
                 NULL, 0, &st),
            SIM_OK);
  round_trip("defaults");
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (text) {
    CHECK_STR_CONTAINS(
        text,
        "\"contact\": {\n    \"margin\": 0.01,\n    \"min_separation\": 0,\n"
        "    \"ncp\": \"fischer_burmeister\",\n"
        "    \"preconditioner\": \"delassus\",\n"
        "    \"cr_iterations\": 10,\n    \"cr_tolerance\": 0,\n"
        "    \"max_force\": 0,\n    \"warm_start\": true,\n"
        "    \"bodies\": true,\n    \"self_collision\": false,\n    \"edge_edge\": false,\n    "
        "\"obstacle_edges\": false,\n    \"creases\": true,\n    \"mu\": 0,\n    \"delassus\": "
        "\"auto\",\n"
        "    \"formulation\": \"compliance\",\n    \"cr_preconditioner\": \"jacobi\",\n"
        "    \"cr_precision\": \"double\",\n"
        "    \"newton_steps\": 3,\n    \"newton_tolerance\": 1e-08,\n"
        "    \"redetect\": 3,\n    \"end_newton_steps\": 20,\n    \"end_tolerance\": 0.0001,\n"
        "    \"line_search\": 8,\n"
        "    \"newton_jacobian\": \"lagged\"\n  }");
    CHECK_STR_CONTAINS(text, "\"closed\": \"auto\"");
    CHECK_STR_CONTAINS(text, "\"touches\": [\"body0\"]");
    CHECK_STR_CONTAINS(text, "\"script\": []");
    free(text);
  }
  /* no obstacles: an empty array */
  CHECK_INT(load("{'bodies': [{'mesh': {'type': 'icosphere'}}]}", NULL, 0, &st), SIM_OK);
  round_trip("no obstacles");
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (text) {
    CHECK_STR_CONTAINS(text, "\"obstacles\": []");
    free(text);
  }
  /* W's block form: read, kept and written back */
  const char *blocks = "contact.delassus=blocks";
  CHECK_INT(load(BASE, &blocks, 1, &st), SIM_OK);
  CHECK_INT(g_scene.contact.delassus, SIM_SCENE_DELASSUS_BLOCKS);
  round_trip("contact.delassus blocks");
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (text) {
    CHECK_STR_CONTAINS(text, "\"delassus\": \"blocks\"");
    free(text);
  }
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  test_defaults();
  test_full_scene();
  test_bad_scenes();
  test_overrides();
  test_round_trip();
  CHECK_INT(sim_mem_in_use(), mem0); /* every sim_malloc freed */
  return check_summary("test_scene_contact");
}
