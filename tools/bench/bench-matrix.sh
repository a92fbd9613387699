#!/bin/bash
# The clean-path matrix (issue 6), run inside one VM by make bench: sroce
# between two namespaces over veth at MTU 9000 (RoCE MTU 4096, as rxe's
# on lo), rdma_rxe on lo, and TCP (iperf3) over the same veth, measured
# side by side in the same run:
#
#  - bandwidth of ib_write_bw, ib_read_bw and ib_send_bw at 4 KiB, 64 KiB
#    and 1 MiB (about 160 MB each), and of ib_write_bw 64 KiB with eight
#    QPs;
#    TCP: one iperf3 stream writing the same size (eight for -q 8);
#  - latency of ib_send_lat, ib_write_lat and ib_read_lat at 64 B; TCP's
#    column is the kernel's UDP floor over the veth (a 64-byte ping-pong);
#  - CPU per byte: both vCPUs' busy time from /proc/stat over the seconds
#    in which the transfer ran, per GB of payload at the measured rate.
#    perftest busy-polls its CQs, so RDMA pays for idle polling here where
#    iperf3 sleeps: the figure is an upper bound for sroce and rxe.
#
#  - the rows ICRC elision changes, again with icrc_elide on at both
#    ends (Documentation/wire.rst); MATRIX_ONLY=elide measures just
#    those, with elision off and on, for a quick A/B.
#
# Prints a table with sroce/rxe and sroce/TCP ratios (medians of
# BENCH_REPEAT runs, the three alternating) and writes
# $SROCE_RESULTS/matrix.csv for tools/bench/plot-matrix.  Not a timed
# test: it fails only if setup fails.
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

SECS=5

# net_bytes FILE DEV VAR: DEV's received plus transmitted bytes from a
# /proc/.../net/dev (split at the colon: large counters touch the name).
net_bytes() {
	local line f
	while read -r line; do
		[ "${line%%:*}" = "$2" ] || continue
		read -r -a f <<<"${line#*:}"
		printf -v "$3" %s $((f[0] + f[8]))
		return 0
	done <"$1"
	printf -v "$3" %s 0
}

# sampler veth|rxe: "time busy progress" every 0.25 s until killed.
# Progress is what moves while a transfer runs: the veth's bytes (seen
# from ns1), or rxe's packet counters (rxe hands a packet for lo straight
# to its receive path, so lo's counters stay still).  For the namespace,
# a sleeper there lends its /proc/PID/net/dev: no exec per sample, which
# under TCG would be CPU the measured flow does not get.
sampler() {
	local src=/proc/net/dev hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	local p c b s r
	if [ "$1" = veth ]; then
		ip netns exec ns1 sleep 100000 &
		p=$!
		src=/proc/$p/net/dev
		trap 'kill "$p"; exit 0' TERM
		sleep 0.3
	fi
	while :; do
		cpu_line c
		if [ "$1" = veth ]; then
			net_bytes "$src" v1 b
		else
			read -r s <"$hw/sent_pkts"
			read -r r <"$hw/rcvd_pkts"
			b=$((s + r))
		fi
		echo "$EPOCHREALTIME ${c% *} $b"
		sleep 0.25
	done
}

# cpu_per_gb FILE MBPS: CPU seconds (USER_HZ 100) per GB of payload, over
# the samples from the first that saw progress to the last that did; the
# payload is the measured rate over that window.
cpu_per_gb() {
	awk -v mbps="$2" '
	NR > 1 && $3 != pp { if (!t0) { t0 = pt; j0 = pj } t1 = $1; j1 = $2 }
	{ pt = $1; pj = $2; pp = $3 }
	END { if (t0 && t1 > t0 && mbps > 0)
		printf "%.1f\n", (j1 - j0) / 100 / (mbps * (t1 - t0) / 1000) }' "$1"
}

# measure SYSTEM KIND ARGS...: one figure, with the sampler around a
# bandwidth run; prints "VALUE CPU_PER_GB" (no CPU figure for latency).
measure() {
	local sys=$1 kind=$2 spid v smp=$SROCE_RESULTS/sample.$$
	shift 2
	if [ "$kind" = bw ]; then
		if [ "$sys" = rxe ]; then sampler rxe; else sampler veth; fi >"$smp" &
		spid=$!
		sleep 0.5
	fi
	case $sys/$kind in
	tcp/bw) v=$(tcp_bw "$@") ;;
	tcp/lat) v=$(udp_lat) ;;
	*) v=$("${sys}_$kind" "$@") ;;
	esac
	if [ "$kind" = bw ]; then
		kill "$spid"
		wait "$spid" 2>/dev/null
		echo "${v:-0} $(cpu_per_gb "$smp" "${v:-0}")"
		rm -f "$smp"
	else
		echo "${v:-0} -"
	fi
}

