#!/bin/bash
# Observability: the counters move by what the traffic explains; `rdma
# resource show qp -dd` and debugfs show a live QP's transport state;
# the tracepoints fire (packets, QP states, and on a lossy link rewinds
# and window cuts); and it all goes away with the device.
# sroce-timeout: 900
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

DBG=/sys/kernel/debug
TRC=/sys/kernel/tracing
PORT=18700
ITERS=50
SIZE=4096
# A path MTU below the port's (1024 on a 1500-byte veth) keeps the packet
# counts exact: at the port's own, large segments (seg.c) would cut the
# messages at 1432 bytes once the first answer came, at 1024 before.
MTU=512
# The driver detail every RC QP carries, and the congestion control's name
# (rdma(8) prints each with a "drv_" prefix).
FIELDS="home_cpu prio psn_next psn_una psn_max in_flight psn_expected msn cwnd
	srtt_us rttvar_us retransmits timeouts retry_left tx_queued sacked lost
	ofo_held rack_min_rtt_us bw_pps min_rtt_us wan_share pace_pps elide_req elide_resp seg cc sr"

pingpong() {
	local iters=$1
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		ibv_rc_pingpong -d fab1 -g "$G4A" -s "$SIZE" -m "$MTU" -n "$iters" \
			-p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab2 -g "$G4B" -s "$SIZE" -m "$MTU" -n "$iters" \
			-p "$PORT" --chk 192.168.77.1
}

# ibv_rc_pingpong sends ITERS messages each way, each SIZE/MTU packets.
# Every packet a device sent is data, a retransmission, an ACK or a NAK,
# so tx_packets must be exactly their sum (NAKs are counted even when the
# local stack refused them, hence a range); the peer received at least
# the data and at most what was sent; ACKs were both sent and received.
counters_move() {
	local b=$SROCE_RESULTS/cnt
	local data=$((ITERS * ((SIZE + MTU - 1) / MTU)))
	local d tx rx rt acks naks acks_in peer_tx
	counter_snap ns1 fab1 "$b.1.before"
	counter_snap ns2 fab2 "$b.2.before"
	pingpong "$ITERS"
	counter_snap ns1 fab1 "$b.1.after"
	counter_snap ns2 fab2 "$b.2.after"
	for d in 1 2; do
		tx=$(counter_delta "$b.$d.before" "$b.$d.after" tx_packets)
		rt=$(counter_delta "$b.$d.before" "$b.$d.after" retransmits)
		acks=$(counter_delta "$b.$d.before" "$b.$d.after" acks_sent)
		acks_in=$(counter_delta "$b.$d.before" "$b.$d.after" acks_received)
		naks=$(($(counter_delta "$b.$d.before" "$b.$d.after" seq_naks_sent) +
			$(counter_delta "$b.$d.before" "$b.$d.after" rnr_naks_sent) +
			$(counter_delta "$b.$d.before" "$b.$d.after" err_naks_sent)))
		rx=$(counter_delta "$b.$d.before" "$b.$d.after" rx_packets)
		peer_tx=$(counter_delta "$b.$((3 - d)).before" "$b.$((3 - d)).after" tx_packets)
		echo "fab$d: tx $tx = data $data + retransmits $rt + acks $acks + naks <= $naks;" \
			"rx $rx of the peer's $peer_tx; acks received $acks_in;" \
			"sends/receives completed" \
			"$(counter_delta "$b.$d.before" "$b.$d.after" sends_completed)/$(counter_delta "$b.$d.before" "$b.$d.after" recvs_completed)"
		# (set -e does not stop at a failed test inside an && list.)
		[ "$tx" -ge $((data + rt + acks)) ]
		[ "$tx" -le $((data + rt + acks + naks)) ]
		[ "$rx" -ge "$data" ]
		[ "$rx" -le "$peer_tx" ]
		[ "$acks" -ge 1 ]
		[ "$acks_in" -ge 1 ]
		[ "$(counter_delta "$b.$d.before" "$b.$d.after" tx_bytes)" -gt $((ITERS * SIZE)) ]
		[ "$(counter_delta "$b.$d.before" "$b.$d.after" rx_bytes)" -gt $((ITERS * SIZE)) ]
		# Each side sends ITERS messages and receives as many.
		[ "$(counter_delta "$b.$d.before" "$b.$d.after" sends_completed)" = "$ITERS" ]
		[ "$(counter_delta "$b.$d.before" "$b.$d.after" recvs_completed)" = "$ITERS" ]
	done
}

