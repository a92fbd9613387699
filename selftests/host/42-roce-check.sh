#!/bin/bash
# selftests/tools/roce_check.py, the capture checker the VM tests rely on,
# must fail what it is there to catch.  Its ICRC against a ConnectX-4
# capture (--self-test), then its rules for ICRC elision on small pcaps
# written here: an elided packet to a peer that said it accepts them
# passes; to one that never did, with a non-zero ICRC field, without a
# UDP checksum or with only the pseudo header's sum (captured before
# checksum offload) it fails, as does bit 5 without bit 6.  Then large
# segments: toward a peer that said bit 3 they pass, even captured before
# the answer; toward one that never did, over 8192 bytes, or bit 3 on a
# request, they fail.  An answer with the extension bit passes if the
# capture holds the offer anywhere, and fails if it holds none.
# shellcheck disable=SC2317 # functions below are called via tap_check
set -u
SROCE_TREE=$(cd "$(dirname "$0")/../.." && pwd)
. "$SROCE_TREE/selftests/lib.sh"

TOOLS=$SROCE_TREE/selftests/tools
OUT=$SROCE_RESULTS/roce-check

# mkpcap NAME CASE: the pcap of CASE (below) in $OUT.NAME.pcap.
mkpcap() {
	/usr/bin/python3 - "$OUT.$1.pcap" "$2" <<'EOF'
import struct
import sys

import roce_check as rc


A, B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
ACKREQ, EXT, OK, NOCRC = 0x80, rc.EXT_BIT, rc.NOCRC_OK_BIT, rc.NOCRC_BIT
SEG = rc.SEG_OK_BIT


def frame(src, dst, opcode, b8, body, elide=False, csum="good",
          icrc_field=0):
    """Ethernet + IPv4 + UDP + BTH + body + ICRC (or a zero field)."""
    bth = struct.pack("!BBHB3sB3s", opcode, 0, 0xffff, 0,
                      (0x11).to_bytes(3, "big"), b8, (7).to_bytes(3, "big"))
    udp_len = 8 + len(bth) + len(body) + 4
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 1,
                               0x4000, 64, 17, 0, src, dst))
    ip[10:12] = struct.pack("!H", 0xffff - rc.ones_sum(bytes(ip)))
    udp = bytearray(struct.pack("!HHHH", 49152, 4791, udp_len, 0) + bth +
                    body + b"\0\0\0\0")
    if not elide:
        udp[-4:] = struct.pack("<I", rc.icrc(bytes(ip) + bytes(udp[:-4]),
                                             False))
    else:
        udp[-4:] = struct.pack("<I", icrc_field)
    if csum == "good":
        c = 0xffff - rc.ones_sum(src + dst + struct.pack("!xBH", 17, udp_len)
                                 + bytes(udp))
        udp[6:8] = struct.pack("!H", c or 0xffff)
    elif csum == "partial":
        udp[6:8] = struct.pack("!H", rc.pseudo_sum(src, dst, udp_len, False))
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
    return eth + bytes(ip) + bytes(udp)


SEND_FIRST, SEND, ACK = 0x00, 0x04, 0x11
offer = frame(A, B, SEND, ACKREQ | EXT | OK, b"abcd")
yes = frame(B, A, ACK, EXT | OK, b"\0\0\0\1")
no = frame(B, A, ACK, EXT, b"\0\0\0\1")
elided = dict(src=A, dst=B, opcode=SEND, b8=ACKREQ | EXT | NOCRC,
              body=b"efgh", elide=True)
cases = {
    "agreed": [offer, yes, frame(**elided)],
    "unasked": [offer, no, frame(**elided)],
    "icrc_set": [offer, yes, frame(**elided, icrc_field=0x12345678)],
    "no_csum": [offer, yes, frame(**elided, csum="zero")],
    "partial": [offer, yes, frame(**elided, csum="partial")],
    "ok_alone": [frame(A, B, SEND, ACKREQ | OK, b"abcd")],
}
seg_yes = frame(B, A, ACK, EXT | SEG, b"\0\0\0\1")
large = frame(A, B, SEND_FIRST, EXT, bytes(1432))
cases.update({
    "large_agreed": [offer, seg_yes, large],
    "large_late": [large, seg_yes],
    "large_unasked": [offer, no, large],
    "large_over": [offer, seg_yes, frame(A, B, SEND_FIRST, EXT, bytes(8196))],
    "seg_request": [frame(A, B, SEND, ACKREQ | EXT | SEG, b"abcd"), no],
    "answer_late": [yes, offer],
    "answer_unoffered": [yes],
})
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, fr in enumerate(cases[sys.argv[2]]):
        f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)
EOF
}

# check NAME WANT_EXIT PATTERN: the checker on case NAME exits WANT_EXIT
# and says PATTERN.
check() {
	local rc=0
	(cd "$TOOLS" && mkpcap "$1" "$1") || return 1
	/usr/bin/python3 "$TOOLS/roce_check.py" --ours 10.0.0.1 --ours 10.0.0.2 \
		--pmtu 1024 "$OUT.$1.pcap" >"$OUT.$1.out" 2>&1 || rc=$?
	cat "$OUT.$1.out"
	[ "$rc" = "$2" ] && grep -q "$3" "$OUT.$1.out"
}

tap_plan 14
tap_check "ICRC against a ConnectX-4 capture" \
	/usr/bin/python3 "$TOOLS/roce_check.py" --self-test
tap_check "elided toward a peer that accepted: passes" \
	check agreed 0 "ICRC elided on 1 packets; elision accepted by \['10.0.0.1', '10.0.0.2'\]"
tap_check "elided toward a peer that never accepted: fails" \
	check unasked 1 "ICRC elided toward 10.0.0.2, which never accepted"
tap_check "elided with a non-zero ICRC field: fails" \
	check icrc_set 1 "field 0x12345678 not zero"
tap_check "elided without a UDP checksum: fails" \
	check no_csum 1 "ICRC elided without a UDP checksum"
tap_check "a checksum left for offload: fails, says so" \
	check partial 1 "captured before checksum offload"
tap_check "bit 5 without bit 6: fails" \
	check ok_alone 1 "bit 5 (accepts elided ICRCs) without bit 6"
tap_check "large segments toward a peer that said bit 3: pass" \
	check large_agreed 0 "large segments on 1 packets, FIRST/MIDDLE of \[1432\]; taken by \['10.0.0.2'\]"
tap_check "large segments captured before the answer: pass" \
	check large_late 0 "large segments on 1 packets"
tap_check "large segments toward a peer that never said bit 3: fail" \
	check large_unasked 1 "1 large segments to 10.0.0.2, which never said it takes them"
tap_check "a FIRST of 8196 bytes: fails" \
	check large_over 1 "payload 8196, path MTU 1024"
tap_check "bit 3 on a request: fails" \
	check seg_request 1 "bit 3 (takes large segments) without bit 6, or on a request"
tap_check "an answer captured before its offer: passes" \
	check answer_late 0 "problems 0"
tap_check "an answer to a peer that never offered: fails" \
	check answer_unoffered 1 "1 responses with the extension bit to 10.0.0.1, which never offered it"
tap_done
