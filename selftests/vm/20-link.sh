#!/bin/bash
# Foundation acceptance: `rdma link add` creates sroce devices in network
# namespaces beside rxe; the port follows the netdev; bad input fails with
# a clear error; every way of removing a device works.
set -u
. "$SROCE_TREE/selftests/lib.sh"

devinfo() { ip netns exec "$1" ibv_devinfo -d "$2" -v; }

# Wait (bounded) until CMD's output matches the extended regex PATTERN:
# GID and port updates are asynchronous (ib_core work items).
wait_match() {
	local pattern=$1 i
	shift
	for i in $(seq 50); do
		"$@" 2>&1 | grep -Eq -- "$pattern" && return 0
		sleep 0.1
	done
	echo "no match for '$pattern' in:"
	"$@" 2>&1
	return 1
}
wait_nomatch() {
	local pattern=$1 i
	shift
	for i in $(seq 50); do
		"$@" 2>&1 | grep -Eq -- "$pattern" || return 0
		sleep 0.1
	done
	echo "still matching '$pattern'"
	return 1
}

tap_plan 38

sroce_load
sroce_provider_setup
tap_check "module not loaded before rdma link add" sh -c '! grep -q "^sroce " /proc/modules'

tap_check "rxe0 on lo" sh -c 'modprobe rdma_rxe && rdma link add rxe0 type rxe netdev lo'
topo_veth
tap_check "rdma link add fab1 (ns1, v1) autoloads sroce" \
	ip netns exec ns1 rdma link add fab1 type sroce netdev v1
tap_check "sroce module is loaded" grep -q "^sroce " /proc/modules
tap_check "rdma link add fab2 (ns2, v2)" \
	ip netns exec ns2 rdma link add fab2 type sroce netdev v2

tap_check "ns1 has UDP 4791 bound (IPv4 and IPv6)" sh -c \
	'[ "$(ip netns exec ns1 ss -Hlun "sport = :4791" | wc -l)" -eq 2 ]'
tap_check "init_net with rxe: sroce fails, port 4791 in use" sh -c \
	'ip link add d1 type veth peer name d1p && ! rdma link add y type sroce netdev d1 && dmesg | grep -q "sroce: UDP port 4791 is already in use"'
# ib_core names the netdev only to processes in the netdev's namespace.
tap_check "rdma link show: fab1 and fab2 ACTIVE" sh -c \
	'out=$(rdma link show) && echo "$out" | grep -q "fab1/1 state ACTIVE" && echo "$out" | grep -q "fab2/1 state ACTIVE" || { echo "$out"; exit 1; }'
tap_check "rdma link show in ns1: fab1 ACTIVE on v1" \
	wait_match 'fab1/1 state ACTIVE physical_state LINK_UP netdev v1' ip netns exec ns1 rdma link show
tap_check "rdma link show in ns2: fab2 ACTIVE on v2" \
	wait_match 'fab2/1 state ACTIVE physical_state LINK_UP netdev v2' ip netns exec ns2 rdma link show
tap_check "ibv_devices lists fab1, fab2 and rxe0" sh -c \
	'out=$(ibv_devices); for d in fab1 fab2 rxe0; do echo "$out" | grep -qw $d || { echo "$out"; exit 1; }; done'
tap_check "fab1: PORT_ACTIVE, Ethernet, active_mtu 1024" sh -c \
	"out=\$(ip netns exec ns1 ibv_devinfo -d fab1 -v) && echo \"\$out\" | grep -q 'state:.*PORT_ACTIVE' && echo \"\$out\" | grep -q 'link_layer:.*Ethernet' && echo \"\$out\" | grep -q 'active_mtu:.*1024' || { echo \"\$out\"; exit 1; }"
tap_check "fab1: RoCE v2 GID for 192.168.77.1" \
	wait_match 'GID\[ *[0-9]+\]:.*::ffff:192\.168\.77\.1, RoCE v2' devinfo ns1 fab1
tap_check "fab1: RoCE v2 GID for fd77::1" \
	wait_match 'GID\[ *[0-9]+\]:.*fd77::1, RoCE v2' devinfo ns1 fab1
tap_check "fab1: no RoCE v1 GIDs (v2 only)" sh -c \
	"! ip netns exec ns1 ibv_devinfo -d fab1 -v | grep -q 'RoCE v1'"
