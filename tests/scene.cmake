# SPDX-License-Identifier: MIT
# Scene loader tests (JSON schema, messages, --set, round trip).
sim_unit_test(test_scene test_scene.c)
sim_unit_test(test_scene_cable test_scene_cable.c)
