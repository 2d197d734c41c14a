#!/usr/bin/env python3
"""journal_cmp: the order journal against what left the port.

usage: journal_cmp.py --slack N [--skipped K] JOURNAL... -- SENT...

JOURNAL files (in the order they were written) must be clean classic
pcaps (nanosecond magic, Ethernet) whose records are all 92-byte order
frames: a record cut short or a file that does not end on a record
boundary fails. SENT files are net_pcap tx_pcap outputs, one per sending
queue; one may end inside a record (net_pcap's own writes are buffered,
and a killed process leaves the tail of that buffer), which is ignored.
A SENT file may also be empty: net_pcap writes the pcap header through
stdio and flushes it with the queue's first burst, so a queue that sent
nothing before a SIGKILL leaves 0 bytes. It counts as no orders.

The journal's records, in order, must be a merge of a prefix of each
SENT file, byte for byte: every journalled order left, in its queue's
order, none twice. Orders that left but are not journalled must be the
last ones of their queue, at most N of them in all (the bursts being
journalled when the process was killed). With --skipped K, exactly K
more orders are not journalled, anywhere in their queue: the orders
hedgewire counted failed because they found a file full. Prints one
line of counts.
Python 3 standard library only.
"""

import struct
import sys

FRAME = 92


def records(path, strict):
    with open(path, 'rb') as f:
        buf = f.read()
    if not strict and not buf:
        return []
    if len(buf) < 24:
        sys.exit('journal_cmp: %s: shorter than a pcap header' % path)
    magic, _maj, _min, _z, _s, _snap, link = struct.unpack_from('<IHHiIII', buf, 0)
    if strict and magic != 0xa1b23c4d:
        sys.exit('journal_cmp: %s: magic %08x, not a nanosecond pcap' % (path, magic))
    if magic not in (0xa1b23c4d, 0xa1b2c3d4):
        sys.exit('journal_cmp: %s: not a little-endian classic pcap' % path)
    if link != 1:
        sys.exit('journal_cmp: %s: link type %d, not Ethernet' % (path, link))
    out, off = [], 24
    while off < len(buf):
        if off + 16 > len(buf):
            if strict:
                sys.exit('journal_cmp: %s: ends inside a record header (record %d)'
                         % (path, len(out)))
            break
        sec, frac, incl, orig = struct.unpack_from('<IIII', buf, off)
        if off + 16 + incl > len(buf):
            if strict:
                sys.exit('journal_cmp: %s: record %d cut short' % (path, len(out)))
            break
        if strict and (incl != FRAME or orig != FRAME or frac >= 10**9):
            sys.exit('journal_cmp: %s: record %d is not a complete order record '
                     '(caplen %d len %d ns %d)' % (path, len(out), incl, orig, frac))
        out.append(buf[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def main(argv):
    if len(argv) < 4 or argv[0] != '--slack' or '--' not in argv:
        sys.exit(__doc__)
    slack, skipped = int(argv[1]), 0
    argv = argv[2:]
    if argv[0] == '--skipped':
        skipped, argv = int(argv[1]), argv[2:]
    sep = argv.index('--')
    jfiles, sfiles = argv[:sep], argv[sep + 1:]
    journal = []
    for p in jfiles:
        journal += records(p, True)
    sent = [records(p, False) for p in sfiles]
    # where each frame is in its queue (frames are unique within one)
    where = [{fr: k for k, fr in enumerate(s)} for s in sent]
    ptr = [0] * len(sent)
    gaps = 0
    for i, fr in enumerate(journal):
        # the queue whose next frame it is, or, skipping fewest (at
        # most what --skipped leaves), a later one; several equal
        # streams (downstream mode): any of them
        best = None
        for q in range(len(sent)):
            k = where[q].get(fr)
            if k is not None and k >= ptr[q] and k - ptr[q] <= skipped - gaps \
                    and (best is None or k - ptr[q] < best[1] - ptr[best[0]]):
                best = (q, k)
        if best is None:
            sys.exit('journal_cmp: journal record %d is not the next order of any '
                     'queue (journal: %d records; sent: %s; matched: %s; '
                     'skipped %d of %d)'
                     % (i, len(journal), [len(s) for s in sent], ptr, gaps,
                        skipped))
        q, k = best
        gaps += k - ptr[q]
        ptr[q] = k + 1
    missing = sum(len(s) - p for s, p in zip(sent, ptr))
    if gaps + missing < skipped:
        sys.exit('journal_cmp: %d orders left but are not journalled, %d '
                 'expected (--skipped)' % (gaps + missing, skipped))
    if gaps + missing > skipped + slack:
        sys.exit('journal_cmp: %d orders left but are not journalled (at most %d '
                 'allowed): sent %s, journalled %s'
                 % (gaps + missing, skipped + slack, [len(s) for s in sent], ptr))
    print('journal_cmp: %d orders journalled in %d file(s), %d sent, %d not '
          'journalled at the end%s'
          % (len(journal), len(jfiles), sum(len(s) for s in sent), missing,
             ', %d skipped' % gaps if skipped else ''))


if __name__ == '__main__':
    main(sys.argv[1:])
