# SPDX-License-Identifier: MIT
# The host emulation of CUDA (tests/emu/README.md): gpu/*.cu rewritten by cu2cpp and compiled by
# the host C++ compiler against tests/emu's cuda_runtime.h, cusparse.h and cub, so the GPU tests
# run the CUDA backend's kernels and host code on any x86-64 machine (label emu). simctl-emu is
# simctl built the same way (`--device cuda` runs on the emulation). Not a GPU: it checks the
# CUDA code's logic and its use of the runtime, not its speed or the device's own behaviour.
option(SIMCTL_CUDA_EMU "Build the host emulation of CUDA and run the GPU tests on it (x86-64)" ON)
if(SIMCTL_CUDA_EMU AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  message(STATUS "simctl: the CUDA emulation needs x86-64; off")
  set(SIMCTL_CUDA_EMU OFF)
endif()
if(SIMCTL_CUDA_EMU)
  enable_language(CXX)
  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  add_executable(sim_cu2cpp tests/emu/cu2cpp.c)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/emu)
  file(GLOB SIM_EMU_CU CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/gpu/*.cu)
  list(FILTER SIM_EMU_CU EXCLUDE REGEX "bench_(global|wprod)\\.cu$")
  set(SIM_EMU_SOURCES tests/emu/emu_runtime.cpp tests/emu/emu_cusparse.cpp)
  # sim_emu_cu2cpp(CU OUT): the rule that rewrites CU as build/emu/NAME.cpp, its path in OUT
  # (here for gpu/*.cu; tests/gpu.cmake for the emulation's own test, test_emu_fibres.cu)
  function(sim_emu_cu2cpp cu out_var)
    get_filename_component(base ${cu} NAME_WE)
    set(out ${CMAKE_BINARY_DIR}/emu/${base}.cpp)
    add_custom_command(OUTPUT ${out} COMMAND sim_cu2cpp ${cu} ${out}
      DEPENDS sim_cu2cpp ${cu} COMMENT "cu2cpp ${base}.cu" VERBATIM)
    set(${out_var} ${out} PARENT_SCOPE)
  endfunction()
  foreach(cu ${SIM_EMU_CU})
    sim_emu_cu2cpp(${cu} out)
    list(APPEND SIM_EMU_CU_CPP ${out})
  endforeach()
  add_library(simcore_emu STATIC ${SIM_EMU_SOURCES} ${SIM_EMU_CU_CPP})
  # scripts/emu_coverage.sh: gcc's line counts of the CUDA sources alone (the rewritten gpu/*.cu,
  # with the core headers their kernels include), not of the emulation's runtime or the CPU's
  # reference code, which would slow the tests further (under coverage they take 4-5 times as
  # long; their time limits are lifted in tests/gpu.cmake)
  option(SIMCTL_EMU_COVERAGE "Count the lines of gpu/ the emulated GPU tests run (gcov)" OFF)
  if(SIMCTL_EMU_COVERAGE)
    set_source_files_properties(${SIM_EMU_CU_CPP} PROPERTIES COMPILE_OPTIONS "--coverage")
    target_link_libraries(simcore_emu PUBLIC gcov)
  endif()
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  target_link_libraries(simcore_emu PUBLIC simcore_obj PRIVATE OpenMP::OpenMP_CXX)
  target_include_directories(simcore_emu PRIVATE ${CMAKE_SOURCE_DIR}/tests/emu
    ${CMAKE_SOURCE_DIR}/gpu)
  # no fused multiply-adds, as nvcc -fmad=false
  target_compile_options(simcore_emu PRIVATE -include cuda_runtime.h -ffp-contract=off -Wall
    -Wno-unused-function -Wno-maybe-uninitialized)
  set_target_properties(simcore_emu PROPERTIES LINKER_LANGUAGE CXX)

  add_executable(simctl-emu ${SIM_CLI_SOURCES})
  target_link_libraries(simctl-emu PRIVATE simcore_emu)
  set_target_properties(simctl-emu PROPERTIES LINKER_LANGUAGE CXX)

  # the GPU benchmark programs on the emulation, so that gpu_report.sh --emu runs its global
  # part through them and the scripts as a GPU would, and test_emu_cli checks their output
  # (simctl-bench-global's row, simctl-bench-wprod's products' agreement and rows; their
  # timings mean nothing about a GPU)
  foreach(bench global wprod)
    sim_emu_cu2cpp(${CMAKE_SOURCE_DIR}/gpu/bench_${bench}.cu bench_${bench}_emu)
    add_executable(simctl-bench-${bench}-emu ${bench_${bench}_emu})
    target_link_libraries(simctl-bench-${bench}-emu PRIVATE simcore_emu)
    target_include_directories(simctl-bench-${bench}-emu PRIVATE ${CMAKE_SOURCE_DIR}/tests/emu
      ${CMAKE_SOURCE_DIR}/gpu ${CMAKE_SOURCE_DIR}/core)
    target_compile_options(simctl-bench-${bench}-emu PRIVATE -include cuda_runtime.h
      -ffp-contract=off -Wall)
    set_target_properties(simctl-bench-${bench}-emu PROPERTIES LINKER_LANGUAGE CXX)
  endforeach()
endif()
