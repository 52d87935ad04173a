add_executable(simctl cli/main.c cli/args.c cli/cmd_scene.c cli/cmd_mesh.c cli/progress.c)
target_link_libraries(simctl PRIVATE simcore)
set_target_properties(simctl PROPERTIES LINKER_LANGUAGE C)

# simctl-bench-sensitivity: how far one CPU step moves from a small difference of its start
# (scripts/sensitivity.sh: the scale of the GPU tests' tolerances)
add_executable(simctl-bench-sensitivity cli/bench_sensitivity.c)
target_link_libraries(simctl-bench-sensitivity PRIVATE simcore)
set_target_properties(simctl-bench-sensitivity PROPERTIES LINKER_LANGUAGE CXX)
