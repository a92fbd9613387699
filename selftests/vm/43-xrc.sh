#!/bin/bash
# XRC: rdma-core's ibv_xsrq_pingpong (XRC SRQ, TGT QPs created through a
# domain, INI QPs naming the SRQ) across two namespaces over IPv4 and
# IPv6 GIDs, in loopback and with two clients on one server, and
# selftests/verbs/xrc_verify (two INI QPs, TGT QPs, SRQs of two domains:
# SEND, SEND_WITH_IMM, RDMA WRITE/READ byte for byte, ibv_open_qp from a
# second context, and a request naming another domain's SRQ refused and
# counted).  xsrq_pingpong checks completions only; the bytes are
# xrc_verify's.
# sroce-timeout: 900
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

XRCV=$SROCE_TREE/selftests/verbs/xrc_verify
PORT=19100
xsrq() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7 size=$8
	PORT=$((PORT + 1))
	# A server whose client died would wait for ever: bound it too.
	run_pair "$sns" "$cns" "$PORT" -- \
		timeout 300 stdbuf -oL ibv_xsrq_pingpong -d "$sdev" -g "$sgid" \
			-s "$size" -n 20 -p "$PORT" -- \
		timeout 300 stdbuf -oL ibv_xsrq_pingpong -d "$cdev" -g "$cgid" \
			-s "$size" -n 20 -p "$PORT" "$peer" && return 0
	counters "$sns" "$sdev"
	counters "$cns" "$cdev"
	return 1
}

# One server (ns1, fab1), two clients at once (ns2, fab2): two TGT QPs
# on the server's SRQ, sends round robin over its INI QPs.
xsrq_two() {
	local rc=0 c1 c2
	PORT=$((PORT + 1))
	ip netns exec ns1 timeout 300 stdbuf -oL ibv_xsrq_pingpong -d fab1 -g "$G4A" -c 2 -n 20 \
		-p "$PORT" >"$SROCE_RESULTS/xsrq-server.out" 2>&1 &
	local spid=$!
	wait_listen ns1 "$PORT" || { kill "$spid"; return 1; }
	timeout 300 ip netns exec ns2 stdbuf -oL ibv_xsrq_pingpong -d fab2 -g "$G4B" \
		-n 20 -p "$PORT" 192.168.77.1 >"$SROCE_RESULTS/xsrq-c1.out" 2>&1 &
	c1=$!
	timeout 300 ip netns exec ns2 stdbuf -oL ibv_xsrq_pingpong -d fab2 -g "$G4B" \
		-n 20 -p "$PORT" 192.168.77.1 >"$SROCE_RESULTS/xsrq-c2.out" 2>&1 &
	c2=$!
	wait "$c1" || rc=1
	wait "$c2" || rc=1
	wait "$spid" || rc=1
	tail -n 3 "$SROCE_RESULTS"/xsrq-*.out
	return "$rc"
}

# The pingpongs are well-formed XRC: no request refused on either side.
no_xrc_errors() {
	local d
	for d in "ns1 fab1" "ns2 fab2"; do
		# shellcheck disable=SC2086 # "ns dev"
		counters $d
		# shellcheck disable=SC2086
		! counters $d | grep -Eq 'rx_xrc_bad_srq|err_naks' || return 1
	done
}

tap_plan 13
[ -x "$XRCV" ] || tap_bail "selftests/verbs not built (make tests)"
topo_sroce_pair

tap_check "xsrq_pingpong IPv4 GIDs, 4 KiB" \
	xsrq ns1 fab1 "$G4A" ns2 fab2 "$G4B" 192.168.77.1 4096
# xsrq_pingpong's server sends as soon as its own QPs are up, racing the
# client's TGT QP to RTR: packets before that are dropped, and after
# retry_cnt (7) timeouts of 67 ms the server's INI QP fails and both wait
# for ever (seen under TCG: client rx_dropped=8, server retry_exceeded=1).
# The TCP exchange resolved the IPv4 neighbours; resolve the IPv6 ones
# first, so the client's modify_qp does not wait for neighbour discovery.
xsrq6() {
	nsexec ns1 ping6 fd77::2 && nsexec ns2 ping6 fd77::1 &&
		xsrq ns1 fab1 "$G6A" ns2 fab2 "$G6B" 192.168.77.1 64
}
tap_check "xsrq_pingpong IPv6 GIDs, 64 B" xsrq6
tap_check "xsrq_pingpong loopback on fab1, 16 KiB" \
	xsrq ns1 fab1 "$G4A" ns1 fab1 "$G4A" 127.0.0.1 16384
tap_check "xsrq_pingpong, one server, two clients" xsrq_two
tap_check "no XRC request refused, no error NAK" no_xrc_errors
tap_check "xrc_verify fab1 -> fab2 (IPv4)" \
	"$XRCV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "xrc_verify fab1 -> fab2 (IPv6)" \
	"$XRCV" -d fab1 -D fab2 -g "$G6A" -G "$G6B"
tap_check "xrc_verify loopback on fab1" "$XRCV" -d fab1 -g "$G4A"
tap_done
