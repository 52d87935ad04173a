# SPDX-License-Identifier: MIT
# Unit tests of core/model/bending.c.
sim_unit_test(test_bending test_bending.c)
