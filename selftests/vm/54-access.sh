#!/bin/bash
# Access rules and the unprivileged user (Documentation/security.rst, G6,
# G13, G15, G16).
#
# selftests/verbs/access_verify reaches fab2's MRs from fab1 over RC and
# UD and checks every byte around them: remote access without the right,
# through another PD's MR, through a dead rkey or past the MR; local SGEs
# with made-up lkeys, of another PD, past their MR, without LOCAL_WRITE;
# a SEND with Invalidate of a plain MR; a UD send through an AH of another
# PD.  Each is refused with its completion status and changes no byte.
# selftests/verbs/ring_verify writes the shared SQ and RQ behind
# libsroce's back: impossible WQEs and producer indexes get their error
# completion or QP_FATAL, and the device works on (G7).
# selftests/verbs/uresp_verify sends raw uverbs commands: the reserved
# fields of sroce's responses come back zero, nothing is written past
# them, and fresh rings are zero (G11).
#
# Then the same as user nobody, which is how most applications run: the
# rules hold, RC traffic works, what needs privilege is refused, and the
# QP detail others see leaves out the live sequence numbers (G2).
# Last, the rings are charged to the memory cgroup of the process that
# made them and bounded by its memory.max (G5).  The
# provider and the program are copied to /tmp first, so that a tree
# nobody cannot read (a clone under /root) does not decide the result.
# sroce-timeout: 600
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

ACV=$SROCE_TREE/selftests/verbs/access_verify
RGV=$SROCE_TREE/selftests/verbs/ring_verify
LIMITS=$SROCE_TREE/selftests/verbs/limits_verify
URESP=$SROCE_TREE/selftests/verbs/uresp_verify
U=/tmp/unpriv
PORT=19700

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# The provider where any user can load it, and libibverbs told so.
provider_public() {
	mkdir -p "$U" &&
		cp "$SROCE_PROVIDER_SO" "$U/libsroce-rdmav34.so" &&
		cp "$ACV" "$RGV" "$U/" &&
		chmod -R a+rX "$U" &&
		echo "driver $U/libsroce" >/etc/libibverbs.d/sroce.driver
}

# An unprivileged rdma link add fails, and says so.
link_add_refused() {
	! as_nobody ip netns exec ns1 rdma link add fab9 type sroce netdev v1 \
		>"$SROCE_RESULTS/linkadd.out" 2>&1 &&
		grep -qi "not permitted" "$SROCE_RESULTS/linkadd.out" &&
		! rdma link show fab9/1 >/dev/null 2>&1
}

# Nobody may change a module parameter or a device's sysfs knobs.
nothing_world_writable() {
	local w

	w=$(find /sys/module/sroce/parameters /sys/class/infiniband/fab1/ \
		/sys/class/infiniband/fab2/ -maxdepth 3 -type f -perm -o+w 2>/dev/null)
	[ -z "$w" ] || { echo "world-writable: $w"; return 1; }
}

# Any user may list the QPs, but only root sees their live PSNs and MSN
# (G2): with them a local socket could inject into the connection.
# ibv_rc_pingpong keeps its QP in RTS for its many iterations.
seq_hidden() {
	local b=$SROCE_RESULTS/seq spid cpid="" root who rc=0
	PORT=$((PORT + 1))
	in_ns ns2 ibv_rc_pingpong -d fab2 -g "$G4B" -n 1000000 -p "$PORT" \
		>"$b.server" 2>&1 &
	spid=$!
	if wait_listen ns2 "$PORT"; then
		in_ns ns1 ibv_rc_pingpong -d fab1 -g "$G4A" -n 1000000 \
			-p "$PORT" 192.168.77.2 >"$b.client" 2>&1 &
		cpid=$!
		wait_for 60 _rc_qp_up ns2 fab2 || rc=1
	else
		rc=1
	fi
	root=$(rc_qp_detail ns2 fab2)
	who=$(rc_qp_detail ns2 fab2 setpriv --reuid=nobody --regid=nogroup \
		--clear-groups)
	# in_ns runs the program under a subshell: kill the programs too.
	# Either may be gone already (tap_check runs us under set -e).
	pkill -f "ibv_rc_pingpong .*-p $PORT( |\$)" || true
	kill "$spid" ${cpid:+"$cpid"} 2>/dev/null || true
	wait
	echo "root: $root"
	echo "nobody: $who"
	[ "$rc" = 0 ] || return 1
	grep -q "drv_psn_expected [0-9]" <<<"$root" &&
		grep -q "drv_cwnd [0-9]" <<<"$who" &&
		! grep -qE "drv_(psn_[a-z]*|msn) " <<<"$who"
}

