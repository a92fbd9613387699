#!/bin/bash
# The RC benchmark, run inside the test VM (make bench): sroce between two
# namespaces over veth against rdma_rxe on lo, measured side by side in the
# same VM run.  Prints a table with sroce/rxe ratios.  Not a timed test:
# it fails only if a tool fails.
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

# TCP over the same veth, for scale: iperf3 MB/s (one stream, 10 s).
tcp_bw() {
	ip netns exec ns1 iperf3 -s -1 -p 19500 >/dev/null 2>&1 &
	wait_listen ns1 19500 || return 1
	ip netns exec ns2 iperf3 -c 192.168.77.1 -p 19500 -t 10 -f M 2>/dev/null |
		awk '/receiver/ {print $7; exit}'
	wait
}

set_mtu() {
	ip -n ns1 link set v1 mtu "$1" && ip -n ns2 link set v2 mtu "$1" &&
		wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*$2'"
}

# measured NAME UNIT bw|lat TOOL ARGS...: sroce, then rxe, BENCH_REPEAT
# times alternating (a drift of the host hits both), one row of medians;
# every value goes to ALL for the list under the table.
ALL=
measured() {
	local name=$1 unit=$2 kind=$3 k s="" r=""
	shift 3
	for ((k = 0; k < BENCH_REPEAT; k++)); do
		s="$s $("sroce_$kind" "$@")"
		r="$r $("rxe_$kind" "$@")"
	done
	row "$name" "$unit" "$(tr ' ' '\n' <<<"$s" | median)" \
		"$(tr ' ' '\n' <<<"$r" | median)"
	ALL="$ALL  $name: sroce$s; rxe$r"$'\n'
}

table() {
	ALL=
	table_head
	measured "ib_write_bw 64K" "MB/s" bw ib_write_bw -s 65536
	measured "ib_read_bw 64K" "MB/s" bw ib_read_bw -s 65536
	measured "ib_send_bw 64K" "MB/s" bw ib_send_bw -s 65536
	measured "ib_send_lat 64B" "usec" lat ib_send_lat -s 64
	echo "(medians of $BENCH_REPEAT runs each, sroce and rxe alternating:)"
	printf '%s' "$ALL"
	echo "TCP (iperf3, one stream) over the same veth: $(tcp_bw) MB/s"
	echo "UDP ping-pong (64 B, one-way) over the same veth: $(udp_lat) usec"
}

# rxe runs on lo, whose 64 KiB MTU gives it RoCE MTU 4096.  sroce runs
# between namespaces over veth: at the default 1500 bytes its RoCE MTU is
# 1024 (four times the packets for the same bytes); at 9000, 4096 like
# rxe's.  Both are printed, so that neither hides the other.
main() {
	bench_setup || { echo "setup failed"; exit 1; }
	echo "## veth MTU 1500: sroce RoCE MTU 1024, rxe (lo) 4096"
	table
	set_mtu 9000 4096 || { echo "MTU 9000 failed"; exit 1; }
	echo
	echo "## veth MTU 9000: sroce RoCE MTU 4096, rxe (lo) 4096"
	table
	echo
	echo "(latency: t_typical; lower is better, so a ratio below 1 favours sroce)"
	for d in fab1 fab2; do
		echo "$d: $(ip netns exec "ns${d#fab}" rdma statistic show link "$d/1" |
			tr ' ' '\n' | paste - - | awk '$2 != 0' | tr '\n' ' ')"
	done
}

main
