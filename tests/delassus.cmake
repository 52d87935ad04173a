# SPDX-License-Identifier: MIT
# Unit tests of core/contact/delassus.c (W = H A^{-1} H^T by S and by CHOLMOD solves).
sim_unit_test(test_delassus test_delassus.c)
