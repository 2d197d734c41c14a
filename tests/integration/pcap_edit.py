#!/usr/bin/env python3
"""pcap_edit: damage a MoldUDP64 capture the ways a network or a sloppy
tool does, for the feed-integrity tests.

usage: pcap_edit.py IN.pcap OUT.pcap [operations...]
  --drop A-B          leave out frames A..B (1-based, inclusive)
  --seq N=V           set frame N's MoldUDP64 sequence number to V
  --session N=NAME    set frame N's MoldUDP64 session name
  --zero-mold         zero every frame's MoldUDP64 session and sequence
                      (a sanitised capture)
  --flip PCT          flip one random bit after the Ethernet header in
                      PCT percent of the frames but the last (checksums
                      left as they are, so the receiver can tell; the end
                      of session still arrives); --seed S
  --fix-checksums     after --seq/--session/--zero-mold, recompute the
                      IPv4 and UDP checksums (damage a checksum cannot see)
Prints one line per damaged frame on stdout: "frame N seq Q count C" (the
MoldUDP64 header of the frame as it was), so a test knows what was lost.
Python 3 standard library only.
"""

import argparse
import random
import struct
import sys


def read(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit('pcap_edit: %s: not a little-endian pcap' % path)
    recs, off = [], 24
    while off + 16 <= len(data):
        ts, frac, incl, orig = struct.unpack('<IIII', data[off:off + 16])
        recs.append([ts, frac, bytearray(data[off + 16:off + 16 + incl]), orig])
        off += 16 + incl
    return data[:24], recs


def write(path, hdr, recs):
    with open(path, 'wb') as f:
        f.write(hdr)
        for ts, frac, b, orig in recs:
            f.write(struct.pack('<IIII', ts, frac, len(b), len(b)))
            f.write(b)


def offsets(b):
    """(ip, udp, mold) offsets of an Ethernet/[VLAN]/IPv4/UDP frame."""
    o = 14
    if struct.unpack('>H', b[12:14])[0] in (0x8100, 0x88a8):
        o = 18
    ihl = (b[o] & 15) * 4
    return o, o + ihl, o + ihl + 8


def csum(data):
    if len(data) % 2:
        data = data + b'\0'
    s = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def fix(b):
    ip, udp, _ = offsets(b)
    b[ip + 10:ip + 12] = b'\0\0'
    b[ip + 10:ip + 12] = struct.pack('>H', ~csum(bytes(b[ip:udp])) & 0xffff)
    ulen = struct.unpack('>H', b[udp + 4:udp + 6])[0]
    b[udp + 6:udp + 8] = b'\0\0'
    pseudo = bytes(b[ip + 12:ip + 20]) + struct.pack('>BBH', 0, 17, ulen)
    c = ~csum(pseudo + bytes(b[udp:udp + ulen])) & 0xffff
    b[udp + 6:udp + 8] = struct.pack('>H', c or 0xffff)


def mold(b):
    _, _, m = offsets(b)
    return m, struct.unpack('>Q', b[m + 10:m + 18])[0], \
        struct.unpack('>H', b[m + 18:m + 20])[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('inp')
    ap.add_argument('out')
    ap.add_argument('--drop')
    ap.add_argument('--seq', action='append', default=[])
    ap.add_argument('--session', action='append', default=[])
    ap.add_argument('--zero-mold', action='store_true')
    ap.add_argument('--flip', type=float)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--fix-checksums', action='store_true')
    a = ap.parse_args()
    hdr, recs = read(a.inp)
    touched = set()
    for spec in a.seq:
        n, v = spec.split('=')
        b = recs[int(n) - 1][2]
        m, _, _ = mold(b)
        touched.add(int(n))
        print('frame %s seq %d count %d' % (n, *mold(b)[1:]))
        b[m + 10:m + 18] = struct.pack('>Q', int(v, 0))
    for spec in a.session:
        n, name = spec.split('=')
        b = recs[int(n) - 1][2]
        m, _, _ = mold(b)
        touched.add(int(n))
        print('frame %s seq %d count %d' % (n, *mold(b)[1:]))
        b[m:m + 10] = name.encode().ljust(10)[:10]
    if a.zero_mold:
        for i, r in enumerate(recs):
            m, _, _ = mold(r[2])
            r[2][m:m + 18] = bytes(18)
            touched.add(i + 1)
    if a.fix_checksums:
        for n in touched:
            fix(recs[n - 1][2])
    if a.flip:
        rng = random.Random(a.seed)
        for i, r in enumerate(recs[:-1]):
            if rng.random() * 100 < a.flip:
                b = r[2]
                print('frame %d seq %d count %d' % (i + 1, *mold(b)[1:]))
                pos = rng.randrange(14, len(b))
                b[pos] ^= 1 << rng.randrange(8)
    if a.drop:
        lo, hi = (int(x) for x in a.drop.split('-'))
        for n in range(lo, hi + 1):
            print('frame %d seq %d count %d' % (n, *mold(recs[n - 1][2])[1:]))
        recs = recs[:lo - 1] + recs[hi:]
    write(a.out, hdr, recs)


if __name__ == '__main__':
    main()
