/* SPDX-License-Identifier: MIT */
/* simctl devices: the CUDA devices this simctl sees, by the index --gpu takes, and whether its
   kernels run on each (the architectures it was built for against the device's). */
#include <stdio.h>
#include <string.h>

#include "../core/simctl.h"
#include "../core/solve/backend.h"
#include "cli.h"

#define MAX_DEVICES 64

static const char *DEVICES_USAGE =
    "usage: simctl devices [--csv]\n"
    "\n"
    "Lists the CUDA devices by the index --gpu N (solver.gpu) takes, as CUDA_VISIBLE_DEVICES\n"
    "and CUDA_DEVICE_ORDER leave them: name, architecture, memory, and whether this simctl's\n"
    "kernels run there (the architectures it was built for, SIMCTL_CUDA_ARCHS, against the\n"
    "device's). Exit 7 with one line where none can be listed (no CUDA build, no driver, no\n"
    "device).\n"
    "\n"
    "  --csv   one header line and a row per device: gpu,name,arch,memory_gib,runs\n";

static void version_text(char *buf, size_t len, int v) {
  if (v > 0)
    snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
  else
    snprintf(buf, len, "none");
}

/* A CSV field: quoted, its quotes doubled, where it holds a comma or a quote. */
static void csv_field(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

int cmd_devices(int argc, char **argv) {
  int csv = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(DEVICES_USAGE, stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--csv")) {
      csv = 1;
      continue;
    }
    return cli_error(SIM_ERR_USAGE, "devices: unknown option '%s' (see simctl devices --help)",
                     argv[i]);
  }
  static sim_cuda_device dev[MAX_DEVICES];
  char why[SIM_MSG_MAX], drv[32], rt[32];
  int driver = 0, runtime = 0;
  int n = sim_cuda_devices(dev, MAX_DEVICES, &driver, &runtime, why, sizeof why);
  if (n < 0) return cli_error(SIM_ERR_DEVICE, "devices: %s", why);
  if (n > MAX_DEVICES) n = MAX_DEVICES;
  if (csv) {
    printf("gpu,name,arch,memory_gib,runs\n");
    for (int i = 0; i < n; i++) {
      printf("%d,", i);
      csv_field(stdout, dev[i].name);
      printf(",sm_%d%d,%.1f,%s\n", dev[i].major, dev[i].minor, dev[i].mem_gib,
             dev[i].runs ? "yes" : "no");
    }
    return 0;
  }
  version_text(drv, sizeof drv, driver);
  version_text(rt, sizeof rt, runtime);
  printf("simctl %s: kernels built for %s (SIMCTL_CUDA_ARCHS); CUDA runtime %s, driver %s\n",
         sim_version(), sim_cuda_archs(), rt, drv);
  int w = 4; /* the names' column */
  for (int i = 0; i < n; i++)
    if ((int)strlen(dev[i].name) > w) w = (int)strlen(dev[i].name);
  printf("%-4s %-*s %-7s %10s  %s\n", "gpu", w, "name", "arch", "memory", "runs simctl");
  for (int i = 0; i < n; i++) {
    char arch[24]; /* sm_90, sm_100: one column whatever the digits */
    snprintf(arch, sizeof arch, "sm_%d%d", dev[i].major, dev[i].minor);
    printf("%-4d %-*s %-7s %6.1f GiB  %s\n", i, w, dev[i].name, arch, dev[i].mem_gib,
           dev[i].runs ? "yes" : "no");
    if (!dev[i].runs) printf("     %s\n", dev[i].why);
  }
  return 0;
}
