/* SPDX-License-Identifier: MIT */
/* Frames' state files (state_file.h): written and read back field by field. */
#include "state_file.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../io/output.h"

static const char magic[] = "simctl state 1\n";
enum { MAGIC_LEN = sizeof magic - 1, HEAD = MAGIC_LEN + 4 + 16 + 16 + 8 * SIM_STATE_FIGURES };
enum { CONTACT_BYTES = 6 * 4 + 21 * 8 + 1 };

/* A cursor over a byte buffer: writes fill it, reads fail past its end. */
typedef struct cursor {
  unsigned char *b;
  size_t at, len;
} cursor;

static void put(cursor *c, const void *p, size_t n) {
  memcpy(c->b + c->at, p, n);
  c->at += n;
}
static int get(cursor *c, void *p, size_t n) {
  if (c->len - c->at < n) return -1;
  memcpy(p, c->b + c->at, n);
  c->at += n;
  return 0;
}

static uint64_t fnv1a(const unsigned char *b, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static size_t file_bytes(int n, int nc, int contact) {
  if (!contact) return HEAD + 8;
  return HEAD + 8 + 24 * (size_t)n + (CONTACT_BYTES + 24) * (size_t)nc + 8;
}

/* One contact's fields, written (dir 0) or read (dir 1). */
static int contact_io(cursor *c, sim_contact *e, unsigned char *at_start, int dir) {
  int32_t i[6] = {(int32_t)e->kind, e->v, e->source, e->tri[0], e->tri[1], e->tri[2]};
  double *d[] = {e->w, e->n, e->t1, e->t2, e->p, e->u};
  if (!dir) {
    put(c, i, sizeof i);
    for (int k = 0; k < 6; k++) put(c, d[k], 3 * sizeof(double));
    put(c, &e->gap, 8), put(c, &e->mu, 8), put(c, &e->compliance, 8);
    put(c, at_start, 1);
    return 0;
  }
  int bad = get(c, i, sizeof i);
  memset(e, 0, sizeof *e);
  for (int k = 0; k < 6 && !bad; k++) bad = get(c, d[k], 3 * sizeof(double));
  if (!bad) bad = get(c, &e->gap, 8) || get(c, &e->mu, 8) || get(c, &e->compliance, 8);
  if (!bad) bad = get(c, at_start, 1);
  e->kind = (sim_contact_kind)i[0], e->v = i[1], e->source = i[2];
  for (int k = 0; k < 3; k++) e->tri[k] = i[3 + k];
  return bad;
}

int sim_state_file_write(const char *path, const sim_model *m, int frame, double t,
                         const sim_step_state *s, const double *figures, sim_status *st) {
  const int n = s ? s->n : m->n, nc = s ? s->nc : 0;
  const size_t bytes = file_bytes(n, nc, s != NULL);
  cursor c = {sim_malloc(bytes), 0, bytes};
  if (!c.b) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%s)", path);
  const uint32_t order = 0x01020304u;
  const int32_t head[4] = {frame, n, nc, s != NULL};
  put(&c, magic, MAGIC_LEN);
  put(&c, &order, 4);
  put(&c, head, sizeof head);
  put(&c, &t, 8), put(&c, &m->h, 8);
  put(&c, figures, 8 * SIM_STATE_FIGURES);
  if (s) {
    const int64_t stray = s->stray_creases;
    put(&c, &stray, 8);
    put(&c, s->x_prev, 24 * (size_t)n);
    for (int j = 0; j < nc; j++) contact_io(&c, &s->c[j], &s->at_start[j], 0);
    put(&c, s->lam, 24 * (size_t)nc);
  }
  const uint64_t sum = fnv1a(c.b, c.at);
  put(&c, &sum, 8);
  int rc = sim_write_file_atomic(path, c.b, c.at, st);
  sim_free(c.b);
  return rc;
}

/* The header's checks, then the body into fig and *s. */
static int parse(const char *path, cursor *c, const sim_model *m, int frame, double t, int contact,
                 sim_step_state *s, double *fig, sim_status *st) {
  char mg[MAGIC_LEN];
  uint32_t order = 0;
  int32_t head[4] = {0};
  double tf = 0, h = 0;
  if (get(c, mg, MAGIC_LEN) || memcmp(mg, magic, MAGIC_LEN) != 0)
    return sim_fail(st, SIM_ERR_IO, "%s: expected a simctl state file (\"simctl state 1\")", path);
  if (get(c, &order, 4) || order != 0x01020304u)
    return sim_fail(st, SIM_ERR_IO, "%s: written in another byte order", path);
  if (get(c, head, sizeof head) || get(c, &tf, 8) || get(c, &h, 8) || head[1] < 0 || head[2] < 0 ||
      (head[3] != 0 && head[3] != 1) || c->len != file_bytes(head[1], head[2], head[3]))
    return sim_fail(st, SIM_ERR_IO, "%s: cut short or lengthened (%zu bytes)", path, c->len);
  uint64_t sum;
  memcpy(&sum, c->b + c->len - 8, 8);
  if (sum != fnv1a(c->b, c->len - 8))
    return sim_fail(st, SIM_ERR_IO, "%s: changed since it was written (its checksum differs)",
                    path);
  if (head[0] != frame || tf != t || h != m->h || head[1] != m->n || head[3] != contact)
    return sim_fail(st, SIM_ERR_IO,
                    "%s: the state of frame %d at %.17g s of %d vertices %s contact, time step "
                    "%.17g; expected frame %d at %.17g s of %d %s, time step %.17g (remove it to "
                    "go on from the VTK frame alone, not exactly)",
                    path, head[0], tf, head[1], head[3] ? "with" : "without", h, frame, t, m->n,
                    contact ? "with" : "without", m->h);
  get(c, fig, 8 * SIM_STATE_FIGURES);
  for (int k = 0; k < SIM_STATE_FIGURES; k++)
    if (isnan(fig[k])) return sim_fail(st, SIM_ERR_IO, "%s: figure %d is not a number", path, k);
  if (!contact) return SIM_OK;
  int rc = sim_step_state_alloc(s, head[1], head[2], st);
  if (rc) return rc;
  int64_t stray = 0;
  get(c, &stray, 8);
  s->stray_creases = stray;
  get(c, s->x_prev, 24 * (size_t)s->n);
  for (int j = 0; j < s->nc; j++) contact_io(c, &s->c[j], &s->at_start[j], 1);
  get(c, s->lam, 24 * (size_t)s->nc);
  for (size_t i = 0; i < 3 * (size_t)s->n; i++)
    if (!isfinite(s->x_prev[i]))
      return sim_fail(st, SIM_ERR_IO, "%s: previous position %zu is not finite", path, i);
  for (size_t i = 0; i < 3 * (size_t)s->nc; i++)
    if (!isfinite(s->lam[i]))
      return sim_fail(st, SIM_ERR_IO, "%s: multiplier %zu is not finite", path, i);
  rc = sim_world_memory_check(m, s->c, s->nc, st);
  if (rc) sim_status_prefix(st, path);
  return rc;
}

int sim_state_file_read(const char *path, const sim_model *m, int frame, double t, int contact,
                        sim_step_state *s, double *figures, sim_status *st) {
  memset(s, 0, sizeof *s);
  char *b;
  size_t len = 0;
  int rc = sim_read_file(path, 0, &b, &len, st);
  cursor c = {(unsigned char *)b, 0, len};
  if (!rc) rc = parse(path, &c, m, frame, t, contact, s, figures, st);
  sim_free(c.b);
  if (rc) sim_step_state_free(s);
  return rc;
}
