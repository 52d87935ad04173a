/* SPDX-License-Identifier: MIT */
/* Output directory writer: frames, series file, timing.csv, memory.csv. */
#include "writer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../model/bending.h"
#include "resume.h"

#define MIB 1048576.0 /* the paper's unit */

static const char *TIMING_HEADER =
    "frame,time,cd,schur,local,global,assemble,cst_solve,corr,cst_global,frame_ms,predict,"
    "integrate,output,lg_iterations,contacts,rows,newton_steps,cr_iterations,min_gap,redetected";

/* The writer's fields and the folders, then DIR claimed: what both opens do first. */
static int open_claim(sim_writer *w, const sim_model *m, const char *dir, int make,
                      sim_status *st) {
  memset(w, 0, sizeof *w);
  w->m = m;
  w->formats = m->scene->output.formats;
  w->png_w = m->scene->output.png_width;
  w->png_h = m->scene->output.png_height;
  snprintf(w->dir, sizeof w->dir, "%s", dir);
  snprintf(w->frames_dir, sizeof w->frames_dir, "%s/frames", dir);
  for (int b = 0; b < m->nbodies; b++) w->body_names[b] = m->scene->bodies[b].name;
  w->lock_fd = -1;
  if (make && sim_mkdirs(w->frames_dir, st)) return st->code;
  w->lock_fd = sim_outputs_claim(dir, st);
  return w->lock_fd == -2 ? st->code : SIM_OK;
}

/* The connectivity and the timing table: what both opens do last (closing on a failure). */
static int open_tables(sim_writer *w, int rc, sim_status *st) {
  const sim_model *m = w->m;
  if (!rc) {
    w->tet = SIM_NEW(int, 4 * (size_t)m->nelem + 4);
    if (!w->tet) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (frame output)");
  }
  if (!rc) {
    for (int e = 0; e < m->nelem; e++) memcpy(&w->tet[4 * e], m->elems[e].v, sizeof(int) * 4);
    w->timing = sim_csv_create(TIMING_HEADER, st);
    if (!w->timing) rc = st->code;
    sim_csv_exact(w->timing, 1); /* time: as the frame files and the series file give it */
  }
  if (rc) sim_writer_close(w); /* the lock too */
  return rc;
}

int sim_writer_open(sim_writer *w, const sim_model *m, const char *dir, sim_status *st) {
  int rc = open_claim(w, m, dir, 1, st);
  if (!rc) rc = sim_outputs_clear(dir, w->frames_dir, st);
  return open_tables(w, rc, st);
}

static int add_series(sim_writer *w, const char *file, double t, sim_status *st) {
  if (w->nframes == w->cap) {
    int cap = w->cap ? 2 * w->cap : 64;
    char **f = sim_realloc(w->files, sizeof(char *) * (size_t)cap);
    if (!f) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (series)");
    w->files = f;
    double *tt = sim_realloc(w->times, sizeof(double) * (size_t)cap);
    if (!tt) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (series)");
    w->times = tt;
    w->cap = cap;
  }
  char *copy = sim_malloc(strlen(file) + 1);
  if (!copy) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (series)");
  strcpy(copy, file);
  w->files[w->nframes] = copy;
  w->times[w->nframes++] = t;
  return SIM_OK;
}

void sim_writer_set_world(sim_writer *w, const sim_world *world) { w->world = world; }

/* Bounds of the positions q (all vertices), the region the obstacles are cut to. */
static void body_bounds(const sim_model *m, const double *q, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (int i = 0; i < m->n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], q[3 * i + k]);
      hi[k] = fmax(hi[k], q[3 * i + k]);
    }
}

/* The obstacles in their pose at time t into fv's scenery (when a PNG or OBJ is written). */
static int frame_scenery(sim_writer *w, double t, const double *q, sim_scenery_view *sv,
                         sim_status *st) {
  const sim_world *wd = w->world;
  if (!wd || wd->nobs + wd->nmesh == 0 || !(w->formats & (SIM_OUT_PNG | SIM_OUT_OBJ)))
    return SIM_OK;
  if (!w->have_roi) {
    body_bounds(w->m, q, w->roi_lo, w->roi_hi);
    w->have_roi = 1;
  }
  int rc = sim_world_scenery(wd, t, w->roi_lo, w->roi_hi, &w->scenery, st);
  if (rc) return rc;
  sv->nsv = w->scenery.nv, sv->nst = w->scenery.nt;
  sv->sx = w->scenery.x, sv->stri = w->scenery.tri;
  return SIM_OK;
}

