#!/bin/bash
# Data integrity: selftests/verbs/rc_verify writes, reads, sends and
# atomically updates random patterns across SGE and MR-page boundaries at
# several path MTUs and verifies every byte and every completion: between
# two devices (IPv4 and IPv6 GIDs) and in loopback on one device.
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

RCV=$SROCE_TREE/selftests/verbs/rc_verify

tap_plan 10
topo_sroce_pair

for mtu in 256 1024 4096; do
	tap_check "fab1<->fab2 IPv4, MTU $mtu" \
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m "$mtu" -n 10 -s 200000
done
tap_check "fab1<->fab2 IPv6, MTU 1024" \
	"$RCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 1024 -n 10 -s 200000
tap_check "loopback on fab1, MTU 1024" \
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 10 -s 200000
tap_done
