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
#
# Then the same as user nobody, which is how most applications run: the
# rules hold, RC traffic works, and what needs privilege is refused.  The
# provider and the program are copied to /tmp first, so that a tree
# nobody cannot read (a clone under /root) does not decide the result.
# sroce-timeout: 600
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

ACV=$SROCE_TREE/selftests/verbs/access_verify
RGV=$SROCE_TREE/selftests/verbs/ring_verify
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

pingpong_nobody() {
	PORT=$((PORT + 1))
	run_pair ns1 ns2 "$PORT" -- \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ibv_rc_pingpong -d fab1 -g "$G4A" -s 4096 -n 200 -p "$PORT" --chk -- \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ibv_rc_pingpong -d fab2 -g "$G4B" -s 4096 -n 200 -p "$PORT" --chk \
		192.168.77.1
}

tap_plan 15
topo_sroce_pair

tap_check "access_verify fab1 -> fab2, IPv4" "$ACV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "access_verify fab1 -> fab2, IPv6" "$ACV" -d fab1 -D fab2 -g "$G6A" -G "$G6B"
tap_check "ring_verify fab1 -> fab2" "$RGV" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_require "provider and test programs in $U, readable by all" provider_public
tap_check "as nobody: access_verify, IPv4" \
	as_nobody "$U/access_verify" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "as nobody: ring_verify" \
	as_nobody "$U/ring_verify" -d fab1 -D fab2 -g "$G4A" -G "$G4B"
tap_check "as nobody: ibv_rc_pingpong --chk fab1<->fab2" pingpong_nobody
tap_check "as nobody: rdma link add is refused" link_add_refused
tap_check "no sroce module parameter or device file is world-writable" \
	nothing_world_writable
tap_check "no kernel warnings" sh -c '! dmesg | grep -E "WARNING|BUG:|refcount"'
tap_done
