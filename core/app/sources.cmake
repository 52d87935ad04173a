list(APPEND SIM_CORE_SOURCES core/app/run.c core/app/writer.c core/app/writer_async.c core/app/out_folder.c core/app/summary.c core/app/solve_check.c core/app/resume.c core/app/state_file.c core/app/info.c
  core/app/mesh_cmd.c core/app/converge.c core/app/build_info.c)
