#!/bin/bash
# rdma-core's own pyverbs test suite against a sroce device.  The bar is
# sroce's own score (156 ok, rxe has 86 on this kernel) with no FAIL or
# ERROR: anything sroce does not support must skip cleanly.
# sroce-timeout: 1800
# shellcheck disable=SC2317 # functions below are called via tap_require
set -u
. "$SROCE_TREE/selftests/lib.sh"

MIN_OK=${SROCE_PYVERBS_MIN_OK:-156}
SUITE=$SROCE_RESULTS/pyverbs

suite_copy() {
	rm -rf "$SUITE"
	mkdir -p "$SUITE"
	cp -r /usr/share/doc/rdma-core/tests "$SUITE/"
	find "$SUITE" -name '*.gz' -exec gunzip -f {} +
}

# One GID, the IPv4 one: left to choose, every test's setUp walks the
# GID table and forks `ls` and `ip` for each GID (pyverbs' base.py), a
# second or more per test under TCG, for 273 tests.
suite_run() {
	local gid
	gid=$(gid_index ns1 fab1 192.168.77.1) || return 1
	cd "$SUITE" &&
		ip netns exec ns1 /usr/bin/python3 tests/run_tests.py --dev fab1 \
			--port 1 --gid "$gid" -v \
			>"$SROCE_RESULTS/pyverbs.log" 2>&1
	true
}

# 2 MiB huge pages for the tests that register them (parent domain's
# huge page traffic); the VM's kernel reserves none at boot.
hugepages() {
	echo 32 >/proc/sys/vm/nr_hugepages &&
		[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 16 ]
}

count() { grep -cE "$1" "$SROCE_RESULTS/pyverbs.log" || true; }

# Why a test may skip on sroce (Documentation/testing.rst, pyverbs): the
# hardware it is written for (mlx5, EFA, a GPU, a PCI device).  Device
# memory is done (libsroce's dm.c): "Device memory is not supported" is
# no longer accepted.  Raw packet QPs, flow steering and RSS are done (on by
# default): "Create QP type 8 is not supported" and the other raw reasons
# are no longer accepted.
# A reason not listed fails: a feature that stopped working skips with
# "not supported" rather than failing.
SKIP_OK=(
	"Can not run the test over non MLX5 device"
	"Could not open mlx5 context (This is not an MLX5 device)"
	"Can not run the test over non EFA device"
	"Allocating dmabuf is not supported by /dev/dri/renderD128"
	"cuda-python 12.0+ must be installed to run CUDA tests"
	"PCI device must be passed by the user"
)
# mlx5's timestamp and tag matching tests ask for CQ fields only that
# hardware fills (a free-running or real-time clock, tag matching
# information); they skip with these, and nothing else may.
SKIP_MLX5_OK=(
	"Create Extended CQ is not supported:tests.test_mlx5_timestamp."
	"Extended CQ is not supported:tests.test_tag_matching."
	"Query device real time is not supported:tests.test_mlx5_timestamp."
)

# skips_unexplained: every skip as "reason:test", less the known ones.
skips_unexplained() {
	/usr/bin/python3 - "$SROCE_RESULTS/pyverbs.log" "${SKIP_OK[@]}" -- "${SKIP_MLX5_OK[@]}" <<-'EOF'
	import re, sys
	args = sys.argv[2:]
	cut = args.index("--")
	ok, scoped = set(args[:cut]), [a.split(":", 1) for a in args[cut + 1:]]
	test = None
	for line in open(sys.argv[1]):
	    m = re.match(r"^(test\w+) \(([\w.]+)\)", line)
	    if m:
	        test = m.group(2)
	    m = re.search(r"skipped '(.*)'$", line.rstrip())
	    if not m or m.group(1) in ok:
	        continue
	    if any(m.group(1) == r and (test or "").startswith(t) for r, t in scoped):
	        continue
	    print(f"{m.group(1)}: {test}")
	EOF
}

# Every skip is explained (prints those that are not).
skips_known() {
	local out
	out=$(skips_unexplained) || return 1
	[ -z "$out" ] || { echo "$out"; return 1; }
}

# A test that prints (is_fork_initialized) puts its verdict on a line alone.
count_ok() { count '( \.\.\. |^)ok$'; }

tap_plan 10
tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "veth topology" topo_veth
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab1 has its IPv4 GID" wait_for 30 gid_index ns1 fab1 192.168.77.1
tap_require "copy the suite" suite_copy
tap_check "2 MiB huge pages reserved" hugepages
suite_run
OK=$(count_ok)
SKIP=$(count ' \.\.\. skipped')
FAIL=$(count '( \.\.\. |^)FAIL$')
ERR=$(count '( \.\.\. |^)ERROR$')
tap_diag "pyverbs on fab1: $OK ok, $SKIP skipped, $FAIL FAIL, $ERR ERROR"
tail -n 5 "$SROCE_RESULTS/pyverbs.log" | tap_diag_file
# Our score is the bar (rxe: 86).  The rdma_cm tests run since the parent
# device names the netdev, their multicast ones since sroce does UD
# multicast; six XRC tests rxe skips pass too (test_xrc_atomic_*,
# test_xrc_traffic_cq_ex, test_qp_ex_xrc_send*, test_ro_xrc_traffic),
# the 17 of test_odp since sroce does on-demand paging (implicit MRs
# and prefetch too), and the 11 raw packet QP, flow steering and RSS
# tests since those are on by default, and the 14 device memory tests
# (test_device, test_mr; rxe has no DM).
tap_check "at least $MIN_OK ok (rxe: 86)" test "$OK" -ge "$MIN_OK"
tap_check "no FAIL or ERROR" sh -c "grep -E '( \.\.\. |^)(FAIL|ERROR)$' '$SROCE_RESULTS/pyverbs.log'; [ $FAIL = 0 ] && [ $ERR = 0 ]"
tap_check "every skip has a known reason (testing.rst)" skips_known
tap_done
