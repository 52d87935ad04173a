/* SPDX-License-Identifier: MIT */
/* The background frame writer (writer_async.h): one worker thread, one frame in flight, a mutex
   and a condition variable for the hand-over. */
#include "writer_async.h"

#include <string.h>

#include "../base/alloc.h"

static void *worker(void *arg) {
  sim_async_writer *a = arg;
  pthread_mutex_lock(&a->mu);
  for (;;) {
    while (!a->busy && !a->quit) pthread_cond_wait(&a->cv, &a->mu);
    if (!a->busy) break; /* quit with nothing in flight */
    pthread_mutex_unlock(&a->mu);
    sim_status st = {0};
    int rc = sim_writer_frame_files(a->w, a->frame, a->t, a->q, a->v,
                                    a->has_energy ? a->energy : NULL, &st);
    int files = rc == SIM_OK; /* counted as written, as the loop's own writing counts them */
    if (!rc) rc = sim_writer_flush_series(a->w, &st);
    pthread_mutex_lock(&a->mu);
    if (rc) a->failed = 1, a->st = st, a->files_written = files;
    a->busy = 0;
    pthread_cond_broadcast(&a->cv);
  }
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

int sim_async_open(sim_async_writer *a, sim_writer *w, sim_status *st) {
  memset(a, 0, sizeof *a);
  a->w = w;
  const size_t n3 = 3 * (size_t)w->m->n;
  a->q = SIM_NEW(double, n3 + 1);
  a->v = SIM_NEW(double, n3 + 1);
  a->energy = SIM_NEW(double, (size_t)w->m->nelem + 1);
  if (!a->q || !a->v || !a->energy) {
    sim_free(a->q), sim_free(a->v), sim_free(a->energy);
    memset(a, 0, sizeof *a);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (output thread)");
  }
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->cv, NULL);
  if (pthread_create(&a->thread, NULL, worker, a) != 0) {
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    sim_free(a->q), sim_free(a->v), sim_free(a->energy);
    memset(a, 0, sizeof *a);
    return sim_fail(st, SIM_ERR_INTERNAL, "cannot start the output thread");
  }
  a->started = 1;
  return SIM_OK;
}

/* Waits until nothing is in flight; the thread's failure into st. Called with mu held. */
static int wait_idle(sim_async_writer *a, sim_status *st) {
  while (a->busy) pthread_cond_wait(&a->cv, &a->mu);
  if (!a->failed) return SIM_OK;
  if (st && !st->code) *st = a->st;
  return a->st.code;
}

int sim_async_frame(sim_async_writer *a, int frame, double t, const double *q, const double *v,
                    const double *energy, sim_status *st) {
  pthread_mutex_lock(&a->mu);
  int rc = wait_idle(a, st);
  pthread_mutex_unlock(&a->mu);
  if (rc) return rc;
  /* the thread is idle: the writer is the loop's until the hand-over below */
  if ((rc = sim_writer_frame_prepare(a->w, t, q, st))) return rc;
  const sim_model *m = a->w->m;
  memcpy(a->q, q, sizeof(double) * 3 * (size_t)m->n);
  memcpy(a->v, v, sizeof(double) * 3 * (size_t)m->n);
  if (energy) memcpy(a->energy, energy, sizeof(double) * (size_t)m->nelem);
  pthread_mutex_lock(&a->mu);
  a->frame = frame, a->t = t, a->has_energy = energy != NULL, a->busy = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return SIM_OK;
}

int sim_async_finish(sim_async_writer *a, sim_status *st) {
  if (!a->started) return SIM_OK;
  pthread_mutex_lock(&a->mu);
  int rc = wait_idle(a, st);
  a->quit = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->thread, NULL);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->cv);
  sim_free(a->q), sim_free(a->v), sim_free(a->energy);
  a->q = a->v = a->energy = NULL;
  a->started = 0;
  return rc;
}
