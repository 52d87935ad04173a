/* SPDX-License-Identifier: MIT */
/* Legacy VTK 3.0 BINARY (big-endian) tet frames, the ParaView .vtk.series index, view checks. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "output.h"

int sim_frame_view_check(const sim_frame_view *f, sim_status *st) {
  if (!f) return sim_fail(st, SIM_ERR_INTERNAL, "frame view is NULL");
  if (f->nv < 0 || f->ntet < 0 || f->ntri < 0 || f->nbodies < 0)
    return sim_fail(st, SIM_ERR_INTERNAL, "frame %d: negative count (nv %d, ntet %d, ntri %d, "
                    "nbodies %d)", f->frame, f->nv, f->ntet, f->ntri, f->nbodies);
  if ((f->nv > 0 && !f->x) || (f->ntet > 0 && !f->tet) || (f->ntri > 0 && !f->tri))
    return sim_fail(st, SIM_ERR_INTERNAL, "frame %d: missing x, tet or tri array", f->frame);
  for (long k = 0; k < 4L * f->ntet; k++)
    if ((f->tet[k] < 0 && (k % 4 != 3 || f->tet[k] != -1)) || f->tet[k] >= f->nv)
      return sim_fail(st, SIM_ERR_INTERNAL, "frame %d: tet %ld vertex %d out of range [0, %d)",
                      f->frame, k / 4, f->tet[k], f->nv);
  for (long k = 0; k < 3L * f->ntri; k++)
    if (f->tri[k] < 0 || f->tri[k] >= f->nv)
      return sim_fail(st, SIM_ERR_INTERNAL,
                      "frame %d: triangle %ld vertex %d out of range [0, %d)", f->frame, k / 3,
                      f->tri[k], f->nv);
  if (f->tri_body)
    for (int t = 0; t < f->ntri; t++)
      if (f->tri_body[t] < 0 || f->tri_body[t] >= f->nbodies)
        return sim_fail(st, SIM_ERR_INTERNAL,
                        "frame %d: triangle %d body %d out of range [0, %d)", f->frame, t,
                        f->tri_body[t], f->nbodies);
  return SIM_OK;
}

/* Big-endian encoder staging values in a buffer so each array costs a few fwrite calls. */
typedef struct be_out {
  FILE *f;
  size_t n;
  int bad;
  unsigned char buf[8192];
} be_out;

static void be_flush(be_out *o) {
  if (o->n && !o->bad && fwrite(o->buf, 1, o->n, o->f) != o->n) o->bad = 1;
  o->n = 0;
}

static void be_bytes(be_out *o, uint64_t v, int nbytes) {
  if (o->n + (size_t)nbytes > sizeof o->buf) be_flush(o);
  for (int i = 0; i < nbytes; i++)
    o->buf[o->n + (size_t)i] = (unsigned char)(v >> (8 * (nbytes - 1 - i)));
  o->n += (size_t)nbytes;
}

static void be_i32(be_out *o, int32_t v) { be_bytes(o, (uint32_t)v, 4); }

static void be_f64(be_out *o, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  be_bytes(o, u, 8);
}

/* Ends a binary block: VTK readers (ParaView included) expect a newline before the next
   keyword. */
static void be_end(be_out *o) {
  be_flush(o);
  if (fputc('\n', o->f) == EOF) o->bad = 1;
}

