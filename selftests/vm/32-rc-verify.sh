#!/bin/bash
# Data integrity: selftests/verbs/rc_verify writes, reads, sends and
# atomically updates random patterns across SGE and MR-page boundaries at
# several path MTUs and verifies every byte and every completion: between
# two devices (IPv4 and IPv6 GIDs) and in loopback on one device.
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

RCV=$SROCE_TREE/selftests/verbs/rc_verify
ZC=/sys/module/sroce/parameters/tx_zerocopy

# zc_total: packets both devices sent with the payload not copied.
zc_total() {
	echo $(($(counter ns1 fab1 tx_zerocopy) + $(counter ns2 fab2 tx_zerocopy)))
}

# zc_run Y|N: the MTU 4096 run with tx_zerocopy set so; the payloads of
# WRITEs, SENDs and READ responses leave from the MR pages (Y) or are
# copied (N), every byte verified either way, and tx_zerocopy moves
# exactly when it is on.
zc_run() {
	local z0 z1
	echo "$1" >"$ZC" || return 1
	z0=$(zc_total)
	"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 4096 -n 10 -s 200000 ||
		return 1
	z1=$(zc_total)
	echo "tx_zerocopy $1: $z0 -> $z1"
	if [ "$1" = Y ]; then [ "$z1" -gt "$z0" ]; else [ "$z1" = "$z0" ]; fi
}

tap_plan 12
topo_sroce_pair

for mtu in 256 1024 4096; do
	tap_check "fab1<->fab2 IPv4, MTU $mtu" \
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m "$mtu" -n 10 -s 200000
done
tap_check "fab1<->fab2 IPv6, MTU 1024" \
	"$RCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 1024 -n 10 -s 200000
tap_check "loopback on fab1, MTU 1024" \
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 10 -s 200000
tap_check "zero copy on: payloads from the MR pages, tx_zerocopy counts them" \
	zc_run Y
tap_check "zero copy off: payloads copied, tx_zerocopy still" zc_run N
echo Y >"$ZC"
tap_done
