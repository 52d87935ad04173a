# SPDX-License-Identifier: MIT
# Unit tests of core/contact/sdf.h (analytic obstacles, tangent bases).
sim_unit_test(test_sdf test_sdf.c)
