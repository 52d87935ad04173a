/* SPDX-License-Identifier: MIT */
/* Wavefront OBJ reader: v and f lines (v, v/vt, v/vt/vn, v//vn, negative indices). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

static int is_word(const char *tok, int len, const char *w) {
  return (size_t)len == strlen(w) && memcmp(tok, w, (size_t)len) == 0;
}

/* The texture and normal references after a corner's vertex index (REST starts at its first
   '/', or is empty): at most two, each empty or an integer. They are not used, but a corner
   such as "1/abc" is a broken file, not one to guess at. */
static int refs_ok(const char *rest, int len) {
  int slashes = 0;
  for (int i = 0; i < len; i++) {
    if (rest[i] == '/') {
      if (++slashes > 2) return 0;
    } else if (rest[i] == '-' || rest[i] == '+') {
      if (rest[i - 1] != '/' || i + 1 >= len || rest[i + 1] < '0' || rest[i + 1] > '9') return 0;
    } else if (rest[i] < '0' || rest[i] > '9') {
      return 0;
    }
  }
  return 1;
}

/* Vertex index of one face corner "i", "i/t", "i/t/n" or "i//n" -> 0-based. */
static int corner_index(sim_mesh_cursor *c, const char *tok, int len, int nv, int *out,
                        sim_status *st) {
  char buf[32], q[48];
  int n = 0;
  while (n < len && tok[n] != '/') n++;
  if (n == 0 || n >= (int)sizeof buf) {
    sim_mesh_quote(q, tok, len);
    return sim_mesh_fail(c, st, "expected a vertex index in face, found '%s'", q);
  }
  memcpy(buf, tok, (size_t)n);
  buf[n] = '\0';
  char *end;
  errno = 0;
  long long i = strtoll(buf, &end, 10);
  if (end != buf + n || errno == ERANGE || i == 0) {
    sim_mesh_quote(q, tok, len);
    return sim_mesh_fail(c, st, "expected a vertex index (1..N or -N..-1) in face, found '%s'", q);
  }
  if (!refs_ok(tok + n, len - n)) {
    sim_mesh_quote(q, tok, len);
    return sim_mesh_fail(c, st,
                         "expected a face corner v, v/vt, v/vt/vn or v//vn with integer indices, "
                         "found '%s'",
                         q);
  }
  long long k = i > 0 ? i - 1 : nv + i;
  if (k < 0 || k >= nv)
    return sim_mesh_fail(c, st, "vertex index %lld out of range (%d vertices defined so far)", i,
                         nv);
  *out = (int)k;
  return SIM_OK;
}

int sim_read_obj(const char *path, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  sim_mesh_cursor c;
  sim_mesh_cursor_init(&c, path, buf, len, '#');
  double *x = NULL;
  int *tri = NULL, *poly = NULL;
  int nv = 0, nt = 0, capx = 0, capt = 0, capp = 0;
  int rc = SIM_OK;
  const char *tok;
  int tl;
  while (rc == SIM_OK && sim_mesh_token(&c, &tok, &tl)) {
    if (is_word(tok, tl, "v")) {
      if (sim_mesh_grow((void **)&x, &capx, 3LL * nv + 3, sizeof *x) || nv >= INT_MAX / 3) {
        rc = sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", path, c.line);
        break;
      }
      for (int d = 0; d < 3 && rc == SIM_OK; d++) {
        if (sim_mesh_at_eol(&c))
          rc = sim_mesh_fail(&c, st, "expected 3 vertex coordinates after 'v', found %d", d);
        else
          rc = sim_mesh_read_double(&c, &x[3 * nv + d], "a vertex coordinate", st);
      }
      nv++;
    } else if (is_word(tok, tl, "f")) {
      int np = 0;
      while (rc == SIM_OK && !sim_mesh_at_eol(&c)) {
        sim_mesh_token(&c, &tok, &tl);
        if (sim_mesh_grow((void **)&poly, &capp, np + 1LL, sizeof *poly)) {
          rc = sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", path, c.line);
          break;
        }
        rc = corner_index(&c, tok, tl, nv, &poly[np++], st);
      }
      if (rc) break;
      if (np < 3) {
        rc = sim_mesh_fail(&c, st, "expected at least 3 vertices after 'f', found %d", np);
        break;
      }
      if (sim_mesh_grow((void **)&tri, &capt, 3LL * (nt + np - 2), sizeof *tri)) {
        rc = sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", path, c.line);
        break;
      }
      sim_mesh_fan(poly, np, tri, &nt);
    }
    sim_mesh_skip_line(&c); /* other statements (vt, vn, o, g, s, usemtl, ...) are ignored */
  }
  if (rc == SIM_OK && nt == 0)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: no faces (expected 'f' lines)", path);
  sim_free(buf);
  sim_free(poly);
  return sim_mesh_surface_done(rc, nv, x, nt, tri, out);
}
