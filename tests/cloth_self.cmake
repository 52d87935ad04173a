# SPDX-License-Identifier: MIT
# A cloth against itself: a towel folded in two onto a table (contact.self_collision).
sim_unit_test(test_cloth_self test_cloth_self.c)
