#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# 32-provider-rings.sh - libsroce's shared-ring code (CQ polling, the
# extended CQ, post_send and the ibv_qp_ex builders, post_recv) against
# rings in ordinary memory, with this script's test program playing the
# kernel's side: encodings, index wrap-around, full/empty, local
# validation, and producer/consumer races (selftests/verbs/prov_rings,
# built with ASan and UBSan).  No device, no root needed.  Output is TAP.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PROG=$TOP/selftests/verbs/prov_rings

[ -x "$PROG" ] || { echo "1..0 # SKIP $PROG not built (make tests)"; exit 0; }
exec "$PROG"
