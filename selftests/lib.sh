# shellcheck shell=bash
# Helpers for sroce VM tests; source it from a test script:
#
#   . "$SROCE_TREE/selftests/lib.sh"
#
# Tests run inside a VM started by tools/qemu/run-test with cwd = repo root
# and SROCE_TREE, KVER, SROCE_VM (A/B), SROCE_RESULTS (this VM's writable
# output dir), SROCE_SHARED (results share seen by both VMs) and SROCE_SYNC
# set. Most helpers also work on the host for debugging, but need root.

: "${SROCE_TREE:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${KVER:=$(uname -r)}"
: "${SROCE_VM:=A}"
: "${SROCE_RESULTS:=${TMPDIR:-/tmp}}"
: "${SROCE_SHARED:=$SROCE_RESULTS}"
: "${SROCE_SYNC:=$SROCE_SHARED/sync}"
export SROCE_TREE KVER SROCE_VM SROCE_RESULTS SROCE_SHARED SROCE_SYNC

# SROCE_KO may be overridden from the host environment (run-test passes it).
# SROCE_KO_TREE is where `make module` built the kernel modules (sroce.ko
# and selftests/kmod): this tree, or a copy built for another kernel (the
# debug kernel: tools/debug-kernel).
: "${SROCE_KO_TREE:=$SROCE_TREE}"
: "${SROCE_KO:=$SROCE_KO_TREE/drivers/infiniband/sw/sroce/sroce.ko}"
export SROCE_KO_TREE

# True under the debug kernel (tools/debug-kernel: KASAN, lockdep), whose
# release ends in "-debug"; tests that move much data scale down there.
debug_kernel() {
	case $(uname -r) in *-debug) return 0 ;; esac
	return 1
}
SROCE_PROVIDER=$SROCE_TREE/tools/lib/sroce/libsroce
SROCE_PROVIDER_SO=$SROCE_PROVIDER-rdmav34.so

# ---------------------------------------------------------------- TAP ----

_TAP_N=0
_TAP_FAILED=0
_TAP_PLANNED=
TAP_RC=0

tap_plan() {
	_TAP_PLANNED=$1
	echo "1..$1"
}

# Whole test skipped (e.g. module not built). Counts as one skip.
tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

tap_diag() {
	local line
	for line in "$@"; do
		echo "# $line"
	done
}

# Print a file (or stdin) as TAP diagnostics, at most 60 lines of it.
tap_diag_file() {
	sed -n '1,60s/^/# /p' "${1:-/dev/stdin}"
}

tap_ok() {
	_TAP_N=$((_TAP_N + 1))
	echo "ok $_TAP_N - $*"
}

