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
#
# During every bulk run VM A pings VM B across the same netem (the
# latency a game or a remote desktop would see behind that flow). On the
# clean path two fairness runs follow, each LFN_FAIR_SECONDS (2 *
# LFN_SECONDS) long: sroce against CUBIC, and sroce against a second
# sroce device (fab1 on a second macvlan, namespace lfn2). Shares come
# from the netdevs' byte counters over the second half of the run, when
# the flows have found their rates. LFN_NETEM adds netem options to the
# path (e.g. "reorder 25% 50%"); LFN_FAIR=0 skips the fairness runs;
# LFN_UDP_MBIT (120) and LFN_FLOOR_MBIT (85) are the open-loop UDP flows'
# rates for the path's ceiling and the pings' floor (udp());
# LFN_ELIDE=1 turns ICRC elision on for the sroce devices (both VMs);
# LFN_GSO=0 sends without trains (tx_gso, on here by default: the path
# leaves through virtio-net, which cuts them); LFN_LARGE=0 keeps sroce's
# packets to the path MTU (large_segments, on by default: 1432 bytes);
# LFN_CLIENT=lfn_write moves the RDMA WRITEs (sroce's and rxe's) with
# tools/bench/lfn_write instead of ib_write_bw: the same 64 KiB WRITEs,
# 128 in flight, but it sleeps on its completion channel where perftest
# busy-polls (under TCG the spinning vCPU takes a host core from the
# transfer), and the receiver checks every byte of every message.
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

SECS=${LFN_SECONDS:-20}
# 64 KiB messages: 20 s at about 5 Mbit/s (rxe), 1.3 s at 90.
ITERS=$((SECS * 10))
SROCE_ITERS=$((SECS * 150))
CC=${LFN_CC:-wan}
ELIDE=${LFN_ELIDE:-0}
GSO=${LFN_GSO:-1}
LARGE=${LFN_LARGE:-1}
CLIENT=${LFN_CLIENT:-perftest}
LFN_WRITE=$SROCE_TREE/out/bench/lfn_write
if [ "$CLIENT" = lfn_write ] && [ ! -x "$LFN_WRITE" ]; then
	echo "no $LFN_WRITE (make bench-lfn builds it)"
	exit 1
fi
# Which to measure (LFN_ONLY): a subset for a quicker look; "udp", the
# path's own ceiling, and "floor", the pings' (udp()), are two of them.
ONLY=${LFN_ONLY:-sroce rxe cubic bbr udp floor}
FLOOR_MBIT=${LFN_FLOOR_MBIT:-85}
LOSSES=${LFN_LOSS:-0 0.1 1}
DELAY=${LFN_DELAY_MS:-50}
NETEM=${LFN_NETEM:-}
FAIR=${LFN_FAIR:-1}
FAIR_SECS=${LFN_FAIR_SECONDS:-$((SECS * 2))}
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
	echo "$ELIDE" >/sys/class/infiniband/fab0/icrc_elide || return 1
	echo "$GSO" >/sys/module/sroce/parameters/tx_gso || return 1
	echo "$LARGE" >/sys/module/sroce/parameters/large_segments || return 1
	wait_for 30 gid_index lfn fab0 "192.168.79.$n" >/dev/null || return 1
	GS=$(gid_index lfn fab0 "192.168.79.$n")
	[ "$FAIR" = 0 ] || setup_second "$n" || return 1
	# rxe lists each address as RoCE v1 and v2: iop_gid picks v2.
	wait_for 30 iop_gid rxe0 "192.168.78.$n" >/dev/null || return 1
	GR=$(iop_gid rxe0 "192.168.78.$n")
	# Room for a bandwidth-delay product and more in TCP's buffers.
	sysctl -qw net.core.rmem_max=33554432 net.core.wmem_max=33554432
	sysctl -qw net.ipv4.tcp_rmem="4096 131072 33554432"
	sysctl -qw net.ipv4.tcp_wmem="4096 131072 33554432"
}

