#!/bin/bash
# ibv_rc_pingpong --chk across two namespaces (IPv4 and IPv6 GIDs) and in
# loopback on one device, at 64 B, 4 KiB, 64 KiB and 1 MiB; then over a
# 100 ms round trip, where the RTO must follow the measured RTT.
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

PORT=18600
pingpong() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7 size=$8
	PORT=$((PORT + 1))
	run_pair "$sns" "$cns" "$PORT" -- \
		ibv_rc_pingpong -d "$sdev" -g "$sgid" -s "$size" -n 50 -p "$PORT" --chk -- \
		ibv_rc_pingpong -d "$cdev" -g "$cgid" -s "$size" -n 50 -p "$PORT" --chk "$peer" &&
		return 0
	# What the transport saw, to tell a slow peer from lost packets.
	counters "$sns" "$sdev"
	[ "$sdev" = "$cdev" ] || counters "$cns" "$cdev"
	return 1
}

# A 100 ms round trip, longer than ibv_rc_pingpong's ACK timeout (14:
# 67 ms): the first message times out once, after which the measured RTT
# stretches the RTO and messages are sent once.  A fixed RTO would resend
# every one of the 20 (and, past 8 x 67 ms, fail the QP); a quarter is
# allowed for a loaded host, whose stalls the RTO does not foresee.
long_rtt() {
	local t0 t1 rc=0
	ip netns exec ns1 tc qdisc add dev v1 root netem delay 100ms || return 1
	t0=$(counter ns2 fab2 timeouts)
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		ibv_rc_pingpong -d fab1 -g "$G4A" -s 64 -n 20 -p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab2 -g "$G4B" -s 64 -n 20 -p "$PORT" --chk 192.168.77.1 \
		>/dev/null || rc=1
	t1=$(counter ns2 fab2 timeouts)
	ip netns exec ns1 tc qdisc del dev v1 root
	echo "client timeouts: $((t1 - t0)) for 20 round trips of 100 ms"
	[ "$rc" = 0 ] && [ $((t1 - t0)) -le 5 ]
}

tap_plan 13
topo_sroce_pair

for size in 64 4096 65536; do
	tap_check "IPv4 GIDs, $size B" \
		pingpong ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 "$size"
done
tap_check "IPv4 GIDs, 1 MiB" \
	pingpong ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 1048576
tap_check "IPv6 GIDs, 64 B" pingpong ns1 fab1 "$G6A" ns2 fab2 "$G6B" 192.168.77.1 64
tap_check "IPv6 GIDs, 1 MiB" \
	pingpong ns1 fab1 "$G6A" ns2 fab2 "$G6B" 192.168.77.1 1048576
tap_check "loopback on fab1, 4 KiB" pingpong ns1 fab1 "$G4A" ns1 fab1 "$G4A" 127.0.0.1 4096
tap_check "100 ms RTT: the RTO follows the measured RTT" long_rtt
tap_done
