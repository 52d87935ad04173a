list(APPEND SIM_CORE_SOURCES core/model/pin_script.c core/model/body_mesh.c core/model/model_build.c core/model/model_checks.c
  core/model/system.c core/model/bending.c
  core/model/cable.c)
