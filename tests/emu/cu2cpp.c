/* SPDX-License-Identifier: MIT */
/* cu2cpp IN OUT: a gpu/ source as C++ for the host emulation of CUDA (tests/emu/README.md).
   Each kernel launch `name<<<grid, block[, shmem[, stream]]>>>(args)` becomes
   `::sim_emu::launcher(__FILE__, __LINE__, grid, block[, ...]).run(name, "name")(args)`; everything
   else is copied as it is, line for line, after a #line naming IN, so compiler messages and
   the emulator's reports point at the .cu file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *s = malloc(cap + 1);
  for (size_t r; s && (r = fread(s + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n == cap) {
      char *t = realloc(s, 2 * cap + 1);
      if (!t) free(s);
      s = t, cap *= 2;
    }
  }
  fclose(f);
  if (s) s[n] = 0;
  *len = n;
  return s;
}

static int ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':';
}

/* Start of the kernel's name ending just before `end` (identifier, `::`, template arguments),
   which may be on the line before (clang-format breaks a long launch there). */
static size_t name_start(const char *s, size_t end) {
  size_t i = end;
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n')) i--;
  if (i > 0 && s[i - 1] == '>') { /* template arguments: back to the matching '<' */
    int depth = 0;
    while (i > 0) {
      char c = s[--i];
      if (c == '>') depth++;
      if (c == '<' && --depth == 0) break;
    }
  }
  while (i > 0 && ident(s[i - 1])) i--;
  return i;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: cu2cpp IN.cu OUT.cpp\n");
    return 2;
  }
  size_t n;
  char *s = slurp(argv[1], &n);
  if (!s) {
    fprintf(stderr, "cu2cpp: %s: cannot read\n", argv[1]);
    return 1;
  }
  FILE *o = fopen(argv[2], "wb");
  if (!o) {
    fprintf(stderr, "cu2cpp: %s: cannot write\n", argv[2]);
    return 1;
  }
  fprintf(o, "#line 1 \"%s\"\n", argv[1]);
  size_t done = 0; /* copied up to here */
  int line = 1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n') line++;
    if (strncmp(s + i, "<<<", 3) != 0) continue;
    size_t a = name_start(s, i);
    char *close = strstr(s + i + 3, ">>>");
    size_t j = close ? (size_t)(close - s) + 3 : n;
    while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n')) j++;
    if (a == i || a < done || !close || j >= n || s[j] != '(') {
      fprintf(stderr, "%s:%d: cu2cpp: cannot read this kernel launch\n", argv[1], line);
      return 1;
    }
    fwrite(s + done, 1, a - done, o); /* the text before the launch */
    /* the name's text, the configuration's text (newlines kept, so lines stay in step) */
    fprintf(o, "::sim_emu::launcher(__FILE__, __LINE__, ");
    fwrite(s + i + 3, 1, (size_t)(close - s) - (i + 3), o);
    fprintf(o, ").run(");
    fwrite(s + a, 1, i - a, o);
    fputs(", \"", o); /* and as a string, its spaces and newlines each one space, none at the end */
    for (size_t t = a, sp = 0; t < i; t++) {
      int white = s[t] == ' ' || s[t] == '\t' || s[t] == '\n';
      if (!white && sp) fputc(' ', o);
      if (!white) fputc(s[t], o);
      sp = white;
    }
    fputs("\")(", o);
    for (size_t t = (size_t)(close - s) + 3; t < j; t++) /* newlines between >>> and ( */
      if (s[t] == '\n') fputc('\n', o);
    done = j + 1;
    for (size_t t = i + 1; t < done; t++)
      if (s[t] == '\n') line++;
    i = done - 1;
  }
  fwrite(s + done, 1, n - done, o);
  free(s);
  return fclose(o) ? 1 : 0;
}
