# SPDX-License-Identifier: MIT
# Unit tests of core/mesh (fixtures in tests/data/mesh; run from tests/).
sim_unit_test(test_mesh_gen test_mesh_gen.c)
sim_unit_test(test_mesh_read test_mesh_read.c)
sim_unit_test(test_mesh_check test_mesh_check.c)
sim_unit_test(test_mesh_tetgen test_mesh_tetgen.c)