int sim_write_vtk(const char *path, const sim_frame_view *f, sim_status *st) {
  int rc = sim_frame_view_check(f, st);
  if (rc) return rc;
  sim_atomic_file af;
  rc = sim_atomic_open(&af, path, "wb", st);
  if (rc) return rc;
  be_out *o = SIM_NEW0(be_out, 1); /* 8 KiB staging buffer */
  if (!o) {
    sim_atomic_abort(&af);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
  }
  o->f = af.f;
  const int nv = f->nv, ntet = f->ntet;

  fprintf(af.f, "# vtk DataFile Version 3.0\nsimctl frame %d time %.9g\nBINARY\n"
          "DATASET UNSTRUCTURED_GRID\n", f->frame, f->time);
  fprintf(af.f, "POINTS %d double\n", nv);
  for (long k = 0; k < 3L * nv; k++) be_f64(o, f->x[k]);
  be_end(o);

  long ntri_cells = 0; /* cloth triangles: a 4th corner of -1 */
  for (long e = 0; e < ntet; e++) ntri_cells += f->tet[4 * e + 3] < 0;
  fprintf(af.f, "CELLS %d %ld\n", ntet, 5L * ntet - ntri_cells);
  for (long e = 0; e < ntet; e++) {
    int nc = f->tet[4 * e + 3] < 0 ? 3 : 4;
    be_i32(o, nc);
    for (int j = 0; j < nc; j++) be_i32(o, f->tet[4 * e + j]);
  }
  be_end(o);
  fprintf(af.f, "CELL_TYPES %d\n", ntet);
  for (long e = 0; e < ntet; e++) be_i32(o, f->tet[4 * e + 3] < 0 ? 5 : 10); /* TRIANGLE, TETRA */
  be_end(o);

  if (nv > 0) {
    fprintf(af.f, "POINT_DATA %d\nVECTORS velocity double\n", nv);
    for (long k = 0; k < 3L * nv; k++) be_f64(o, f->v ? f->v[k] : 0.0);
    be_end(o);
    fprintf(af.f, "SCALARS body_id int 1\nLOOKUP_TABLE default\n");
    for (long i = 0; i < nv; i++) be_i32(o, f->vert_body ? f->vert_body[i] : 0);
    be_end(o);
  }
  if (ntet > 0) {
    fprintf(af.f, "CELL_DATA %d\nSCALARS energy_density double 1\nLOOKUP_TABLE default\n", ntet);
    for (long e = 0; e < ntet; e++)
      be_f64(o, f->tet_energy_density ? f->tet_energy_density[e] : 0.0);
    be_end(o);
  }

  int bad = o->bad;
  sim_free(o);
  if (bad || ferror(af.f)) {
    int e = errno;
    sim_atomic_abort(&af);
    return sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", path, strerror(e));
  }
  return sim_atomic_commit(&af, st);
}

/* Shortest of %.15g / %.17g that reads back exactly, with ".0" added to bare integers so the
   JSON shows a real number. */
static void format_time(char *buf, size_t size, double t) {
  snprintf(buf, size, "%.15g", t);
  if (strtod(buf, NULL) != t) snprintf(buf, size, "%.17g", t);
  if (!strpbrk(buf, ".eE")) {
    size_t len = strlen(buf);
    if (len + 2 < size) memcpy(buf + len, ".0", 3);
  }
}

/* JSON string body: quote, backslash and control characters escaped. */
static void put_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

int sim_write_vtk_series(const char *path, int n, const char *const *files, const double *times,
                         sim_status *st) {
  if (n < 0 || (n > 0 && (!files || !times)))
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: bad series (n %d)", path, n);
  for (int i = 0; i < n; i++) {
    if (!files[i]) return sim_fail(st, SIM_ERR_INTERNAL, "%s: series entry %d has no name", path, i);
    if (!isfinite(times[i]))
      return sim_fail(st, SIM_ERR_INTERNAL, "%s: series entry %d time is not finite", path, i);
  }
  sim_atomic_file af;
  int rc = sim_atomic_open(&af, path, "wb", st);
  if (rc) return rc;
  fprintf(af.f, "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n");
  for (int i = 0; i < n; i++) {
    char tbuf[48];
    format_time(tbuf, sizeof tbuf, times[i]);
    fprintf(af.f, "    { \"name\" : ");
    put_json_string(af.f, files[i]);
    fprintf(af.f, ", \"time\" : %s }%s\n", tbuf, i + 1 < n ? "," : "");
  }
  fprintf(af.f, "  ]\n}\n");
  return sim_atomic_commit(&af, st);
}
