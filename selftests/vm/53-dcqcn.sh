#!/bin/bash
# DCQCN (issue 7), the congestion control of RoCE NICs and ECN-marking
# switches: under cc dcqcn a QP's requests go ECT(0); the peer, seeing
# them CE-marked, answers with CNPs (at most one per 50 us); each CNP
# cuts the requester's pace.  netem on fab2's way out "loses" 2 % of the
# packets with the ecn flag: it marks an ECT packet CE and drops any
# other.  So, on the same path:
#  - under aimd, fab2's requests are not ECT: netem drops them, fab2
#    resends, and fab1 sees no CE mark;
#  - under dcqcn they are marked instead of dropped: fab1 counts the
#    marks and sends CNPs, fab2 counts the CNPs and cuts its pace (QP
#    detail, the sroce_dcqcn_cut tracepoint), and netem drops hardly a
#    packet; every byte arrives intact.
# sroce-timeout: 1200
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

RCV=$SROCE_TREE/selftests/verbs/rc_verify
PORT=19550
B=$SROCE_RESULTS/dcqcn
SECS=8
! debug_kernel || SECS=24

cc_set() {
	echo "$2" >"/sys/class/infiniband/$1/cc"
	[ "$(cat "/sys/class/infiniband/$1/cc")" = "$2" ]
}

# d RUN SIDE NAME: how much counter NAME grew in RUN's bulk WRITE, on
# fab2 (SIDE "") or fab1 (SIDE 1).
d() { counter_delta "$B.$1.before$2" "$B.$1.after$2" "$3"; }

# What netem on v2 dropped so far; it counts the packets it marked CE
# instead as dropped too.
netem_drops() {
	ip netns exec ns2 tc -s qdisc show dev v2 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n1
}

# bulk RUN, with what netem dropped meanwhile in $B.RUN.drops.
bulk_counted() {
	local n0
	n0=$(netem_drops)
	bulk "$1" || return 1
	echo $(($(netem_drops) - n0)) >"$B.$1.drops"
}

bulk() {
	PORT=$((PORT + 1))
	bulk_write "$B.$1" "$SECS" "$PORT" || return 1
	echo "$1: fab2 sent $(d "$1" "" tx_packets) packets, resent" \
		"$(d "$1" "" retransmits) ($(d "$1" "" timeouts) timeouts," \
		"$(d "$1" 1 rx_dup_requests) duplicates at fab1)," \
		"got $(d "$1" "" cnps_received) CNPs;" \
		"fab1 saw $(d "$1" 1 rx_ecn_ce) CE marks, sent" \
		"$(d "$1" 1 cnps_sent) CNPs; mid-run:" \
		"$(detail_pick "$B.$1.qp" drv_cc drv_cwnd drv_srtt_us drv_pace_pps \
			drv_dcqcn_cuts drv_dcqcn_alpha)" | tee "$B.$1.summary"
}

want() { detail_want "$B.$1.qp" "$2" "$3" "$4"; }

# Under aimd nothing is ECT: the "loss" is loss.
aimd_run() {
	bulk_counted aimd || return 1
	want aimd drv_cc = aimd
	[ "$(d aimd 1 rx_ecn_ce)" = 0 ]
	[ "$(d aimd 1 cnps_sent)" = 0 ]
	[ "$(d aimd "" retransmits)" -gt 0 ]
	[ "$(cat "$B.aimd.drops")" -gt 0 ]
}

dcqcn_run() {
	trace_on sroce_dcqcn_cut || return 1
	bulk_counted dcqcn || return 1
	trace_off "$B.trace"
	want dcqcn drv_cc = dcqcn
	want dcqcn drv_dcqcn_cuts -gt 0
	want dcqcn drv_pace_pps -gt 0
}

# What the dcqcn run counted on both sides.
np_marks() {
	echo "fab1: $(d dcqcn 1 rx_ecn_ce) CE marks"
	[ "$(d dcqcn 1 rx_ecn_ce)" -gt 0 ]
}

# At most one CNP per CE mark, and at least one.
np_cnps() {
	local ce cnps
	ce=$(d dcqcn 1 rx_ecn_ce)
	cnps=$(d dcqcn 1 cnps_sent)
	echo "fab1: $cnps CNPs for $ce CE marks"
	[ "$cnps" -gt 0 ] && [ "$cnps" -le "$ce" ]
}

rp_cnps() {
	echo "fab2: $(d dcqcn "" cnps_received) CNPs received, fab1 sent $(d dcqcn 1 cnps_sent)"
	[ "$(d dcqcn "" cnps_received)" -gt 0 ]
	[ "$(d dcqcn "" cnps_received)" -le "$(d dcqcn 1 cnps_sent)" ]
}

# Marked, not dropped: netem drops what is not ECT, and under dcqcn that
# is hardly any of fab2's packets (the aimd run lost 2 % of them).  What
# netem counts as dropped less what fab1 saw marked is what it dropped.
marked_not_lost() {
	local ce drops
	ce=$(d dcqcn 1 rx_ecn_ce)
	drops=$(($(cat "$B.dcqcn.drops") - ce))
	echo "under dcqcn netem marked $ce and dropped $drops;" \
		"under aimd it dropped $(cat "$B.aimd.drops")"
	[ $((drops * 20)) -le "$ce" ]
}

cut_traced() {
	grep -m3 'sroce_dcqcn_cut: qpn=[0-9]* pps=[0-9]* alpha=' "$B.trace"
}

tap_plan 21
topo_sroce_pair

tap_check "cc refuses an unknown policy" \
	sh -c '! echo bogus >/sys/class/infiniband/fab1/cc'
tap_check "fab1: cc dcqcn" cc_set fab1 dcqcn
tap_check "fab2: cc dcqcn" cc_set fab2 dcqcn
tap_check "dcqcn on a clean path: ibv_rc_pingpong --chk" \
	run_pair ns1 ns2 "$PORT" -- \
	ibv_rc_pingpong -d fab1 -g "$G4A" -s 65536 -n 20 -p "$PORT" --chk -- \
	ibv_rc_pingpong -d fab2 -g "$G4B" -s 65536 -n 20 -p "$PORT" --chk 192.168.77.1
tap_require "netem on v2: 2 % lost, or CE-marked if ECT" \
	ip netns exec ns2 tc qdisc replace dev v2 root netem loss 2% ecn
tap_check "dcqcn, marked: rc_verify, every operation" \
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 4 -s 200000
tap_check "fab2: cc aimd" cc_set fab2 aimd
tap_check "aimd: not ECT, so netem drops: resent, no CE, no CNP" aimd_run
tap_diag "$(cat "$B.aimd.summary" 2>/dev/null)"
tap_check "fab2: cc dcqcn" cc_set fab2 dcqcn
tap_check "dcqcn: a bulk WRITE is paced and cut" dcqcn_run
tap_diag "$(cat "$B.dcqcn.summary" 2>/dev/null)"
tap_check "notification point: fab1 saw CE marks" np_marks
tap_check "notification point: fab1 sent CNPs, at most one per mark" np_cnps
tap_check "reaction point: fab2 received them" rp_cnps
tap_check "marked, not dropped: netem's drops under 5 % of the marks" marked_not_lost
tap_check "the sroce_dcqcn_cut tracepoint fired" cut_traced
tap_check "rdma statistic names cnps_sent" \
	sh -c 'ip netns exec ns1 rdma statistic show link fab1/1 | grep -qw cnps_sent'
tap_done
