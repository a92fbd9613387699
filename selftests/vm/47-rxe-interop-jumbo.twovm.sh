#!/bin/bash
# Interop with rdma_rxe, two VMs (issue 5), path MTU 4096 on a 9000-byte
# link, IPv4 and IPv6 GIDs: the cases whose packets the larger MTU
# changes (multi-packet RC writes, reads and sends, UD at the full MTU,
# ibv_rc_pingpong --chk at 1 MiB, and the rdma_cm tools, which take the
# path MTU from the route), each with sroce as the server and as the
# client.  VM A captures all of it and checks it with tshark and with
# selftests/tools/roce_check.py at --pmtu 4096.
# sroce-timeout: 1500
# sroce-lane: long
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"

NCASES=7
jumbo() {
	local f=$1
	iop_case "$f" "ib_write_bw" perf ib_write_bw -n 200 -s 65536
	iop_case "$f" "ib_read_bw" perf ib_read_bw -n 200 -s 65536
	iop_case "$f" "ib_send_bw" perf ib_send_bw -n 200 -s 65536
	iop_case "$f" "ib_send_bw -c UD, 4096 B" perf ib_send_bw -c UD -D 1 -s 4096
	if [ "$f" = 4 ]; then
		iop_case "$f" "ib_write_bw -R (rdma_cm)" perfcm ib_write_bw -n 200 -s 65536
	else
		# perftest 4.5's rdma_cm client cannot resolve IPv6.
		iop_case "$f" "ucmatose (rdma_cm)" ucmatose 20 65536
	fi
	iop_case "$f" "ibv_rc_pingpong --chk 1 MiB" pingpong 1048576 5
	iop_case "$f" "rping -V" rping 20
}

taps=$((IOP_SETUP_TAPS + 1 + 2 * NCASES * IOP_CASE_TAPS))
[ "$SROCE_VM" = A ] && taps=$((taps + IOP_FINISH_TAPS_A))
tap_plan "$taps"
iop_setup 9000
tap_require "VM $SROCE_VM: capture started (VM A)" iop_capture_start
jumbo 4
jumbo 6
iop_finish --min-ours 1000 --min-ours6 1000
tap_done
