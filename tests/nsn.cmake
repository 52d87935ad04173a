# SPDX-License-Identifier: MIT
# Unit tests of core/contact/nsn.c (non-smooth Newton contact stage): free particles, the line
# search, CR's products with a float copy of W, and the exact Newton system's scaling.
sim_unit_test(test_nsn test_nsn.c)
sim_unit_test(test_nsn_line_search test_nsn_line_search.c)
sim_unit_test(test_nsn_cr_float test_nsn_cr_float.c)
sim_unit_test(test_nsn_exact_scaling test_nsn_exact_scaling.c)
