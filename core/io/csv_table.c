/* SPDX-License-Identifier: MIT */
/* Growable CSV tables (timing.csv, memory.csv) kept as text and written atomically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "output.h"

struct sim_csv {
  int ncols, nrows;
  unsigned long long exact; /* bit c: column c printed so that it reads back to the bit */
  char *text; /* header and rows, NUL-terminated */
  size_t len, cap;
};

static int csv_reserve(sim_csv *t, size_t extra, sim_status *st) {
  if (t->len + extra + 1 <= t->cap) return SIM_OK;
  size_t cap = t->cap ? t->cap : 256;
  while (cap < t->len + extra + 1) cap *= 2;
  char *p = sim_realloc(t->text, cap);
  if (!p) return sim_fail(st, SIM_ERR_MEMORY, "CSV table: out of memory (%zu bytes)", cap);
  t->text = p;
  t->cap = cap;
  return SIM_OK;
}

static int csv_append(sim_csv *t, const char *s, size_t n, sim_status *st) {
  int rc = csv_reserve(t, n, st);
  if (rc) return rc;
  memcpy(t->text + t->len, s, n);
  t->len += n;
  t->text[t->len] = '\0';
  return SIM_OK;
}

sim_csv *sim_csv_create(const char *header, sim_status *st) {
  if (!header || !header[0] || strpbrk(header, "\r\n")) {
    sim_fail(st, SIM_ERR_INTERNAL, "CSV table: header must be one non-empty line");
    return NULL;
  }
  sim_csv *t = SIM_NEW0(sim_csv, 1);
  if (!t) {
    sim_fail(st, SIM_ERR_MEMORY, "CSV table: out of memory");
    return NULL;
  }
  t->ncols = 1;
  for (const char *p = header; *p; p++) t->ncols += *p == ',';
  if (csv_append(t, header, strlen(header), st) || csv_append(t, "\n", 1, st)) {
    sim_csv_destroy(t);
    return NULL;
  }
  return t;
}

static int check_row(const sim_csv *t, int n, sim_status *st) {
  if (!t) return sim_fail(st, SIM_ERR_INTERNAL, "CSV table is NULL");
  if (n != t->ncols)
    return sim_fail(st, SIM_ERR_INTERNAL, "CSV table: row %d has %d fields, header has %d",
                    t->nrows + 1, n, t->ncols);
  return SIM_OK;
}

/* A field: a whole number as one (a count of a million or a frame number past 999,999 would
   read back rounded from 6 digits), an exact column to the bit (a time of 1000.003 s), others
   (measured milliseconds) to 6 significant digits. Returns its length. */
static int format_value(char *buf, size_t size, double v, int exact) {
  if (v == rint(v) && fabs(v) < 1e15) return snprintf(buf, size, "%.0f", v);
  if (!exact || !isfinite(v)) return snprintf(buf, size, "%.6g", v);
  int k = snprintf(buf, size, "%.15g", v);
  return strtod(buf, NULL) == v ? k : snprintf(buf, size, "%.17g", v);
}

void sim_csv_exact(sim_csv *t, int col) {
  if (t && col >= 0 && col < 64) t->exact |= 1ull << col;
}

int sim_csv_add_row(sim_csv *t, const double *values, int n, sim_status *st) {
  int rc = check_row(t, n, st);
  if (rc) return rc;
  if (!values) return sim_fail(st, SIM_ERR_INTERNAL, "CSV table: row values are NULL");
  size_t len0 = t->len;
  for (int i = 0; i < n && !rc; i++) {
    char buf[40];
    int k = 0;
    if (i > 0) buf[k++] = ',';
    if (!isnan(values[i]))
      k += format_value(buf + k, sizeof buf - (size_t)k, values[i], i < 64 && (t->exact >> i & 1));
    rc = csv_append(t, buf, (size_t)k, st);
  }
  if (!rc) rc = csv_append(t, "\n", 1, st);
  if (rc) {
    t->len = len0; /* drop the partial row */
    t->text[len0] = '\0';
    return rc;
  }
  t->nrows++;
  return SIM_OK;
}

int sim_csv_add_text_row(sim_csv *t, const char *const *fields, int n, sim_status *st) {
  int rc = check_row(t, n, st);
  if (rc) return rc;
  if (!fields) return sim_fail(st, SIM_ERR_INTERNAL, "CSV table: row fields are NULL");
  size_t len0 = t->len;
  for (int i = 0; i < n && !rc; i++) {
    const char *s = fields[i] ? fields[i] : "";
    if (i > 0) rc = csv_append(t, ",", 1, st);
    if (rc) break;
    if (!strpbrk(s, ",\"\r\n")) {
      rc = csv_append(t, s, strlen(s), st);
      continue;
    }
    /* RFC 4180: enclose in quotes, double the quotes inside */
    rc = csv_append(t, "\"", 1, st);
    for (const char *p = s; *p && !rc; p++) {
      rc = csv_append(t, p, 1, st);
      if (!rc && *p == '"') rc = csv_append(t, "\"", 1, st);
    }
    if (!rc) rc = csv_append(t, "\"", 1, st);
  }
  if (!rc) rc = csv_append(t, "\n", 1, st);
  if (rc) {
    t->len = len0;
    t->text[len0] = '\0';
    return rc;
  }
  t->nrows++;
  return SIM_OK;
}

int sim_csv_cols(const sim_csv *t) { return t ? t->ncols : 0; }
int sim_csv_rows(const sim_csv *t) { return t ? t->nrows : 0; }
const char *sim_csv_text(const sim_csv *t) { return t ? t->text : ""; }

int sim_csv_write(const sim_csv *t, const char *path, sim_status *st) {
  if (!t) return sim_fail(st, SIM_ERR_INTERNAL, "%s: CSV table is NULL", path);
  return sim_write_file_atomic(path, t->text, t->len, st);
}

void sim_csv_destroy(sim_csv *t) {
  if (!t) return;
  sim_free(t->text);
  sim_free(t);
}