tap_check "fab1: node GUID derived from v1's MAC" sh -c '
	mac=$(ip netns exec ns1 cat /sys/class/net/v1/address)
	guid=$(cat /sys/class/infiniband/fab1/node_guid)
	# EUI-64 from a MAC: flip the U/L bit, insert ff:fe.
	b0=$(printf %02x $(( 0x${mac%%:*} ^ 2 )))
	rest=${mac#*:}
	want=$(echo "$b0:$rest" | awk -F: "{printf \"%s%s:%sff:fe%s:%s%s\", \$1,\$2,\$3,\$4,\$5,\$6}")
	[ "$guid" = "$want" ] || { echo "guid $guid want $want"; exit 1; }'
tap_check "ibv_devinfo -d rxe0 still works" ibv_devinfo -d rxe0

# The port follows the netdev.
tap_check "new address 192.168.77.11 gets a GID" sh -c \
	"ip netns exec ns1 ip addr add 192.168.77.11/24 dev v1 && true"
tap_check "... visible in the GID table" \
	wait_match '::ffff:192\.168\.77\.11, RoCE v2' devinfo ns1 fab1
tap_check "removed address loses its GID" sh -c \
	"ip netns exec ns1 ip addr del 192.168.77.11/24 dev v1"
tap_check "... gone from the GID table" \
	wait_nomatch '::ffff:192\.168\.77\.11' devinfo ns1 fab1
tap_check "MTU 9000 gives active_mtu 4096" sh -c \
	"ip netns exec ns1 ip link set v1 mtu 9000 && ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'active_mtu:.*4096'"
ip netns exec ns1 ip link set v1 mtu 1500
tap_check "peer down: fab1 loses carrier, PORT_DOWN" sh -c \
	"ip netns exec ns2 ip link set v2 down && sleep 0.5 && ip netns exec ns1 ibv_devinfo -d fab1 | grep -q 'state:.*PORT_DOWN'"
tap_check "peer up: fab1 PORT_ACTIVE again" sh -c \
	"ip netns exec ns2 ip link set v2 up && true"
tap_check "... back to ACTIVE" wait_match 'state:.*PORT_ACTIVE' ip netns exec ns1 ibv_devinfo -d fab1

# The parent device: device/net/ names the netdev (pyverbs reads it), it
# follows a rename, and it carries no modalias for libibverbs to match.
tap_check "fab1's device/net/ holds v1 (in ns1)" sh -c \
	'ip netns exec ns1 ls /sys/class/infiniband/fab1/device/net/ | grep -qx v1 && ip netns exec ns1 cat /sys/class/infiniband/fab1/device/net/v1/address'
tap_check "... and follows a rename of v1" sh -c \
	'ip netns exec ns1 ip link set v1 down && ip netns exec ns1 ip link set v1 name v1x && out=$(ip netns exec ns1 ls /sys/class/infiniband/fab1/device/net/) && ip netns exec ns1 ip link set v1x name v1 && ip netns exec ns1 ip link set v1 up && [ "$out" = v1x ] && ip netns exec ns1 ls /sys/class/infiniband/fab1/device/net/ | grep -qx v1'
tap_check "... parent in class sroce, no modalias" sh -c \
	'p=$(readlink -f /sys/class/infiniband/fab1/device) && case $p in /sys/devices/virtual/sroce/sroce*) ;; *) echo "parent $p"; exit 1;; esac && [ ! -e "$p/modalias" ]'
wait_for 10 _link_ready ns1 v1

# Bad input: each fails with an error (and logs a line).
tap_check "missing netdev fails" sh -c '! rdma link add x type sroce netdev nosuch'
tap_check "non-Ethernet netdev (lo) fails" sh -c \
	'! rdma link add x type sroce netdev lo && dmesg | grep -q "sroce: x: netdev lo is not Ethernet"'
tap_check "duplicate name fails" sh -c \
	'ip netns exec ns1 ip link add d0 type veth peer name d0p && ! ip netns exec ns1 rdma link add fab1 type sroce netdev d0 && dmesg | grep -q "sroce: device name fab1 is already in use"'
tap_check "second device on the same netdev fails" sh -c \
	'! ip netns exec ns1 rdma link add fab9 type sroce netdev v1 && dmesg | grep -q "netdev v1 already has sroce device fab1"'

# Teardown.
tap_check "rdma link delete fab1 removes it" sh -c \
	'rdma link delete fab1 && ! ibv_devices | grep -qw fab1'
tap_check "... and ns1 no longer binds UDP 4791" sh -c \
	'[ -z "$(ip netns exec ns1 ss -Hlun "sport = :4791")" ]'
tap_check "deleting the veth removes fab2" sh -c \
	'ip netns exec ns2 ip link del v2 && true'
tap_check "... fab2 gone" wait_nomatch 'fab2' ibv_devices
tap_check "... and both parents with them" sh -c \
	'[ -z "$(ls /sys/class/sroce/)" ]'

tap_check "rmmod sroce with a device present" sh -c \
	'ip netns exec ns1 rdma link add fab3 type sroce netdev d0 && ip netns exec ns1 ip link set d0 up && ibv_devices | grep -qw fab3 && rmmod sroce && ! ibv_devices | grep -qw fab3'
rdma link delete rxe0
tap_done