/* Object name on one line: whitespace and control characters become '_'. */
static void put_obj_name(FILE *out, const char *name, int k) {
  if (!name || !name[0]) {
    fprintf(out, "o obstacle%d\n", k);
    return;
  }
  fputs("o ", out);
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    fputc(*p <= ' ' || *p == 0x7f ? '_' : *p, out);
  fputc('\n', out);
}

/* frames/NNNNN.obstacles.obj: one object per obstacle, 1-based indices local to the file; an
   analytic obstacle's `o` line followed by two comments, `# frame` and `# rest`, each its local
   frame's origin and rotation (row-major, the columns its axes) as drawn and as the scene
   placed it before its script (scripts/obstacle_depths.py maps a frame's points back by them). */
static int write_obstacles_obj(const char *path, int frame, double t, const sim_scenery *s,
                               sim_status *st) {
  sim_atomic_file af;
  int rc = sim_atomic_open(&af, path, "wb", st);
  if (rc) return rc;
  fprintf(af.f, "# simctl obstacles frame %d time %.9g\n", frame, t);
  for (int k = 0; k < s->nobj; k++) {
    put_obj_name(af.f, s->names[k], k);
    for (int r = 0; s->posed[k] && r < 2; r++) { /* comments: readers skip them */
      const sim_frame *f = r ? &s->rests[k] : &s->frames[k];
      fprintf(af.f, "# %s", r ? "rest" : "frame");
      for (int i = 0; i < 12; i++) fprintf(af.f, " %.17g", i < 3 ? f->pos[i] : f->rot[i - 3]);
      fputc('\n', af.f);
    }
    for (int i = s->obj_v[k]; i < s->obj_v[k + 1]; i++)
      fprintf(af.f, "v %.9g %.9g %.9g\n", s->x[3 * i], s->x[3 * i + 1], s->x[3 * i + 2]);
    for (int tr = s->obj_t[k]; tr < s->obj_t[k + 1]; tr++) {
      const int *v = s->tri + 3 * tr;
      fprintf(af.f, "f %d %d %d\n", v[0] + 1, v[1] + 1, v[2] + 1);
    }
  }
  if (ferror(af.f)) {
    sim_atomic_abort(&af);
    return sim_fail(st, SIM_ERR_IO, "%s: write failed", path);
  }
  return sim_atomic_commit(&af, st);
}

/* The camera, fitted once (at the first PNG frame) to the bodies and the scenery, fixed for
   the whole run so the view does not jump; pulled back so that motion away from the rest
   shape stays in the picture (less with scenery: the obstacles bound the motion). */
static void fit_camera(sim_writer *w, const sim_frame_view *fv, const sim_scenery_view *sv) {
  sim_camera_fit_scenery(fv, sv, &w->cam);
  const double back = sv->nst > 0 ? 1.0 : 1.6;
  for (int k = 0; k < 3; k++)
    w->cam.eye[k] = w->cam.target[k] + back * (w->cam.eye[k] - w->cam.target[k]);
  w->have_cam = 1;
}

int sim_writer_frame_prepare(sim_writer *w, double t, const double *q, sim_status *st) {
  sim_scenery_view none = {0, 0, NULL, NULL};
  w->sv = none;
  return frame_scenery(w, t, q, &w->sv, st);
}

/* A frame whose files could not all be written leaves none: those written are removed and
   its VTK leaves the series, so every listed frame is whole. */
static void frame_undo(sim_writer *w, char written[][SIM_PATH_MAX + 64], int nwritten, int listed) {
  for (int i = 0; i < nwritten; i++) remove(written[i]);
  if (listed) sim_free(w->files[--w->nframes]);
}

