#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Wire conformance of captured RoCEv2 traffic, written apart from sroce.

roce_check.py [options] CAPTURE.pcap

Reads a classic pcap (dumpcap -P) of Ethernet frames and, for every UDP
packet to port 4791:

  * recomputes the ICRC from the spec's masked pseudo header (IBTA annex
    A17: 8 bytes of ones for the LRH, IPv4 TOS/TTL/checksum or IPv6 traffic
    class/flow label/hop limit as ones, the UDP checksum as ones, BTH byte 4
    as ones) and compares it with the packet's last four bytes;
  * checks the IPv4 header checksum and the UDP length and checksum: a
    valid checksum, or zero over IPv4; over IPv6 zero is counted (rdma_rxe
    on Linux 6.1 sends it) and is an error only from the --ours addresses;
  * from the --ours addresses (the node under test) also checks the BTH:
    version 0, known opcode, header and pad sizes that match the opcode
    and the payload, FIRST/MIDDLE payloads of exactly --pmtu bytes, the
    ack-request bit on the last packet of every RC request, the solicited
    event bit only where the spec defines it, reserved bits zero;
  * sroce's one negotiated extension (Documentation/wire.rst): BTH byte 8
    bit 6 may offer it on requests; on responses and ACKs that carry SACK
    blocks it answers an offer, so it must only go to an address whose
    requests offered somewhere in the capture (it may begin after the
    offer), and a block must be well formed; a requester that was never
    answered must stop offering within a window;
  * its second one, ICRC elision: bit 5 of byte 8 ("accepts elided ICRCs")
    only beside bit 6; a packet with bit 4 ("ICRC elided") must go to an
    address that said bit 5 before, carry a valid non-zero UDP checksum and
    a zero ICRC field, which is then not checked against the computed one;
  * its third, large segments: bit 3 of byte 8 ("takes large segments")
    only beside bit 6, on responses; FIRST/MIDDLE SEND and WRITE packets
    of pmtu..8192 bytes (and others up to 8192) only toward an address that
    said bit 3 somewhere in the capture (it may begin after the answer).

Every packet is checked, the peer's too: a peer's bad ICRC means either the
peer or this checker is wrong, and both are worth failing for.  Prints one
line per problem (up to --max-report) and a summary; exits 1 if any check
failed or fewer than --min-ours packets came from --ours, 0 otherwise.

