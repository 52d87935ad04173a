# SPDX-License-Identifier: MIT
# Frictional contact: NCP functions, Conjugate Residual, obstacles, BVH (DESIGN.md Secs. 6-7).
file(GLOB SIM_CONTACT_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(APPEND SIM_CORE_SOURCES ${SIM_CONTACT_SOURCES})
