# SPDX-License-Identifier: MIT
# End-to-end tests of the simctl program (fixtures in tests/data/cli; run from tests/).
add_test(NAME test_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:simctl>
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_cli PROPERTIES LABELS scene TIMEOUT 600)
