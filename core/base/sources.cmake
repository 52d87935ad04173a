list(APPEND SIM_CORE_SOURCES core/base/status.c core/base/alloc.c core/base/cpu_simd.c)