# tap_fail DESC [DIAG...]
tap_fail() {
	_TAP_N=$((_TAP_N + 1))
	_TAP_FAILED=$((_TAP_FAILED + 1))
	echo "not ok $_TAP_N - $1"
	shift
	[ $# -eq 0 ] || tap_diag "$@"
}

# tap_skip DESC [REASON]
tap_skip() {
	_TAP_N=$((_TAP_N + 1))
	echo "ok $_TAP_N - $1 # SKIP ${2:-}"
}

# tap_check DESC CMD [ARGS...]: one test point from a command's status.
#
# CMD runs in a subshell with errexit on, so a shell function made of
# several steps fails at its first failing step (a plain `f || ...` would
# silently ignore -e inside f). The flip side: variables it sets do not
# reach the caller. Output goes to SROCE_RESULTS/tap-N.log and is shown as
# diagnostics only on failure. Always returns 0 so a test goes on after a
# failure; the status is in TAP_RC. Use tap_require to stop instead.
tap_check() {
	local desc=$1 log
	shift
	log=$SROCE_RESULTS/tap-$((_TAP_N + 1)).log
	(set -e; "$@") >"$log" 2>&1 </dev/null &
	TAP_RC=0
	wait $! || TAP_RC=$?
	if [ $TAP_RC = 0 ]; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "command: $* (exit $TAP_RC)"
		tap_diag_file "$log"
	fi
}

# tap_todo REASON DESC CMD [ARGS...]: a check of a known open problem.  It
# runs like tap_check, but its line carries "# TODO REASON", so a failure
# is reported (the runner counts it as skipped) without failing the suite.
# Remove the TODO when the problem is fixed.
tap_todo() {
	local reason=$1 desc=$2 log
	shift 2
	log=$SROCE_RESULTS/tap-$((_TAP_N + 1)).log
	(set -e; "$@") >"$log" 2>&1 </dev/null &
	TAP_RC=0
	wait $! || TAP_RC=$?
	_TAP_N=$((_TAP_N + 1))
	if [ $TAP_RC = 0 ]; then
		echo "ok $_TAP_N - $desc # TODO $reason"
	else
		echo "not ok $_TAP_N - $desc # TODO $reason"
		tap_diag_file "$log"
	fi
}

# tap_require DESC CMD [ARGS...]: tap_check, but bail out on failure, for
# steps the rest of the test cannot do without.
tap_require() {
	tap_check "$@"
	[ $TAP_RC = 0 ] || tap_bail "required step failed: $1"
}

# Like tap_check but passes when the command fails.
tap_check_fail() {
	local desc=$1
	shift
	tap_check "$desc" _tap_not "$@"
}

_tap_not() {
	(set -e; "$@") &
	if wait $!; then return 1; fi
}

# Close the test: trailing plan if none was given, exit status.
tap_done() {
	if [ -z "$_TAP_PLANNED" ]; then
		echo "1..$_TAP_N"
	elif [ "$_TAP_PLANNED" != "$_TAP_N" ]; then
		tap_diag "planned $_TAP_PLANNED tests but ran $_TAP_N"
		exit 1
	fi
	[ $_TAP_FAILED = 0 ] || exit 1
	exit 0
}

# tap_replay FILE PLAN [PREFIX]: a TAP-speaking program's verdicts (its
# output in FILE) as our test points, PREFIX before each description; a
# verdict short of its PLAN fails, so a crash half way cannot pass.
tap_replay() {
	local line n=0
	while IFS= read -r line; do
		case $line in
		"ok "*) tap_ok "${3:-}${line#ok * - }"; n=$((n + 1)) ;;
		"not ok "*) tap_fail "${3:-}${line#not ok * - }"; n=$((n + 1)) ;;
		"#"*) echo "$line" ;;
		"Bail out!"*) echo "# $line" ;;
		esac
	done <"$1"
	while [ $n -lt "$2" ]; do
		n=$((n + 1))
		tap_fail "${3:-}verdict $n of $2 missing"
	done
}

# Abort the whole test; the runner counts it as a failure.
tap_bail() {
	echo "Bail out! $*"
	exit 1
}

# ------------------------------------------------------------- utils ----

# wait_for TIMEOUT_S CMD [ARGS...]: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

# Mark a point in the kernel log, handy to line up dmesg with a test step.
kmsg() {
	echo "sroce-test: $*" >/dev/kmsg 2>/dev/null || true
}

# ping wrappers: iputils if present, busybox otherwise (both can ping v6).
_ping() {
	if command -v ping >/dev/null; then
		ping "$@"
	else
		busybox ping "$@"
	fi
}

ping4() { _ping -4 -c 1 -W 2 "$@"; }
ping6() { _ping -6 -c 1 -W 2 "$@"; }

