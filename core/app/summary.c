/* SPDX-License-Identifier: MIT */
/* summary.json writer (cJSON), atomic. */
#include "summary.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../io/output.h"
#include "../model/bending.h"

/* CUDA, simctl's two gathers of S: their layouts and batches, and what SIMCTL_CUDA_TUNE timed
   (microseconds a call of each variant) where it picked them. */
static void add_gathers(cJSON *so, const sim_global_stats *gs) {
  if (!gs->S_gathers) return;
  cJSON *g = cJSON_AddObjectToObject(so, "gathers");
  cJSON_AddStringToObject(g, "rows", gs->S_row_interval ? "interval" : "indexed");
  cJSON_AddNumberToObject(g, "row_batch", gs->S_row_batch);
  cJSON_AddStringToObject(g, "cols", gs->S_col_runs ? "runs" : "indexed");
  cJSON_AddNumberToObject(g, "col_batch", gs->S_col_batch);
  const sim_gather_tuning *t = &gs->S_tuning;
  cJSON_AddBoolToObject(g, "tuned", t->on);
  if (!t->on) return;
  cJSON_AddNumberToObject(g, "tune_ms", t->ms);
  cJSON *a = cJSON_AddArrayToObject(g, "timed");
  for (int i = 0; i < t->n; i++) {
    const sim_gather_variant *v = &t->v[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "product", sim_gather_product_name(v));
    cJSON_AddStringToObject(o, "layout", sim_gather_layout_name(v));
    cJSON_AddNumberToObject(o, "batch", v->batch);
    cJSON_AddNumberToObject(o, "us", v->us);
    cJSON_AddBoolToObject(o, "kept", i == t->pick[v->product]);
    cJSON_AddItemToArray(a, o);
  }
}

