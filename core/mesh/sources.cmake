# sources of core/mesh (listed explicitly)
list(APPEND SIM_CORE_SOURCES
  core/mesh/mesh.c
  core/mesh/mesh_text.c
  core/mesh/gen_box.c
  core/mesh/gen_surface.c
  core/mesh/gen_cloth.c
  core/mesh/read_obj.c
  core/mesh/read_off.c
  core/mesh/read_stl.c
  core/mesh/read_tetgen.c
  core/mesh/read_msh.c
  core/mesh/read_vtk.c
  core/mesh/checks.c
  core/mesh/tetgen_run.c)
