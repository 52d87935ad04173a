# SPDX-License-Identifier: MIT
sim_unit_test(test_io test_io.c)
