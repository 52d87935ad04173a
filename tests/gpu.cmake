# SPDX-License-Identifier: MIT
# The CUDA backend against the CPU backend (label gpu): every operation on random inputs, and
# short runs side by side. Built in every configuration; SKIPPED (77) where no CUDA device runs.
sim_labelled_test(test_gpu_backend gpu test_gpu_backend.c)
sim_labelled_test(test_gpu_runs gpu test_gpu_runs.c)
sim_labelled_test(test_gpu_detect gpu test_gpu_detect.c)
sim_labelled_test(test_gpu_points gpu test_gpu_points.c)
sim_labelled_test(test_gpu_delassus gpu test_gpu_delassus.c)
sim_labelled_test(test_gpu_solvers gpu test_gpu_solvers.c)
sim_labelled_test(test_gpu_contact_ops gpu test_gpu_contact_ops.c)
# the simctl program on the device: summary.json's solve_check bounds and run --resume byte for
# byte (SKIPPED, 77, where simctl --device cuda cannot run: a build without CUDA, no GPU)
add_test(NAME test_gpu_program COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_program.sh
         $<TARGET_FILE:simctl>)
set_tests_properties(test_gpu_program PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
# every kernel of gpu/ begins with SIM_PDL_WAIT() (gpu/pdl.cuh: a kernel launched behind a
# programmatic edge, SIMCTL_CUDA_PDL=on, must wait before it reads): over the sources, no GPU
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME test_pdl_waits COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_SOURCE_DIR}/check_pdl_waits.py ${CMAKE_SOURCE_DIR}/gpu)
  set_tests_properties(test_pdl_waits PROPERTIES LABELS emu TIMEOUT 60)
endif()
# the contact stage's passes as entries of their own, so that ctest -j runs them side by side:
# on a GPU, where the CPU's reference steps take most of the time, four (the scenes; the
# squeezing ball, step by step and free-running beside one CPU run; detection and W on the
# host; the other exact global solvers), each with the Newton solve on the host and on the
# device beside one CPU run; on the emulation (below), where the emulated device does, the
# scenes with each Newton solve apart
set(SIM_CONTACT_PASSES scenes ball paths solvers)
set(SIM_EMU_CONTACT_PASSES host device ball paths solvers)
sim_test_program(simcore test_gpu_contact test_gpu_contact.c)
foreach(p ${SIM_CONTACT_PASSES})
  sim_test_entry(test_gpu_contact_${p} gpu test_gpu_contact ${p})
  set_tests_properties(test_gpu_contact_${p} PROPERTIES TIMEOUT 1800)
endforeach()

