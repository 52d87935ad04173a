sim_unit_test(test_sparse_inverse test_sparse_inverse.c)
sim_unit_test(test_svd3 test_svd3.c)
sim_unit_test(test_arap test_arap.c)
