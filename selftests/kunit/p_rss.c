// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The module's own proto/rss.c: the code under test, built in here too. */
#include "../../drivers/infiniband/sw/sroce/proto/rss.c"
