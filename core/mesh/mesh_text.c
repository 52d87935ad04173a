/* SPDX-License-Identifier: MIT */
/* Text scanning for the mesh readers: whole-file load, tokens with line numbers, numbers; the
   surface readers' polygon fan and hand-over. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "mesh.h"

/* What a non-regular file is, for the message. */
static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

/* Opens PATH for reading only when it is a regular file: O_NONBLOCK keeps open() from waiting
   for a FIFO's writer, and a device such as /dev/zero would never end. */
static FILE *open_regular(const char *path, sim_status *st) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    sim_fail(st, SIM_ERR_MESH, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  struct stat sb;
  int bad = fstat(fd, &sb) != 0 ? errno : 0;
  if (bad || !S_ISREG(sb.st_mode)) {
    if (bad)
      sim_fail(st, SIM_ERR_MESH, "%s: cannot open: %s", path, strerror(bad));
    else
      sim_fail(st, SIM_ERR_MESH, "%s: not a regular file (%s); expected a mesh file", path,
               file_kind(sb.st_mode));
    close(fd);
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    sim_fail(st, SIM_ERR_MESH, "%s: cannot open: %s", path, strerror(errno));
    close(fd);
  }
  return f;
}

int sim_mesh_load_file(const char *path, char **buf, size_t *len, sim_status *st) {
  *buf = NULL;
  *len = 0;
  FILE *f = open_regular(path, st);
  if (!f) return st->code;
  size_t cap = 1 << 16, n = 0;
  char *b = sim_malloc(cap);
  if (!b) {
    fclose(f);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory reading the file", path);
  }
  for (;;) {
    if (n + 1 >= cap) {
      char *nb = cap < SIZE_MAX / 2 ? sim_realloc(b, cap * 2) : NULL;
      if (!nb) {
        sim_free(b);
        fclose(f);
        return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory reading the file", path);
      }
      b = nb;
      cap *= 2;
    }
    size_t got = fread(b + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  int e = errno;
  fclose(f);
  if (bad) {
    sim_free(b);
    return sim_fail(st, SIM_ERR_MESH, "%s: cannot read: %s", path, strerror(e));
  }
  b[n] = '\0';
  *buf = b;
  *len = n;
  return SIM_OK;
}

size_t sim_mesh_bom_len(const char *buf, size_t len) {
  return len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

void sim_mesh_cursor_init(sim_mesh_cursor *c, const char *path, const char *buf, size_t len,
                          char comment) {
  c->path = path;
  c->p = buf + sim_mesh_bom_len(buf, len);
  c->end = buf + len;
  c->line = 1;
  c->comment = comment;
}

static int is_blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Skips whitespace and comments across lines. */
static void skip_space(sim_mesh_cursor *c) {
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '\n') {
      c->line++;
      c->p++;
    } else if (is_blank(ch)) {
      c->p++;
    } else if (c->comment && ch == c->comment) {
      while (c->p < c->end && *c->p != '\n') c->p++;
    } else {
      break;
    }
  }
}

int sim_mesh_token(sim_mesh_cursor *c, const char **tok, int *len) {
  skip_space(c);
  if (c->p >= c->end) {
    *tok = c->p;
    *len = 0;
    return 0;
  }
  const char *s = c->p;
  while (c->p < c->end && *c->p != '\n' && !is_blank(*c->p) &&
         !(c->comment && *c->p == c->comment) && c->p - s < INT_MAX)
    c->p++;
  *tok = s;
  *len = (int)(c->p - s);
  return 1;
}

int sim_mesh_at_eol(sim_mesh_cursor *c) {
  while (c->p < c->end && is_blank(*c->p)) c->p++;
  if (c->p < c->end && c->comment && *c->p == c->comment)
    while (c->p < c->end && *c->p != '\n') c->p++;
  return c->p >= c->end || *c->p == '\n';
}

int sim_mesh_fields(sim_mesh_cursor *c, int k, int n, const char *what, sim_status *st) {
  if (!sim_mesh_at_eol(c) || c->p >= c->end) return SIM_OK;
  return sim_mesh_fail(c, st, "expected %d %s, found %d", n, what, k);
}

int sim_mesh_expect_end(sim_mesh_cursor *c, int n, const char *what, sim_status *st) {
  const char *tok;
  int len;
  if (!sim_mesh_token(c, &tok, &len)) return SIM_OK;
  char q[48];
  sim_mesh_quote(q, tok, len);
  return sim_mesh_fail(c, st, "expected end of file after %d %s (the header's count), found '%s'",
                       n, what, q);
}

void sim_mesh_skip_line(sim_mesh_cursor *c) {
  while (c->p < c->end && *c->p != '\n') c->p++;
  if (c->p < c->end) {
    c->p++;
    c->line++;
  }
}

int sim_mesh_fail(const sim_mesh_cursor *c, sim_status *st, const char *fmt, ...) {
  char what[SIM_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return sim_fail(st, SIM_ERR_MESH, "%s:%d: %s", c->path, c->line, what);
}

void sim_mesh_quote(char out[48], const char *tok, int len) {
  int n = len < 40 ? len : 40, k = 0;
  for (int i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)tok[i];
    out[k++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
  }
  if (len > n) {
    out[k++] = '.';
    out[k++] = '.';
    out[k++] = '.';
  }
  out[k] = '\0';
}

/* Fetches the next token or fails with "expected WHAT, found end of file". */
static int need_token(sim_mesh_cursor *c, const char **tok, int *len, const char *what,
                      sim_status *st) {
  if (sim_mesh_token(c, tok, len)) return SIM_OK;
  sim_mesh_cursor last = *c; /* name the last line, not the empty one after its newline */
  if (last.line > 1 && last.end[-1] == '\n') last.line--;
  return sim_mesh_fail(&last, st, "expected %s, found end of file (truncated file?)", what);
}

static int bad_token(sim_mesh_cursor *c, const char *tok, int len, const char *what,
                     sim_status *st) {
  char q[48];
  sim_mesh_quote(q, tok, len);
  return sim_mesh_fail(c, st, "expected %s, found '%s'", what, q);
}

int sim_mesh_read_double(sim_mesh_cursor *c, double *v, const char *what, sim_status *st) {
  const char *tok;
  int len;
  if (need_token(c, &tok, &len, what, st)) return st->code;
  char buf[80];
  if (len >= (int)sizeof buf) return bad_token(c, tok, len, what, st);
  memcpy(buf, tok, (size_t)len);
  buf[len] = '\0';
  char *endp;
  errno = 0;
  double d = strtod(buf, &endp);
  if (endp != buf + len || len == 0 || !isfinite(d)) return bad_token(c, tok, len, what, st);
  *v = d;
  return SIM_OK;
}

int sim_mesh_read_long(sim_mesh_cursor *c, long long *v, const char *what, sim_status *st) {
  const char *tok;
  int len;
  if (need_token(c, &tok, &len, what, st)) return st->code;
  char buf[32];
  if (len >= (int)sizeof buf) return bad_token(c, tok, len, what, st);
  memcpy(buf, tok, (size_t)len);
  buf[len] = '\0';
  char *endp;
  errno = 0;
  long long x = strtoll(buf, &endp, 10);
  if (endp != buf + len || len == 0 || errno == ERANGE) return bad_token(c, tok, len, what, st);
  *v = x;
  return SIM_OK;
}

int sim_mesh_read_int(sim_mesh_cursor *c, int *v, long long lo, long long hi, const char *what,
                      sim_status *st) {
  long long x = 0;
  if (sim_mesh_read_long(c, &x, what, st)) return st->code;
  if (x < lo || x > hi)
    return sim_mesh_fail(c, st, "%s %lld out of range (expected %lld..%lld)", what, x, lo, hi);
  *v = (int)x;
  return SIM_OK;
}

int sim_mesh_expect(sim_mesh_cursor *c, const char *word, sim_status *st) {
  const char *tok;
  int len;
  char what[64];
  snprintf(what, sizeof what, "'%s'", word);
  if (need_token(c, &tok, &len, what, st)) return st->code;
  if ((size_t)len != strlen(word) || memcmp(tok, word, (size_t)len) != 0)
    return bad_token(c, tok, len, what, st);
  return SIM_OK;
}

int sim_mesh_grow(void **p, int *cap, long long need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > INT_MAX) return -1;
  long long ncap = *cap > 0 ? *cap : 16;
  while (ncap < need) ncap *= 2;
  if (ncap > INT_MAX) ncap = INT_MAX;
  if ((unsigned long long)ncap > SIZE_MAX / elem) return -1;
  void *q = sim_realloc(*p, (size_t)ncap * elem);
  if (!q) return -1;
  *p = q;
  *cap = (int)ncap;
  return 0;
}

void sim_mesh_fan(const int *poly, int np, int *tri, int *nt) {
  for (int k = 1; k + 1 < np; k++, (*nt)++) {
    tri[3 * *nt] = poly[0];
    tri[3 * *nt + 1] = poly[k];
    tri[3 * *nt + 2] = poly[k + 1];
  }
}

int sim_mesh_surface_done(int rc, int nv, double *x, int nt, int *tri, sim_surface *out) {
  if (rc) {
    sim_free(x);
    sim_free(tri);
    return rc;
  }
  out->nv = nv, out->nt = nt, out->x = x, out->tri = tri;
  return SIM_OK;
}