# tcp_bw ARGS...: iperf3 over the veth, MB/s, with perftest's -s and -q
# mapped to iperf3's -l and -P.
tcp_bw() {
	local len=65536 par=1 port=19500
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-s) len=$2; shift ;;
		-q) par=$2; shift ;;
		esac
		shift
	done
	ip netns exec ns1 iperf3 -s -1 -p $port >/dev/null 2>&1 &
	wait_listen ns1 $port || return 1
	ip netns exec ns2 iperf3 -c 192.168.77.1 -p $port -t $SECS -l "$len" \
		-P "$par" -f M 2>/dev/null |
		awk '/receiver/ {v = $(NF - 2)} END {print v}'
	wait
}

# iters BYTES: perftest iterations for about 160 MB, at least 100.  (Its
# -D duration mode printed 0 MB/s under a loaded TCG host.)
iters() {
	local n=$((160 * 1024 * 1024 / $1))
	echo $((n < 100 ? 100 : n))
}

# field N: the Nth value of each line on stdin.
field() { awk -v n="$1" '{print $n}'; }

# ratio A B: A/B as "1.23x", or n/a.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		print (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "n/a" }'
}

# tcp_key KIND ARGS...: what TCP's figure depends on.  Write, read and
# send of one size are the same iperf3 run (and every latency row the
# same UDP floor), so each is measured once per key, not once per row.
tcp_key() {
	local key=$1
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		-s | -q) key+=" $1 $2"; shift ;;
		esac
		shift
	done
	[ "${key%% *}" = lat ] && key=lat
	echo "$key"
}

# figure NAME UNIT KIND ARGS...: BENCH_REPEAT rounds of sroce, rxe and
# TCP; one table row of medians, one CSV line, every run under ALL.
ALL=
declare -A TCP_RUNS=()
figure() {
	local name=$1 unit=$2 kind=$3 k sys out key
	local -A runs=()
	shift 3
	key=$(tcp_key "$kind" "$@")
	for ((k = 0; k < BENCH_REPEAT; k++)); do
		for sys in sroce rxe tcp; do
			[ $sys = tcp ] && [ -n "${TCP_RUNS[$key]:-}" ] && continue
			runs[$sys]+="$(measure $sys "$kind" "$@")"$'\n'
		done
	done
	if [ -n "${TCP_RUNS[$key]:-}" ]; then
		runs[tcp]=${TCP_RUNS[$key]}
	else
		TCP_RUNS[$key]=${runs[tcp]}
	fi
	local s r t cs cr ct
	s=$(field 1 <<<"${runs[sroce]}" | median)
	r=$(field 1 <<<"${runs[rxe]}" | median)
	t=$(field 1 <<<"${runs[tcp]}" | median)
	cs=$(field 2 <<<"${runs[sroce]}" | median)
	cr=$(field 2 <<<"${runs[rxe]}" | median)
	ct=$(field 2 <<<"${runs[tcp]}" | median)
	out=$(printf '| %-34s | %8s | %8s | %8s | %9s | %9s | %6s | %6s | %6s |' \
		"$name ($unit)" "$s" "$r" "$t" "$(ratio "$s" "$r")" \
		"$(ratio "$s" "$t")" "${cs:--}" "${cr:--}" "${ct:--}")
	echo "$out"
	echo "$name,$unit,$s,$r,$t,${cs},${cr},${ct}" >>"$SROCE_RESULTS/matrix.csv"
	ALL+="  $name: sroce $(field 1 <<<"${runs[sroce]}" | xargs);"
	ALL+=" rxe $(field 1 <<<"${runs[rxe]}" | xargs);"
	ALL+=" tcp $(field 1 <<<"${runs[tcp]}" | xargs)"$'\n'
}

# lo_figure NAME UNIT KIND ARGS...: like for like, both on the host's
# own address: sroce in loopback on fab1 (local.c) against rxe on lo,
# BENCH_REPEAT rounds alternating; one row of medians.
lo_figure() {
	local name=$1 unit=$2 kind=$3 k s="" r=""
	shift 3
	for ((k = 0; k < BENCH_REPEAT; k++)); do
		s+=" $("sroce_lo_$kind" "$@")"
		r+=" $("rxe_$kind" "$@")"
	done
	row "$name" "$unit" "$(tr ' ' '\n' <<<"$s" | median)" \
		"$(tr ' ' '\n' <<<"$r" | median)"
	ALL+="  $name (loopback): sroce$s; rxe$r"$'\n'
}

