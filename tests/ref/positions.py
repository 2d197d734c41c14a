#!/usr/bin/env python3
"""positions: net position per symbol implied by captured OUCH orders.

usage: positions.py ORDERS.pcap [ORDERS2.pcap ...] [--max-position N]
                    [--table-free]

Reads every OUCH 5.0 Enter Order frame (Ethernet / IPv4 / UDP /
SoupBinTCP 'U' / OUCH 'O', docs/protocols.md "Order bytes") of the given
pcaps (e.g. the captures of several TX queues, or a journal), orders them by
UserRefNum (the trigger's sequence number, which increases with the
trigger; ties keep file order), and counts every order as filled: side B
is +quantity, S/T/E -quantity (the sides cmp_orders.py accepts).

Prints one line per symbol, `symbol NAME final F max_abs M orders K`
(left out with --table-free; an all-space symbol is `(blank)`), then `max_abs_position NAME VALUE` for the
symbol whose |position| got largest (`-` 0 when there are no orders) and
`orders N`.  With --max-position N, exits 1 when a symbol's |position|
ever exceeds N, printing `exceeded NAME POSITION after UserRefNum U`
for the first time each symbol does.  Exits 2 on an unreadable file.
Frames that are not an Enter Order are skipped and counted on stderr.
Python 3.11 standard library only.
"""

import argparse
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cmp_orders  # noqa: E402  (read_pcap, OUCH layout)


def load(path):
    """(UserRefNum, side, quantity, symbol) of each Enter Order frame, and
    the number of other frames."""
    try:
        frames = cmp_orders.read_pcap(path)
    except SystemExit as e:     # cmp_orders exits 1 with a message
        msg = e.code if isinstance(e.code, str) else '%s: unreadable' % path
        sys.stderr.write('positions: %s\n' % msg.replace('cmp_orders: ', '', 1))
        sys.exit(2)
    out, other = [], 0
    for _ts, fr in frames:
        if (len(fr) < 92 or fr[12:14] != b'\x08\x00' or fr[23] != 17
                or fr[44:45] != b'U' or fr[45:46] != b'O'):
            other += 1
            continue
        (_t, urn, side, qty, sym, _price, _tif, _disp, _cap, _iso, _cross, _clid,
         _app) = cmp_orders.OUCH.unpack_from(fr, 45)
        if side not in (b'B', b'S', b'T', b'E'):
            other += 1
            continue
        out.append((urn, side, qty, sym.decode('latin-1').rstrip(' ') or '(blank)'))
    return out, other


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description='net position per symbol from OUCH order captures')
    ap.add_argument('pcaps', nargs='+', metavar='ORDERS.pcap')
    ap.add_argument('--max-position', type=int, metavar='N',
                    help='exit 1 if any symbol\'s |position| ever exceeds N')
    ap.add_argument('--table-free', action='store_true',
                    help='leave out the per-symbol lines; print the summary lines only')
    a = ap.parse_args(argv)
    orders, other = [], 0
    for path in a.pcaps:
        o, n = load(path)
        orders.extend(o)
        other += n
    if other:
        sys.stderr.write('positions: %d frames are not OUCH Enter Orders (skipped)\n' % other)
    orders.sort(key=lambda o: o[0])      # stable: ties keep file order
    pos, worst, count, first_over = {}, {}, {}, {}
    for urn, side, qty, sym in orders:
        p = pos.get(sym, 0) + (qty if side == b'B' else -qty)
        pos[sym] = p
        count[sym] = count.get(sym, 0) + 1
        if abs(p) > worst.get(sym, -1):
            worst[sym] = abs(p)
        if a.max_position is not None and abs(p) > a.max_position and sym not in first_over:
            first_over[sym] = (p, urn)
    if not a.table_free:
        for sym in sorted(pos):
            print('symbol %s final %d max_abs %d orders %d' % (sym, pos[sym], worst[sym], count[sym]))
    if worst:
        top = max(sorted(worst), key=lambda s: worst[s])
        print('max_abs_position %s %d' % (top, worst[top]))
    else:
        print('max_abs_position - 0')
    print('orders %d' % len(orders))
    if first_over:
        for sym, (p, urn) in sorted(first_over.items(), key=lambda kv: kv[1][1]):
            print('exceeded %s %d after UserRefNum %d' % (sym, p, urn))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
