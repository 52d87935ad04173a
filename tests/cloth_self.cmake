# SPDX-License-Identifier: MIT
# A cloth against itself (contact.self_collision): a towel folded in two onto a table, and a
# cloth dropped on its edge that rolls over onto itself.
sim_unit_test(test_cloth_self test_cloth_self.c)
