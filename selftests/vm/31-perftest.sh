#!/bin/bash
# Unchanged perftest over sroce: every RC test with its defaults and with
# -s 65536, between two namespaces (IPv4 GIDs), with IPv6 GIDs, and in
# loopback on one device.
# sroce-timeout: 1800
set -u
. "$SROCE_TREE/selftests/lib.sh"

PERF_PORT=18700
# Under the debug kernel (KASAN, lockdep) data moves at a few MB/s, and
# perftest's 5000 iterations of 64 KiB made this test 42 minutes of the
# debug lane.  200 iterations take the same paths.
N=()
! debug_kernel || N=(-n 200)

TOOLS="ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat"

tap_plan 29
topo_sroce_pair

for t in $TOOLS; do
	tap_check "$t (defaults)" perf_run ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 "$t" "${N[@]}"
done
for t in $TOOLS; do
	case $t in ib_atomic*) continue ;; esac
	tap_check "$t -s 65536" perf_run ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 "$t" -s 65536 "${N[@]}"
done
# perftest 4.5 cannot use IPv6 for its TCP channel: IPv4 there, IPv6 GIDs.
for t in ib_write_bw ib_send_lat; do
	tap_check "$t, IPv6 GIDs" perf_run ns1 fab1 "$G6A" ns2 fab2 "$G6B" 192.168.77.1 "$t" "${N[@]}"
done
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat; do
	tap_check "$t, loopback on fab1" perf_run ns1 fab1 "$G4A" ns1 fab1 "$G4A" 127.0.0.1 "$t" "${N[@]}"
done
tap_done
