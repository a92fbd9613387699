# shellcheck shell=bash
# Interop with rdma_rxe across two VMs (issue 5): sourced by the
# selftests/vm/*-rxe-interop*.twovm.sh tests after lib.sh.
#
# VM A runs sroce (fab0 on eth0), VM B rdma_rxe (rxe0 on eth0); never both
# in one VM: rxe binds UDP 4791 in init_net.  Both VMs run the same script
# and walk the same case list in the same order; each case runs twice, with
# sroce as the server and with sroce as the client.  For case N the server
# VM starts its side, waits until it listens (TCP for perftest's side
# channel and ibv_rc_pingpong, an RDMA CM listener for rdma_cm tools), and
# signals "cN-ready"; the client VM waits for that, runs, and signals
# "cN-done"; a barrier "cN-end" closes the case.  A server that never gets
# ready signals "cN-noready" so its client does not wait out the timeout; a
# server still running well after its client has finished is killed.  Each
# VM reports its own side as a TAP line.
#
# VM A also captures everything on UDP 4791 with dumpcap and, at the end,
# runs tshark's InfiniBand dissector and selftests/tools/roce_check.py (an
# ICRC, UDP checksum and BTH checker written apart from the module) over it.

IOP_DEV=
IOP_PORT=19100
IOP_N=0
IOP_CAP=/tmp/interop.pcap
IOP_PMTU=1024

iop_peer_vm() { [ "$SROCE_VM" = A ] && echo B || echo A; }

