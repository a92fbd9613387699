#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build the protocol core into a throwaway kernel module with W=1 and
# sparse (C=2) and fail on any compiler or sparse warning.  The dummy
# module also holds the kernel-side compile-time checks that the core's
# private constants match the kernel's (ib_wc_status numbering) and that
# crc32_le() fits the pluggable CRC type through a wrapper.
#
# KVER / KDIR select the kernel build tree (default: newest installed).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
proto=$(cd "$here/../../drivers/infiniband/sw/sroce/proto" && pwd)
KVER=${KVER:-$(ls -1d /lib/modules/*/build 2>/dev/null | \
	sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n1)}
KDIR=${KDIR:-/lib/modules/$KVER/build}
[ -d "$KDIR" ] || { echo "not ok - no kernel build tree at $KDIR"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/proto"
cp "$proto"/*.[ch] "$tmp/proto/"
objs=$(cd "$proto" && ls *.c | sed 's,^,proto/,;s,\.c$,.o,' | tr '\n' ' ')

cat > "$tmp/Kbuild" <<KB
obj-m := sroce_proto_check.o
sroce_proto_check-y := modmain.o $objs
ccflags-y := -Werror
KB

cat > "$tmp/modmain.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/crc32.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_pack.h>
#include "proto/wire.h"
#include "proto/icrc.h"
#include "proto/aeth.h"
#include "proto/resp.h"
#include "proto/psn.h"

#define SAME_WC(x) static_assert((int)SROCE_WC_##x == (int)IB_WC_##x)
SAME_WC(SUCCESS);
SAME_WC(LOC_LEN_ERR);
SAME_WC(LOC_QP_OP_ERR);
SAME_WC(LOC_EEC_OP_ERR);
SAME_WC(LOC_PROT_ERR);
SAME_WC(WR_FLUSH_ERR);
SAME_WC(MW_BIND_ERR);
SAME_WC(BAD_RESP_ERR);
SAME_WC(LOC_ACCESS_ERR);
SAME_WC(REM_INV_REQ_ERR);
SAME_WC(REM_ACCESS_ERR);
SAME_WC(REM_OP_ERR);
SAME_WC(RETRY_EXC_ERR);
SAME_WC(RNR_RETRY_EXC_ERR);
SAME_WC(LOC_RDD_VIOL_ERR);
SAME_WC(REM_INV_RD_REQ_ERR);
SAME_WC(REM_ABORT_ERR);
SAME_WC(INV_EECN_ERR);
SAME_WC(INV_EEC_STATE_ERR);
SAME_WC(FATAL_ERR);
SAME_WC(RESP_TIMEOUT_ERR);
SAME_WC(GENERAL_ERR);
static_assert(SROCE_OPCODE_CNP == IB_OPCODE_CNP + 1);
static_assert((SROCE_TR_UD | SROCE_OP_SEND_ONLY_IMM) ==
	      IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE);
static_assert((SROCE_TR_RC | SROCE_OP_SEND_ONLY_INV) ==
	      IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE);

static u32 check_crc32(u32 crc, const void *p, size_t n)
{
	return crc32_le(crc, p, n);
}

static int __init check_init(void)
{
	static const u8 v[] = "123456789";
	sroce_crc32_fn fn = check_crc32;

	/* Table and kernel CRC agree, so the core's tests carry over. */
	if (fn(~0u, v, 9) != sroce_crc32_le(~0u, v, 9) ||
	    sroce_resp_classify_psn(0, 0xffffff) != SROCE_RESP_PSN_DUPLICATE)
		return -EINVAL;
	return 0;
}

static void __exit check_exit(void)
{
}

module_init(check_init);
module_exit(check_exit);
MODULE_LICENSE("GPL");
C

log="$tmp/build.log"
if ! make -C "$KDIR" M="$tmp" W=1 C=2 modules > "$log" 2>&1; then
	cat "$log"
	echo "not ok - proto/ kernel build failed"
	exit 1
fi
if grep -E 'warning|error' "$log"; then
	echo "not ok - proto/ kernel build has warnings"
	exit 1
fi
grep -E '^  (CC|CHECK|LD) ' "$log" | sed 's,'"$tmp"'/,,'
echo "ok - proto/ builds into a $KVER module with W=1 and sparse, no warnings"
