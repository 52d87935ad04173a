# SPDX-License-Identifier: MIT
# The smallest rows of the paper's Tables 1-2 (cloth 5.1k with each bending; the 5.3k bar and
# wooper stand-in): fails when S exceeds the paper's figure / 3 (Table 1) or / 4 (Table 2),
# when float is not smaller than double, or when a mesh is more than 5% off the table's counts.
add_test(NAME test_paper_tables
         COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/paper_tables.sh --simctl $<TARGET_FILE:simctl>
                 --out ${CMAKE_CURRENT_BINARY_DIR}/paper_tables --rows smallest --shared none --check
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(test_paper_tables PROPERTIES LABELS scene TIMEOUT 600
                     ENVIRONMENT SIMCTL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/paper_tables_cache)