# iop_gid DEV ADDR: the RoCE v2 GID index of ADDR on DEV.  rxe lists every
# address twice, as RoCE v1 and as v2, so the type must be looked at.
iop_gid() {
	local dev=$1 addr=$2 want
	want=$(python3 -c 'import ipaddress,sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.IPv6Address("::ffff:" + str(a))
h = a.exploded.replace(":", "")
print(":".join(h[i:i + 4] for i in range(0, 32, 4)))' "$addr")
	# shellcheck disable=SC2016 # expanded by sh
	sh -c 'cd "$1" && for g in $(grep -lx "$2" gids/* 2>/dev/null); do
		i=${g#gids/}
		grep -qx "RoCE v2" "gid_attrs/types/$i" 2>/dev/null && echo "$i"
	done' sh "/sys/class/infiniband/$dev/ports/1" "$want" | sort -n | head -n1 | grep .
}

# iop_setup MTU: this VM's side: link, addresses, RDMA device, then a
# barrier and a ping both ways so neighbour entries exist before the
# first case.  Sets IOP_DEV, G4, G6 (local GID indexes).
iop_setup() {
	local mtu=$1 pmtu
	pmtu=$([ "$mtu" -ge 4200 ] && echo 4096 || echo 1024)
	if [ "$SROCE_VM" = A ]; then
		IOP_DEV=fab0
		tap_require "VM A: load sroce" sroce_load
		tap_require "VM A: provider" sroce_provider_setup
	else
		IOP_DEV=rxe0
		tap_require "VM B: load rdma_rxe" modprobe -a rdma_rxe rdma_ucm
		tap_check "VM B: no sroce here (rdma_rxe owns UDP 4791)" \
			_iop_no_sroce
	fi
	tap_require "VM $SROCE_VM: eth0 up, MTU $mtu" iop_link "$mtu"
	if [ "$SROCE_VM" = A ]; then
		tap_require "VM A: fab0 (sroce) on eth0" rdma link add fab0 type sroce netdev eth0
	else
		tap_require "VM B: rxe0 (rdma_rxe) on eth0" rdma link add rxe0 type rxe netdev eth0
	fi
	tap_require "VM $SROCE_VM: RoCE v2 GIDs and active MTU $pmtu" \
		wait_for 30 iop_ready "$pmtu"
	G4=$(iop_gid "$IOP_DEV" "$(iop_ip4 "$SROCE_VM")")
	G6=$(iop_gid "$IOP_DEV" "$(iop_ip6 "$SROCE_VM")")
	tap_diag "$IOP_DEV: RoCE v2 GID index $G4 (IPv4), $G6 (IPv6)"
	sync_signal "setup-$SROCE_VM"
	tap_require "VM $SROCE_VM: peer is set up" sync_wait "setup-$(iop_peer_vm)" 300
	tap_require "VM $SROCE_VM: ping peer, IPv4 and IPv6" iop_ping
	IOP_PMTU=$pmtu
}

_iop_no_sroce() { ! grep -q '^sroce ' /proc/modules; }

iop_link() {
	topo_twovm && ip link set eth0 mtu "$1"
}

iop_ready() {
	iop_gid "$IOP_DEV" "$(iop_ip4 "$SROCE_VM")" &&
		iop_gid "$IOP_DEV" "$(iop_ip6 "$SROCE_VM")" &&
		ibv_devinfo -d "$IOP_DEV" | grep -q "active_mtu:.*$1"
}

iop_ping() { ping4 "$(peer_ip4)" && ping6 "$(peer_ip6)"; }

iop_ip4() { [ "$1" = A ] && echo 192.168.78.1 || echo 192.168.78.2; }
iop_ip6() { [ "$1" = A ] && echo fd78::1 || echo fd78::2; }

# ------------------------------------------------------------ cases ----

# Readiness: TCP listener on PORT, or an RDMA CM listener on PORT.
_iop_tcp_listening() { ss -Hltn "sport = :$1" | grep -q .; }

# _iop_server LOG READY_FN PORT CMD...: start the server, wait until it
# listens, signal; then wait for it (killed if the client has been done
# for 30 s), and return its status.
_iop_server() {
	local log=$1 ready=$2 port=$3 spid rc=0 grace=
	shift 3
	timeout 600 "$@" >"$log" 2>&1 &
	spid=$!
	if ! wait_for 60 "$ready" "$port"; then
		sync_signal "c$IOP_N-noready"
		kill "$spid" 2>/dev/null || true
		wait "$spid" || true
		echo "server never listened on $port:"
		cat "$log"
		return 1
	fi
	sync_signal "c$IOP_N-ready"
	# A client that failed leaves its server waiting for nothing: 5 s
	# grace then, 30 s after a success (the server may have more to do).
	while kill -0 "$spid" 2>/dev/null; do
		if [ -z "$grace" ] && [ -e "$SROCE_SYNC/c$IOP_N-failed" ]; then
			grace=$((SECONDS + 5))
		elif [ -z "$grace" ] && [ -e "$SROCE_SYNC/c$IOP_N-done" ]; then
			grace=$((SECONDS + 30))
		fi
		if [ -n "$grace" ] && [ $SECONDS -gt "$grace" ]; then
			echo "server still running after the client finished: killed"
			kill "$spid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	wait "$spid" || rc=$?
	echo "--- server (exit $rc):"
	cat "$log"
	return "$rc"
}

_iop_server_up() {
	[ -e "$SROCE_SYNC/c$IOP_N-ready" ] || [ -e "$SROCE_SYNC/c$IOP_N-noready" ]
}

# _iop_client LOG CMD...: wait for the server, run, signal done.
_iop_client() {
	local log=$1 rc=0
	shift
	if ! wait_for 180 _iop_server_up || [ -e "$SROCE_SYNC/c$IOP_N-noready" ]; then
		sync_signal "c$IOP_N-done"
		echo "the server in VM $(iop_peer_vm) did not get ready"
		return 1
	fi
	timeout 600 "$@" >"$log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || sync_signal "c$IOP_N-failed"
	sync_signal "c$IOP_N-done"
	echo "--- client (exit $rc):"
	cat "$log"
	return "$rc"
}

# _iop_run SERVER_VM FAMILY KIND ARGS...: one case, this VM's side.
#   KIND perf TOOL ARGS...	perftest, -x GID and the TCP side channel
#				(always IPv4: perftest 4.5 has no IPv6 there)
#   KIND perfcm TOOL ARGS...	perftest -R (rdma_cm), to the server's
#				address of FAMILY
#   KIND pingpong SIZE ITERS	ibv_rc_pingpong --chk at the path MTU
#   KIND rping COUNT		rping -V, to the server's FAMILY address
#   KIND ucmatose COUNT SIZE	ucmatose (rdma_cm RC sends), likewise
#
# perftest's QP timeout is raised from 14 (67 ms) to 18 (1.07 s): under
# TCG on a loaded host a VM stalls for a second now and then (measured:
# rxe's ACKs held back 1.1 s, all eight tries of a 67 ms timeout gone).
_iop_run() {
	local server=$1 fam=$2 kind=$3 port=$IOP_PORT gid saddr log tool
	local -a cmd=()
	shift 3
	gid=$([ "$fam" = 6 ] && echo "$G6" || echo "$G4")
	if [ "$fam" = 6 ]; then
		saddr=$(iop_ip6 "$server")
	else
		saddr=$(iop_ip4 "$server")
	fi
	case $kind in
	perf)
		tool=$1
		shift
		cmd=("$tool" -d "$IOP_DEV" -x "$gid" -F -u 18 -p "$port" "$@") ;;
	perfcm)
		tool=$1
		shift
		cmd=("$tool" -d "$IOP_DEV" -R -F -u 18 -p "$port" "$@") ;;
	pingpong)
		cmd=(ibv_rc_pingpong -d "$IOP_DEV" -g "$gid" -p "$port"
			-s "$1" -n "$2" -m "$IOP_PMTU" --chk) ;;
	rping)
		cmd=(rping -a "$saddr" -p "$port" -C "$1" -V) ;;
	ucmatose)
		cmd=(ucmatose -p "$port" -C "$1" -S "$2" -f "ipv$fam")
		[ "$fam" = 6 ] || cmd=(ucmatose -p "$port" -C "$1" -S "$2") ;;
	*)
		echo "unknown case kind $kind"
		return 1 ;;
	esac
	log=$SROCE_RESULTS/case-$IOP_N-$SROCE_VM.log
	kmsg "case $IOP_N: $kind $* (server VM $server)"
	if [ "$server" = "$SROCE_VM" ]; then
		case $kind in
		rping) _iop_server "$log" cm_listening "$port" "${cmd[@]}" -s ;;
		ucmatose) _iop_server "$log" cm_listening "$port" "${cmd[@]}" -b "$saddr" ;;
		perfcm) _iop_server "$log" cm_listening "$port" "${cmd[@]}" ;;
		*) _iop_server "$log" _iop_tcp_listening "$port" "${cmd[@]}" ;;
		esac
	else
		case $kind in
		rping) _iop_client "$log" "${cmd[@]}" -c ;;
		ucmatose) _iop_client "$log" "${cmd[@]}" -s "$saddr" ;;
		perf|pingpong) _iop_client "$log" "${cmd[@]}" "$(iop_ip4 "$server")" ;;
		perfcm) _iop_client "$log" "${cmd[@]}" "$saddr" ;;
		esac
	fi
}

