#!/bin/bash
# Raw packet QPs and flow steering (raw.c, flow.c), receive WQs,
# indirection tables and RSS QPs (wq.c, rss.c): on by default, refused
# with raw_packet=N; selftests/tools/raw_check.py (frames of every size
# from one raw QP to another's flow byte for byte, unmatched frames not
# taken, a sniffer, bad lengths, no flows on UD QPs, a frame out to the
# peer's UDP socket and one in from it, which the host's socket still
# gets; a WQ's states and flushes; RSS QPs spreading frames over WQs
# exactly where the Toeplitz hash computed in Python says; bad RSS
# input), the counters, and rdma-core's own raw QP, flow and RSS tests.
# sroce-timeout: 900
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

RC=$SROCE_TREE/selftests/tools/raw_check.py
PARAM=/sys/module/sroce/parameters/raw_packet

rc() { ip netns exec ns1 /usr/bin/python3 "$RC" fab1 "$@"; }

# A frame built by the raw QP in ns1, to v2's MAC and 192.168.77.2:PORT,
# arrives at a UDP socket there.
tx_to_peer() {
	local port=5601 mac out=$SROCE_RESULTS/raw-tx.peer pid
	mac=$(ip netns exec ns2 cat /sys/class/net/v2/address)
	ip netns exec ns2 /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.168.77.2", int(sys.argv[1])))
s.settimeout(20)
print("ready", flush=True)
print(s.recvfrom(2048)[0].decode(), flush=True)
' "$port" >"$out" 2>&1 &
	pid=$!
	wait_for 30 grep -q ready "$out" || { kill "$pid"; return 1; }
	rc tx "$mac" 192.168.77.2 "$port" || { kill "$pid"; return 1; }
	wait "$pid"
	cat "$out"
	grep -qx 'sroce raw frame' "$out"
}

# A datagram from ns2 to 192.168.77.1:PORT: the flow on PORT and the
# socket on PORT in ns1 both get it.
rx_from_peer() {
	local port=5602 out=$SROCE_RESULTS/raw-rx.out pid
	rc rx "$port" >"$out" 2>&1 &
	pid=$!
	wait_for 60 grep -q ready "$out" || { kill "$pid"; cat "$out"; return 1; }
	ip netns exec ns2 /usr/bin/python3 -c '
import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(
    b"to a flow and a socket", ("192.168.77.1", int(sys.argv[1])))
' "$port"
	wait "$pid"
	local st=$?
	cat "$out"
	return "$st"
}

# A TCP stream of 40000 bytes from ns2 to 192.168.77.1:PORT: the socket
# gets it, and a flow on PORT gets its frames as the wire had them (the
# peer's TSO trains cut back into frames, checksums filled in).
tcp_from_peer() {
	local port=5603 out=$SROCE_RESULTS/raw-tcp.out pid
	rc tcp "$port" 40000 >"$out" 2>&1 &
	pid=$!
	wait_for 60 grep -q ready "$out" || { kill "$pid"; cat "$out"; return 1; }
	ip netns exec ns2 /usr/bin/python3 -c '
import socket, sys
s = socket.create_connection(("192.168.77.1", int(sys.argv[1])))
s.sendall(bytes(range(256)) * 156 + bytes(64))
s.close()
' "$port"
	wait "$pid"
	local st=$?
	cat "$out"
	return "$st"
}

# Counter NAME grew by at least MIN since the snapshot.
grew() {
	local d
	d=$(counter_delta "$SROCE_RESULTS/raw.before" "$SROCE_RESULTS/raw.after" "$1")
	echo "$1 +$d"
	[ "$d" -ge "$2" ]
}

# loop 7, nomatch 3, tx 1 sent; loop 7, nomatch 2, rx 1 received.
raw_counted() {
	counter_snap ns1 fab1 "$SROCE_RESULTS/raw.after"
	grew raw_tx_packets 11 && grew raw_rx_packets 10
}

PYV=$SROCE_RESULTS/pyverbs

# rdma-core's raw QP tests (test_qp) and flow tests (test_flow).
pyverbs_raw() {
	local gid log=$SROCE_RESULTS/pyverbs-raw.log
	rm -rf "$PYV" && mkdir -p "$PYV" &&
		cp -r /usr/share/doc/rdma-core/tests "$PYV/" &&
		find "$PYV" -name '*.gz' -exec gunzip -f {} + || return 1
	gid=$(gid_index ns1 fab1 192.168.77.1) || return 1
	(cd "$PYV" && ip netns exec ns1 /usr/bin/python3 tests/run_tests.py \
		--dev fab1 --port 1 --gid "$gid" -v -k raw_qp -k test_flow \
		-k test_rss_traffic \
		>"$log" 2>&1)
	grep -E ' \.\.\. ' "$log" | grep -v mlx5
	tail -n 3 "$log"
	# 9 of test_qp, 5 of test_flow, test_rss_traffic (a docstring may sit
	# between a test's name and its verdict); nothing may fail, and only
	# mlx5 may skip.
	[ "$(grep -cE ' \.\.\. ok$' "$log")" -eq 15 ] &&
		[ "$(grep -cE ' \.\.\. skipped' "$log")" -eq \
		  "$(grep -cE ' \.\.\. skipped .*MLX5' "$log")" ] &&
		grep -qE '^OK' "$log"
}

tap_plan 23
tap_require "load sroce" sroce_load
tap_require "veth topology" topo_veth
tap_require "provider" sroce_provider_setup
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab1 has its IPv4 GID" wait_for 30 gid_index ns1 fab1 192.168.77.1
tap_check "raw_packet is on by default" grep -qx Y "$PARAM"
tap_require "raw_packet=N" sh -c "echo N > $PARAM"
tap_check "off: raw QPs and WQs refused with EOPNOTSUPP, no RSS caps" rc off
tap_require "raw_packet=Y again" sh -c "echo Y > $PARAM"
counter_snap ns1 fab1 "$SROCE_RESULTS/raw.before"
tap_check "frames of 14 to MTU+18 bytes reach a flow on the device byte for byte" rc loop
tap_check "an unmatched frame is not taken; a sniffer takes it; one copy per QP" rc nomatch
tap_check "too short and too long frames: local length errors" rc badlen
tap_check "no flows on UD QPs" rc udflow
tap_check "a raw frame reaches the peer's UDP socket" tx_to_peer
tap_check "a flow gets the peer's datagram, and so does the host's socket" rx_from_peer
tap_check "raw_tx_packets and raw_rx_packets count them" raw_counted
tap_check "a TCP stream's frames reach a flow as on the wire: MTU-sized, checksummed" tcp_from_peer
tap_check "query_device_ex: WQs, indirection tables, RSS with Toeplitz" rc caps
tap_check "a WQ: RESET, RDY, ERR flushes (the doorbell too), RESET discards, frames only in RDY" rc wq
tap_check "RSS QPs spread frames over WQs and CQs where the Toeplitz hash says" rc rss
tap_check "bad table size, hash function, key, fields, queues refused" rc rssbad
tap_check "rdma-core's raw QP, flow and RSS tests: 15 ok" pyverbs_raw
tap_check "fab1 deleted with no flow left" ip netns exec ns1 rdma link delete fab1
tap_done
