// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* selftests/unit/test_sack.c, unchanged, as a KUnit case: see ktap.h. */
#include "ktap.h"
#define main sroce_kunit_sack
#include "../unit/test_sack.c"
