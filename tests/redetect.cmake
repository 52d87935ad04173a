# SPDX-License-Identifier: MIT
# Re-detection at a step's end: a bar dragged through a floor within one step.
sim_unit_test(test_redetect test_redetect.c)
