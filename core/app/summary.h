/* SPDX-License-Identifier: MIT */
/* summary.json: the run's outcome, sizes, memory, timings and the resolved scene. */
#ifndef SIM_SUMMARY_H
#define SIM_SUMMARY_H
#include "../simctl.h"
#include "../solve/backend.h"

/* `failure` is NULL for a successful run (or one that res->interrupted); otherwise its
   message is recorded. running: written as the run starts (status "running", no final state),
   so that a run killed outright leaves no earlier run's summary in its folder. */
int sim_summary_write(const sim_scene *sc, const sim_model *m, const sim_global_stats *gs,
                      const sim_run_result *res, const sim_status *failure, int running,
                      sim_status *st);

#endif
