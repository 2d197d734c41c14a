#!/usr/bin/env python3
"""soupbin_tshark: compare a capture of SoupBinTCP sessions, decoded by
tshark's own SoupBinTCP dissector, with a JSON-lines journal of the same
packets.

usage: soupbin_tshark.py CAPTURE PORT JOURNAL [--tshark PATH] [--verbose]

CAPTURE is a pcap/pcapng taken on the loopback (e.g. with
`dumpcap -i lo -f 'tcp port PORT' -w CAPTURE`); PORT is the server's TCP
port.  JOURNAL has one JSON object a line; the lines with "dir" "in"
(client to server) or "out" (server to client) are packets, each with
"peer" (the client's HOST:PORT), "type" (the packet type character),
"len" (the SoupBinTCP packet length), "hex" (the bytes after the type
byte) and, for Sequenced Data, "seq"; other lines are ignored.  This is
the journal of scripts/venue_sim.py --journal; any other program can write
one the same way.

The capture is decoded with
  tshark -r CAPTURE -d tcp.port==PORT,soupbintcp \
         --disable-protocol ouch -T pdml
and split by connection (the client's port) and direction.  For each, the
packets must agree one by one with the journal's, in order: type, packet
length, payload bytes (as far as the dissector shows them), the sequence
number tshark computes for Sequenced Data, the session and sequence numbers
of Login Request / Login Accepted.

Exits 0 when they agree, 1 at the first difference (printed), 2 if the
inputs cannot be read.
"""

import argparse
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SEQ_RE = re.compile(r':\s*(\d+)')


def tshark_packets(capture, port, tshark):
    cmd = [tshark, '-r', capture, '-d', 'tcp.port==%d,soupbintcp' % port,
           '--disable-protocol', 'ouch', '-T', 'pdml']
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise SystemExit('soupbin_tshark: cannot run %s: %s' % (tshark, e))
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors='replace'))
        raise SystemExit(2)
    root = ET.fromstring(p.stdout)
    out = []
    for pkt in root.iter('packet'):
        frame = sport = dport = None
        for proto in pkt.findall('proto'):
            name = proto.get('name')
            if name == 'geninfo':
                for f in proto.findall('field'):
                    if f.get('name') == 'num':
                        frame = int(f.get('show'))
            elif name == 'tcp':
                for f in proto.findall('field'):
                    if f.get('name') == 'tcp.srcport':
                        sport = int(f.get('show'))
                    elif f.get('name') == 'tcp.dstport':
                        dport = int(f.get('show'))
            elif name == 'soupbintcp':
                out.append((frame, sport, dport, soup_pdu(proto)))
    recs = []
    for frame, sport, dport, pdu in out:
        if sport == port:
            pdu.update(dir='out', client=dport)
        elif dport == port:
            pdu.update(dir='in', client=sport)
        else:
            continue
        pdu['frame'] = frame
        recs.append(pdu)
    return recs


def soup_pdu(proto):
    """One SoupBinTCP packet as tshark shows it."""
    d = {'payload': '', 'covered': 0}
    for f in proto.iter('field'):
        name = f.get('name', '')
        value = f.get('value') or ''
        if name == 'soupbintcp.packet_length':
            d['len'] = int(f.get('show'))
        elif name == 'soupbintcp.packet_type':
            d['type'] = bytes.fromhex(value).decode('latin-1')
        elif name == 'soupbintcp.seq_num':
            m = SEQ_RE.search(f.get('showname', ''))
            d['seq'] = int(m.group(1)) if m else None
        elif name.startswith('soupbintcp.') and value and \
                f.get('size', '0') != '0':
            d['payload'] += value
            d['covered'] += int(f.get('size'))
            if name == 'soupbintcp.session':
                d['session'] = bytes.fromhex(value).decode('latin-1')
            elif name in ('soupbintcp.next_seq_num', 'soupbintcp.req_seq_num'):
                d['num'] = bytes.fromhex(value).decode('latin-1').strip()
    return d


