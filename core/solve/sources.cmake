list(APPEND SIM_CORE_SOURCES core/solve/factor.c core/solve/sparse_inverse.c)
