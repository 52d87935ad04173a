list(APPEND SIM_CORE_SOURCES core/io/atomic_file.c)
list(APPEND SIM_CORE_SOURCES core/io/vtk_write.c core/io/vtk_read.c core/io/obj_write.c core/io/png_render.c
  core/io/csv_table.c)
