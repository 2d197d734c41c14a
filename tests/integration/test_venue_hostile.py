#!/usr/bin/env python3
"""Tests of scripts/venue_sim.py's hostile modes (--lie, --fuzz) with a
client of its own: the messages decoded from the published OUCH 5.0
layouts (docs/protocols.md; Order Modified and Replaced included), the
client's view of its orders kept by the rules of docs/venue.md "What the
replicas do with the answers", independently of the simulator's code.

usage: python3 tests/integration/test_venue_hostile.py

For each --lie kind: the stream holds exactly one contradiction, the
journal's `lie` event names it (sequence number, type, UserRefNum,
quantity), it is of its kind's shape, every message has its type's
length, and the orders after it are answered honestly. --fuzz: the
simulator survives a client that reconnects through a mutation on half
the answers, journals each one, and exits 0 with its summary.
Prints one line per check and "N passed, N failed"; exits 1 if any
failed.
"""

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'scripts',
                   'venue_sim.py')
KINDS = ('exec-unsent', 'exec-closed-dead', 'exec-closed-zero',
         'exec-closed-modified', 'exec-closed-filled', 'overfill',
         'accept-over', 'modify-over', 'replace', 'replace-future')
# OUCH 5.0 server messages: type -> length (no appendage)
LENGTH = {'S': 10, 'A': 64, 'U': 68, 'C': 18, 'E': 36, 'J': 29, 'I': 13,
          'M': 18}

passed = failed = 0


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('ok   %s' % name)
    else:
        failed += 1
        print('FAIL %s %s' % (name, detail))
    return cond


def be(b):
    return int.from_bytes(b, 'big')


def parse(m):
    t = chr(m[0])
    d = {'type': t, 'len': len(m)}
    if t == 'A' and len(m) == 64:
        d.update(urn=be(m[9:13]), qty=be(m[14:18]), state=m[47:48])
    elif t == 'U' and len(m) == 68:
        d.update(orig=be(m[9:13]), urn=be(m[13:17]), qty=be(m[18:22]),
                 state=m[51:52])
    elif t == 'E' and len(m) == 36:
        d.update(urn=be(m[9:13]), qty=be(m[13:17]))
    elif t == 'C' and len(m) == 18:
        d.update(urn=be(m[9:13]), qty=be(m[13:17]))
    elif t == 'J' and len(m) == 29:
        d.update(urn=be(m[9:13]))
    elif t == 'M' and len(m) == 18:
        d.update(urn=be(m[9:13]), qty=be(m[14:18]))
    return d


def enter_order(urn, qty):
    return (b'O' + struct.pack('>IcI8sq', urn, b'B', qty, b'AAPL    ',
                               1_000_000) + b'0YANN'
            + ('CL%d' % urn).encode().ljust(14) + b'\0\0')


def login(seq):
    return ('U'.ljust(6) + 'P'.ljust(10) + ''.ljust(10)
            + str(seq).rjust(20)).encode()


def pkt(t, b=b''):
    return struct.pack('>H', len(b) + 1) + t + b


