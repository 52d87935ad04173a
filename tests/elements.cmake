# SPDX-License-Identifier: MIT
# Elements in the model: cloth, materials, bending, ADMM-PD, inverted tets, first iterates.
sim_unit_test(test_elements test_elements.c)
