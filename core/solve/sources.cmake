list(APPEND SIM_CORE_SOURCES core/solve/factor.c core/solve/sparse_inverse.c core/solve/backend_cpu.c core/solve/backend_cpu_contact.c
  core/solve/global_variants.c core/solve/stepper.c core/solve/stepper_state.c)
