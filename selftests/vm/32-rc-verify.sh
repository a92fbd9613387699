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
tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "veth topology" topo_veth
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_require "fab2 on v2" ip netns exec ns2 rdma link add fab2 type sroce netdev v2
wait_for 10 gid_index ns1 fab1 fd77::1 >/dev/null
wait_for 10 gid_index ns2 fab2 fd77::2 >/dev/null
G4A=$(gid_index ns1 fab1 192.168.77.1)
G4B=$(gid_index ns2 fab2 192.168.77.2)
G6A=$(gid_index ns1 fab1 fd77::1)
G6B=$(gid_index ns2 fab2 fd77::2)

for mtu in 256 1024 4096; do
	tap_check "fab1<->fab2 IPv4, MTU $mtu" \
		"$RCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m "$mtu" -n 10 -s 200000
done
tap_check "fab1<->fab2 IPv6, MTU 1024" \
	"$RCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 1024 -n 10 -s 200000
tap_check "loopback on fab1, MTU 1024" \
	"$RCV" -d fab1 -g "$G4A" -m 1024 -n 10 -s 200000
tap_done