# A second sroce device, fab1 on macvlan mv1 in namespace lfn2, for the
# sroce against sroce fairness run.
setup_second() {
	local n=$1
	ip netns add lfn2 &&
		ip link add mv1 link eth0 type macvlan mode bridge &&
		ip link set mv1 netns lfn2 &&
		ip -n lfn2 addr add "192.168.80.$n/24" dev mv1 &&
		ip -n lfn2 link set mv1 up && ip -n lfn2 link set lo up || return 1
	ip netns exec lfn2 rdma link add fab1 type sroce netdev mv1 || return 1
	echo "$CC" >/sys/class/infiniband/fab1/cc || return 1
	echo "$ELIDE" >/sys/class/infiniband/fab1/icrc_elide || return 1
	wait_for 30 gid_index lfn2 fab1 "192.168.80.$n" >/dev/null || return 1
	GS2=$(gid_index lfn2 fab1 "192.168.80.$n")
}

# The path: both egresses, so that data and ACKs each see the delay and
# loss.  The queue limit holds a BDP several times over.
path() {
	# shellcheck disable=SC2086 # LFN_NETEM is a list of options
	tc qdisc replace dev eth0 root netem rate 100mbit delay "${DELAY}ms" \
		loss "$1%" limit 100000 $NETEM
}

# listening NS PORT
listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q .; }

# run NAME NS -- SERVER... -- CLIENT...: VM B serves in NS, VM A runs the
# client in NS; A keeps the client's output in $SROCE_RESULTS/NAME.log
# and pings B across the path meanwhile (NAME.ping).
run() {
	N=$((N + 1))
	run_tag "r$N" "$@"
}

# run_tag TAG NAME NS -- SERVER... -- CLIENT...: run, with TAG naming the
# sync points, so that two runs can go at once.
run_tag() {
	local tag=$1 name=$2 ns=$3 pid ppid qpid
	local -a srv=() cli=() pre=()
	[ -z "$ns" ] || pre=(ip netns exec "$ns")
	shift 4
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	if [ "$SROCE_VM" = B ]; then
		timeout $((SECS * 8 + 120)) "${pre[@]}" "${srv[@]}" \
			>"$SROCE_RESULTS/$name.server.log" 2>&1 &
		pid=$!
		wait_for 60 listening "$ns" "$PORT" && sync_signal "$tag-ready"
		cpu_stat >"$SROCE_RESULTS/$name.cpu"
		sync_wait "$tag-done" $((SECS * 8 + 120)) ||
			echo "$name: the client never finished" >&2
		cpu_stat >>"$SROCE_RESULTS/$name.cpu"
		# A server whose client failed would wait on forever.
		sleep 5
		kill "$pid" 2>/dev/null
		wait "$pid"
	else
		if sync_wait "$tag-ready" 90; then
			ping -n -i 0.2 192.168.78.2 >"$SROCE_RESULTS/$name.ping" 2>&1 &
			ppid=$!
			sample_queue >"$SROCE_RESULTS/$name.queue" &
			qpid=$!
			echo "$EPOCHREALTIME" >"$SROCE_RESULTS/$name.start"
			cpu_stat >"$SROCE_RESULTS/$name.cpu"
			timeout $((SECS * 8 + 60)) "${pre[@]}" "${cli[@]}" \
				>"$SROCE_RESULTS/$name.log" 2>&1 ||
				echo "$name: client failed (see $name.log)" >&2
			echo "$EPOCHREALTIME" >"$SROCE_RESULTS/$name.end"
			cpu_stat >>"$SROCE_RESULTS/$name.cpu"
			kill "$ppid" "$qpid"
			wait "$ppid" "$qpid" 2>/dev/null
		fi
		sync_signal "$tag-done"
	fi
	sync_barrier "$tag-end" $((SECS * 8 + 180))
}

# cpu_stat: the vCPUs' busy and total jiffies (cpu_line, lib.sh).
cpu_stat() {
	local c
	cpu_line c
	echo "$c"
}

# busy_pct FILE: how busy the vCPUs were between FILE's two lines, in %.
busy_pct() {
	awk 'NR == 1 { b = $1; t = $2 } NR == 2 && $2 > t {
		printf "%.0f\n", ($1 - b) * 100 / ($2 - t) }' "$1" 2>/dev/null
}

