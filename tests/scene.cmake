# SPDX-License-Identifier: MIT
# Scene loader tests (JSON schema, messages, --set, round trip).
sim_unit_test(test_scene test_scene.c)