# nsexec NS CMD...: run in a network namespace. CMD may be a function
# from this file (ping4, ...): it is then run by a bash that sources us.
nsexec() {
	local ns=$1
	shift
	if [ "$(type -t "$1")" = function ]; then
		# shellcheck disable=SC2016 # expanded by the inner bash
		ip netns exec "$ns" bash -c '. "$SROCE_TREE/selftests/lib.sh"; "$@"' nsexec "$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# ----------------------------------------------------- module/provider ----

# sroce_install_modules KO...: copy modules into /lib/modules/$KVER/updates
# and refresh the module indexes, so modprobe and kernel autoload
# (request_module) find them. The root is a tmpfs overlay: the host's
# /lib/modules is never touched.
#
# A real `depmod -a` in a TCG guest takes minutes (it reads every module
# over 9p), so run-test precomputes its result on the host for the tree's
# sroce.ko (tools/qemu/mkdepmod, passed as SROCE_DEPMOD). It is used only
# when its manifest matches exactly what was installed; otherwise we fall
# back to the slow depmod.
sroce_install_modules() {
	local ko dir=/lib/modules/$KVER
	mkdir -p "$dir/updates"
	for ko in "$@"; do
		cp "$ko" "$dir/updates/"
	done
	if _depmod_prepared "$@"; then
		cp "$SROCE_DEPMOD"/modules.* "$dir/"
	else
		echo "sroce_install_modules: no matching precomputed depmod, running depmod -a (slow)" >&2
		depmod -a "$KVER"
	fi
}

_depmod_prepared() {
	local ko
	[ -n "${SROCE_DEPMOD:-}" ] && [ -f "$SROCE_DEPMOD/manifest" ] || return 1
	for ko in "$@"; do
		grep -q " updates/$(basename "$ko")\$" "$SROCE_DEPMOD/manifest" || return 1
	done
	(cd "/lib/modules/$KVER" && sha256sum --status -c "$SROCE_DEPMOD/manifest")
}

# Load the RDMA core stack, then install the tree's sroce.ko so that
# `rdma link add NAME type sroce netdev DEV` autoloads it through
# request_module("rdma-link-sroce"). Does not load sroce itself.
sroce_load() {
	# All are modules (or built in) in Debian's 6.1; one exec for all.
	modprobe -a ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel || return 1
	if [ ! -f "$SROCE_KO" ]; then
		echo "sroce_load: $SROCE_KO not built" >&2
		return 1
	fi
	sroce_install_modules "$SROCE_KO"
}

# sroce_unload [LINK...]: delete the given links, then unload the module
# (its exit unregisters any device left). rdma(8) does not show a link's
# type, so the caller names its links.
sroce_unload() {
	local dev
	for dev in "$@"; do
		rdma link delete "$dev" || true
	done
	if grep -q '^sroce ' /proc/modules; then
		rmmod sroce
	fi
}

# Point libibverbs at the tree's provider. libibverbs 44 accepts an
# absolute path in a .driver file and appends "-rdmav34.so" itself.
sroce_provider_setup() {
	if [ ! -f "$SROCE_PROVIDER_SO" ]; then
		echo "sroce_provider_setup: $SROCE_PROVIDER_SO not built" >&2
		return 1
	fi
	mkdir -p /etc/libibverbs.d
	echo "driver $SROCE_PROVIDER" >/etc/libibverbs.d/sroce.driver
}

# ----------------------------------------------------------- topology ----

# True once DEV (in netns NS, if given) is operationally up: only then has
# linkwatch attached its real qdisc; before, packets are dropped. Addresses
# are added with nodad, so they are usable at once.
_link_ready() {
	case $(ip ${1:+-n "$1"} -o link show dev "$2") in
	*"state UP"*) return 0 ;;
	esac
	return 1
}

# Two namespaces joined by a veth pair:
#   ns1: v1 192.168.77.1/24 fd77::1/64  <->  ns2: v2 192.168.77.2/24 fd77::2/64
topo_veth() {
	topo_cleanup
	modprobe veth
	# ip -batch: each exec costs ~0.3 s under TCG, so one per namespace.
	ip -b - <<-EOF
		netns add ns1
		netns add ns2
		link add v1 mtu 1500 netns ns1 type veth peer name v2 mtu 1500 netns ns2
	EOF
	ip -n ns1 -b - <<-EOF
		link set lo up
		addr add 192.168.77.1/24 dev v1
		addr add fd77::1/64 dev v1 nodad
		link set v1 up
	EOF
	ip -n ns2 -b - <<-EOF
		link set lo up
		addr add 192.168.77.2/24 dev v2
		addr add fd77::2/64 dev v2 nodad
		link set v2 up
	EOF
	wait_for 10 _link_ready ns1 v1 && wait_for 10 _link_ready ns2 v2
}

