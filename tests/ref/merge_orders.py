#!/usr/bin/env python3
"""Merge the order captures of several TX queues into one, ordered by
UserRefNum (the trigger's sequence number), for comparison with a single
expected stream.  merge_orders.py OUT.pcap IN.pcap [IN.pcap ...]
Exits 1 if two frames carry the same UserRefNum (a duplicate escaped)."""
import struct
import sys

USER_REF = 42 + 3 + 1       # Ethernet/IPv4/UDP, SoupBinTCP header, OUCH type


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack_from('<I', data)[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(end + 'IIII', data, off)
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: merge_orders.py OUT.pcap IN.pcap [IN.pcap ...]')
    out = []
    for path in sys.argv[2:]:
        out.extend(frames(path))
    out.sort(key=lambda fr: struct.unpack_from('>I', fr, USER_REF)[0])
    refs = [struct.unpack_from('>I', fr, USER_REF)[0] for fr in out]
    dups = len(refs) - len(set(refs))
    with open(sys.argv[1], 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in out:
            f.write(struct.pack('<IIII', 0, 0, len(fr), len(fr)))
            f.write(fr)
    print('merged %d orders from %d captures, %d duplicate UserRefNum'
          % (len(out), len(sys.argv) - 2, dups))
    sys.exit(1 if dups else 0)


if __name__ == '__main__':
    main()
