#!/bin/bash
# make install / uninstall into a DESTDIR: every file lands where
# libibverbs, modprobe and man look for it, and uninstall takes it all back.
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
KVER=$(make -s -C "$SROCE_TREE" print-kver)
. "$SROCE_TREE/selftests/lib.sh"

DEST=$(mktemp -d)
trap 'rm -rf "$DEST"' EXIT
ARCH=$(gcc -print-multiarch)
KO=$DEST/lib/modules/$KVER/updates/sroce.ko
SO=$DEST/usr/lib/$ARCH/libibverbs/libsroce-rdmav34.so
DRV=$DEST/etc/libibverbs.d/sroce.driver
MAN=$DEST/usr/share/man/man7/sroce.7

tap_plan 8
tap_check "make install DESTDIR=... KVER=$KVER" \
	make -s -C "$SROCE_TREE" install DESTDIR="$DEST" KVER="$KVER"
tap_check "module in /lib/modules/KVER/updates" test -f "$KO"
tap_check "module autoloads for rdma link type sroce" sh -c \
	"modinfo -F alias '$KO' | grep -qx rdma-link-sroce"
tap_check "module version matches VERSION" sh -c \
	"[ \"\$(modinfo -F version '$KO')\" = \"\$(cat '$SROCE_TREE/VERSION')\" ]"
tap_check "provider in the multiarch libibverbs directory" test -f "$SO"
tap_check "sroce.driver names the provider" grep -qx "driver sroce" "$DRV"
tap_check "sroce(7) in the man7 directory" cmp "$SROCE_TREE/Documentation/man/sroce.7" "$MAN"
tap_check "make uninstall removes all four" sh -c \
	"make -s -C '$SROCE_TREE' uninstall DESTDIR='$DEST' KVER='$KVER' && [ ! -e '$KO' ] && [ ! -e '$SO' ] && [ ! -e '$DRV' ] && [ ! -e '$MAN' ]"
tap_done
