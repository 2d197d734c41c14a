#!/usr/bin/env python3
"""pcapng_edit: build and damage pcap / pcapng captures for the replay
tests, from the pcapng specification (draft-ietf-opsawg-pcapng: blocks of
type, total length, body padded to 4 bytes, total length again) and the
pcap file format; no capture library.

usage: pcapng_edit.py count FILE
       pcapng_edit.py cut FILE OUT K
       pcapng_edit.py trailer FILE.pcapng OUT
       pcapng_edit.py iface FILE.pcapng OUT LINKTYPE SNAPLEN
       pcapng_edit.py caplen FILE.pcapng OUT K CAPLEN

count    the packets (pcap records; pcapng Enhanced, Simple or obsolete
         Packet Blocks) the file holds whole, and whether it ends inside
         a record or block: "packets N whole|cut"
cut      OUT is FILE cut in the middle of packet K (0-based): K whole
         packets precede the cut
trailer  OUT is FILE with the blocks a capture tool may write after the
         last packet: a Name Resolution Block and an Interface Statistics
         Block (what dumpcap writes when it stops)
iface    OUT is FILE with a second Interface Description Block (LINKTYPE,
         SNAPLEN) after the first half of the packets, and every packet
         after it on that interface and the first by turns
caplen   OUT is FILE with packet K's captured length set to CAPLEN (the
         block and its data unchanged)
Python 3 standard library only.
"""

import struct
import sys

SHB, IDB, PB, SPB, NRB, ISB, EPB = 0x0A0D0D0A, 1, 2, 3, 4, 5, 6
PACKETS = (PB, SPB, EPB)
PCAP_MAGIC = {b'\xd4\xc3\xb2\xa1': '<', b'\xa1\xb2\xc3\xd4': '>',
              b'\x4d\x3c\xb2\xa1': '<', b'\xa1\xb2\x3c\x4d': '>'}


def die(msg):
    sys.exit('pcapng_edit: ' + msg)


def blocks(d):
    """(offset, type, length, byte order) of every whole block, then
    (offset, None, None, e) if the file ends inside one."""
    off, e = 0, '<'
    while off < len(d):
        if off + 12 > len(d):
            yield off, None, None, e
            return
        if d[off:off + 4] == b'\x0a\x0d\x0d\x0a':
            bom = d[off + 8:off + 12]
            e = {b'\x4d\x3c\x2b\x1a': '<', b'\x1a\x2b\x3c\x4d': '>'}.get(bom)
            if e is None:
                die('bad byte-order magic at %d' % off)
        t, n = struct.unpack_from(e + 'II', d, off)
        if n < 12 or n % 4 or off + n > len(d):
            yield off, None, None, e
            return
        yield off, t, n, e
        off += n


def records(d):
    """pcap: (offset, record length) of every whole record, then
    (offset, None) if the file ends inside one."""
    e = PCAP_MAGIC[d[:4]]
    off = 24
    while off < len(d):
        if off + 16 > len(d):
            yield off, None
            return
        incl = struct.unpack_from(e + 'I', d, off + 8)[0]
        if off + 16 + incl > len(d):
            yield off, None
            return
        yield off, 16 + incl
        off += 16 + incl


def packets(d):
    """(offset, length) of every whole packet record or block, then
    (offset, None) if the file is cut."""
    if d[:4] in PCAP_MAGIC:
        yield from records(d)
        return
    if d[:4] != b'\x0a\x0d\x0d\x0a':
        die('neither pcap nor pcapng')
    for off, t, n, _ in blocks(d):
        if t is None:
            yield off, None
        elif t in PACKETS:
            yield off, n


def block(e, t, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(e + 'II', t, n) + body + struct.pack(e + 'I', n)


def option(e, code, value):
    return struct.pack(e + 'HH', code, len(value)) + value + \
        b'\0' * (-len(value) % 4)


def main():
    a = sys.argv[1:]
    if not a:
        die('usage: see the docstring')
    d = open(a[1], 'rb').read()
    if a[0] == 'count':
        got = list(packets(d))
        cut = bool(got) and got[-1][1] is None
        print('packets %d %s' % (len(got) - cut, 'cut' if cut else 'whole'))
        return
    out = open(a[2], 'wb')
    if a[0] == 'cut':
        k = int(a[3])
        got = [p for p in packets(d) if p[1] is not None]
        off, n = got[k]
        out.write(d[:off + n // 2])
        return
    if d[:4] != b'\x0a\x0d\x0d\x0a':
        die('%s is not pcapng' % a[1])
    bl = list(blocks(d))
    if bl and bl[-1][1] is None:
        die('%s is cut' % a[1])
    e = bl[0][3]
    if a[0] == 'trailer':
        # NRB: an IPv4 record (type 1: address, name, NUL), end of records
        rec = bytes([10, 1, 1, 1]) + b'feed-source\0'
        nrb = struct.pack(e + 'HH', 1, len(rec)) + rec + b'\0' * (-len(rec) % 4)
        nrb += struct.pack(e + 'HH', 0, 0)
        # ISB: interface 0, a time stamp, then isb_ifrecv (4) and
        # isb_ifdrop (5), 64 bits each, and opt_endofopt
        npk = sum(1 for _, t, _, _ in bl if t in PACKETS)
        isb = struct.pack(e + 'III', 0, 0, 0)
        isb += option(e, 4, struct.pack(e + 'Q', npk))
        isb += option(e, 5, struct.pack(e + 'Q', 0)) + option(e, 0, b'')
        out.write(d + block(e, NRB, nrb) + block(e, ISB, isb))
    elif a[0] == 'iface':
        link, snap = int(a[3]), int(a[4])
        pk = [i for i, (_, t, _, _) in enumerate(bl) if t == EPB]
        half = pk[len(pk) // 2]
        # if_tsresol (9): the same resolution as the first interface's,
        # so time stamps read the same on both
        first = next(b for b in bl if b[1] == IDB)
        tsresol = None
        o = first[0] + 16
        while o < first[0] + first[2] - 4:
            code, ln = struct.unpack_from(e + 'HH', d, o)
            if code == 0:
                break
            if code == 9:
                tsresol = d[o + 4:o + 5]
            o += 4 + ln + (-ln % 4)
        idb = struct.pack(e + 'HHI', link, 0, snap)
        if tsresol is not None:
            idb += option(e, 9, tsresol)
        idb += option(e, 0, b'')
        parts, turn = [], 0
        for i, (off, t, n, _) in enumerate(bl):
            b = bytearray(d[off:off + n])
            if i == half:
                parts.append(block(e, IDB, idb))
            if i >= half and t == EPB:
                struct.pack_into(e + 'I', b, 8, turn)
                turn ^= 1
            parts.append(bytes(b))
        out.write(b''.join(parts))
    elif a[0] == 'caplen':
        k, caplen = int(a[3]), int(a[4])
        off = [o for o, t, _, _ in bl if t == EPB][k]
        b = bytearray(d)
        struct.pack_into(e + 'I', b, off + 20, caplen)
        out.write(bytes(b))
    else:
        die('unknown command ' + a[0])


if __name__ == '__main__':
    main()
