/* SPDX-License-Identifier: MIT */
/* `simctl run`: model, backend, frame loop, outputs; a failure keeps what was written. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "../simctl.h"
#include "../solve/backend.h"
#include "../solve/stepper.h"
#include "resume.h"
#include "solve_check.h"
#include "state_file.h"
#include "summary.h"
#include "writer.h"
#include "writer_async.h"

const char *sim_version(void) { return SIMCTL_VERSION; }

/* Pick and create the backend: auto falls back to the CPU with a note. */
static int create_backend(const sim_scene *sc, const sim_model *m, int quiet, sim_backend **be,
                          sim_status *st) {
  /* refuse to build an S that would not fit in 80% of physical memory, before allocating;
     dense_max_mib rounded up to bytes (under a byte is one byte, not 0, which is no limit) */
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  sim_backend_opts o = {
      sc->solver.global,        sc->solver.precision,
      sc->solver.ordering,      phys > 0 ? (size_t)(0.8 * phys) : 0,
      sc->solver.chebyshev_rho, (size_t)ceil(sc->solver.dense_max_mib * 1048576.0),
      sc->solver.gpu,           NULL};
  char why[SIM_MSG_MAX] = "";
  if (sc->solver.device == SIM_DEVICE_CUDA) return sim_backend_cuda_create(m, &o, be, st);
  if (sc->solver.device == SIM_DEVICE_AUTO) {
    if (sim_cuda_available(sc->solver.gpu, why, sizeof why)) {
      sim_status cst = {0};
      if (!SIM_CUDA_AUTO)
        snprintf(why, sizeof why, "the CUDA backend has not passed its tests on a GPU yet; "
                 "--device cuda runs it");
      else if (sim_backend_cuda_create(m, &o, be, &cst) == SIM_OK)
        return SIM_OK;
      else
        snprintf(why, sizeof why, "%s", cst.msg);
    }
    if (!quiet) fprintf(stderr, "simctl: note: running on the CPU (%s)\n", why);
  }
  return sim_backend_cpu_create(m, &o, be, st);
}

/* The largest distance of body b's vertices at q from their mean: how far the body spreads,
   whatever rigid motion carries it. */
static double body_spread(const sim_model *m, int b, const double *q) {
  int v0 = m->body_vert_start[b], v1 = m->body_vert_start[b + 1];
  double c[3] = {0, 0, 0}, r2 = 0;
  for (int v = v0; v < v1; v++)
    for (int k = 0; k < 3; k++) c[k] += q[3 * v + k];
  for (int k = 0; k < 3; k++) c[k] /= v1 - v0;
  for (int v = v0; v < v1; v++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (q[3 * v + k] - c[k]) * (q[3 * v + k] - c[k]);
    r2 = fmax(r2, d2);
  }
  return sqrt(r2);
}

/* Positions must stay finite, and no body may spread to over 1e3 times its size at rest,
   rest[b] (a rigid motion, a long fall or a fast flight, moves a body without spreading it). */
static int check_state(const sim_model *m, const double *rest, const double *q, int frame,
                       sim_status *st) {
  for (int i = 0; i < 3 * m->n; i++)
    if (!isfinite(q[i]))
      return sim_fail(st, SIM_ERR_NUMERIC, "%s: frame %d: a position became %s (vertex %d)",
                      m->scene->file, frame, isnan(q[i]) ? "NaN" : "infinite", i / 3);
  for (int b = 0; b < m->nbodies; b++) {
    double now = body_spread(m, b, q);
    if (now > 1e3 * rest[b])
      return sim_fail(st, SIM_ERR_NUMERIC,
                      "%s: frame %d: the simulation exploded (body %s spread to %.3g m from its "
                      "centre, %.3g m at rest); try a smaller solver.dt or more "
                      "solver.lg_iterations",
                      m->scene->file, frame, m->scene->bodies[b].name, now, rest[b]);
  }
  return SIM_OK;
}

/* Mass-weighted centre of each body at positions q. */
static void body_centres(const sim_model *m, const double *q, double com[][3]) {
  for (int b = 0; b < m->nbodies; b++) {
    double s[3] = {0, 0, 0}, mt = 0;
    for (int v = m->body_vert_start[b]; v < m->body_vert_start[b + 1]; v++) {
      for (int k = 0; k < 3; k++) s[k] += m->mass[v] * q[3 * v + k];
      mt += m->mass[v];
    }
    for (int k = 0; k < 3; k++) com[b][k] = mt > 0 ? s[k] / mt : 0;
  }
}

