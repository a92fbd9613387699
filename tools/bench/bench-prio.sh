#!/bin/bash
# Latency behind bulk, in one VM run (not a timed test; it fails only if
# setup fails): ib_send_lat 64 B idle and while an 8-QP ib_write_bw 64 KiB
# load runs between the same two devices, with and without a high
# priority (GRH traffic class DSCP EF, SL 7) on the latency QP, polling
# and sleeping on CQ events.  sroce
# fab1<->fab2 over veth at MTU 9000, with its priority classes on and
# off (the prio_sched parameter), and rxe on lo, side by side.
# BENCH_REPEAT rounds (3); Documentation/testing.rst has a run's medians.
#   tools/qemu/run-test --timeout 2400 tools/bench/bench-prio.sh
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

BULK_SECONDS=${BULK_SECONDS:-25}
BULK_PORT=18990
# DSCP EF (46) in the traffic class's upper six bits, and the top SL.
PRIO=(--tclass=184 -S 7)

bench_setup || { echo "setup failed"; exit 1; }
ip -n ns1 link set v1 mtu 9000 && ip -n ns2 link set v2 mtu 9000 &&
	wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'" ||
	{ echo "MTU 9000 failed"; exit 1; }

# bulk_start SNS SDEV SGID CNS CDEV CGID PEER: the 8-QP load, in the
# background for BULK_SECONDS, at full rate when this returns.
bulk_start() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7
	local -a a

	BULK_PORT=$((BULK_PORT + 1))
	a=(ib_write_bw -F -p "$BULK_PORT" -q 8 -s 65536 -D "$BULK_SECONDS")
	in_ns "$sns" "${a[@]}" -d "$sdev" -x "$sgid" \
		>"$SROCE_RESULTS/bulk.server" 2>&1 &
	wait_listen "$sns" "$BULK_PORT" || return 1
	in_ns "$cns" "${a[@]}" -d "$cdev" -x "$cgid" "$peer" \
		>"$SROCE_RESULTS/bulk.client" 2>&1 &
	sleep 4
}

# bulk_end: wait for the load to end.
bulk_end() { wait; }

line() { printf '%-40s %s\n' "$1" "$2"; }

# lat RUN ARGS...: ib_send_lat's typical (median), average and 99th
# percentile round trip halves, in usec, as "typ/avg/p99" (perf_nonzero
# runs it again while perftest's clock calibration fails, which it does
# now and then under TCG, more so under load).
lat() {
	local run=$1
	shift
	perf_nonzero "$run" 5/6/8 ib_send_lat -s 64 -n 5000 "$@"
}

# sroce_bytes, rxe_bytes: the payload bytes the load's sender has sent
# (sroce: its tx_bytes; rxe, whose lo path no netdev counts: sent_pkts
# at 4 KiB each, ACKs included, so an upper bound); yielded: sroce's
# tx_yielded, both devices.
sroce_bytes() { counter ns2 fab2 tx_bytes; }
rxe_bytes() { echo $(($(counter "" rxe0 sent_pkts) * 4096)); }
sroce_yielded() { pair_counter tx_yielded; }
rxe_yielded() { echo 0; }

# loaded NAME PATH ARGS...: the latency while the load runs, the load's
# MB/s meanwhile (perftest's own figure is 0 when its clock calibration
# fails under load) and the packets it held back for the latency QP.
loaded() {
	local name=$1 path=$2 b0 b1 y0 y1 t0 t1 v
	shift 2
	b0=$("${path}_bytes")
	y0=$("${path}_yielded")
	t0=$EPOCHREALTIME
	v=$(lat "_${path}_perf" "$@")
	t1=$EPOCHREALTIME
	b1=$("${path}_bytes")
	y1=$("${path}_yielded")
	line "$name" "$v (bulk $(awk -v b="$((b1 - b0))" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.1f", b / (t1 - t0) / 1e6 }') MB/s, yielded $((y1 - y0)))"
}

# round NAME PATH MODE BULKARGS...: idle, loaded, and loaded with the
# latency QP prioritised; MODE is "poll" (perftest's default) or
# "events" (-e: the latency test sleeps on its CQ's events, as an
# application that is not a benchmark would).
round() {
	local name="$1 $3" path=$2 mode=()
	[ "$3" = events ] && mode=(-e)
	shift 3
	line "$name idle" "$(lat "_${path}_perf" "${mode[@]}")"
	bulk_start "$@" || { echo "$name: the load did not start"; return 1; }
	loaded "$name loaded" "$path" "${mode[@]}"
	bulk_end
	bulk_start "$@" || { echo "$name: the load did not start"; return 1; }
	loaded "$name loaded prio" "$path" "${mode[@]}" "${PRIO[@]}"
	bulk_end
}

# sroce with its priority classes (prio_sched, proto/prio.h) on and off.
prio_sched() { echo "$1" >/sys/module/sroce/parameters/prio_sched; }

SROCE=(ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1)
RXE=("" rxe0 "$GRXE" "" rxe0 "$GRXE" 127.0.0.1)
for ((k = 0; k < BENCH_REPEAT; k++)); do
	for mode in poll events; do
		prio_sched 1
		round sroce-veth sroce "$mode" "${SROCE[@]}"
		prio_sched 0
		round sroce-veth-noprio sroce "$mode" "${SROCE[@]}"
		prio_sched 1
		round rxe-lo rxe "$mode" "${RXE[@]}"
	done
done
