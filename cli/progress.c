/* SPDX-License-Identifier: MIT */
/* Progress bar with ETA on a terminal; silent when stderr is not a TTY. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

void cli_progress(int frame, int nframes, double elapsed_ms, void *user) {
  (void)user;
  static int tty = -1, before = -1; /* the frames a resumed run had before its first call */
  if (tty < 0) tty = isatty(STDERR_FILENO);
  if (!tty || nframes <= 0) return;
  if (before < 0) before = frame - 1;
  const int width = 30;
  int filled = (int)((double)frame / nframes * width);
  double per = elapsed_ms / (frame - before);
  double eta_s = per * (nframes - frame) / 1e3;
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  fprintf(stderr, "\r[%s] %d/%d frames  %.1f ms/frame  ETA %d:%02d ", bar, frame, nframes, per,
          (int)eta_s / 60, (int)eta_s % 60);
  if (frame == nframes) fputc('\n', stderr);
  fflush(stderr);
}
