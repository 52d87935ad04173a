# SPDX-License-Identifier: MIT
# Scene loader tests of "contact" and "obstacles" (schema, messages, --set, round trip).
sim_unit_test(test_scene_contact test_scene_contact.c)
