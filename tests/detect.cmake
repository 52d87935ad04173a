# SPDX-License-Identifier: MIT
# Unit tests of core/contact/detect.c (collision detection).
sim_unit_test(test_detect test_detect.c)
sim_unit_test(test_detect_edge test_detect_edge.c)
sim_unit_test(test_detect_obstacle_edge test_detect_obstacle_edge.c)
sim_unit_test(test_detect_crease test_detect_crease.c)
sim_unit_test(test_stray_creases test_stray_creases.c)
sim_unit_test(test_point_folds test_point_folds.c)
# The benchmark build's counting (SIMCTL_DETECT_TALLY, scripts/detect_tally.sh) is compiled in
# every build, in an object library of its own that nothing links, so that it cannot rot
# unseen: detect.c with its headers, the counters on.
if(NOT SIMCTL_DETECT_TALLY)
  add_library(sim_detect_tally_check OBJECT ${CMAKE_SOURCE_DIR}/core/contact/detect.c)
  target_compile_definitions(sim_detect_tally_check PRIVATE SIM_DETECT_TALLY)
  target_link_libraries(sim_detect_tally_check PRIVATE simcore_obj)
endif()
