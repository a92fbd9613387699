#!/bin/bash
# NVMe over Fabrics over sroce: the kernel's NVMe/RDMA target (nvmet-rdma)
# exports a ramdisk, the kernel's NVMe/RDMA host (nvme-rdma) connects to
# it, and random data written through the fabric must read back, and
# land on the ramdisk, byte for byte.  The host registers its buffers
# with fast registration (FRWR) and the target answers with SEND with
# Invalidate, so this runs REG_MR, remote and local invalidation under a
# real ULP.  Teardown (disconnect, target removal, link delete, rmmod)
# must leave no warning and no reference behind.
#
# One device, in init_net.  6.1's nvmet-rdma and nvme-rdma create their
# rdma_cm IDs in init_net (rdma_create_id(&init_net, ...)) whichever
# namespace nvme(1) or configfs is used from, so neither end can live in
# another namespace: a port on an address of ns2 fails ("nvmet_rdma:
# binding CM ID to 192.168.77.2:4420 failed (-99)"), and a connect run
# in ns1 resolves in init_net ("rdma_resolve_addr failed (-101)").
# Within one namespace, rdma_cm resolves a local destination to the
# device of the destination address whatever the source, so a second
# device on a second veth is never used (nvme connect -w times out in
# address resolution): host and target QPs share fab0, as blktests runs
# NVMe over rxe, and their packets loop through lo.
# sroce-timeout: 1200
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
. "$SROCE_TREE/selftests/lib.sh"

NQN=nqn.2024-01.org.sroce:nvmeof-test
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5e0c7e57-0000-4000-8000-00000000042a
HOSTID=5e0c7e57-0000-4000-8000-00000000042a
TADDR=192.168.77.1	# target and host, on nvt (fab0)
PORT=4420
CFS=/sys/kernel/config/nvmet
MIB=32			# bytes written and read back, MiB
DATA=/tmp/nvmeof.data
BACK=/tmp/nvmeof.back

modules() {
	modprobe -a nvmet nvmet-rdma nvme-rdma
	modprobe brd rd_nr=1 rd_size=$((2 * MIB * 1024))
	test -b /dev/ram0
}

# A veth whose peer only keeps it up: sroce wants an Ethernet netdev.
topo() {
	modprobe veth
	ip -b - <<-EOT
		link add nvt type veth peer name nvp
		addr add $TADDR/24 dev nvt
		link set nvp up
		link set nvt up
	EOT
	wait_for 10 _link_ready "" nvt
}

link_add() {
	rdma link add fab0 type sroce netdev nvt
	wait_for 10 gid_index "" fab0 "$TADDR"
}

target_setup() {
	local s=$CFS/subsystems/$NQN p=$CFS/ports/1
	mkdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo -n /dev/ram0 >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable"
	mkdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$TADDR" >"$p/addr_traddr"
	echo "$PORT" >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$NQN"
	dmesg | grep -q "nvmet_rdma: enabling port 1 ($TADDR:$PORT)"
}

