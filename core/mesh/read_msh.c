/* SPDX-License-Identifier: MIT */
/* Gmsh .msh 4.1 ascii reader: $Nodes and $Elements, keeping 4-node tets (type 4), skipping
   elements of dimension 0-2 and refusing other 3D elements. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

typedef struct tag_pair {
  long long tag;
  int index;
} tag_pair;

static int cmp_tag(const void *a, const void *b) {
  long long x = ((const tag_pair *)a)->tag, y = ((const tag_pair *)b)->tag;
  return (x > y) - (x < y);
}

static int is_tok(const char *tok, int len, const char *w) {
  return (size_t)len == strlen(w) && memcmp(tok, w, (size_t)len) == 0;
}

typedef struct msh_state {
  sim_mesh_cursor c;
  tag_pair *tags; /* node tag -> 0-based index, sorted by tag */
  int nv, ntet, cap_tet;
  double *x;
  int *tet;
} msh_state;

static int read_format(msh_state *s, sim_status *st) {
  double version;
  int type, dsize;
  if (sim_mesh_read_double(&s->c, &version, "a format version", st)) return st->code;
  if (version != 4.1)
    return sim_mesh_fail(&s->c, st,
                         "expected MeshFormat version 4.1, found %g (re-export with "
                         "gmsh -format msh41)",
                         version);
  if (sim_mesh_read_int(&s->c, &type, 0, 1, "file-type", st)) return st->code;
  if (type != 0) return sim_mesh_fail(&s->c, st, "expected file-type 0 (ascii), found 1 (binary)");
  if (sim_mesh_read_int(&s->c, &dsize, 1, 16, "data-size", st)) return st->code;
  return sim_mesh_expect(&s->c, "$EndMeshFormat", st);
}

static int read_nodes(msh_state *s, sim_status *st, long long cap) {
  sim_mesh_cursor *c = &s->c;
  int nblocks, nnodes;
  long long mintag, maxtag;
  if (s->x) return sim_mesh_fail(c, st, "expected one $Nodes section, found a second");
  if (sim_mesh_read_int(c, &nblocks, 0, cap, "entity block count", st) ||
      sim_mesh_read_int(c, &nnodes, 1, cap < INT_MAX / 3 ? cap : INT_MAX / 3, "node count", st) ||
      sim_mesh_read_long(c, &mintag, "minimum node tag", st) ||
      sim_mesh_read_long(c, &maxtag, "maximum node tag", st))
    return st->code;
  s->x = SIM_NEW(double, 3 * nnodes);
  s->tags = SIM_NEW(tag_pair, nnodes);
  if (!s->x || !s->tags)
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d nodes", c->path, nnodes);
  int n = 0;
  for (int b = 0; b < nblocks; b++) {
    int dim, param, num;
    long long etag;
    if (sim_mesh_read_int(c, &dim, 0, 3, "entity dimension", st) ||
        sim_mesh_read_long(c, &etag, "entity tag", st) ||
        sim_mesh_read_int(c, &param, 0, 1, "parametric flag", st) ||
        sim_mesh_read_int(c, &num, 0, nnodes - n, "nodes in block", st))
      return st->code;
    for (int i = 0; i < num; i++) {
      if (sim_mesh_read_long(c, &s->tags[n + i].tag, "a node tag", st)) return st->code;
      s->tags[n + i].index = n + i;
    }
    for (int i = 0; i < num; i++) {
      for (int d = 0; d < 3; d++)
        if (sim_mesh_read_double(c, &s->x[3 * (n + i) + d], "a node coordinate", st))
          return st->code;
      for (int d = 0; d < (param ? dim : 0); d++) {
        double u;
        if (sim_mesh_read_double(c, &u, "a parametric coordinate", st)) return st->code;
      }
    }
    n += num;
  }
  if (n != nnodes)
    return sim_mesh_fail(c, st, "expected %d nodes in the $Nodes blocks, found %d", nnodes, n);
  if (sim_mesh_expect(c, "$EndNodes", st)) return st->code;
  qsort(s->tags, (size_t)n, sizeof *s->tags, cmp_tag);
  for (int i = 1; i < n; i++)
    if (s->tags[i].tag == s->tags[i - 1].tag)
      return sim_mesh_fail(c, st, "node tag %lld defined twice in $Nodes", s->tags[i].tag);
  s->nv = n;
  return SIM_OK;
}

/* Name of a 3D Gmsh element type for messages; "" when not one of the common ones. */
static const char *solid_name(int type) {
  switch (type) {
    case 5:
      return " (8-node hexahedron)";
    case 6:
      return " (6-node prism)";
    case 7:
      return " (5-node pyramid)";
    case 11:
      return " (10-node tetrahedron)";
    case 12:
      return " (27-node hexahedron)";
    case 13:
      return " (18-node prism)";
    case 14:
      return " (14-node pyramid)";
    case 17:
      return " (20-node hexahedron)";
    case 18:
      return " (15-node prism)";
    case 19:
      return " (13-node pyramid)";
    default:
      return "";
  }
}

/* A block of 3D elements other than 4-node tets: refused, naming its first element, as
   reading the tets alone would drop part of the body (blocks of lower dimension, such as
   boundary triangles, are skipped). */
static int refuse_solid(sim_mesh_cursor *c, int type, sim_status *st) {
  long long tag;
  if (sim_mesh_read_long(c, &tag, "an element tag", st)) return st->code;
  return sim_mesh_fail(c, st,
                       "element %lld has type %d%s: only linear tetrahedra (type 4) are read "
                       "(elements of dimension 0-2 are skipped)",
                       tag, type, solid_name(type));
}

