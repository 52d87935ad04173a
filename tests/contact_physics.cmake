# SPDX-License-Identifier: MIT
# Physical checks of frictional contact: resting and sliding boxes, stick-slip on a slope, a
# spinning cylinder's drag, non-penetration, deformable-deformable contact, thread determinism.
sim_unit_test(test_contact_physics test_contact_physics.c)