topo_cleanup() {
	ip netns del ns1 2>/dev/null || true
	ip netns del ns2 2>/dev/null || true
}

# Two-VM link on eth0: VM A 192.168.78.1 fd78::1, VM B .2 / ::2.
topo_twovm() {
	local n
	case $SROCE_VM in
	A) n=1 ;;
	B) n=2 ;;
	*) echo "topo_twovm: SROCE_VM must be A or B" >&2; return 1 ;;
	esac
	ip -b - <<-EOF
		link set eth0 mtu 1500 up
		addr add 192.168.78.$n/24 dev eth0
		addr add fd78::$n/64 dev eth0 nodad
	EOF
	wait_for 10 _link_ready "" eth0
}

# Address of the other VM.
peer_ip4() { [ "$SROCE_VM" = A ] && echo 192.168.78.2 || echo 192.168.78.1; }
peer_ip6() { [ "$SROCE_VM" = A ] && echo fd78::2 || echo fd78::1; }

# ------------------------------------------------------- two-VM sync ----
# Both VMs mount the same results share uncached, so a marker file made by
# one is seen by the other on its next lookup. Names are free-form; use a
# distinct name per step (e.g. "A-server-ready").

sync_signal() {
	mkdir -p "$SROCE_SYNC"
	echo "$SROCE_VM" >"$SROCE_SYNC/$1.tmp.$SROCE_VM"
	mv "$SROCE_SYNC/$1.tmp.$SROCE_VM" "$SROCE_SYNC/$1"
}

# sync_wait NAME [TIMEOUT_S=120]
sync_wait() {
	if ! wait_for "${2:-120}" test -e "$SROCE_SYNC/$1"; then
		echo "sync_wait: timed out waiting for '$1'" >&2
		return 1
	fi
}

# Both VMs call sync_barrier NAME; returns once both have reached it.
sync_barrier() {
	sync_signal "$1.$SROCE_VM"
	sync_wait "$1.A" "${2:-120}" && sync_wait "$1.B" "${2:-120}"
}

# ------------------------------------------------------------ traffic ----

# gid_index NS DEV ADDR: the RoCE v2 GID index of IP address ADDR on DEV,
# as seen from namespace NS.
gid_index() {
	local ns=$1 dev=$2 addr=$3 want i
	want=$(python3 -c 'import ipaddress,sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.IPv6Address("::ffff:" + str(a))
h = a.exploded.replace(":", "")
print(":".join(h[i:i + 4] for i in range(0, 32, 4)))' "$addr")
	# One process in the namespace, not one per GID: under the debug
	# kernel each `ip netns exec` costs seconds.
	i=$(in_ns "$ns" sh -c 'cd "$1" && grep -lx "$2" * 2>/dev/null' sh \
		"/sys/class/infiniband/$dev/ports/1/gids" "$want" | sort -n | head -n1)
	if [ -n "$i" ]; then
		echo "$i"
		return 0
	fi
	echo "gid_index: no GID for $addr on $dev" >&2
	return 1
}

# topo_sroce_pair: the usual two-device setup, as five TAP points: sroce
# and the provider loaded, ns1 and ns2 over veth (topo_veth), fab1 on v1
# in ns1 and fab2 on v2 in ns2.  Sets G4A, G4B, G6A and G6B, the GID
# indexes of their IPv4 and IPv6 addresses.
topo_sroce_pair() {
	tap_require "load sroce" sroce_load
	tap_require "provider" sroce_provider_setup
	tap_require "veth topology" topo_veth
	tap_require "fab1 on v1" ip netns exec ns1 rdma link add fab1 type sroce netdev v1
	tap_require "fab2 on v2" ip netns exec ns2 rdma link add fab2 type sroce netdev v2
	wait_for 10 gid_index ns1 fab1 fd77::1 >/dev/null
	wait_for 10 gid_index ns2 fab2 fd77::2 >/dev/null
	# shellcheck disable=SC2034 # for the test that sourced us
	G4A=$(gid_index ns1 fab1 192.168.77.1)
	# shellcheck disable=SC2034
	G4B=$(gid_index ns2 fab2 192.168.77.2)
	# shellcheck disable=SC2034
	G6A=$(gid_index ns1 fab1 fd77::1)
	# shellcheck disable=SC2034
	G6B=$(gid_index ns2 fab2 fd77::2)
}

# counters NS DEV: DEV's non-zero counters on one line, for diagnostics.
counters() {
	echo "$2: $(in_ns "$1" rdma statistic show link "$2/1" |
		tr -s ' ' '\n' | paste - - | awk '$2 ~ /^[0-9]+$/ && $2 != 0' |
		tr '\t\n' '= ')"
}

