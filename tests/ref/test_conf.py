#!/usr/bin/env python3
"""Self-test of hgw_ref.py's configuration defaults: they come from the
documented key table, conf/demo.ini, read at run time, not from a copy.

usage: python3 tests/ref/test_conf.py [--keep]

Copies hgw_ref.py and conf/demo.ini into a scratch tree (tests/ref/ and
conf/ side by side, as in the source tree), then on a small hand-built
feed and table:
  - with the table as it is, the orders are throttled at the documented
    [risk] max_orders_instrument (read here from conf/demo.ini);
  - with that default changed in the scratch conf/demo.ini, the reference
    throttles at the new value; a --conf that sets the key still wins;
  - with a key the reference reads removed from the table, or the table
    missing, it exits 2 with one line naming the key (the file).
Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the tests' own RFC 1071 sum, apart from hgw_ref's (test_risk_rules uses
# it through this module)
from test_feed_rules import ones_sum  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEMO = os.path.join(REPO, 'conf', 'demo.ini')
SESSION = b'CONFTEST01'
TRIGGERS = 40                 # bid adds after the quote is made


def crc32c(data):
    """CRC-32C, bit by bit (the table header's checksum)."""
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def frame(seq, msg, group, port):
    """Ethernet/IPv4/UDP/MoldUDP64 frame carrying one ITCH message."""
    body = struct.pack('>10sQH', SESSION, seq, 1) + struct.pack('>H', len(msg)) + msg
    src = bytes((10, 1, 1, 1))
    ulen = 8 + len(body)
    udp = bytearray(struct.pack('>HHHH', 40000, port, ulen, 0) + body)
    c = ~ones_sum(src + group + struct.pack('>BBH', 0, 17, ulen) + bytes(udp)) & 0xFFFF
    struct.pack_into('>H', udp, 6, c or 0xFFFF)
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + ulen, 0, 0x4000, 64, 17, 0,
                               src, group))
    struct.pack_into('>H', ip, 10, ~ones_sum(bytes(ip)) & 0xFFFF)
    return b'\x01\x00\x5e\x36\x0c\x6f\x02\x00\x00\x00\x00\x09\x08\x00' + bytes(ip) + bytes(udp)


def ts6(ns):
    return struct.pack('>Q', ns)[2:]


def demo_value(text, section, key):
    sec = None
    for line in text.splitlines():
        line = line.split(';', 1)[0].strip()
        if line.startswith('['):
            sec = line[1:-1]
        elif '=' in line and sec == section:
            k, v = (x.strip() for x in line.split('=', 1))
            if k == key:
                return v
    raise SystemExit('test_conf: %s has no [%s] %s' % (DEMO, section, key))


