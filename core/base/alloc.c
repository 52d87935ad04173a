/* SPDX-License-Identifier: MIT */
/* Counting allocator: a 16-byte header stores the size; totals are atomic. */
#include "alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_size_t g_in_use;
static atomic_size_t g_peak;

#define HDR 16

static void note_alloc(size_t bytes) {
  size_t now = atomic_fetch_add(&g_in_use, bytes) + bytes;
  size_t peak = atomic_load(&g_peak);
  while (now > peak && !atomic_compare_exchange_weak(&g_peak, &peak, now)) {
  }
}

void *sim_malloc(size_t bytes) {
  if (bytes == 0 || bytes > SIZE_MAX - HDR) return NULL;
  unsigned char *p = malloc(bytes + HDR);
  if (!p) return NULL;
  memcpy(p, &bytes, sizeof bytes);
  note_alloc(bytes);
  return p + HDR;
}

void *sim_calloc(size_t count, size_t size) {
  if (count && size > SIZE_MAX / count) return NULL;
  void *p = sim_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void *sim_realloc(void *p, size_t bytes) {
  if (!p) return sim_malloc(bytes);
  if (bytes == 0) {
    sim_free(p);
    return NULL;
  }
  unsigned char *base = (unsigned char *)p - HDR;
  size_t old;
  memcpy(&old, base, sizeof old);
  unsigned char *q = realloc(base, bytes + HDR);
  if (!q) return NULL;
  memcpy(q, &bytes, sizeof bytes);
  atomic_fetch_sub(&g_in_use, old);
  note_alloc(bytes);
  return q + HDR;
}

void sim_free(void *p) {
  if (!p) return;
  unsigned char *base = (unsigned char *)p - HDR;
  size_t old;
  memcpy(&old, base, sizeof old);
  atomic_fetch_sub(&g_in_use, old);
  free(base);
}

size_t sim_mem_in_use(void) { return atomic_load(&g_in_use); }
size_t sim_mem_peak(void) { return atomic_load(&g_peak); }