# counter NS DEV NAME: DEV's counter NAME, seen from namespace NS ("" for
# this one); rdma(8) may print it with a "drv_" prefix.
counter() {
	in_ns "$1" rdma statistic show link "$2/1" | tr -s ' ' '\n' | paste - - |
		awk -v n="$3" '$1 == n || $1 == "drv_" n { print $2; exit }'
}

# pair_counter NAME: counter NAME of topo_sroce_pair's fab1 and fab2,
# added up.
pair_counter() {
	echo $(($(counter ns1 fab1 "$1") + $(counter ns2 fab2 "$1")))
}

# trace_prepare: tracefs mounted at /sys/kernel/tracing, and the tracer
# not recording task names.  That recording hooks sched_switch and
# sched_wakeup whenever the first event is enabled and unhooks them when
# the last is disabled: more kernel text patched, __schedule's call sites
# among them.  Under TCG a vCPU once spun on the text-poke breakpoint in
# __schedule for minutes while the other waited for it (a soft lockup in
# bench-lfn); the fewer patches, the fewer chances.
trace_prepare() {
	local t=/sys/kernel/tracing
	mountpoint -q "$t" || mount -t tracefs none "$t" || return 1
	echo 0 >"$t/options/record-cmd"
}

# trace_on EVENT...: only these sroce events, from an empty buffer
# (TRACE_KB, if set, its size per CPU).
trace_on() {
	local t=/sys/kernel/tracing e
	trace_prepare || return 1
	echo 0 >"$t/tracing_on"
	[ -z "${TRACE_KB:-}" ] || echo "$TRACE_KB" >"$t/buffer_size_kb"
	echo >"$t/trace"
	for e in "$@"; do echo 1 >"$t/events/sroce/$e/enable"; done
	echo 1 >"$t/tracing_on"
}

# trace_off FILE: every sroce event off, the buffer to FILE.
trace_off() {
	local t=/sys/kernel/tracing
	echo 0 >"$t/tracing_on"
	echo 0 >"$t/events/sroce/enable"
	cat "$t/trace" >"$1"
}

# counter_snap NS DEV FILE: all of DEV's counters, "name value" lines.
counter_snap() {
	in_ns "$1" rdma statistic show link "$2/1" |
		tr -s ' ' '\n' | paste - - | awk '$2 ~ /^[0-9]+$/' >"$3"
}

# snap_value FILE NAME: counter NAME in a counter_snap file.
snap_value() {
	awk -v n="$2" '$1 == n || $1 == "drv_" n { print $2; exit }' "$1"
}

# counter_delta BEFORE AFTER NAME: how much counter NAME grew between
# two counter_snap files.
counter_delta() {
	awk -v n="$3" 'FNR == 1 { f++ } $1 == n || $1 == "drv_" n { v[f] = $2 }
		END { print v[2] - v[1] }' "$1" "$2"
}

