/* SPDX-License-Identifier: MIT */
/* OFF reader (OFF, COFF, NOFF, CNOFF headers; '#' comments; polygons fan-triangulated). */
#include <limits.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

int sim_read_off(const char *path, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  sim_mesh_cursor c;
  sim_mesh_cursor_init(&c, path, buf, len, '#');
  double *x = NULL;
  int *tri = NULL, *poly = NULL;
  int nv = 0, nf = 0, ne = 0, nt = 0, capt = 0, capp = 0;
  int rc = SIM_OK;
  const char *tok;
  int tl;
  static const char *const kHeaders[] = {"OFF", "COFF", "NOFF", "CNOFF", "STOFF", "STCOFF"};
  int ok = 0;
  if (sim_mesh_token(&c, &tok, &tl))
    for (size_t i = 0; i < sizeof kHeaders / sizeof *kHeaders; i++)
      if ((size_t)tl == strlen(kHeaders[i]) && memcmp(tok, kHeaders[i], (size_t)tl) == 0) ok = 1;
  if (!ok) {
    char q[48];
    sim_mesh_quote(q, tok, tl);
    rc = sim_mesh_fail(&c, st, "expected an 'OFF' or 'COFF' header, found '%s'", q);
    goto done;
  }
  const long long cap = (long long)len; /* every entry needs at least one byte */
  if (sim_mesh_read_int(&c, &nv, 1, cap < INT_MAX / 3 ? cap : INT_MAX / 3, "vertex count", st) ||
      sim_mesh_read_int(&c, &nf, 1, cap < INT_MAX / 3 ? cap : INT_MAX / 3, "face count", st) ||
      sim_mesh_read_int(&c, &ne, 0, INT_MAX, "edge count", st)) {
    rc = st->code;
    goto done;
  }
  sim_mesh_skip_line(&c);
  x = SIM_NEW(double, 3 * nv);
  if (!x) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d vertices", path, nv);
    goto done;
  }
  for (int i = 0; i < nv; i++) {
    for (int d = 0; d < 3; d++)
      if ((d > 0 && sim_mesh_fields(&c, d, 3, "coordinates", st)) ||
          sim_mesh_read_double(&c, &x[3 * i + d], "a vertex coordinate", st)) {
        rc = st->code;
        goto done;
      }
    sim_mesh_skip_line(&c); /* normals, colours, texture coordinates */
  }
  for (int f = 0; f < nf; f++) {
    int np;
    if (sim_mesh_read_int(&c, &np, 3, 1 << 20, "face vertex count", st)) {
      rc = st->code;
      goto done;
    }
    if (sim_mesh_grow((void **)&poly, &capp, np, sizeof *poly) ||
        sim_mesh_grow((void **)&tri, &capt, 3LL * (nt + np - 2), sizeof *tri)) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", path, c.line);
      goto done;
    }
    for (int k = 0; k < np; k++) {
      if (sim_mesh_at_eol(&c)) {
        rc = sim_mesh_fail(&c, st, "expected %d vertex indices in face %d, found %d", np, f, k);
        goto done;
      }
      if (sim_mesh_read_int(&c, &poly[k], 0, nv - 1, "vertex index", st)) {
        rc = st->code;
        goto done;
      }
    }
    sim_mesh_fan(poly, np, tri, &nt);
    sim_mesh_skip_line(&c); /* face colour */
  }
  rc = sim_mesh_expect_end(&c, nf, "faces", st);
done:
  sim_free(buf);
  sim_free(poly);
  return sim_mesh_surface_done(rc, nv, x, nt, tri, out);
}