# sample_queue: the bytes netem on eth0 holds, and the bytes eth0 has
# sent, twice a second.  netem holds the delay line (what it let out in
# the last DELAY ms) and the bottleneck's queue: set beside the pings,
# the queue tells whether the pings wait in netem or in the guests.
# One tc answers every query (-batch): a tc exec'd per sample took 14 %
# of a vCPU under TCG (perf, 2026-12-07), from the guest that sends.
sample_queue() {
	local line tx
	coproc TCQ { stdbuf -oL tc -s -batch - 2>/dev/null; }
	# shellcheck disable=SC2064 # the coprocess's PID, now
	trap "kill $TCQ_PID; wait $TCQ_PID; exit 0" TERM
	while :; do
		echo "qdisc show dev eth0" >&"${TCQ[1]}"
		while read -r -t 5 line <&"${TCQ[0]}"; do
			[[ $line =~ backlog\ ([0-9]+)b ]] || continue
			tx_of /proc/net/dev eth0 tx
			echo "$EPOCHREALTIME ${BASH_REMATCH[1]} $tx"
			break
		done
		nap 0.5
	done
}

# median_max: "median/max" of the numbers on stdin, one per line,
# rounded; nothing if there are none.
median_max() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR) printf "%.0f/%.0f\n", v[int((NR + 1) / 2)], v[NR] }'
}

# queue_ms FILE: "median/max" ms of the bottleneck queue's delay: the
# bytes netem held less its delay line (its output rate over the last
# second times DELAY ms), at 100 Mbit/s.  The line is not taken for a
# full link's: a flow at 85 Mbit/s would show 7 ms of queue as none.
queue_ms() {
	awk -v d="$DELAY" '{ t[NR] = $1; x[NR] = $3 }
		NR > 2 && $1 > t[NR - 2] {
			line = (x[NR] - x[NR - 2]) / ($1 - t[NR - 2]) * d / 1000
			print ($2 - line) * 8 / 1e5
		}' "$1" 2>/dev/null | median_max
}

# delays NAME: run NAME's pings and netem's queue, as "median/max" ms.
delays() {
	RES[ping-$1]=$(ping_ms "$SROCE_RESULTS/$1.ping")
	RES[queue-$1]=$(queue_ms "$SROCE_RESULTS/$1.queue")
}

# ping_ms FILE: "median/max" of the round trips ping recorded, in ms.
ping_ms() {
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' "$1" 2>/dev/null | median_max
}

# LFN_TRACE=1: sroce's rate samples (the sroce_rate tracepoint: both legs
# of each interval, and the model after it) to NAME.rate, for a look at
# how the bandwidth estimate is made.
rate_traced() {
	[ "${LFN_TRACE:-0}" = 1 ] && [ -d "/sys/kernel/debug/sroce/$1" ]
}

rate_trace_on() { ! rate_traced "$1" || TRACE_KB=16384 trace_on sroce_rate || true; }
rate_trace_off() { ! rate_traced "$1" || trace_off "$SROCE_RESULTS/$2.rate"; }

# Goodput of a perftest run in Mbit/s, timed apart from perftest: its
# clock calibration fails on a loaded TCG host ("Correlation coefficient
# r^2 < 0.9") and then it reports 0 Gb/s.  A sampler records the sending
# netdev's tx_bytes every 0.1 s; the transfer runs from the first sample
# that grew by more than a message to the last that grew at all, and
# carried ITERS * 64 KiB of payload (retransmits are not goodput).
# goodput_mbit FILE MESSAGES
sample_tx() {
	local f=/proc/net/dev p v
	# A sleeper in the namespace lends its /proc/PID/net/dev, and nap
	# waits: no exec per sample (there were three: ip netns exec, cat,
	# sleep), which under TCG is CPU the measured flow would otherwise get.
	if [ -n "$1" ]; then
		ip netns exec "$1" sleep 100000 &
		p=$!
		f=/proc/$p/net/dev
		trap 'kill "$p"; exit 0' TERM
		sleep 0.5
	fi
	while :; do
		tx_of "$f" "$2" v
		echo "$EPOCHREALTIME $v"
		nap 0.1
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
		rate_trace_on "$dev"
	fi
	if [ "$CLIENT" = lfn_write ]; then
		run "$name" "$ns" -- \
			"$LFN_WRITE" -d "$dev" -x "$gid" -s 65536 -w 128 \
				-n "$iters" -p "$PORT" -- \
			"$LFN_WRITE" -d "$dev" -x "$gid" -s 65536 -w 128 \
				-n "$iters" -p "$PORT" "$peer"
	else
		run "$name" "$ns" -- \
			ib_write_bw -d "$dev" -x "$gid" -F -u 18 -s 65536 \
				-n "$iters" -p "$PORT" -- \
			ib_write_bw -d "$dev" -x "$gid" -F -u 18 -s 65536 \
				-n "$iters" -p "$PORT" "$peer"
	fi
	[ "$SROCE_VM" = B ] && return 0
	kill "$spid"
	wait "$spid" 2>/dev/null
	rate_trace_off "$dev" "$name"
	RES[$name]=$(goodput_mbit "$SROCE_RESULTS/$name.tx" "$iters")
	# Frames over the second half, as the ceiling is taken (udp_table):
	# the netdev's own count has trains' headers once.
	RES[wire-$name]=$(wire_mbit "$name")
	# lfn_write's receiver checked every byte, or the run counts for
	# nothing.
	if [ "$CLIENT" = lfn_write ] &&
		! grep -q "every byte checked" "$SROCE_RESULTS/$name.log"; then
		echo "$name: lfn_write failed (see $name.log)" >&2
		RES[$name]=FAIL
	fi
	delays "$name"
}