/* State files kept (write_state): the series may list a frame two output frames behind the
   stepper's (its snapshot is handed on after the next frame, then written on the writer
   thread), and a resume goes on from the last frame it lists. */
#define SIM_STATE_KEEP 4

typedef struct run_ctx {
  sim_model m;
  sim_backend *be;
  sim_stepper step;
  sim_writer w;
  double *q;   /* the last state checked (finish_snapshot) */
  /* each body's spread at rest (at least 1e-3 of the scene's extent), for the explosion check */
  double rest_spread[SIM_MAX_BODIES];
  int writer_open;
  int async;       /* frame files on the writer thread (output.async) */
  int async_failed; /* a hand-over reported the thread's failure */
  sim_async_writer aw;
  /* the snapshot taken at an earlier frame and not yet handed on (take_snapshot) */
  int pending, pend_frame, pend_output;
  double pend_t;
  /* the frames whose state files this run wrote and keeps (write_state), oldest first */
  int states[SIM_STATE_KEEP], nstates;
  /* sums over the frames since res->figures_from: frame times (ms), contacts, and CR
     iterations and L-G iterations of the steps with contact */
  double frame_sum, contact_sum;
  long cr_sum, cst_iters;
  int quiet;      /* sim_run_opts.quiet */
  int state_lost; /* a frame's contact state could not be taken (write_state's note given) */
} run_ctx;

/* The run's figures so far in a state file's order (state_file.h SIM_STATE_FIGURES): run_ctx's
   sums, then sim_run_result's counts, most and least, the most contacts of each kind last. */
enum {
  FIG_FRAME_SUM,
  FIG_CONTACT_SUM,
  FIG_CR_SUM,
  FIG_CST_ITERS,
  FIG_CONTACTS_MAX,
  FIG_MIN_GAP,
  FIG_CONTACT_STEPS,
  FIG_REDETECTED,
  FIG_REDETECT_STEPS,
  FIG_END_NEWTON,
  FIG_END_UNMET,
  FIG_END_PHI,
  FIG_LS_FULL,
  FIG_LS_SHORTER,
  FIG_LS_NONE,
  FIG_INV_MAX,
  FIG_INV_MAX_FRAME,
  FIG_INV_FIRST,
  FIG_KINDS
};
_Static_assert(FIG_KINDS + SIM_RUN_CONTACT_KINDS == SIM_STATE_FIGURES, "state file figures");

/* A figure between the run and fig[]: taken (way 0) or given back (way 1). */
static void fig_d(double *v, double *f, int way) {
  if (way)
    *v = *f;
  else
    *f = *v;
}
static void fig_l(long *v, double *f, int way) {
  if (way)
    *v = (long)*f;
  else
    *f = (double)*v;
}
static void fig_i(int *v, double *f, int way) {
  if (way)
    *v = (int)*f;
  else
    *f = *v;
}

/* fig[] from the run so far (way 0), or the run from fig[] (way 1: a resumed run's start). */
static void figures(run_ctx *r, sim_run_result *res, double *fig, int way) {
  fig_d(&r->frame_sum, &fig[FIG_FRAME_SUM], way);
  fig_d(&r->contact_sum, &fig[FIG_CONTACT_SUM], way);
  fig_l(&r->cr_sum, &fig[FIG_CR_SUM], way);
  fig_l(&r->cst_iters, &fig[FIG_CST_ITERS], way);
  fig_i(&res->contacts_max, &fig[FIG_CONTACTS_MAX], way);
  fig_d(&res->min_gap, &fig[FIG_MIN_GAP], way);
  fig_i(&res->contact_steps, &fig[FIG_CONTACT_STEPS], way);
  fig_l(&res->redetected, &fig[FIG_REDETECTED], way);
  fig_i(&res->redetect_steps, &fig[FIG_REDETECT_STEPS], way);
  fig_l(&res->end_newton_steps, &fig[FIG_END_NEWTON], way);
  fig_i(&res->end_unmet_steps, &fig[FIG_END_UNMET], way);
  fig_d(&res->end_phi_max, &fig[FIG_END_PHI], way);
  fig_l(&res->ls_full, &fig[FIG_LS_FULL], way);
  fig_l(&res->ls_shorter, &fig[FIG_LS_SHORTER], way);
  fig_l(&res->ls_none, &fig[FIG_LS_NONE], way);
  fig_i(&res->inverted_max, &fig[FIG_INV_MAX], way);
  fig_i(&res->inverted_max_frame, &fig[FIG_INV_MAX_FRAME], way);
  fig_i(&res->inverted_first_frame, &fig[FIG_INV_FIRST], way);
  for (int k = 0; k < SIM_RUN_CONTACT_KINDS; k++)
    fig_i(&res->kinds_max[k], &fig[FIG_KINDS + k], way);
}

