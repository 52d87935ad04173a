# The CUDA backend: built only when nvcc is found (SIMCTL_CUDA AUTO/ON); sm_90 plus PTX.
set(CMAKE_CUDA_STANDARD 17)
add_library(simgpu STATIC gpu/device.cu)
set_target_properties(simgpu PROPERTIES CUDA_ARCHITECTURES "90-real;90-virtual"
  POSITION_INDEPENDENT_CODE ON)
target_include_directories(simgpu PRIVATE ${CMAKE_SOURCE_DIR}/core ${CHOLMOD_INCLUDE_DIR})
target_link_libraries(simgpu PUBLIC CUDA::cudart_static)
