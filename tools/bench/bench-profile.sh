#!/bin/bash
# Where the time goes (issue 6), one VM: perf record -a -g over an
# ib_write_bw 64 KiB, an ib_read_bw 64 KiB and an ib_send_lat 64 B run
# (PROFILE_ONLY: a subset, e.g. "read_bw"; PROFILE_SCRIPT=1 also saves
# every sample's call chain as perf.script.NAME.gz) between fab1
# and fab2 (namespaces over veth, MTU 9000, as in bench-matrix), with
# ICRC elision on at both ends (PROFILE_ELIDE=0: off).  Prints, for
# each, the hottest symbols of both vCPUs (self time) and the share of
# each module.  Not a timed test: it fails only if setup fails.
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

ELIDE=${PROFILE_ELIDE:-1}
SECS=${PROFILE_SECONDS:-8}
ONLY=${PROFILE_ONLY:-write_bw read_bw send_lat}

# report NAME: the top of perf.data.NAME, by symbol and by module.
report() {
	local data=$SROCE_RESULTS/perf.data.$1
	echo "## $1: hottest symbols, % of all samples on both vCPUs (self)"
	command perf report -i "$data" --no-children --sort sym --stdio \
		-g none --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' |
		head -n 30
	echo "## $1: the kernel's part, by symbol (% of all samples)"
	command perf report -i "$data" --no-children --sort sym --stdio \
		-g none --percent-limit 0.7 --dsos '[kernel.kallsyms],[sroce]' \
		2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30
	echo "## $1: sroce's functions with what they call (% of all samples)"
	command perf report -i "$data" --children --sort sym --stdio \
		-g none --percent-limit 1.5 2>/dev/null | grep ' sroce_' |
		head -n 40
	# PROFILE_SCRIPT=1: every sample's call chain, for offline study.
	[ "${PROFILE_SCRIPT:-0}" = 1 ] &&
		command perf script -i "$data" -F comm,cpu,ip,sym 2>/dev/null |
		gzip >"$SROCE_RESULTS/perf.script.$1.gz"
	echo "## $1: by module"
	command perf report -i "$data" --no-children --sort dso --stdio \
		-g none --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' |
		head -n 12
}

# moving N: until fab2 has sent N packets more than when this started
# (at most two minutes).
moving() {
	local t0 end=$((SECONDS + 120))
	t0=$(counter ns2 fab2 tx_packets)
	while [ $(($(counter ns2 fab2 tx_packets) - t0)) -lt "$1" ] &&
		[ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
	done
}

# profile NAME TOOL ARGS...: TOOL between fab1 and fab2, perf recording
# SECS seconds of it once its packets flow.  perf starts first with its
# events off and is switched on and off through its control FIFO: under
# TCG its own start (reading every process's maps) takes many seconds,
# and perftest's setup (handshake, clock calibration) is not the point.
profile() {
	local name=$1 tpid ppid reply
	# FIFOs on tmpfs: the results directory is a 9p share.
	local ctl=/tmp/perf.ctl ack=/tmp/perf.ack
	shift
	rm -f "$ctl" "$ack"
	mkfifo "$ctl" "$ack" || return 1
	command perf record -a -g -F 999 -B -N -D -1 --control "fifo:$ctl,$ack" \
		-o "$SROCE_RESULTS/perf.data.$name" -- sleep 600 \
		>"$SROCE_RESULTS/perf.$name.log" 2>&1 &
	ppid=$!
	exec 8>"$ctl" 9<"$ack"
	# Its answer to a first command says it is through its start.
	echo disable >&8
	read -r -t 300 -u 9 reply
	_sroce_perf "$@" >"$SROCE_RESULTS/$name.out" 2>&1 &
	tpid=$!
	moving 2000
	echo enable >&8
	read -r -t 60 -u 9 reply
	sleep "$SECS"
	echo disable >&8
	read -r -t 60 -u 9 reply
	kill -INT "$ppid"
	wait "$ppid"
	exec 8>&- 9<&-
	wait "$tpid" || { echo "$name: $* failed"; cat "$SROCE_RESULTS/$name.out"; }
	[ "$reply" = ack ] || echo "$name: perf did not answer its control FIFO"
	grep -E '^ *[0-9]+ +[0-9]+' "$SROCE_RESULTS/$name.out" | tail -n 1
	report "$name"
}

want() { listed "$1" "$ONLY"; }

main() {
	bench_setup || { echo "setup failed"; exit 1; }
	ip -n ns1 link set v1 mtu 9000 && ip -n ns2 link set v2 mtu 9000 &&
		wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'" ||
		{ echo "MTU 9000 failed"; exit 1; }
	echo "$ELIDE" >/sys/class/infiniband/fab1/icrc_elide &&
		echo "$ELIDE" >/sys/class/infiniband/fab2/icrc_elide ||
		{ echo "icrc_elide failed"; exit 1; }
	echo "# sroce fab1<->fab2 over veth, MTU 9000, icrc_elide=$ELIDE; perf -a -g -F 999, $SECS s"
	want write_bw && profile write_bw ib_write_bw -s 65536 -n 40000
	want read_bw && profile read_bw ib_read_bw -s 65536 -n 40000
	want send_lat && profile send_lat ib_send_lat -s 64 -n 200000
	counters ns2 fab2
}

main
