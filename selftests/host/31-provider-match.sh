#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# 31-provider-match.sh - libsroce's device matching, without a kernel.
#
# Builds a fake /sys (libibverbs honours SYSFS_PATH) and a fake
# /dev/infiniband in a private mount namespace, then asks libibverbs which
# provider claims which device (selftests/verbs/provider_of).  This needs
# libibverbs' sysfs fallback, i.e. a host where NETLINK_RDMA is unavailable
# (no ib_core); elsewhere it skips.  It cannot exercise the driver-id
# priority pass, which exists only with netlink: the VM test does that.
#
# Needs root (unshare -m, mknod) and the built provider and test programs
# (make provider tests); skips without them.  Output is TAP.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PROVIDER=$TOP/tools/lib/sroce/libsroce
PROVIDER_OF=$TOP/selftests/verbs/provider_of

if [ "${1:-}" != --inside ]; then
	if python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)' 2>/dev/null; then
		echo "1..0 # SKIP NETLINK_RDMA is available, libibverbs would ignore a fake sysfs"
		exit 0
	fi
	for f in "$PROVIDER-rdmav34.so" "$PROVIDER_OF"; do
		[ -e "$f" ] || { echo "1..0 # SKIP $f not built"; exit 0; }
	done
	exec unshare -m "$0" --inside
fi

n=0 failed=0
check() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		failed=$((failed + 1))
	fi
}

FAKE=$(mktemp -d /tmp/sroce-host-match.XXXXXX)
trap 'rm -rf "$FAKE"' EXIT
SYS=$FAKE/sys

# A private /dev: libibverbs stat()s /dev/infiniband/uverbsN before it
# will consider a device.  Nothing here ever opens one.
mount -t tmpfs -o mode=755 sroce-dev /dev || exit 1
mknod -m 666 /dev/null c 1 3
mkdir /dev/infiniband

# fake_dev INDEX IBDEV UVERBS_ABI [SROCE_MARKER]
fake_dev() {
	local idx=$1 ibdev=$2 abi=$3 marker=${4:-}
	local uv=$SYS/class/infiniband_verbs/uverbs$idx
	local ib=$SYS/class/infiniband/$ibdev

	mkdir -p "$uv" "$ib"
	echo "$ibdev" >"$uv/ibdev"
	echo "231:$((192 + idx))" >"$uv/dev"
	echo "$abi" >"$uv/abi_version"
	echo "1: CA" >"$ib/node_type"
	[ -z "$marker" ] || echo "$marker" >"$ib/sroce_abi_version"
	mknod "/dev/infiniband/uverbs$idx" c 231 $((192 + idx))
}

mkdir -p "$SYS/class/infiniband_verbs"
echo 6 >"$SYS/class/infiniband_verbs/abi_version"
fake_dev 0 fab1 1 1		# ours, an arbitrary name
fake_dev 1 rxe9 1 1		# ours, with an rxe-like name
fake_dev 2 rxe0 2		# a real rxe: no marker
fake_dev 3 fab2 1 7		# ours, but a kernel ABI we do not know
fake_dev 4 fab3 3 1		# uverbs ABI outside match_min/max
fake_dev 5 fab4 1 garbage	# unreadable marker

export SYSFS_PATH=$SYS
OUT=$FAKE/out ERR=$FAKE/err

# libsroce first, then the system's providers (librxe among them).
RDMAV_DRIVERS=$PROVIDER "$PROVIDER_OF" >"$OUT" 2>"$ERR"
claims() { grep -qx "$1 $2" "$OUT"; }
absent() { ! grep -q "^$1 " "$OUT"; }
said() { grep -q -- "$1" "$ERR"; }

echo "# claims:" $(tr '\n' ',' <"$OUT")
sed 's/^/# stderr: /' "$ERR"
check "provider_of runs" test -s "$OUT"
check "fab1 (marker, any name) -> sroce" claims fab1 sroce
check "rxe9 (marker) -> sroce, not rxe" claims rxe9 sroce
check "rxe0 (no marker) -> rxe, not sroce" claims rxe0 rxe
check "fab2 (kernel ABI 7) is claimed by nobody" absent fab2
check "... and libsroce says why" said "fab2: kernel sroce ABI version 7"
check "fab3 (uverbs ABI 3) is refused by libibverbs' range check" absent fab3
check "... with libibverbs' warning" said "Driver sroce does not support the kernel ABI of 3"
check "fab4 (garbled marker) is claimed by nobody" absent fab4
check "... and libsroce says why" said "fab4: cannot read"
check "no other libsroce messages" sh -c \
	"! grep 'libsroce' '$ERR' | grep -v -e 'fab2: kernel' -e 'fab4: cannot'"

# Debug tracing is opt-in and names the decision.
SROCE_DEBUG=1 RDMAV_DRIVERS=$PROVIDER "$PROVIDER_OF" >/dev/null 2>"$ERR"
check "SROCE_DEBUG=1 traces registration" said "libsroce: registered (private ABI 34"
check "SROCE_DEBUG=1 traces the match of fab1" said "libsroce: fab1: sroce device, kernel ABI 1"

# ibv_devices loads the provider the ordinary way.
check "ibv_devices lists fab1 with libsroce loaded" sh -c \
	"RDMAV_DRIVERS=$PROVIDER ibv_devices 2>/dev/null | grep -qw fab1"

# Without netlink there is no driver id, so the order providers are tried
# in decides a name clash; documented, not asserted.
RDMAV_DRIVERS=rxe:$PROVIDER "$PROVIDER_OF" 2>/dev/null | grep '^rxe9 ' |
	sed 's/^/# sysfs-only, librxe loaded first: /'

echo "1..$n"
[ "$failed" -eq 0 ]
