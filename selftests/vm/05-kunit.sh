#!/bin/bash
# The protocol core's unit tests (selftests/unit) in the kernel, as the
# KUnit suite sroce-proto (selftests/kunit): on the debug kernel they run
# under KASAN. One TAP line per KUnit case. Skipped on a kernel without
# KUnit, such as Debian's.
# sroce-timeout: 300
set -u
. "$SROCE_TREE/selftests/lib.sh"

KO=$SROCE_KO_TREE/selftests/kunit/sroce_kunit.ko
RESULTS=/sys/kernel/debug/kunit/sroce-proto/results

[ -d /sys/kernel/debug/kunit ] || tap_skip_all "kernel without KUnit (make check-debug runs this)"
[ -f "$KO" ] || tap_skip_all "$KO not built"

# Loading the module runs the suite; it stays loaded so its results stay
# readable.
insmod "$KO" || tap_bail "insmod $KO failed"
[ -f "$RESULTS" ] || tap_bail "no $RESULTS"
cp "$RESULTS" "$SROCE_RESULTS/kunit-results.txt"

# KTAP: the suite's cases are the indented "ok N - NAME" lines.
n=0
while read -r status name; do
	n=$((n + 1))
	if [ "$status" = ok ]; then
		tap_ok "kunit sroce-proto: $name"
	else
		tap_fail "kunit sroce-proto: $name"
		tap_diag_file "$RESULTS"
	fi
done < <(sed -nE 's/^[[:space:]]+(not ok|ok) [0-9]+ (- )?([[:alnum:]_]+).*/\1 \3/p' "$RESULTS" |
	sed 's/^not ok/not_ok/')
[ "$n" -gt 0 ] || tap_fail "kunit sroce-proto ran no case" "$(cat "$RESULTS")"
tap_check "the suite passed as a whole" grep -qE '^ok [0-9]+ (- )?sroce-proto' "$RESULTS"
tap_check "rmmod sroce_kunit" rmmod sroce_kunit
tap_done
