/* SPDX-License-Identifier: MIT */
/* Legacy VTK UNSTRUCTURED_GRID reader (ascii/binary, classic or 5.1 cells), keeping tets. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

typedef struct vtk_state {
  sim_mesh_cursor c;
  int binary;
} vtk_state;

static int is_tok(const char *tok, int len, const char *w) {
  return (size_t)len == strlen(w) && memcmp(tok, w, (size_t)len) == 0;
}

static int bad_tok(vtk_state *v, const char *tok, int len, const char *what, sim_status *st) {
  char q[48];
  sim_mesh_quote(q, tok, len);
  return sim_mesh_fail(&v->c, st, "expected %s, found '%s'", what, q);
}

/* Bytes per value of a data type name; 0 when unsupported. */
static int type_size(const char *tok, int len) {
  if (is_tok(tok, len, "float") || is_tok(tok, len, "int") || is_tok(tok, len, "unsigned_int") ||
      is_tok(tok, len, "vtktypeint32"))
    return 4;
  if (is_tok(tok, len, "double") || is_tok(tok, len, "long") || is_tok(tok, len, "unsigned_long") ||
      is_tok(tok, len, "vtktypeint64") || is_tok(tok, len, "vtktypeuint64"))
    return 8;
  if (is_tok(tok, len, "short") || is_tok(tok, len, "unsigned_short")) return 2;
  if (is_tok(tok, len, "char") || is_tok(tok, len, "unsigned_char")) return 1;
  return 0;
}

static int read_type(vtk_state *v, int *size, int want_int, sim_status *st) {
  const char *tok;
  int len;
  const char *what = want_int ? "an integer data type (int, vtktypeint32, vtktypeint64)"
                              : "a point data type (float or double)";
  if (!sim_mesh_token(&v->c, &tok, &len))
    return sim_mesh_fail(&v->c, st, "expected %s, found end of file", what);
  *size = type_size(tok, len);
  int ok = want_int ? (*size == 4 || *size == 8) && !is_tok(tok, len, "float") &&
                          !is_tok(tok, len, "double")
                    : is_tok(tok, len, "float") || is_tok(tok, len, "double");
  return ok ? SIM_OK : bad_tok(v, tok, len, what, st);
}

/* Checks that n values fit in what is left (ascii: >= 1 byte each) and, in binary, moves to
   the start of the data (the line after the keyword) unless at_data. */
static int begin_data(vtk_state *v, long long n, int size, int at_data, const char *what,
                      sim_status *st) {
  if (v->binary && !at_data) sim_mesh_skip_line(&v->c);
  long long left = (long long)(v->c.end - v->c.p);
  if (n < 0 || n > (v->binary ? left / size : left))
    return sim_mesh_fail(&v->c, st,
                         "expected %lld values of %s, found only %lld bytes left "
                         "(truncated file?)",
                         n, what, left);
  return SIM_OK;
}

static uint64_t be(const unsigned char *b, int size) {
  uint64_t u = 0;
  for (int i = 0; i < size; i++) u = u << 8 | b[i];
  return u;
}

static int read_ints(vtk_state *v, long long n, int size, int at_data, long long *out,
                     const char *what, sim_status *st) {
  if (begin_data(v, n, size, at_data, what, st)) return st->code;
  if (!v->binary) {
    for (long long i = 0; i < n; i++)
      if (sim_mesh_read_long(&v->c, &out[i], what, st)) return st->code;
    return SIM_OK;
  }
  const unsigned char *b = (const unsigned char *)v->c.p;
  for (long long i = 0; i < n; i++) {
    uint64_t u = be(b + i * size, size);
    out[i] = size == 4 ? (long long)(int32_t)(uint32_t)u : (long long)u;
  }
  v->c.p += n * size;
  return SIM_OK;
}

static int read_reals(vtk_state *v, long long n, int size, double *out, const char *what,
                      sim_status *st) {
  if (begin_data(v, n, size, 0, what, st)) return st->code;
  if (!v->binary) {
    for (long long i = 0; i < n; i++)
      if (sim_mesh_read_double(&v->c, &out[i], what, st)) return st->code;
    return SIM_OK;
  }
  const unsigned char *b = (const unsigned char *)v->c.p;
  for (long long i = 0; i < n; i++) {
    uint64_t u = be(b + i * size, size);
    if (size == 4) {
      uint32_t w = (uint32_t)u;
      float f;
      memcpy(&f, &w, sizeof f);
      out[i] = f;
    } else {
      memcpy(&out[i], &u, sizeof out[i]);
    }
    if (out[i] != out[i] || out[i] - out[i] != 0)
      return sim_mesh_fail(&v->c, st, "expected finite %s, found %g (value %lld)", what, out[i], i);
  }
  v->c.p += n * size;
  return SIM_OK;
}

