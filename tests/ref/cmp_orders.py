#!/usr/bin/env python3
"""cmp_orders: compare or decode hedgewire order frames (pcap).

usage: cmp_orders.py EXPECTED.pcap ACTUAL.pcap
       cmp_orders.py --decode FILE.pcap

Order frame: Ethernet / IPv4 / UDP / SoupBinTCP Unsequenced Data ('U') /
OUCH 5.0 Enter Order ('O', 47 bytes), 92 bytes in all
(docs/protocols.md "Order bytes").  Compare mode: frame by frame, byte for
byte; exit 0 and "PASS: N orders identical" when equal, else exit 1 with
the first difference decoded field by field.  Decode mode: one line per frame,
framing validated (checksums, lengths, types); exit 1 on any invalid
frame.  Python 3.11 standard library only.
"""

import signal
import struct
import sys

OUCH = struct.Struct('>cIcI8sQccccc14sH')


def read_pcap(path):
    try:
        with open(path, 'rb') as f:
            buf = f.read()
    except OSError as e:
        sys.exit('cmp_orders: %s' % e)
    if len(buf) < 24:
        sys.exit('cmp_orders: %s: not a pcap (too short)' % path)
    m = buf[:4]
    if m in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        e = '<'
    elif m in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        e = '>'
    else:
        sys.exit('cmp_orders: %s: not a classic pcap (magic %s)' % (path, m.hex()))
    ns = m in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
    link = struct.unpack_from(e + 'I', buf, 20)[0] & 0x0FFFFFFF
    if link != 1:
        sys.exit('cmp_orders: %s: link type %d is not Ethernet' % (path, link))
    frames = []
    off = 24
    while off + 16 <= len(buf):
        s, frac, incl, _orig = struct.unpack_from(e + 'IIII', buf, off)
        off += 16
        if off + incl > len(buf):
            sys.exit('cmp_orders: %s: pcap ends inside record %d' % (path, len(frames)))
        frames.append(((s, frac, ns), buf[off:off + incl]))
        off += incl
    if off != len(buf):
        sys.exit('cmp_orders: %s: pcap ends inside a record header' % path)
    return frames


def csum16(data, start=0):
    if len(data) & 1:
        data = bytes(data) + b'\0'
    s = start + sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def mac(b):
    return ':'.join('%02x' % x for x in b)


def ip(b):
    return '.'.join(str(x) for x in b)


def txt(b):
    return ''.join(chr(c) if 32 <= c < 127 else '\\x%02x' % c for c in b)


