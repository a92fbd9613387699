#!/bin/bash
# The GSI QP (QP1): ib_mad creates it at registration, and the CM runs on
# it.  rdma_cm programs connect over sroce between two namespaces: rping
# -V (RC, IPv4 and IPv6), ucmatose (RC), udaddy (UD through SIDR), and
# perftest connected by rdma_cm (-R).
# sroce-timeout: 900
set -u
. "$SROCE_TREE/selftests/lib.sh"

# cm_pair SNS CNS -- SERVER... -- CLIENT...: rdma_cm servers listen on
# no TCP port, so give the server a moment, and retry the client once.
cm_pair() {
	local sns=$1 cns=$2 spid rc=0 src=0
	local -a srv=() cli=()
	shift 2
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	ip netns exec "$sns" timeout 300 "${srv[@]}" >"$SROCE_RESULTS/server.out" 2>&1 &
	spid=$!
	sleep 3
	timeout 300 ip netns exec "$cns" "${cli[@]}" || {
		sleep 3
		rc=0
		timeout 300 ip netns exec "$cns" "${cli[@]}" || rc=$?
	}
	wait "$spid" || src=$?
	echo "--- server (exit $src):"
	cat "$SROCE_RESULTS/server.out"
	[ "$rc" = 0 ] && [ "$src" = 0 ]
}

no_qp1_error() {
	! dmesg | grep -E "Couldn't create ib_mad QP1|ib_mad.*fab"
}

tap_plan 12
topo_sroce_pair
tap_check "ib_mad created QP1 on both devices" no_qp1_error
tap_check "rping -V, IPv4" cm_pair ns2 ns1 -- \
	rping -s -a 192.168.77.2 -p 18900 -C 20 -V -- \
	rping -c -a 192.168.77.2 -p 18900 -C 20 -V
tap_check "rping -V, IPv6" cm_pair ns2 ns1 -- \
	rping -s -a fd77::2 -p 18901 -C 20 -V -- \
	rping -c -a fd77::2 -p 18901 -C 20 -V
tap_check "ucmatose, IPv4" cm_pair ns2 ns1 -- \
	ucmatose -b 192.168.77.2 -C 10 -- ucmatose -s 192.168.77.2 -C 10
tap_check "udaddy, IPv4" cm_pair ns2 ns1 -- \
	udaddy -b 192.168.77.2 -C 10 -- udaddy -s 192.168.77.2 -C 10
tap_check "ib_write_bw -R, IPv4" cm_pair ns2 ns1 -- \
	ib_write_bw -d fab2 -R -F -p 18902 -n 500 -s 65536 -- \
	ib_write_bw -d fab1 -R -F -p 18902 -n 500 -s 65536 192.168.77.2
tap_check "ib_send_bw -R, IPv4" cm_pair ns2 ns1 -- \
	ib_send_bw -d fab2 -R -F -p 18903 -n 500 -s 4096 -- \
	ib_send_bw -d fab1 -R -F -p 18903 -n 500 -s 4096 192.168.77.2
rdma statistic show link fab2/1 | tap_diag_file
tap_done
