# SPDX-License-Identifier: MIT
# Unit tests of core/contact/nsn.c (non-smooth Newton contact stage) on free particles.
sim_unit_test(test_nsn test_nsn.c)
sim_unit_test(test_nsn_line_search test_nsn_line_search.c)
