#!/bin/bash
# tools/bench/lfn_write, the WRITE streamer of make bench-lfn, between two
# sroce devices under 1 % loss each way: every message arrives and its
# receiver checks every byte; small messages with few in flight too; and
# its check fails when a message is not what the receiver expects (the
# client writes 32 KiB where 64 KiB are checked).
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
. "$SROCE_TREE/selftests/lib.sh"

W=$SROCE_TREE/out/bench/lfn_write

# pair PORT SERVER_ARGS -- CLIENT_ARGS: run both ends; sets RC and SRC,
# and keeps the server's words in /tmp/lfnw.PORT.
pair() {
	local port=$1 sp
	local -a srv=() cli=()
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	RC=0
	SRC=0
	ip netns exec ns2 "$W" -d fab2 -x "$G4B" -p "$port" "${srv[@]}" \
		>"/tmp/lfnw.$port" 2>&1 &
	sp=$!
	ip netns exec ns1 "$W" -d fab1 -x "$G4A" -p "$port" "${cli[@]}" \
		192.168.77.2 || RC=$?
	wait "$sp" || SRC=$?
	cat "/tmp/lfnw.$port"
	echo "client exit $RC, server exit $SRC"
}

good() {
	pair "$@"
	[ "$RC" = 0 ] && [ "$SRC" = 0 ]
}

mismatch() {
	pair 18602 -n 50 -- -n 50 -s 32768
	[ "$RC" != 0 ] && [ "$SRC" = 1 ] &&
		grep -q "message 0: " /tmp/lfnw.18602
}

tap_plan 10
tap_require "lfn_write built (make tests)" test -x "$W"
topo_sroce_pair
tap_require "netem: 5 ms and 1 % loss each way" \
	ip netns exec ns1 tc qdisc replace dev v1 root netem loss 1% delay 5ms
ip netns exec ns2 tc qdisc replace dev v2 root netem loss 1% delay 5ms
tap_check "1000 x 64 KiB under 1 % loss, 128 in flight: every byte" \
	good 18600 -n 1000 -w 128 -- -n 1000 -w 128
tap_check "1000 x 1000 bytes, 4 in flight: every byte" \
	good 18601 -n 1000 -s 1000 -w 4 -- -n 1000 -s 1000 -w 4
tap_check "the client writes 32 KiB where 64 KiB are checked: both fail" \
	mismatch
tap_done
