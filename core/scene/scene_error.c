/* SPDX-License-Identifier: MIT */
/* Scene error messages: JSON paths, "FILE:LINE:COL: PATH: what" or "--set X: PATH: what". */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_private.h"

void scene_push_key(scene_ctx *c, const char *key) {
  if (c->path.n < SCENE_PATH_DEPTH) {
    scene_seg *s = &c->path.seg[c->path.n];
    s->key = key;
    s->index = -1;
    s->occ = 0;
  }
  c->path.n++;
}

void scene_push_index(scene_ctx *c, int index) {
  if (c->path.n < SCENE_PATH_DEPTH) {
    scene_seg *s = &c->path.seg[c->path.n];
    s->key = NULL;
    s->index = index;
    s->occ = 0;
  }
  c->path.n++;
}

void scene_pop(scene_ctx *c) {
  if (c->path.n > 0) c->path.n--;
}

void scene_quote(const char *s, char *buf, size_t cap) {
  size_t n = 0, limit = cap > 4 ? cap - 4 : 0;
  for (; *s && n < limit; s++) buf[n++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
  if (*s && cap >= 4) {
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n < cap ? n : cap - 1] = '\0';
}

void scene_path_format(const scene_path *p, char *buf, size_t cap) {
  size_t len = 0;
  int n = p->n < SCENE_PATH_DEPTH ? p->n : SCENE_PATH_DEPTH;
  buf[0] = '\0';
  for (int i = 0; i < n && len + 1 < cap; i++) {
    char part[96];
    if (p->seg[i].key)
      scene_quote(p->seg[i].key, part, sizeof part);
    else
      snprintf(part, sizeof part, "%d", p->seg[i].index);
    int w = snprintf(buf + len, cap - len, "%s%s", i ? "." : "", part);
    if (w < 0) break;
    len += (size_t)w;
  }
  if (len >= cap) buf[cap - 1] = '\0';
}

void scene_fmt_num(double v, char buf[40]) {
  snprintf(buf, 40, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, 40, "%.17g", v);
}

/* Whether the steps of `pre` begin the steps of `p`. */
static int path_prefix(const scene_path *pre, const scene_path *p) {
  if (pre->n > p->n || pre->n > SCENE_PATH_DEPTH) return 0;
  for (int i = 0; i < pre->n; i++) {
    const scene_seg *a = &pre->seg[i], *b = &p->seg[i];
    if ((a->key == NULL) != (b->key == NULL)) return 0;
    if (a->key ? strcmp(a->key, b->key) != 0 : a->index != b->index) return 0;
  }
  return 1;
}

/* The last override that set the value at p (its path is a prefix of p), or -1. */
static int override_for(const scene_ctx *c, const scene_path *p) {
  for (int k = c->novr - 1; k >= 0; k--)
    if (path_prefix(&c->ovr[k].path, p)) return k;
  return -1;
}

/* The last override below p (p is a prefix of its path): it created p, or -1. */
static int override_below(const scene_ctx *c, const scene_path *p) {
  for (int k = c->novr - 1; k >= 0; k--)
    if (path_prefix(p, &c->ovr[k].path)) return k;
  return -1;
}

/* The last override that set an element of the array at p (its path is p and an index), or
   -1: `--set gravity.3=1` made the array the check refuses, whatever the file says. */
static int override_element(const scene_ctx *c, const scene_path *p) {
  for (int k = c->novr - 1; k >= 0; k--) {
    const scene_path *q = &c->ovr[k].path;
    if (q->n == p->n + 1 && q->seg[p->n].key == NULL && path_prefix(p, q)) return k;
  }
  return -1;
}

/* The override that took `key` away below the current path (a --set PATH.key=null), or -1. */
static int override_removed(const scene_ctx *c, const char *key) {
  if (c->path.n >= SCENE_PATH_DEPTH) return -1;
  scene_path p = c->path;
  p.seg[p.n].key = key;
  p.seg[p.n].index = -1;
  p.seg[p.n].occ = 0;
  p.n++;
  for (int k = c->novr - 1; k >= 0; k--)
    if (c->ovr[k].path.n == p.n && path_prefix(&c->ovr[k].path, &p)) return k;
  return -1;
}

int scene_given(const scene_ctx *c, const char *key) {
  scene_path p = c->path;
  if (p.n >= SCENE_PATH_DEPTH) return 0;
  p.seg[p.n].key = key;
  p.seg[p.n].index = -1;
  p.seg[p.n].occ = 0;
  p.n++;
  if (override_for(c, &p) >= 0) return 1;
  if (!c->text) return 0;
  int matched = 0;
  scene_json_locate(c->text, &p, 0, &matched);
  return matched == p.n;
}

/* The failure `what` at the current path, named after override k where k >= 0 (else after
   the override that set or created the path, else after its place in the text). */
static int fail_at(scene_ctx *c, int at_key, int k, const char *what) {
  char path[320];
  scene_path_format(&c->path, path, sizeof path);
  if (k < 0) k = override_for(c, &c->path);
  if (k < 0 && c->path.n > 0) k = override_element(c, &c->path);
  int matched = 0;
  size_t off = 0;
  if (k < 0 && c->text) {
    off = scene_json_locate(c->text, &c->path, at_key, &matched);
    if (matched < c->path.n) k = override_below(c, &c->path); /* created by an override */
  }
  if (k >= 0) {
    char ov[320];
    scene_quote(c->ovr[k].text, ov, sizeof ov);
    if (path[0]) return sim_fail(c->st, SIM_ERR_SCENE, "--set %s: %s: %s", ov, path, what);
    return sim_fail(c->st, SIM_ERR_SCENE, "--set %s: %s", ov, what);
  }
  if (c->text) {
    int line = 1, col = 1;
    scene_line_col(c->text, off, &line, &col);
    if (path[0])
      return sim_fail(c->st, SIM_ERR_SCENE, "%s:%d:%d: %s: %s", c->file, line, col, path, what);
    return sim_fail(c->st, SIM_ERR_SCENE, "%s:%d:%d: %s", c->file, line, col, what);
  }
  if (path[0]) return sim_fail(c->st, SIM_ERR_SCENE, "%s: %s: %s", c->file, path, what);
  return sim_fail(c->st, SIM_ERR_SCENE, "%s: %s", c->file, what);
}

int scene_fail(scene_ctx *c, int at_key, const char *fmt, ...) {
  if (c->st->code != SIM_OK) return c->st->code;
  char what[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return fail_at(c, at_key, -1, what);
}

int scene_fail_missing(scene_ctx *c, const char *key, const char *fmt, ...) {
  if (c->st->code != SIM_OK) return c->st->code;
  char what[640];
  int n = snprintf(what, sizeof what, "missing required key \"%s\"", key);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof what) vsnprintf(what + n, sizeof what - (size_t)n, fmt, ap);
  va_end(ap);
  return fail_at(c, 0, override_removed(c, key), what);
}

/* Case-insensitive edit distance (insert, delete, substitute), capped key lengths. */
static int levenshtein(const char *a, const char *b) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 63 || lb > 63) return 99;
  int row[64];
  for (int j = 0; j <= lb; j++) row[j] = j;
  for (int i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= lb; j++) {
      int up = row[j];
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int best = diag + cost;
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

static int is_prefix(const char *p, const char *s) {
  size_t n = strlen(p);
  return n >= 2 && strncmp(p, s, n) == 0;
}

const char *scene_suggest(const char *key, const char *const *allowed, int n) {
  const char *best = NULL;
  int best_d = 3;
  for (int i = 0; i < n; i++) {
    int d = levenshtein(key, allowed[i]);
    int la = (int)strlen(key), lb = (int)strlen(allowed[i]);
    int longer = la > lb ? la : lb;
    /* a distance of 2 between two-letter words says nothing */
    if (d <= 2 && d < longer && d < best_d) {
      best = allowed[i];
      best_d = d;
    }
  }
  if (best) return best;
  for (int i = 0; i < n; i++)
    if (is_prefix(key, allowed[i]) || is_prefix(allowed[i], key)) return allowed[i];
  return NULL;
}