# The block device of our subsystem's namespace 1: nvmeXn1 (not the
# hidden per-path nvmeXcYn1 of native multipath), whose parent (the
# controller, or the subsystem under multipath) has our NQN.
nvme_dev() {
	local b
	for b in /sys/block/nvme*n1; do
		case ${b##*/} in *c*) continue ;; esac
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}

host_connect() {
	timeout 120 nvme connect -t rdma -a "$TADDR" -s "$PORT" \
		-n "$NQN" --hostnqn="$HOSTNQN" --hostid="$HOSTID"
	wait_for 30 nvme_dev
	nvme_dev
	test -b "$(nvme_dev)"
	nvme list
}

# nvme-rdma keeps a pool of fast registration MRs per queue (nvmet-rdma
# uses none on RoCE, and a PD's DMA MR is not listed).
host_has_frmrs() {
	local n
	n=$(rdma resource show mr | grep -c 'nvme_rdma' || true)
	rdma resource show mr | head -n 5
	echo "nvme_rdma MRs: $n"
	[ "$n" -gt 0 ]
}

write_read_cmp() {
	local dev t0
	dev=$(nvme_dev)
	dd if=/dev/urandom of="$DATA" bs=1M count="$MIB" status=none
	t0=$SECONDS
	dd if="$DATA" of="$dev" bs=1M count="$MIB" oflag=direct status=none
	dd if="$dev" of="$BACK" bs=1M count="$MIB" iflag=direct status=none
	echo "$((2 * MIB)) MiB in $((SECONDS - t0)) s"
	cmp "$DATA" "$BACK"
}

# The target's ramdisk holds what the host wrote: the data went over.
# Read it with O_DIRECT: nvmet's bios bypass /dev/ram0's page cache, so
# a buffered read may find what readahead cached before a write.
ramdisk_cmp() {
	dd if=/dev/ram0 bs=1M count="$MIB" iflag=direct status=none | cmp - "$DATA"
}

# 4 KiB writes go inline with the command (no MR); 4 KiB reads and an
# unaligned mix of sizes through FRWR, at offsets past the first pass.
small_ios() {
	local dev off=$((MIB << 20))
	dev=$(nvme_dev)
	dd if=/dev/urandom of="$DATA.small" bs=4k count=256 status=none
	dd if="$DATA.small" of="$dev" bs=4k seek=$((off / 4096)) oflag=direct status=none
	dd if="$dev" of="$BACK.small" bs=4k skip=$((off / 4096)) count=256 iflag=direct status=none
	cmp "$DATA.small" "$BACK.small"
	dd if="$dev" of="$BACK.small" bs=12k skip=$((off / 12288 + 1)) count=40 iflag=direct status=none
	dd if=/dev/ram0 bs=12k skip=$((off / 12288 + 1)) count=40 iflag=direct status=none |
		cmp - "$BACK.small"
}

host_disconnect() {
	nvme disconnect -n "$NQN"
	! nvme_dev
}

target_teardown() {
	local s=$CFS/subsystems/$NQN p=$CFS/ports/1
	rm "$p/subsystems/$NQN"
	rmdir "$p"
	echo 0 >"$s/namespaces/1/enable"
	rmdir "$s/namespaces/1"
	rmdir "$s"
}

# nvmet-rdma and nvme-rdma are still loaded: their ib_client remove runs.
unload() {
	rdma link delete fab0
	rmmod sroce
	modprobe -r nvme-rdma nvmet-rdma
	! grep -q '^sroce ' /proc/modules
}

no_nvme_errors() {
	! dmesg | grep -E 'nvme.*(Bogus|failed|error|reconnect|resetting)|nvmet.*(error|failed)'
}

counters_clean() {
	counters "" fab0
	[ "$(counter "" fab0 mr_access_refused)" = 0 ] &&
		[ "$(counter "" fab0 fr_op_errors)" = 0 ] &&
		[ "$(counter "" fab0 err_naks_received)" = 0 ]
}

tap_plan 16
tap_require "nvme-cli (tools/deps.sh)" command -v nvme
tap_require "load the RDMA stack" sroce_load
tap_require "nvmet, nvmet-rdma, nvme-rdma, brd" modules
tap_require "veth nvt in init_net" topo
tap_require "fab0 on nvt" link_add
tap_require "nvmet: ramdisk namespace, RDMA port on $TADDR:$PORT" target_setup
kmsg "nvmeof: connect"
tap_require "nvme connect -t rdma" host_connect
tap_check "nvme-rdma uses fast registration MRs" host_has_frmrs
kmsg "nvmeof: write/read"
tap_check "$MIB MiB of random data written and read back (O_DIRECT)" write_read_cmp
tap_check "the target's ramdisk holds the same bytes" ramdisk_cmp
tap_check "4 KiB and 12 KiB I/Os at another offset" small_ios
tap_check "no refused rkeys, fast registration errors or NAKs" counters_clean
kmsg "nvmeof: teardown"
tap_check "nvme disconnect" host_disconnect
tap_check "target configfs torn down" target_teardown
tap_check "rdma link delete, rmmod sroce, nvme modules unloaded" unload
tap_check "no NVMe errors in the kernel log" no_nvme_errors
tap_done
