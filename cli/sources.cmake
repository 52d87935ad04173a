add_executable(simctl cli/main.c cli/args.c cli/cmd_scene.c cli/cmd_mesh.c cli/progress.c)
target_link_libraries(simctl PRIVATE simcore)
set_target_properties(simctl PROPERTIES LINKER_LANGUAGE C)