# The same tests on the host emulation of CUDA (tests/emu/README.md; label emu): they run here,
# without a GPU, and check the CUDA backend's kernels and host code against the CPU; they are not
# the GPU tests above and say so. The per-operation ones are also "unit" tests, so `make
# test-asan` runs them under AddressSanitizer (device arrays read or written out of bounds). The
# contact test runs the global step through (emulated) cuSPARSE, whose host loops are far faster
# than the emulated warp shuffles of the gathers; test_emu_backend and test_emu_runs check those.
if(TARGET simcore_emu)
  foreach(t backend runs contact detect points delassus solvers contact_ops)
    sim_test_program(simcore_emu test_emu_${t} test_gpu_${t}.c)
    target_compile_definitions(test_emu_${t} PRIVATE SIM_TEST_EMU=1)
    set_target_properties(test_emu_${t} PROPERTIES LINKER_LANGUAGE CXX)
  endforeach()
  foreach(t backend runs detect points delassus solvers)
    sim_test_entry(test_emu_${t} emu test_emu_${t})
    set_tests_properties(test_emu_${t} PROPERTIES TIMEOUT 1200)
  endforeach()
  # the contact operations in three parts, the Newton solve on the host, on the device, and on
  # the device with the exact Jacobian's GMRES, so that ctest -j2 runs them side by side (under
  # AddressSanitizer most of `make test-asan`: as one entry with the exact passes, the device
  # part took 397 s there on 2026-12-03, the longest of the CI run)
  foreach(half host device exact)
    sim_test_entry(test_emu_contact_ops_${half} emu test_emu_contact_ops ${half})
    set_tests_properties(test_emu_contact_ops_${half} PROPERTIES TIMEOUT 1200)
  endforeach()
  set_tests_properties(test_emu_backend test_emu_detect test_emu_points test_emu_delassus
    test_emu_solvers PROPERTIES LABELS "emu;unit")
  # the next longest (on the 2-core VM, .ci/run of 2026-12-03: the runs 82 s, the contact
  # operations' device part 45 s, its exact part 49 s, its host part 5 s; under AddressSanitizer
  # the device part 166 s, the exact part 174 s, the host part 17 s): started right after the
  # contact passes, so that no long test is left to run alone at the end under ctest -j2
  set_tests_properties(test_emu_contact_ops_host test_emu_contact_ops_device
    test_emu_contact_ops_exact test_emu_runs PROPERTIES COST 5000)
  # the per-operation tests again with the blocks, and the warps in a block, run backwards and
  # in a shuffled order (SIMCTL_EMU_SCHEDULE): a GPU promises no order, so results must not
  # depend on one
  foreach(t backend detect points delassus solvers)
    foreach(order reverse shuffle)
      sim_test_entry(test_emu_${t}_${order} emu test_emu_${t})
      set_tests_properties(test_emu_${t}_${order} PROPERTIES TIMEOUT 600
        ENVIRONMENT SIMCTL_EMU_SCHEDULE=${order})
    endforeach()
  endforeach()
  # the contact operations under AddressSanitizer too (`make test-asan`: the unit label), the
  # whole test: the device Newton solve's kernels fused and not, W dense, in float and
  # matrix-free, whose grids follow the arrays' capacity (about 220 s under ASan on the 2-core
  # VM as one entry, 2026-11-29; until then its rows pass alone, `test_emu_contact_ops rows`,
  # 3 s)
  set_tests_properties(test_emu_contact_ops_host test_emu_contact_ops_device
    test_emu_contact_ops_exact PROPERTIES LABELS "emu;unit")
  # the emulation's own threads: shuffles, barriers, early returns, and the misuse it stops on
  sim_emu_cu2cpp(${CMAKE_CURRENT_SOURCE_DIR}/emu/test_emu_fibres.cu fibres)
  sim_test_program(simcore_emu test_emu_fibres ${fibres})
  target_include_directories(test_emu_fibres PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/emu)
  set_source_files_properties(${fibres} PROPERTIES COMPILE_OPTIONS "-include;cuda_runtime.h")
  set_target_properties(test_emu_fibres PROPERTIES LINKER_LANGUAGE CXX)
  sim_test_entry(test_emu_fibres emu test_emu_fibres)
  set_tests_properties(test_emu_fibres PROPERTIES LABELS "emu;unit")
  # the backend's notices through the program (a refused graph capture: a note, the run goes on)
  add_test(NAME test_emu_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_emu_cli.sh
           $<TARGET_FILE:simctl-emu> "${SIM_CUDA_ARCHS_TEXT}"
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_emu_cli PROPERTIES LABELS emu TIMEOUT 300)
  add_test(NAME test_emu_program COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_program.sh
           $<TARGET_FILE:simctl-emu>)
  set_tests_properties(test_emu_program PROPERTIES LABELS emu SKIP_RETURN_CODE 77 TIMEOUT 300)
  # the longest tests of the suite (the host and device passes, minutes each on 2 cores):
  # started first under ctest -j
  foreach(p ${SIM_EMU_CONTACT_PASSES})
    sim_test_entry(test_emu_contact_${p} emu test_emu_contact ${p})
    set_tests_properties(test_emu_contact_${p} PROPERTIES TIMEOUT 1200
      ENVIRONMENT SIMCTL_CUDA_SPMV=cusparse COST 10000)
  endforeach()
endif()
# under scripts/emu_coverage.sh (SIMCTL_EMU_COVERAGE) the emulated tests take 4-5 times as long:
# a test stopped at its limit writes no counts, so none has one
if(SIMCTL_EMU_COVERAGE)
  get_property(sim_all_tests DIRECTORY PROPERTY TESTS)
  set_tests_properties(${sim_all_tests} PROPERTIES TIMEOUT 14400)
endif()
