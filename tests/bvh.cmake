# SPDX-License-Identifier: MIT
# Unit tests of core/contact/tri_distance.h and core/contact/bvh.c.
sim_unit_test(test_bvh test_bvh.c)