# G1: any local socket may send to port 4791; security.rst's nftables
# rule stops an unprivileged one, and sroce's own (kernel) socket passes.
# An 8-byte datagram from nobody in ns1 to fab2 is a header too short:
# fab2's rx_bad_hdr counts it when it arrives.
bad_hdr() { cat /sys/class/infiniband/fab2/ports/1/hw_counters/rx_bad_hdr; }
_bad_hdr_above() { [ "$(bad_hdr)" -gt "$1" ]; }
udp_from_nobody() {
	ip netns exec ns1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(bytes(8), ("192.168.77.2", 4791))'
}

G1_RULE='table inet sroce_g1 {
	chain out {
		type filter hook output priority 0;
		udp dport 4791 meta skuid != 0 drop;
	}
}'

local_injection() {
	local b rc=0
	b=$(bad_hdr)
	udp_from_nobody
	if ! wait_for 5 _bad_hdr_above "$b"; then
		echo "without the rule nobody's datagram did not arrive"
		return 1
	fi
	ip netns exec ns1 nft -f - <<<"$G1_RULE" || return 1
	b=$(bad_hdr)
	# The output hook's drop: sendto() fails with EPERM.
	udp_from_nobody 2>/dev/null || true
	sleep 2
	if [ "$(bad_hdr)" != "$b" ]; then
		echo "with the rule nobody's datagram arrived"
		rc=1
	fi
	# sroce's packets leave ns1 through the same hook.
	pingpong_nobody || rc=1
	ip netns exec ns1 nft delete table inet sroce_g1
	return "$rc"
}

# A memory cgroup of our own (cgroup v2; the VM's init mounts none).
CG=/sys/fs/cgroup
memcg_setup() {
	grep -q "^cgroup2 $CG " /proc/mounts || mount -t cgroup2 none "$CG" ||
		return 1
	echo +memory >"$CG/cgroup.subtree_control" &&
		mkdir -p "$CG/sroce54"
}

# Rings are charged to their process's memory cgroup and bounded by its
# memory.max (G5): limits_verify joins the cgroup and tries.  Not under
# ip netns exec, whose fresh /sys has no cgroup mount; fab1 is visible
# from here (shared mode).
memcg_rings() {
	"$LIMITS" -d fab1 memcg "$CG/sroce54" \
		>"$SROCE_RESULTS/memcg.tap" 2>&1
	tap_replay "$SROCE_RESULTS/memcg.tap" 8 "memcg: "
}

pingpong_nobody() {
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ibv_rc_pingpong -d fab1 -g "$G4A" -s 4096 -n 200 -p "$PORT" --chk -- \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ibv_rc_pingpong -d fab2 -g "$G4B" -s 4096 -n 200 -p "$PORT" --chk \
		192.168.77.1
}

tap_plan 39
topo_sroce_pair

tap_check "access_verify fab1 -> fab2, IPv4" "$ACV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "access_verify fab1 -> fab2, IPv6" "$ACV" -d fab1 -D fab2 -g "$G6A" -G "$G6B"
tap_check "ring_verify fab1 -> fab2" "$RGV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
"$URESP" fab1 >"$SROCE_RESULTS/uresp.tap" 2>&1
tap_replay "$SROCE_RESULTS/uresp.tap" 13 "uverbs responses: "
tap_require "provider and test programs in $U, readable by all" provider_public
tap_check "as nobody: access_verify, IPv4" \
	as_nobody "$U/access_verify" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "as nobody: ring_verify" \
	as_nobody "$U/ring_verify" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "as nobody: ibv_rc_pingpong --chk fab1<->fab2" pingpong_nobody
tap_check "as nobody: rdma link add is refused" link_add_refused
tap_check "as nobody: rdma resource -dd without live PSNs" seq_hidden
tap_check "as nobody: a UDP datagram to 4791 arrives; the nftables rule of security.rst stops it, and sroce traffic passes it (G1)" \
	local_injection
tap_check "no sroce module parameter or device file is world-writable" \
	nothing_world_writable
tap_require "a memory cgroup" memcg_setup
memcg_rings
tap_check "no kernel warnings" sh -c '! dmesg | grep -E "WARNING|BUG:|refcount"'
tap_done
