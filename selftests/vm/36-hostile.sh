#!/bin/bash
# Hostile input (issue 3): "a packet is never trusted".
#
# selftests/verbs/sroce_inject, against RC QPs of fab2 (in ns2), plays
# their peer (192.168.77.1 / fd77::1, QPN 0x123) from ns1: it builds
# RoCEv2 packets by hand (raw IP socket, our own IP header, valid or
# broken ICRC) and sends them across the veth like a real peer would,
# while a UDP socket on the peer's port 4791 receives the device's
# answers.  Each case is judged on the counters, the ACK/NAK on the wire,
# every byte of memory in and around the MRs, and the QP state; then
# random garbage is thrown at a live QP.  No sroce device may exist in ns1
# meanwhile (it would own port 4791), so fab1 comes afterwards, for an
# ibv_rc_pingpong --chk that shows the device still works; last, the
# module must unload (no reference leaked by a bad packet).  IPv4 and
# IPv6.  A kernel WARN/BUG anywhere fails the run (tools/qemu/run-test).
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

INJ=$SROCE_TREE/selftests/verbs/sroce_inject
GARBAGE4=${SROCE_HOSTILE_GARBAGE:-50000}
GARBAGE6=${SROCE_HOSTILE_GARBAGE6:-50000}

# Module bugs found by a case, until fixed: "NAME" or "v6 NAME" -> why.
declare -A TODO=(
)

# Where the injector runs: it reads fab2's hw_counters from sysfs, and in
# rdma's shared netns mode (the default) only the init namespace's sysfs
# has the full device; ns2 sees a compat device without counters.  The
# peer's sockets it opens in ns1 itself (-P).
INJ_NS=
inject_ns() {
	[ -d /sys/class/infiniband/fab2/ports/1/hw_counters ] || INJ_NS=ns2
}

# inject OUT ARGS...: the injector against fab2, its peer in ns1; TAP to
# OUT.  Exit 0 (all passed) or 1 (a case failed): it ran to the end.
inject() {
	local out=$1 rc=0
	local -a ns=()
	shift
	[ -z "$INJ_NS" ] || ns=(ip netns exec "$INJ_NS")
	timeout 800 "${ns[@]}" "$INJ" -d fab2 -P /run/netns/ns1 "$@" \
		>"$out" 2>&1 || rc=$?
	tail -n 3 "$out"
	grep -q '^1\.\.[0-9]' "$out" && [ "$rc" -le 1 ]
}

_verdict() {
	[ -z "$2" ] || printf '%s' "$2"
	[ "$1" = ok ]
}

# report FAM OUT LIST: one test point per case of LIST ("NAME<TAB>DESC"
# lines), from the injector's TAP in OUT, with its "# NAME: ..." lines
# as diagnostics on failure.  Known module bugs are TODO.  No exec per
# case: under TCG each costs a good fraction of a second.
report() {
	local fam=$1 out=$2 list=$3 line name desc why
	local -A res=() diags=()
	while IFS= read -r line; do
		case $line in
		"ok "*" - "*) res[${line#* - }]=ok ;;
		"not ok "*" - "*) res[${line#* - }]=fail ;;
		"# "*": "*)
			name=${line#\# }
			name=${name%%: *}
			diags[$name]+="$line"$'\n'
			;;
		esac
	done <"$out"
	while IFS=$'\t' read -r name desc; do
		why=${TODO["$fam $name"]:-${TODO[$name]:-}}
		if [ -n "$why" ]; then
			tap_todo "$why" "$fam $name: $desc" \
				_verdict "${res[$name]:-missing}" "${diags[$name]:-}"
		elif [ "${res[$name]:-}" = ok ]; then
			tap_ok "$fam $name: $desc"
		else
			tap_fail "$fam $name: $desc" "verdict: ${res[$name]:-missing}"
			printf '%s' "${diags[$name]:-}"
		fi
	done <"$list"
}

# gid NS DEV GID: index of GID (as sysfs writes it) on DEV, seen from NS.
gid() {
	local f
	f=$(in_ns "$1" grep -lx "$3" /sys/class/infiniband/"$2"/ports/1/gids/*) || return 1
	echo "${f##*/}"
}

GID_A4=0000:0000:0000:0000:0000:ffff:c0a8:4d01
GID_B4=0000:0000:0000:0000:0000:ffff:c0a8:4d02
GID_A6=fd77:0000:0000:0000:0000:0000:0000:0001
GID_B6=fd77:0000:0000:0000:0000:0000:0000:0002

PORT=18700
pingpong() {
	local ga=$1 gb=$2 size=$3
	PORT=$((PORT + 1))
	run_pair ns2 ns1 "$PORT" -- \
		ibv_rc_pingpong -d fab2 -g "$gb" -s "$size" -n 50 -p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab1 -g "$ga" -s "$size" -n 50 -p "$PORT" --chk 192.168.77.2
}

unload() {
	ip netns exec ns1 rdma link delete fab1
	ip netns exec ns2 rdma link delete fab2
	rmmod sroce
}

kernel_log_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection'
}

tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "injector built" test -x "$INJ"
tap_require "veth topology" topo_veth
tap_require "fab2 on v2" ip netns exec ns2 rdma link add fab2 type sroce netdev v2
tap_require "fab2 has its IPv6 GID" wait_for 10 gid ns2 fab2 "$GID_B6"
inject_ns
"$INJ" -L >"$SROCE_RESULTS/cases4"
"$INJ" -L -6 >"$SROCE_RESULTS/cases6"

kmsg "34-hostile: IPv4 injection"
T0=$SECONDS
tap_check "IPv4: injector ran to the end ($GARBAGE4 garbage packets)" \
	inject "$SROCE_RESULTS/inject4.tap" -n "$GARBAGE4"
tap_diag "IPv4 injection took $((SECONDS - T0)) s"
report v4 "$SROCE_RESULTS/inject4.tap" "$SROCE_RESULTS/cases4"

kmsg "34-hostile: IPv6 injection"
# With ICRC elision allowed (off for IPv4, the default): still only a peer
# that was told yes may leave the ICRC out (icrc_elided_unasked), and fab2
# never elides toward one that did not say it takes that.
tap_require "fab2: icrc_elide on" sh -c 'echo 1 >/sys/class/infiniband/fab2/icrc_elide'
T0=$SECONDS
tap_check "IPv6: injector ran to the end ($GARBAGE6 garbage packets)" \
	inject "$SROCE_RESULTS/inject6.tap" -6 -n "$GARBAGE6"
tap_diag "IPv6 injection took $((SECONDS - T0)) s"
report v6 "$SROCE_RESULTS/inject6.tap" "$SROCE_RESULTS/cases6"

kmsg "34-hostile: pingpong after"
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab1 has its IPv6 GID" wait_for 10 gid ns1 fab1 "$GID_A6"
G4A=$(gid ns1 fab1 "$GID_A4")
G6A=$(gid ns1 fab1 "$GID_A6")
G4B=$(gid ns2 fab2 "$GID_B4")
G6B=$(gid ns2 fab2 "$GID_B6")
tap_check "afterwards: ibv_rc_pingpong --chk fab1<->fab2, IPv4, 4 KiB" \
	pingpong "$G4A" "$G4B" 4096
tap_check "afterwards: ibv_rc_pingpong --chk fab1<->fab2, IPv6, 64 B" \
	pingpong "$G6A" "$G6B" 64
tap_check "kernel log has no warning or oops" kernel_log_clean
tap_check "links deleted and sroce unloaded" timeout 120 bash -c "$(declare -f unload); unload"
tap_done