/* The checks on a state the host has: finite, not exploded; inverted tetrahedra counted. */
static int check_frame(run_ctx *r, int frame, const double *q, sim_run_result *res,
                       sim_status *st) {
  int rc = check_state(&r->m, r->rest_spread, q, frame, st);
  if (rc) return rc;
  int inv = sim_model_inverted(&r->m, q);
  if (inv > 0 && !res->inverted_first_frame) res->inverted_first_frame = frame;
  if (inv > res->inverted_max) res->inverted_max = inv, res->inverted_max_frame = frame;
  return SIM_OK;
}

/* Queues a snapshot of frame `frame`: what an output frame writes, or q alone for the state
   check. The backend may copy it while the next frame runs (CUDA); finish_snapshot, after that
   frame, hands it on. */
static int take_snapshot(run_ctx *r, int frame, int output, sim_status *st) {
  int rc = r->be->snapshot(r->be, !output, st);
  if (rc) return rc;
  r->pending = 1, r->pend_frame = frame, r->pend_output = output, r->pend_t = r->step.t;
  return SIM_OK;
}

/* Whether an output frame writes files of its own (VTK, OBJ, PNG; not with csv alone or no
   format), which sim_run_result.frames_written counts. */
static int frame_files(const run_ctx *r) {
  return (r->m.scene->output.formats & (SIM_OUT_VTK | SIM_OUT_OBJ | SIM_OUT_PNG)) != 0;
}

/* The pending snapshot (if any): its checks, then, for an output frame, its files (on the
   writer thread with output.async) and the flush of the series and the timing rows so far. */
static int finish_snapshot(run_ctx *r, sim_run_result *res, sim_status *st) {
  if (!r->pending) return SIM_OK;
  r->pending = 0;
  sim_snapshot s;
  int rc = r->be->snapshot_get(r->be, &s, st), f = r->pend_frame;
  if (!rc) rc = check_frame(r, f, s.q, res, st);
  if (rc) return rc;
  memcpy(r->q, s.q, sizeof(double) * 3 * (size_t)r->m.n); /* the last state checked */
  if (!r->pend_output) return SIM_OK;
  if (!r->async) {
    rc = sim_writer_frame(&r->w, f, r->pend_t, s.q, s.v, s.dens, st);
  } else if ((rc = sim_async_frame(&r->aw, f, r->pend_t, s.q, s.v, s.dens, st)) && r->aw.failed) {
    if (!r->aw.files_written) /* the frame in flight before this was not written */
      res->frames_written -= frame_files(r);
    r->async_failed = 1;
  }
  if (!rc) res->frames_written += frame_files(r);
  if (!rc) rc = r->async ? sim_writer_flush_timing(&r->w, st) : sim_writer_flush(&r->w, st);
  return rc;
}

static void state_path(const run_ctx *r, int frame, char *path, size_t len) {
  snprintf(path, len, "%s/%05d.state", r->w.frames_dir, frame);
}

/* Frame f's state file (state_file.h) where the frame has a VTK file: the run's figures and,
   where the scene has contact, the stepper's state, right after its step; the oldest the run
   kept removed past SIM_STATE_KEEP. Where the stepper cannot give its state (a backend's
   failure to copy it), no file and a note, once: the run goes on. */
