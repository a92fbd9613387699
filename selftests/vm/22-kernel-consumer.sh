#!/bin/bash
# Kernel consumers: a ULP-style module allocates PDs (and with them DMA MRs)
# on a sroce device through ib_core; teardown afterwards finds nothing
# leaked (the MR table warns if it is not empty).  Its fast registration
# checks (REG_MR, RDMA through the rkey, remote and local invalidation,
# dead keys) must show in the MR counters.
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

KTEST=$SROCE_KO_TREE/selftests/kmod/sroce_ktest.ko

ktest_pass() {
	insmod "$KTEST" dev=fab1
	dmesg | grep 'sroce_ktest:'
	dmesg | grep -q 'sroce_ktest: 0 failures' && ! dmesg | grep -q 'sroce_ktest: FAIL'
}

# Two dead rkeys (invalidated, replaced) and one REG_MR of a valid MR.
fr_counted() {
	echo "mr_access_refused=$(counter "" fab1 mr_access_refused) fr_op_errors=$(counter "" fab1 fr_op_errors)"
	[ "$(counter "" fab1 mr_access_refused)" -ge 2 ] && [ "$(counter "" fab1 fr_op_errors)" -ge 1 ]
}

tap_plan 6
tap_require "load the RDMA stack" sroce_load
topo_veth
tap_require "rdma link add fab1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_check "kernel PD, DMA MR, RC, SRQ, UD and FRWR on fab1" ktest_pass
tap_check "refused rkeys and fast registrations are counted" fr_counted
tap_check "the checker itself fails on a missing device" sh -c \
	"rmmod sroce_ktest && ! insmod '$KTEST' dev=nosuch"
tap_check "device deleted cleanly after kernel use" sh -c \
	'rdma link delete fab1 && rmmod sroce'
tap_done
