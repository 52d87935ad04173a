/* SPDX-License-Identifier: MIT */
/* Output frames written by a background thread while the frame loop goes on (scene
   output.async). The loop hands over a frame: the world's part is taken on the loop's thread
   (sim_writer_frame_prepare), q, v and the energy densities are copied, and the loop returns to
   stepping while the thread writes the frame's files and then the series file, each atomically.
   One frame is in flight at most: the next hand-over waits for it. A failure (a file that cannot
   be written) is returned by the next hand-over or by sim_async_finish, with the thread's
   message; no frame is written after it, and the frames before it stay complete and listed.
   While a frame is in flight the thread owns the writer's frame state (series list, camera,
   scenery); timing.csv stays the loop's (sim_writer_flush_timing). */
#ifndef SIM_WRITER_ASYNC_H
#define SIM_WRITER_ASYNC_H
#include <pthread.h>

#include "writer.h"

typedef struct sim_async_writer {
  sim_writer *w;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int started, busy, quit, failed;
  int files_written; /* the failed frame's files were all written (its series file failed) */
  int frame, has_energy;
  double t;
  double *q, *v, *energy; /* the frame in flight: 3n, 3n, nelem */
  sim_status st;          /* the thread's failure */
} sim_async_writer;

int sim_async_open(sim_async_writer *a, sim_writer *w, sim_status *st);
/* Waits for the frame in flight, then hands this one over (energy may be NULL). */
int sim_async_frame(sim_async_writer *a, int frame, double t, const double *q, const double *v,
                    const double *energy, sim_status *st);
/* Waits for the frame in flight and stops the thread; returns its failure, if any. Safe to call
   on a writer that was never opened (zeroed) and more than once. */
int sim_async_finish(sim_async_writer *a, sim_status *st);

#endif
