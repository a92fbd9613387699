#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Independent RoCEv2 ICRC reference, and generator of icrc_vectors.h.

Written from the spec text (IBTA annex A17), sharing no code with
proto/icrc.c: Python's zlib.crc32 is the Ethernet CRC-32 (init all ones,
final inversion), computed over

    8 x 0xff | IP hdr (masked) | UDP hdr (csum = 1s) | BTH (byte 4 = 1s) | rest

and stored least significant byte first.  The result is cross-checked
against

  * a RoCEv2 CNP captured from a ConnectX-4 Lx (published in scapy's
    test suite), i.e. real hardware, IPv4;
  * scapy's own ICRC code (contrib/roce.py, IPv4 only) when scapy is
    importable (apt-get install python3-scapy; run with /usr/bin/python3).

Usage: icrc_vectors.py > ../icrc_vectors.h
"""

import struct
import sys
import zlib


def icrc(l3, ipv6):
    """ICRC value of the L3 packet l3 (IP header .. pad, no ICRC)."""
    b = bytearray(l3)
    if ipv6:
        iplen = 40
        b[0] |= 0x0F                  # traffic class high nibble
        b[1:4] = b"\xff\xff\xff"      # TC low nibble + flow label
        b[7] = 0xFF                   # hop limit
    else:
        iplen = (b[0] & 0x0F) * 4
        b[1] = 0xFF                   # TOS
        b[8] = 0xFF                   # TTL
        b[10:12] = b"\xff\xff"        # header checksum
    b[iplen + 6:iplen + 8] = b"\xff\xff"   # UDP checksum
    b[iplen + 8 + 4] = 0xFF                # BTH FECN/BECN/resv6a
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def with_icrc(l3, ipv6):
    return l3 + struct.pack("<I", icrc(l3, ipv6))


def ip4_csum(h):
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(tos, ident, ttl, src, dst, payload_len, options=b""):
    ihl = 5 + len(options) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + payload_len,
                    ident, 0x4000, ttl, 17, 0, bytes(src), bytes(dst))
    h += options
    c = ip4_csum(h)
    return h[:10] + struct.pack("!H", c) + h[12:]


def ipv6(tc, flow, hop, src, dst, payload_len):
    w0 = (6 << 28) | (tc << 20) | flow
    return struct.pack("!IHBB16s16s", w0, payload_len, 17, hop,
                       bytes(src), bytes(dst))


def udp(sport, length, csum):
    return struct.pack("!HHHH", sport, 4791, length, csum)


def bth(opcode, se, mig, pad, pkey, fecn, becn, qpn, ack, psn):
    b1 = (se << 7) | (mig << 6) | (pad << 4)
    b4 = (fecn << 7) | (becn << 6)
    return struct.pack("!BBHI", opcode, b1, pkey, (b4 << 24) | qpn) + \
        struct.pack("!I", (ack << 31) | psn)


def l3_packet(ip_fn, udp_csum, sport, transport):
    """IP/UDP around transport (BTH .. pad), room left for the ICRC."""
    ulen = 8 + len(transport) + 4
    return ip_fn(ulen) + udp(sport, ulen, udp_csum) + transport


def vectors():
    v = []

    # ConnectX-4 Lx CNP capture (scapy test/contrib/roce.uts), from the IP
    # header on.  The hardware's ICRC bytes are the last four.
    cx4 = bytes.fromhex(
        "45c2003c718c400040119161 0a001101 0a001201"
        "000012b700280000"
        "8100ffff400001180000 0000"
        "00000000000000000000000000000000"
        "82fd002a".replace(" ", ""))
    assert with_icrc(cx4[:-4], False) == cx4, "CX-4 CNP ICRC mismatch"
    v.append(("v4_cnp_connectx4", False, cx4))

    # RC RDMA WRITE ONLY with immediate, IPv4 with one option word,
    # ECN CE, FECN set, nonzero UDP checksum, 7 payload bytes + 1 pad.
    pay = bytes(range(0x30, 0x37)) + b"\x00"
    tr = bth(0x0B, 1, 0, 1, 0x8001, 1, 0, 0x123456, 1, 0xFFFFFE) + \
        struct.pack("!QII", 0x1122334455667788, 0xCAFEBABE, 7) + \
        struct.pack("!I", 0xDEADBEEF) + pay
    l3 = l3_packet(lambda n: ipv4(0x6B, 0x1234, 17, [10, 0, 0, 1],
                                  [10, 0, 0, 2], n,
                                  options=b"\x01\x01\x01\x00"),
                   0xBEEF, 0xC001, tr)
    v.append(("v4_rc_write_only_imm_opts", False, with_icrc(l3, False)))

    # UD SEND ONLY with immediate over IPv6: TC, flow label, hop limit all
    # nonzero, FECN and BECN set, 13 payload bytes + 3 pad.
    pay = bytes(range(0xA0, 0xAD)) + b"\x00\x00\x00"
    tr = bth(0x65, 1, 1, 3, 0xFFFF, 1, 1, 0x000001, 0, 0x000100) + \
        struct.pack("!II", 0x80010000, 0x00ABCDEF) + \
        struct.pack("!I", 0x01020304) + pay
    src = bytes.fromhex("fe80000000000000021122fffe334455")
    dst = bytes.fromhex("20010db8000000000000000000000042")
    l3 = l3_packet(lambda n: ipv6(0x8B, 0x12345, 17, src, dst, n),
                   0x0000, 0xD00D, tr)
    v.append(("v6_ud_send_only_imm", True, with_icrc(l3, True)))

    # RC ACK over IPv6 (syndrome: ACK, 31 credits code), no payload.
    tr = bth(0x11, 0, 0, 0, 0xFFFF, 0, 0, 0x00FACE, 0, 0x7FFFFF) + \
        struct.pack("!I", (0x1F << 24) | 0x000042)
    l3 = l3_packet(lambda n: ipv6(0x00, 0x00000, 64, dst, src, n),
                   0x0000, 0xE000, tr)
    v.append(("v6_rc_ack", True, with_icrc(l3, True)))

    # RC READ RESPONSE MIDDLE over IPv6 with a 256-byte payload, for the
    # streaming interface.
    pay = bytes((i * 7 + 3) & 0xFF for i in range(256))
    tr = bth(0x0E, 0, 0, 0, 0x7FFF, 0, 1, 0xABCDEF, 0, 0x000000) + pay
    l3 = l3_packet(lambda n: ipv6(0xFF, 0xFFFFF, 255, src, dst, n),
                   0x1234, 0xC0DE, tr)
    v.append(("v6_rc_read_resp_middle", True, with_icrc(l3, True)))
    return v


def scapy_check():
    """Cross-check IPv4 against scapy's independent ICRC; None if absent."""
    try:
        from scapy.all import IP, UDP, Raw
        from scapy.contrib.roce import BTH  # noqa: F401 (binds UDP 4791)
    except ImportError:
        return None
    n = 0
    for name, is6, pkt in vectors():
        if is6:
            continue
        p = IP(pkt)
        if BTH not in p:
            raise SystemExit("scapy did not decode BTH in " + name)
        del p[BTH].icrc
        rebuilt = bytes(p)
        if rebuilt[-4:] != pkt[-4:]:
            raise SystemExit("scapy disagrees on " + name)
        n += 1
    # scapy's own UC SEND ONLY example (test/contrib/roce.uts).
    p = IP(version=4, ihl=5, tos=0x1, id=1144, flags="DF", frag=0, ttl=64,
           src="192.168.0.7", dst="192.168.0.7", len=64) / \
        UDP(sport=49152, dport=4791, len=44) / \
        BTH(opcode=0x24, migreq=1, padcount=2, pkey=0xFFFF, dqpn=211,
            psn=13571856) / \
        Raw(b"F0\x81\x8b\xe2\x895\xd9\x0e\x9a\x95PT\x01\xbe\x88^P\x00\x00")
    b = bytes(p)
    assert with_icrc(b[:-4], False) == b, "scapy UC example mismatch"
    assert struct.unpack("!I", b[-4:])[0] == 0x78F353F3
    return n + 1, b


