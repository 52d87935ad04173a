# SPDX-License-Identifier: MIT
# Unit tests of core/contact/delassus.c (W = H A^{-1} H^T by S and by CHOLMOD solves).
sim_unit_test(test_delassus test_delassus.c)
# core/contact/delassus_op.c: the matrix-free W through the contacts' columns of S, to the bit
# against the product through all of S.
sim_unit_test(test_delassus_op test_delassus_op.c)
