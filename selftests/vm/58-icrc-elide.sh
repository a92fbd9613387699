#!/bin/bash
# ICRC elision between sroce peers (issue 6): off by default; with
# /sys/class/infiniband/DEV/icrc_elide on at both ends, packets carry the
# UDP checksum instead of the ICRC.  Checked between fab1 (ns1) and fab2
# (ns2):
#  - off (the default), or on at one end only, nothing is elided;
#  - on at both ends, both directions are (tx_icrc_elided and
#    rx_icrc_elided on both devices), every byte arrives (ibv_rc_pingpong
#    --chk over IPv4 and IPv6, rc_verify with every operation), and no
#    packet fails a check (rx_icrc_err);
#  - packets netem corrupts are dropped by the receiving stack's UDP
#    checksum check, resent, and every byte still arrives right;
#  - the capture, through the independent checker: an elided packet goes
#    only to an address that said it accepts them, with a valid non-zero
#    UDP checksum and a zero ICRC field; everything else has a good ICRC.
# That a packet claiming elision toward a QP that never agreed is dropped
# is a case of the injector (36-hostile, icrc_elided_unasked); that none
# is ever sent to rdma_rxe, of 45-rxe-interop.
# sroce-timeout: 900
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

RCV=$SROCE_TREE/selftests/verbs/rc_verify
PORT=19520
B=$SROCE_RESULTS/elide

# knobs V1 V2: icrc_elide of fab1 and fab2.
knobs() {
	echo "$1" >/sys/class/infiniband/fab1/icrc_elide &&
		echo "$2" >/sys/class/infiniband/fab2/icrc_elide &&
		[ "$(cat /sys/class/infiniband/fab1/icrc_elide)" = "$1" ] &&
		[ "$(cat /sys/class/infiniband/fab2/icrc_elide)" = "$2" ]
}

snap() {
	counter_snap ns1 fab1 "$B.$1.1"
	counter_snap ns2 fab2 "$B.$1.2"
}

# d NAME DEV COUNTER: COUNTER of fab1 or fab2 (1, 2) over step NAME.
d() { counter_delta "$B.$1-0.$2" "$B.$1-1.$2" "$3"; }

# pingpong GID_A GID_B [N [SIZE]]: ibv_rc_pingpong --chk, fab2 -> fab1.
pingpong() {
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		ibv_rc_pingpong -d fab1 -g "$1" -s "${4:-65536}" -n "${3:-20}" -p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab2 -g "$2" -s "${4:-65536}" -n "${3:-20}" -p "$PORT" --chk 192.168.77.1 \
		>"$B.pp.log" 2>&1 || { cat "$B.pp.log"; return 1; }
}

# step NAME CMD...: CMD between two counter snapshots, then a summary.
step() {
	local name=$1 rc=0
	shift
	snap "$name-0"
	"$@" || rc=1
	snap "$name-1"
	echo "$name: fab1 sent $(d "$name" 1 tx_icrc_elided) and took" \
		"$(d "$name" 1 rx_icrc_elided) elided, fab2 $(d "$name" 2 tx_icrc_elided)" \
		"and $(d "$name" 2 rx_icrc_elided); ICRC errors $(d "$name" 1 rx_icrc_err)" \
		"and $(d "$name" 2 rx_icrc_err); packets $(d "$name" 1 tx_packets)" \
		"and $(d "$name" 2 tx_packets)" | tee "$B.$name.summary"
	return "$rc"
}

# none NAME: step NAME elided nothing, either way.
none() {
	local c
	for c in tx_icrc_elided rx_icrc_elided rx_icrc_err; do
		[ "$(d "$1" 1 "$c")" = 0 ] && [ "$(d "$1" 2 "$c")" = 0 ] || return 1
	done
}

# both NAME: step NAME elided both ways, took all of it, and no check
# failed; one end takes no more elided packets than the other sent (a
# late ACK to a QP already destroyed is not taken).
both() {
	local c
	for c in tx_icrc_elided rx_icrc_elided; do
		[ "$(d "$1" 1 "$c")" -gt 0 ] && [ "$(d "$1" 2 "$c")" -gt 0 ] || return 1
	done
	[ "$(d "$1" 1 rx_icrc_err)" = 0 ] && [ "$(d "$1" 2 rx_icrc_err)" = 0 ] &&
		[ "$(d "$1" 2 rx_icrc_elided)" -le "$(d "$1" 1 tx_icrc_elided)" ] &&
		[ "$(d "$1" 1 rx_icrc_elided)" -le "$(d "$1" 2 tx_icrc_elided)" ]
}