tcp() {
	local name=$1 cc=$2
	PORT=$((PORT + 1))
	run "$name" "" -- iperf3 -s -1 -p "$PORT" -- \
		iperf3 -c 192.168.78.2 -p "$PORT" -t "$SECS" -C "$cc" -f m
	[ "$SROCE_VM" = B ] && return 0
	RES[$name]=$(iperf_mbit "$SROCE_RESULTS/$name.log")
	delays "$name"
}

# udp NAME MBIT: a flow that needs no feedback, iperf3 UDP in 1432-byte
# datagrams (sroce's large segments carry as much) offered at MBIT.
# Two uses:
#  - the path's ceiling (udp): offered at LFN_UDP_MBIT (120), netem's
#    queue never runs dry, and what netem lets out meanwhile (A's eth0,
#    wire_mbit) is what every other row is held under on this host,
#    netem's timers and virtio included; B's iperf3 receives less (its
#    socket drops under TCG);
#  - the pings' floor (floor): offered at LFN_FLOOR_MBIT (85), a little
#    under the ceiling, so that netem's queue stays short; the pings then
#    show what carrying that much costs them in the guests and QEMU,
#    before any sender's queue.
udp() {
	local name=$1
	PORT=$((PORT + 1))
	run "$name" "" -- iperf3 -s -1 -p "$PORT" -- \
		iperf3 -c 192.168.78.2 -p "$PORT" -t "$SECS" -u -l 1432 \
			-b "$2M" -f m
	[ "$SROCE_VM" = B ] && return 0
	RES[$name]=$(iperf_mbit "$SROCE_RESULTS/$name.log")
	RES[wire-$name]=$(wire_mbit "$name")
	delays "$name"
}

# wire_mbit NAME: Mbit/s of the frames eth0 sent (what netem let out)
# during run NAME, from the bytes sample_queue kept beside netem's
# backlog, over the second half of the time the counter moved: by then
# the ceiling's offered 120 Mbit/s has filled netem's queue, and what
# leaves is what netem can let out; a closed-loop flow is past its
# startup.
wire_mbit() {
	awk '{ t[NR] = $1; b[NR] = $3 } NR > 1 && $3 != b[NR - 1] { if (!s) s = NR; l = NR }
		END {
			m = int((s + l) / 2)
			if (s && l - 1 > m) printf "%.1f\n", (b[l - 1] - b[m]) * 8 / (t[l - 1] - t[m]) / 1e6
		}' "$SROCE_RESULTS/$1.queue"
}

# ---------------------------------------------------------- fairness ----
# tx_of FILE DEV VAR: DEV's transmitted bytes, from a /proc/.../net/dev,
# into VAR.  No process per sample: under TCG a few execs a second would
# be most of the sampler's time.
tx_of() {
	local line var=$3 f
	# Split at the colon, not at blanks: the kernel prints "%6s:%8llu",
	# so past 99999999 received bytes the name and the count touch.
	while read -r line; do
		[ "${line%%:*}" = "$2" ] || continue
		read -r -a f <<<"${line#*:}"
		printf -v "$var" %s "${f[8]}"
		return 0
	done <"$1"
	printf -v "$var" %s 0
}

