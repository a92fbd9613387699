#!/bin/bash
# Interop with rdma_rxe, two VMs (issue 5), IPv4 GIDs, path MTU 1024 on
# a 1500-byte link: VM A runs sroce, VM B rdma_rxe.  Every case runs with
# sroce as the server and as the client: the perftest RC tools, UD and UC
# sends, perftest over rdma_cm, ibv_rc_pingpong --chk at 1 MiB, rping -V
# (selftests/interop.sh: iop_matrix).  VM A captures all of it and checks
# the capture with tshark and with an independent ICRC/BTH checker
# (selftests/tools/roce_check.py).  sroce offers ICRC elision
# throughout: none may reach rxe.
# sroce-timeout: 1500
# sroce-lane: long
# shellcheck disable=SC2317 # no_elision is called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"

no_elision() {
	[ "$(counter "" fab0 tx_icrc_elided)" = 0 ] &&
		[ "$(counter "" fab0 rx_icrc_elided)" = 0 ]
}

taps=$((IOP_SETUP_TAPS + 1 + IOP_MATRIX_CASES * IOP_CASE_TAPS))
[ "$SROCE_VM" = A ] && taps=$((taps + IOP_FINISH_TAPS_A + 2))
tap_plan "$taps"
iop_setup 1500
# sroce offers everything it has; none of it may reach rxe (the checker
# fails an elided packet toward an address that never accepted it).
[ "$SROCE_VM" = A ] &&
	tap_require "VM A: fab0 offers ICRC elision" \
		sh -c 'echo 1 >/sys/class/infiniband/fab0/icrc_elide'
tap_require "VM $SROCE_VM: capture started (VM A)" iop_capture_start
iop_matrix 4
[ "$SROCE_VM" = A ] &&
	tap_check "VM A: no ICRC elided toward rxe, none taken from it" no_elision
iop_finish --min-ours 1000
tap_done