/* Skips FIELD name n, then n arrays "name ncomp ntuples type" with their data. */
static int skip_field(vtk_state *v, sim_status *st) {
  const char *tok;
  int len, narr;
  if (!sim_mesh_token(&v->c, &tok, &len))
    return sim_mesh_fail(&v->c, st, "expected a FIELD name, found end of file");
  if (sim_mesh_read_int(&v->c, &narr, 0, 1 << 20, "FIELD array count", st)) return st->code;
  for (int a = 0; a < narr; a++) {
    int ncomp, ntup;
    if (!sim_mesh_token(&v->c, &tok, &len))
      return sim_mesh_fail(&v->c, st, "expected a FIELD array name, found end of file");
    if (sim_mesh_read_int(&v->c, &ncomp, 0, INT_MAX, "component count", st) ||
        sim_mesh_read_int(&v->c, &ntup, 0, INT_MAX, "tuple count", st))
      return st->code;
    if (!sim_mesh_token(&v->c, &tok, &len))
      return sim_mesh_fail(&v->c, st, "expected a FIELD data type, found end of file");
    int size = type_size(tok, len);
    if (!size) return bad_tok(v, tok, len, "a numeric FIELD data type", st);
    long long n = (long long)ncomp * ntup;
    if (begin_data(v, n, size, 0, "FIELD data", st)) return st->code;
    if (v->binary) {
      v->c.p += n * size;
    } else {
      for (long long i = 0; i < n; i++)
        if (!sim_mesh_token(&v->c, &tok, &len))
          return sim_mesh_fail(&v->c, st, "expected FIELD data, found end of file");
    }
  }
  return SIM_OK;
}

/* VTK cell types of dimension 0 to 2 (vertices, lines, surfaces, linear or not): skipped, as
   a tet mesh file often carries its boundary faces too. */
static int is_low_dim(long long type) {
  static const unsigned char kLow[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  21,
                                       22, 23, 28, 30, 34, 35, 36, 51, 52, 53, 54,
                                       60, 61, 62, 63, 68, 69, 70, 75, 76, 77};
  for (size_t i = 0; i < sizeof kLow; i++)
    if (type == kLow[i]) return 1;
  return 0;
}

/* Name of a 3D VTK cell type for messages; "" when not one of the common ones. */
static const char *solid_name(long long type) {
  switch (type) {
    case 11:
      return " (voxel)";
    case 12:
      return " (hexahedron)";
    case 13:
      return " (wedge)";
    case 14:
      return " (pyramid)";
    case 24:
      return " (quadratic tetra)";
    case 25:
      return " (quadratic hexahedron)";
    case 42:
      return " (polyhedron)";
    case 71:
      return " (Lagrange tetrahedron)";
    default:
      return "";
  }
}

/* Keeps type-10 cells as tets, skips 0D-2D cells and refuses others (a hex mesh read as its
   tets alone would lose volume without a word); off[i]..off[i+1] indexes conn. */
static int collect_tets(vtk_state *v, int line, int types_line, long long ncell,
                        const long long *off, const long long *conn, const long long *types,
                        int npts, sim_tetmesh *m, sim_status *st) {
  long long nt = 0;
  for (long long i = 0; i < ncell; i++) {
    if (types[i] != 10 && !is_low_dim(types[i]))
      return sim_fail(st, SIM_ERR_MESH,
                      "%s:%d: cell %lld has type %lld%s: only linear tetrahedra (type 10) are "
                      "read (0D-2D cells are skipped)",
                      v->c.path, types_line, i, types[i], solid_name(types[i]));
    if (types[i] != 10) continue;
    if (off[i + 1] - off[i] != 4)
      return sim_fail(st, SIM_ERR_MESH,
                      "%s:%d: cell %lld has type 10 (tetra) but %lld points, "
                      "expected 4",
                      v->c.path, line, i, off[i + 1] - off[i]);
    nt++;
  }
  if (nt == 0)
    return sim_fail(st, SIM_ERR_MESH, "%s: no tetrahedra (expected cells of type 10)", v->c.path);
  if (nt > INT_MAX / 4)
    return sim_fail(st, SIM_ERR_MESH, "%s: too many tetrahedra (%lld)", v->c.path, nt);
  m->tet = SIM_NEW(int, 4 * nt);
  if (!m->tet) return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", v->c.path);
  int k = 0;
  for (long long i = 0; i < ncell; i++) {
    if (types[i] != 10) continue;
    for (int j = 0; j < 4; j++) {
      long long p = conn[off[i] + j];
      if (p < 0 || p >= npts)
        return sim_fail(st, SIM_ERR_MESH,
                        "%s:%d: cell %lld: point index %lld out of range "
                        "(expected 0..%d)",
                        v->c.path, line, i, p, npts - 1);
      m->tet[k++] = (int)p;
    }
  }
  m->ntet = (int)nt;
  return SIM_OK;
}

