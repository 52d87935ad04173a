/* SPDX-License-Identifier: MIT */
/* STL reader, ascii or binary (size = 84 + 50 n); duplicate corners merged exactly. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "../base/alloc.h"
#include "mesh.h"

/* Open-addressing map from exact coordinates to a vertex index. */
typedef struct vmap {
  int *slot; /* vertex index + 1; 0 = empty */
  size_t mask;
  double *x;
  int nv, capx;
} vmap;

static uint64_t hash3(const double p[3]) {
  uint64_t h = 1469598103934665603ull;
  for (int d = 0; d < 3; d++) {
    double v = p[d] == 0 ? 0.0 : p[d]; /* -0 and +0 are the same point */
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    h ^= b;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h;
}

static int vmap_rehash(vmap *m, size_t cap) {
  int *slot = SIM_NEW0(int, cap);
  if (!slot) return -1;
  for (int i = 0; i < m->nv; i++) {
    size_t j = (size_t)hash3(m->x + 3 * i) & (cap - 1);
    while (slot[j]) j = (j + 1) & (cap - 1);
    slot[j] = i + 1;
  }
  sim_free(m->slot);
  m->slot = slot;
  m->mask = cap - 1;
  return 0;
}

/* Index of point p, appending it when new; -1 when out of memory. */
static int vmap_get(vmap *m, const double p[3]) {
  if (!m->slot || (size_t)m->nv * 2 >= m->mask) {
    if (vmap_rehash(m, m->slot ? (m->mask + 1) * 2 : 1024)) return -1;
  }
  size_t j = (size_t)hash3(p) & m->mask;
  while (m->slot[j]) {
    const double *q = m->x + 3 * (m->slot[j] - 1);
    if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) return m->slot[j] - 1;
    j = (j + 1) & m->mask;
  }
  if (m->nv >= INT_MAX / 3 ||
      sim_mesh_grow((void **)&m->x, &m->capx, 3LL * m->nv + 3, sizeof *m->x))
    return -1;
  memcpy(m->x + 3 * m->nv, p, 3 * sizeof *p);
  m->slot[j] = m->nv + 1;
  return m->nv++;
}

static uint32_t le32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int read_binary(const char *path, const unsigned char *b, uint32_t n, vmap *m, int *tri,
                       sim_status *st) {
  for (uint32_t t = 0; t < n; t++) {
    const unsigned char *rec = b + 84 + 50 * (size_t)t;
    for (int k = 0; k < 3; k++) {
      double p[3];
      for (int d = 0; d < 3; d++) {
        uint32_t u = le32(rec + 12 + 12 * k + 4 * d);
        float f;
        memcpy(&f, &u, sizeof f);
        if (!isfinite(f))
          return sim_fail(st, SIM_ERR_MESH,
                          "%s: triangle %u corner %d: expected a finite coordinate, found %g", path,
                          (unsigned)t, k, (double)f);
        p[d] = f;
      }
      int v = vmap_get(m, p);
      if (v < 0) return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", path);
      tri[3 * t + k] = v;
    }
  }
  return SIM_OK;
}

/* STL keywords are lower case by the format, but some exporters write them in upper case. */
static int is_kw(const char *tok, int len, const char *kw) {
  return (size_t)len == strlen(kw) && strncasecmp(tok, kw, (size_t)len) == 0;
}

/* sim_mesh_expect, ignoring case. */
static int expect_kw(sim_mesh_cursor *c, const char *kw, sim_status *st) {
  sim_mesh_cursor at = *c;
  const char *tok;
  int len;
  if (sim_mesh_token(c, &tok, &len) && is_kw(tok, len, kw)) return SIM_OK;
  *c = at;
  return sim_mesh_expect(c, kw, st); /* fails, with its usual message */
}

