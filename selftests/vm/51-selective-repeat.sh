#!/bin/bash
# Selective repeat (issue 7), negotiated in band between sroce peers:
# under loss the responder holds what arrives beyond a gap, its ACKs say
# what it holds, and the requester resends only what was lost.  Checked
# here, with netem loss on both veth ends between ns1 and ns2:
#  - the tracepoint shows the answer to the offer: on between two
#    devices that allow it, off when either does not (the knob is
#    /sys/class/infiniband/DEV/selective_repeat);
#  - every byte arrives intact (ibv_rc_pingpong --chk, rc_verify with
#    every operation) with selective repeat on, and with it off on one
#    side, the standard go-back-N that rxe and hardware peers get;
#  - the counters show it working: SACKs sent and received, requests
#    held, no sequence NAK; and a bulk WRITE resends at most a few times
#    what netem dropped, where go-back-N resends many times more.
# sroce-timeout: 1200
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"
# A lossy path: QPs outlive their programs (run_pair, verbs/linger.c).
export SROCE_LINGER=4

RCV=$SROCE_TREE/selftests/verbs/rc_verify
PORT=19450
LOSS=${SR_LOSS:-2}
B=$SROCE_RESULTS/sr

knob() {
	echo "$2" >"/sys/class/infiniband/$1/selective_repeat"
	[ "$(cat "/sys/class/infiniband/$1/selective_repeat")" = "$2" ]
}

lossy() {
	ip netns exec ns1 tc qdisc replace dev v1 root netem loss "$LOSS%" &&
		ip netns exec ns2 tc qdisc replace dev v2 root netem loss "$LOSS%"
}

clean() {
	ip netns exec ns1 tc qdisc del dev v1 root 2>/dev/null || true
	ip netns exec ns2 tc qdisc del dev v2 root 2>/dev/null || true
}

# Packets netem dropped on both ends so far.
drops() {
	{
		ip netns exec ns1 tc -s qdisc show dev v1
		ip netns exec ns2 tc -s qdisc show dev v2
	} | awk '/dropped/ { for (i = 1; i < NF; i++)
		if ($i ~ /dropped$/) { gsub(",", "", $(i + 1)); s += $(i + 1) } }
		END { print s + 0 }'
}

snap() {
	counter_snap ns1 fab1 "$B.$1.1"
	counter_snap ns2 fab2 "$B.$1.2"
}

# d WHEN1 WHEN2 DEV NAME: counter NAME of fab1 or fab2 (1, 2) between.
d() { counter_delta "$B.$1.$3" "$B.$2.$3" "$4"; }

pingpong() {
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		ibv_rc_pingpong -d fab1 -g "$G4A" -s "${2:-65536}" -n "${1:-20}" -p "$PORT" --chk -- \
		ibv_rc_pingpong -d fab2 -g "$G4B" -s "${2:-65536}" -n "${1:-20}" -p "$PORT" --chk 192.168.77.1 \
		>"$B.pp.log" 2>&1 || { cat "$B.pp.log"; return 1; }
}

# negotiated WANT N: a short ping-pong's requesters that offered (N of
# them) trace the answer WANT, and no other answer.
negotiated() {
	local n
	trace_on sroce_sr
	pingpong 4 4096 || { trace_off "$B.trace-$1"; return 1; }
	trace_off "$B.trace-$1"
	grep sroce_sr: "$B.trace-$1"
	n=$(grep -c "sroce_sr: qpn=[0-9]* selective_repeat=$1\$" "$B.trace-$1" || true)
	[ "$n" = "$2" ]
	if grep -v "selective_repeat=$1\$" "$B.trace-$1" | grep -q sroce_sr:; then
		return 1
	fi
}

# bulk NAME: ib_write_bw fab2 -> fab1 under loss, captured; its counters
# and the drops around it in $B.NAME.*.
bulk() {
	local d0 rc=0
	d0=$(drops)
	snap "$1-0"
	# What crosses v1, for roce_check.py.
	capture_start ns1 v1 "/tmp/$1.pcap" || return 1
	trace_on sroce_sr sroce_rewind
	perf_run ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 ib_write_bw \
		-s 65536 -n 150 >"$B.$1.log" 2>&1 || rc=1
	trace_off "$B.trace-$1"
	capture_stop "/tmp/$1.pcap" >/dev/null || rc=1
	[ "$rc" = 0 ] || { cat "$B.$1.log"; return 1; }
	snap "$1-1"
	echo $(($(drops) - d0)) >"$B.$1.drops"
	echo "$1: netem dropped $(cat "$B.$1.drops"), fab2 resent $(d "$1-0" "$1-1" 2 retransmits)" \
		"(after a SACK $(d "$1-0" "$1-1" 2 sack_retransmits)," \
		"timeouts $(d "$1-0" "$1-1" 2 timeouts)), fab1 held $(d "$1-0" "$1-1" 1 rx_ofo_queued)," \
		"sent $(d "$1-0" "$1-1" 1 sacks_sent) SACKs, $(d "$1-0" "$1-1" 1 seq_naks_sent) sequence NAKs;" \
		"$(awk '/^ *65536/ { print $4; exit }' "$B.$1.log") MB/s;" \
		"rewinds: $(grep -o 'reason=[a-z_]*' "$B.trace-$1" | sort | uniq -c |
			awk '{ printf "%s %s ", $2, $1 }')" | tee "$B.$1.summary"
}