static int read_header(vtk_state *v, sim_status *st) {
  sim_mesh_cursor *c = &v->c;
  static const char kMagic[] = "# vtk DataFile Version";
  if ((size_t)(c->end - c->p) < sizeof kMagic - 1 || memcmp(c->p, kMagic, sizeof kMagic - 1))
    return sim_mesh_fail(c, st, "expected '%s x.y' as the first line", kMagic);
  sim_mesh_skip_line(c);
  sim_mesh_skip_line(c); /* title */
  const char *tok;
  int len;
  if (!sim_mesh_token(c, &tok, &len) || !(is_tok(tok, len, "ASCII") || is_tok(tok, len, "BINARY")))
    return bad_tok(v, tok, len, "ASCII or BINARY on line 3", st);
  v->binary = is_tok(tok, len, "BINARY");
  if (sim_mesh_expect(c, "DATASET", st)) return st->code;
  if (!sim_mesh_token(c, &tok, &len) || !is_tok(tok, len, "UNSTRUCTURED_GRID"))
    return bad_tok(v, tok, len, "DATASET UNSTRUCTURED_GRID", st);
  return SIM_OK;
}

int sim_read_vtk(const char *path, sim_tetmesh *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  vtk_state v;
  sim_mesh_cursor_init(&v.c, path, buf, len, 0);
  v.binary = 0;
  double *x = NULL;
  long long *off = NULL, *conn = NULL, *types = NULL, ncell = -1, ntypes = -1;
  int npts = 0, cells_line = 0, types_line = 0, rc = read_header(&v, st);
  const long long cap = (long long)len < INT_MAX / 3 ? (long long)len : INT_MAX / 3;
  const char *tok;
  int tl;
  while (rc == SIM_OK && sim_mesh_token(&v.c, &tok, &tl)) {
    if (is_tok(tok, tl, "POINTS")) {
      int size;
      if (x) {
        rc = sim_mesh_fail(&v.c, st, "expected one POINTS section, found a second");
      } else if (!(rc = sim_mesh_read_int(&v.c, &npts, 1, cap, "point count", st)) &&
                 !(rc = read_type(&v, &size, 0, st))) {
        x = SIM_NEW(double, 3 * (size_t)npts);
        rc = x ? read_reals(&v, 3LL * npts, size, x, "point coordinates", st)
               : sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
      }
    } else if (is_tok(tok, tl, "CELLS")) {
      long long a, b;
      cells_line = v.c.line;
      if (off) {
        rc = sim_mesh_fail(&v.c, st, "expected one CELLS section, found a second");
        break;
      }
      if ((rc = sim_mesh_read_long(&v.c, &a, "cell count", st)) ||
          (rc = sim_mesh_read_long(&v.c, &b, "cell list size", st)))
        break;
      if (a < 0 || b < 0 || a > cap || b > (long long)len) {
        rc = sim_mesh_fail(&v.c, st, "expected CELLS counts within the file size, found %lld %lld",
                           a, b);
        break;
      }
      sim_mesh_cursor peek = v.c;
      int newfmt;
      if (v.binary) {
        sim_mesh_skip_line(&v.c);
        newfmt = v.c.end - v.c.p >= 7 && memcmp(v.c.p, "OFFSETS", 7) == 0;
        peek = v.c;
        sim_mesh_token(&peek, &tok, &tl);
      } else {
        newfmt = sim_mesh_token(&peek, &tok, &tl) && is_tok(tok, tl, "OFFSETS");
      }
      if (newfmt) { /* VTK 5.1: CELLS nOffsets nConnectivity; OFFSETS; CONNECTIVITY */
        int size;
        v.c = peek;
        ncell = a - 1;
        off = SIM_NEW(long long, a > 0 ? a : 1);
        conn = SIM_NEW(long long, b > 0 ? b : 1);
        if (!off || !conn) {
          rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
          break;
        }
        if ((rc = read_type(&v, &size, 1, st)) ||
            (rc = read_ints(&v, a, size, 0, off, "cell offsets", st)) ||
            (rc = sim_mesh_expect(&v.c, "CONNECTIVITY", st)) ||
            (rc = read_type(&v, &size, 1, st)) ||
            (rc = read_ints(&v, b, size, 0, conn, "cell connectivity", st)))
          break;
        if (a < 1 || off[0] != 0 || off[a - 1] != b) {
          rc =
              sim_fail(st, SIM_ERR_MESH, "%s:%d: expected OFFSETS from 0 to %lld, found %lld..%lld",
                       path, cells_line, b, a ? off[0] : 0, a ? off[a - 1] : 0);
          break;
        }
        for (long long i = 0; i < ncell; i++)
          if (off[i + 1] < off[i]) {
            rc = sim_fail(st, SIM_ERR_MESH, "%s:%d: OFFSETS decrease at cell %lld", path,
                          cells_line, i);
            break;
          }
      } else { /* classic: CELLS n size; each cell "npts i0 i1 ..." */
        long long *flat = SIM_NEW(long long, b > 0 ? b : 1);
        ncell = a;
        off = SIM_NEW(long long, a + 1);
        if (!flat || !off) {
          sim_free(flat);
          rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
          break;
        }
        conn = flat;
        if ((rc = read_ints(&v, b, 4, v.binary, flat, "cell list", st))) break;
        /* to the OFFSETS/CONNECTIVITY form, in place (the write index never passes the
           read index) */
        long long pos = 0, w = 0;
        for (long long i = 0; i < a; i++) {
          if (pos >= b || flat[pos] < 0 || flat[pos] > b - pos - 1) {
            rc = sim_fail(st, SIM_ERR_MESH, "%s:%d: cell %lld runs past the CELLS size %lld", path,
                          cells_line, i, b);
            break;
          }
          long long n = flat[pos];
          off[i] = w;
          for (long long j = 0; j < n; j++) flat[w++] = flat[pos + 1 + j];
          pos += n + 1;
        }
        if (rc) break;
        if (pos != b) {
          rc = sim_fail(st, SIM_ERR_MESH, "%s:%d: expected CELLS size %lld, the cells use %lld",
                        path, cells_line, b, pos);
          break;
        }
        off[a] = w;
      }
    } else if (is_tok(tok, tl, "CELL_TYPES")) {
      types_line = v.c.line;
      if (types) {
        rc = sim_mesh_fail(&v.c, st, "expected one CELL_TYPES section, found a second");
      } else if (!(rc = sim_mesh_read_long(&v.c, &ntypes, "cell type count", st))) {
        if (ntypes < 0 || ntypes > cap) {
          rc = sim_mesh_fail(&v.c, st, "cell type count %lld out of range", ntypes);
        } else if (!(types = SIM_NEW(long long, ntypes > 0 ? ntypes : 1))) {
          rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
        } else {
          rc = read_ints(&v, ntypes, 4, 0, types, "cell types", st);
        }
      }
    } else if (is_tok(tok, tl, "FIELD")) {
      rc = skip_field(&v, st);
    } else if (is_tok(tok, tl, "METADATA")) {
      sim_mesh_skip_line(&v.c); /* up to and including the next empty line */
      while (v.c.p < v.c.end && !sim_mesh_at_eol(&v.c)) sim_mesh_skip_line(&v.c);
    } else if (is_tok(tok, tl, "POINT_DATA") || is_tok(tok, tl, "CELL_DATA")) {
      break; /* attributes are not needed */
    } else {
      rc = bad_tok(&v, tok, tl, "POINTS, CELLS or CELL_TYPES", st);
    }
  }
  if (rc == SIM_OK && (!x || !off || !types))
    rc = sim_fail(st, SIM_ERR_MESH,
                  "%s: expected POINTS, CELLS and CELL_TYPES sections, "
                  "missing %s",
                  path,
                  !x     ? "POINTS"
                  : !off ? "CELLS"
                         : "CELL_TYPES");
  if (rc == SIM_OK && ncell != ntypes)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: expected %lld CELL_TYPES (one per cell), found %lld", path,
                  ncell, ntypes);
  if (rc == SIM_OK) {
    out->x = x;
    out->nv = npts;
    x = NULL;
    rc = collect_tets(&v, cells_line, types_line, ncell, off, conn, types, npts, out, st);
  }
  if (rc == SIM_OK) rc = sim_tetmesh_compact(out, st);
  sim_free(buf);
  sim_free(x);
  sim_free(off);
  sim_free(conn);
  sim_free(types);
  if (rc) sim_tetmesh_free(out);
  return rc;
}
