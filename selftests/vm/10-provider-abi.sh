#!/bin/bash
# Provider ABI: libsroce claims sroce devices whatever their name (and only
# them, rxe keeps its own), opens contexts, and every verb reachable through
# the public libibverbs API lands in the right slot of the ops table we laid
# out ourselves: implemented verbs work, all others fail with EOPNOTSUPP
# from the stub of the same name (selftests/verbs/abi_ops).
set -u
. "$SROCE_TREE/selftests/lib.sh"

VERBS=$SROCE_TREE/selftests/verbs

# abi_ops prints its own TAP; keep only what explains a failure.
abi_ops() {
	local out rc=0
	out=$("$VERBS/abi_ops" "$@" 2>&1) || rc=$?
	echo "$out" | grep -v '^ok ' || true
	echo "$out" | grep -q '^not ok' && return 1
	return $rc
}

# claimed_by DEV PROVIDER [ENV...]: provider_of says DEV went to PROVIDER.
claimed_by() {
	local dev=$1 want=$2 out
	shift 2
	out=$(env "$@" "$VERBS/provider_of")
	echo "$out"
	echo "$out" | grep -qx "$dev $want"
}

# With a fake sroce_abi_version on DEV, libsroce must refuse it and say so.
refuses_abi() {
	local dev=$1 fake=$SROCE_RESULTS/fake-abi
	echo 99 >"$fake"
	unshare -m sh -c "
		mount --bind '$fake' /sys/class/infiniband/$dev/sroce_abi_version &&
		'$VERBS/provider_of' >'$SROCE_RESULTS/refuse.out' 2>'$SROCE_RESULTS/refuse.err'"
	cat "$SROCE_RESULTS/refuse.out" "$SROCE_RESULTS/refuse.err"
	# Refused, and said once although libibverbs asks twice per scan.
	! grep -q "^$dev " "$SROCE_RESULTS/refuse.out" &&
		[ "$(grep -c "libsroce: $dev: kernel sroce ABI version 99" "$SROCE_RESULTS/refuse.err")" = 1 ]
}

debug_trace() {
	SROCE_DEBUG=1 ibv_devinfo -d fab1 >/dev/null 2>"$SROCE_RESULTS/debug.err"
	cat "$SROCE_RESULTS/debug.err"
	grep -q 'libsroce: fab1: sroce device, kernel ABI 1' "$SROCE_RESULTS/debug.err" &&
		grep -q 'libsroce: fab1: context open, ABI 1' "$SROCE_RESULTS/debug.err"
}

quiet_by_default() {
	ibv_devinfo -d fab1 >/dev/null 2>"$SROCE_RESULTS/quiet.err"
	cat "$SROCE_RESULTS/quiet.err"
	! grep -q libsroce "$SROCE_RESULTS/quiet.err"
}

# Open and close many contexts: a leaked fd or context would pile up.
open_close_loop() {
	local i
	for i in $(seq 20); do
		ibv_devinfo -d fab1 >/dev/null || return 1
	done
}

tap_plan 19

[ -x "$VERBS/abi_ops" ] && [ -x "$VERBS/provider_of" ] ||
	tap_bail "selftests/verbs not built (make tests)"

tap_require "load the RDMA stack and install sroce.ko" sroce_load
tap_require "point libibverbs at the tree's libsroce" sroce_provider_setup
tap_require "veth pair ns1/v1 <-> ns2/v2" topo_veth
tap_require "rxe0 on lo (a real rxe to tell apart)" sh -c \
	'modprobe rdma_rxe && rdma link add rxe0 type rxe netdev lo'
tap_require "rdma link add fab1 (sroce, ns1/v1)" \
	ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "rdma link add rxe9 (sroce with an rxe-like name, ns2/v2)" \
	ip netns exec ns2 rdma link add rxe9 type sroce netdev v2

tap_check "fab1 is claimed by sroce" claimed_by fab1 sroce
tap_check "rxe9 is claimed by sroce, not by librxe's rxe* name match" \
	claimed_by rxe9 sroce
tap_check "rxe0 is still claimed by rxe" claimed_by rxe0 rxe
# Env drivers load before config ones: librxe is tried first, and only
# libibverbs' driver-id pass keeps it off rxe9.
tap_check "rxe9 stays sroce with librxe loaded first (driver-id priority)" \
	claimed_by rxe9 sroce RDMAV_DRIVERS=rxe

# Without libsroce, librxe's rxe* name match claims rxe9; the kernel must
# refuse it a context rather than let it drive a sroce device.
librxe_refused() {
	local rc=0
	mv /etc/libibverbs.d/sroce.driver "$SROCE_RESULTS/sroce.driver.off"
	claimed_by rxe9 rxe || rc=1
	! ibv_devinfo -d rxe9 || rc=1
	mv "$SROCE_RESULTS/sroce.driver.off" /etc/libibverbs.d/sroce.driver
	return $rc
}

# The kernel half of that guard, with raw uverbs commands.
raw_ctx() {
	"$VERBS/raw_ctx" rxe9 &&
		dmesg | grep -q "sroce: rxe9: context request without the sroce handshake"
}
tap_check "without libsroce, librxe may claim rxe9 but cannot open it" \
	librxe_refused
tap_check "sroce.ko refuses a context without the sroce handshake" raw_ctx

tap_check "abi_ops -d fab1: every verb lands in its own slot" abi_ops -d fab1
tap_check "abi_ops -d rxe9: same through the rxe-named sroce device" \
	abi_ops -d rxe9
tap_check "ibv_devinfo -d rxe0 still works (librxe)" ibv_devinfo -d rxe0
tap_check "quiet by default" quiet_by_default
tap_check "SROCE_DEBUG=1 traces matching and the context handshake" debug_trace
tap_check "unknown kernel ABI in the sysfs marker: refused with a message" \
	refuses_abi fab1
tap_check "20 open/close cycles" open_close_loop

rdma link delete fab1 2>/dev/null
rdma link delete rxe9 2>/dev/null
rdma link delete rxe0 2>/dev/null
topo_cleanup
tap_done
