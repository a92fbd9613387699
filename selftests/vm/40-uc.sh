#!/bin/bash
# UC: ibv_uc_pingpong --chk, perftest -c UC (SEND and WRITE) between two
# namespaces over IPv4 and IPv6 GIDs and in loopback, and
# selftests/verbs/uc_verify (SEND/WRITE/IMM across MTUs, silent drops),
# also over a lossy link (netem), where every message that arrives must
# be whole and in order.
# sroce-timeout: 1200
set -u
. "$SROCE_TREE/selftests/lib.sh"

UCV=$SROCE_TREE/selftests/verbs/uc_verify
PAIR_PORT=18950

# shellcheck disable=SC2317 # called through tap_check
lossy() {
	modprobe sch_netem
	ip netns exec ns1 tc qdisc add dev v1 root netem loss 10%
	"$UCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -l
	local rc=$?
	ip netns exec ns1 tc qdisc del dev v1 root
	return $rc
}

tap_plan 18
topo_sroce_pair
A4="ns1 fab1 $G4A ns2 fab2 $G4B 192.168.77.1"
A6="ns1 fab1 $G6A ns2 fab2 $G6B 192.168.77.1"
LO="ns1 fab1 $G4A ns1 fab1 $G4A 127.0.0.1"

# shellcheck disable=SC2086 # the pair arguments are words
{
tap_check "uc_pingpong IPv4 GIDs, 4 KiB" tool_pair $A4 ibv_uc_pingpong -s 4096 -n 100 --chk
tap_check "uc_pingpong IPv6 GIDs, 64 B" tool_pair $A6 ibv_uc_pingpong -s 64 -n 100 --chk
tap_check "uc_pingpong loopback, 16 KiB" tool_pair $LO ibv_uc_pingpong -s 16384 -n 50 --chk
tap_check "ib_send_bw -c UC, IPv4 GIDs" tool_pair $A4 ib_send_bw -c UC
tap_check "ib_write_bw -c UC, IPv4 GIDs" tool_pair $A4 ib_write_bw -c UC
tap_check "ib_write_bw -c UC, IPv6 GIDs" tool_pair $A6 ib_write_bw -c UC
tap_check "ib_send_bw -c UC, loopback" tool_pair $LO ib_send_bw -c UC
tap_check "ib_send_lat -c UC, IPv4 GIDs" tool_pair $A4 ib_send_lat -c UC
tap_check "ib_write_lat -c UC, IPv4 GIDs" tool_pair $A4 ib_write_lat -c UC
}
tap_check "uc_verify fab1 -> fab2 (IPv4, MTU 1024)" "$UCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "uc_verify fab1 -> fab2 (IPv6, MTU 256)" "$UCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 256
tap_check "uc_verify loopback on fab1" "$UCV" -d fab1 -g "$G4A"
tap_check "uc_verify -l: 10% loss, messages whole or lost" lossy
rdma statistic show link fab2/1 | tap_diag_file
tap_done