static int write_state(run_ctx *r, int f, sim_run_result *res, sim_status *st) {
  if (!(r->m.scene->output.formats & SIM_OUT_VTK)) return SIM_OK;
  char path[sizeof r->w.frames_dir + 32];
  double fig[SIM_STATE_FIGURES];
  figures(r, res, fig, 0);
  sim_step_state s = {0};
  sim_status got = {0};
  if (r->step.contact && sim_stepper_state_get(&r->step, &s, &got)) {
    /* the run goes on: a resume from this frame goes on cold, as from an older run's */
    if (!r->quiet && !r->state_lost)
      fprintf(stderr,
              "%ssimctl: note: frame %d: no state file (%s); a --resume from it goes on "
              "close to, not exactly as, this run\n",
              isatty(STDERR_FILENO) ? "\n" : "", f, got.msg);
    r->state_lost = 1;
    sim_step_state_free(&s);
    return SIM_OK;
  }
  state_path(r, f, path, sizeof path);
  int rc = sim_state_file_write(path, &r->m, f, r->step.t, r->step.contact ? &s : NULL, fig, st);
  sim_step_state_free(&s);
  if (rc) return rc;
  if (r->nstates == SIM_STATE_KEEP) {
    state_path(r, r->states[0], path, sizeof path);
    remove(path);
    memmove(r->states, r->states + 1, sizeof(int) * (SIM_STATE_KEEP - 1));
    r->nstates--;
  }
  r->states[r->nstates++] = f;
  return SIM_OK;
}

/* Whether frame files go to the writer thread: output.async, auto = on the CUDA backend, and
   only when there are frame files to write. */
static int use_async(const sim_scene *sc, const sim_backend *be) {
  if (!(sc->output.formats & (SIM_OUT_VTK | SIM_OUT_OBJ | SIM_OUT_PNG))) return 0;
  if (sc->output.async == SIM_ASYNC_AUTO) return strcmp(be->name, "cuda") == 0;
  return sc->output.async == SIM_ASYNC_ON;
}

/* The backend's notices since the last call, after frame f: kept for summary.json and, unless
   quiet, printed on stderr (on a line of their own below a progress bar). */
static void take_notes(const sim_backend *be, int quiet, int f, sim_run_result *res) {
  if (be->notes == res->backend_notes) return;
  res->backend_notes = be->notes;
  snprintf(res->backend_note, sizeof res->backend_note, "%s", be->note);
  if (!quiet)
    fprintf(stderr, "%ssimctl: note: frame %d: %s\n", f > 1 && isatty(STDERR_FILENO) ? "\n" : "",
            f, be->note);
}

/* The frame loop. A frame's snapshot is handed on after the next frame (finish_snapshot), so
   its copy to the host overlaps that frame; a failed check stops the run there, naming the
   frame whose state failed it, before that next frame's timing row. */
static int run_frames(const sim_scene *sc, const sim_run_opts *o, run_ctx *r, sim_run_result *res,
                      sim_status *st) {
  /* frame 0's snapshot, or after a resume none: its last frame is written already */
  const int first = res->resumed ? res->resumed_from + 1 : 1;
  int rc = res->resumed ? SIM_OK : take_snapshot(r, 0, 1, st);
  double t_start = sim_now_ms();
  for (int f = first; !rc && f <= sc->solver.frames; f++) {
    sim_profile prof;
    rc = sim_stepper_step(&r->step, &prof, NULL, st);
    take_notes(r->be, o->quiet, f, res);
    if (rc) break;
    double a = sim_now_ms(), out_ms = 0;
    int was_output = r->pending && r->pend_output;
    rc = finish_snapshot(r, res, st);
    if (rc) break;
    if (was_output) out_ms = sim_now_ms() - a;
    r->frame_sum += prof.frame_ms;
    r->contact_sum += prof.contacts;
    if (prof.contacts > res->contacts_max) res->contacts_max = prof.contacts;
    _Static_assert(SIM_RUN_CONTACT_KINDS == SIM_WORLD_KINDS, "sim_run_result.kinds_max");
    int kinds[SIM_WORLD_KINDS];
    sim_world_kind_counts(&r->step.world, kinds);
    for (int k = 0; k < SIM_RUN_CONTACT_KINDS; k++)
      if (kinds[k] > res->kinds_max[k]) res->kinds_max[k] = kinds[k];
    if (prof.min_gap < res->min_gap) res->min_gap = prof.min_gap;
    res->redetected += prof.redetected;
    res->redetect_steps += prof.redetected > 0;
    res->creases_dropped = (long)r->step.world.stray_creases;
    res->end_newton_steps += prof.end_steps;
    res->end_unmet_steps += prof.end_unmet > 0;
    if (prof.end_phi > res->end_phi_max) res->end_phi_max = prof.end_phi;
    res->ls_full += prof.ls.full;
    res->ls_shorter += prof.ls.shorter;
    res->ls_none += prof.ls.none;
    if (prof.contacts > 0) {
      res->contact_steps++;
      r->cr_sum += prof.cr_iterations;
      r->cst_iters += prof.lg_iterations;
    }
    res->frames = f;
    const int stop = o->stop && *o->stop; /* interrupted: this frame is the run's last */
    int output = f % sc->output.every == 0 || f == sc->solver.frames || stop;
    a = sim_now_ms();
    if (output || f % 10 == 0) rc = take_snapshot(r, f, output, st);
    if (!rc && output) rc = write_state(r, f, res, st);
    if (output) out_ms += sim_now_ms() - a;
    sim_status ignore = {0};
    sim_writer_timing_row(&r->w, f, r->step.t, &prof, out_ms, rc ? &ignore : st);
    if (o->progress) o->progress(f, sc->solver.frames, sim_now_ms() - t_start, o->user);
    if (stop) {
      res->interrupted = 1;
      break;
    }
  }
  /* the last snapshot (the final frame's after a whole run; after a failed step, the last
     one taken, so what the run reached is kept) */
  sim_status ignore = {0};
  int fin = finish_snapshot(r, res, rc ? &ignore : st);
  rc = rc ? rc : fin;
  const int ran = res->frames - res->figures_from + 1; /* the frames the figures cover */
  res->mean_frame_ms = ran > 0 ? r->frame_sum / ran : 0;
  res->contacts_mean = ran > 0 ? r->contact_sum / ran : 0;
  res->cr_per_iteration = r->cst_iters ? (double)r->cr_sum / (double)r->cst_iters : 0;
  if (!rc) { /* the final frame is always written: r->q holds it */
    res->measure_final = sim_model_measure(&r->m, r->q);
    body_centres(&r->m, r->q, res->com_final);
  }
  return rc;
}