# iop_case FAMILY DESC KIND ARGS...: the case both ways, sroce (VM A) as
# server then as client; two TAP lines per VM.
iop_case() {
	local fam=$1 desc=$2 server role t0
	shift 2
	for server in A B; do
		IOP_N=$((IOP_N + 1))
		IOP_PORT=$((IOP_PORT + 1))
		role=$([ "$server" = A ] && echo server || echo client)
		t0=$SECONDS
		tap_check "VM $SROCE_VM: $desc, IPv$fam, sroce $role (case $IOP_N)" \
			_iop_run "$server" "$fam" "$@"
		tap_diag "case $IOP_N took $((SECONDS - t0)) s"
		sync_barrier "c$IOP_N-end" 300 || true
	done
}

# The number of TAP lines iop_case adds per call, and iop_setup's.
# shellcheck disable=SC2034 # used by the tests
IOP_CASE_TAPS=2
# shellcheck disable=SC2034
IOP_SETUP_TAPS=7

# iop_matrix FAMILY: the whole matrix of issue 5 over IPv4 or IPv6 GIDs,
# IOP_MATRIX_CASES calls of iop_case.  Small counts: TCG is slow, and
# what matters here is that the two ends agree, not how fast.
# shellcheck disable=SC2034
IOP_MATRIX_CASES=12
iop_matrix() {
	local f=$1
	iop_case "$f" "ib_write_bw" perf ib_write_bw -n 200 -s 16384
	iop_case "$f" "ib_read_bw" perf ib_read_bw -n 200 -s 16384
	iop_case "$f" "ib_send_bw" perf ib_send_bw -n 200 -s 16384
	iop_case "$f" "ib_atomic_bw" perf ib_atomic_bw -n 200
	# Both ends busy-poll, two VMs on two shared cores: a round trip
	# takes tens of ms under TCG, hence few iterations.
	iop_case "$f" "ib_send_lat" perf ib_send_lat -n 200
	iop_case "$f" "ib_write_lat" perf ib_write_lat -n 200
	iop_case "$f" "ib_read_lat" perf ib_read_lat -n 200
	# UD and UC drop what finds no receive posted: run for a duration,
	# not for a count the receiver might never reach.
	iop_case "$f" "ib_send_bw -c UD" perf ib_send_bw -c UD -D 1
	iop_case "$f" "ib_send_bw -c UC" perf ib_send_bw -c UC -D 1 -s 16384
	# perftest 4.5's rdma_cm client resolves IPv4 only ("Address family
	# for hostname not supported" for an IPv6 server): over IPv6, rdma_cm
	# data transfer is ucmatose's (and rping's, below).
	if [ "$f" = 4 ]; then
		iop_case "$f" "ib_write_bw -R (rdma_cm)" perfcm ib_write_bw -n 200 -s 16384
	else
		iop_case "$f" "ucmatose (rdma_cm)" ucmatose 20 16384
	fi
	iop_case "$f" "ibv_rc_pingpong --chk 1 MiB" pingpong 1048576 5
	iop_case "$f" "rping -V" rping 20
}