class Sim:
    def __init__(self, d, *args):
        self.journal = os.path.join(d, 'j.jsonl')
        ready = os.path.join(d, 'port')
        self.p = subprocess.Popen(
            [sys.executable, SIM, '--listen', '127.0.0.1:0', '--user', 'U',
             '--password', 'P', '--session', 'S', '--journal', self.journal,
             '--ready-file', ready, '--heartbeat-ms', '5000'] + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        end = time.monotonic() + 30
        while not os.path.exists(ready) and time.monotonic() < end and \
                self.p.poll() is None:
            time.sleep(0.02)
        self.port = int(open(ready).read())

    def stop(self):
        self.p.terminate()
        out = self.p.communicate(timeout=30)[0]
        return self.p.returncode, out

    def events(self, name):
        return [json.loads(ln) for ln in open(self.journal)
                if '"event": "%s"' % name in ln]


def read_packets(s, until):
    """Packets until the connection closes or nothing comes for `until`
    seconds: [(type, payload)]."""
    s.settimeout(until)
    buf = b''
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            buf += d
    except (socket.timeout, ConnectionError):
        pass
    out, off = [], 0
    while off + 2 <= len(buf):
        n = be(buf[off:off + 2])
        if n == 0 or off + 2 + n > len(buf):
            break
        out.append((buf[off + 2:off + 3], buf[off + 3:off + 2 + n]))
        off += 2 + n
    return out


def contradictions(stream, entered):
    """(index, why) of each message of stream (parsed, in sequence order)
    that contradicts the orders entered, by the replicas' rules."""
    open_q, out = dict(entered), []
    for i, d in enumerate(stream):
        t, u, q = d['type'], d.get('urn'), d.get('qty')
        why = None
        if t == 'U':
            why = 'Replaced'
        elif t == 'E':
            if u not in entered:
                why = 'never entered'
            elif open_q.get(u, 0) == 0:
                why = 'closed'
            elif q > open_q[u]:
                why = 'over open'
        elif t in 'AM' and u in entered and q > entered[u]:
            why = 'over entered'
        if why:
            out.append((i, why))
        if t == 'A' and u in open_q:
            open_q[u] = 0 if d['state'] == b'D' else q
        elif t == 'M' and u in open_q:
            open_q[u] = q
        elif t in 'EC' and u in open_q:
            open_q[u] = max(0, open_q[u] - q)
        elif t == 'J' and u in open_q:
            open_q[u] = 0
        elif t == 'U':
            open_q[d['orig']] = 0
            open_q[d['urn']] = d['qty']
    return out


def lie_kind(kind):
    with tempfile.TemporaryDirectory() as d:
        sim = Sim(d, '--lie', kind, '--lie-after', '3')
        s = socket.create_connection(('127.0.0.1', sim.port))
        s.sendall(pkt(b'L', login(1)))
        entered = {}
        for i in range(6):
            urn = 10 + 2 * i
            entered[urn] = 100 + i
            s.sendall(pkt(b'U', enter_order(urn, 100 + i)))
        got = read_packets(s, 1.0)
        s.close()
        rc, out = sim.stop()
        lies = sim.events('lie')
    seqd = [(t, p) for t, p in got if t == b'S']
    stream = [parse(p) for _, p in seqd]
    first = int(got[0][1][10:30]) if got and got[0][0] == b'A' else None
    check('%s: login accepted from 1, simulator exit 0' % kind,
          first == 1 and rc == 0, '%r %d %s' % (got[:1], rc, out))
    bad = [d for d in stream if LENGTH.get(d['type']) != d['len']]
    check('%s: every message its OUCH 5.0 length' % kind, not bad, bad)
    c = contradictions(stream, entered)
    if not check('%s: one contradiction in the stream, one lie event' % kind,
                 len(c) == 1 and len(lies) == 1, '%s %s' % (c, lies)):
        return
    i, why = c[0]
    m, lie = stream[i], lies[0]
    check('%s: the lie event names it (seq %d, %s, UserRefNum %s, qty %s)'
          % (kind, i + 1, m['type'], m.get('urn'), m.get('qty')),
          (lie['seq'], lie['msg'], lie['urn'], lie['qty']) ==
          (i + 1, m['type'], m.get('urn'), m.get('qty')), lie)
    before = stream[:i]
    on = [d for d in before if d.get('urn') == m.get('urn')]
    shape = {
        'exec-unsent': m['type'] == 'E' and m['urn'] not in entered
        and m['urn'] < max(entered),
        'exec-closed-dead': m['type'] == 'E' and on and on[-1]['type'] ==
        'A' and on[-1]['state'] == b'D',
        'exec-closed-zero': m['type'] == 'E' and on and on[-1]['type'] ==
        'A' and on[-1]['qty'] == 0,
        'exec-closed-modified': m['type'] == 'E' and on and
        on[-1]['type'] == 'M' and on[-1]['qty'] == 0,
        'exec-closed-filled': m['type'] == 'E' and
        sum(d['qty'] for d in on if d['type'] == 'E') ==
        entered.get(m['urn']),
        'overfill': m['type'] == 'E' and why == 'over open' and
        m['qty'] == entered[m['urn']] - sum(d['qty'] for d in on
                                            if d['type'] == 'E') + 1,
        'accept-over': m['type'] == 'A' and
        m['qty'] == entered[m['urn']] + 1,
        'modify-over': m['type'] == 'M' and
        m['qty'] == entered[m['urn']] + 1,
        'replace': m['type'] == 'U' and m.get('orig') in entered and
        m['urn'] not in entered and m['urn'] < max(entered),
        'replace-future': m['type'] == 'U' and m.get('orig') in entered and
        m['urn'] == max(u for u in entered
                        if any(d.get('urn') == u for d in before)) + 1,
    }[kind]
    check('%s: of its shape (%s)' % (kind, why), shape, m)
    acc = {d['urn'] for d in stream if d['type'] == 'A'}
    check('%s: every Enter Order accepted, before and after it' % kind,
          acc >= set(entered), sorted(set(entered) - acc))


def fuzz():
    with tempfile.TemporaryDirectory() as d:
        sim = Sim(d, '--fuzz', '7', '--fuzz-rate', '0.5')
        nxt, urn, conns = 1, 10, 0
        end = time.monotonic() + 20
        while urn < 90 and time.monotonic() < end:
            s = socket.create_connection(('127.0.0.1', sim.port))
            conns += 1
            try:
                s.sendall(pkt(b'L', login(nxt)))
                for _ in range(5):
                    s.sendall(pkt(b'U', enter_order(urn, 100)))
                    urn += 2
            except (BrokenPipeError, ConnectionResetError):
                pass    # the simulator dropped us (a mutation): read on
            got = read_packets(s, 0.3)
            s.close()
            # the next login asks for the next message it has whole
            if got and got[0][0] == b'A' and int(got[0][1][10:30]) == nxt:
                nxt += sum(1 for t, _ in got if t == b'S')
        rc, out = sim.stop()
        kinds = {e['kind'] for e in sim.events('fuzz')}
    check('fuzz: the simulator exits 0 with its summary after %d '
          'connections' % conns, rc == 0 and 'venue_sim: orders' in out,
          out[-500:])
    check('fuzz: mutations journalled (%s)' % ', '.join(sorted(kinds)),
          len(kinds) >= 4, kinds)


def main():
    t0 = time.monotonic()
    for k in KINDS:
        lie_kind(k)
    fuzz()
    print('%d passed, %d failed (%.1f s)' % (passed, failed,
                                              time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