def decode(fr):
    """Returns (fields: list of (name, value-string), problems: list)."""
    f = []
    bad = []
    n = len(fr)
    if n < 14:
        return [('frame_len', str(n))], ['frame shorter than Ethernet']
    f += [('eth.dst', mac(fr[0:6])), ('eth.src', mac(fr[6:12]))]
    et = struct.unpack_from('>H', fr, 12)[0]
    f.append(('eth.type', '0x%04x' % et))
    if et != 0x0800:
        bad.append('EtherType 0x%04x is not IPv4' % et)
        return f, bad
    if n < 34:
        bad.append('frame too short for IPv4 header (%d)' % n)
        return f, bad
    vihl, tos, tot, ident, ff, ttl, proto, ck = struct.unpack_from('>BBHHHBBH', fr, 14)
    f += [('ip.version', str(vihl >> 4)), ('ip.hdr_len', str((vihl & 15) * 4)),
          ('ip.tos', str(tos)), ('ip.total_len', str(tot)), ('ip.id', str(ident)),
          ('ip.flags_frag', '0x%04x' % ff), ('ip.ttl', str(ttl)), ('ip.proto', str(proto)),
          ('ip.checksum', '0x%04x' % ck), ('ip.src', ip(fr[26:30])), ('ip.dst', ip(fr[30:34]))]
    if vihl != 0x45:
        bad.append('IPv4 version/IHL 0x%02x (want 0x45)' % vihl)
        return f, bad
    if csum16(fr[14:34]) != 0xFFFF:
        bad.append('bad IPv4 header checksum')
    if tot != 78:
        bad.append('IPv4 total length %d (want 78)' % tot)
    if tot != n - 14:
        bad.append('IPv4 total length %d but frame carries %d' % (tot, n - 14))
    if ff != 0x4000:
        bad.append('IPv4 flags/fragment 0x%04x (want DF only)' % ff)
    if proto != 17:
        bad.append('IPv4 protocol %d is not UDP' % proto)
        return f, bad
    if n < 42:
        bad.append('frame too short for UDP header')
        return f, bad
    sp, dp, ul, uck = struct.unpack_from('>HHHH', fr, 34)
    f += [('udp.sport', str(sp)), ('udp.dport', str(dp)), ('udp.len', str(ul)),
          ('udp.checksum', '0x%04x' % uck)]
    if ul != 58:
        bad.append('UDP length %d (want 58)' % ul)
    if ul < 8 or 34 + ul > n:
        bad.append('UDP length %d runs past the frame' % ul)
        return f, bad
    if uck == 0:
        bad.append('UDP checksum absent (0)')
    else:
        pseudo = fr[26:34] + struct.pack('>BBH', 0, 17, ul)
        if csum16(fr[34:34 + ul], csum16(pseudo)) != 0xFFFF:
            bad.append('bad UDP checksum')
    if n < 45:
        bad.append('frame too short for SoupBinTCP header')
        return f, bad
    sl, st = struct.unpack_from('>Hc', fr, 42)
    f += [('soup.len', str(sl)), ('soup.type', txt(st))]
    if sl != 48:
        bad.append('SoupBinTCP length %d (want 48)' % sl)
    if st != b'U':
        bad.append("SoupBinTCP type %r (want 'U')" % st)
    if 44 + sl != 34 + ul:
        bad.append('SoupBinTCP length %d does not fill the UDP payload (%d)' % (sl, ul - 8))
    if n < 92:
        bad.append('frame too short for OUCH Enter Order (%d < 92)' % n)
        return f, bad
    (typ, urn, side, qty, sym, price, tif, disp, cap, iso, cross, clid,
     app) = OUCH.unpack_from(fr, 45)
    f += [('ouch.type', txt(typ)), ('ouch.UserRefNum', str(urn)), ('ouch.side', txt(side)),
          ('ouch.quantity', str(qty)), ('ouch.symbol', "'%s'" % txt(sym)),
          ('ouch.price', '%d (%d.%04d)' % (price, price // 10000, price % 10000)),
          ('ouch.tif', txt(tif)), ('ouch.display', txt(disp)), ('ouch.capacity', txt(cap)),
          ('ouch.intermarket_sweep', txt(iso)), ('ouch.cross_type', txt(cross)),
          ('ouch.ClOrdID', "'%s'" % txt(clid)), ('ouch.appendage_len', str(app))]
    if typ != b'O':
        bad.append("OUCH type %r (want 'O')" % typ)
    if app != 0:
        bad.append('OUCH appendage length %d (want 0)' % app)
    if side not in (b'B', b'S', b'T', b'E'):
        bad.append('OUCH side %r' % side)
    if n != 92:
        bad.append('frame length %d (want 92)' % n)
    return f, bad


def clordid(fr):
    if len(fr) >= 92:
        return txt(fr[76:90])
    return '?'


def one_line(fr):
    f, bad = decode(fr)
    d = dict(f)
    keys = ['ouch.UserRefNum', 'ouch.ClOrdID', 'ouch.side', 'ouch.quantity', 'ouch.symbol',
            'ouch.price', 'ouch.tif', 'ouch.display', 'ouch.capacity',
            'ouch.intermarket_sweep', 'ouch.cross_type', 'ouch.appendage_len']
    parts = ['%s=%s' % (k.split('.', 1)[1], d[k]) for k in keys if k in d]
    parts.append('%s:%s -> %s:%s' % (d.get('ip.src', '?'), d.get('udp.sport', '?'),
                                     d.get('ip.dst', '?'), d.get('udp.dport', '?')))
    return ' '.join(parts), bad


def do_decode(path):
    frames = read_pcap(path)
    nbad = 0
    for i, (ts, fr) in enumerate(frames):
        line, bad = one_line(fr)
        print('%d %s' % (i, line))
        for b in bad:
            print('  INVALID frame %d: %s' % (i, b))
        nbad += bool(bad)
    if nbad:
        print('FAIL: %d of %d frames invalid' % (nbad, len(frames)))
        return 1
    print('OK: %d order frames, framing valid' % len(frames))
    return 0


def show_diff(i, a, b):
    print('first difference at frame %d (0-based)' % i)
    fa, ba = decode(a)
    fb, bb = decode(b)
    da, db = dict(fa), dict(fb)
    names = [k for k, _ in fa] + [k for k, _ in fb if k not in da]
    print('  %-24s %-32s %-32s' % ('field', 'expected', 'actual'))
    for k in names:
        va, vb = da.get(k, '-'), db.get(k, '-')
        print('%s %-24s %-32s %-32s' % ('*' if va != vb else ' ', k, va, vb))
    if len(a) != len(b):
        print('  frame length: expected %d, actual %d' % (len(a), len(b)))
    for j in range(min(len(a), len(b))):
        if a[j] != b[j]:
            print('  first differing byte: offset %d (expected 0x%02x, actual 0x%02x)' % (j, a[j], b[j]))
            break
    for tag, bad in (('expected', ba), ('actual', bb)):
        for p in bad:
            print('  %s frame invalid: %s' % (tag, p))


def do_compare(pe, pa):
    E = [fr for _, fr in read_pcap(pe)]
    A = [fr for _, fr in read_pcap(pa)]
    rc = 0
    if len(E) != len(A):
        rc = 1
        print('FAIL: count mismatch: expected %d orders, actual %d' % (len(E), len(A)))
        ce = [clordid(f) for f in E]
        ca = [clordid(f) for f in A]
        se, sa = set(ce), set(ca)
        only_e = [c for c in ce if c not in sa]
        only_a = [c for c in ca if c not in se]
        if only_e:
            print('  only in expected (%d), first: %s' % (len(only_e), ' '.join(only_e[:10])))
        if only_a:
            print('  only in actual (%d), first: %s' % (len(only_a), ' '.join(only_a[:10])))
        if not only_e and not only_a:
            k = min(len(E), len(A))
            extra = (E if len(E) > k else A)[k:]
            print('  same ClOrdID sets; first unmatched %s frames: %s'
                  % ('expected' if len(E) > k else 'actual',
                     ' '.join(clordid(f) for f in extra[:10])))
    for i in range(min(len(E), len(A))):
        if E[i] != A[i]:
            if rc == 0:
                print('FAIL: frame %d differs' % i)
            show_diff(i, E[i], A[i])
            return 1
    if rc:
        print('  (the first %d frames are identical)' % min(len(E), len(A)))
        return 1
    print('PASS: %d orders identical' % len(E))
    return 0


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) == 2 and argv[0] == '--decode':
        return do_decode(argv[1])
    if len(argv) == 2 and not argv[0].startswith('-'):
        return do_compare(argv[0], argv[1])
    sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