static int read_elements(msh_state *s, sim_status *st, long long cap) {
  sim_mesh_cursor *c = &s->c;
  int nblocks, nelem;
  long long mintag, maxtag;
  if (!s->x) return sim_mesh_fail(c, st, "expected $Nodes before $Elements");
  if (sim_mesh_read_int(c, &nblocks, 0, cap, "entity block count", st) ||
      sim_mesh_read_int(c, &nelem, 0, cap, "element count", st) ||
      sim_mesh_read_long(c, &mintag, "minimum element tag", st) ||
      sim_mesh_read_long(c, &maxtag, "maximum element tag", st))
    return st->code;
  int seen = 0;
  for (int b = 0; b < nblocks; b++) {
    int dim, type, num;
    long long etag;
    if (sim_mesh_read_int(c, &dim, 0, 3, "entity dimension", st) ||
        sim_mesh_read_long(c, &etag, "entity tag", st) ||
        sim_mesh_read_int(c, &type, 1, 1000, "element type", st) ||
        sim_mesh_read_int(c, &num, 0, nelem - seen, "elements in block", st))
      return st->code;
    seen += num;
    if (dim == 3 && type != 4 && num > 0) return refuse_solid(c, type, st);
    for (int e = 0; e < num; e++) {
      const char *tok;
      int tl;
      if (type != 4) { /* other element types: skip the line */
        if (!sim_mesh_token(c, &tok, &tl))
          return sim_mesh_fail(c, st, "expected an element, found end of file (truncated?)");
        sim_mesh_skip_line(c);
        continue;
      }
      long long tag, nt[4];
      if (sim_mesh_read_long(c, &tag, "an element tag", st)) return st->code;
      if (sim_mesh_grow((void **)&s->tet, &s->cap_tet, 4LL * s->ntet + 4, sizeof *s->tet))
        return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", c->path);
      for (int k = 0; k < 4; k++) {
        if (sim_mesh_read_long(c, &nt[k], "a node tag", st)) return st->code;
        tag_pair key = {nt[k], 0};
        const tag_pair *hit = bsearch(&key, s->tags, (size_t)s->nv, sizeof key, cmp_tag);
        if (!hit)
          return sim_mesh_fail(c, st, "node tag %lld of element %lld is not in $Nodes", nt[k], tag);
        s->tet[4 * s->ntet + k] = hit->index;
      }
      s->ntet++;
      if (!sim_mesh_at_eol(c)) {
        char q[48];
        sim_mesh_token(c, &tok, &tl);
        sim_mesh_quote(q, tok, tl);
        return sim_mesh_fail(c, st, "expected 4 node tags for element %lld (type 4), found '%s'",
                             tag, q);
      }
    }
  }
  if (seen != nelem)
    return sim_mesh_fail(c, st, "expected %d elements in the $Elements blocks, found %d", nelem,
                         seen);
  return sim_mesh_expect(c, "$EndElements", st);
}

/* Skips a section "$Name" up to its "$EndName". */
static int skip_section(msh_state *s, const char *tok, int tl, sim_status *st) {
  char end[80];
  if (tl > 70) tl = 70;
  snprintf(end, sizeof end, "$End%.*s", tl - 1, tok + 1);
  const char *t;
  int l;
  while (sim_mesh_token(&s->c, &t, &l))
    if (is_tok(t, l, end)) return SIM_OK;
  return sim_mesh_fail(&s->c, st, "expected '%s', found end of file (truncated file?)", end);
}

int sim_read_msh(const char *path, sim_tetmesh *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  msh_state s;
  memset(&s, 0, sizeof s);
  sim_mesh_cursor_init(&s.c, path, buf, len, 0);
  const long long cap = (long long)len < INT_MAX ? (long long)len : INT_MAX;
  const char *tok;
  int tl, have_format = 0, have_elems = 0, rc = SIM_OK;
  while (rc == SIM_OK && sim_mesh_token(&s.c, &tok, &tl)) {
    char q[48];
    if (!have_format && !is_tok(tok, tl, "$MeshFormat")) {
      sim_mesh_quote(q, tok, tl);
      rc = sim_mesh_fail(&s.c, st, "expected '$MeshFormat', found '%s'", q);
    } else if (is_tok(tok, tl, "$MeshFormat")) {
      rc = read_format(&s, st);
      have_format = 1;
    } else if (is_tok(tok, tl, "$Nodes")) {
      rc = read_nodes(&s, st, cap);
    } else if (is_tok(tok, tl, "$Elements")) {
      rc = read_elements(&s, st, cap);
      have_elems = 1;
    } else if (tl >= 2 && tok[0] == '$') {
      rc = skip_section(&s, tok, tl, st);
    } else {
      sim_mesh_quote(q, tok, tl);
      rc = sim_mesh_fail(&s.c, st, "expected a section such as '$Nodes', found '%s'", q);
    }
  }
  if (rc == SIM_OK && !have_format)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: expected '$MeshFormat', found an empty file", path);
  if (rc == SIM_OK && !have_elems)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: expected an $Elements section, found none", path);
  if (rc == SIM_OK && s.ntet == 0)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: no tetrahedra (expected elements of type 4)", path);
  sim_free(buf);
  sim_free(s.tags);
  out->nv = s.nv;
  out->ntet = s.ntet;
  out->x = s.x;
  out->tet = s.tet;
  if (rc == SIM_OK) rc = sim_tetmesh_compact(out, st); /* nodes of skipped elements */
  if (rc) sim_tetmesh_free(out);
  return rc;
}
