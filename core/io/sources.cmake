list(APPEND SIM_CORE_SOURCES core/io/atomic_file.c)