sr_working() {
	bulk sr || return 1
	echo "fab2: sacks_received $(d sr-0 sr-1 2 sacks_received)," \
		"rx_bad_responses $(d sr-0 sr-1 2 rx_bad_responses)"
	[ "$(d sr-0 sr-1 1 sacks_sent)" -gt 0 ]
	[ "$(d sr-0 sr-1 2 sacks_received)" -gt 0 ]
	[ "$(d sr-0 sr-1 1 rx_ofo_queued)" -gt 0 ]
	[ "$(d sr-0 sr-1 2 sack_retransmits)" -gt 0 ]
	[ "$(d sr-0 sr-1 1 seq_naks_sent)" = 0 ]
	[ "$(d sr-0 sr-1 2 rx_bad_responses)" = 0 ]
}

# Each drop costs a resend or two (a lost resend, a tail loss caught by
# the timer, which goes back); go-back-N resends the window behind it.
sr_efficient() {
	local rt dr
	rt=$(sr_resent)
	dr=$(cat "$B.sr.drops")
	echo "resent $rt, for $dr drops"
	[ "$dr" -gt 0 ] && [ "$rt" -le $((4 * dr + 64)) ]
}

# What the SR bulk resent.  A timeout before the offer is answered
# resends only the oldest packet (sr.c, sroce_sr_req_offer_rto()): a
# slow first ACK, on a slow host, does not send the initial window twice.
sr_resent() {
	d sr-0 sr-1 2 retransmits
}

# The capture through the independent checker: every ICRC, and the
# extension only where it was offered, SACK blocks well formed.
wire_ok() {
	local rc=0
	python3 "$SROCE_TREE/selftests/tools/roce_check.py" --ours 192.168.77.1 \
		--ours 192.168.77.2 --pmtu 1024 "/tmp/$1.pcap" >"$B.$1.check" 2>&1 ||
		rc=1
	cat "$B.$1.check"
	[ "$rc" = 0 ] || return 1
	grep -q "sroce answered on [1-9][0-9]* responses, [1-9][0-9]* with SACK" "$B.$1.check"
}

# tail_probed: ping-pongs of 4-packet messages with 10 % of fab2's
# requests lost, its ACKs not: each message's last packet is lost one
# time in ten, with nothing after it to make fab1 SACK.  The tail loss
# probe finds it in two round trips; the retransmit timer only when the
# probe is lost too.
tail_probed() {
	local p t
	clean
	ip netns exec ns2 tc qdisc replace dev v2 root netem loss 10% || return 1
	snap tl-0
	pingpong 200 4096 || return 1
	snap tl-1
	p=$(d tl-0 tl-1 2 tlp_probes)
	t=$(d tl-0 tl-1 2 timeouts)
	echo "200 ping-pongs: fab2 sent $p tail loss probes, timed out $t times," \
		"resent $(d tl-0 tl-1 2 retransmits)"
	[ "$p" -gt 0 ] && [ "$t" -lt "$p" ]
}

gbn_costs_more() {
	bulk gbn || return 1
	[ "$(d gbn-0 gbn-1 1 sacks_sent)" = 0 ]
	[ "$(d gbn-0 gbn-1 1 seq_naks_sent)" -gt 0 ]
	echo "resent per drop: selective $(($(sr_resent) * 100 / $(cat "$B.sr.drops")))%," \
		"go-back-N $(($(d gbn-0 gbn-1 2 retransmits) * 100 / $(cat "$B.gbn.drops")))%"
	[ $(($(sr_resent) * 3 * $(cat "$B.gbn.drops"))) -lt \
	  $(($(d gbn-0 gbn-1 2 retransmits) * $(cat "$B.sr.drops"))) ]
}

tap_plan 23
topo_sroce_pair

tap_check "both devices allow selective repeat by default" \
	sh -c 'grep -qx 1 /sys/class/infiniband/fab1/selective_repeat &&
	       grep -qx 1 /sys/class/infiniband/fab2/selective_repeat'
tap_check "two sroce peers agree: selective_repeat=on" negotiated on 2
tap_check "the knob refuses nonsense" \
	sh -c '! echo maybe >/sys/class/infiniband/fab1/selective_repeat'

tap_require "netem loss $LOSS% on both ends" lossy
tap_check "loss: ibv_rc_pingpong --chk, every byte" pingpong 40
tap_check "loss: rc_verify, every operation and byte" \
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 6 -s 200000
tap_check "loss: SACKs flow, requests held, no sequence NAK" sr_working
tap_check "loss: resends stay within a few per drop" sr_efficient
tap_diag "$(cat "$B.sr.summary" 2>/dev/null)"
tap_check "loss: capture checked, SACK blocks well formed, ICRC good" wire_ok sr
tap_check "tail loss: probed, fewer timeouts than probes" tail_probed

clean
tap_check "fab2 refuses: fab2 off" knob fab2 0
tap_check "fab2 off: fab1 offers, hears no, falls back" negotiated off 1
tap_require "netem loss $LOSS% on both ends" lossy
tap_check "fallback under loss: ibv_rc_pingpong --chk" pingpong 40
tap_check "fallback under loss: rc_verify" \
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 6 -s 200000
tap_check "fallback: no SACK, sequence NAKs; go-back-N resends far more" gbn_costs_more
tap_diag "$(cat "$B.gbn.summary" 2>/dev/null)"
clean
tap_check "fab2 on again" knob fab2 1
tap_check "agreed again" negotiated on 2
tap_done