def write_inputs(d, demo_text):
    """feed.pcap (the documented feed group and port): locate 1 named, a
    quote, then TRIGGERS bid adds 1 us apart; table.tbl: locate 1 buys 10
    at the bid on every trigger."""
    group = bytes(int(x) for x in demo_value(demo_text, 'feed', 'group').split('.'))
    port = int(demo_value(demo_text, 'feed', 'port'))
    msgs = [b'R' + struct.pack('>HH', 1, 0) + ts6(1000) + b'CONF    ' + bytes(20)]

    def add(ref, side, shares, price, t):
        return b'A' + struct.pack('>HH', 1, 0) + ts6(t) + struct.pack(
            '>QcI8sI', ref, side, shares, b'CONF    ', price)
    msgs.append(add(1, b'B', 100, 100000, 2000))
    msgs.append(add(2, b'S', 100, 100100, 3000))
    for k in range(TRIGGERS):
        msgs.append(add(3 + k, b'B', 100, 100000, 4000 + k * 1000))
    with open(os.path.join(d, 'feed.pcap'), 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k, m in enumerate(msgs):
            fr = frame(1 + k, m, group, port)
            f.write(struct.pack('<IIII', 0, k, len(fr), len(fr)) + fr)
    # 2 instruments x 1 spread x 1 imbalance, tick 100: entry 1 = B, touch
    # price mode, offset 0, quantity 10, tif '0', display 'Y'
    entries = bytes(64) + struct.pack('<IBBBBiII', 0, ord('B'), 0, ord('0'), ord('Y'),
                                      0, 10, 1) + bytes(44)
    hdr = struct.pack('<8sIIIIIIQI20s', b'HGWTABL1', 1, 64, 2, 1, 1, 100, 2,
                      crc32c(entries), bytes(20))
    with open(os.path.join(d, 'table.tbl'), 'wb') as f:
        f.write(hdr + entries)


results = []


def check(name, ok, detail=''):
    results.append(ok)
    print('%s %s%s' % ('PASS' if ok else 'FAIL', name,
                       (': ' + detail) if detail and not ok else ''))


def run_ref(d, conf=None):
    """Runs the scratch tree's hgw_ref.py; returns (exit status, summary
    dict, stderr)."""
    cmd = [sys.executable, os.path.join(d, 'tests', 'ref', 'hgw_ref.py'),
           '--feed', os.path.join(d, 'feed.pcap'), '--table', os.path.join(d, 'table.tbl'),
           '--out', os.path.join(d, 'out.pcap')]
    if conf is not None:
        cmd += ['--conf', conf]
    p = subprocess.run(cmd, capture_output=True, text=True)
    summary = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition(' ')
        if v.isdigit():
            summary[k] = int(v)
    return p.returncode, summary, p.stderr


def main(argv):
    keep = '--keep' in argv
    with open(DEMO, encoding='utf-8') as f:
        demo_text = f.read()
    d = tempfile.mkdtemp(prefix='hgw-ref-conf.')
    try:
        os.makedirs(os.path.join(d, 'tests', 'ref'))
        os.makedirs(os.path.join(d, 'conf'))
        shutil.copy(os.path.join(HERE, 'hgw_ref.py'), os.path.join(d, 'tests', 'ref'))
        scratch_demo = os.path.join(d, 'conf', 'demo.ini')

        def set_demo(text):
            with open(scratch_demo, 'w', encoding='utf-8') as f:
                f.write(text)

        write_inputs(d, demo_text)
        doc_n = int(demo_value(demo_text, 'risk', 'max_orders_instrument'))
        # the feed makes more triggers than the default lets through, and
        # fewer than [risk] max_orders_total: only the instrument throttle acts
        assert doc_n + 5 < TRIGGERS + 1 <= int(demo_value(demo_text, 'risk', 'max_orders_total'))

        # 1. the documented table as it is
        set_demo(demo_text)
        rc, s, err = run_ref(d)
        check('documented table: runs', rc == 0, err.strip())
        check('documented table: triggers with a quote = %d' % (TRIGGERS + 1),
              s.get('decisions') == TRIGGERS + 1, str(s))
        check('documented max_orders_instrument = %d: that many orders' % doc_n,
              s.get('orders') == doc_n and
              s.get('reject_throttle_instrument') == TRIGGERS + 1 - doc_n, str(s))

        # 2. the documented default changed: the reference follows it
        new_n = doc_n + 5
        pat = re.compile(r'^max_orders_instrument[ \t]*=.*$', re.M)
        assert len(pat.findall(demo_text)) == 1
        set_demo(pat.sub('max_orders_instrument = %d' % new_n, demo_text))
        rc, s, err = run_ref(d)
        check('default changed to %d in the table: %d orders' % (new_n, new_n),
              rc == 0 and s.get('orders') == new_n, '%d %s %s' % (rc, s, err.strip()))
        # a configuration that sets the key still overrides the default
        conf = os.path.join(d, 'conf.ini')
        with open(conf, 'w') as f:
            f.write('[risk]\nmax_orders_instrument = %d\n' % (doc_n - 3))
        rc, s, err = run_ref(d, conf)
        check('--conf max_orders_instrument = %d beats the table' % (doc_n - 3),
              rc == 0 and s.get('orders') == doc_n - 3, '%d %s %s' % (rc, s, err.strip()))

        # 3. a key the reference reads is missing from the table: exit 2,
        # one line naming it (also when the key is set by --conf: the
        # table is the specification of every key)
        for sec, key in (('risk', 'max_position'), ('feed', 'max_jump'),
                         ('order', 'capacity')):
            kp = re.compile(r'^%s[ \t]*=.*\n' % key, re.M)
            assert len(kp.findall(demo_text)) == 1, key
            set_demo(kp.sub('', demo_text))
            rc, s, err = run_ref(d)
            lines = err.strip().splitlines()
            check('[%s] %s missing from the table: exit 2 naming it' % (sec, key),
                  rc == 2 and len(lines) == 1 and ('[%s] %s' % (sec, key)) in lines[0]
                  and 'demo.ini' in lines[0], '%d %r' % (rc, err))
        os.remove(scratch_demo)
        rc, s, err = run_ref(d)
        check('no documented table: exit 2 naming it',
              rc == 2 and 'demo.ini' in err, '%d %r' % (rc, err))
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
