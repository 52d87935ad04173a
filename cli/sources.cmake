# the program's sources, which simctl-emu (tests/emu/emu.cmake) shares
set(SIM_CLI_SOURCES cli/main.c cli/args.c cli/cmd_scene.c cli/cmd_mesh.c cli/cmd_devices.c
  cli/progress.c)
add_executable(simctl ${SIM_CLI_SOURCES})
target_link_libraries(simctl PRIVATE simcore)
set_target_properties(simctl PROPERTIES LINKER_LANGUAGE C)

# simctl-bench-sensitivity: how far one CPU step moves from a small difference of its start
# (scripts/sensitivity.sh: the scale of the GPU tests' tolerances)
add_executable(simctl-bench-sensitivity cli/bench_sensitivity.c)
target_link_libraries(simctl-bench-sensitivity PRIVATE simcore)
set_target_properties(simctl-bench-sensitivity PROPERTIES LINKER_LANGUAGE CXX)
