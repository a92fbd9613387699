#!/bin/bash
# make demo: boot the stock Debian kernel in QEMU, create sroce devices in
# two network namespaces beside an rxe device, move data over both with
# unchanged perftest and ibv_rc_pingpong, and print a side-by-side table.
# Run as root on Debian 12 (make demo installs the dependencies).
set -eu
TREE=$(cd "$(dirname "$0")/.." && pwd)
echo "== sroce demo: booting a VM (QEMU TCG, Debian 6.1 kernel) =="
exec "$TREE/tools/qemu/run-test" --follow --timeout 300 "$TREE/tools/demo-guest.sh"