# bulk_write PREFIX SECS PORT: an RDMA WRITE bulk load (ib_write_bw, 64 KiB
# messages) for SECS seconds from fab2 (ns2) to fab1 (ns1) of
# topo_sroce_pair, on PORT.  Counters before and after go to
# PREFIX.before and PREFIX.after (fab2), PREFIX.before1 and PREFIX.after1
# (fab1); half way (bulk_mid), fab2's QP detail (rc_qp_detail) to
# PREFIX.qp and its counters to PREFIX.mid.
bulk_write() {
	local b=$1 secs=$2 port=$3 spid
	ip netns exec ns1 ib_write_bw -d fab1 -x "$G4A" -F -s 65536 -D "$secs" \
		-p "$port" >"$b.server" 2>&1 &
	spid=$!
	wait_listen ns1 "$port" || { kill "$spid"; return 1; }
	counter_snap ns2 fab2 "$b.before"
	counter_snap ns1 fab1 "$b.before1"
	ip netns exec ns2 ib_write_bw -d fab2 -x "$G4B" -F -s 65536 -D "$secs" \
		-p "$port" 192.168.77.1 >"$b.client" 2>&1 &
	bulk_mid "$b" "$secs" $!
	wait $! || { cat "$b.client"; kill "$spid"; return 1; }
	wait "$spid" || { cat "$b.server"; return 1; }
	counter_snap ns2 fab2 "$b.after"
	counter_snap ns1 fab1 "$b.after1"
}

_rc_qp_up() { [ -n "$(rc_qp_detail "$1" "$2")" ]; }

# bulk_mid PREFIX SECS PID: fab2's counters and QP detail while
# bulk_write's load (client PID) runs, to PREFIX.mid and PREFIX.qp: the
# last pair taken while the QP was in RTS, until half of SECS has passed
# since it was first seen there.  SECS count from the connection, which
# a slow kernel makes seconds late, and each look takes a second or more
# on a busy TCG host: every look keeps what it saw, so that a short load
# is caught too (52's 4 s SROCE_CC run once was not).  The counters come
# first: a detail that follows them shows the QP still running.  The load
# ends the looking; the deadline only guards against a hung one (a debug
# kernel on a host running other VMs took over a minute to connect).
bulk_mid() {
	local b=$1 secs=$2 pid=$3 end='' q deadline=$((SECONDS + 600))
	: >"$b.qp"
	: >"$b.mid"
	while [ $SECONDS -lt $deadline ] && kill -0 "$pid" 2>/dev/null; do
		counter_snap ns2 fab2 "$b.mid.try"
		q=$(rc_qp_detail ns2 fab2)
		if [ -n "$q" ]; then
			echo "$q" >"$b.qp"
			mv "$b.mid.try" "$b.mid"
			[ -n "$end" ] || end=$((SECONDS + secs / 2))
			[ $SECONDS -lt "$end" ] || break
		elif [ -n "$end" ]; then
			break
		fi
		sleep 0.5
	done
	rm -f "$b.mid.try"
}

# rc_qp_detail NS DEV [PREFIX...]: DEV's first RTS RC QP from `rdma -j
# resource show qp -dd`, flattened to one "name value ..." line (the text
# form may wrap the driver detail, which rdma(8) prefixes with drv_).
# PREFIX runs rdma, e.g. as another user.
rc_qp_detail() {
	in_ns "$1" "${@:3}" rdma -j resource show qp link "$2/1" -dd |
		python3 -c '
import json, sys
def flat(o, out):
    for k, v in o.items():
        if isinstance(v, dict):
            flat(v, out)
        else:
            out.append("%s %s" % (k, v))
for q in json.load(sys.stdin):
    if q.get("type") == "RC" and q.get("state") == "RTS":
        out = []
        flat(q, out)
        print(" ".join(out))
        break
'
}

