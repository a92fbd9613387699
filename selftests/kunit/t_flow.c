// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* selftests/unit/test_flow.c, unchanged, as a KUnit case: see ktap.h. */
#include "ktap.h"
#define main sroce_kunit_flow
#include "../unit/test_flow.c"
