# SPDX-License-Identifier: MIT
# The squeezing ball's short run at a coarse resolution: through the rollers, volume once free,
# depth in the rollers. A scene-length run: labelled "scene", not run under the sanitizers.
sim_unit_test(test_contact_squeeze test_contact_squeeze.c)
set_tests_properties(test_contact_squeeze PROPERTIES LABELS scene)