# A pingpong that runs until stopped, to look at while it runs.
LIVE_PIDS=
live_start() {
	PORT=$((PORT + 1))
	ip netns exec ns1 ibv_rc_pingpong -d fab1 -g "$G4A" -s "$SIZE" \
		-n 100000000 -p "$PORT" >"$SROCE_RESULTS/live-server.out" 2>&1 &
	LIVE_PIDS=$!
	wait_listen ns1 "$PORT" || return 1
	ip netns exec ns2 ibv_rc_pingpong -d fab2 -g "$G4B" -s "$SIZE" \
		-n 100000000 -p "$PORT" 192.168.77.1 >"$SROCE_RESULTS/live-client.out" 2>&1 &
	LIVE_PIDS="$LIVE_PIDS $!"
}

live_stop() {
	local pid
	for pid in $LIVE_PIDS; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

res_qp() { rc_qp_detail ns2 fab2; }
field() { detail_field "$@"; }

live_rtt_measured() {
	local l
	l=$(res_qp)
	[ -n "$l" ] && [ "$(field "$l" drv_srtt_us)" -gt 0 ]
}

# Every field there, with values that fit together.
restrack_detail() {
	local l f
	# Until the client's QP is in RTS and has an RTT sample.
	wait_for 60 live_rtt_measured || echo "no RTS QP with an RTT sample"
	ip netns exec ns2 rdma resource show qp link fab2/1 -dd \
		>"$SROCE_RESULTS/res-qp-dd.txt"
	cat "$SROCE_RESULTS/res-qp-dd.txt"
	ip netns exec ns2 rdma -j resource show qp link fab2/1 -dd
	l=$(res_qp)
	echo "$l"
	[ -n "$l" ]
	for f in $FIELDS; do
		[ -n "$(field "$l" "drv_$f")" ] || { echo "no drv_$f"; return 1; }
	done
	[ "$(field "$l" drv_cc)" = aimd ]
	# Two sroce peers agree on selective repeat by default.
	[ "$(field "$l" drv_sr)" = on ]
	[ "$(field "$l" drv_cwnd)" -ge 16 ]
	[ "$(field "$l" drv_srtt_us)" -gt 0 ]
	# A ping-pong has at most one message of SIZE/MTU packets out.
	[ "$(field "$l" drv_in_flight)" -le $(((SIZE + MTU - 1) / MTU)) ]
	[ "$(field "$l" drv_home_cpu)" -lt "$(nproc)" ]
	# The responder's MSN counts the messages it took: some by now.
	[ "$(field "$l" drv_msn)" -gt 0 ]
}

# Without -dd, no driver detail: what iproute2 promises.
restrack_plain() {
	local l
	l=$(ip netns exec ns2 rdma resource show qp link fab2/1)
	echo "$l"
	echo "$l" | grep -qw 'type RC'
	if echo "$l" | grep -q drv_; then return 1; fi
}

# The same QP in debugfs, by its QPN, with the same fields.
debugfs_qp() {
	local l qpn f
	l=$(res_qp)
	qpn=$(field "$l" lqpn)
	cat "$DBG/sroce/fab2/qps"
	l=$(grep "^qpn=$qpn " "$DBG/sroce/fab2/qps")
	echo "$l"
	for f in $FIELDS; do
		echo "$l" | grep -q " $f=" || { echo "no $f"; return 1; }
	done
	echo "$l" | grep -q ' type=RC state=RTS '
	echo "$l" | grep -q ' cc=aimd'
	echo "$l" | grep -q ' sr=on'
}

debugfs_files() {
	local d
	for d in fab1 fab2; do
		test -r "$DBG/sroce/$d/qps"
		grep -qx 'tx_packets [0-9]*' "$DBG/sroce/$d/counters"
	done
	# The same names as rdma statistic's, in the same order.
	counter_snap ns1 fab1 "$SROCE_RESULTS/cnt.rdma"
	diff <(cut -d' ' -f1 "$DBG/sroce/fab1/counters") \
		<(cut -f1 "$SROCE_RESULTS/cnt.rdma")
}

# Packets and state changes of a short ping-pong: every data packet of
# both sides (SEND opcodes 0x00-0x05) has its sroce_tx and its sroce_rx.
trace_packets() {
	local n=5 data tx rx
	data=$((2 * n * ((SIZE + MTU - 1) / MTU)))
	TRACE_KB=1024 trace_on sroce_tx sroce_rx sroce_qp_state
	pingpong "$n" >/dev/null ||
		{ trace_off "$SROCE_RESULTS/trace-packets.txt"; return 1; }
	trace_off "$SROCE_RESULTS/trace-packets.txt"
	tx=$(grep -c 'sroce_tx: qpn=[0-9]* dqpn=[0-9]* opcode=0x0[0-5] psn=' \
		"$SROCE_RESULTS/trace-packets.txt" || true)
	rx=$(grep -c 'sroce_rx: qpn=[0-9]* dqpn=[0-9]* opcode=0x0[0-5] psn=' \
		"$SROCE_RESULTS/trace-packets.txt" || true)
	echo "data packets traced: tx $tx rx $rx, expected $data"
	[ "$tx" -ge "$data" ]
	[ "$rx" -ge "$data" ]
	grep -q 'sroce_qp_state: qpn=[0-9]* INIT -> RTR' "$SROCE_RESULTS/trace-packets.txt"
	grep -q 'sroce_qp_state: qpn=[0-9]* RTR -> RTS' "$SROCE_RESULTS/trace-packets.txt"
	grep -m3 sroce_tx: "$SROCE_RESULTS/trace-packets.txt"
}

# 10% loss on fab1's way out: its requester resends (what a SACK shows
# lost, or from a sequence NAK or a timeout) and halves its window, and
# says so.
trace_loss() {
	local rc=0 b=$SROCE_RESULTS/loss rt
	counter_snap ns1 fab1 "$b.before"
	ip netns exec ns1 tc qdisc add dev v1 root netem loss 10%
	TRACE_KB=1024 trace_on sroce_rewind sroce_cwnd sroce_nak_send sroce_nak_recv
	# A lossy path: QPs outlive their programs (verbs/linger.c).
	SROCE_LINGER=4 pingpong "$ITERS" >/dev/null || rc=1
	trace_off "$SROCE_RESULTS/trace-loss.txt"
	ip netns exec ns1 tc qdisc del dev v1 root
	counter_snap ns1 fab1 "$b.after"
	[ "$rc" = 0 ]
	rt=$(counter_delta "$b.before" "$b.after" retransmits)
	echo "fab1 retransmits: $rt"
	grep -m3 -E 'sroce_(rewind|cwnd|nak_recv):' "$SROCE_RESULTS/trace-loss.txt"
	[ "$rt" -gt 0 ]
	grep -qE 'sroce_rewind: qpn=[0-9]* psn=[0-9]* psn_max=[0-9]* reason=(seq_nak|timeout|sack_resend)' \
		"$SROCE_RESULTS/trace-loss.txt"
	grep -qE 'sroce_cwnd: qpn=[0-9]* cwnd=[0-9]* reason=(seq_nak|timeout|sack)' \
		"$SROCE_RESULTS/trace-loss.txt"
}

gone_with_link() {
	ip netns exec ns1 rdma link delete fab1
	ip netns exec ns2 rdma link delete fab2
	test ! -e "$DBG/sroce/fab1"
	test ! -e "$DBG/sroce/fab2"
	test -d "$DBG/sroce"
}

gone_with_module() {
	rmmod sroce
	test ! -e "$DBG/sroce"
	test ! -e "$TRC/events/sroce"
}

tap_plan 14
tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "veth topology" topo_veth
mountpoint -q "$DBG" || mount -t debugfs none "$DBG"
mountpoint -q "$TRC" || mount -t tracefs none "$TRC"
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab2 on v2" ip netns exec ns2 rdma link add fab2 type sroce netdev v2
G4A=$(gid_index ns1 fab1 192.168.77.1)
G4B=$(gid_index ns2 fab2 192.168.77.2)

tap_check "debugfs: qps and counters for both devices" debugfs_files
tap_check "counters: $ITERS x $SIZE B ping-pong accounted for" counters_move

live_start || tap_diag "the live ping-pong's server did not listen"
tap_check "rdma resource show qp -dd: transport detail" restrack_detail
tap_check "rdma resource show qp: no detail without -dd" restrack_plain
tap_check "debugfs qps: the same QP, the same fields" debugfs_qp
live_stop

tap_check "tracepoints: sroce_tx, sroce_rx, sroce_qp_state" trace_packets
tap_check "tracepoints: 10% loss, sroce_rewind and sroce_cwnd" trace_loss
tap_check "rdma link delete removes the debugfs directories" gone_with_link
tap_check "rmmod removes debugfs root and trace events" gone_with_module
tap_done