# elide 0|1: icrc_elide of fab1 and fab2, for the QPs perftest makes next.
elide() {
	echo "$1" >/sys/class/infiniband/fab1/icrc_elide &&
		echo "$1" >/sys/class/infiniband/fab2/icrc_elide
}

# elide_rows [off]: the rows the ICRC's cost shows in, with elision on at
# both ends; with "off", each row first as it is by default.
elide_rows() {
	local name kind
	local -a rows=("ib_write_bw 64K|bw|ib_write_bw -s 65536 -n $(iters 65536)"
		"ib_read_bw 64K|bw|ib_read_bw -s 65536 -n $(iters 65536)"
		"ib_send_bw 64K|bw|ib_send_bw -s 65536 -n $(iters 65536)"
		"ib_write_bw 1M|bw|ib_write_bw -s 1048576 -n $(iters 1048576)"
		"ib_write_bw 64K -q 8|bw|ib_write_bw -s 65536 -q 8 -n $(iters $((65536 * 8)))"
		"ib_send_lat 64B|lat|ib_send_lat -s 64")
	local r
	for r in "${rows[@]}"; do
		name=${r%%|*}
		kind=${r#*|}
		kind=${kind%%|*}
		# shellcheck disable=SC2086 # the perftest arguments
		if [ "${1:-}" = off ]; then
			elide 0 || return 1
			figure "$name" "$([ "$kind" = bw ] && echo MB/s || echo usec)" "$kind" ${r##*|}
		fi
		elide 1 || return 1
		# shellcheck disable=SC2086
		figure "$name elided" "$([ "$kind" = bw ] && echo MB/s || echo usec)" "$kind" ${r##*|}
	done
	elide 0
	echo "(packets sent without an ICRC: fab1 $(counter ns1 fab1 tx_icrc_elided)," \
		"fab2 $(counter ns2 fab2 tx_icrc_elided))"
}

main() {
	local op size
	[ -x "$SROCE_TREE/out/bench/udp_pingpong" ] ||
		{ echo "no out/bench/udp_pingpong (make bench builds it)"; exit 1; }
	bench_setup || { echo "setup failed"; exit 1; }
	if ! { ip -n ns1 link set v1 mtu 9000 && ip -n ns2 link set v2 mtu 9000 &&
		wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'"; }; then
		echo "MTU 9000 failed"
		exit 1
	fi
	echo "name,unit,sroce,rxe,tcp,cpu_sroce,cpu_rxe,cpu_tcp" >"$SROCE_RESULTS/matrix.csv"
	echo "## sroce fab1<->fab2 (veth, MTU 9000), rxe0 (lo), TCP (the same veth)"
	echo "| test                               |    sroce |      rxe |      TCP | sroce/rxe | sroce/TCP | CPU s/GB: sroce |  rxe |  TCP |"
	echo "|------------------------------------|----------|----------|----------|-----------|-----------|--------|--------|--------|"
	if [ "${MATRIX_ONLY:-}" = elide ]; then
		elide_rows off || echo "icrc_elide failed"
		printf '%s' "$ALL"
		return
	fi
	for op in write read send; do
		for size in 4096 65536 1048576; do
			figure "ib_${op}_bw $((size / 1024))K" MB/s bw \
				"ib_${op}_bw" -s $size -n "$(iters $size)"
		done
	done
	figure "ib_write_bw 64K -q 8" MB/s bw ib_write_bw -s 65536 -q 8 \
		-n "$(iters $((65536 * 8)))"
	for op in send write read; do
		figure "ib_${op}_lat 64B" usec lat "ib_${op}_lat" -s 64
	done
	echo
	echo "## ICRC elision: sroce with icrc_elide on at both ends"
	elide_rows || echo "icrc_elide failed"
	echo
	echo "## like for like: sroce in loopback on fab1, rxe0 on lo (both skip IP)"
	table_head
	lo_figure "ib_send_lat 64B" usec lat ib_send_lat -s 64
	lo_figure "ib_write_lat 64B" usec lat ib_write_lat -s 64
	lo_figure "ib_write_bw 64K" MB/s bw ib_write_bw -s 65536 \
		-n "$(iters 65536)"
	echo
	echo "(medians of $BENCH_REPEAT runs; latency is t_typical, lower is better;"
	echo " TCP: iperf3 with the same write size and streams, and for latency the"
	echo " UDP floor; CPU s/GB: both vCPUs' busy seconds per GB of payload)"
	printf '%s' "$ALL"
}

main