# detail_field LINE NAME: the value after NAME in a "name value ..." line.
detail_field() {
	echo "$1" | tr -s ' ' '\n' | awk -v n="$2" '$0 == n { getline; print; exit }'
}

# detail_pick FILE NAME...: "name=value " for each NAME (drv_ prefix
# included) of the detail line in FILE, for a summary.
detail_pick() {
	local f=$1 n
	shift
	for n in "$@"; do
		printf '%s=%s ' "$n" "$(detail_field "$(cat "$f")" "$n")"
	done
}

# detail_want FILE NAME OP VALUE: the value after NAME in the detail line
# in FILE passes [ value OP VALUE ]; if not, say what it was and show the
# line.
detail_want() {
	local v
	v=$(detail_field "$(cat "$1")" "$2")
	test "$v" "$3" "$4" && return 0
	echo "$2 is '$v', want $3 $4; in $1:"
	cat "$1"
	return 1
}

# capture_start NS IFACE FILE: record UDP 4791 on IFACE in namespace NS
# ("" for this one) into FILE, a classic pcap (what roce_check.py reads),
# with a large buffer since TCG is slow to drain it.  tap_check runs this
# in a subshell, so dumpcap's pid goes to FILE.pid.  sroce's trains (UDP
# GSO, gso.c) are off meanwhile: a veth hands a GSO skb on whole, so a
# capture there would hold one datagram per train, not the packets a NIC
# puts on the wire; CAPTURE_TRAINS=1 leaves them on (the caller makes
# the veths cut them, 32-rc-verify's trains test).
capture_start() {
	local -a pre=()
	local gso=/sys/module/sroce/parameters/tx_gso
	if [ "${CAPTURE_TRAINS:-0}" = 0 ] && [ -w "$gso" ]; then
		cat "$gso" >"$3.gso" && echo N >"$gso"
	fi
	# Not through in_ns: a function sent to the background is a
	# subshell, and $! would be its pid, not dumpcap's.
	[ -z "$1" ] || pre=(ip netns exec "$1")
	"${pre[@]}" dumpcap -q -P -B 64 -i "$2" -f 'udp port 4791' -w "$3" \
		>"$3.log" 2>&1 &
	echo $! >"$3.pid"
	# dumpcap says so once the filter is attached.
	wait_for 60 grep -q "Capturing on" "$3.log"
}

_gone() { ! kill -0 "$1" 2>/dev/null; }

# capture_stop FILE: SIGTERM (a background job of a script ignores
# SIGINT), and wait until dumpcap has written its statistics: it has
# flushed and closed FILE by then.
capture_stop() {
	local pid
	pid=$(cat "$1.pid")
	kill -TERM "$pid"
	wait_for 60 _gone "$pid"
	if [ -s "$1.gso" ]; then
		cat "$1.gso" >/sys/module/sroce/parameters/tx_gso
		rm -f "$1.gso"
	fi
	cat "$1.log"
	grep -q "Packets captured" "$1.log"
}

# cm_listening PORT: an RDMA CM listener is bound to PORT.
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep LISTEN |
		grep -qE "src-addr [^ ]*:$1( |$)"
}

# in_ns NS CMD...: CMD in namespace NS, or in this one when NS is empty.
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# wait_listen NS PORT: until something listens on TCP PORT in NS.
_listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q .; }
wait_listen() { wait_for 60 _listening "$1" "$2"; }

