#!/bin/bash
# DKMS builds sroce.ko from dkms.conf against the installed Debian headers:
# `dkms add`, `dkms build -k KVER`, `dkms remove --all`, the way a user's
# package manager would run them on a kernel upgrade.
#
# Everything happens in a private DKMS tree (--dkmstree, --sourcetree,
# --installtree) and with a throwaway signing key, so the host's
# /var/lib/dkms, /usr/src and /lib/modules are never touched.
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
KVER=$(make -s -C "$SROCE_TREE" print-kver)
. "$SROCE_TREE/selftests/lib.sh"

VERSION=$(cat "$SROCE_TREE/VERSION")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/src
PKG=$SRC/sroce-$VERSION
DKMS=(dkms --dkmstree "$WORK/dkms" --sourcetree "$SRC" --installtree "$WORK/install")
KO=$WORK/dkms/sroce/$VERSION/$KVER/$(uname -m)/module/sroce.ko

# dkms signs what it builds and, without a key, makes one under
# /var/lib/dkms. Its signing settings come from framework.conf or, when
# that leaves them unset (as Debian's does), from the environment.
export mok_signing_key=$WORK/mok.key mok_certificate=$WORK/mok.pub

# What Kbuild needs and nothing else: what a DKMS source package carries.
# Tracked files only: objects of an in-tree build would pass for up to date.
dkms_source() {
	mkdir -p "$PKG" "$WORK/dkms" "$WORK/install"
	cd "$SROCE_TREE" || return
	cp Kbuild Makefile VERSION dkms.conf "$PKG/"
	git ls-files -z include drivers | xargs -0 cp --parents -t "$PKG/"
}

conf_version() {
	local v
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SROCE_TREE/dkms.conf")
	[ "$v" = "$VERSION" ] || { echo "dkms.conf: '$v', VERSION: '$VERSION'"; return 1; }
}

# On failure, show the end of the build log: dkms itself only says which
# file to read, and that file is gone with the tree.
dkms_build() {
	"${DKMS[@]}" build "sroce/$VERSION" -k "$KVER" ||
		{ tail -n 40 "$WORK/dkms/sroce/$VERSION/build/make.log"; return 1; }
}

removed() {
	"${DKMS[@]}" remove "sroce/$VERSION" --all
	[ ! -e "$WORK/dkms/sroce/$VERSION" ]
	[ -z "$("${DKMS[@]}" status sroce)" ]
}

[ -d "/lib/modules/$KVER/build" ] || tap_skip_all "no headers for $KVER"
command -v dkms >/dev/null || tap_skip_all "dkms not installed (tools/deps.sh)"

tap_plan 7
tap_check "dkms.conf PACKAGE_VERSION is VERSION ($VERSION)" conf_version
tap_require "copy the module sources to sroce-$VERSION" dkms_source
tap_require "dkms add" "${DKMS[@]}" add "sroce/$VERSION"
tap_check "dkms build -k $KVER" dkms_build
tap_check "sroce.ko built" test -f "$KO"
tap_check "modinfo version is VERSION" sh -c \
	"[ \"\$(modinfo -F version '$KO')\" = '$VERSION' ]"
tap_check "dkms remove --all empties the tree" removed
tap_done
