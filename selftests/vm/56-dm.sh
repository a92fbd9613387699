#!/bin/bash
# Device memory (dm.c in sroce.ko and in libsroce: host memory, as
# sroce's adapter is the CPU).  selftests/verbs/dm_verify allocates,
# copies and registers it, with the limits and refusals of the adapters
# that have it, moves data through it over RC (an RDMA WRITE to a DM MR,
# a READ of it, a WRITE with the DM MR as the local SGE, a WRITE at an
# MR that starts mid-page, a WRITE past it that fails with a remote
# access error; every byte of the DM checked after each) and imports it
# into a second context.  Then pyverbs' 12 device memory tests, which
# skip on rxe.
# sroce-timeout: 300
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

DMV=$SROCE_TREE/selftests/verbs/dm_verify
SUITE=$SROCE_RESULTS/pyverbs-dm

suite_copy() {
	rm -rf "$SUITE" && mkdir -p "$SUITE" &&
		cp -r /usr/share/doc/rdma-core/tests "$SUITE/" &&
		find "$SUITE" -name '*.gz' -exec gunzip -f {} +
}

# The DM tests of test_device and test_mr: all run, all pass.
pyverbs_dm() {
	local gid log=$SROCE_RESULTS/pyverbs-dm.log
	gid=$(gid_index ns1 fab1 192.168.77.1) || return 1
	(cd "$SUITE" && ip netns exec ns1 /usr/bin/python3 tests/run_tests.py \
		--dev fab1 --port 1 --gid "$gid" -v tests.test_device.DMTest \
		tests.test_device.SharedDMTest \
		tests.test_mr.DeviceMemoryAPITest) >"$log" 2>&1
	tail -n 3 "$log" | tap_diag_file
	grep -q '^Ran 12 tests' "$log" && grep -q '^OK$' "$log"
}

tap_plan 8
tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "veth topology" topo_veth
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab1 has its IPv4 GID" wait_for 30 gid_index ns1 fab1 192.168.77.1
G4A=$(gid_index ns1 fab1 192.168.77.1)
tap_check "dm_verify on fab1" ip netns exec ns1 "$DMV" -d fab1 -g "$G4A"
tap_require "copy the pyverbs suite" suite_copy
tap_check "pyverbs device memory tests: 12 ok" pyverbs_dm
tap_done
