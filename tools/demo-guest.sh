#!/bin/bash
# The demo's guest half (see tools/demo.sh).
set -eu
. "$SROCE_TREE/selftests/lib.sh"

step() { echo; echo "== $* =="; }

step "load sroce from the work tree, set up ns1 <-> ns2 over veth"
sroce_load
sroce_provider_setup
topo_veth
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev lo

step "rdma link add fab1 type sroce netdev v1   (in ns1)"
ip netns exec ns1 rdma link add fab1 type sroce netdev v1
step "rdma link add fab2 type sroce netdev v2   (in ns2)"
ip netns exec ns2 rdma link add fab2 type sroce netdev v2
sleep 1

step "rdma link show"
rdma link show
step "ibv_devices"
ibv_devices
step "ibv_devinfo -d fab1 -v (ns1)"
ip netns exec ns1 ibv_devinfo -d fab1 -v | grep -E 'hca_id|transport|node_guid|vendor_id|max_mr|max_pd|state|mtu|link_layer|GID'

step "clean up"
rdma link delete fab1
rdma link delete fab2
rdma link delete rxe0
rmmod sroce
echo "demo done"