/* A resumed run's state: the earlier run's frame rs->frame (positions, velocities, time) in
   the backend and the stepper, the writer's view as its frame 0 set it. */
static int resume_state(run_ctx *r, sim_resume *rs, sim_run_result *res, sim_status *st) {
  sim_backend *be = r->be;
  int rc = sim_writer_first_view(&r->w, r->m.x_rest, st);
  const sim_vec_id pos[] = {SIM_VEC_Q, SIM_VEC_QT, SIM_VEC_QTILDE};
  for (int k = 0; !rc && k < 3; k++) rc = be->upload(be, pos[k], rs->q, st);
  if (!rc) rc = be->upload(be, SIM_VEC_V, rs->v, st);
  if (!rc && rs->have_state && r->step.contact)
    rc = sim_stepper_state_set(&r->step, &rs->state, st);
  if (rc) return rc;
  r->step.step = rs->frame;
  r->step.t = rs->t;
  memcpy(r->q, rs->q, sizeof(double) * 3 * (size_t)r->m.n);
  res->resumed = 1;
  res->resumed_from = res->frames = rs->frame;
  res->resumed_cold = r->step.contact && !rs->have_state;
  if (!rs->have_state) { /* the figures start with the resumed frames */
    res->figures_from = rs->frame + 1;
    return SIM_OK;
  }
  /* the earlier run's figures, then its frame's checks, which it made after the state file */
  figures(r, res, rs->figures, 1);
  r->states[r->nstates++] = rs->frame;
  return check_frame(r, rs->frame, rs->q, res, st);
}

