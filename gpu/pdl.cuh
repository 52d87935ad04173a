// SPDX-License-Identifier: MIT
// Programmatic dependent launch (SIMCTL_CUDA_PDL=on, devices of compute capability 9.0 on):
// inside a CUDA graph, a kernel that follows another may be launched once every block of the
// one before has begun, instead of once it has finished, so that its launch overlaps the end of
// the kernel before (sim_cuda_graph_pdl, gpu/pdl_cuda.cu, gives the graph's edges between
// simctl's kernels that form). Such a kernel must not read or write memory before
// griddepcontrol.wait, which returns once the kernels it depends on have finished and their
// writes are visible to it. So every kernel of gpu/ begins with SIM_PDL_WAIT() (checked by
// tests/check_pdl_waits.py over the sources, and at run time by the emulation for every kernel
// launched behind such an edge). Where a kernel was launched without one (launched one by one,
// in a graph without PDL, or after a copy or a memset) the wait returns at once; before sm_90
// it is compiled to nothing.
#ifndef SIM_GPU_PDL_CUH
#define SIM_GPU_PDL_CUH

#if defined(SIM_EMU_CUDA_RUNTIME_H) /* the host emulation (tests/emu): checked there */
#define SIM_PDL_WAIT() ::sim_emu::pdl_wait()
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SIM_PDL_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define SIM_PDL_WAIT() ((void)0)
#endif

#endif
