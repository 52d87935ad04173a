# SPDX-License-Identifier: MIT
# Physical checks of frictional contact: resting and sliding boxes, stick-slip on a slope, a
# spinning cylinder's drag, non-penetration, deformable-deformable contact, thread determinism.
sim_unit_test(test_contact_physics test_contact_physics.c)
# A box's corner in a fold of a cloth: the shipped box_on_trampoline, creases on and off.
sim_labelled_test(test_creases scene test_creases.c)
# The contact solve's end pass: cloth_on_knives' rows left unsolved by the Newton budget.
sim_labelled_test(test_end_pass scene test_end_pass.c)
