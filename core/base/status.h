/* SPDX-License-Identifier: MIT */
/* Status codes and error messages for user and run-time failures (CHOLMOD-style). */
#ifndef SIM_STATUS_H
#define SIM_STATUS_H

/* Exit codes of the simctl program; a status carries one of them. */
enum {
  SIM_OK = 0,
  SIM_ERR_INTERNAL = 1, /* a bug or an unexpected library failure */
  SIM_ERR_USAGE = 2,    /* bad command line */
  SIM_ERR_SCENE = 3,    /* bad scene file or --set override */
  SIM_ERR_MESH = 4,     /* unreadable / invalid mesh, TetGen failure */
  SIM_ERR_NUMERIC = 5,  /* matrix not SPD, NaN or exploding energy */
  SIM_ERR_IO = 6,       /* cannot write outputs */
  SIM_ERR_DEVICE = 7,   /* requested device cannot run */
  SIM_ERR_MEMORY = 8    /* allocation failed or over a memory limit */
};

#define SIM_MSG_MAX 1024

typedef struct sim_status {
  int code;              /* SIM_OK or one of SIM_ERR_* */
  char msg[SIM_MSG_MAX]; /* "FILE:LINE:COL: PATH: what was expected" or "FILE: what" */
} sim_status;

/* Record a failure (first one wins) and return its code. */
int sim_fail(sim_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sim_status_clear(sim_status *st);
/* Names `who` (a file) at the front of a recorded failure's message ("WHO: what"), unless the
   message starts with it already; returns the status's code. */
int sim_status_prefix(sim_status *st, const char *who);

#endif
