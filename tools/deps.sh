#!/bin/bash
# tools/deps.sh: install what sroce needs to build, test and demo, on
# Debian 12. Run as root; used by `make demo`, `make check` and CI.
#
# Idempotent and cheap when everything is there: dpkg is asked which
# packages are missing and apt-get runs only for those (no apt-get call at
# all when nothing is missing).
set -eu

PACKAGES="
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static kmod cpio
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils nvme-cli
	libibverbs-dev librdmacm-dev python3-pyverbs
	iproute2 iperf3 tshark nftables gnuplot-nox linux-perf
	gcc make sparse clang libclang-rt-14-dev linux-source-6.1 dkms
	man-db groff-base
	iputils-ping xz-utils binutils python3
	bc flex bison libelf-dev libssl-dev rsync
"
# nvme-cli: NVMe over Fabrics over sroce (selftests/vm/42-nvmeof.sh);
# nftables: the rule against local injection (security.rst G1, 54-access);
# clang and its runtime: the libFuzzer targets of the protocol core;
# linux-source-6.1: checkpatch.pl for the style gate; man-db and groff-base
# render sroce(7) (selftests/host/41-man.sh); linux-perf: make bench-profile.
# The line before last is for the VM harness (tools/qemu): ping in tests, xz and
# readelf to unpack the kernel for a fast PVH boot, python3 to pick ports.
# The last line builds the debug kernel (tools/debug-kernel, `make
# check-debug`) from linux-source-6.1; no dwarves: it has no debug info,
# hence no BTF.

# One dpkg-query for all: packages it does not know print nothing and so
# count as missing.
missing_packages() {
	local ok p
	# shellcheck disable=SC2086 # one package name per word
	ok=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PACKAGES 2>/dev/null |
		awk '$1 == "ii" {print $2}' | sed 's/:.*//')
	for p in $PACKAGES; do
		echo "$ok" | grep -qx -- "$p" || echo "$p"
	done
}

# tshark asks whether non-root users may capture; answer "no" up front so
# the install never stops at a prompt.
preseed() {
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
}

install() {
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing packages:" "$@" >&2
		echo "deps.sh: run me as root to install them" >&2
		exit 1
	fi
	preseed
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y -o Dpkg::Options::=--force-confold "$@"
}

main() {
	local missing
	missing=$(missing_packages)
	if [ -z "$missing" ]; then
		echo "deps.sh: all dependencies installed"
		return 0
	fi
	# shellcheck disable=SC2086 # one package name per word
	echo "deps.sh: installing:" $missing
	# shellcheck disable=SC2086
	install $missing
}

main "$@"
