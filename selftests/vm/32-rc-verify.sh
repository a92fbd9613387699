#!/bin/bash
# Data integrity: selftests/verbs/rc_verify writes, reads, sends and
# atomically updates random patterns across SGE and MR-page boundaries at
# several path MTUs and verifies every byte and every completion: between
# two devices (IPv4 and IPv6 GIDs) and in loopback on one device; and
# the same with on-demand paging MRs whose pages leave the mapping
# before every operation; and with each data path knob on and off.
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

RCV=$SROCE_TREE/selftests/verbs/rc_verify
PARAMS=/sys/module/sroce/parameters

# knob_run PARAM Y|N COUNTER: the MTU 4096 run with module parameter
# PARAM set so, every byte verified either way; COUNTER moves exactly
# when PARAM is on.  tx_zerocopy: WRITE, SEND and READ response payloads
# leave from the MR pages, or are copied; rx_steer: large packets are
# placed by the QP's engine on another CPU, or inline where they arrive.
knob_run() {
	local c0 c1
	echo "$2" >"$PARAMS/$1" || return 1
	c0=$(pair_counter "$3")
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 4096 -n 10 -s 200000 ||
		return 1
	c1=$(pair_counter "$3")
	echo "$1=$2: $3 $c0 -> $c1"
	if [ "$2" = Y ]; then [ "$c1" -gt "$c0" ]; else [ "$c1" = "$c0" ]; fi
}

# odp_run ARGS...: rc_verify -o (on-demand paging MRs, pages dropped
# before every operation), every byte verified; the pages had to come
# back: faults were resolved and mapping changes took pages, on both
# devices together, and no range failed to fault in.
odp_run() {
	local f0 i0 e0 f1 i1 e1
	f0=$(pair_counter odp_faults)
	i0=$(pair_counter odp_invalidations)
	e0=$(pair_counter odp_fault_errors)
	"$RCV" -o "$@" || return 1
	f1=$(pair_counter odp_faults)
	i1=$(pair_counter odp_invalidations)
	e1=$(pair_counter odp_fault_errors)
	echo "odp_faults $f0 -> $f1, odp_invalidations $i0 -> $i1, odp_fault_errors $e0 -> $e1"
	[ "$f1" -gt "$f0" ] && [ "$i1" -gt "$i0" ] && [ "$e1" = "$e0" ]
}

# odp_errors: ODP MRs over unmapped memory give error completions (and
# EFAULT for a prefetch), and odp_fault_errors counts the ranges.
odp_errors() {
	local e0 e1
	e0=$(pair_counter odp_fault_errors)
	"$SROCE_TREE/selftests/verbs/odp_verify" "$@" || return 1
	e1=$(pair_counter odp_fault_errors)
	echo "odp_fault_errors $e0 -> $e1"
	[ "$e1" -gt "$e0" ]
}

# Two more devices in ns1, fab3 and fab4, on the ends of a veth inside
# it: each one's address is local to the other.  ib_core resolves the
# peer's MAC by ARP on the device's own netdev, from a source address
# the answering side finds local: accept_local lets that through.
add_local_pair() {
	ip netns exec ns1 sysctl -qw net.ipv4.conf.all.accept_local=1 &&
		ip -n ns1 link add va type veth peer name vb &&
		ip -n ns1 addr add 192.168.79.1/24 dev va &&
		ip -n ns1 addr add 192.168.79.2/24 dev vb &&
		ip -n ns1 link set va up && ip -n ns1 link set vb up &&
		ip netns exec ns1 rdma link add fab3 type sroce netdev va &&
		ip netns exec ns1 rdma link add fab4 type sroce netdev vb &&
		wait_for 10 gid_index ns1 fab3 192.168.79.1 >/dev/null &&
		wait_for 10 gid_index ns1 fab4 192.168.79.2 >/dev/null
}

# The local deliveries of fab1 and fab3.
local_count() {
	echo $(($(counter ns1 fab1 tx_local) + $(counter ns1 fab3 tx_local)))
}

# local_run Y|N: with tx_local so, loopback on fab1 (IPv4 and IPv6) and
# fab3<->fab4 (two devices of ns1) verify every byte, and tx_local
# moves exactly when on; fab1<->fab2, across the veth to ns2, never
# moves it.
local_run() {
	local g3 g4 c0 c1 c2
	echo "$1" >"$PARAMS/tx_local" || return 1
	g3=$(gid_index ns1 fab3 192.168.79.1) &&
		g4=$(gid_index ns1 fab4 192.168.79.2) || return 1
	c0=$(local_count)
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 5 -s 100000 &&
		"$RCV" -d fab1 -g "$G6A" -m 4096 -n 5 -s 100000 &&
		"$RCV" -d fab3 -D fab4 -g "$g3" -G "$g4" -m 4096 -n 5 \
			-s 100000 || return 1
	c1=$(local_count)
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 3 -s 100000 ||
		return 1
	c2=$(local_count)
	echo "tx_local=$1: tx_local $c0 -> $c1 (local), -> $c2 (veth)"
	[ "$c2" = "$c1" ] || return 1
	if [ "$1" = Y ]; then [ "$c1" -gt "$c0" ]; else [ "$c1" = "$c0" ]; fi
}

# veth_offload on|off: the veths' checksum and UDP segmentation offloads.
# Off, each veth cuts a GSO skb and checksums the pieces as they leave,
# as a NIC without those offloads has the stack do: a capture then holds
# the datagrams such a NIC would send.
veth_offload() {
	ip netns exec ns1 ethtool -K v1 tx "$1" tx-udp-segmentation "$1" >/dev/null &&
		ip netns exec ns2 ethtool -K v2 tx "$1" tx-udp-segmentation "$1" >/dev/null
}