def c_array(name, is6, data):
    out = ["static const uint8_t %s[] = {" % name]
    for i in range(0, len(data), 12):
        out.append("\t" + ", ".join("0x%02x" % x for x in data[i:i + 12]) +
                   ",")
    out.append("};")
    return "\n".join(out)


def main():
    vs = vectors()
    chk = scapy_check()
    if chk is not None:
        n, uc = chk
        vs.insert(1, ("v4_uc_send_only_scapy", False, uc))
        sys.stderr.write("scapy agrees on %d IPv4 vectors\n" % n)
    else:
        sys.stderr.write("scapy not importable: no scapy cross-check\n")
    print("/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */")
    print("/* Generated by tools/icrc_vectors.py: do not edit. */")
    print("#ifndef _SROCE_ICRC_VECTORS_H")
    print("#define _SROCE_ICRC_VECTORS_H\n")
    for name, is6, data in vs:
        print(c_array(name, is6, data) + "\n")
    print("static const struct icrc_vector {")
    print("\tconst char *name;\n\tbool ipv6;\n\tconst uint8_t *pkt;")
    print("\tsize_t len;\n} icrc_vectors[] = {")
    for name, is6, data in vs:
        print("\t{ \"%s\", %s,\n\t  %s, sizeof(%s) }," %
              (name, "true" if is6 else "false", name, name))
    print("};\n\n#endif")


if __name__ == "__main__":
    main()
