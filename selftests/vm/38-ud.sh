#!/bin/bash
# UD: ibv_ud_pingpong --chk, ib_send_bw -c UD and ib_send_lat -c UD across
# two namespaces over IPv4 and IPv6 GIDs and in loopback, and
# selftests/verbs/ud_verify (GRH area, Q_Key rules and drops, lengths,
# SQE recovery, UD on an SRQ, bursts).
# sroce-timeout: 1200
set -u
. "$SROCE_TREE/selftests/lib.sh"

UDV=$SROCE_TREE/selftests/verbs/ud_verify
PAIR_PORT=18800

tap_plan 18
topo_sroce_pair
A4="ns1 fab1 $G4A ns2 fab2 $G4B 192.168.77.1"
A6="ns1 fab1 $G6A ns2 fab2 $G6B 192.168.77.1"
LO="ns1 fab1 $G4A ns1 fab1 $G4A 127.0.0.1"

# shellcheck disable=SC2086 # the pair arguments are words
{
tap_check "ud_pingpong IPv4 GIDs, 1024 B (the MTU)" tool_pair $A4 ibv_ud_pingpong -s 1024 -n 100 --chk
tap_check "ud_pingpong IPv4 GIDs, 64 B" tool_pair $A4 ibv_ud_pingpong -s 64 -n 100 --chk
tap_check "ud_pingpong IPv6 GIDs, 512 B" tool_pair $A6 ibv_ud_pingpong -s 512 -n 100 --chk
tap_check "ud_pingpong loopback on fab1" tool_pair $LO ibv_ud_pingpong -s 1000 -n 100 --chk
tap_check "ib_send_bw -c UD, IPv4 GIDs" tool_pair $A4 ib_send_bw -c UD
tap_check "ib_send_bw -c UD, IPv6 GIDs" tool_pair $A6 ib_send_bw -c UD
tap_check "ib_send_bw -c UD, loopback" tool_pair $LO ib_send_bw -c UD
tap_check "ib_send_lat -c UD, IPv4 GIDs" tool_pair $A4 ib_send_lat -c UD
tap_check "ib_send_lat -c UD, loopback" tool_pair $LO ib_send_lat -c UD
}
tap_check "ud_verify fab1 -> fab2 (IPv4)" "$UDV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "ud_verify fab1 -> fab2 (IPv6)" "$UDV" -d fab1 -D fab2 -g "$G6A" -G "$G6B"
tap_check "ud_verify loopback on fab1" "$UDV" -d fab1 -g "$G4A"
rdma statistic show link fab2/1 | tap_diag_file
tap_check "devices deleted cleanly after UD use" sh -c \
	'ip netns exec ns1 rdma link delete fab1 && ip netns exec ns2 rdma link delete fab2 && rmmod sroce'
tap_done
