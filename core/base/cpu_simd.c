/* SPDX-License-Identifier: MIT */
/* Which build of the CPU's hot loops runs (cpu_simd.h). */
#include "cpu_simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_avx2 = -1; /* -1: not yet decided */

static int env_off(void) {
  const char *e = getenv("SIMCTL_CPU_AVX2");
  return e && !strcmp(e, "off");
}

static int cpu_has_avx2(void) {
#if SIM_CPU_AVX2_BUILT
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return 0;
#endif
}

static int avx2_usable(void) { return SIM_CPU_AVX2_BUILT && !env_off() && cpu_has_avx2(); }

int sim_cpu_avx2(void) {
  int v = atomic_load_explicit(&g_avx2, memory_order_relaxed);
  if (v < 0) { /* threads that race here decide alike */
    v = avx2_usable();
    atomic_store_explicit(&g_avx2, v, memory_order_relaxed);
  }
  return v;
}

int sim_cpu_avx2_set(int on) {
  int was = sim_cpu_avx2();
  atomic_store_explicit(&g_avx2, on && avx2_usable(), memory_order_relaxed);
  return was;
}

const char *sim_cpu_simd_name(void) {
  if (sim_cpu_avx2()) return "AVX2 build";
  if (!SIM_CPU_AVX2_BUILT) return "baseline build";
  if (!cpu_has_avx2()) return "baseline build: no AVX2 on this processor";
  return env_off() ? "baseline build: SIMCTL_CPU_AVX2=off" : "baseline build";
}
