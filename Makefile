# SPDX-License-Identifier: GPL-2.0
#
# sroce top-level build: the kernel module, the rdma-core provider, tests.
#
# KVER defaults to the running kernel when its build tree exists, else to
# the newest kernel whose headers are installed (inside a CI container or
# on a development host the running kernel is often not Debian's).

KVER ?= $(shell k=$$(uname -r); \
	if [ -d /lib/modules/$$k/build ]; then echo $$k; else \
	ls -1d /lib/modules/*/build 2>/dev/null | sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n1; fi)
KDIR ?= /lib/modules/$(KVER)/build
SROCE_VERSION := $(shell cat $(CURDIR)/VERSION)
MODDIR := drivers/infiniband/sw/sroce
DESTDIR ?=
MANDIR ?= /usr/share/man

export KVER

.PHONY: bench-profile all module provider install uninstall clean check check-long check-debug demo \
	deps tests bench bench-lfn unit checkpatch sparse print-kver

all: module provider

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): run tools/deps.sh or set KVER" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) SROCE_VERSION=$(SROCE_VERSION) modules

provider:
	$(MAKE) -C tools/lib/sroce

install: all
	install -D -m 0644 $(MODDIR)/sroce.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/sroce.ko
	$(MAKE) -C tools/lib/sroce install DESTDIR=$(DESTDIR)
	install -D -m 0644 Documentation/man/sroce.7 \
		$(DESTDIR)$(MANDIR)/man7/sroce.7
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/sroce.ko
	$(MAKE) -C tools/lib/sroce uninstall DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(MANDIR)/man7/sroce.7
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/lib/sroce clean
	-[ -f selftests/unit/Makefile ] && $(MAKE) -C selftests/unit clean
	-[ -f selftests/verbs/Makefile ] && $(MAKE) -C selftests/verbs clean

deps:
	bash tools/deps.sh

tests: all
	[ ! -f selftests/verbs/Makefile ] || $(MAKE) -C selftests/verbs
	mkdir -p out/bench
	$(CC) -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iselftests/verbs -o out/bench/lfn_write \
		tools/bench/lfn_write.c selftests/verbs/common.c -libverbs

# The pure protocol core's host unit tests and fuzzers (seconds, no VM, no
# kernel tree): the quick loop while changing proto/.
unit:
	$(MAKE) -C selftests/unit check check-fuzz

# The README's test command: dependencies, build, host unit tests and the
# in-VM selftests.  The runner's last line is "N passed, N failed, ...".
check: deps
	$(MAKE) tests
	selftests/run $(T)

# The long lane: tests too slow for CI's budget (interop with rdma_rxe
# across two VMs, ~7-9 min each; the netem fault matrix, ~5 min).  Run
# before resolving an issue.
check-long: deps
	$(MAKE) tests
	SROCE_VM_ONLY=1 SROCE_LANE=long selftests/run $(T)

# The debug-kernel lane (Documentation/debug-kernel.rst): the VM tests
# under a KASAN/lockdep/kmemleak kernel, built once (~20 min) and cached
# in /var/cache/sroce. Not part of `check`: it takes hours, not minutes.
check-debug: deps
	$(MAKE) provider
	[ ! -f selftests/verbs/Makefile ] || $(MAKE) -C selftests/verbs
	tools/debug-kernel/check $(T)

demo: deps
	$(MAKE) tests
	tools/demo.sh

# Style gates for the module (not part of `check`: they need no VM).
# Debian's headers lack checkpatch.pl; selftests/host/20-style.sh pulls it
# out of the linux-source-6.1 tarball into out/cache.
CHECKPATCH ?= $(firstword $(wildcard $(KDIR)/scripts/checkpatch.pl \
	$(CURDIR)/out/cache/checkpatch/scripts/checkpatch.pl))
checkpatch:
	@test -n "$(CHECKPATCH)" || { echo "no checkpatch.pl: run selftests/host/20-style.sh once" >&2; exit 1; }
	$(CHECKPATCH) --no-tree --terse -f $(filter-out %.mod.c,$(wildcard $(MODDIR)/*.[ch] $(MODDIR)/proto/*.[ch])) include/uapi/rdma/sroce-abi.h

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) SROCE_VERSION=$(SROCE_VERSION) C=2 modules

print-kver:
	@echo $(KVER)

# Benchmarks (not part of check): the matrix (sroce, rxe and TCP in one VM
# run; out/bench/matrix.png), sroce against rxe at veth MTU 1500 and 9000,
# latency behind an 8-QP bulk load (priority classes on and off), then
# sroce<->rxe against rxe<->rxe over the same two-VM link.
bench: deps
	$(MAKE) tests
	mkdir -p out/bench
	$(CC) -O2 -Wall -Werror -o out/bench/udp_pingpong tools/bench/udp_pingpong.c
	SROCE_GUEST_ENV=BENCH_REPEAT tools/qemu/run-test --timeout 5400 \
		--out out/bench/matrix tools/bench/bench-matrix.sh
	tools/bench/plot-matrix out/bench/matrix/A/matrix.csv out/bench/matrix.png
	SROCE_GUEST_ENV=BENCH_REPEAT \
		tools/qemu/run-test --timeout 3600 tools/bench/bench-rc.sh
	SROCE_GUEST_ENV=BENCH_REPEAT \
		tools/qemu/run-test --timeout 3600 tools/bench/bench-prio.sh
	SROCE_GUEST_ENV=BENCH_REPEAT \
		tools/qemu/run-test --vms 2 --timeout 3600 tools/bench/bench-interop.sh

# Where the time goes: perf record -a -g in the VM over ib_write_bw and
# ib_send_lat between two sroce devices (ICRC elision on; PROFILE_ELIDE=0).
bench-profile: deps
	$(MAKE) tests
	SROCE_GUEST_ENV="PROFILE_ELIDE PROFILE_SECONDS" tools/qemu/run-test \
		--timeout 1200 --out out/bench/profile tools/bench/bench-profile.sh

# The long-fat-network benchmark (issue 7): 100 Mbit/s, 100 ms RTT, 0 to
# 1 % loss; sroce, rxe, TCP CUBIC and BBR over the same netem, two VMs.
bench-lfn: deps
	$(MAKE) all
	$(MAKE) tests
	SROCE_GUEST_ENV="LFN_SECONDS LFN_LOSS LFN_DELAY_MS LFN_CC LFN_ONLY LFN_NETEM LFN_FAIR LFN_FAIR_SECONDS LFN_ELIDE LFN_GSO LFN_LARGE LFN_CLIENT LFN_UDP_MBIT LFN_FLOOR_MBIT LFN_TRACE" \
		tools/qemu/run-test --vms 2 --timeout 3000 --follow tools/bench/bench-lfn.sh