Stdlib only (no scapy): it runs in a TCG guest, where importing scapy
alone costs seconds.  --self-test checks the ICRC code against a packet
captured from a ConnectX-4 and exits.
"""
import argparse
import ipaddress
import re
import struct
import sys
import zlib

# Extension headers after the BTH, by the low five opcode bits.
RETH, AETH, IMM, IETH, DETH, ATOMIC, ATOMICACK = 16, 4, 4, 4, 8, 28, 8

# name, extension header bytes, carries payload, is "first or middle" of a
# multi-packet message, ends a request (RC: ack-request expected), may
# carry the solicited-event bit.
_RC = {
    0x00: ("SEND_FIRST", 0, True, True, False, False),
    0x01: ("SEND_MIDDLE", 0, True, True, False, False),
    0x02: ("SEND_LAST", 0, True, False, True, True),
    0x03: ("SEND_LAST_IMM", IMM, True, False, True, True),
    0x04: ("SEND_ONLY", 0, True, False, True, True),
    0x05: ("SEND_ONLY_IMM", IMM, True, False, True, True),
    0x06: ("WRITE_FIRST", RETH, True, True, False, False),
    0x07: ("WRITE_MIDDLE", 0, True, True, False, False),
    0x08: ("WRITE_LAST", 0, True, False, True, False),
    0x09: ("WRITE_LAST_IMM", IMM, True, False, True, True),
    0x0a: ("WRITE_ONLY", RETH, True, False, True, False),
    0x0b: ("WRITE_ONLY_IMM", RETH + IMM, True, False, True, True),
    0x0c: ("READ_REQUEST", RETH, False, False, True, False),
    0x0d: ("READ_RESPONSE_FIRST", AETH, True, True, False, False),
    0x0e: ("READ_RESPONSE_MIDDLE", 0, True, True, False, False),
    0x0f: ("READ_RESPONSE_LAST", AETH, True, False, False, False),
    0x10: ("READ_RESPONSE_ONLY", AETH, True, False, False, False),
    0x11: ("ACKNOWLEDGE", AETH, False, False, False, False),
    0x12: ("ATOMIC_ACKNOWLEDGE", AETH + ATOMICACK, False, False, False, False),
    0x13: ("COMPARE_SWAP", ATOMIC, False, False, True, False),
    0x14: ("FETCH_ADD", ATOMIC, False, False, True, False),
    0x16: ("SEND_LAST_INV", IETH, True, False, True, True),
    0x17: ("SEND_ONLY_INV", IETH, True, False, True, True),
    # IBTA 1.5: the 8 bytes to store follow the RETH.
    0x1d: ("ATOMIC_WRITE", RETH, True, False, True, False),
}


def _opcodes():
    ops = {}
    for low, v in _RC.items():
        ops[low] = ("RC_" + v[0],) + v[1:] + ("RC",)
        if low <= 0x0b:
            ops[0x20 | low] = ("UC_" + v[0],) + v[1:] + ("UC",)
    ops[0x64] = ("UD_SEND_ONLY", DETH, True, False, True, True, "UD")
    ops[0x65] = ("UD_SEND_ONLY_IMM", DETH + IMM, True, False, True, True, "UD")
    # Congestion notification: 16 reserved bytes, no payload.
    ops[0x81] = ("CNP", 16, False, False, False, False, "CNP")
    return ops


OPCODES = _opcodes()
PMTUS = (256, 512, 1024, 2048, 4096)
# sroce's extension bit (BTH byte 8, bit 6) and its ACK block.
EXT_BIT = 0x40
NOCRC_OK_BIT, NOCRC_BIT = 0x20, 0x10
SEG_OK_BIT, SEG_MAX = 0x08, 8192
SACK_TYPE, SACK_BLOCKS_MAX = 1, 8
# The most requests a requester sends before a response answers its
# offer: sroce's largest window.
OFFERS_MAX = 8192
RESPONSES = ("READ_RESPONSE", "ACKNOWLEDGE", "ATOMIC_ACKNOWLEDGE")


def icrc(l3, ipv6):
    """ICRC of a packet: l3 = IP header .. end of pad (ICRC excluded)."""
    p = bytearray(l3)
    if ipv6:
        ihl = 40
        p[0] |= 0x0f            # traffic class (high nibble) ...
        p[1:4] = b"\xff\xff\xff"  # ... and flow label
        p[7] = 0xff             # hop limit
    else:
        ihl = (p[0] & 0x0f) * 4
        p[1] = 0xff             # TOS
        p[8] = 0xff             # TTL
        p[10:12] = b"\xff\xff"  # header checksum
    p[ihl + 6:ihl + 8] = b"\xff\xff"    # UDP checksum
    p[ihl + 8 + 4] = 0xff               # BTH resv8a (FECN/BECN)
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def ones_sum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def udp_csum_ok(src, dst, udp, ipv6):
    """True if the UDP checksum (non-zero) verifies over the pseudo header."""
    if ipv6:
        pseudo = src + dst + struct.pack("!IxxxB", len(udp), 17)
    else:
        pseudo = src + dst + struct.pack("!xBH", 17, len(udp))
    return ones_sum(pseudo + udp) == 0xffff


def pseudo_sum(src, dst, ulen, ipv6):
    """What a sender leaves in the UDP checksum field for the NIC to
    complete (CHECKSUM_PARTIAL): the pseudo header's folded sum."""
    if ipv6:
        pseudo = src + dst + struct.pack("!IxxxB", ulen, 17)
    else:
        pseudo = src + dst + struct.pack("!xBH", 17, ulen)
    return ones_sum(pseudo)


