/* SPDX-License-Identifier: MIT */
/* One detection on the host (test_detect_edge.c, test_detect_crease.c): init, run, free; the
   status code, the message on stderr where it failed. */
#ifndef SIM_TEST_DETECT_ONCE_H
#define SIM_TEST_DETECT_ONCE_H
#include <stdio.h>

#include "../core/contact/detect.h"

static inline int detect_once(const sim_detect_scene *s, const sim_detect_params *p,
                              sim_detect_contacts *o) {
  sim_detect d;
  sim_status st = {0};
  int rc = sim_detect_init(&d, s, &st);
  if (!rc) rc = sim_detect_run(&d, s, p, o, &st);
  if (rc) fprintf(stderr, "detect: %s\n", st.msg);
  sim_detect_free(&d);
  return rc;
}

#endif
