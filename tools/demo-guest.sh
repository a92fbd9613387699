#!/bin/bash
# The demo's guest half (see tools/demo.sh): sroce devices in two network
# namespaces beside rdma_rxe on lo; unchanged perftest moves data over
# both, at the same RoCE MTU (4096: the veth at 9000), and over sroce once
# more with ICRC elision on at both ends; a side-by-side table and
# sroce's counters close it.
set -eu -o pipefail
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/tools/bench/lib.sh"

step() { echo; echo "== $* =="; }

step "load sroce from the work tree; ns1 <-> ns2 over veth; rxe0 on lo"
echo "rdma link add fab1 type sroce netdev v1   (in ns1)"
echo "rdma link add fab2 type sroce netdev v2   (in ns2)"
echo "rdma link add rxe0 type rxe netdev lo"
bench_setup

step "rdma link show"
rdma link show
step "ibv_devinfo -d fab1 (ns1)"
ip netns exec ns1 ibv_devinfo -d fab1 |
	grep -E 'hca_id|transport|fw_ver|node_guid|state|active_mtu|link_layer'

step "ibv_rc_pingpong --chk, 1 MiB x 20, fab2 (ns2) -> fab1 (ns1)"
run_pair ns1 ns2 18515 -- \
	ibv_rc_pingpong -d fab1 -g "$G4A" -s 1048576 -n 20 --chk -- \
	ibv_rc_pingpong -d fab2 -g "$G4B" -s 1048576 -n 20 --chk 192.168.77.1 |
	grep -E 'bytes in|iters in' | head -n 2

# Jumbo frames, so that sroce's RoCE MTU is rxe's on lo (4096).
step "veth MTU 9000: RoCE MTU 4096 on fab1 and fab2, as rxe0 has on lo"
ip -n ns1 link set v1 mtu 9000
ip -n ns2 link set v2 mtu 9000
wait_for 10 sh -c "ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'"
ip netns exec ns1 ibv_devinfo -d fab1 | grep active_mtu

# Measured one after the other in this VM, so the ratio is fair to both.
step "perftest: sroce (ns1 <-> ns2 over veth) and rxe (on lo)"
echo "(each line takes a few seconds under QEMU's software emulation)"
wbs=$(sroce_bw ib_write_bw -s 65536 -n 2000)
echo "  sroce ib_write_bw 64K: $wbs MB/s"
# Both ends sroce: they may leave the ICRC out (off by default).
echo 1 >/sys/class/infiniband/fab1/icrc_elide
echo 1 >/sys/class/infiniband/fab2/icrc_elide
wbe=$(sroce_bw ib_write_bw -s 65536 -n 2000)
echo "  sroce ib_write_bw 64K, icrc_elide=1 at both ends: $wbe MB/s"
echo 0 >/sys/class/infiniband/fab1/icrc_elide
echo 0 >/sys/class/infiniband/fab2/icrc_elide
wbr=$(rxe_bw ib_write_bw -s 65536 -n 2000)
echo "  rxe   ib_write_bw 64K: $wbr MB/s"
lats=$(sroce_lat ib_send_lat -s 64 -n 2000)
echo "  sroce ib_send_lat 64B: $lats usec"
latr=$(rxe_lat ib_send_lat -s 64 -n 2000)
echo "  rxe   ib_send_lat 64B: $latr usec"

step "results (QEMU TCG, 2 vCPUs; bandwidth: higher is better)"
table_head
row "ib_write_bw 64K" "MB/s" "$wbs" "$wbr"
row "... ICRC elided" "MB/s" "$wbe" "$wbr"
row "ib_send_lat 64B" "usec" "$lats" "$latr"
echo "sroce crosses veth and the IP stack; rxe's lo peer is on its own"
echo "netdev, which rxe short-cuts past IP (latency: lower is better)."
echo "ICRC elided: both ends sroce with icrc_elide=1, the UDP checksum"
echo "instead of the ICRC (off by default; never toward rxe or a NIC)."

step "rdma statistic show link fab1/1 (non-zero counters)"
counters ns1 fab1

step "clean up"
rdma link delete rxe0
ip netns exec ns1 rdma link delete fab1
ip netns exec ns2 rdma link delete fab2
rmmod sroce
echo "demo done"