# Byte counters of the netdevs that carry each flow: eth0 carries all of
# them (a macvlan sends through it), mv0 and mv1 only sroce's.  A sleeper
# in each namespace lends its /proc/PID/net/dev.
sample_bytes() {
	local p0 p1 e a b
	ip netns exec lfn sleep 100000 &
	p0=$!
	ip netns exec lfn2 sleep 100000 &
	p1=$!
	trap 'kill "$p0" "$p1"; exit 0' TERM
	sleep 0.5
	while :; do
		tx_of /proc/net/dev eth0 e
		tx_of "/proc/$p0/net/dev" mv0 a
		tx_of "/proc/$p1/net/dev" mv1 b
		echo "$EPOCHREALTIME $e $a $b"
		nap 0.5
	done
}

# shares FILE FROM TO: Mbit/s of "tcp sroce0 sroce1" from the samples
# in FILE that enclose the time from FROM to TO (eth0's bytes less the
# macvlans' are TCP's, and the pings').
shares() {
	awk -v from="$2" -v to="$3" '
	!t0 || $1 <= from { t0 = $1; e0 = $2; a0 = $3; b0 = $4 }
	!t1 { t1 = $1; e1 = $2; a1 = $3; b1 = $4; if ($1 < to) t1 = 0 }
	END {
		if (t1 - t0 < 1) exit
		da = a1 - a0; db = b1 - b0; dt = t1 - t0
		printf "%.1f %.1f %.1f\n", (e1 - e0 - da - db) * 8 / dt / 1e6,
			da * 8 / dt / 1e6, db * 8 / dt / 1e6
	}' "$1"
}

# overlap NAME1 NAME2: "FROM TO", the second half of the time both
# clients ran (their .start and .end times).
overlap() {
	local d=$SROCE_RESULTS
	awk 'BEGIN {
		getline s1 <ARGV[1]; getline e1 <ARGV[2]
		getline s2 <ARGV[3]; getline e2 <ARGV[4]
		s = s1 > s2 ? s1 : s2; e = e1 < e2 ? e1 : e2
		if (e > s) printf "%f %f\n", s + (e - s) / 2, e
	}' "$d/$1.start" "$d/$1.end" "$d/$2.start" "$d/$2.end"
}

# sroce_srv NS DEV GID PORT: the server's words (the client's: the same
# and the peer's address): ib_write_bw for FAIR_SECS seconds (-D), or
# with LFN_CLIENT=lfn_write, which has no duration, as many messages as
# 40 Mbit/s moves in that time (a flow that gets more ends sooner; the
# shares are taken while both ran).
sroce_srv() {
	if [ "$CLIENT" = lfn_write ]; then
		echo "$LFN_WRITE" -d "$2" -x "$3" -s 65536 -w 128 \
			-n $((FAIR_SECS * 76)) -p "$4"
	else
		echo ib_write_bw -d "$2" -x "$3" -F -u 18 -s 65536 -D "$FAIR_SECS" -p "$4"
	fi
}