# ----------------------------------------------------------- capture ----

# iop_capture_start: VM A records UDP 4791 on eth0 (capture_start).
iop_capture_start() {
	[ "$SROCE_VM" = A ] || return 0
	capture_start "" eth0 "$IOP_CAP"
}

# iop_capture_stop: capture_stop, then keep a copy.
iop_capture_stop() {
	capture_stop "$IOP_CAP" || return 1
	# Kept for a look with wireshark when the checks fail.
	gzip -1 -c "$IOP_CAP" >"$SROCE_RESULTS/interop.pcap.gz" || true
	test -s "$IOP_CAP"
}

# Heuristic dissectors of InfiniBand payloads and CM private data
# (Ethernet over IB, RPC-over-RDMA, SMB Direct, ...) mistake perftest's
# buffers for their protocols and flag them malformed (measured: perftest
# WRITE_ONLY payloads as EoIB); the check is about the InfiniBand/RoCE
# headers.  Short names as tshark 4.0 knows them.
_IOP_TSHARK_OFF="eth_over_ib mellanox_eoib fc_infiniband iser_infiniband lnet_ib
rpcrdma_infiniband sdp_infiniband smb_direct_infiniband smcr_infiniband nvme_rdma
iser_ib_private lnet_ib_cm_private sdp_ib_private nvme_rdma_cm_private"

# iop_tshark: every frame of the capture through tshark's InfiniBand
# dissector (its default for UDP 4791): none malformed, none with an
# unknown opcode, and none of sroce's with a bad or zero UDP checksum
# (rxe's zero IPv6 checksums are expected and counted).
iop_tshark() {
	local p out=/tmp/tshark.tsv
	local -a off=()
	for p in $_IOP_TSHARK_OFF; do off+=(--disable-heuristic "$p"); done
	tshark -n -r "$IOP_CAP" "${off[@]}" -o udp.check_checksum:TRUE \
		-T fields -E occurrence=a -E separator='|' \
		-e frame.number -e ip.src -e ipv6.src -e infiniband.bth.opcode \
		-e _ws.malformed -e _ws.expert.message -e _ws.col.Info \
		>"$out" 2>/tmp/tshark.err || { cat /tmp/tshark.err; return 1; }
	cp "$out" "$SROCE_RESULTS/tshark.tsv"
	awk -F'|' -v a4="$(iop_ip4 A)" -v a6="$(iop_ip6 A)" '
		{ n++; mine = ($2 == a4 || $3 == a6) }
		$4 == "" { noib++; print "not dissected as InfiniBand: " $0; next }
		$5 != "" || $6 ~ /Malformed/ { bad++; print "malformed: " $0 }
		$7 ~ /Unknown OpCode/ { bad++; print "unknown opcode: " $0 }
		$6 ~ /[Cc]hecksum/ && mine { bad++; print "sroce checksum: " $0 }
		$6 ~ /Illegal checksum value/ && !mine { zero++ }
		mine { ours++ }
		END {
			printf "tshark: %d frames, %d from sroce, %d flagged, %d not InfiniBand, %d peer zero-checksum warnings\n",
				n, ours, bad, noib, zero
			exit !(n > 0 && ours > 0 && bad == 0 && noib == 0)
		}' "$out"
}

# iop_icrc [ARGS...]: the independent ICRC/BTH/UDP checker over the capture.
iop_icrc() {
	python3 "$SROCE_TREE/selftests/tools/roce_check.py" \
		--ours "$(iop_ip4 A)" --ours "$(iop_ip6 A)" --pmtu "$IOP_PMTU" \
		"$@" "$IOP_CAP"
}

# iop_finish CHECKS...: A stops the capture and checks it (3 TAP lines);
# both meet at a last barrier so neither powers off under the other.
# shellcheck disable=SC2034
IOP_FINISH_TAPS_A=3
# shellcheck disable=SC2120 # the checker's options are optional
iop_finish() {
	if [ "$SROCE_VM" = A ]; then
		tap_check "VM A: capture of sroce<->rxe traffic" iop_capture_stop
		tap_check "VM A: tshark InfiniBand dissector: no malformed or unknown-opcode packets" iop_tshark
		tap_check "VM A: ICRC, UDP checksum and BTH fields of every packet" iop_icrc "$@"
		tap_diag_file "$SROCE_RESULTS/tap-$((_TAP_N - 1)).log" | tail -n 3
		tap_diag_file "$SROCE_RESULTS/tap-$_TAP_N.log" | head -n 40
		counters "" fab0 | tap_diag_file
	fi
	sync_barrier finished 600 || true
}
