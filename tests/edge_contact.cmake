# SPDX-License-Identifier: MIT
# Edge-edge contact (contact.edge_edge): two cloth ribbons and two solid bars crossed, which can
# meet only edge to edge.
sim_unit_test(test_edge_contact test_edge_contact.c)
