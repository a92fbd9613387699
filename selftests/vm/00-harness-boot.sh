#!/bin/bash
# Harness self-test: the VM is what tests expect (kernel, writable overlay
# root, netns/veth, RDMA core with module autoload and libibverbs drivers).
# shellcheck disable=SC2317 # functions below are called via tap_check
set -eu
. "$SROCE_TREE/selftests/lib.sh"

in_vm() { grep -q 'sroce_init=' /proc/cmdline && [ -n "${SROCE_RESULTS:-}" ]; }
kernel_61() { case $(uname -r) in 6.1.*) ;; *) false ;; esac; }
root_is_overlay() { [ "$(findmnt -no FSTYPE /)" = overlay ]; }
root_writable() { echo x >/etc/.sroce-probe && rm /etc/.sroce-probe; }
cwd_is_tree() { [ "$(pwd)" = "$SROCE_TREE" ] && [ -f selftests/lib.sh ]; }

# sroce_load's promise: after it, modprobe resolves the link alias that
# `rdma link add ... type sroce` requests to the tree's module in updates/.
sroce_alias_resolves() {
	sroce_load
	modprobe --show-depends rdma-link-sroce | tee /dev/stderr |
		grep -q "insmod /lib/modules/$KVER/updates/sroce.ko"
}

# `rdma link add` makes the kernel request_module("rdma-link-rxe").
rxe_autoload() {
	if grep -q '^rdma_rxe ' /proc/modules; then
		echo "rdma_rxe already loaded, cannot test autoload"
		return 1
	fi
	modprobe ib_uverbs
	rdma link add rxe0 type rxe netdev lo
	grep -q '^rdma_rxe ' /proc/modules
	rdma link show rxe0/1
}

ibv_lists_rxe0() { ibv_devices | tee /dev/stderr | grep -qw rxe0; }

# sroce_provider_setup writes an absolute path into a .driver file; prove
# libibverbs loads a provider given that way, using rxe's.
abs_driver_path() {
	local lib
	lib=$(dirname "$(ldconfig -p | awk '/libibverbs.so.1 / {print $NF; exit}')")/libibverbs/librxe
	[ -f "$lib-rdmav34.so" ]
	echo "driver $lib" >/etc/libibverbs.d/rxe.driver
	ibv_lists_rxe0
}

uverbs_node() { ls /dev/infiniband/uverbs0; }

provider_driver_file() {
	sroce_provider_setup
	grep -qx "driver $SROCE_TREE/tools/lib/sroce/libsroce" /etc/libibverbs.d/sroce.driver
}

tap_plan 15
tap_check "running inside the test VM" in_vm
tap_check "kernel is 6.1 ($(uname -r))" kernel_61
tap_check "cwd is the repo root" cwd_is_tree
tap_check "root is an overlay" root_is_overlay
tap_check "root is writable" root_writable
tap_check "modprobe veth" modprobe veth
tap_require "topo_veth" topo_veth
tap_check "ns1 pings ns2 over IPv4" nsexec ns1 ping4 192.168.77.2
tap_check "ns1 pings ns2 over IPv6" nsexec ns1 ping6 fd77::2
topo_cleanup
tap_check "rdma link add rxe0 autoloads rdma_rxe" rxe_autoload
tap_check "ibv_devices lists rxe0 (absolute driver path)" abs_driver_path
tap_check "/dev/infiniband/uverbs0 exists" uverbs_node
tap_check "rdma link delete rxe0" rdma link delete rxe0
if [ -f "$SROCE_KO" ]; then
	tap_check "sroce_load: rdma-link-sroce resolves to updates/sroce.ko" sroce_alias_resolves
else
	tap_skip "sroce_load: rdma-link-sroce resolves to updates/sroce.ko" "sroce.ko not built"
fi
if [ -f "$SROCE_PROVIDER_SO" ]; then
	tap_check "sroce_provider_setup writes sroce.driver" provider_driver_file
else
	tap_skip "sroce_provider_setup writes sroce.driver" "provider not built"
fi
tap_done
