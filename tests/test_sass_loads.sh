#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/sass_loads.py on a machine-code listing of known waits, written here in cuobjdump's
# form: a gather loop that loads an index, then the vector's entry it names (two latencies an
# entry), one that loads two entries' values and vector entries at once (half a latency an
# entry, eight loads in flight), a kernel without a loop, a fat binary's architectures, ptxas's
# registers and the warps they leave room for, a row a loop with --loops; nothing matched is
# exit 1.
# usage: test_sass_loads.sh PYTHON SCRIPT
set -u
PY=$1 SCRIPT=$2
. "$(dirname "$0")/check_lib.sh"
cat >"$TMP/listing" <<'SASS'
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
	code for sm_90
		Function : _Z7k_chainPKiPKdS2_Pd
	.headerflags    @"EF_CUDA_SM90 EF_CUDA_PTX_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/                   LDG.E R4, [R2.64] ;                    /* 0x0000000402047981 */
        /*0020*/                   LDG.E.64 R6, [R8.64] ;
        /*0030*/                   IMAD.WIDE R10, R4, 0x18, R12 ;
        /*0040*/                   LDG.E.64 R14, [R10.64] ;
        /*0050*/                   LDG.E.64 R16, [R10.64+0x8] ;
        /*0060*/                   LDG.E.64 R18, [R10.64+0x10] ;
        /*0070*/                   DMUL R14, R14, R6 ;
        /*0080*/                   DMUL R16, R6, R16 ;
        /*0090*/                   DMUL R18, R6.reuse, R18 ;
        /*00a0*/                   DADD R20, R20, R14 ;
        /*00b0*/                   DADD R22, R22, R16 ;
        /*00c0*/                   DADD R24, R24, R18 ;
        /*00d0*/              @!P0 BRA 0x10 ;
        /*00e0*/                   EXIT ;
		..........
		Function : _Z7k_batchPKdS0_Pd
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDG.E.64 R4, [R2.64] ;
        /*0020*/                   LDG.E.64 R6, [R2.64+0x8] ;
        /*0030*/                   LDG.E.64 R8, [R30.64] ;
        /*0040*/                   LDG.E.64 R10, [R30.64+0x8] ;
        /*0050*/                   LDG.E.64 R12, [R30.64+0x10] ;
        /*0060*/                   LDG.E.64 R14, [R30.64+0x18] ;
        /*0070*/                   LDG.E.64 R16, [R30.64+0x20] ;
        /*0080*/                   LDG.E.64 R18, [R30.64+0x28] ;
        /*0090*/                   DMUL R8, R8, R4 ;
        /*00a0*/                   DMUL R10, R10, R4 ;
        /*00b0*/                   DMUL R12, R12, R4 ;
        /*00c0*/                   DMUL R14, R14, R6 ;
        /*00d0*/                   DMUL R16, R16, R6 ;
        /*00e0*/                   DMUL R18, R18, R6 ;
        /*00f0*/                   DADD R20, R20, R8 ;
        /*0100*/               @P1 BRA 0x10 ;
        /*0110*/                   EXIT ;
		..........
		Function : _Z8k_noloopPd
        /*0000*/                   DMUL R2, R4, R6 ;
        /*0010*/                   EXIT ;
		..........
		Function : _Z7k_otherPd
        /*0000*/                   LDG.E.64 R2, [R4.64] ;
        /*0010*/                   DMUL R2, R2, R2 ;
        /*0020*/               @P0 BRA 0x0 ;
SASS
cat >"$TMP/ptxas.log" <<'LOG'
ptxas info    : Compiling entry function '_Z7k_chainPKiPKdS2_Pd' for 'sm_90'
ptxas info    : Function properties for _Z7k_chainPKiPKdS2_Pd
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 64 registers, used 0 barriers
ptxas info    : Compiling entry function '_Z7k_batchPKdS0_Pd' for 'sm_90'
ptxas info    : Used 44 registers
LOG
"$PY" "$SCRIPT" --match 'k_chain|k_batch|k_noloop' --regs "$TMP/ptxas.log" <"$TMP/listing" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out" "$TMP/err"
row() { grep -F "\`$1" "$TMP/out"; }
check "the table, three kernels (k_other not matched)" eval \
  '[ $rc = 0 ] && [ "$(grep -c "^| \`" "$TMP/out")" = 3 ] && ! grep -q k_other "$TMP/out"'
# k_chain: the index, then the vector: 2 latencies for its one entry; 3 loads in flight at most
check "an index then the entry it names: 2 latencies an entry, 64 registers, 32 warps" eval \
  'row "k_chain" | grep -q "| sm_90 | 64 | 32 | 1 | 5 | 2 | 2.00 | 3 |$"'
check "two entries' loads at once: half a latency an entry, 8 in flight, 44 registers, 40 warps" \
  eval \
  'row "k_batch" | grep -q "| sm_90 | 44 | 40 | 2 | 8 | 1 | 0.50 | 8 |$"'
check "a kernel without a loop: its figures left out" eval \
  'row "k_noloop" | grep -q "| sm_90 | - | - | - | - | - | - | - |$"'
"$PY" "$SCRIPT" --match 'k_chain|k_other' --loops <"$TMP/listing" >"$TMP/out3" 2>&1
check "--loops: a row a loop, named by its branch's address" eval \
  'grep -q "^| \`k_chain @0x00d0\` | sm_90 | - | - | 1 | 5 | 2 | 2.00 | 3 |$" "$TMP/out3" &&
   grep -q "^| \`k_other @0x0020\` | sm_90 | - | - | 0.333333 | 1 | 1 | 3.00 | 1 |$" "$TMP/out3"'
"$PY" "$SCRIPT" --match 'k_nothing' <"$TMP/listing" >"$TMP/out2" 2>&1
rc2=$?
check "nothing matched: exit 1" eval '[ $rc2 = 1 ]'
finish test_sass_loads
