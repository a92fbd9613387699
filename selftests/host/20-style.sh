#!/bin/bash
# The module is checkpatch-clean and sparse-clean (kernel coding style is
# part of the contract, see DEVELOPERS.md).
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
KVER=$(make -s -C "$SROCE_TREE" print-kver)
. "$SROCE_TREE/selftests/lib.sh"

# checkpatch.pl ships in Debian's linux-source-6.1 tarball; pull out only
# the files it needs, once.
CACHE=$SROCE_TREE/out/cache/checkpatch
checkpatch_fetch() {
	local tarball=/usr/src/linux-source-6.1.tar.xz
	[ -x "$CACHE/scripts/checkpatch.pl" ] && return 0
	mkdir -p "$CACHE"
	tar -xJf "$tarball" -C "$CACHE" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
}

checkpatch_run() {
	local f out
	out=$("$CACHE/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f $(find "$SROCE_TREE/drivers/infiniband/sw/sroce" "$SROCE_TREE/selftests/kmod" -name '*.[ch]' ! -name '*.mod.c') \
		"$SROCE_TREE/include/uapi/rdma/sroce-abi.h" 2>&1 | grep -v '^total:') || true
	[ -z "$out" ] || { echo "$out"; return 1; }
}

sparse_run() {
	local out
	# C=2 checks every file, rebuilt or not.
	out=$(make -s -C "/lib/modules/$KVER/build" M="$SROCE_TREE" C=2 \
		CHECKFLAGS="-Wno-unknown-attribute" modules 2>&1 |
		grep -E 'warning|error' | grep -v 'Skipping BTF') || true
	[ -z "$out" ] || { echo "$out"; return 1; }
}

tap_plan 3
tap_check "checkpatch.pl available" checkpatch_fetch
tap_check "checkpatch clean" checkpatch_run
tap_check "sparse clean" sparse_run
tap_done
