/* SPDX-License-Identifier: MIT */
/* Scene loader tests: scenes written inline with ' for " (and ` for '), loaded into static
   scenes, and an exact-message check. Shared by test_scene.c and test_scene_contact.c. */
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

#define CHECK_MSG(st, want)                                       \
  check_report(strcmp((st).msg, (want)) == 0, __FILE__, __LINE__, \
               "message\n  got:  %s\n  want: %s", (st).msg, (want))

#endif
