#!/bin/bash
# Asynchronous events: selftests/verbs/async_verify provokes each one on
# fab1 (port down/up, GID table changes, CQ overflow, a bad rkey and a
# READ to a QP that takes none at the responder) and waits for it on the
# context's async_fd; its TAP lines are this test's.
# sroce-timeout: 600
set -u
. "$SROCE_TREE/selftests/lib.sh"

AV=$SROCE_TREE/selftests/verbs/async_verify
AV_PLAN=12

tap_plan $((6 + AV_PLAN))
tap_require "load sroce" sroce_load
tap_require "provider" sroce_provider_setup
tap_require "async_verify built" test -x "$AV"
tap_require "veth topology" topo_veth
tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
G4A=$(wait_for 10 gid_index ns1 fab1 192.168.77.1 && gid_index ns1 fab1 192.168.77.1)
counter_snap ns1 fab1 "$SROCE_RESULTS/cnt.before"
ip netns exec ns1 timeout 300 "$AV" -d fab1 -n v1 -a 192.168.77.50/24 \
	-g "${G4A:-0}" >"$SROCE_RESULTS/async_verify.out" 2>&1
tap_replay "$SROCE_RESULTS/async_verify.out" $AV_PLAN
counter_snap ns1 fab1 "$SROCE_RESULTS/cnt.after"
# async_verify takes v1 down once: one edge, as rxe's link_downed counts.
tap_check "link_downed counts the one port-down edge" test \
	"$(counter_delta "$SROCE_RESULTS/cnt.before" "$SROCE_RESULTS/cnt.after" link_downed)" = 1
counters ns1 fab1 | tap_diag_file
tap_done
