#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Raw packet QPs and flow steering on a sroce device, through pyverbs.

raw_check.py DEV CHECK [ARGS]

Run inside the device's namespace, as root.  Each CHECK prints what it saw
and exits 0 if it held, 1 if not:

  off        raw packet QPs and flows are refused with EOPNOTSUPP
  loop       frames of 14 to MTU+18 bytes (one VLAN-tagged) from one raw QP
             reach another's flow on the same device byte for byte
  nomatch    a frame no flow takes is not received; a sniffer takes it
  badlen     a frame shorter than an Ethernet header, or longer than the
             MTU allows, completes with a local length error
  udflow     a flow on a UD QP is refused with EOPNOTSUPP
  tx DMAC IP PORT   a hand-built IPv4/UDP frame to DMAC, IP:PORT leaves
             through the netdev (the peer's socket checks it arrives)
  rx PORT    a flow on UDP destination PORT receives a datagram the peer
             sends there, and a UDP socket on PORT gets it too
"""
import errno
import os
import random
import socket
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.flow import Flow, FlowAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.spec import EthSpec, TcpUdpSpec
from pyverbs.wr import SGE, RecvWR, SendWR

BUF = 4096
MCAST_DMAC = '01:50:56:19:20:a7'
SMAC = '24:8a:07:a5:28:c8'


def mac_bytes(mac):
    return bytes.fromhex(mac.replace(':', ''))


class Raw:
    """A raw packet QP in RTS with its own CQ and a buffer per direction."""

    def __init__(self, ctx, pd, nrecv=32):
        self.cq = CQ(ctx, 64)
        self.smr = MR(pd, BUF, e.IBV_ACCESS_LOCAL_WRITE)
        self.rmr = MR(pd, BUF * nrecv, e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=16, max_recv_wr=nrecv, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RAW_PACKET, scq=self.cq,
                          rcq=self.cq, cap=cap)
        self.qp = QP(pd, init, QPAttr(port_num=1))
        self.nrecv = nrecv
        for i in range(nrecv):
            self.post_recv(i)

    def post_recv(self, i):
        sge = SGE(self.rmr.buf + i * BUF, BUF, self.rmr.lkey)
        self.qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[sge]))

    def send(self, frame):
        self.smr.write(frame, len(frame))
        sge = SGE(self.smr.buf, len(frame), self.smr.lkey)
        self.qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                                 send_flags=e.IBV_SEND_SIGNALED))
        return self.wait(1.0)

    def wait(self, secs):
        """The next completion, or None after @secs."""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            n, wcs = self.cq.poll()
            if n:
                return wcs[0]
            time.sleep(0.001)
        return None

    def flow(self, specs, typ=e.IBV_FLOW_ATTR_NORMAL):
        attr = FlowAttr(num_of_specs=len(specs), port=1, flow_type=typ)
        for s in specs:
            attr.specs.append(s)
        return Flow(self.qp, attr)

    def recv(self, secs=1.0):
        """(frame, wc) of the next receive, or (None, None)."""
        wc = self.wait(secs)
        if wc is None:
            return None, None
        data = None
        if wc.status == e.IBV_WC_SUCCESS:
            data = self.rmr.read(wc.byte_len, wc.wr_id * BUF)
            self.post_recv(wc.wr_id)
        return data, wc


def eth_spec():
    spec = EthSpec(ether_type=0x0800, dst_mac=MCAST_DMAC)
    return spec


def frame_of(n, dmac=MCAST_DMAC, vlan=False):
    hdr = mac_bytes(dmac) + mac_bytes(SMAC)
    if vlan:
        hdr += struct.pack('!HH', 0x8100, 0x6005)
    hdr += struct.pack('!H', 0x0800)
    body = bytes(random.getrandbits(8) for _ in range(max(0, n - len(hdr))))
    return (hdr + body)[:n]


def mtu(dev_net):
    with open(f'/sys/class/net/{dev_net}/mtu') as f:
        return int(f.read())


def netdev_of(dev):
    return os.listdir(f'/sys/class/infiniband/{dev}/device/net')[0]


def refused(fn):
    try:
        fn()
    except PyverbsRDMAError as ex:
        return ex.error_code
    return 0


def check_off(ctx, pd, dev):
    err = refused(lambda: Raw(ctx, pd, 1))
    print(f'raw QP create: errno {err}')
    return err == errno.EOPNOTSUPP


def check_loop(ctx, pd, dev):
    cli, srv = Raw(ctx, pd), Raw(ctx, pd)
    keep = srv.flow([eth_spec()])
    m = mtu(netdev_of(dev))
    sizes = [14, 15, 60, 64, 1000, m + 14]
    good = 0
    for i, n in enumerate(sizes + [m + 18]):
        frame = frame_of(n, vlan=(i == len(sizes)))
        wc = cli.send(frame)
        if wc is None or wc.status != e.IBV_WC_SUCCESS:
            print(f'{n} bytes: send completion {wc and wc.status}')
            continue
        got, rwc = srv.recv()
        if got is None:
            print(f'{n} bytes: not received')
        elif rwc.byte_len != n or got != frame:
            print(f'{n} bytes: received {rwc.byte_len} bytes, '
                  f'{"equal" if got == frame else "different"}')
        else:
            good += 1
    print(f'{good} of {len(sizes) + 1} frames byte for byte')
    del keep
    return good == len(sizes) + 1


def check_nomatch(ctx, pd, dev):
    cli, srv = Raw(ctx, pd), Raw(ctx, pd)
    keep = srv.flow([eth_spec()])
    frame = frame_of(100, dmac='01:50:56:19:20:a8')
    cli.send(frame)
    got, _ = srv.recv(0.5)
    print(f'unmatched frame: {"received" if got else "not received"}')
    if got is not None:
        return False
    sniff = srv.flow([], e.IBV_FLOW_ATTR_SNIFFER)
    cli.send(frame)
    got, _ = srv.recv()
    print(f'with a sniffer: {"received" if got == frame else "not received"}')
    # One copy each: the sniffer and the NORMAL rule are the same QP's.
    cli.send(frame_of(100))
    first, _ = srv.recv()
    second, _ = srv.recv(0.3)
    print(f'matched twice by one QP: {1 + (second is not None)} copies')
    del keep, sniff
    return got == frame and first is not None and second is None


def check_badlen(ctx, pd, dev):
    m = mtu(netdev_of(dev))
    ok = True
    for n in (10, m + 19):
        cli = Raw(ctx, pd, 1)
        wc = cli.send(frame_of(n))
        st = wc.status if wc else None
        print(f'{n} bytes: status {st}')
        ok &= st == e.IBV_WC_LOC_LEN_ERR
    return ok


def check_udflow(ctx, pd, dev):
    cq = CQ(ctx, 4)
    init = QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=1, max_recv_wr=1))
    qp = QP(pd, init, QPAttr(port_num=1))
    attr = FlowAttr(num_of_specs=1, port=1)
    attr.specs.append(eth_spec())
    err = refused(lambda: Flow(qp, attr))
    print(f'flow on a UD QP: errno {err}')
    return err == errno.EOPNOTSUPP


def ip_csum(hdr):
    s = sum(struct.unpack(f'!{len(hdr) // 2}H', hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp4_frame(dev, dmac, dip, port, payload):
    nd = netdev_of(dev)
    with open(f'/sys/class/net/{nd}/address') as f:
        smac = f.read().strip()
    sip = socket.inet_aton(local_ip4(nd))
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + 8 + len(payload), 1,
                     0x4000, 64, 17, 0, sip, socket.inet_aton(dip))
    ip = ip[:10] + struct.pack('!H', ip_csum(ip)) + ip[12:]
    udp = struct.pack('!HHHH', 4321, port, 8 + len(payload), 0)
    return (mac_bytes(dmac) + mac_bytes(smac) + b'\x08\x00' + ip + udp +
            payload)


def local_ip4(nd):
    out = os.popen(f'ip -4 -o addr show dev {nd}').read().split()
    return out[out.index('inet') + 1].split('/')[0]


def check_tx(ctx, pd, dev, dmac, dip, port):
    cli = Raw(ctx, pd, 1)
    wc = cli.send(udp4_frame(dev, dmac, dip, int(port), b'sroce raw frame'))
    print(f'send completion: {wc and wc.status}')
    return wc is not None and wc.status == e.IBV_WC_SUCCESS


def check_rx(ctx, pd, dev, port):
    srv = Raw(ctx, pd)
    spec = TcpUdpSpec(e.IBV_FLOW_SPEC_UDP, dst_port=int(port))
    keep = srv.flow([spec])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(('', int(port)))
    sock.settimeout(20)
    print('ready', flush=True)
    try:
        data, _ = sock.recvfrom(2048)
    except socket.timeout:
        print('socket: nothing')
        return False
    got, wc = srv.recv(5)
    print(f'socket: {data!r}; raw QP: '
          f'{"nothing" if got is None else f"{wc.byte_len} bytes"}')
    del keep
    return got is not None and got.endswith(data) and \
        got[12:14] == b'\x08\x00' and len(got) == 14 + 20 + 8 + len(data)


CHECKS = {
    'off': check_off, 'loop': check_loop, 'nomatch': check_nomatch,
    'badlen': check_badlen, 'udflow': check_udflow, 'tx': check_tx,
    'rx': check_rx,
}


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    dev = sys.argv[1]
    ctx = Context(name=dev)
    pd = PD(ctx)
    return 0 if CHECKS[sys.argv[2]](ctx, pd, dev, *sys.argv[3:]) else 1


if __name__ == '__main__':
    sys.exit(main())
