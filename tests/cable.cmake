# SPDX-License-Identifier: MIT
# Cables: one bilateral length row through points embedded in a bar. test_cable: the pull keys,
# the gradient, the embedding, a bar at rest and one floating free (unit); test_cable_bend: the
# bar pulled, held and released, hard and compliant, against beam theory (scene);
# test_cable_grasp: two cable fingers lift a soft box by friction (scene).
sim_unit_test(test_cable test_cable.c)
add_test(NAME test_cable_bend COMMAND test_cable bend WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_cable_grasp COMMAND test_cable grasp WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_cable_bend test_cable_grasp PROPERTIES LABELS scene TIMEOUT 600)
