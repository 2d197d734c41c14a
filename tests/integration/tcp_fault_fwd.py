#!/usr/bin/env python3
"""tcp_fault_fwd: forwards Ethernet frames between two interfaces (raw
AF_PACKET sockets), duplicating and reordering some of the TCP segments,
for the DPDK TCP session's tests (tests/integration/venue_dpdk.sh).

usage: tcp_fault_fwd.py IF_A IF_B --dup PCT --reorder PCT --seed N
                        --ready-file F --stats-file F

Every frame received on one interface leaves on the other. Of the TCP
segments that carry data, PCT% (--dup) are sent twice and PCT% (--reorder)
are held back and sent after the next frame in the same direction (or
after 20 ms if none comes). ARP and everything else passes untouched. On
SIGTERM it writes what it did to --stats-file as "key value" lines,
with the frames its sockets dropped for want of room (`dropped`: a loss
the test did not ask for, from a forwarder starved of CPU; the sockets
get 8 MiB each to make it rare).
"""

import argparse
import os
import random
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6


def tcp_payload_len(f):
    """Bytes of TCP payload in an Ethernet/IPv4 frame, or -1 if not TCP."""
    if len(f) < 34 or f[12:14] != b'\x08\x00' or f[23] != 6:
        return -1
    ihl = (f[14] & 0x0f) * 4
    tot = int.from_bytes(f[16:18], 'big')
    if len(f) < 14 + ihl + 20:
        return -1
    doff = (f[14 + ihl + 12] >> 4) * 4
    return tot - ihl - doff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('a')
    ap.add_argument('b')
    ap.add_argument('--dup', type=float, default=0)
    ap.add_argument('--reorder', type=float, default=0)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--ready-file', required=True)
    ap.add_argument('--stats-file', required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    socks = {}
    for name in (a.a, a.b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        s.bind((name, 0))
        s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)  # counts from here
        socks[name] = s
    other = {socks[a.a]: socks[a.b], socks[a.b]: socks[a.a]}
    held = {}                   # out socket -> (frame, since)
    st = dict(frames=0, tcp_data=0, duplicated=0, reordered=0, dropped=0)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(a.ready_file + '.tmp', 'w') as f:
        f.write('ready\n')
    os.replace(a.ready_file + '.tmp', a.ready_file)
    while not stop:
        try:
            r, _, _ = select.select(list(other), [], [], 0.005)
        except InterruptedError:
            continue
        now = time.monotonic()
        for out, (f, since) in list(held.items()):
            if now - since > 0.02:
                out.send(f)
                del held[out]
        for s in r:
            f, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue        # our own sends, seen again
            out = other[s]
            st['frames'] += 1
            n = tcp_payload_len(f)
            if n <= 0:
                out.send(f)
            else:
                st['tcp_data'] += 1
                if out not in held and rng.random() * 100 < a.reorder:
                    st['reordered'] += 1
                    held[out] = (f, now)
                    continue
                out.send(f)
                if rng.random() * 100 < a.dup:
                    st['duplicated'] += 1
                    out.send(f)
            if out in held:
                out.send(held.pop(out)[0])
    for out, (f, _) in held.items():
        out.send(f)
    st['dropped'] = sum(struct.unpack('II', s.getsockopt(
        SOL_PACKET, PACKET_STATISTICS, 8))[1] for s in socks.values())
    with open(a.stats_file, 'w') as f:
        for k, v in st.items():
            f.write('%s %d\n' % (k, v))
    return 0


if __name__ == '__main__':
    sys.exit(main())
