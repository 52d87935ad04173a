# SPDX-License-Identifier: MIT
# The q_t pass's side memory of open surfaces (core/contact/world.c remember_sides).
sim_unit_test(test_world_sides test_world_sides.c)
