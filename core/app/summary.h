/* SPDX-License-Identifier: MIT */
/* summary.json: the run's outcome, sizes, memory, timings and the resolved scene. */
#ifndef SIM_SUMMARY_H
#define SIM_SUMMARY_H
#include "../simctl.h"
#include "../solve/backend.h"

/* `failure` is NULL for a successful run; otherwise its message is recorded. */
int sim_summary_write(const sim_scene *sc, const sim_model *m, const sim_global_stats *gs,
                      const sim_run_result *res, const sim_status *failure, sim_status *st);

#endif