int sim_writer_frame_files(sim_writer *w, int frame, double t, const double *q, const double *v,
                           const double *elem_energy, sim_status *st) {
  const sim_model *m = w->m;
  sim_frame_view fv = {frame, t, m->n, q, v, m->vert_body, m->nelem, w->tet, elem_energy,
                       m->ntri, m->tri, m->tri_body, m->nbodies, w->body_names};
  char written[4][SIM_PATH_MAX + 64], name[32];
  int rc = SIM_OK, n = 0, listed = 0;
  if (w->formats & SIM_OUT_VTK) {
    snprintf(name, sizeof name, "%05d.vtk", frame);
    snprintf(written[n], sizeof written[n], "%s/%s", w->frames_dir, name);
    rc = sim_write_vtk(written[n], &fv, st);
    n += rc == SIM_OK;
    if (!rc) rc = add_series(w, name, t, st);
    listed = rc == SIM_OK;
  }
  if (!rc && (w->formats & SIM_OUT_OBJ)) {
    snprintf(written[n], sizeof written[n], "%s/%05d.obj", w->frames_dir, frame);
    rc = sim_write_obj(written[n], &fv, st);
    n += rc == SIM_OK;
    if (!rc && w->sv.nsv > 0) {
      snprintf(written[n], sizeof written[n], "%s/%05d.obstacles.obj", w->frames_dir, frame);
      rc = write_obstacles_obj(written[n], frame, t, &w->scenery, st);
      n += rc == SIM_OK;
    }
  }
  if (!rc && (w->formats & SIM_OUT_PNG)) {
    if (!w->have_cam) fit_camera(w, &fv, &w->sv);
    snprintf(written[n], sizeof written[n], "%s/%05d.png", w->frames_dir, frame);
    rc = sim_render_png_scenery(written[n], &fv, &w->sv, &w->cam, w->png_w, w->png_h, st);
    n += rc == SIM_OK;
  }
  if (rc) frame_undo(w, written, n, listed);
  return rc;
}

int sim_writer_frame(sim_writer *w, int frame, double t, const double *q, const double *v,
                     const double *elem_energy, sim_status *st) {
  int rc = sim_writer_frame_prepare(w, t, q, st);
  return rc ? rc : sim_writer_frame_files(w, frame, t, q, v, elem_energy, st);
}

int sim_writer_timing_row(sim_writer *w, int frame, double t, const sim_profile *p,
                          double output_ms, sim_status *st) {
  double cst = p->assemble_ms + p->cst_solve_ms + p->corr_ms;
  double row[] = {frame,
                  t,
                  p->cd_ms,
                  p->schur_ms,
                  p->local_ms,
                  p->global_ms,
                  p->assemble_ms,
                  p->cst_solve_ms,
                  p->corr_ms,
                  cst,
                  p->frame_ms,
                  p->predict_ms,
                  p->integrate_ms,
                  output_ms,
                  p->lg_iterations,
                  p->contacts,
                  p->rows,
                  p->newton_steps,
                  (double)p->cr_iterations,
                  p->contacts > 0 ? p->min_gap : NAN,
                  p->redetected}; /* no contact: no gap */
  return sim_csv_add_row(w->timing, row, (int)(sizeof row / sizeof row[0]), st);
}

int sim_writer_flush_timing(sim_writer *w, sim_status *st) {
  char path[SIM_PATH_MAX + 64];
  if (!(w->formats & SIM_OUT_CSV)) return SIM_OK;
  snprintf(path, sizeof path, "%s/timing.csv", w->dir);
  return sim_csv_write(w->timing, path, st);
}

int sim_writer_flush_series(sim_writer *w, sim_status *st) {
  char path[SIM_PATH_MAX + 64];
  if (!(w->formats & SIM_OUT_VTK)) return SIM_OK;
  snprintf(path, sizeof path, "%s/frames.vtk.series", w->frames_dir);
  /* ParaView resolves the names relative to the series file */
  return sim_write_vtk_series(path, w->nframes, (const char *const *)w->files, w->times, st);
}

int sim_writer_flush(sim_writer *w, sim_status *st) {
  int rc = sim_writer_flush_timing(w, st);
  return rc ? rc : sim_writer_flush_series(w, st);
}

static void add_kv(sim_csv *t, const char *key, double value, const char *unit, sim_status *st) {
  char num[64];
  snprintf(num, sizeof num, "%.10g", value);
  const char *f[3] = {key, num, unit};
  sim_csv_add_text_row(t, f, 3, st);
}

