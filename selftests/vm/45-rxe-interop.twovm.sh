#!/bin/bash
# Interop with rdma_rxe, two VMs (issue 5), IPv4 GIDs, path MTU 1024 on
# a 1500-byte link: VM A runs sroce, VM B rdma_rxe.  Every case runs with
# sroce as the server and as the client: the perftest RC tools, UD and UC
# sends, perftest over rdma_cm, ibv_rc_pingpong --chk at 1 MiB, rping -V
# (selftests/interop.sh: iop_matrix).  VM A captures all of it and checks
# the capture with tshark and with an independent ICRC/BTH checker
# (selftests/tools/roce_check.py).
# sroce-timeout: 1500
# sroce-lane: long
set -u
. "$SROCE_TREE/selftests/lib.sh"
. "$SROCE_TREE/selftests/interop.sh"

taps=$((IOP_SETUP_TAPS + 1 + IOP_MATRIX_CASES * IOP_CASE_TAPS))
[ "$SROCE_VM" = A ] && taps=$((taps + IOP_FINISH_TAPS_A))
tap_plan "$taps"
iop_setup 1500
tap_require "VM $SROCE_VM: capture started (VM A)" iop_capture_start
iop_matrix 4
iop_finish --min-ours 1000
tap_done
