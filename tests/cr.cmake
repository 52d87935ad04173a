# SPDX-License-Identifier: MIT
# Unit tests of core/contact/cr.c (Conjugate Residual).
sim_unit_test(test_cr test_cr.c)
