#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hand-made ITCH 5.0 captures with known field values, and a checker of
hgw-inspect --messages / --json output against them.

The layouts below are written from the ITCH 5.0 specification, not from
hedgewire's headers, and the expected lines are formatted here, so the
inspector is checked against an independent reading of the protocol.

  itch_capture.py gen DIR
      DIR/all.pcap        every ITCH 5.0 type, with a non-IP frame, a VLAN
                          frame, a frame on another port, a heartbeat, a
                          packet with bad blocks and end of session
      DIR/sanitised.pcap  the good feed packets with a zeroed MoldUDP64
                          header (blank session, sequence 0)
      DIR/sll.pcap        link type LINUX_SLL (113)
      DIR/big.pcap        3 frames, then a record of caplen 70000
      DIR/cut.pcap        all.pcap cut in the middle of frame 5
      DIR/expected.json   what was written (for check)
  itch_capture.py check DIR OUTPUT (text|json) [--any] [--sanitised]
                        [--types LETTERS] [--symbol SYM] [--port P]
                        [--vlan-only] [--frames N]
      compares every field of every message line of OUTPUT with what the
      selection must print; exit 1 naming the first differences
"""
import json
import re
import struct
import sys

C, A, U, P4, P8 = 'char', 'alpha', 'uint', 'price4', 'price8'

# type: (name, length, [(key, size, kind)] after the 11-byte header)
SPEC = {
    'S': ('system_event', 12, [('event', 1, C)]),
    'R': ('stock_directory', 39, [
        ('stock', 8, A), ('market_category', 1, C),
        ('financial_status', 1, C), ('round_lot', 4, U),
        ('round_lots_only', 1, C), ('issue_class', 1, C),
        ('issue_subtype', 2, A), ('authenticity', 1, C),
        ('short_sale_threshold', 1, C), ('ipo_flag', 1, C),
        ('luld_tier', 1, C), ('etp_flag', 1, C), ('etp_leverage', 4, U),
        ('inverse', 1, C)]),
    'H': ('trading_action', 25, [
        ('stock', 8, A), ('state', 1, C), ('reserved', 1, C),
        ('reason', 4, A)]),
    'Y': ('reg_sho', 20, [('stock', 8, A), ('action', 1, C)]),
    'L': ('market_participant', 26, [
        ('mpid', 4, A), ('stock', 8, A), ('primary_mm', 1, C),
        ('mode', 1, C), ('state', 1, C)]),
    'V': ('mwcb_decline', 35, [
        ('level1', 8, P8), ('level2', 8, P8), ('level3', 8, P8)]),
    'W': ('mwcb_status', 12, [('level', 1, C)]),
    'K': ('ipo_quoting', 28, [
        ('stock', 8, A), ('release_time', 4, U),
        ('release_qualifier', 1, C), ('price', 4, P4)]),
    'J': ('luld_collar', 35, [
        ('stock', 8, A), ('ref_price', 4, P4), ('upper_price', 4, P4),
        ('lower_price', 4, P4), ('extension', 4, U)]),
    'h': ('operational_halt', 21, [
        ('stock', 8, A), ('market_code', 1, C), ('action', 1, C)]),
    'A': ('add_order', 36, [
        ('ref', 8, U), ('side', 1, C), ('shares', 4, U), ('stock', 8, A),
        ('price', 4, P4)]),
    'F': ('add_order_mpid', 40, [
        ('ref', 8, U), ('side', 1, C), ('shares', 4, U), ('stock', 8, A),
        ('price', 4, P4), ('mpid', 4, A)]),
    'E': ('order_executed', 31, [
        ('ref', 8, U), ('shares', 4, U), ('match', 8, U)]),
    'C': ('order_executed_price', 36, [
        ('ref', 8, U), ('shares', 4, U), ('match', 8, U),
        ('printable', 1, C), ('price', 4, P4)]),
    'X': ('order_cancel', 23, [('ref', 8, U), ('shares', 4, U)]),
    'D': ('order_delete', 19, [('ref', 8, U)]),
    'U': ('order_replace', 35, [
        ('orig_ref', 8, U), ('new_ref', 8, U), ('shares', 4, U),
        ('price', 4, P4)]),
    'P': ('trade', 44, [
        ('ref', 8, U), ('side', 1, C), ('shares', 4, U), ('stock', 8, A),
        ('price', 4, P4), ('match', 8, U)]),
    'Q': ('cross_trade', 40, [
        ('shares', 8, U), ('stock', 8, A), ('price', 4, P4),
        ('match', 8, U), ('cross_type', 1, C)]),
    'B': ('broken_trade', 19, [('match', 8, U)]),
    'I': ('noii', 50, [
        ('paired_shares', 8, U), ('imbalance_shares', 8, U),
        ('direction', 1, C), ('stock', 8, A), ('far_price', 4, P4),
        ('near_price', 4, P4), ('ref_price', 4, P4), ('cross_type', 1, C),
        ('price_variation', 1, C)]),
    'N': ('rpii', 20, [('stock', 8, A), ('interest', 1, C)]),
}
for _t, (_n, _l, _f) in SPEC.items():
    assert 11 + sum(s for _, s, _ in _f) == _l, _t

NS = 1000000000
U64 = (1 << 64) - 1
U32 = (1 << 32) - 1


def hms(h, m, s, ns=0):
    return ((h * 60 + m) * 60 + s) * NS + ns


# Every field of every type, values chosen to be told apart: prices
# with all four (or eight) decimals in use, limits of each width, blank
# and embedded spaces in alphas, a space as a one-letter code.
def M(t, locate, tracking, ts, **f):
    return dict(type=t, locate=locate, tracking=tracking, ts=ts, f=f)


m_D_early = M('D', 7, 2, hms(3, 0, 0, 5), ref=5)
m_S = M('S', 0, 1, hms(3, 0, 0), event='O')
m_R1 = M('R', 7, 3, hms(7, 0, 0, 1), stock='ABCD', market_category='Q',
         financial_status='N', round_lot=100, round_lots_only='N',
         issue_class='C', issue_subtype='Z', authenticity='P',
         short_sale_threshold='N', ipo_flag=' ', luld_tier='1',
         etp_flag='N', etp_leverage=U32, inverse='N')
m_R2 = M('R', 9, 4, hms(7, 0, 0, 2), stock='XYZ', market_category='G',
         financial_status='D', round_lot=1, round_lots_only='Y',
         issue_class='A', issue_subtype='AI', authenticity='T',
         short_sale_threshold='Y', ipo_flag='Y', luld_tier='2',
         etp_flag='Y', etp_leverage=3, inverse='Y')
m_H = M('H', 7, 5, hms(7, 0, 1), stock='ABCD', state='H', reserved=' ',
        reason='MWC1')
m_Y = M('Y', 7, 6, hms(7, 0, 2), stock='ABCD', action='1')
m_L = M('L', 7, 7, hms(7, 0, 3), mpid='NITE', stock='ABCD', primary_mm='Y',
        mode='N', state='A')
m_V = M('V', 0, 8, hms(9, 25, 0), level1=386712345678, level2=1,
        level3=U64)
m_W = M('W', 0, 9, hms(9, 26, 0), level='2')
m_K = M('K', 9, 10, hms(9, 27, 0), stock='XYZ', release_time=34200,
        release_qualifier='A', price=2000000000)
m_A_other = M('A', 9, 11, hms(9, 28, 0), ref=77, side='S', shares=1,
              stock='XYZ', price=1)
m_N_other = M('N', 7, 12, hms(9, 28, 1), stock='ABCD', interest='B')
m_J = M('J', 7, 13, hms(9, 30, 0, 1), stock='ABCD', ref_price=123456,
        upper_price=135802, lower_price=111110, extension=2)
m_h = M('h', 9, 14, hms(9, 30, 0, 2), stock='XYZ', market_code='Q',
        action='H')
m_A = M('A', 7, 0, hms(9, 30, 0, 1234), ref=123, side='B', shares=100,
        stock='ABCD', price=123400)
m_F = M('F', 7, 15, hms(9, 30, 0, 5000), ref=124, side='S', shares=U32,
        stock='ABCD', price=99999999, mpid='GSCO')
m_E = M('E', 7, 16, hms(10, 0, 0), ref=123, shares=40,
        match=1234567890123)
m_C = M('C', 7, 17, hms(10, 0, 1), ref=124, shares=60, match=U64,
        printable='Y', price=123401)
m_X = M('X', 9, 18, hms(10, 0, 2), ref=77, shares=1)
m_D = M('D', 7, 19, hms(10, 0, 3), ref=124)
m_U = M('U', 7, 20, hms(10, 0, 4), orig_ref=123, new_ref=U64 - 1,
        shares=500, price=5)
m_P = M('P', 7, 21, hms(11, 0, 0), ref=0, side='B', shares=300,
        stock='ABCD', price=10000, match=42)
m_Q = M('Q', 9, 22, hms(16, 0, 0), shares=U64, stock='ABCD',
        price=1999999999, match=43, cross_type='C')
m_B = M('B', 7, 23, hms(16, 0, 1), match=42)
m_I = M('I', 7, 24, hms(15, 50, 0), paired_shares=1000,
        imbalance_shares=250, direction='B', stock='ABCD', far_price=0,
        near_price=123450, ref_price=123460, cross_type='C',
        price_variation=' ')
m_N = M('N', 9, 25, hms(23, 59, 59, 999999999), stock='XYZ', interest='N')
m_A_brk = M('A', 9, 26, hms(12, 0, 0), ref=900, side='S', shares=7,
            stock='BRK A', price=4500000)
m_R3 = M('R', 7, 27, hms(17, 0, 0), stock='EFGH', market_category='Q',
         financial_status='N', round_lot=100, round_lots_only='N',
         issue_class='C', issue_subtype='C', authenticity='P',
         short_sale_threshold='N', ipo_flag='N', luld_tier='1',
         etp_flag='N', etp_leverage=0, inverse='N')
m_X_late = M('X', 7, 28, hms(17, 0, 1), ref=123, shares=10)


def encode(m):
    name, length, fields = SPEC[m['type']]
    b = m['type'].encode() + struct.pack('>HH', m['locate'], m['tracking'])
    b += m['ts'].to_bytes(6, 'big')
    for key, size, kind in fields:
        v = m['f'][key]
        if kind in (C, A):
            b += v.encode().ljust(size, b' ')
        else:
            b += v.to_bytes(size, 'big')
    assert len(b) == length and set(m['f']) == {k for k, _, _ in fields}
    return b


SESSION = 'HGWTEST001'
FEED_PORT, OTHER_PORT, VLAN = 26477, 26478, 141

# Frames of all.pcap: (kind, args). Feed packets: (session, seq, [blocks
# as messages or raw bytes], port, vlan).
FRAMES = [
    ('feed', SESSION, 1, [m_D_early, m_S], FEED_PORT, 0),
    ('arp',),
    ('feed', SESSION, 3, [m_R1, m_R2, m_H, m_Y], FEED_PORT, 0),
    ('feed', SESSION, 7, [m_L, m_V, m_W, m_K], FEED_PORT, VLAN),
    ('feed', 'OTHER     ', 100, [m_A_other, m_N_other], OTHER_PORT, 0),
    ('feed', SESSION, 11, [], FEED_PORT, 0),            # heartbeat
    ('feed', SESSION, 11, [m_J, m_h, m_A, m_F, m_E, m_C, m_X, m_D, m_U],
     FEED_PORT, 0),
    ('feed', SESSION, 20, [m_P, m_Q, m_B, m_I, m_N], FEED_PORT, 0),
    # one good message, an unknown type, a length not its type's, then a
    # block running past the packet: the first is shown, the rest counted
    ('feed', SESSION, 25, [m_A_brk, b'Zabcd', encode(m_A)[:30],
                           b'\x00\x24' + encode(m_A)[:10]], FEED_PORT, 0),
    ('feed', SESSION, 30, [m_R3, m_X_late], FEED_PORT, 0),
    ('eos', SESSION, 32),
]


def mold(session, seq, blocks, count=None):
    b = session.encode().ljust(10, b' ') if isinstance(session, str) \
        else session
    if count is None:
        count = len(blocks)
    b += struct.pack('>QH', seq, count)
    for blk in blocks:
        if isinstance(blk, dict):
            e = encode(blk)
            b += struct.pack('>H', len(e)) + e
        elif blk[:2] == b'\x00\x24':    # a raw, deliberately short block
            b += blk
        else:
            b += struct.pack('>H', len(blk)) + blk
    return b


def udp_frame(payload, port, vlan):
    eth = bytes.fromhex('01005e360c6f') + bytes.fromhex('020000000001')
    if vlan:
        eth += struct.pack('>HH', 0x8100, vlan)
    eth += struct.pack('>H', 0x0800)
    udp = struct.pack('>HHHH', 40000, port, 8 + len(payload), 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 1, 0x4000,
                     64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([233, 54, 12, 111]))
    return eth + ip + udp


def pcap_header(linktype=1, snaplen=65535):
    return struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype)


def record(frame, i, caplen=None):
    if caplen is None:
        caplen = len(frame)
    return struct.pack('<IIII', 1700000000 + i, i, caplen, caplen) + frame


def build(sanitised=False):
    """Frames (bytes) and the expected messages in output order."""
    frames, want = [], []
    for kind, *a in FRAMES:
        n = len(frames) + 1
        if kind == 'arp':
            frames.append(bytes.fromhex('ffffffffffff020000000001') +
                          b'\x08\x06' + bytes(28))
            continue
        if kind == 'eos':
            frames.append(udp_frame(mold(a[0], a[1], [], 0xFFFF),
                                    FEED_PORT, 0))
            continue
        session, seq, blocks, port, vlan = a
        if sanitised:
            if not blocks or port != FEED_PORT or \
                    not all(isinstance(b, dict) for b in blocks):
                continue
            session, seq = bytes(10), 0
        frames.append(udp_frame(mold(session, seq, blocks), port, vlan))
        n = len(frames)
        for i, blk in enumerate(blocks):
            if isinstance(blk, dict):
                want.append(dict(blk, frame=n, port=port, vlan=vlan,
                                 session='' if sanitised else
                                 session.rstrip(' '),
                                 seq=0 if sanitised else seq + i))
    return frames, want


def gen(d):
    frames, want = build()
    body = b''.join(record(f, i) for i, f in enumerate(frames))
    with open(d + '/all.pcap', 'wb') as o:
        o.write(pcap_header() + body)
    with open(d + '/expected.json', 'w') as o:
        json.dump(dict(all=want, sanitised=build(True)[1]), o)
    sframes, _ = build(True)
    with open(d + '/sanitised.pcap', 'wb') as o:
        o.write(pcap_header() +
                b''.join(record(f, i) for i, f in enumerate(sframes)))
    with open(d + '/sll.pcap', 'wb') as o:
        o.write(pcap_header(113) + record(bytes(16) + frames[0][14:], 0))
    with open(d + '/big.pcap', 'wb') as o:
        o.write(pcap_header() +
                b''.join(record(f, i) for i, f in enumerate(frames[:3])) +
                record(bytes(70000), 3))
    # cut in the middle of frame 5's bytes
    cut = pcap_header() + b''.join(record(f, i)
                                   for i, f in enumerate(frames[:4]))
    cut += record(frames[4], 4)[:16 + len(frames[4]) // 2]
    with open(d + '/cut.pcap', 'wb') as o:
        o.write(cut)


# -- expected output -------------------------------------------------------

def bare(c):
    return '!' <= c <= '~' and c not in '"\\'


def q_text(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def time_of_day(ns):
    s = ns // NS
    return '%02d:%02d:%02d.%09d' % (s // 3600, s // 60 % 60, s % 60, ns % NS)


def price(v, dec):
    return '%d.%0*d' % (v // 10 ** dec, dec, v % 10 ** dec)


def expect_fields(m, as_json):
    """Ordered (key, value): text values as printed, JSON values typed."""
    name, _, fields = SPEC[m['type']]
    if as_json:
        out = [('frame', m['frame']), ('session', m['session']),
               ('seq', m['seq']), ('type', m['type']), ('type_name', name),
               ('locate', m['locate']), ('tracking', m['tracking']),
               ('time', time_of_day(m['ts']))]
    else:
        s = m['session']
        out = [('frame', str(m['frame'])),
               ('session', s if s and all(bare(c) for c in s)
                else q_text(s)),
               ('seq', str(m['seq'])),
               ('type', '%s(%s)' % (m['type'], name)),
               ('locate', str(m['locate'])),
               ('tracking', str(m['tracking'])),
               ('time', time_of_day(m['ts']))]
    for key, _, kind in fields:
        v = m['f'][key]
        if kind == C:
            v = v if as_json else (v if bare(v) else q_text(v))
        elif kind == A:
            v = v.rstrip(' ') if as_json else q_text(v.rstrip(' '))
        elif kind == U:
            v = v if as_json else str(v)
        else:
            v = price(v, 4 if kind == P4 else 8)
        out.append((key, v))
    return out


def select(want, o):
    out, sym_locates = [], set()
    for m in want:
        if not o.any and m['port'] != FEED_PORT:
            continue
        if o.port is not None and m['port'] != o.port:
            continue
        if o.vlan_only and not m['vlan']:
            continue
        if o.symbol is not None:
            stock = m['f'].get('stock')
            if m['type'] == 'R' and m['locate'] != 0:
                if stock == o.symbol:
                    sym_locates.add(m['locate'])
                else:
                    sym_locates.discard(m['locate'])
            if stock != o.symbol and m['locate'] not in sym_locates:
                continue
        if o.types is not None and m['type'] not in o.types:
            continue
        if o.frames is not None and m['frame'] > o.frames:
            continue
        out.append(m)
    return out


TOKEN = re.compile(r'([a-z_0-9]+)=("(?:[^"\\]|\\.)*"|[^ "]+)(?: |$)')


def parse_text(line):
    pairs, pos = [], 0
    while pos < len(line):
        t = TOKEN.match(line, pos)
        if t is None:
            raise ValueError('cannot parse at column %d: %r' %
                             (pos, line[pos:]))
        pairs.append((t.group(1), t.group(2)))
        pos = t.end()
    return pairs


def check(d, output, fmt, argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('--any', action='store_true')
    ap.add_argument('--sanitised', action='store_true')
    ap.add_argument('--types')
    ap.add_argument('--symbol')
    ap.add_argument('--port', type=int)
    ap.add_argument('--vlan-only', action='store_true')
    ap.add_argument('--frames', type=int)
    o = ap.parse_args(argv)
    with open(d + '/expected.json') as f:
        exp = json.load(f)['sanitised' if o.sanitised else 'all']
    want = select(exp, o)
    with open(output) as f:
        lines = f.read().splitlines()
    errors, fields = [], 0
    if len(lines) != len(want):
        errors.append('%d message lines, want %d' % (len(lines), len(want)))
    for line, m in zip(lines, want):
        what = 'frame %d seq %d type %s' % (m['frame'], m['seq'], m['type'])
        exp_pairs = expect_fields(m, fmt == 'json')
        try:
            if fmt == 'json':
                obj = json.loads(line)
                got = list(obj.items())
            else:
                got = parse_text(line)
        except ValueError as e:
            errors.append('%s: %s' % (what, e))
            continue
        gk, wk = [k for k, _ in got], [k for k, _ in exp_pairs]
        if gk != wk:
            errors.append('%s: keys %s, want %s' % (what, gk, wk))
            continue
        for (k, g), (_, w) in zip(got, exp_pairs):
            # a JSON number must be a number, a JSON string a string
            if g != w or type(g) is not type(w):
                errors.append('%s: %s=%r, want %r' % (what, k, g, w))
            fields += 1
    if errors:
        for e in errors[:20]:
            print('  ' + e)
        print('FAIL: %d differences in %s output (%s)' %
              (len(errors), fmt, ' '.join(argv) or 'all'))
        return 1
    print('  %s%s: %d messages, %d types, %d fields as expected' %
          (fmt, (' ' + ' '.join(argv)) if argv else '', len(want),
           len({m['type'] for m in want}), fields))
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'gen':
        gen(sys.argv[2])
        return 0
    if len(sys.argv) >= 5 and sys.argv[1] == 'check':
        return check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
