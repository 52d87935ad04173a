# SPDX-License-Identifier: MIT
# The CUDA backend against the CPU backend (label gpu): every operation on random inputs, and
# short runs side by side. Built in every configuration; SKIPPED (77) where no CUDA device runs.
sim_labelled_test(test_gpu_backend gpu test_gpu_backend.c)
sim_labelled_test(test_gpu_runs gpu test_gpu_runs.c)
sim_labelled_test(test_gpu_contact gpu test_gpu_contact.c)
sim_labelled_test(test_gpu_detect gpu test_gpu_detect.c)
sim_labelled_test(test_gpu_delassus gpu test_gpu_delassus.c)
set_tests_properties(test_gpu_contact PROPERTIES TIMEOUT 2400)
