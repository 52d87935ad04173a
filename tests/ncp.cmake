# SPDX-License-Identifier: MIT
# Unit tests of core/contact/ncp.h (NCP functions, derivatives, cone projections).
sim_unit_test(test_ncp test_ncp.c)
