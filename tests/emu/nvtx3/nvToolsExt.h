// SPDX-License-Identifier: MIT
// The host emulation's NVTX (tests/emu/README.md): the ranges gpu/range_cuda.h marks are
// counted, not shown anywhere; a pop without a push stops the program.
#ifndef SIM_EMU_NVTOOLSEXT_H
#define SIM_EMU_NVTOOLSEXT_H
int nvtxRangePushA(const char *message);
int nvtxRangePop(void);
#endif