int sim_writer_memory(sim_writer *w, const sim_global_stats *gs, sim_status *st) {
  if (!(w->formats & SIM_OUT_CSV)) return SIM_OK;
  const sim_model *m = w->m;
  sim_csv *t = sim_csv_create("quantity,value,unit", st);
  if (!t) return st->code;
  double n3 = 3.0 * m->nfree;
  add_kv(t, "vertices", m->n, "", st);
  add_kv(t, "free_vertices", m->nfree, "", st);
  add_kv(t, "tets", m->ntet, "", st);
  add_kv(t, "cloth_triangles", m->ncloth, "", st);
  add_kv(t, "bending_stencils", m->bend->nst, "", st);
  add_kv(t, "nnz_A", (double)gs->factor.nnz_A, "", st);
  add_kv(t, "nnz_L", (double)gs->factor.nnz_L, "", st);
  add_kv(t, "nnz_S", (double)gs->S_nnz, "", st);
  add_kv(t, "S", gs->S_bytes / MIB, "MiB", st);
  add_kv(t, "S_resident", gs->S_resident / MIB, "MiB", st);
  add_kv(t, "S_as_3n_system", gs->S_nnz * 3.0 * 12.0 / MIB, "MiB", st);
  add_kv(t, "dense_inverse_paper_convention", n3 * n3 * 8.0 / 2.0 / MIB, "MiB", st);
  add_kv(t, "analyze", gs->factor.analyze_ms, "ms", st);
  add_kv(t, "factor", gs->factor.factor_ms, "ms", st);
  add_kv(t, "S_build", gs->S_build_ms, "ms", st);
  add_kv(t, "host_peak", sim_mem_peak() / MIB, "MiB", st);
  if (gs->device_bytes > 0) add_kv(t, "device", gs->device_bytes / MIB, "MiB", st);
  char path[SIM_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/memory.csv", w->dir);
  int rc = st->code ? st->code : sim_csv_write(t, path, st);
  sim_csv_destroy(t);
  return rc;
}

void sim_writer_close(sim_writer *w) {
  for (int i = 0; i < w->nframes; i++) sim_free(w->files[i]);
  sim_free(w->files);
  sim_free(w->times);
  sim_csv_destroy(w->timing);
  sim_free(w->tet);
  sim_scenery_free(&w->scenery);
  sim_outputs_release(w->lock_fd);
  memset(w, 0, sizeof *w);
  w->lock_fd = -1;
}

/* A row of timing.csv as read back: its fields split at the commas (none is quoted). */
static int add_timing_text(sim_writer *w, const char *row, sim_status *st) {
  enum { COLS = 32 };
  char buf[1024];
  const char *f[COLS];
  int n = 0;
  if (strlen(row) >= sizeof buf)
    return sim_fail(st, SIM_ERR_IO, "%s/timing.csv: a row of %zu bytes", w->dir, strlen(row));
  strcpy(buf, row);
  for (char *p = buf, *c; n < COLS; p = c + 1) {
    f[n++] = p;
    if (!(c = strchr(p, ','))) break;
    *c = '\0';
  }
  if (n != sim_csv_cols(w->timing))
    return sim_fail(st, SIM_ERR_IO, "%s/timing.csv: a row of %d fields, expected %d: %.40s", w->dir,
                    n, sim_csv_cols(w->timing), row);
  return sim_csv_add_text_row(w->timing, f, n, st);
}

int sim_writer_open_resume(sim_writer *w, const sim_model *m, const char *dir, sim_resume *r,
                           sim_status *st) {
  memset(w, 0, sizeof *w);
  w->lock_fd = -1; /* none held where the folder has no run to go on from */
  /* an earlier run's folder: made by it, not by this run (a wrong --out makes nothing) */
  int rc = sim_resume_present(dir, st) ? st->code : open_claim(w, m, dir, 0, st);
  if (!rc) rc = sim_resume_read(m, dir, TIMING_HEADER, r, st);
  if (!rc) rc = sim_outputs_clear_after(dir, w->frames_dir, r->frame, r->nrows > 0, st);
  rc = open_tables(w, rc, st);
  for (int i = 0; !rc && i < r->nseries; i++) rc = add_series(w, r->names[i], r->times[i], st);
  for (int i = 0; !rc && i < r->nrows; i++) rc = add_timing_text(w, r->rows[i], st);
  if (!rc && r->nrows > 0 && !(w->formats & SIM_OUT_CSV)) { /* the earlier rows, cut at the
      frame, where this run adds none */
    char path[SIM_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/timing.csv", w->dir);
    rc = sim_csv_write(w->timing, path, st);
  }
  if (rc && w->m) sim_writer_close(w);
  return rc;
}

int sim_writer_first_view(sim_writer *w, const double *q0, sim_status *st) {
  int rc = sim_writer_frame_prepare(w, 0.0, q0, st);
  if (rc || !(w->formats & SIM_OUT_PNG) || w->have_cam) return rc;
  const sim_model *m = w->m;
  sim_frame_view fv = {0,      0.0,  m->n,    q0,     NULL,        m->vert_body, m->nelem,
                       w->tet, NULL, m->ntri, m->tri, m->tri_body, m->nbodies,   w->body_names};
  fit_camera(w, &fv, &w->sv);
  return SIM_OK;
}
