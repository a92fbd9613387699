#!/bin/bash
# run_pair (selftests/lib.sh) runs the client/server tools of most VM
# tests.  A server whose client failed must not keep a test waiting until
# its timeout: it is killed, and the failure is reported with the QPs.
# Plain local programs stand in for perftest here (namespace "").
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
. "$SROCE_TREE/selftests/lib.sh"

SROCE_RESULTS=$(mktemp -d)
trap 'rm -rf "$SROCE_RESULTS"' EXIT
PORT=$((20000 + $$ % 20000))

# server SECS STATUS: listen on PORT, take one connection, sleep SECS,
# exit STATUS.
server() {
	python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); c, _ = s.accept()
time.sleep(float(sys.argv[2])); sys.exit(int(sys.argv[3]))' "$PORT" "$@"
}

# client STATUS: connect to PORT, exit STATUS.
client() {
	python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1]))); sys.exit(int(sys.argv[2]))' \
		"$PORT" "$1"
}
export -f server client
export PORT

pair() {
	PORT=$((PORT + 1))
	run_pair "" "" "$PORT" -- bash -c "server $1 $2" -- bash -c "client $3" \
		>"$SROCE_RESULTS/out" 2>&1
}

both_ok() { pair 0 0 0; }
server_fails() { ! pair 0 3 0 && grep -q "server (exit 3)" "$SROCE_RESULTS/out"; }

# The client fails, the server would sleep 600 s: run_pair is back in
# seconds, says so, and leaves no server behind.
client_fails_server_hangs() {
	local t0=$SECONDS
	! pair 600 0 1 || return 1
	cat "$SROCE_RESULTS/out"
	[ $((SECONDS - t0)) -lt 60 ] &&
		grep -q "killed" "$SROCE_RESULTS/out" &&
		grep -q "client exit 1" "$SROCE_RESULTS/out" &&
		! pgrep -f "sleep(float" >/dev/null
}

tap_plan 3
tap_check "run_pair: both succeed" both_ok
tap_check "run_pair: a failing server fails it" server_fails
tap_check "run_pair: a failed client's hung server is killed in seconds" \
	client_fails_server_hangs
tap_done