# run_pair SNS CNS PORT -- SERVER_CMD... -- CLIENT_CMD...: a client/server
# tool (perftest, ibv_*_pingpong) with the server in namespace SNS and the
# client in CNS.  The server must listen on TCP PORT.  Both must succeed;
# their output goes to stdout.
#
# On a lossy path set SROCE_LINGER (seconds): each side's QPs then outlive
# its exit by that long (selftests/verbs/linger.c says why).
run_pair() {
	local sns=$1 cns=$2 port=$3 spid rc=0 src=0
	local -a srv=() cli=() pre=()
	shift 3
	[ -n "${SROCE_LINGER:-}" ] &&
		pre=(env "LD_PRELOAD=$SROCE_TREE/selftests/verbs/linger.so"
		     "SROCE_LINGER=$SROCE_LINGER")
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("${pre[@]}" "$@")
	srv=("${pre[@]}" "${srv[@]}")
	in_ns "$sns" "${srv[@]}" >"$SROCE_RESULTS/server.out" 2>&1 &
	spid=$!
	if ! wait_listen "$sns" "$port"; then
		kill "$spid" 2>/dev/null
		echo "server did not listen on $port:"
		cat "$SROCE_RESULTS/server.out"
		return 1
	fi
	if [ -n "$cns" ]; then
		timeout 600 ip netns exec "$cns" "${cli[@]}" || rc=$?
	else
		timeout 600 "${cli[@]}" || rc=$?
	fi
	# A server whose client failed may wait for it forever: the test
	# would then end only at its own timeout, saying nothing of why.
	_server_wait "$spid" $((rc ? 15 : 120 * ${SROCE_TIMEOUT_SCALE:-1})) || src=$?
	echo "--- server (exit $src):"
	cat "$SROCE_RESULTS/server.out"
	[ "$rc" = 0 ] && [ "$src" = 0 ] && return 0
	echo "--- client exit $rc; the QPs now:"
	_qps_now "$sns"
	[ "$cns" = "$sns" ] || _qps_now "$cns"
	return 1
}

# _server_wait PID SECS: its exit status, or 137 after killing it (and
# the program the background subshell PID runs) when it outlived SECS.
_server_wait() {
	if ! wait_for "$2" _gone "$1"; then
		echo "--- server still running after $2 s: killed"
		pkill -9 -P "$1"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
}

# _qps_now NS: every RC QP of NS's devices with its transport detail.
_qps_now() {
	in_ns "$1" rdma resource show qp -dd 2>&1 | grep -v "type GSI\|type SMI" | head -n 40
}

# tool_pair SNS SDEV SGID CNS CDEV CGID PEER TOOL ARGS...: TOOL's server
# in SNS, its client in CNS, through run_pair: a perftest tool goes to
# perf_run; an ibv_*_pingpong (GID index -g) gets its own TCP port from
# PAIR_PORT up.  Under the debug kernel perftest moves 200 iterations,
# not its default 1000 or 5000: the same paths, at a few MB/s.
PAIR_PORT=${PAIR_PORT:-18800}
tool_pair() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7 tool=$8
	case $tool in
	ib_*)
		! debug_kernel || set -- "$@" -n 200
		perf_run "$@"
		return
		;;
	esac
	shift 8
	PAIR_PORT=$((PAIR_PORT + 1))
	run_pair "$sns" "$cns" "$PAIR_PORT" -- \
		"$tool" -d "$sdev" -g "$sgid" -p "$PAIR_PORT" "$@" -- \
		"$tool" -d "$cdev" -g "$cgid" -p "$PAIR_PORT" "$@" "$peer"
}

# perf_run SNS SDEV SGID CNS CDEV CGID PEER TOOL ARGS...: a perftest pair
# through run_pair, the server in SNS, the client in CNS, each on its own
# TCP port from PERF_PORT up; prints both outputs.
PERF_PORT=${PERF_PORT:-19000}
perf_run() {
	local sns=$1 sdev=$2 sgid=$3 cns=$4 cdev=$5 cgid=$6 peer=$7 tool=$8
	shift 8
	PERF_PORT=$((PERF_PORT + 1))
	run_pair "$sns" "$cns" "$PERF_PORT" -- \
		"$tool" -d "$sdev" -x "$sgid" -F -p "$PERF_PORT" "$@" -- \
		"$tool" -d "$cdev" -x "$cgid" -F -p "$PERF_PORT" "$@" "$peer"
}
