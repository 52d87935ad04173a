# The CUDA backend, compiled into simcore when nvcc is found (SIMCTL_CUDA AUTO/ON) for the
# architectures SIMCTL_CUDA_ARCHS lists (CMakeLists.txt: sm_75, sm_80, sm_90 and sm_90's PTX
# for newer GPUs). Its files call the core's C functions and the core calls its
# entry points, so both live in one library.
# -fmad=false: no fused multiply-adds, so the device adds the same rounded terms as the CPU
# reference and the GPU tests can hold results to 1e-12 (the products are bandwidth-bound).
# detect_cuda.cu first: the longest to compile (its query kernels' ptxas, some 100 CPU seconds
# on the 2-core VM for the three architectures), so that make -j starts it before the rest
# (make build from nothing there 2 min 52 s against 3 min 19 s with it in its place below).
set(SIM_GPU_SOURCES gpu/detect_cuda.cu gpu/device.cu gpu/backend_cuda.cu gpu/local_step.cu
  gpu/global_step.cu gpu/global_upload.cu gpu/global_tune.cu gpu/global_solvers.cu
  gpu/contact_cuda.cu gpu/rows_cuda.cu gpu/nsn_cuda.cu gpu/nsn_state.cu gpu/gmres_cuda.cu
  gpu/bvh_cuda.cu gpu/points_cuda.cu
  gpu/delassus_cuda.cu gpu/wcols_cuda.cu gpu/spans_cuda.cu gpu/lg_graph.cu gpu/pdl_cuda.cu
  gpu/snapshot_cuda.cu gpu/twins_cuda.cu gpu/landing_cuda.cu gpu/reads_cuda.cu gpu/ranges_cuda.cu)
target_sources(simcore PRIVATE ${SIM_GPU_SOURCES})
set_source_files_properties(${SIM_GPU_SOURCES} PROPERTIES COMPILE_OPTIONS -fmad=false)
set_target_properties(simcore PROPERTIES CUDA_ARCHITECTURES "${SIM_CUDA_ARCHS}" CUDA_STANDARD 17
  POSITION_INDEPENDENT_CODE ON)
target_link_libraries(simcore PUBLIC CUDA::cudart_static CUDA::cusparse)

# The GPU benchmark programs (gpu/bench_NAME.cu -> simctl-bench-NAME), linked with the library:
# global, the global step alone against the bandwidth limit (scripts/bench_gpu.sh); wprod, the
# contact solve's product with W formed against its block form at several row counts
# (scripts/gpu_report.sh's global part)
foreach(bench global wprod)
  add_executable(simctl-bench-${bench} gpu/bench_${bench}.cu)
  target_link_libraries(simctl-bench-${bench} PRIVATE simcore)
  target_include_directories(simctl-bench-${bench} PRIVATE ${CMAKE_SOURCE_DIR}/core)
  set_target_properties(simctl-bench-${bench} PROPERTIES CUDA_ARCHITECTURES "${SIM_CUDA_ARCHS}"
    CUDA_STANDARD 17)
  target_compile_options(simctl-bench-${bench} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)
endforeach()
