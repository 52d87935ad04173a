/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ frames: one object per body holding only that body's surface vertices. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "output.h"

/* Object name on one line: whitespace and control characters become '_'. */
static void put_name(FILE *out, const sim_frame_view *f, int b) {
  const char *name = f->body_names ? f->body_names[b] : NULL;
  if (!name || !name[0]) {
    fprintf(out, "o body%d\n", b);
    return;
  }
  fputs("o ", out);
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    fputc(*p <= ' ' || *p == 0x7f ? '_' : *p, out);
  fputc('\n', out);
}

int sim_write_obj(const char *path, const sim_frame_view *f, sim_status *st) {
  int rc = sim_frame_view_check(f, st);
  if (rc) return rc;
  /* Without tri_body every triangle belongs to body 0. */
  const int nb = f->tri_body ? f->nbodies : (f->nbodies > 0 ? f->nbodies : 1);
  const int nv = f->nv, nt = f->ntri;
  int *start = SIM_NEW0(int, nb + 1); /* triangles bucketed by body (counting sort) */
  int *order = SIM_NEW(int, nt > 0 ? nt : 1);
  int *local = SIM_NEW(int, nv > 0 ? nv : 1); /* file-wide 1-based index, or 0 */
  int *stamp = SIM_NEW(int, nv > 0 ? nv : 1); /* body that last wrote the vertex, + 1 */
  int *fill = SIM_NEW0(int, nb + 1);
  sim_atomic_file af = {0};
  if (!start || !order || !local || !stamp || !fill) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
    goto done;
  }
  for (int t = 0; t < nt; t++) start[(f->tri_body ? f->tri_body[t] : 0) + 1]++;
  for (int b = 0; b < nb; b++) start[b + 1] += start[b];
  for (int t = 0; t < nt; t++) {
    int b = f->tri_body ? f->tri_body[t] : 0;
    order[start[b] + fill[b]++] = t;
  }
  for (int i = 0; i < nv; i++) stamp[i] = 0;

  rc = sim_atomic_open(&af, path, "wb", st);
  if (rc) goto done;
  fprintf(af.f, "# simctl frame %d time %.9g\n", f->frame, f->time);
  int next = 1;
  for (int b = 0; b < nb; b++) {
    put_name(af.f, f, b);
    /* vertices in order of first use by this body's triangles */
    for (int k = start[b]; k < start[b + 1]; k++)
      for (int j = 0; j < 3; j++) {
        int i = f->tri[3 * order[k] + j];
        if (stamp[i] == b + 1) continue;
        stamp[i] = b + 1;
        local[i] = next++;
        fprintf(af.f, "v %.9g %.9g %.9g\n", f->x[3 * i], f->x[3 * i + 1], f->x[3 * i + 2]);
      }
    for (int k = start[b]; k < start[b + 1]; k++) {
      const int *tv = f->tri + 3 * order[k];
      fprintf(af.f, "f %d %d %d\n", local[tv[0]], local[tv[1]], local[tv[2]]);
    }
  }
  if (ferror(af.f)) {
    int e = errno;
    sim_atomic_abort(&af);
    rc = sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", path, strerror(e));
    goto done;
  }
  rc = sim_atomic_commit(&af, st);
done:
  sim_free(start);
  sim_free(order);
  sim_free(local);
  sim_free(stamp);
  sim_free(fill);
  return rc;
}