def pcap_frames(path):
    """(linktype, frame bytes) of a classic pcap file, either byte order."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise ValueError("%s: not a pcap file" % path)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            end = "<"
        elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
            end = ">"
        else:
            raise ValueError("%s: not a classic pcap (use dumpcap -P)" % path)
        linktype = struct.unpack(end + "I", hdr[20:24])[0]
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, caplen, wirelen = struct.unpack(end + "IIII", rec)
            data = f.read(caplen)
            if len(data) < caplen:
                return
            yield linktype, data, caplen < wirelen


class Checker:
    def __init__(self, ours, pmtu, max_report):
        self.ours = ours
        self.pmtu = pmtu
        self.max_report = max_report
        self.problems = 0
        self.n = {"ours": 0, "peer": 0, "ours4": 0, "ours6": 0,
                  "peer4": 0, "peer6": 0, "icrc_ok": 0,
                  "peer_udp6_zero": 0, "truncated": 0, "ackreq": 0,
                  "se": 0, "ext_resp": 0, "sack": 0, "elided": 0,
                  "large": 0}
        self.ops = {}
        self.kinds = {}
        # Addresses whose requests offered the extension, or whose
        # responses accepted it; our offers by (peer address, its QPN).
        self.peer_offered = set()
        self.peer_accepted = set()
        self.offers = {}
        # Addresses that said they accept packets without an ICRC.
        self.nocrc_ok = set()
        # Addresses that said they take large segments; our large
        # packets by destination (first frame, count), judged at the end.
        self.seg_ok = set()
        self.large = {}
        self.large_sizes = set()
        # Our responses with the extension bit, by destination.
        self.ext_to = {}

    def bad(self, frame, who, msg):
        self.problems += 1
        kind = (who.split()[0], re.sub(r"0x[0-9a-f]+|[0-9]+", "N", msg))
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.problems <= self.max_report:
            print("frame %d (%s): %s" % (frame, who, msg))

    def frame(self, num, data):
        if len(data) < 14:
            return
        etype = struct.unpack("!H", data[12:14])[0]
        l3 = data[14:]
        if etype == 0x0800 and len(l3) >= 20 and l3[0] >> 4 == 4:
            ipv6 = False
            ihl = (l3[0] & 0x0f) * 4
            tot = struct.unpack("!H", l3[2:4])[0]
            if l3[9] != 17 or tot > len(l3) or tot < ihl + 8:
                return
            if struct.unpack("!H", l3[6:8])[0] & 0x3fff:
                return          # a fragment: RoCE sets DF, not ours to judge
            l3 = l3[:tot]       # drop Ethernet padding
            src, dst = l3[12:16], l3[16:20]
        elif etype == 0x86dd and len(l3) >= 48 and l3[0] >> 4 == 6:
            ipv6 = True
            ihl = 40
            plen = struct.unpack("!H", l3[4:6])[0]
            if l3[6] != 17 or 40 + plen > len(l3):
                return
            l3 = l3[:40 + plen]
            src, dst = l3[8:24], l3[24:40]
        else:
            return
        udp = l3[ihl:]
        if struct.unpack("!H", udp[2:4])[0] != 4791:
            return
        saddr = ipaddress.ip_address(src)
        mine = saddr in self.ours
        who = ("sroce " if mine else "peer ") + str(saddr)
        key = ("ours" if mine else "peer")
        self.n[key] += 1
        self.n[key + ("6" if ipv6 else "4")] += 1

        if not ipv6 and ones_sum(l3[:ihl]) != 0xffff:
            self.bad(num, who, "bad IPv4 header checksum")
        ulen, ucsum = struct.unpack("!HH", udp[4:8])
        if ulen != len(udp):
            self.bad(num, who, "UDP length %d, IP says %d" % (ulen, len(udp)))
            return
        if ucsum == 0:
            if ipv6 and mine:
                self.bad(num, who, "zero UDP checksum over IPv6")
            elif ipv6:
                self.n["peer_udp6_zero"] += 1
        elif not udp_csum_ok(src, dst, udp, ipv6):
            hint = ""
            if ucsum == pseudo_sum(src, dst, len(udp), ipv6):
                hint = " (the pseudo header's sum: captured before " \
                       "checksum offload computed it?)"
            self.bad(num, who, "bad UDP checksum 0x%04x%s" % (ucsum, hint))

        ib = udp[8:]
        if len(ib) < 12 + 4:
            self.bad(num, who, "shorter than BTH + ICRC (%d bytes)" % len(ib))
            return
        want = icrc(l3[:-4], ipv6)
        got = struct.unpack("<I", l3[-4:])[0]
        if ib[8] & NOCRC_OK_BIT and ib[8] & EXT_BIT:
            self.nocrc_ok.add(saddr)
        if ib[8] & SEG_OK_BIT and ib[8] & EXT_BIT:
            self.seg_ok.add(saddr)
        daddr = ipaddress.ip_address(dst)
        if ib[8] & NOCRC_BIT:
            self.elided(num, who, daddr, ucsum, got)
        elif want != got:
            self.bad(num, who, "ICRC 0x%08x, computed 0x%08x" % (got, want))
        else:
            self.n["icrc_ok"] += 1
        self.bth(num, who, mine, ib[:-4], daddr)

    def elided(self, num, who, daddr, ucsum, got):
        """A packet that says its ICRC is elided: the UDP checksum (checked
        above when non-zero) must stand in, toward a peer that agreed."""
        self.n["elided"] += 1
        if daddr not in self.nocrc_ok:
            self.bad(num, who, "ICRC elided toward %s, which never "
                     "accepted that" % daddr)
        if ucsum == 0:
            self.bad(num, who, "ICRC elided without a UDP checksum")
        if got != 0:
            self.bad(num, who, "ICRC elided, field 0x%08x not zero" % got)

    def ext(self, num, who, mine, ib, name, daddr):
        """The extension bit: True if the bytes after an ACK's AETH are a
        SACK block judged here."""
        if not ib[8] & EXT_BIT:
            return False
        resp = name[3:].startswith(RESPONSES)
        # Both ends may be sroce (--ours twice): every sender counts.
        (self.peer_accepted if resp else self.peer_offered).add(
            ipaddress.ip_address(who.split()[1]))
        if not mine:
            return False
        if not resp:
            key = (daddr, struct.unpack("!I", b"\0" + ib[5:8])[0])
            self.offers[key] = self.offers.get(key, 0) + 1
            return False
        self.n["ext_resp"] += 1
        # Judged at the end: a capture that began late may hold answers
        # whose offers it missed.
        first, cnt = self.ext_to.get(daddr, (num, 0))
        self.ext_to[daddr] = (first, cnt + 1)
        if not name.endswith("ACKNOWLEDGE") or name.endswith("ATOMIC_ACKNOWLEDGE"):
            return False
        blk = ib[16:]
        if not blk:
            return True
        self.n["sack"] += 1
        if (blk[0] != SACK_TYPE or not 1 <= blk[1] <= SACK_BLOCKS_MAX or
                len(blk) != 4 + 8 * blk[1]):
            self.bad(num, who, "%s: malformed SACK block (%d bytes)" %
                     (name, len(blk)))
        return True

    def bth(self, num, who, mine, ib, daddr):
        op, b1 = ib[0], ib[1]
        se, mig, pad, tver = b1 >> 7, (b1 >> 6) & 1, (b1 >> 4) & 3, b1 & 0xf
        ackreq = ib[8] >> 7
        info = OPCODES.get(op)
        name = info[0] if info else "0x%02x" % op
        self.ops[(mine, name)] = self.ops.get((mine, name), 0) + 1
        sack = info is not None and self.ext(num, who, mine, ib, name, daddr)
        if not mine:
            return              # the peer's headers are its business
        if info is None:
            self.bad(num, who, "unknown opcode 0x%02x" % op)
            return
        name, ext, payload, first_mid, ends_req, se_ok, svc = info
        if tver != 0:
            self.bad(num, who, "%s: BTH TVer %d" % (name, tver))
        if ib[4] != 0 or ib[8] & 0x07:
            self.bad(num, who, "%s: BTH reserved bits set" % name)
        if ib[8] & NOCRC_OK_BIT and not ib[8] & EXT_BIT:
            self.bad(num, who, "%s: bit 5 (accepts elided ICRCs) without "
                     "bit 6" % name)
        if ib[8] & SEG_OK_BIT and (not ib[8] & EXT_BIT or
                                   not name[3:].startswith(RESPONSES)):
            self.bad(num, who, "%s: bit 3 (takes large segments) without "
                     "bit 6, or on a request" % name)
        if len(ib) < 12 + ext:
            self.bad(num, who, "%s: %d bytes, headers need %d" %
                     (name, len(ib), 12 + ext))
            return
        body = len(ib) - 12 - ext
        if body % 4:
            self.bad(num, who, "%s: payload + pad %d not a multiple of 4" %
                     (name, body))
        if sack:
            pass                # judged in ext()
        elif not payload:
            if body or pad:
                self.bad(num, who, "%s: %d bytes after headers, pad %d" %
                         (name, body, pad))
        elif first_mid:
            if pad:
                self.bad(num, who, "%s: pad %d" % (name, pad))
            if body != self.pmtu and not self.large_ok(num, name, body,
                                                       daddr, True):
                self.bad(num, who, "%s: payload %d, path MTU %d" %
                         (name, body, self.pmtu))
        elif body < pad or (body - pad > self.pmtu and
                            not self.large_ok(num, name, body - pad, daddr,
                                              False)):
            self.bad(num, who, "%s: payload %d pad %d, path MTU %d" %
                     (name, body - pad, pad, self.pmtu))
        if name == "RC_ATOMIC_WRITE" and (body != 8 or pad or
                                          ib[24:28] != b"\0\0\0\x08"):
            self.bad(num, who, "%s: payload %d pad %d, RETH DMA length "
                     "%s; 8 expected" % (name, body - pad, pad,
                                          ib[24:28].hex()))
        if svc == "RC" and ends_req:
            if ackreq:
                self.n["ackreq"] += 1
            else:
                self.bad(num, who, "%s: last packet of a request without "
                         "the ack-request bit" % name)
        if se:
            self.n["se"] += 1
            if not se_ok:
                self.bad(num, who, "%s: solicited-event bit set" % name)
        del mig                 # MigReq: either value is legal

    def large_ok(self, num, name, payload, daddr, first_mid):
        """A SEND or WRITE payload beyond the path MTU: a large segment,
        if within bounds; whether the peer took them is judged at the end."""
        if (name.split("_")[0] not in ("RC", "XRC") or
                ("SEND" not in name and "WRITE" not in name)):
            return False
        if payload > SEG_MAX or (first_mid and payload < self.pmtu):
            return False
        if first_mid:
            self.large_sizes.add(payload)
        first, cnt = self.large.get(daddr, (num, 0))
        self.large[daddr] = (first, cnt + 1)
        self.n["large"] += 1
        return True

    def finish(self):
        """What needs the whole capture: offers never answered, large
        segments toward a peer that never said it takes them, the
        extension bit toward one that never offered it."""
        for daddr, (first, cnt) in sorted(self.ext_to.items(),
                                          key=lambda kv: str(kv[0])):
            if daddr not in self.peer_offered:
                self.bad(first, "sroce", "%d responses with the extension "
                         "bit to %s, which never offered it" % (cnt, daddr))
        for daddr, (first, cnt) in sorted(self.large.items(),
                                          key=lambda kv: str(kv[0])):
            if daddr not in self.seg_ok:
                self.bad(first, "sroce", "%d large segments to %s, which "
                         "never said it takes them" % (cnt, daddr))
        # IPv4 and IPv6 addresses do not compare: sort by their text.
        for (daddr, qpn), cnt in sorted(self.offers.items(),
                                        key=lambda kv: (str(kv[0][0]),
                                                        kv[0][1])):
            if daddr not in self.peer_accepted and cnt > OFFERS_MAX:
                self.bad(0, "sroce", "%d requests to %s QP %d offered the "
                         "extension, never answered" % (cnt, daddr, qpn))

    def summary(self):
        n = self.n
        print("extension: sroce offered on %d requests; offered by %s, "
              "accepted by %s; sroce answered on %d responses, %d with SACK "
              "blocks" % (sum(self.offers.values()),
                          sorted(map(str, self.peer_offered)) or "none",
                          sorted(map(str, self.peer_accepted)) or "none",
                          n["ext_resp"], n["sack"]))
        print("packets: sroce %d (IPv4 %d, IPv6 %d), peer %d (IPv4 %d, "
              "IPv6 %d); ICRC good %d; peer IPv6 zero UDP checksums %d; "
              "sroce RC request ends with AckReq %d, SE set %d; problems %d"
              % (n["ours"], n["ours4"], n["ours6"], n["peer"], n["peer4"],
                 n["peer6"], n["icrc_ok"], n["peer_udp6_zero"], n["ackreq"],
                 n["se"], self.problems))
        print("ICRC elided on %d packets; elision accepted by %s" %
              (n["elided"], sorted(map(str, self.nocrc_ok)) or "none"))
        print("large segments on %d packets, FIRST/MIDDLE of %s; taken by %s"
              % (n["large"], sorted(self.large_sizes),
                 sorted(map(str, self.seg_ok)) or "none"))
        for (who, msg), cnt in sorted(self.kinds.items()):
            print("  problem: %s: %s: %d packets" % (who, msg, cnt))
        for (mine, name), cnt in sorted(self.ops.items()):
            print("  %s %-26s %d" % ("sroce" if mine else "peer ", name, cnt))


# Captured from a ConnectX-4 (a CNP over IPv4): IP header .. ICRC.
CX4_CNP = bytes.fromhex(
    "45c2003c718c4000401191610a0011010a001201000012b7"
    "002800008100ffff40000118" + "00" * 20 + "82fd002a")


def self_test():
    want = struct.unpack("<I", CX4_CNP[-4:])[0]
    got = icrc(CX4_CNP[:-4], False)
    bent = bytearray(CX4_CNP)
    bent[30] ^= 1               # a bit of the BTH's P_Key
    masked = bytearray(CX4_CNP)
    masked[8] = 3               # TTL: masked, must not matter
    ok = (got == want and icrc(bytes(bent[:-4]), False) != want and
          icrc(bytes(masked[:-4]), False) == want)
    print("self-test: ICRC 0x%08x, packet 0x%08x: %s" %
          (got, want, "ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture", nargs="?")
    ap.add_argument("--ours", action="append", default=[],
                    help="address of the node under test (repeatable)")
    ap.add_argument("--pmtu", type=int, default=1024, choices=PMTUS)
    ap.add_argument("--min-ours", type=int, default=1,
                    help="fail with fewer packets from --ours")
    ap.add_argument("--min-ours6", type=int, default=0,
                    help="fail with fewer IPv6 packets from --ours")
    ap.add_argument("--max-report", type=int, default=50)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.capture:
        ap.error("no capture file")
    c = Checker({ipaddress.ip_address(x) for x in a.ours}, a.pmtu,
                a.max_report)
    num = 0
    for linktype, data, truncated in pcap_frames(a.capture):
        num += 1
        if linktype != 1:
            print("link type %d, want Ethernet" % linktype)
            return 1
        if truncated:
            c.n["truncated"] += 1
            continue
        c.frame(num, data)
    c.finish()
    c.summary()
    if c.n["truncated"]:
        print("%d truncated frames skipped" % c.n["truncated"])
    fail = c.problems != 0
    if c.n["ours"] < a.min_ours:
        print("only %d packets from sroce, want %d" % (c.n["ours"], a.min_ours))
        fail = True
    if c.n["ours6"] < a.min_ours6:
        print("only %d IPv6 packets from sroce, want %d" %
              (c.n["ours6"], a.min_ours6))
        fail = True
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
