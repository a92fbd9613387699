#!/bin/bash
# Priority classes (issue 6, proto/prio.h): with prio_sched on, while a
# 4-QP class 0 WRITE load runs between fab1 and fab2, a byte-checked
# ibv_rc_pingpong at SL 7 makes the load yield (tx_yielded grows), and
# its data arrives intact; at the load's own class, or with prio_sched
# off (the default), nothing yields.  The traffic class goes on the wire:
# every packet of an ib_send_lat with --tclass 184 carries DSCP 46 (EF).
# sroce-timeout: 900
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

B=$SROCE_RESULTS/prio
PORT=19700
PARAM=/sys/module/sroce/parameters/prio_sched

# bulk_bg NAME: a class 0 WRITE load, four QPs, in the background until
# bulk_stop (a ping-pong under TCG load took from 0.4 to 13 s; the load
# must outlast it); at full rate when this returns.
bulk_bg() {
	PORT=$((PORT + 1))
	ip netns exec ns1 ib_write_bw -d fab1 -x "$G4A" -F -q 4 -s 65536 \
		-D 900 -p "$PORT" >"$B.$1.server" 2>&1 &
	BULK_SPID=$!
	wait_listen ns1 "$PORT" || return 1
	ip netns exec ns2 ib_write_bw -d fab2 -x "$G4B" -F -q 4 -s 65536 \
		-D 900 -p "$PORT" 192.168.77.1 >"$B.$1.client" 2>&1 &
	BULK_PID=$!
	sleep 3
}

# bulk_stop: true if the load was still running.
bulk_stop() {
	local rc=0
	kill -0 "$BULK_PID" 2>/dev/null ||
		{ echo "the load died:"; cat "$B.$1.client"; rc=1; }
	kill "$BULK_PID" "$BULK_SPID" 2>/dev/null
	wait
	return $rc
}

# pingpong NAME SL [N]: N (300) ibv_rc_pingpong iterations at service
# level SL, every byte checked.
pingpong() {
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		ibv_rc_pingpong -d fab1 -g "$G4A" -l "$2" -s 4096 -n "${3:-300}" -p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab2 -g "$G4B" -l "$2" -s 4096 -n "${3:-300}" -p "$PORT" --chk 192.168.77.1 \
		>"$B.$1.pp" 2>&1 || { cat "$B.$1.pp"; return 1; }
}

# under NAME SL PRIO_SCHED [N]: pingpong at SL while the load runs, with
# prio_sched set so; how much tx_yielded grew meanwhile goes to
# $B.NAME.yielded.  The controls, where nothing may yield, run shorter:
# one yield in their 100 iterations fails them all the same.
under() {
	local y0 rc=0
	echo "$3" >"$PARAM"
	bulk_bg "$1" || return 1
	y0=$(pair_counter tx_yielded)
	# fab2's QPs a little later, for the record: classes, RTTs, queues.
	(sleep 2; ip netns exec ns2 rdma resource show qp link fab2/1 -dd \
		>"$B.$1.qps" 2>&1) &
	pingpong "$1" "$2" "${4:-300}" || rc=1
	echo $(($(pair_counter tx_yielded) - y0)) >"$B.$1.yielded"
	echo "tx_yielded grew by $(cat "$B.$1.yielded")"
	grep usec/iter "$B.$1.pp" | head -n1
	bulk_stop "$1" || rc=1
	echo 0 >"$PARAM"
	return $rc
}

# yielded NAME some|none: whether the load yielded during NAME's run.
yielded() {
	local n
	n=$(cat "$B.$1.yielded")
	echo "$1: tx_yielded grew by $n; fab2's QPs:"
	grep -o 'lqpn [0-9]*\|drv_prio [0-9]*\|drv_in_flight [0-9]*\|drv_rack_min_rtt_us [0-9]*\|drv_tx_queued [0-9]*' \
		"$B.$1.qps" | paste -sd ' '
	if [ "$2" = some ]; then [ "$n" -gt 0 ]; else [ "$n" -eq 0 ]; fi
}

# Every RoCE packet of a latency run at traffic class 184 has DSCP 46.
dscp_on_wire() {
	local cap=$B.dscp.pcap n
	capture_start ns2 v2 "$cap" || { cat "$cap.log"; return 1; }
	perf_run ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 \
		ib_send_lat -s 64 -n 200 --tclass=184 >"$B.lat" 2>&1 ||
		{ capture_stop "$cap"; cat "$B.lat"; return 1; }
	capture_stop "$cap" || return 1
	tshark -r "$cap" -Y "udp.dstport == 4791" -T fields -e ip.dsfield.dscp \
		2>/dev/null | sort | uniq -c >"$cap.dscp"
	echo "RoCE packets by DSCP:"
	cat "$cap.dscp"
	n=$(awk '$2 == 46 { print $1 }' "$cap.dscp")
	[ "$(wc -l <"$cap.dscp")" = 1 ] && [ "${n:-0}" -ge 400 ]
}

tap_plan 13
topo_sroce_pair

tap_check "prio_sched is off by default" grep -qx N "$PARAM"
tap_check "prio_sched on: SL 7 ping-pong under a class 0 load, every byte" under on 7 1
tap_check "the load yielded to it (tx_yielded grew)" yielded on some
tap_check "SL 0 ping-pong under the load (one class): every byte" under same 0 1 100
tap_check "nothing yielded within one class" yielded same none
tap_check "prio_sched off: SL 7 ping-pong under the load, every byte" under off 7 0 100
tap_check "prio_sched off: nothing yielded" yielded off none
tap_check "traffic class 184 goes on the wire as DSCP 46" dscp_on_wire
tap_done
