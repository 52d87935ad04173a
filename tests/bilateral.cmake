# SPDX-License-Identifier: MIT
# Constraint pins as bilateral rows of the contact solve: hard, compliant and moving pins on a
# hanging Neo-Hookean bar.
sim_unit_test(test_bilateral test_bilateral.c)
