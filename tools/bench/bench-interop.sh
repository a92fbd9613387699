#!/bin/bash
# The interop benchmark (make bench, two VMs): the same perftest runs over
# the same two-VM link, first sroce (VM A) <-> rdma_rxe (VM B), then,
# after VM A swaps sroce for rdma_rxe, rxe <-> rxe.  VM A is always the
# client and prints the table.  Sequenced like the interop tests
# (selftests/interop.sh).  Not a timed test: it fails only if a tool
# fails.  Under TCG both numbers are mostly the emulator's; the ratio is
# what to look at.
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

# The runs, "label|column|side|tool args..."; column 4 of perftest's
# result line is the average bandwidth (MB/s), column 5 of a latency test
# its typical latency (usec).  Side is the VM whose report counts: the
# receiver's for ib_send_bw, because an rxe sender's perftest reports
# 0.00 MB/s there (measured: its send completions carry no usable
# timestamps), and the receiver's number is the one both rounds share.
RUNS=(
	"ib_write_bw 64K (MB/s)|4|A|ib_write_bw -n 1000 -s 65536"
	"ib_read_bw 64K (MB/s)|4|A|ib_read_bw -n 1000 -s 65536"
	"ib_send_bw 64K (MB/s)|4|B|ib_send_bw -n 1000 -s 65536"
	"ib_send_lat 64B (usec)|5|A|ib_send_lat -n 200 -s 64"
	"ib_read_lat 64B (usec)|5|A|ib_read_lat -n 200 -s 64"
)

# once LABEL COL SIDE ARGS: one perftest run, server in VM B; in VM A,
# ONCE is column COL of SIDE's report.  (Not in a $(...): the case
# counters must move in this shell.)
once() {
	local label=$1 col=$2 side=$3 args=$4
	IOP_N=$((IOP_N + 1))
	IOP_PORT=$((IOP_PORT + 1))
	# shellcheck disable=SC2086 # args is a word list
	if ! _iop_run B 4 perf $args >"$SROCE_RESULTS/bench-$IOP_N.log" 2>&1; then
		echo "$label failed:" >&2
		cat "$SROCE_RESULTS/bench-$IOP_N.log" >&2
	fi
	# After the barrier, so that VM B's report is complete.
	sync_barrier "c$IOP_N-end" 600 || exit 1
	ONCE=
	[ "$SROCE_VM" != A ] ||
		ONCE=$(perf_col "$col" <"$SROCE_SHARED/$side/case-$IOP_N-$side.log")
}

# round NAME: every run BENCH_REPEAT times; VM A records the median in
# RESULT_NAME_i and every value in ALL_NAME_i.
round() {
	local name=$1 i k label col side args all
	for i in "${!RUNS[@]}"; do
		IFS='|' read -r label col side args <<<"${RUNS[$i]}"
		all=
		for ((k = 0; k < BENCH_REPEAT; k++)); do
			once "$name: $label" "$col" "$side" "$args"
			all="$all${all:+ }${ONCE:-?}"
		done
		[ "$SROCE_VM" = A ] || continue
		printf -v "ALL_${name}_$i" '%s' "$all"
		printf -v "RESULT_${name}_$i" '%s' \
			"$(tr ' ' '\n' <<<"$all" | median)"
	done
}

# VM A: sroce out, rxe in, on the same eth0.
swap_to_rxe() {
	rdma link delete fab0 && rmmod sroce &&
		modprobe -a rdma_rxe &&
		rdma link add rxe0 type rxe netdev eth0 || return 1
	IOP_DEV=rxe0
	wait_for 30 iop_ready 1024 || return 1
	G4=$(iop_gid rxe0 192.168.78.1)
}

table() {
	local i label col side args s r sa ra all=""
	echo "## two VMs, eth0 MTU 1500 (RoCE MTU 1024), client VM A, server VM B (rdma_rxe)"
	echo "| test                   | sroce<->rxe |   rxe<->rxe | ratio |"
	echo "|------------------------|-------------|-------------|-------|"
	for i in "${!RUNS[@]}"; do
		IFS='|' read -r label col side args <<<"${RUNS[$i]}"
		s=RESULT_sroce_$i
		r=RESULT_rxe_$i
		sa=ALL_sroce_$i
		ra=ALL_rxe_$i
		awk -v n="$label" -v s="${!s:-}" -v r="${!r:-}" 'BEGIN {
			ratio = (r > 0 && s > 0) ? sprintf("%.2fx", s / r) : "n/a"
			printf "| %-22s | %11s | %11s | %5s |\n", n, s, r, ratio }'
		all="$all  $label: sroce<->rxe ${!sa:-}; rxe<->rxe ${!ra:-}"$'\n'
	done
	echo "(medians of $BENCH_REPEAT runs each; latency: lower is better, so a"
	echo " ratio below 1 favours sroce)"
	printf '%s' "$all"
}

main() {
	# iop_setup emits TAP lines; the bench's output is the table.
	iop_setup 1500 >"$SROCE_RESULTS/setup.log" || {
		cat "$SROCE_RESULTS/setup.log"
		exit 1
	}
	round sroce
	if [ "$SROCE_VM" = A ]; then
		swap_to_rxe || { echo "swapping sroce for rxe failed"; exit 1; }
	fi
	sync_barrier swapped 300 || exit 1
	round rxe
	if [ "$SROCE_VM" = A ]; then
		table
	fi
	sync_barrier finished 300 || true
}

main
