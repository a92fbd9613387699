#!/bin/bash
# selftests/run picks tests by lane: `make check` must not lose a test by
# accident, and must not grow by the long lane (interop, faults) either.
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
. "$SROCE_TREE/selftests/lib.sh"

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
printf '#!/bin/bash\n' >"$DIR/10-plain.sh"
printf '#!/bin/bash\n# sroce-lane: long\n' >"$DIR/20-long.twovm.sh"
printf '#!/bin/bash\n# sroce-lane: other\n' >"$DIR/30-other.sh"

# list LANE PATTERN...: the runner's selection, on one line.
list() {
	local lane=$1
	shift
	SROCE_VM_TEST_DIR=$DIR SROCE_LIST=1 SROCE_LANE=$lane \
		"$SROCE_TREE/selftests/run" "$@" | tr '\n' ' '
}

# expect GOT WANT
expect() {
	[ "$1" = "$2" ] && return 0
	echo "got '$1', want '$2'"
	return 1
}

check_default() { expect "$(list '')" "10-plain.sh "; }
check_long() { expect "$(list long)" "20-long.twovm.sh "; }
check_all() { expect "$(list all)" "10-plain.sh 20-long.twovm.sh 30-other.sh "; }
check_pattern() { expect "$(list all long)" "20-long.twovm.sh "; }
# The real tree: the two-VM interop matrices and the fault matrix are in
# the long lane, the RC basics in check.
check_tree() {
	local got long
	got=$(SROCE_LIST=1 "$SROCE_TREE/selftests/run" | tr '\n' ' ')
	long=$(SROCE_LIST=1 SROCE_LANE=long "$SROCE_TREE/selftests/run" | tr '\n' ' ')
	[[ $got == *30-rc-pingpong* ]] || { echo "30 not in check: $got"; return 1; }
	[[ $got != *rxe-interop* ]] || { echo "interop in check: $got"; return 1; }
	[ "$long" = "45-rxe-interop.twovm.sh 46-rxe-interop-ipv6.twovm.sh 47-rxe-interop-jumbo.twovm.sh 49-faults.sh 50-lifecycle.sh " ] ||
		{ echo "long lane: $long"; return 1; }
}

# A failing test's "not ok" and the diagnostics under it come again at
# the end of the run, above the totals: CI shows a long log's tail.
check_recap() {
	local h=$DIR/host v=$DIR/novm out
	mkdir -p "$h" "$v"
	printf '%s\n' '#!/bin/bash' 'echo 1..3' 'echo "ok 1 - fine"' \
		'echo "not ok 2 - boom"' 'echo "# because of this"' \
		'echo "ok 3 - fine again"' 'exit 1' >"$h/10-fails.sh"
	out=$(SROCE_HOST_TEST_DIR=$h SROCE_VM_TEST_DIR=$v SROCE_SELFTESTS_OUT=$DIR/o \
		"$SROCE_TREE/selftests/run" fails) && { echo "passed: $out"; return 1; }
	out=$(echo "$out" | tail -n 5)
	expect "$out" "$(printf '%s\n' '# --- host/10-fails.sh:' '#   not ok 2 - boom' \
		'#   # because of this' '# failed: host/10-fails.sh' '2 passed, 1 failed, 0 skipped')"
}

tap_plan 6
tap_check "runner: default lane runs unmarked tests only" check_default
tap_check "runner: SROCE_LANE=long runs the long lane only" check_long
tap_check "runner: SROCE_LANE=all runs every lane" check_all
tap_check "runner: patterns still select within a lane" check_pattern
tap_check "runner: interop and faults in the long lane, RC in check" check_tree
tap_check "runner: failures recapped above the totals" check_recap
tap_done
