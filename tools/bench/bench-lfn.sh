#!/bin/bash
# The long-fat-network benchmark (make bench-lfn, two VMs, issue 7):
# 100 Mbit/s, 100 ms RTT (netem "rate 100mbit delay 50ms" on both VMs'
# eth0 egress) at 0, 0.1 % and 1 % random loss.  Measured over the very
# same netem: sroce RC WRITE 64 KiB (fab0 on a macvlan of eth0, in
# namespace lfn, because rdma_rxe owns UDP 4791 in init_net), rdma_rxe
# RC WRITE 64 KiB (rxe0 on eth0), and iperf3 with CUBIC and with BBR.
# VM B runs the servers, VM A the clients, and prints the table.  Not a
# timed test: it fails only if setup fails.  LFN_SECONDS (20) per TCP run
# (perftest moves LFN_SECONDS * 10 messages of 64 KiB over rxe, and
# LFN_SECONDS * 150 over sroce, about as long at 80 Mbit/s),
# LFN_LOSS ("0 0.1 1"), LFN_DELAY_MS (50, each way), LFN_CC (sroce's
# congestion control, wan; selective repeat is on), passed on by
# make bench-lfn (SROCE_GUEST_ENV).
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"

SECS=${LFN_SECONDS:-20}
# 64 KiB messages: 20 s at about 5 Mbit/s (rxe), 1.3 s at 90.
ITERS=$((SECS * 10))
SROCE_ITERS=$((SECS * 150))
CC=${LFN_CC:-wan}
# Which to measure (LFN_ONLY): a subset for a quicker look.
ONLY=" ${LFN_ONLY:-sroce rxe cubic bbr} "
LOSSES=${LFN_LOSS:-0 0.1 1}
DELAY=${LFN_DELAY_MS:-50}
N=0
PORT=19700
declare -A RES

me() { [ "$SROCE_VM" = A ] && echo 1 || echo 2; }

setup() {
	local n
	n=$(me)
	topo_twovm || return 1
	modprobe -a rdma_rxe rdma_ucm macvlan tcp_bbr || return 1
	sroce_load && sroce_provider_setup || return 1
	ip netns add lfn &&
		ip link add mv0 link eth0 type macvlan mode bridge &&
		ip link set mv0 netns lfn &&
		ip -n lfn addr add "192.168.79.$n/24" dev mv0 &&
		ip -n lfn link set mv0 up && ip -n lfn link set lo up || return 1
	rdma link add rxe0 type rxe netdev eth0 || return 1
	ip netns exec lfn rdma link add fab0 type sroce netdev mv0 || return 1
	echo "$CC" >/sys/class/infiniband/fab0/cc || return 1
	wait_for 30 gid_index lfn fab0 "192.168.79.$n" >/dev/null || return 1
	GS=$(gid_index lfn fab0 "192.168.79.$n")
	# rxe lists each address as RoCE v1 and v2: iop_gid picks v2.
	wait_for 30 iop_gid rxe0 "192.168.78.$n" >/dev/null || return 1
	GR=$(iop_gid rxe0 "192.168.78.$n")
	# Room for a bandwidth-delay product and more in TCP's buffers.
	sysctl -qw net.core.rmem_max=33554432 net.core.wmem_max=33554432
	sysctl -qw net.ipv4.tcp_rmem="4096 131072 33554432"
	sysctl -qw net.ipv4.tcp_wmem="4096 131072 33554432"
}

# The path: both egresses, so that data and ACKs each see the delay and
# loss.  The queue limit holds a BDP several times over.
path() {
	tc qdisc replace dev eth0 root netem rate 100mbit delay "${DELAY}ms" \
		loss "$1%" limit 100000
}

# listening NS PORT
listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q .; }

# run NAME NS -- SERVER... -- CLIENT...: VM B serves in NS, VM A runs the
# client in NS; A keeps the client's output in $SROCE_RESULTS/NAME.log.
run() {
	local name=$1 ns=$2 pid
	local -a srv=() cli=() pre=()
	[ -z "$ns" ] || pre=(ip netns exec "$ns")
	shift 3
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	N=$((N + 1))
	if [ "$SROCE_VM" = B ]; then
		timeout $((SECS * 8 + 120)) "${pre[@]}" "${srv[@]}" \
			>"$SROCE_RESULTS/$name.server.log" 2>&1 &
		pid=$!
		wait_for 60 listening "$ns" "$PORT" && sync_signal "r$N-ready"
		sync_wait "r$N-done" $((SECS * 8 + 120)) ||
			echo "$name: the client never finished" >&2
		# A server whose client failed would wait on forever.
		sleep 5
		kill "$pid" 2>/dev/null
		wait "$pid"
	else
		if sync_wait "r$N-ready" 90; then
			timeout $((SECS * 8 + 60)) "${pre[@]}" "${cli[@]}" \
				>"$SROCE_RESULTS/$name.log" 2>&1 ||
				echo "$name: client failed (see $name.log)" >&2
		fi
		sync_signal "r$N-done"
	fi
	sync_barrier "r$N-end" $((SECS * 8 + 180))
}

