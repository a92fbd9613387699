#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# 30-provider-layout.sh - our declaration of libibverbs' private ops table
# (tools/lib/sroce/verbs-private.h) against the installed libibverbs: the
# real verbs_set_ops() copies a table of marked pointers into a scratch
# context and every public mirror must get the slot of its own name
# (selftests/verbs/ops_layout).  No device, no root needed.  Output is TAP.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PROG=$TOP/selftests/verbs/ops_layout

[ -x "$PROG" ] || { echo "1..0 # SKIP $PROG not built (make tests)"; exit 0; }
exec "$PROG"