# trains_run: sroce's trains (UDP GSO, gso.c) cut by the veths: every
# byte verified, tx_trains moves, and every datagram captured on v1 is a
# well-formed RoCE packet, its ICRC and UDP checksum good.
trains_run() {
	local t0 t1 rc=0
	veth_offload off || return 1
	t0=$(pair_counter tx_trains)
	CAPTURE_TRAINS=1 capture_start ns1 v1 /tmp/trains.pcap || rc=1
	if [ "$rc" = 0 ]; then
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 4 \
			-s 200000 || rc=1
	fi
	capture_stop /tmp/trains.pcap >/dev/null || rc=1
	veth_offload on || rc=1
	t1=$(pair_counter tx_trains)
	echo "tx_trains $t0 -> $t1"
	[ "$rc" = 0 ] && [ "$t1" -gt "$t0" ] || return 1
	python3 "$SROCE_TREE/selftests/tools/roce_check.py" --ours 192.168.77.1 \
		--ours 192.168.77.2 --pmtu 1024 --min-ours 100 /tmp/trains.pcap
}

# trains_local: a train toward this host's own address leaves packet by
# packet (to lo, or to a local device), so every byte arrives and
# tx_trains stays where it was; tx_packets counts each packet.
trains_local() {
	local t0 t1 p0 p1
	t0=$(counter ns1 fab1 tx_trains)
	p0=$(counter ns1 fab1 tx_packets)
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 4 -s 200000 || return 1
	t1=$(counter ns1 fab1 tx_trains)
	p1=$(counter ns1 fab1 tx_packets)
	echo "loopback: tx_trains $t0 -> $t1, tx_packets $p0 -> $p1"
	[ "$t1" = "$t0" ] && [ "$p1" -gt $((p0 + 100)) ]
}

# large_run Y|N: large segments between the two sroce devices (seg.c).
# On, the capture holds SEND/WRITE packets longer than the path MTU, all
# FIRST/MIDDLE ones of the size a 1500-byte link carries over IPv4, and
# only toward an address that said it takes them (roce_check.py); every
# byte arrives.  Off, none: every packet keeps to the path MTU.
large_run() {
	local rc=0 out
	echo "$1" >"$PARAMS/large_segments" || return 1
	capture_start ns1 v1 /tmp/large.pcap || rc=1
	if [ "$rc" = 0 ]; then
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 4 \
			-s 200000 || rc=1
	fi
	capture_stop /tmp/large.pcap >/dev/null || rc=1
	echo Y >"$PARAMS/large_segments"
	[ "$rc" = 0 ] || return 1
	out=$(python3 "$SROCE_TREE/selftests/tools/roce_check.py" \
		--ours 192.168.77.1 --ours 192.168.77.2 --pmtu 1024 \
		--min-ours 100 /tmp/large.pcap) || { echo "$out"; return 1; }
	echo "$out" | grep "large segments"
	if [ "$1" = Y ]; then
		echo "$out" | grep -q "large segments on [1-9][0-9]* packets, FIRST/MIDDLE of \[1432\]; taken by \['192.168.77.1', '192.168.77.2'\]"
	else
		echo "$out" | grep -q "large segments on 0 packets"
	fi
}

tap_plan 27
topo_sroce_pair

for mtu in 256 1024 4096; do
	tap_check "fab1<->fab2 IPv4, MTU $mtu" \
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m "$mtu" -n 10 -s 200000
done
tap_check "fab1<->fab2 IPv6, MTU 1024" \
	"$RCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 1024 -n 10 -s 200000
tap_check "loopback on fab1, MTU 1024" \
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 10 -s 200000
tap_check "ODP MRs, pages dropped: fab1<->fab2 IPv4, MTU 1024" \
	odp_run -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 10 -s 200000
tap_check "ODP MRs, pages dropped: fab1<->fab2 IPv6, MTU 4096" \
	odp_run -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 4096 -n 10 -s 200000
tap_check "ODP MRs, pages dropped: loopback on fab1, MTU 256" \
	odp_run -d fab1 -g "$G4A" -m 256 -n 5 -s 100000
tap_check "ODP MRs over unmapped memory: error completions, then work again" \
	odp_errors -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "zero copy on: payloads from the MR pages, tx_zerocopy counts them" \
	knob_run tx_zerocopy Y tx_zerocopy
tap_check "zero copy off: payloads copied, tx_zerocopy still" \
	knob_run tx_zerocopy N tx_zerocopy
echo Y >"$PARAMS/tx_zerocopy"
tap_check "receive steering on: large packets placed on another CPU" \
	knob_run rx_steer Y rx_steered
tap_check "receive steering off: all placed inline, rx_steered still" \
	knob_run rx_steer N rx_steered
echo Y >"$PARAMS/rx_steer"
tap_check "large segments on: 1432-byte packets between sroce peers, capture checks" \
	large_run Y
tap_check "large segments off: every packet within the path MTU, every byte" \
	large_run N
tap_check "trains on: data packets to a sroce peer as UDP GSO, tx_trains counts" \
	knob_run tx_gso Y tx_trains
tap_check "trains off: one skb per packet, tx_trains still" \
	knob_run tx_gso N tx_trains
echo Y >"$PARAMS/tx_gso"
tap_check "trains cut by the veths: every byte, each datagram captured checks" \
	trains_run
tap_check "trains toward this host: packet by packet, tx_trains still" \
	trains_local
tap_require "fab3 and fab4 on a veth inside ns1" add_local_pair
tap_check "local delivery on: loopback and fab3<->fab4 past lo, tx_local counts" \
	local_run Y
tap_check "local delivery off: through lo, every byte, tx_local still" \
	local_run N
echo Y >"$PARAMS/tx_local"
tap_done