# Goodput of a perftest run in Mbit/s, timed apart from perftest: its
# clock calibration fails on a loaded TCG host ("Correlation coefficient
# r^2 < 0.9") and then it reports 0 Gb/s.  A sampler records the sending
# netdev's tx_bytes every 0.1 s; the transfer runs from the first sample
# that grew by more than a message to the last that grew at all, and
# carried ITERS * 64 KiB of payload (retransmits are not goodput).
# goodput_mbit FILE MESSAGES
sample_tx() {
	local f=/sys/class/net/$2/statistics/tx_bytes
	while :; do
		echo "$EPOCHREALTIME $(in_ns "$1" cat "$f")"
		sleep 0.1
	done
}

goodput_mbit() {
	awk -v bytes=$(($2 * 65536)) '
		NR == 1 { prev = $2; next }
		$2 - prev > 65536 && !t0 { t0 = last_t }
		$2 != prev { t1 = $1 }
		{ prev = $2; last_t = $1 }
		END { if (t0 && t1 > t0) printf "%.1f\n", bytes * 8 / (t1 - t0) / 1e6 }' "$1"
}

iperf_mbit() {
	awk '/receiver/ {print $7; exit}' "$1" 2>/dev/null
}

perf() {
	local name=$1 ns=$2 dev=$3 gid=$4 peer=$5 netdev=$6 iters=$7 spid
	PORT=$((PORT + 1))
	# sroce's QPs every 5 s (window, RTT, model), for the record.
	if [ "$SROCE_VM" = A ] && [ -d "/sys/kernel/debug/sroce/$dev" ]; then
		(for _ in $(seq $((SECS * 2))); do
			sleep 5
			grep RC "/sys/kernel/debug/sroce/$dev/qps"
		done) >"$SROCE_RESULTS/$name.qps" 2>&1 &
	fi
	if [ "$SROCE_VM" = A ]; then
		sample_tx "$ns" "$netdev" >"$SROCE_RESULTS/$name.tx" &
		spid=$!
	fi
	run "$name" "$ns" -- \
		ib_write_bw -d "$dev" -x "$gid" -F -u 18 -s 65536 \
			-n "$iters" -p "$PORT" -- \
		ib_write_bw -d "$dev" -x "$gid" -F -u 18 -s 65536 \
			-n "$iters" -p "$PORT" "$peer"
	[ "$SROCE_VM" = B ] && return 0
	kill "$spid"
	wait "$spid" 2>/dev/null
	RES[$name]=$(goodput_mbit "$SROCE_RESULTS/$name.tx" "$iters")
}

tcp() {
	local name=$1 cc=$2
	PORT=$((PORT + 1))
	run "$name" "" -- iperf3 -s -1 -p "$PORT" -- \
		iperf3 -c 192.168.78.2 -p "$PORT" -t "$SECS" -C "$cc" -f m
	[ "$SROCE_VM" = B ] || RES[$name]=$(iperf_mbit "$SROCE_RESULTS/$name.log")
}

round() {
	local loss=$1
	path "$loss" || return 1
	sync_barrier "path-$loss" 120 || return 1
	if [[ $ONLY == *" sroce "* ]]; then
		perf "sroce-$loss" lfn fab0 "$GS" 192.168.79.2 mv0 "$SROCE_ITERS"
		[ "$SROCE_VM" = B ] || RES[cnt-$loss]=$(counters lfn fab0)
	fi
	[[ $ONLY != *" rxe "* ]] ||
		perf "rxe-$loss" "" rxe0 "$GR" 192.168.78.2 eth0 "$ITERS"
	[[ $ONLY != *" cubic "* ]] || tcp "cubic-$loss" cubic
	[[ $ONLY != *" bbr "* ]] || tcp "bbr-$loss" bbr
}

table() {
	local loss
	echo "## 100 Mbit/s, $((DELAY * 2)) ms RTT (netem both ways), ${SECS} s per run, Mbit/s"
	echo "sroce: congestion control $CC, selective repeat on"
	echo "| loss   | sroce RC WRITE | rxe RC WRITE | TCP CUBIC | TCP BBR | sroce/rxe |"
	echo "|--------|----------------|--------------|-----------|---------|-----------|"
	for loss in $LOSSES; do
		awk -v l="$loss %" -v s="${RES[sroce-$loss]:-}" -v r="${RES[rxe-$loss]:-}" \
			-v c="${RES[cubic-$loss]:-}" -v b="${RES[bbr-$loss]:-}" 'BEGIN {
			ratio = (r > 0 && s > 0) ? sprintf("%.1fx", s / r) : "n/a"
			printf "| %-6s | %14s | %12s | %9s | %7s | %9s |\n", l, s, r, c, b, ratio }'
	done
	echo "sroce's counters (VM A, cumulative) after each loss rate's run:"
	for loss in $LOSSES; do
		echo "  $loss %: ${RES[cnt-$loss]:-}"
	done
}

main() {
	local loss
	setup >"$SROCE_RESULTS/setup-$SROCE_VM.log" 2>&1 || {
		echo "VM $SROCE_VM: setup failed"
		cat "$SROCE_RESULTS/setup-$SROCE_VM.log"
		sync_signal "setup-failed-$SROCE_VM"
		exit 1
	}
	sync_barrier setup 300 || exit 1
	for loss in $LOSSES; do
		round "$loss"
	done
	[ "$SROCE_VM" = A ] && table
	sync_barrier finished 300 || true
}

main
