#!/bin/bash
# sroce(7) renders with man and groff without a warning, and keeps up with
# the code: every counter and module parameter the module has is in it.
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
. "$SROCE_TREE/selftests/lib.sh"

PAGE=$SROCE_TREE/Documentation/man/sroce.7
MODDIR=$SROCE_TREE/drivers/infiniband/sw/sroce
VERSION=$(cat "$SROCE_TREE/VERSION")
OUT=$SROCE_RESULTS/sroce.7.txt
# Warnings are in English whatever the locale; so must our greps be.
export LC_ALL=C.UTF-8

# groff's exit status ignores warnings: they are only printed.
no_warnings() {
	local err
	err=$("$@" 2>&1 >/dev/null)
	[ -z "$err" ] || { echo "$err"; return 1; }
}

# Without a terminal man-db prints plain text, as a user piping it would.
render() {
	MANWIDTH=80 man --warnings -l "$PAGE" >"$OUT"
	[ -s "$OUT" ]
}

has_name_line() {
	grep -A1 '^NAME$' "$OUT" | grep -q 'sroce - software RoCEv2'
}

has_sections() {
	local s
	for s in NAME SYNOPSIS DESCRIPTION 'CREATING AND DELETING DEVICES' \
		'NETWORK NAMESPACES' MTU 'MODULE PARAMETERS' COUNTERS \
		'USERSPACE PROVIDER' INTEROPERABILITY FILES 'SEE ALSO'; do
		grep -qx "$s" "$OUT" || { echo "no section $s"; return 1; }
	done
}

# The names rdma(8) shows: counters.c's descriptor table.
counters_listed() {
	local names n missing=
	names=$(sed -n 's/.*\]\.name = "\([a-z_0-9]*\)",/\1/p' "$MODDIR/counters.c")
	[ "$(echo "$names" | wc -w)" -ge 30 ] || { echo "counters.c: $names"; return 1; }
	for n in $names; do
		grep -qw -- "$n" "$OUT" || missing="$missing $n"
	done
	[ -z "$missing" ] || { echo "not in sroce(7):$missing"; return 1; }
}

params_listed() {
	local names n missing=
	names=$(grep -ho 'module_param(\w*' "$MODDIR"/*.c | sed 's/module_param(//')
	for n in $names; do
		grep -qw -- "$n" "$OUT" || missing="$missing $n"
	done
	[ -z "$missing" ] || { echo "not in sroce(7):$missing"; return 1; }
}

{ command -v man && command -v groff; } >/dev/null ||
	tap_skip_all "man-db or groff missing (tools/deps.sh)"

tap_plan 8
tap_check "groff -man -ww: no warnings" no_warnings groff -man -ww -z "$PAGE"
tap_require "man -l renders it" render
tap_check "man -l: no warnings" no_warnings man --warnings -l "$PAGE"
tap_check "NAME line" has_name_line
tap_check "all sections" has_sections
tap_check "page is for sroce $VERSION" grep -q "^\.TH SROCE 7 .* \"sroce $VERSION\"" "$PAGE"
tap_check "every counter of counters.c is described" counters_listed
tap_check "every module parameter is described" params_listed
tap_done
