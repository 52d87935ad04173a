/* SPDX-License-Identifier: MIT */
/* Output directory writer: frames, series file, timing.csv, memory.csv. */
#include "writer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../model/bending.h"

#define MIB 1048576.0 /* the paper's unit */

static const char *TIMING_HEADER =
    "frame,time,cd,schur,local,global,assemble,cst_solve,corr,cst_global,frame_ms,predict,"
    "integrate,output,lg_iterations,contacts,rows";

int sim_writer_open(sim_writer *w, const sim_model *m, const char *dir, sim_status *st) {
  memset(w, 0, sizeof *w);
  w->m = m;
  w->formats = m->scene->output.formats;
  w->png_w = m->scene->output.png_width;
  w->png_h = m->scene->output.png_height;
  snprintf(w->dir, sizeof w->dir, "%s", dir);
  snprintf(w->frames_dir, sizeof w->frames_dir, "%s/frames", dir);
  for (int b = 0; b < m->nbodies; b++) w->body_names[b] = m->scene->bodies[b].name;
  if (sim_mkdirs(w->frames_dir, st)) return st->code;
  w->tet = SIM_NEW(int, 4 * (size_t)m->nelem + 4);
  if (!w->tet) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (frame output)");
  for (int e = 0; e < m->nelem; e++) memcpy(&w->tet[4 * e], m->elems[e].v, sizeof(int) * 4);
  w->timing = sim_csv_create(TIMING_HEADER, st);
  return w->timing ? SIM_OK : st->code;
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

int sim_writer_frame(sim_writer *w, int frame, double t, const double *q, const double *v,
                     const double *elem_energy, sim_status *st) {
  const sim_model *m = w->m;
  sim_frame_view fv = {frame, t, m->n, q, v, m->vert_body, m->nelem, w->tet, elem_energy,
                       m->ntri, m->tri, m->tri_body, m->nbodies, w->body_names};
  char path[SIM_PATH_MAX + 64], name[32];
  int rc = SIM_OK;
  if (w->formats & SIM_OUT_VTK) {
    snprintf(name, sizeof name, "%05d.vtk", frame);
    snprintf(path, sizeof path, "%s/%s", w->frames_dir, name);
    rc = sim_write_vtk(path, &fv, st);
    if (!rc) rc = add_series(w, name, t, st);
  }
  if (!rc && (w->formats & SIM_OUT_OBJ)) {
    snprintf(path, sizeof path, "%s/%05d.obj", w->frames_dir, frame);
    rc = sim_write_obj(path, &fv, st);
  }
  if (!rc && (w->formats & SIM_OUT_PNG)) {
    if (!w->have_cam) {
      /* fixed for the whole run, so the view does not jump; pulled back so that motion away
         from the rest shape stays in the picture */
      sim_camera_fit(&fv, &w->cam);
      for (int k = 0; k < 3; k++)
        w->cam.eye[k] = w->cam.target[k] + 1.6 * (w->cam.eye[k] - w->cam.target[k]);
      w->have_cam = 1;
    }
    snprintf(path, sizeof path, "%s/%05d.png", w->frames_dir, frame);
    rc = sim_render_png(path, &fv, &w->cam, w->png_w, w->png_h, st);
  }
  return rc;
}

int sim_writer_timing_row(sim_writer *w, int frame, double t, const sim_profile *p,
                          double output_ms, sim_status *st) {
  double cst = p->assemble_ms + p->cst_solve_ms + p->corr_ms;
  double row[] = {frame,         t,           p->cd_ms,          p->schur_ms,    p->local_ms,
                  p->global_ms,  p->assemble_ms, p->cst_solve_ms, p->corr_ms,     cst,
                  p->frame_ms,   p->predict_ms, p->integrate_ms, output_ms,      p->lg_iterations,
                  p->contacts,   p->rows};
  return sim_csv_add_row(w->timing, row, (int)(sizeof row / sizeof row[0]), st);
}

int sim_writer_flush(sim_writer *w, sim_status *st) {
  char path[SIM_PATH_MAX + 64];
  int rc = SIM_OK;
  if (w->formats & SIM_OUT_CSV) {
    snprintf(path, sizeof path, "%s/timing.csv", w->dir);
    rc = sim_csv_write(w->timing, path, st);
  }
  if (!rc && (w->formats & SIM_OUT_VTK)) {
    snprintf(path, sizeof path, "%s/frames.vtk.series", w->frames_dir);
    /* ParaView resolves the names relative to the series file */
    rc = sim_write_vtk_series(path, w->nframes, (const char *const *)w->files, w->times, st);
  }
  return rc;
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
  memset(w, 0, sizeof *w);
}