# fair NAME OTHER: sroce (fab0) and OTHER (cubic or sroce, i.e. fab1) at
# once, for FAIR_SECS seconds each; the shares are taken over the second
# half of the time both ran.
fair() {
	local name=$1 other=$2 spid p0 p1 j0 j1
	N=$((N + 1))
	PORT=$((PORT + 2))
	p0=$PORT
	p1=$((PORT - 1))
	if [ "$SROCE_VM" = A ]; then
		sample_bytes >"$SROCE_RESULTS/$name.bytes" &
		spid=$!
	fi
	# shellcheck disable=SC2046 # the tool's words
	run_tag "r$N-a" "$name-sroce" lfn -- $(sroce_srv lfn fab0 "$GS" "$p0") -- \
		$(sroce_srv lfn fab0 "$GS" "$p0") 192.168.79.2 &
	j0=$!
	if [ "$other" = cubic ]; then
		PORT=$p1 run_tag "r$N-b" "$name-cubic" "" -- iperf3 -s -1 -p "$p1" -- \
			iperf3 -c 192.168.78.2 -p "$p1" -t "$FAIR_SECS" -C cubic -f m &
	else
		# shellcheck disable=SC2046
		PORT=$p1 run_tag "r$N-b" "$name-sroce2" lfn2 -- $(sroce_srv lfn2 fab1 "$GS2" "$p1") -- \
			$(sroce_srv lfn2 fab1 "$GS2" "$p1") 192.168.80.2 &
	fi
	j1=$!
	wait "$j0" "$j1"
	[ "$SROCE_VM" = B ] && return 0
	kill "$spid"
	wait "$spid" 2>/dev/null
	local -a win
	read -ra win <<<"$(overlap "$name-sroce" "$name-$([ "$other" = cubic ] && echo cubic || echo sroce2)")"
	[ ${#win[@]} = 2 ] &&
		RES[$name]=$(shares "$SROCE_RESULTS/$name.bytes" "${win[0]}" "${win[1]}")
}

round() {
	local loss=$1
	path "$loss" || return 1
	sync_barrier "path-$loss" 120 || return 1
	if listed sroce "$ONLY"; then
		perf "sroce-$loss" lfn fab0 "$GS" 192.168.79.2 mv0 "$SROCE_ITERS"
		[ "$SROCE_VM" = B ] || RES[cnt-$loss]=$(counters lfn fab0)
	fi
	! listed rxe "$ONLY" ||
		perf "rxe-$loss" "" rxe0 "$GR" 192.168.78.2 eth0 "$ITERS"
	! listed cubic "$ONLY" || tcp "cubic-$loss" cubic
	! listed bbr "$ONLY" || tcp "bbr-$loss" bbr
	! listed udp "$ONLY" || udp "udp-$loss" "${LFN_UDP_MBIT:-120}"
	# Loss does not move an open-loop flow's delays: once is enough.
	! listed floor "$ONLY" || [ "$loss" != "${LOSSES%% *}" ] ||
		udp "floor-$loss" "$FLOOR_MBIT"
	[ "$FAIR" = 0 ] || [ "$loss" != 0 ] || {
		fair "fair-cubic-$loss" cubic
		fair "fair-sroce-$loss" sroce
	}
}

table() {
	local loss
	echo "## 100 Mbit/s, $((DELAY * 2)) ms RTT (netem both ways), ${SECS} s per run, Mbit/s"
	echo "sroce: congestion control $CC, selective repeat on, ICRC elision $([ "$ELIDE" = 1 ] && echo on || echo off), trains $([ "$GSO" = 1 ] && echo on || echo off), large segments $([ "$LARGE" = 1 ] && echo on || echo off); RDMA WRITEs by $CLIENT"
	echo "| loss   | sroce RC WRITE | rxe RC WRITE | TCP CUBIC | TCP BBR | sroce/rxe |"
	echo "|--------|----------------|--------------|-----------|---------|-----------|"
	for loss in $LOSSES; do
		awk -v l="$loss %" -v s="${RES[sroce-$loss]:-}" -v r="${RES[rxe-$loss]:-}" \
			-v c="${RES[cubic-$loss]:-}" -v b="${RES[bbr-$loss]:-}" 'BEGIN {
			ratio = (r > 0 && s > 0) ? sprintf("%.1fx", s / r) : "n/a"
			printf "| %-6s | %14s | %12s | %9s | %7s | %9s |\n", l, s, r, c, b, ratio }'
	done
	udp_table
	floor_table
	echo
	echo "## ping across the path during each run, median/max ms (base $((DELAY * 2)) ms)"
	echo "| loss   | sroce     | rxe       | CUBIC     | BBR       |"
	echo "|--------|-----------|-----------|-----------|-----------|"
	for loss in $LOSSES; do
		printf '| %-6s | %9s | %9s | %9s | %9s |\n' "$loss %" \
			"${RES[ping-sroce-$loss]:-}" "${RES[ping-rxe-$loss]:-}" \
			"${RES[ping-cubic-$loss]:-}" "${RES[ping-bbr-$loss]:-}"
	done
	echo
	echo "## netem's queue at A meanwhile, median/max ms at 100 Mbit/s above the delay line"
	echo "(ping less the base, against this: the rest waited in the guests)"
	echo "| loss   | sroce     | rxe       | CUBIC     | BBR       |"
	echo "|--------|-----------|-----------|-----------|-----------|"
	for loss in $LOSSES; do
		printf '| %-6s | %9s | %9s | %9s | %9s |\n' "$loss %" \
			"${RES[queue-sroce-$loss]:-}" "${RES[queue-rxe-$loss]:-}" \
			"${RES[queue-cubic-$loss]:-}" "${RES[queue-bbr-$loss]:-}"
	done
	fair_table
	echo "sroce's counters (VM A, cumulative) after each loss rate's run:"
	for loss in $LOSSES; do
		echo "  $loss %: ${RES[cnt-$loss]:-}"
	done
}

# How busy this VM's vCPUs were in each run (A sends, B receives):
# under TCG a busy receiver queues in its own rings, and the pings wait
# there rather than in netem.
cpu_table() {
	local f line=""
	for f in "$SROCE_RESULTS"/*.cpu; do
		[ -e "$f" ] || continue
		f=${f##*/}
		line+=" ${f%.cpu}=$(busy_pct "$SROCE_RESULTS/$f")%"
	done
	echo "VM $SROCE_VM vCPUs busy during each run:$line"
}

