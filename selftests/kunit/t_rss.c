// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* selftests/unit/test_rss.c, unchanged, as a KUnit case: see ktap.h. */
#include "ktap.h"
#define main sroce_kunit_rss
#include "../unit/test_rss.c"