int sim_summary_write(const sim_scene *sc, const sim_model *m, const sim_global_stats *gs,
                      const sim_run_result *res, const sim_status *failure, int running,
                      sim_status *st) {
  const char *status = failure            ? "failed"
                       : running          ? "running"
                       : res->interrupted ? "interrupted"
                                          : "ok";
  /* the state the run ended in is known (an interruption during set-up simulated no frame) */
  const int final = !failure && !running && sim_run_simulated(res) > 0;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "simctl", sim_version());
  cJSON_AddStringToObject(root, "scene", sc->name);
  cJSON_AddStringToObject(root, "scene_file", sc->file);
  cJSON_AddStringToObject(root, "status", status);
  if (failure) cJSON_AddStringToObject(root, "error", failure->msg);
  cJSON_AddStringToObject(root, "backend", res->backend);
  cJSON_AddStringToObject(root, "device", res->device);
  cJSON_AddStringToObject(root, "global_solver", res->global);
  if (res->backend_notes > 0) {
    cJSON_AddNumberToObject(root, "backend_notes", res->backend_notes);
    cJSON_AddStringToObject(root, "backend_note", res->backend_note);
  }
  /* what S was held in: the CPU's other global solvers keep no S and solve in double */
  const int s_float = sc->solver.precision == SIM_PREC_FLOAT &&
                      (strcmp(res->backend, "cpu") != 0 || !strcmp(res->global, "sparse_inverse"));
  cJSON_AddStringToObject(root, "precision", s_float ? "float" : "double");
  cJSON_AddNumberToObject(root, "threads", sc->solver.threads);
  cJSON_AddNumberToObject(root, "frames", res->frames);
  if (res->resumed) {
    cJSON_AddNumberToObject(root, "resumed_from", res->resumed_from);
    cJSON_AddBoolToObject(root, "resumed_exactly", !res->resumed_cold);
  } else {
    cJSON_AddNullToObject(root, "resumed_from");
    cJSON_AddNullToObject(root, "resumed_exactly");
  }
  cJSON_AddNumberToObject(root, "figures_from_frame", res->figures_from);
  cJSON_AddNumberToObject(root, "frames_written", res->frames_written);
  cJSON_AddBoolToObject(root, "output_async", res->output_async);
  cJSON_AddNumberToObject(root, "wall_ms", res->wall_ms);
  cJSON_AddNumberToObject(root, "setup_ms", res->setup_ms);
  cJSON_AddNumberToObject(root, "mean_frame_ms", res->mean_frame_ms);
  if (m) {
    cJSON *mo = cJSON_AddObjectToObject(root, "model");
    cJSON_AddNumberToObject(mo, "vertices", m->n);
    cJSON_AddNumberToObject(mo, "free_vertices", m->nfree);
    cJSON_AddNumberToObject(mo, "pinned_vertices", m->npinned);
    cJSON_AddNumberToObject(mo, "constraint_pinned_vertices", m->ncpin);
    cJSON_AddNumberToObject(mo, "tets", m->ntet);
    cJSON_AddNumberToObject(mo, "cloth_triangles", m->ncloth);
    cJSON_AddNumberToObject(mo, "bending_stencils", m->bend ? m->bend->nst : 0);
    cJSON_AddNumberToObject(mo, "surface_triangles", m->ntri);
    cJSON_AddNumberToObject(mo, "total_mass", m->total_mass);
    cJSON_AddNumberToObject(mo, "total_volume", m->total_volume);
  }
  if (final && res->measure_rest > 0) {
    /* area (cloth) or volume change at the end: Fig. 10 of the paper */
    cJSON *de = cJSON_AddObjectToObject(root, "measure");
    cJSON_AddNumberToObject(de, "rest", res->measure_rest);
    cJSON_AddNumberToObject(de, "final", res->measure_final);
    cJSON_AddNumberToObject(de, "change_percent",
                            100.0 * (res->measure_final / res->measure_rest - 1.0));
  }
  if (m && final) {
    cJSON *ba = cJSON_AddArrayToObject(root, "bodies");
    for (int b = 0; b < m->nbodies; b++) {
      cJSON *bo = cJSON_CreateObject();
      cJSON_AddStringToObject(bo, "name", sc->bodies[b].name);
      cJSON_AddItemToObject(bo, "centre_start", cJSON_CreateDoubleArray(res->com_start[b], 3));
      cJSON_AddItemToObject(bo, "centre_final", cJSON_CreateDoubleArray(res->com_final[b], 3));
      double d[3];
      for (int k = 0; k < 3; k++) d[k] = res->com_final[b][k] - res->com_start[b][k];
      cJSON_AddItemToObject(bo, "displacement", cJSON_CreateDoubleArray(d, 3));
      cJSON_AddItemToArray(ba, bo);
    }
  }
  if (m && final) {
    cJSON *io = cJSON_AddObjectToObject(root, "inverted_tets");
    cJSON_AddNumberToObject(io, "max", res->inverted_max);
    if (res->inverted_max > 0) {
      cJSON_AddNumberToObject(io, "max_frame", res->inverted_max_frame);
      cJSON_AddNumberToObject(io, "first_frame", res->inverted_first_frame);
    } else { /* none at any checked frame: no frame to name */
      cJSON_AddNullToObject(io, "max_frame");
      cJSON_AddNullToObject(io, "first_frame");
    }
  }
  if (res->contact_steps > 0) {
    cJSON *co = cJSON_AddObjectToObject(root, "contact");
    cJSON_AddNumberToObject(co, "steps_with_contact", res->contact_steps);
    cJSON_AddNumberToObject(co, "contacts_max", res->contacts_max);
    cJSON_AddNumberToObject(co, "rows_max", 3 * res->contacts_max);
    cJSON_AddNumberToObject(co, "contacts_mean", res->contacts_mean);
    /* sim_run_result.kinds_max's order */
    static const char *const KIND[SIM_RUN_CONTACT_KINDS] = {
        "obstacle", "mesh",          "body", "mesh_points", "pin",   "cable",
        "edge",     "obstacle_edge", "self", "self_edge",   "crease"};
    cJSON *km = cJSON_AddObjectToObject(co, "contacts_max_by_kind");
    for (int k = 0; k < SIM_RUN_CONTACT_KINDS; k++)
      cJSON_AddNumberToObject(km, KIND[k], res->kinds_max[k]);
    cJSON_AddNumberToObject(co, "cr_per_lg_iteration", res->cr_per_iteration);
    if (isfinite(res->min_gap)) /* timing.csv's inf: every contact found from the prediction */
      cJSON_AddNumberToObject(co, "min_gap", res->min_gap);
    else
      cJSON_AddNullToObject(co, "min_gap");
    cJSON_AddNumberToObject(co, "redetected", (double)res->redetected);
    cJSON_AddNumberToObject(co, "redetect_steps", res->redetect_steps);
    cJSON_AddNumberToObject(co, "creases_dropped", (double)res->creases_dropped);
    cJSON *eo = cJSON_AddObjectToObject(co, "end"); /* contact.end_tolerance */
    cJSON_AddNumberToObject(eo, "newton_steps", (double)res->end_newton_steps);
    cJSON_AddNumberToObject(eo, "unmet_steps", res->end_unmet_steps);
    cJSON_AddNumberToObject(eo, "phi_max", res->end_phi_max);
    cJSON *lo = cJSON_AddObjectToObject(co, "line_search");
    cJSON_AddNumberToObject(lo, "full", (double)res->ls_full);
    cJSON_AddNumberToObject(lo, "shorter", (double)res->ls_shorter);
    cJSON_AddNumberToObject(lo, "none", (double)res->ls_none);
  }
  cJSON *so = cJSON_AddObjectToObject(root, "system");
  cJSON_AddStringToObject(so, "ordering", gs->factor.ordering ? gs->factor.ordering : "");
  cJSON_AddNumberToObject(so, "nnz_A", (double)gs->factor.nnz_A);
  cJSON_AddNumberToObject(so, "nnz_L", (double)gs->factor.nnz_L);
  cJSON_AddNumberToObject(so, "nnz_S", (double)gs->S_nnz);
  cJSON_AddNumberToObject(so, "S_MiB", gs->S_bytes / 1048576.0);
  cJSON_AddNumberToObject(so, "S_resident_MiB", gs->S_resident / 1048576.0);
  if (gs->S_contact_bytes)
    cJSON_AddNumberToObject(so, "S_contact_MiB", gs->S_contact_bytes / 1048576.0);
  cJSON_AddNumberToObject(so, "analyze_ms", gs->factor.analyze_ms);
  cJSON_AddNumberToObject(so, "factor_ms", gs->factor.factor_ms);
  cJSON_AddNumberToObject(so, "S_build_ms", gs->S_build_ms);
  cJSON_AddNumberToObject(so, "host_peak_MiB", sim_mem_peak() / 1048576.0);
  if (gs->device_bytes > 0) /* at the end: with the contact buffers grown during the run */
    cJSON_AddNumberToObject(so, "device_MiB", gs->device_bytes / 1048576.0);
  add_gathers(so, gs);
  if (final && res->solve_checked) {
    cJSON *ck = cJSON_AddObjectToObject(so, "solve_check");
    cJSON_AddNumberToObject(ck, "relative_residual", res->solve_residual);
    cJSON_AddNumberToObject(ck, "ms", res->solve_check_ms);
  } else if (!running) {
    cJSON_AddNullToObject(so, "solve_check");
  }
  char *scene_text = NULL;
  if (sim_scene_to_json(sc, &scene_text) == SIM_OK && scene_text) {
    cJSON *sj = cJSON_Parse(scene_text);
    if (sj) cJSON_AddItemToObject(root, "resolved_scene", sj);
    free(scene_text);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (summary.json)");
  char path[SIM_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/summary.json", sc->output.dir);
  size_t len = strlen(text);
  text[len] = '\n'; /* cJSON_Print's terminator becomes the final newline */
  int rc = sim_write_file_atomic(path, text, len + 1, st);
  free(text);
  return rc;
}