# The path's ceiling (udp): the UDP payload rate, and what sroce's
# 1432-byte segments would carry at the same frame rate (their frames are
# 1490 bytes on the wire, the datagrams' 1474).
udp_table() {
	local loss
	listed udp "$ONLY" || return 0
	echo
	echo "## the path's ceiling: iperf3 UDP, 1432-byte datagrams at ${LFN_UDP_MBIT:-120} Mbit/s offered"
	echo "(netem's output: frames A's eth0 sent, Mbit/s; the payload sroce's 1432-byte"
	echo "segments would carry in as many bytes of frames; what B's iperf3 received;"
	echo "sroce's frames over the second half of its run, retransmits included, and"
	echo "their share of netem's)"
	for loss in $LOSSES; do
		awk -v l="$loss" -v u="${RES[udp-$loss]:-}" -v w="${RES[wire-udp-$loss]:-}" \
			-v s="${RES[wire-sroce-$loss]:-}" 'BEGIN {
			if (w > 0) printf "  %s %%: netem sent %.1f, sroce payload %.1f, received %s", l, w, w * 1432 / 1490, u
			else printf "  %s %%: n/a", l
			if (s > 0 && w > 0) printf "; sroce sent %.1f (%.0f %%)", s, s * 100 / w
			printf "\n" }'
	done
}

# The pings' floor (udp()): what the pings cost with no sender's queue.
floor_table() {
	local loss=${LOSSES%% *}
	listed floor "$ONLY" || return 0
	echo
	echo "## the pings' floor: iperf3 UDP, 1432-byte datagrams at $FLOOR_MBIT Mbit/s offered, $loss % loss"
	echo "(no feedback, so no sender's queue: what carrying this much costs a ping here)"
	echo "  netem sent ${RES[wire-floor-$loss]:-n/a} Mbit/s; ping median/max ${RES[ping-floor-$loss]:-n/a} ms;" \
		"netem's queue median/max ${RES[queue-floor-$loss]:-n/a} ms"
}

# The fairness runs: each flow's Mbit/s over the run's second half.
fair_table() {
	local -a r
	[ "$FAIR" = 0 ] && return 0
	echo
	echo "## fairness on the clean path, ${FAIR_SECS} s, Mbit/s over the second half"
	read -ra r <<<"${RES[fair-cubic-0]:-}"
	echo "sroce against CUBIC: sroce ${r[1]:-n/a}, CUBIC ${r[0]:-n/a}" \
		"(CUBIC's share $(share "${r[0]:-}" "${r[1]:-}"); wanted >= 0.33)"
	read -ra r <<<"${RES[fair-sroce-0]:-}"
	echo "sroce against sroce: fab0 ${r[1]:-n/a}, fab1 ${r[2]:-n/a}" \
		"(ratio $(ratio "${r[1]:-}" "${r[2]:-}"); wanted <= 2)"
}

# share A B: A / (A + B); ratio A B: the larger over the smaller.
share() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + b > 0) printf "%.2f", a / (a + b); else print "n/a" }'; }
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a > 0 && b > 0) printf "%.2f", (a > b ? a / b : b / a); else print "n/a" }'
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
	if [ "$SROCE_VM" = A ]; then table; fi
	cpu_table
	sync_barrier finished 300 || true
}

main