static int read_ascii(sim_mesh_cursor *c, vmap *m, int **tri, int *nt, sim_status *st) {
  int cap = 0;
  const char *tok;
  int tl, nsolid = 0;
  for (;;) {
    if (!sim_mesh_token(c, &tok, &tl)) {
      if (nsolid == 0) return sim_mesh_fail(c, st, "expected 'solid', found end of file");
      return SIM_OK;
    }
    if (!is_kw(tok, tl, "solid")) {
      char q[48];
      sim_mesh_quote(q, tok, tl);
      return sim_mesh_fail(c, st, "expected 'solid', found '%s'", q);
    }
    nsolid++;
    sim_mesh_skip_line(c); /* solid name */
    for (;;) {
      if (!sim_mesh_token(c, &tok, &tl))
        return sim_mesh_fail(c, st,
                             "expected 'facet' or 'endsolid', found end of file "
                             "(truncated file?)");
      if (is_kw(tok, tl, "endsolid")) {
        sim_mesh_skip_line(c);
        break;
      }
      if (!is_kw(tok, tl, "facet")) {
        char q[48];
        sim_mesh_quote(q, tok, tl);
        return sim_mesh_fail(c, st, "expected 'facet' or 'endsolid', found '%s'", q);
      }
      double nrm[3];
      if (expect_kw(c, "normal", st)) return st->code;
      for (int d = 0; d < 3; d++)
        if (sim_mesh_read_double(c, &nrm[d], "a normal component", st)) return st->code;
      if (expect_kw(c, "outer", st) || expect_kw(c, "loop", st)) return st->code;
      if (*nt >= INT_MAX / 3 || sim_mesh_grow((void **)tri, &cap, 3LL * *nt + 3, sizeof **tri))
        return sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", c->path, c->line);
      for (int k = 0; k < 3; k++) {
        double p[3];
        if (expect_kw(c, "vertex", st)) return st->code;
        for (int d = 0; d < 3; d++)
          if (sim_mesh_read_double(c, &p[d], "a vertex coordinate", st)) return st->code;
        int v = vmap_get(m, p);
        if (v < 0) return sim_fail(st, SIM_ERR_MEMORY, "%s:%d: out of memory", c->path, c->line);
        (*tri)[3 * *nt + k] = v;
      }
      if (expect_kw(c, "endloop", st) || expect_kw(c, "endfacet", st)) return st->code;
      (*nt)++;
    }
  }
}

/* Start of the text after a UTF-8 byte order mark and white space. */
static const char *text_start(const char *buf, size_t len) {
  const char *p = buf + sim_mesh_bom_len(buf, len), *end = buf + len;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p;
}

static int starts_solid(const char *buf, size_t len) {
  const char *p = text_start(buf, len);
  return buf + len - p >= 5 && strncasecmp(p, "solid", 5) == 0;
}

/* A file of the wrong size for a binary STL with no NUL byte in what would be its 80-byte
   header is text, so an ascii STL with its first word wrong, not a truncated binary one. */
static int not_solid(const char *path, const char *buf, size_t len, sim_status *st) {
  sim_mesh_cursor c;
  const char *tok;
  int tl;
  char q[48];
  sim_mesh_cursor_init(&c, path, buf, len, 0);
  if (!sim_mesh_token(&c, &tok, &tl))
    return sim_fail(st, SIM_ERR_MESH, "%s: empty file (expected an STL)", path);
  sim_mesh_quote(q, tok, tl);
  return sim_mesh_fail(&c, st,
                       "expected 'solid' at the start of an ascii STL, found '%s' (nor is it a "
                       "binary STL: %zu bytes is not 84 + 50 * n)",
                       q, len);
}

int sim_read_stl(const char *path, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  vmap m = {0};
  int *tri = NULL, nt = 0, rc;
  const unsigned char *b = (const unsigned char *)buf;
  uint32_t n = len >= 84 ? le32(b + 80) : 0;
  if (len >= 84 && (uint64_t)len == 84 + 50 * (uint64_t)n) {
    if (n == 0 || n > INT_MAX / 3) {
      rc = sim_fail(st, SIM_ERR_MESH, "%s: binary STL: expected 1..%d triangles, found %u", path,
                    INT_MAX / 3, (unsigned)n);
    } else if (!(tri = SIM_NEW(int, 3 * (size_t)n))) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %u triangles", path, (unsigned)n);
    } else {
      rc = read_binary(path, b, n, &m, tri, st);
      nt = (int)n;
    }
  } else if (starts_solid(buf, len) && memchr(buf, '\0', len) == NULL) {
    sim_mesh_cursor c;
    sim_mesh_cursor_init(&c, path, buf, len, 0);
    rc = read_ascii(&c, &m, &tri, &nt, st);
    if (rc == SIM_OK && nt == 0)
      rc = sim_fail(st, SIM_ERR_MESH, "%s: no facets (expected 'facet normal' blocks)", path);
  } else if (memchr(buf, '\0', len < 80 ? len : 80) == NULL) {
    rc = not_solid(path, buf, len, st);
  } else if (len >= 84) {
    rc = sim_fail(st, SIM_ERR_MESH,
                  "%s: expected an ascii STL ('solid ...') or a binary STL of 84 + 50 * %u = "
                  "%llu bytes, found %zu bytes (truncated file?)",
                  path, (unsigned)n, 84 + 50 * (unsigned long long)n, len);
  } else {
    rc = sim_fail(st, SIM_ERR_MESH,
                  "%s: expected an ascii STL ('solid ...') or a binary STL (>= 84 bytes), found "
                  "%zu bytes",
                  path, len);
  }
  sim_free(buf);
  sim_free(m.slot);
  if (rc) {
    sim_free(m.x);
    sim_free(tri);
    return rc;
  }
  out->nv = m.nv;
  out->nt = nt;
  out->x = m.x;
  out->tri = tri;
  return SIM_OK;
}
