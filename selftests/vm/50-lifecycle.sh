#!/bin/bash
# Lifecycle under load (issue 8).  While ib_write_bw -b writes 64 KiB
# both ways between fab1 (ns1) and fab2 (ns2):
#  - kill -9 of either end: the other end gets an error completion, and
#    both devices are back to the objects they had before (rdma resource);
#  - kill -9 of a process holding a 512 MiB MR: its pages are unpinned;
#  - rdma link delete, rmmod sroce, deleting the netdev, deleting the
#    namespace: the removal completes at once (ib_core disassociates the
#    processes' contexts), both applications end with an error rather
#    than hang (SROCE_RING_F_DEAD), the peer sees its retries run out.
# And the limits (selftests/verbs/limits_verify): RLIMIT_MEMLOCK without
# CAP_IPC_LOCK, 4000 QPs at once, a 1 GiB MR used at both ends.  A CQ
# overrun is 48-async's.  The harness fails the test on any kernel
# warning, KASAN or lockdep report in the log.
# sroce-timeout: 1200
# sroce-lane: long
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

LIMITS=$SROCE_TREE/selftests/verbs/limits_verify
PORT=19300

# rdma resource's object counts for DEV ("pd 1 cq 1 qp 1 ..."), from
# init_net, which sees every device (shared mode).
res_of() {
	rdma resource show | awk -v d="$1:" '$2 == d { $1 = ""; $2 = ""; print }' |
		sed 's/^ *//'
}

# res_back DEV BASE: DEV's counts are BASE again.
res_back() {
	local now
	now=$(res_of "$1")
	[ "$now" = "$2" ] && return 0
	echo "$1: $now, before: $2"
	return 1
}

# spawn NAME CMD...: CMD in the background, output in NAME; its PID (CMD
# itself, exec'd) in NAME.pid, its exit status in NAME.rc once it ends.
# Files, not $!: tap_check's subshells cannot wait for our children.
spawn() {
	local out=$SROCE_RESULTS/$1
	shift
	rm -f "$out.pid" "$out.rc"
	(
		# shellcheck disable=SC2094 # $0 names the pid file, not $out
		sh -c 'echo $$ >"$0.pid"; exec "$@"' "$out" "$@" >"$out" 2>&1
		echo $? >"$out.rc"
	) &
	wait_for 10 test -s "$out.pid"
}
pid_of() { cat "$SROCE_RESULTS/$1.pid"; }

_rx_above() { [ "$(counter "$1" "$2" rx_packets)" -gt "$3" ]; }

# flowing NS DEV: DEV has received another 200 packets (data is moving).
flowing() {
	local b
	b=$(counter "$1" "$2" rx_packets)
	wait_for 60 _rx_above "$1" "$2" "$((b + 200))"
}

# next_run NAME: the next bw_start's names and TCP port.  Here, not in
# bw_start: tap_check runs its command in a subshell.
PP=
next_run() {
	PP=$1
	PORT=$((PORT + 1))
}

# bw_start: ib_write_bw -b, 64 KiB, for two minutes, server $PP.server on
# fab1, client $PP.client on fab2, until data moves.  Both ends write, so
# both are requesters: whichever survives its peer sees its retries run
# out (a ping-pong end waiting for a receive would wait for ever, as RC
# wants).
bw_start() {
	spawn "$PP.server" ip netns exec ns1 ib_write_bw -d fab1 -x "$G4A" -F -b \
		-D 120 -s 65536 -p "$PORT" || return 1
	wait_listen ns1 "$PORT" || return 1
	spawn "$PP.client" ip netns exec ns2 ib_write_bw -d fab2 -x "$G4B" -F -b \
		-D 120 -s 65536 -p "$PORT" 192.168.77.1 || return 1
	flowing ns1 fab1
}

# ended NAME WHAT: NAME exits within 60 s, with a failure, and its output
# says WHAT (an extended regex).
ended() {
	local out=$SROCE_RESULTS/$1 rc
	if ! wait_for 60 test -s "$out.rc"; then
		echo "$1 still running after 60 s: $(tail -n 3 "$out")"
		return 1
	fi
	rc=$(cat "$out.rc")
	echo "# $1: exit $rc: $(tail -n 3 "$out" | tr '\n' ' ')"
	[ "$rc" != 0 ] && grep -Eq "$2" "$out"
}

# Both ends of the last run, killed if still there.
pp_reap() {
	local end
	for end in server client; do
		[ -s "$SROCE_RESULTS/$PP.$end.pid" ] || continue
		kill -9 "$(pid_of "$PP.$end")" 2>/dev/null
		wait_for 10 test -s "$SROCE_RESULTS/$PP.$end.rc"
	done
	true
}

both_back() { res_back fab1 "$BASE1" && res_back fab2 "$BASE2"; }
both_ended() {
	local rc=0
	ended "$PP.server" "$1" || rc=1
	ended "$PP.client" "$1" || rc=1
	return "$rc"
}

# The peer of a vanished end: its retries run out (IBV_WC_RETRY_EXC_ERR).
RETRY='Failed status 12:'
# The end whose device went: a failed poll (SROCE_RING_F_DEAD), post or
# completion.
GONE='poll CQ failed|Failed to poll CQ|Couldn.t post|Failed status|Completion with error'

mem_avail_mib() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }

# hold_pinned: a process pins 512 MiB in an MR, MemAvailable drops; after
# kill -9 it comes back and the MR is gone.
hold_start() {
	spawn hold ip netns exec ns1 "$LIMITS" -d fab1 -g "$G4A" hold 512 ||
		return 1
	wait_for 120 grep -q "^held" "$SROCE_RESULTS/hold" || {
		cat "$SROCE_RESULTS/hold"
		return 1
	}
	echo "# MemAvailable: $MEM0 MiB before, $(mem_avail_mib) MiB held"
	[ $((MEM0 - $(mem_avail_mib))) -ge 400 ]
}
_mem_back() { [ $((MEM0 - $(mem_avail_mib))) -lt 64 ]; }
hold_killed() {
	kill -9 "$(pid_of hold)"
	wait_for 30 _mem_back || {
		echo "MemAvailable $(mem_avail_mib) MiB, $MEM0 before"
		return 1
	}
}

relink() {
	ip netns exec ns1 rdma link add fab1 type sroce netdev v1 2>/dev/null || true
	ip netns exec ns2 rdma link add fab2 type sroce netdev v2 2>/dev/null || true
	wait_for 10 gid_index ns1 fab1 192.168.77.1 &&
		wait_for 10 gid_index ns2 fab2 192.168.77.2 || return 1
	G4A=$(gid_index ns1 fab1 192.168.77.1)
	G4B=$(gid_index ns2 fab2 192.168.77.2)
}

devs_gone() { ! ibv_devices | grep -Eqw 'fab1|fab2'; }
no_sroce() { ! grep -q '^sroce ' /proc/modules; }

limits() {
	local name=$1 n=$2
	shift 2
	ip netns exec ns1 "$@" >"$SROCE_RESULTS/$name.tap" 2>&1
	tap_replay "$SROCE_RESULTS/$name.tap" "$n" "$name: "
}

tap_plan 50
topo_sroce_pair
modprobe sch_netem
BASE1=$(res_of fab1)
BASE2=$(res_of fab2)
tap_diag "fab1: $BASE1; fab2: $BASE2"

# --- kill -9 mid-transfer, each end ----------------------------------
next_run kill-server
tap_check "kill -9: ib_write_bw -b 64 KiB flowing" bw_start
tap_check "kill -9 of the server" sh -c "kill -9 $(pid_of kill-server.server)"
tap_check "... the client gets an error completion" \
	ended kill-server.client "$RETRY"
tap_check "... fab1 and fab2 hold what they held before" wait_for 30 both_back
pp_reap

next_run kill-client
tap_check "kill -9: ib_write_bw flowing again" bw_start
tap_check "kill -9 of the client" sh -c "kill -9 $(pid_of kill-client.client)"
tap_check "... the server gets an error completion" \
	ended kill-client.server "$RETRY"
tap_check "... fab1 and fab2 as before" wait_for 30 both_back
pp_reap

MEM0=$(mem_avail_mib)
tap_check "a process pins 512 MiB in an MR" hold_start
tap_check "kill -9: the memory comes back" hold_killed
tap_check "... and its MR is gone" wait_for 30 both_back

# --- limits ---------------------------------------------------------
limits memlock 4 setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
	prlimit --memlock=1048576 "$LIMITS" -d fab1 -g "$G4A" memlock
limits qps 2 "$LIMITS" -d fab1 -g "$G4A" qps 4000
limits mr 3 "$LIMITS" -d fab1 -g "$G4A" mr 1024
tap_check "after the limits: fab1 and fab2 as before" wait_for 30 both_back

# --- removal under load ---------------------------------------------
next_run link-delete
tap_check "rdma link delete: ib_write_bw flowing" bw_start
tap_check "rdma link delete fab1 under load returns" \
	timeout 60 rdma link delete fab1
tap_check "... fab1's application ends with an error" \
	ended link-delete.server "$GONE"
tap_check "... its peer's retries run out" ended link-delete.client "$RETRY"
tap_check "... fab2 as before" wait_for 30 res_back fab2 "$BASE2"
pp_reap
tap_check "fab1 again" relink

next_run rmmod
tap_check "rmmod: ib_write_bw flowing" bw_start
tap_check "rmmod sroce under load succeeds" timeout 60 rmmod sroce
tap_check "... both applications end with an error" both_ended "$GONE"
pp_reap
tap_check "... the module is gone" no_sroce
tap_check "fab1 and fab2 again (autoload)" relink

next_run link-del
tap_check "ip link del: ib_write_bw flowing" bw_start
tap_check "deleting v1 (and its peer v2) under load" ip -n ns1 link del v1
tap_check "... both devices go" wait_for 30 devs_gone
tap_check "... both applications end with an error" both_ended "$GONE"
pp_reap

tap_check "namespaces and devices again" topo_veth
tap_check "fab1 and fab2 again" relink
next_run netns-del
tap_check "netns delete: ib_write_bw flowing" bw_start
tap_check "ip netns del ns1 under load" ip netns del ns1
tap_check "... ns1 lives on while its process does" \
	sh -c "kill -0 $(pid_of netns-del.server)"
tap_check "kill -9 of that process" sh -c "kill -9 $(pid_of netns-del.server)"
tap_check "... ns1 goes, and both devices with it" wait_for 60 devs_gone
tap_check "... fab2's application ends with an error" \
	ended netns-del.client "$GONE"
pp_reap
tap_check "rmmod sroce at the end" sh -c 'rmmod sroce && ! grep -q "^sroce " /proc/modules'
tap_done
