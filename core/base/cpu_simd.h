/* SPDX-License-Identifier: MIT */
/* The CPU's hot loops in two builds, for the baseline x86-64 (SSE2, what the compiler targets)
   and for AVX2, and which of them runs. The build is ISO C (-std=c11), so the compiler fuses
   no multiply and add into one rounding: an operation rounds alike in both builds, and a loop
   that adds in a fixed order (lane_dot.h's 32 sums, delassus_op.c's two, K's eight in
   delassus_terms.h) gives the same bits in either; AVX2 only does four doubles in an
   instruction where SSE2 does two. */
#ifndef SIM_BASE_CPU_SIMD_H
#define SIM_BASE_CPU_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define SIM_CPU_AVX2_BUILT 1
#define SIM_AVX2_FN __attribute__((target("avx2")))
#else
#define SIM_CPU_AVX2_BUILT 0
#define SIM_AVX2_FN
#endif
/* a loop's body, inlined into both builds of it */
#define SIM_LOOP_BODY static inline __attribute__((always_inline))

/* 1 where the AVX2 builds run: they were built (x86-64, GCC or Clang), the processor has AVX2,
   and the environment's SIMCTL_CPU_AVX2 is not "off"; decided at the first call. */
int sim_cpu_avx2(void);

/* Tests: run the AVX2 builds (on = 1, where sim_cpu_avx2 would) or the baseline's (0); returns
   whether the AVX2 builds ran before. */
int sim_cpu_avx2_set(int on);

/* Which build runs, and why where it is the baseline's (simctl --version). */
const char *sim_cpu_simd_name(void);

#endif
