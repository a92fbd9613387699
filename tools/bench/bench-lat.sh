#!/bin/bash
# Latency and the paths behind it, in one VM run (not a timed test; it
# fails only if setup fails): sroce fab1<->fab2 over veth at MTU 9000,
# rxe on lo, sroce in loopback on fab1 (local delivery: past lo, as rxe
# does for its own addresses), and the kernel's UDP ping-pong over the
# same veth, the floor of any transport that crosses it.  The 64 KiB
# bandwidth of each RDMA path too.  BENCH_REPEAT rounds (3), one value
# per line; Documentation/testing.rst has the medians of a run.
#   tools/qemu/run-test --timeout 2400 tools/bench/bench-lat.sh
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

[ -x "$SROCE_TREE/out/bench/udp_pingpong" ] ||
	{ echo "no out/bench/udp_pingpong (make bench builds it)"; exit 1; }
bench_setup || { echo "setup failed"; exit 1; }
ip -n ns1 link set v1 mtu 9000 && ip -n ns2 link set v2 mtu 9000 &&
	wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'" ||
	{ echo "MTU 9000 failed"; exit 1; }

line() { printf '%-28s %s\n' "$1" "$2"; }

for ((k = 0; k < BENCH_REPEAT; k++)); do
	for t in ib_write_bw ib_read_bw ib_send_bw; do
		line "sroce-veth $t 64K" "$(sroce_bw $t -s 65536 -n 3000)"
		line "rxe-lo     $t 64K" "$(rxe_bw $t -s 65536 -n 3000)"
	done
	line "sroce-veth ib_send_lat 64" "$(sroce_lat ib_send_lat -s 64 -n 5000)"
	line "rxe-lo     ib_send_lat 64" "$(rxe_lat ib_send_lat -s 64 -n 5000)"
	line "sroce-loop ib_send_lat 64" "$(sroce_lo_lat ib_send_lat -s 64 -n 5000)"
	line "sroce-loop ib_write_bw 64K" "$(sroce_lo_bw ib_write_bw -s 65536 -n 3000)"
	line "udp-floor-veth" "$(udp_lat)"
done
