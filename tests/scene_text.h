/* SPDX-License-Identifier: MIT */
/* Scene loader tests: scenes written inline with ' for " (and ` for '), loaded into static
   scenes, and an exact-message check. Shared by test_scene*.c. */
#ifndef SIM_TEST_SCENE_TEXT_H
#define SIM_TEST_SCENE_TEXT_H
#include <string.h>

#include "check.h"
#include "scene/scene.h"

static inline const char *q(const char *text) {
  static char buf[8192];
  size_t n = strlen(text);
  if (n >= sizeof buf) n = sizeof buf - 1;
  for (size_t i = 0; i < n; i++) buf[i] = text[i] == '\'' ? '"' : text[i] == '`' ? '\'' : text[i];
  buf[n] = '\0';
  return buf;
}

static sim_scene g_scene, g_scene2; /* large: keep them off the stack */

static inline int load(const char *text, const char *const *ovr, int novr, sim_status *st) {
  return sim_scene_load_string(q(text), "bad.json", ovr, novr, &g_scene, st);
}

/* A scene that must fail to load, and its whole one-line message. */
typedef struct bad_case {
  const char *text; /* ' for ", ` for ' */
  const char *want; /* the whole message */
} bad_case;

/* Each case fails with SIM_ERR_SCENE and exactly its message, on one line. */
static inline void check_bad_cases(const bad_case *cases, int n) {
  for (int i = 0; i < n; i++) {
    sim_status st;
    int rc = load(cases[i].text, NULL, 0, &st);
    check_report(rc == SIM_ERR_SCENE && st.code == SIM_ERR_SCENE, __FILE__, __LINE__,
                 "bad case %d fails with SIM_ERR_SCENE (rc %d)", i, rc);
    check_report(strcmp(st.msg, cases[i].want) == 0, __FILE__, __LINE__,
                 "bad case %d message\n  got:  %s\n  want: %s", i, st.msg, cases[i].want);
    CHECK(strchr(st.msg, '\n') == NULL); /* one line */
  }
}

/* A --set override that must fail on a given scene, and its whole message. */
typedef struct bad_override {
  const char *ovr, *want;
} bad_override;

static inline void check_bad_overrides(const char *base, const bad_override *cases, int n) {
  for (int i = 0; i < n; i++) {
    sim_status st;
    int rc = load(base, &cases[i].ovr, 1, &st);
    check_report(rc == SIM_ERR_SCENE, __FILE__, __LINE__, "override %d fails (rc %d)", i, rc);
    check_report(strcmp(st.msg, cases[i].want) == 0, __FILE__, __LINE__,
                 "override %d message\n  got:  %s\n  want: %s", i, st.msg, cases[i].want);
  }
}

#define CHECK_MSG(st, want)                                       \
  check_report(strcmp((st).msg, (want)) == 0, __FILE__, __LINE__, \
               "message\n  got:  %s\n  want: %s", (st).msg, (want))

#endif
