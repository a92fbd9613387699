#!/bin/bash
# Kernel consumers: a ULP-style module allocates PDs (and with them DMA MRs)
# on a sroce device through ib_core; teardown afterwards finds nothing
# leaked (the MR table warns if it is not empty).
set -u
. "$SROCE_TREE/selftests/lib.sh"

KTEST=$SROCE_KO_TREE/selftests/kmod/sroce_ktest.ko

ktest_pass() {
	insmod "$KTEST" dev=fab1
	dmesg | grep 'sroce_ktest:'
	dmesg | grep -q 'sroce_ktest: 0 failures' && ! dmesg | grep -q 'sroce_ktest: FAIL'
}

tap_plan 5
tap_require "load the RDMA stack" sroce_load
topo_veth
tap_require "rdma link add fab1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_check "kernel PD, DMA MR, RC, SRQ and UD on fab1" ktest_pass
tap_check "the checker itself fails on a missing device" sh -c \
	"rmmod sroce_ktest && ! insmod '$KTEST' dev=nosuch"
tap_check "device deleted cleanly after kernel use" sh -c \
	'rdma link delete fab1 && rmmod sroce'
tap_done
