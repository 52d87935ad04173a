# SPDX-License-Identifier: MIT
# Unit tests of core/contact/rows.c (contact rows H, H^T, targets).
sim_unit_test(test_rows test_rows.c)