def journal_packets(path):
    recs = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                raise SystemExit('soupbin_tshark: %s:%d: not JSON' % (path, i))
            if r.get('dir') not in ('in', 'out'):
                continue
            try:
                client = int(str(r['peer']).rpartition(':')[2])
                recs.append({'dir': r['dir'], 'client': client,
                             'type': r['type'], 'len': int(r['len']),
                             'payload': r.get('hex', ''),
                             'seq': r.get('seq'), 'line': i})
            except (KeyError, ValueError):
                raise SystemExit('soupbin_tshark: %s:%d: a packet needs peer,'
                                 ' type, len, hex' % (path, i))
    return recs


def group(recs):
    g = {}
    for r in recs:
        g.setdefault((r['client'], r['dir']), []).append(r)
    return g


def differ(t, j):
    """Why tshark's packet t and the journal's j differ, or None."""
    if t.get('type') != j['type']:
        return 'type %r / %r' % (t.get('type'), j['type'])
    if t.get('len') != j['len']:
        return 'packet length %s / %s' % (t.get('len'), j['len'])
    jp = j['payload'].lower()
    tp = t['payload'].lower()
    if j['type'] == 'L' and len(tp) >= 32:
        # the journal keeps a Login Request's password (bytes 6-15) as
        # '*' (docs/venue.md): compare the wire's with that in its place
        tp = tp[:12] + jp[12:32] + tp[32:] if jp[12:32] == '2a' * 10 else tp
    if t['covered']:
        if t['covered'] != j['len'] - 1 or tp != jp:
            return 'payload %s / %s' % (t['payload'], jp)
    if j['type'] == 'S' and t.get('seq') != j['seq']:
        return 'sequence number %s / %s' % (t.get('seq'), j['seq'])
    if j['type'] in 'AL':
        raw = bytes.fromhex(jp)
        sess = raw[16:26] if j['type'] == 'L' else raw[0:10]
        num = (raw[26:46] if j['type'] == 'L' else raw[10:30]).strip()
        if t.get('session', '').encode('latin-1') != sess or \
                t.get('num', '').encode('latin-1') != num:
            return 'session / sequence %r %r / %r %r' % (
                t.get('session'), t.get('num'), sess, num)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('capture')
    ap.add_argument('port', type=int)
    ap.add_argument('journal')
    ap.add_argument('--tshark', default='tshark')
    ap.add_argument('--verbose', action='store_true')
    a = ap.parse_args()
    tg = group(tshark_packets(a.capture, a.port, a.tshark))
    jg = group(journal_packets(a.journal))
    n = 0
    for key in sorted(set(tg) | set(jg)):
        ts, js = tg.get(key, []), jg.get(key, [])
        for i in range(max(len(ts), len(js))):
            where = 'client port %d, %s, packet %d' % (key[0], key[1], i + 1)
            if i >= len(ts):
                print('soupbin_tshark: %s: journal line %d (%s) not in the '
                      'capture' % (where, js[i]['line'], js[i]['type']))
                return 1
            if i >= len(js):
                print('soupbin_tshark: %s: frame %s (%s) not in the journal'
                      % (where, ts[i]['frame'], ts[i].get('type')))
                return 1
            why = differ(ts[i], js[i])
            if why:
                print('soupbin_tshark: %s (frame %s, journal line %d): '
                      '%s (tshark / journal)' % (where, ts[i]['frame'],
                                                 js[i]['line'], why))
                return 1
            if a.verbose:
                print('%s: %s ok' % (where, js[i]['type']))
            n += 1
    if n == 0:
        print('soupbin_tshark: no SoupBinTCP packets on port %d' % a.port)
        return 1
    print('soupbin_tshark: %d packets agree on %d connection(s)' % (
        n, len({k[0] for k in tg})))
    return 0


if __name__ == '__main__':
    sys.exit(main())