off_pp() { step "$1" pingpong "$G4A" "$G4B" 10 && none "$1"; }

# offload on|off: the veths' transmit checksum offload.  Off, the stack
# computes each UDP checksum as the packet leaves, so the capture holds
# real ones for the checker and the receiver verifies them in software;
# on (veth's default), both ends trust the data that never left memory.
offload() {
	ip netns exec ns1 ethtool -K v1 tx "$1" >/dev/null &&
		ip netns exec ns2 ethtool -K v2 tx "$1" >/dev/null
}

captured_pp() {
	local rc=0
	offload off || return 1
	capture_start ns1 v1 /tmp/elide.pcap || rc=1
	[ "$rc" = 0 ] && { step v4 pingpong "$G4A" "$G4B" 20 || rc=1; }
	capture_stop /tmp/elide.pcap >/dev/null || rc=1
	offload on || rc=1
	[ "$rc" = 0 ] && both v4
}

# ns1's UDP InCsumErrors.
# shellcheck disable=SC2016 # awk's own fields
csum_errors() {
	ip netns exec ns1 awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++)
		f[$i] = i; h = 1 } else print $f["InCsumErrors"] }' /proc/net/snmp
}

# netem corrupts 5 % of fab2's packets (after computing their checksum):
# the receiving stack drops those the UDP checksum covers, fab2 resends,
# and every byte still arrives right.
corrupted() {
	local e0 e1 rc=0
	e0=$(csum_errors)
	ip netns exec ns2 tc qdisc replace dev v2 root netem corrupt 5% || return 1
	SROCE_LINGER=4 step bad pingpong "$G4A" "$G4B" 40 || rc=1
	ip netns exec ns2 tc qdisc del dev v2 root || rc=1
	e1=$(csum_errors)
	echo "ns1: $((e1 - e0)) UDP checksum errors"
	[ "$rc" = 0 ] && [ $((e1 - e0)) -gt 0 ] && [ "$(d bad 1 rx_icrc_elided)" -gt 0 ]
}

wire_ok() {
	local rc=0
	python3 "$SROCE_TREE/selftests/tools/roce_check.py" --ours 192.168.77.1 \
		--ours 192.168.77.2 --pmtu 1024 /tmp/elide.pcap >"$B.check" 2>&1 ||
		rc=1
	cat "$B.check"
	[ "$rc" = 0 ] || return 1
	grep -q "ICRC elided on [1-9][0-9]* packets; elision accepted by \['192.168.77.1', '192.168.77.2'\]" \
		"$B.check"
}

v6_pp() { step v6 pingpong "$G6A" "$G6B" 20 && both v6; }

all_ops() {
	step ops "$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 4 -s 200000 \
		>"$B.rcv.log" 2>&1 || { tail -n 20 "$B.rcv.log"; return 1; }
	cat "$B.ops.summary"
	both ops
}

tap_plan 18
topo_sroce_pair

tap_check "icrc_elide is off by default on both devices" knobs 0 0
tap_check "the knob refuses nonsense" \
	sh -c '! echo maybe >/sys/class/infiniband/fab1/icrc_elide'
tap_check "off: ibv_rc_pingpong --chk, nothing elided" off_pp off
tap_diag "$(cat "$B.off.summary" 2>/dev/null)"

tap_check "fab1 and fab2 on" knobs 1 1
tap_check "on: ibv_rc_pingpong --chk (IPv4), elided both ways, no ICRC error" captured_pp
tap_diag "$(cat "$B.v4.summary" 2>/dev/null)"
tap_check "on: capture checked: elided only toward who accepted, UDP checksum good, ICRC field zero" \
	wire_ok
tap_check "on: ibv_rc_pingpong --chk (IPv6), elided both ways" v6_pp
tap_diag "$(cat "$B.v6.summary" 2>/dev/null)"
tap_check "on: rc_verify, every operation and byte, elided both ways" all_ops
tap_check "on: 5 % corrupted by netem, dropped by the UDP checksum, every byte right" \
	corrupted
tap_diag "$(cat "$B.bad.summary" 2>/dev/null)"

tap_check "fab2 off" knobs 1 0
tap_check "fab1 offers, fab2 does not: nothing elided" off_pp half1
tap_check "fab1 off, fab2 on" knobs 0 1
tap_check "fab2 offers, fab1 does not: nothing elided" off_pp half2
tap_done