int sim_run(const sim_scene *sc, const sim_run_opts *o, sim_run_result *res, sim_status *st) {
  double t0 = sim_now_ms();
  memset(res, 0, sizeof *res);
  res->min_gap = HUGE_VAL;
  res->figures_from = 1;
  snprintf(res->out_dir, sizeof res->out_dir, "%s", sc->output.dir);
  if (sc->solver.threads > 0) omp_set_num_threads(sc->solver.threads);
  run_ctx r;
  memset(&r, 0, sizeof r);
  r.quiet = o->quiet;
  const char *cache = o->cache_dir ? o->cache_dir : sim_cache_dir();
  int rc = sim_model_build(sc, cache, &r.m, st);
  if (!rc) {
    const double size = sim_model_extent(&r.m);
    for (int b = 0; b < r.m.nbodies; b++)
      r.rest_spread[b] = fmax(body_spread(&r.m, b, r.m.x_rest), 1e-3 * size);
    res->measure_rest = sim_model_measure(&r.m, r.m.x_rest);
    body_centres(&r.m, r.m.x_rest, res->com_start);
  }
  if (!rc) rc = create_backend(sc, &r.m, o->quiet, &r.be, st);
  if (rc == SIM_ERR_NUMERIC) sim_status_prefix(st, sc->file); /* the scene's numbers: its file */
  if (!rc) {
    snprintf(res->backend, sizeof res->backend, "%s", r.be->name);
    snprintf(res->device, sizeof res->device, "%s", r.be->device);
    snprintf(res->global, sizeof res->global, "%s", sim_global_name(r.be->global));
    rc = sim_stepper_init(&r.step, &r.m, r.be, st);
  }
  if (!rc) {
    r.q = SIM_NEW(double, 3 * (size_t)r.m.n);
    if (!r.q) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (run)");
  }
  sim_resume rs = {0};
  if (!rc) {
    rc = o->resume ? sim_writer_open_resume(&r.w, &r.m, sc->output.dir, &rs, st)
                   : sim_writer_open(&r.w, &r.m, sc->output.dir, st);
    r.writer_open = rc == SIM_OK;
    sim_writer_set_world(&r.w, r.step.contact ? &r.step.world : NULL);
  }
  if (!rc && o->resume) rc = resume_state(&r, &rs, res, st);
  if (!rc && res->resumed_cold && !o->quiet)
    fprintf(stderr,
            "simctl: note: frame %d has no state file (frames/%05d.state; simctl writes one "
            "beside each VTK frame of a scene with contact since 2026-12-07): the contact solve "
            "starts cold, and the run goes on close to, not exactly as, one without a break\n",
            rs.frame, rs.frame);
  sim_resume_free(&rs);
  if (!rc && use_async(sc, r.be)) {
    rc = sim_async_open(&r.aw, &r.w, st);
    r.async = rc == SIM_OK;
    res->output_async = r.async;
  }
  sim_global_stats gs = {0};
  if (r.be) r.be->global_stats(r.be, &gs);
  if (!rc) rc = sim_writer_memory(&r.w, &gs, st);
  if (!rc) rc = sim_summary_write(sc, &r.m, &gs, res, NULL, 1, st);
  res->setup_ms = sim_now_ms() - t0;
  if (!rc && o->stop && *o->stop) res->interrupted = 1; /* during set-up: no frame */
  if (!rc && !res->interrupted) rc = run_frames(sc, o, &r, res, st);
  if (!rc && sim_run_simulated(res) > 0) { /* the global step's residual on its last b */
    sim_solve_check chk;
    rc = sim_solve_check_run(&r.m, r.be, &chk, st);
    res->solve_checked = rc == SIM_OK;
    res->solve_residual = chk.residual, res->solve_check_ms = chk.ms;
  }
  res->wall_ms = sim_now_ms() - t0;
  if (r.be) r.be->global_stats(r.be, &gs); /* the device memory held at the end */
  if (r.writer_open) {
    /* keep what was written: timing rows so far and the series, even after a failure */
    sim_status ignore = {0};
    if (r.async && sim_async_finish(&r.aw, rc ? &ignore : st) && !r.async_failed) {
      if (!r.aw.files_written) /* the last frame handed over was not written */
        res->frames_written -= frame_files(&r);
      if (!rc) rc = st->code;
    }
    sim_writer_flush(&r.w, rc ? &ignore : st);
    if (!rc) rc = st->code;
    /* a run whose frames are all written keeps its last frame's state file alone */
    if (!rc && r.nstates > 0 && r.states[r.nstates - 1] == res->frames)
      rc = sim_outputs_clear_states(r.w.frames_dir, res->frames, st);
    if (r.be && r.be->report) { /* the backend's tables (ranges.csv), after a failure too */
      r.be->report(r.be, sc->output.dir, rc ? &ignore : st);
      if (!rc) rc = st->code;
    }
    sim_summary_write(sc, r.be ? &r.m : NULL, &gs, res, st->code ? st : NULL, 0, rc ? &ignore : st);
    if (!rc) rc = st->code;
    sim_writer_close(&r.w);
  }
  sim_free(r.q);
  sim_stepper_free(&r.step);
  if (r.be) r.be->destroy(r.be);
  sim_model_free(&r.m);
  return rc;
}
