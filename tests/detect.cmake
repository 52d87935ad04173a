# SPDX-License-Identifier: MIT
# Unit tests of core/contact/detect.c (collision detection).
sim_unit_test(test_detect test_detect.c)
