sim_unit_test(test_material test_material.c)
