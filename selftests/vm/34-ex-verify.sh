#!/bin/bash
# Extended verbs: selftests/verbs/ex_verify drives RC QP pairs built only
# from ibv_create_cq_ex, ibv_create_qp_ex, parent and thread domains, posts
# with the ibv_wr_* builders (every operation, inline, multi-SGE, batches,
# wr_abort, bad WRs that wr_complete must refuse) and polls with
# ibv_start_poll and the ibv_wc_read_* readers, checking every byte and
# every completion: between two devices and in loopback on one.
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

EXV=$SROCE_TREE/selftests/verbs/ex_verify

tap_plan 8
[ -x "$EXV" ] || tap_bail "selftests/verbs not built (make tests)"
topo_sroce_pair

tap_check "fab1<->fab2 IPv4, MTU 1024" \
	"$EXV" -d fab1 -D fab2 -g "$G4A" -G "$G4B" -m 1024 -n 10 -s 65536
tap_check "fab1<->fab2 IPv6, MTU 4096" \
	"$EXV" -d fab1 -D fab2 -g "$G6A" -G "$G6B" -m 4096 -n 5 -s 65536
tap_check "loopback on fab1, MTU 1024" \
	"$EXV" -d fab1 -g "$G4A" -m 1024 -n 5 -s 65536
tap_done
