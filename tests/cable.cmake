# SPDX-License-Identifier: MIT
# Cables: one bilateral length row through points embedded in a bar (pull, hold, release; free
# floating).
sim_unit_test(test_cable test_cable.c)
