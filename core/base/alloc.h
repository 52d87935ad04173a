/* SPDX-License-Identifier: MIT */
/* Counting allocation wrapper: every byte simctl allocates goes through here. */
#ifndef SIM_ALLOC_H
#define SIM_ALLOC_H
#include <stddef.h>

void *sim_malloc(size_t bytes);              /* NULL on failure (or bytes == 0) */
void *sim_calloc(size_t count, size_t size); /* zeroed */
void *sim_realloc(void *p, size_t bytes);
void sim_free(void *p);
size_t sim_mem_in_use(void); /* bytes currently allocated */
size_t sim_mem_peak(void);   /* high-water mark */

#define SIM_NEW(type, count) ((type *)sim_malloc(sizeof(type) * (size_t)(count)))
#define SIM_NEW0(type, count) ((type *)sim_calloc((size_t)(count), sizeof(type)))

#endif
