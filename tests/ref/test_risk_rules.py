#!/usr/bin/env python3
"""Self-test of two hgw_ref.py rules where hedgewire's documentation is
the specification, on small hand-built feeds:

  - throttles (docs/protocols.md "Pre-trade risk"): a decision at t is
    throttled when the N-th most recent accepted order of the scope has
    feed time later than t - W; one later than t (a second session whose
    ITCH times start again) throttles it too;
  - the collar's reference is the last trade when there is one; a trade
    at price 0 is none (docs/protocols.md "Book": "A price of 0 is no
    trade"), so the mid is the reference.

usage: python3 tests/ref/test_risk_rules.py [--keep]
Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_conf as tc  # noqa: E402  (frame, table and checksum helpers)

GROUP, PORT = bytes((233, 54, 12, 111)), 26477
NAME = b'RISK    '


def add(ref, side, price, t):
    return b'A' + struct.pack('>HH', 1, 0) + tc.ts6(t) + struct.pack(
        '>QcI8sI', ref, side, 100, NAME, price)


def trade(price, t):
    """ITCH 'P' (non-cross trade) of locate 1 at price."""
    return b'P' + struct.pack('>HH', 1, 0) + tc.ts6(t) + struct.pack(
        '>QcI8sIQ', 0, b'B', 100, NAME, price, 1)


def mold(session, seq, msgs, count=None):
    """One MoldUDP64 frame (count 0xFFFF: end of session)."""
    count = len(msgs) if count is None else count
    body = struct.pack('>10sQH', session, seq, count) + b''.join(
        struct.pack('>H', len(m)) + m for m in msgs)
    src = bytes((10, 1, 1, 1))
    ulen = 8 + len(body)
    udp = bytearray(struct.pack('>HHHH', 40000, PORT, ulen, 0) + body)
    c = ~tc.ones_sum(src + GROUP + struct.pack('>BBH', 0, 17, ulen) + bytes(udp)) & 0xFFFF
    struct.pack_into('>H', udp, 6, c or 0xFFFF)
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + ulen, 0, 0x4000, 64, 17, 0,
                               src, GROUP))
    struct.pack_into('>H', ip, 10, ~tc.ones_sum(bytes(ip)) & 0xFFFF)
    return b'\x01\x00\x5e\x36\x0c\x6f\x02\x00\x00\x00\x00\x09\x08\x00' + bytes(ip) + bytes(udp)


def write_pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 0, k, len(fr), len(fr)) + fr)


def session_frames(session, msgs):
    """One message a packet, then the end of session."""
    fr = [mold(session, 1 + k, [m]) for k, m in enumerate(msgs)]
    return fr + [mold(session, 1 + len(msgs), [], 0xFFFF)]


def write_table(path):
    """2 instruments x 1 x 1, tick 100: locate 1 buys 10 at the bid."""
    entries = bytes(64) + struct.pack('<IBBBBiII', 0, ord('B'), 0, ord('0'), ord('Y'),
                                      0, 10, 1) + bytes(44)
    hdr = struct.pack('<8sIIIIIIQI20s', b'HGWTABL1', 1, 64, 2, 1, 1, 100, 2,
                      tc.crc32c(entries), bytes(20))
    with open(path, 'wb') as f:
        f.write(hdr + entries)


results = []


def check(name, ok, detail=''):
    results.append(ok)
    print('%s %s%s' % ('PASS' if ok else 'FAIL', name,
                       (': ' + detail) if detail and not ok else ''))


def run_ref(d, feed, conf_text):
    conf = os.path.join(d, 'conf.ini')
    with open(conf, 'w') as f:
        f.write(conf_text)
    p = subprocess.run([sys.executable, os.path.join(HERE, 'hgw_ref.py'), '--feed', feed,
                        '--table', os.path.join(d, 'table.tbl'), '--conf', conf,
                        '--out', os.path.join(d, 'out.pcap'),
                        '--trace', os.path.join(d, 'trace.txt')],
                       capture_output=True, text=True)
    s = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition(' ')
        if v.isdigit():
            s[k] = int(v)
    with open(os.path.join(d, 'trace.txt')) as f:
        trace = f.read().splitlines()
    return p.returncode, s, trace, p.stderr


def main(argv):
    keep = '--keep' in argv
    d = tempfile.mkdtemp(prefix='hgw-ref-risk.')
    try:
        write_table(os.path.join(d, 'table.tbl'))
        R = b'R' + struct.pack('>HH', 1, 0) + tc.ts6(1000) + NAME + bytes(20)
        ms = 1000000
        # Session A at 10 s: a quote (its ask decides), then 3 bid adds
        # (10 s + 1..3 ms); limit 2 in a window of 1 s: 2 orders, then 2
        # throttled.  Session B (after A's end) starts its ITCH times again
        # at 1 s: its add at 1 s + 1 ms comes before both accepted times,
        # and the 2nd most recent (10 s + 2 ms) is later than t - W: still
        # throttled (feed time that went back never opens the window).
        a = [R, add(1, b'B', 100000, 10000 * ms), add(2, b'S', 100100, 10000 * ms)]
        a += [add(3 + k, b'B', 100000, 10000 * ms + (k + 1) * ms) for k in range(3)]
        b = [add(10, b'B', 100000, 1000 * ms + ms)]
        feed = os.path.join(d, 'twosessions.pcap')
        write_pcap(feed, session_frames(b'RISKSESSA1', a) + session_frames(b'RISKSESSB1', b))
        rc, s, trace, err = run_ref(d, feed, '[risk]\nwindow_ms = 1000\n'
                                    'max_orders_instrument = 2\nmax_orders_total = 100\n')
        check('two sessions: runs', rc == 0, err.strip())
        outcomes = [t.split()[-1] for t in trace]
        check('session A: orders, orders, then throttled at limit 2',
              outcomes[1:5] == ['orders', 'orders'] + ['reject_throttle_instrument'] * 2,
              ' / '.join(trace))
        check('session B, feed time before the accepted ones: throttled',
              len(trace) == 6 and trace[5].startswith('RISKSESSB1 1 ') and
              outcomes[5] == 'reject_throttle_instrument', ' / '.join(trace))
        check('two sessions: 2 orders', s.get('orders') == 2, str(s))

        # A trade at price 0 is no last trade: the mid stays the reference
        # and the decisions pass, as without it (were 0 the reference,
        # |price - 0| * 10000 > collar_bps * 0 would reject every one); a
        # last trade far from the mid rejects them.
        base = [R, add(1, b'B', 100000, 2000), add(2, b'S', 100100, 3000),
                add(3, b'B', 100000, 4000)]
        for label, msgs, want in (
                ('no last trade: the mid is the reference', base, 'orders'),
                ('a trade at 0: no last trade, the mid is the reference',
                 base[:1] + [trade(0, 1500)] + base[1:], 'orders'),
                ('a last trade at 50000: the reference, far from the bids',
                 base[:1] + [trade(50000, 1500)] + base[1:], 'reject_price_collar')):
            feed = os.path.join(d, 'collar.pcap')
            write_pcap(feed, session_frames(b'RISKSESSC1', msgs))
            rc, s, trace, err = run_ref(d, feed, '')
            outcomes = [t.split()[-1] for t in trace]
            check(label, rc == 0 and outcomes[1:] == [want, want], ' / '.join(trace) + err)
    finally:
        if keep:
            print('kept %s' % d)
        else:
            shutil.rmtree(d)
    failed = results.count(False)
    print('%d passed, %d failed' % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
