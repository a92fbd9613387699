#!/bin/bash
# Harness self-test, two VMs: eth0 link between VM A and VM B, IPv4 and
# IPv6 reachability, cross-VM sequencing through sync_signal/sync_wait.
set -eu
. "$SROCE_TREE/selftests/lib.sh"

me=$SROCE_VM
peer=$([ "$me" = A ] && echo B || echo A)

tap_plan 6
tap_check "VM $me: SROCE_VM is A or B" test "$me" = A -o "$me" = B
tap_require "VM $me: topo_twovm configures eth0" topo_twovm
# Neither side pings before both have their address.
sync_signal "addr-$me"
tap_require "VM $me: peer VM $peer has its address" sync_wait "addr-$peer" 120
tap_check "VM $me: ping VM $peer over IPv4" ping4 "$(peer_ip4)"
tap_check "VM $me: ping VM $peer over IPv6" ping6 "$(peer_ip6)"
# Stay up until the peer is done pinging us.
tap_check "VM $me: barrier with VM $peer" sync_barrier finished 120
tap_done
