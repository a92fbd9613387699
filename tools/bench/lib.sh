#!/bin/bash
# Shared by the in-VM benchmark (bench-rc.sh) and make demo's guest half:
# sroce between namespaces ns1 and ns2 over veth (fab1, fab2) beside
# rdma_rxe on lo (rxe0), driven by unchanged perftest.
# Source after selftests/lib.sh.

# Column N of perftest's result line (the line after the "#bytes" header);
# N may name several, "5/6/8", printed joined by slashes.
perf_col() {
	awk -v c="$1" '/^ *#bytes/ { getline; n = split(c, f, "/"); v = $f[1]
		for (i = 2; i <= n; i++) v = v "/" $f[i]; print v; exit }'
}

# bandwidth (MB/s average) and latency (usec, t_typical) of a tool.
sroce_bw() { perf_nonzero _sroce_perf 4 "$@"; }
rxe_bw() { perf_nonzero _rxe_perf 4 "$@"; }
sroce_lat() { perf_nonzero _sroce_perf 5 "$@"; }
rxe_lat() { perf_nonzero _rxe_perf 5 "$@"; }
_sroce_perf() { perf_run ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 "$@"; }
# sroce in loopback on fab1 (local delivery), like rxe on lo.
sroce_lo_bw() { perf_nonzero _sroce_lo_perf 4 "$@"; }
sroce_lo_lat() { perf_nonzero _sroce_lo_perf 5 "$@"; }
_sroce_lo_perf() { perf_run ns1 fab1 "$G4A" ns1 fab1 "$G4A" 192.168.77.1 "$@"; }
_rxe_perf() { perf_run "" rxe0 "$GRXE" "" rxe0 "$GRXE" 127.0.0.1 "$@"; }

# perf_nonzero RUN COL ARGS...: column COL (perf_col) of RUN ARGS..., run
# up to three times while the first reads zero or infinity: perftest's clock calibration
# fails now and then under TCG ("Correlation coefficient r^2 < 0.9") and
# it then prints 0 for every rate, or inf for every latency.
perf_nonzero() {
	local run=$1 col=$2 v i
	shift 2
	for i in 1 2 3; do
		v=$("$run" "$@" | perf_col "$col")
		case $v in
		'' | 0 | 0.0 | 0.00 | 0/* | 0.0/* | 0.00/* | inf* | -inf* | nan* | -nan*)
			echo "perftest printed '$v' (run $i), again" >&2 ;;
		*) break ;;
		esac
	done
	echo "$v"
}

# median: the median of the numbers on stdin, one per line (empty lines,
# non-numbers and zeros skipped; the lower middle of an even count);
# nothing if there are none.  A zero is a run that measured nothing:
# perf_nonzero gives up with perftest's 0 after three failed clock
# calibrations, and counting it would pull the median down as if sroce
# had stalled.  Benchmarks under TCG vary run to run by a third: one run
# is an anecdote.
median() {
	grep -E '^[0-9]+([.][0-9]+)?$' | awk '$1 > 0' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# nap SECONDS: wait that long without a process.  Under TCG an exec costs
# milliseconds of a vCPU: a sampler that ran sleep(1) ten times a second
# took an eighth of the sending VM's CPU from the flow it measured.  The
# read waits on a FIFO of this shell's own that nobody writes to.
nap() {
	if [ -z "${NAP_FD:-}" ]; then
		local f
		f=$(mktemp -u /tmp/nap.XXXXXX)
		mkfifo "$f" && exec {NAP_FD}<>"$f" && rm -f "$f"
	fi
	read -r -t "$1" -u "$NAP_FD" _ || true
}

# listed WORD LIST: is WORD one of the blank-separated words of LIST?
# (a benchmark's *_ONLY subset).
listed() { [[ " $2 " == *" $1 "* ]]; }

# cpu_line VAR: "busy total" jiffies of all CPUs, from /proc/stat.
cpu_line() {
	local _c u n s i w q sq st
	read -r _c u n s i w q sq st _ </proc/stat
	printf -v "$1" '%s %s' $((u + n + s + q + sq + st)) \
		$((u + n + s + i + w + q + sq + st))
}

# Runs per figure (BENCH_REPEAT, 3): the figure is their median.
BENCH_REPEAT=${BENCH_REPEAT:-3}

# bench_setup: load sroce, link ns1 and ns2, create fab1, fab2 and rxe0;
# sets G4A, G4B and GRXE, the IPv4 GID indexes the tools use.
bench_setup() {
	sroce_load && sroce_provider_setup && topo_veth || return 1
	ip netns exec ns1 rdma link add fab1 type sroce netdev v1 || return 1
	ip netns exec ns2 rdma link add fab2 type sroce netdev v2 || return 1
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev lo || return 1
	wait_for 10 gid_index ns1 fab1 192.168.77.1 >/dev/null
	G4A=$(gid_index ns1 fab1 192.168.77.1) &&
		G4B=$(gid_index ns2 fab2 192.168.77.2) &&
		GRXE=$(gid_index "" rxe0 127.0.0.1)
}

# row NAME UNIT SROCE RXE: one table line with the sroce/rxe ratio.
row() {
	local name=$1 unit=$2 s=$3 r=$4
	awk -v n="$name" -v u="$unit" -v s="$s" -v r="$r" 'BEGIN {
		ratio = (r > 0 && s > 0) ? sprintf("%.2fx", s / r) : "n/a"
		printf "| %-22s | %10s | %10s | %9s |\n", n " (" u ")", s, r, ratio }'
}

table_head() {
	echo "| test                   |      sroce |        rxe | sroce/rxe |"
	echo "|------------------------|------------|------------|-----------|"
}

# udp_lat: the kernel's floor for a one-way trip over the veth: UDP
# sockets busy-polling 64-byte datagrams (usec; out/bench/udp_pingpong,
# which make bench builds).  rxe's lo figure has no such floor: for a
# peer on its own netdev, rxe hands the packet to its receive path
# directly, never entering the IP stack.
udp_lat() {
	local u=$SROCE_TREE/out/bench/udp_pingpong

	ip netns exec ns1 "$u" server 19600 &
	sleep 1
	ip netns exec ns2 "$u" client 192.168.77.1 19600 5000 |
		awk '{print $2}'
	wait
}
