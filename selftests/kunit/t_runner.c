// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* selftests/unit/test_runner.c, unchanged, as a KUnit case: see ktap.h. */
#include "ktap.h"
#define main sroce_kunit_runner
#include "../unit/test_runner.c"
