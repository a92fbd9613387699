#!/bin/bash
# Shared receive queues: ibv_srq_pingpong --chk (RC QPs sharing one SRQ)
# across two namespaces over IPv4 and IPv6 GIDs and in loopback, and
# selftests/verbs/srq_verify (limit event, no flush of SRQ WQEs on a QP
# error, LAST_WQE_REACHED, RNR on an empty SRQ).
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

SRQV=$SROCE_TREE/selftests/verbs/srq_verify
PORT=18700
srq_pingpong() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7 size=$8
	PORT=$((PORT + 1))
	run_pair "$sns" "$cns" "$PORT" -- \
		ibv_srq_pingpong -d "$sdev" -g "$sgid" -s "$size" -q 8 -n 50 -p "$PORT" --chk -- \
		ibv_srq_pingpong -d "$cdev" -g "$cgid" -s "$size" -q 8 -n 50 -p "$PORT" --chk "$peer"
}

tap_plan 11
topo_sroce_pair

tap_check "srq_pingpong IPv4 GIDs, 4 KiB" \
	srq_pingpong ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 4096
tap_check "srq_pingpong IPv6 GIDs, 64 B" \
	srq_pingpong ns1 fab1 "$G6A" ns2 fab2 "$G6B" 192.168.77.1 64
tap_check "srq_pingpong loopback on fab1, 16 KiB" \
	srq_pingpong ns1 fab1 "$G4A" ns1 fab1 "$G4A" 127.0.0.1 16384
tap_check "srq_verify fab1 -> fab2 (IPv4)" \
	"$SRQV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "srq_verify fab1 -> fab2 (IPv6)" \
	"$SRQV" -d fab1 -D fab2 -g "$G6A" -G "$G6B"
tap_check "srq_verify loopback on fab1" "$SRQV" -d fab1 -g "$G4A"
tap_done
