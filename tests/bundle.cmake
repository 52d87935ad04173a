# SPDX-License-Identifier: MIT
# The relocatable bundle (scripts/bundle.sh): built from simctl, extracted, run under env -i.
add_test(NAME test_bundle COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_bundle.sh $<TARGET_FILE:simctl>
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_bundle PROPERTIES LABELS scene TIMEOUT 300)
