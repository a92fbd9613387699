#!/bin/bash
# A sroce device belongs to its netdev's network namespace: with ib_core in
# exclusive netns mode, only processes in that namespace see it, and it
# goes away with the namespace.
set -u
. "$SROCE_TREE/selftests/lib.sh"

wait_gone() {
	local i
	for i in $(seq 100); do
		rdma dev show | grep -qw fab1 || return 0
		sleep 0.1
	done
	rdma dev show
	return 1
}

tap_plan 8
tap_check "rdma system set netns exclusive" rdma system set netns exclusive
sroce_load
sroce_provider_setup
topo_veth
tap_check "rdma link add fab1 in ns1" \
	ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_check "ns1 sees fab1 (rdma dev)" sh -c 'ip netns exec ns1 rdma dev show | grep -qw fab1'
tap_check "init_net does not see fab1" sh -c '! rdma dev show | grep -qw fab1'
tap_check "ns2 does not see fab1" sh -c '! ip netns exec ns2 rdma dev show | grep -qw fab1'
tap_check "ibv_devices in ns1 lists fab1" sh -c 'ip netns exec ns1 ibv_devices | grep -qw fab1'
tap_check "ibv_devinfo in ns1 opens fab1" ip netns exec ns1 ibv_devinfo -d fab1
# Deleting the namespace destroys v1 and with it the device.
ip netns del ns1
tap_check "deleting ns1 removes fab1" wait_gone
tap_done
