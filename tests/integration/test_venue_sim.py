#!/usr/bin/env python3
"""Tests of scripts/venue_sim.py, driven by a small SoupBinTCP / OUCH 5.0
client of its own (written here from the specifications, not from the
simulator's code).

usage: python3 tests/integration/test_venue_sim.py [--keep] [--only NAME]

Each scenario starts its own simulator on a free loopback port.  Prints one
line per check and "N passed, N failed"; exits 1 if any failed.
"""

import asyncio
import json
import os
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SIM = os.path.join(REPO, 'scripts', 'venue_sim.py')

USER, PASSWORD, SESSION = 'trader', 'secret', 'SESS01'

passed = failed = 0
SIMS = []               # every simulator started, stopped at the end


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('ok   %s' % name)
    else:
        failed += 1
        print('FAIL %s %s' % (name, detail))
    return cond


# ------------------------------------------------------------ wire (client)


def login_payload(user=USER, password=PASSWORD, session='', seq=0):
    """SoupBinTCP Login Request: alpha fields left-justified and padded with
    spaces on the right, the numeric field right-justified and padded with
    spaces on the left."""
    return (user.ljust(6) + password.ljust(10) + session.ljust(10)
            + str(seq).rjust(20)).encode('ascii')


def enter_order(urn, side=b'B', qty=100, symbol=b'AAPL', price=1_000_000,
                tif=b'0', display=b'Y', capacity=b'A', iso=b'N', cross=b'N',
                clordid=b'CL', appendage=b'', applen=None):
    if applen is None:
        applen = len(appendage)
    return (b'O' + urn.to_bytes(4, 'big') + side + qty.to_bytes(4, 'big')
            + symbol.ljust(8) + price.to_bytes(8, 'big', signed=True) + tif
            + display + capacity + iso + cross + clordid.ljust(14)
            + applen.to_bytes(2, 'big') + appendage)


def cancel_order(urn, qty):
    return b'X' + urn.to_bytes(4, 'big') + qty.to_bytes(4, 'big')


def mass_cancel(urn, symbol=b'', firm=b'', appendage=b''):
    return (b'C' + urn.to_bytes(4, 'big') + firm.ljust(4) + symbol.ljust(8)
            + len(appendage).to_bytes(2, 'big') + appendage)


def replace_order(orig, urn, qty=10, price=1_000_000, clordid=b'RP'):
    return (b'U' + orig.to_bytes(4, 'big') + urn.to_bytes(4, 'big')
            + qty.to_bytes(4, 'big') + price.to_bytes(8, 'big') + b'0Y'
            + b'N' + clordid.ljust(14) + b'\0\0')


def be(b):
    return int.from_bytes(b, 'big')


def parse(m):
    """A server OUCH 5.0 message as a dict; offsets from the published
    layouts (timestamp first, then the fields)."""
    d = {'type': chr(m[0]), 'len': len(m), 'ts': be(m[1:9])}
    t = d['type']
    if t == 'A' and len(m) == 64:
        d.update(urn=be(m[9:13]), side=m[13:14], qty=be(m[14:18]),
                 symbol=m[18:26], price=be(m[26:34]), tif=m[34:35],
                 display=m[35:36], ref=be(m[36:44]), capacity=m[44:45],
                 iso=m[45:46], cross=m[46:47], state=m[47:48],
                 clordid=m[48:62], applen=be(m[62:64]))
    elif t == 'E' and len(m) == 36:
        d.update(urn=be(m[9:13]), qty=be(m[13:17]), price=be(m[17:25]),
                 liq=m[25:26], match=be(m[26:34]), applen=be(m[34:36]))
    elif t == 'C' and len(m) == 18:
        d.update(urn=be(m[9:13]), dec=be(m[13:17]), reason=m[17:18])
    elif t == 'J' and len(m) == 29:
        d.update(urn=be(m[9:13]), reason=be(m[13:15]), clordid=m[15:29])
    elif t == 'I' and len(m) == 13:
        d.update(urn=be(m[9:13]))
    elif t == 'X' and len(m) >= 27:
        d.update(urn=be(m[9:13]), firm=m[13:17], symbol=m[17:25],
                 applen=be(m[25:27]), appendage=m[27:])
    return d


class Client:
    def __init__(self):
        self.r = self.w = None
        self.sent = []          # (type, payload) in order
        self.got = []           # (type, payload) in order
        self.next_seq = None    # of the next Sequenced Data
        self.seqs = {}          # seq -> message bytes

    async def connect(self, port):
        self.r, self.w = await asyncio.open_connection('127.0.0.1', port)
        return self

    def send(self, ptype, payload=b''):
        self.sent.append((ptype, payload))
        self.w.write(struct.pack('>H', len(payload) + 1) + ptype + payload)

    async def recv(self, timeout=2.0):
        """(type, payload); None on timeout; ('EOF', b'') when closed."""
        try:
            head = await asyncio.wait_for(self.r.readexactly(2), timeout)
            body = await asyncio.wait_for(
                self.r.readexactly(struct.unpack('>H', head)[0]), timeout)
        except asyncio.TimeoutError:
            return None
        except (asyncio.IncompleteReadError, ConnectionError):
            return ('EOF', b'')
        p = (body[:1].decode('latin-1'), body[1:])
        self.got.append(p)
        if p[0] == 'A':
            self.next_seq = int(p[1][10:30].decode().strip())
        elif p[0] == 'S':
            self.seqs[self.next_seq] = p[1]
            self.next_seq += 1
        return p

    async def recv_data(self, timeout=2.0):
        """The next packet that is not a heartbeat."""
        while True:
            p = await self.recv(timeout)
            if p is None or p[0] != 'H':
                return p

    async def msg(self, timeout=2.0):
        """The next sequenced OUCH message, parsed (or the packet)."""
        p = await self.recv_data(timeout)
        if p is None or p[0] != 'S':
            return {'type': '?', 'packet': p}
        d = parse(p[1])
        d['seq'] = self.next_seq - 1
        return d

    async def msgs(self, n, timeout=2.0):
        return [await self.msg(timeout) for _ in range(n)]

    async def quiet(self, secs):
        """True if nothing but heartbeats arrives for secs."""
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return True
            p = await self.recv(left)
            if p is None:
                return True
            if p[0] != 'H':
                return False

    async def eof(self, timeout=2.0):
        """True if the server closes the connection within timeout
        (heartbeats before that are skipped)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            p = await self.recv(left)
            if p is None:
                return False
            if p[0] == 'EOF':
                return True
            if p[0] != 'H':
                return False

    async def login(self, seq=0, **kw):
        self.send(b'L', login_payload(seq=seq, **kw))
        return await self.recv_data()

    def close(self):
        try:
            self.w.transport.abort()
        except Exception:
            pass


class Sim:
    def __init__(self, tmp, name, *extra):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.ready = os.path.join(self.dir, 'ready')
        self.jpath = os.path.join(self.dir, 'journal.jsonl')
        self.args = [sys.executable, SIM, '--listen', '127.0.0.1:0',
                     '--user', USER, '--password', PASSWORD,
                     '--session', SESSION, '--ready-file', self.ready,
                     '--journal', self.jpath] + list(extra)
        self.p = None
        self.port = None
        SIMS.append(self)

    async def start(self):
        self.p = await asyncio.create_subprocess_exec(
            *self.args, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        end = time.monotonic() + 10
        while not os.path.exists(self.ready):
            if self.p.returncode is not None or time.monotonic() > end:
                raise RuntimeError('simulator did not start: %s' % (
                    (await self.p.stderr.read()).decode()))
            await asyncio.sleep(0.02)
        self.port = int(open(self.ready).read())
        return self

    async def client(self):
        return await Client().connect(self.port)

    async def logged_in(self, seq=0):
        c = await self.client()
        p = await c.login(seq=seq)
        assert p and p[0] == 'A', p
        return c

    async def stop(self, sig=signal.SIGTERM):
        if self.p.returncode is None:
            self.p.send_signal(sig)
        try:
            out, err = await asyncio.wait_for(self.p.communicate(), 10)
        except asyncio.TimeoutError:
            self.p.kill()
            out, err = await self.p.communicate()
        return self.p.returncode, out.decode(), err.decode()

    def journal(self):
        with open(self.jpath) as f:
            return [json.loads(x) for x in f if x.endswith('\n')]

    async def closed(self, n):
        """Wait until the journal shows connection n closed."""
        end = time.monotonic() + 5
        while time.monotonic() < end:
            if any(r.get('event') == 'close' and r.get('conn') == n
                   for r in self.journal()):
                return True
            await asyncio.sleep(0.02)
        return False


# --------------------------------------------------------------- scenarios


async def t_login(tmp):
    s = await Sim(tmp, 'login').start()
    c = await s.client()
    p = await c.login(password='wrong')
    check('login: bad password -> J A', p == ('J', b'A'), p)
    check('login: closed after reject', await c.eof(1))
    c = await s.client()
    p = await c.login(user='nobody')
    check('login: bad user -> J A', p == ('J', b'A'), p)
    c = await s.client()
    p = await c.login(session='OTHER')
    check('login: unknown session -> J S', p == ('J', b'S'), p)
    c = await s.client()
    c.send(b'R')
    check('login: heartbeat before login closes, unanswered',
          await c.eof(1) and c.got == [], c.got)
    c1 = await s.client()
    p = await c1.login(session=SESSION, seq=1)
    check('login: accepted, session and next sequence number',
          p == ('A', b'SESS01    ' + b'1'.rjust(20)), p)
    c2 = await s.client()
    p = await c2.login(seq=0)
    check('login: blank session accepted', p and p[0] == 'A', p)
    check('login: a second login closes the first connection',
          await c1.eof(1))
    c2.send(b'+', b'debug text')
    c2.send(b'U', enter_order(1))
    m = await c2.msg()
    check('login: debug packet ignored, session goes on',
          m['type'] == 'A' and m['urn'] == 1, m)
    c2.close()
    await s.stop()


def conn_records(s, conn):
    return [r for r in s.journal() if r.get('conn') == conn]


async def journal_has(s, pred, timeout=20.0):
    """Wait until a record of the simulator's journal satisfies pred (at
    most timeout: a failure, not a guess)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(pred(r) for r in s.journal()):
            return True
        await asyncio.sleep(0.02)
    return False


async def t_heartbeats(tmp):
    # Judged on the simulator's own clock (its journal's times), not on
    # when this client happened to run: the properties are intervals.
    # The simulator looks at its timers every min(heartbeat, dead) / 5
    # (scripts/venue_sim.py, a "tick"): a heartbeat goes, and a silent
    # connection closes, within a tick of its time. So every gap before
    # a heartbeat is at least --heartbeat-ms, and the shortest of several
    # at most 1.5 times it (2.5 ticks: room for a loaded host's late
    # wake-ups, while a doubled interval lies beyond it); a close comes
    # between --dead-ms and 1.5 times it after the last packet received.
    hb_ms, dead_ms = 100, 800
    hb, dead = hb_ms / 1000.0, dead_ms / 1000.0
    slack = 0.001       # the journal's wall clock against the timer's
    s = await Sim(tmp, 'hb', '--heartbeat-ms', str(hb_ms),
                  '--dead-ms', str(dead_ms)).start()
    c = await s.logged_in()
    n, end = 0, time.monotonic() + 20
    while n < 4 and time.monotonic() < end:
        p = await c.recv(max(0.01, end - time.monotonic()))
        if p and p[0] == 'H':
            n += 1
    check('heartbeats: server heartbeats come while the client is silent',
          n == 4, n)
    outs = [r for r in conn_records(s, 1) if r.get('dir') == 'out']
    gaps = [b['t'] - a['t'] for a, b in zip(outs, outs[1:])
            if b['type'] == 'H']
    check('heartbeats: each server H --heartbeat-ms after the last send, '
          'by the simulator\'s clock',
          len(gaps) >= 3 and min(gaps) >= hb - slack
          and min(gaps) <= 1.5 * hb, gaps)
    # client heartbeats keep a silent client alive past --dead-ms: sent
    # until the simulator has received them for twice --dead-ms
    t_login = next(r['t'] for r in conn_records(s, 1)
                   if r.get('dir') == 'out' and r['type'] == 'A')
    alive = True
    while True:
        c.send(b'R')
        p = await c.recv(0.15)
        if p and p[0] == 'EOF':
            alive = False
            break
        if any(r.get('dir') == 'in' and r.get('type') == 'R'
               and r['t'] >= t_login + 2 * dead
               for r in conn_records(s, 1)):
            break
    rx = [r['t'] for r in conn_records(s, 1) if r.get('dir') == 'in']
    stalled = any(b - a >= dead for a, b in zip(rx, rx[1:]))
    # closed only if this client really was silent --dead-ms (a stall of
    # the host, seen on the simulator's clock): then closing was right
    check('heartbeats: client R keeps the session past --dead-ms',
          alive or stalled, (alive, rx[-3:]))
    gone = await c.eof(20.0)
    await s.closed(1)
    rec = conn_records(s, 1)
    last_in = max(r['t'] for r in rec if r.get('dir') == 'in')
    drop = [r for r in rec if r.get('event') == 'drop']
    dt = drop[0]['t'] - last_in if drop else None
    check('heartbeats: silent client closed after --dead-ms, by the '
          'simulator\'s clock', gone and dt is not None
          and dead - slack <= dt <= 1.5 * dead, (gone, dt))
    c = await s.client()
    gone = await c.eof(20.0)
    await s.closed(2)
    rec = conn_records(s, 2)
    t0 = next(r['t'] for r in rec if r.get('event') == 'connect')
    drop = [r for r in rec if r.get('event') == 'drop']
    dt = drop[0]['t'] - t0 if drop else None
    check('heartbeats: connection without login closed after --dead-ms',
          gone and dt is not None and dead - slack <= dt <= 1.5 * dead,
          (gone, dt))
    await s.stop()


def midnight_ns():
    return time.time_ns() % 86_400_000_000_000


async def t_fills(tmp):
    s = await Sim(tmp, 'fills').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, b'B', 101, b'AAPL', 1_234_500, b'0', b'Y',
                             b'P', clordid=b'ORD1'))
    a, e = await c.msgs(2)
    now = midnight_ns()
    check('fills: Order Accepted echoes the order',
          a['type'] == 'A' and (a['urn'], a['side'], a['qty'], a['symbol'],
                                a['price'], a['tif'], a['display'],
                                a['capacity'], a['iso'], a['cross'],
                                a['clordid'], a['applen']) ==
          (1, b'B', 101, b'AAPL    ', 1_234_500, b'0', b'Y', b'P', b'N',
           b'N', b'ORD1'.ljust(14), 0), a)
    check('fills: accepted live, order reference 1, seq 1',
          a.get('state') == b'L' and a.get('ref') == 1
          and a.get('seq') == 1, a)
    check('fills: timestamp is ns since midnight, now',
          abs(a['ts'] - now) < 5_000_000_000, (a['ts'], now))
    check('fills: 50% of 101 = 50 executed at the limit, match 1, flag R',
          e['type'] == 'E' and (e['urn'], e['qty'], e['price'], e['match'],
                                e['liq'], e['applen']) ==
          (1, 50, 1_234_500, 1, b'R', 0), e)
    check('fills: day remainder stays open (nothing more)',
          await c.quiet(0.2))
    c.send(b'U', enter_order(2, b'S', 11, tif=b'3'))
    a, e, x = await c.msgs(3)
    check('fills: IOC 11 -> accepted, 5 executed (match 2), 6 canceled I',
          (a['type'], a.get('ref'), e['type'], e.get('qty'), e.get('match'),
           x['type'], x.get('urn'), x.get('dec'), x.get('reason')) ==
          ('A', 2, 'E', 5, 2, 'C', 2, 6, b'I'), (a, e, x))
    c.send(b'U', enter_order(3, qty=1, tif=b'3'))
    a, x = await c.msgs(2)
    check('fills: IOC 1 -> nothing executed, 1 canceled I',
          (a['type'], x['type'], x.get('dec'), x.get('reason')) ==
          ('A', 'C', 1, b'I'), (a, x))
    c.close()
    await s.stop()
    s = await Sim(tmp, 'fill100', '--fill-pct', '100').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, qty=7, tif=b'3'))
    a, e = await c.msgs(2)
    check('fills: --fill-pct 100 fills all, no IOC cancel',
          (a['type'], e['type'], e.get('qty')) == ('A', 'E', 7)
          and await c.quiet(0.2))
    c.send(b'U', cancel_order(1, 0))
    m = await c.msg()
    check('fills: cancel of a filled order -> Cancel Reject',
          m['type'] == 'I' and m.get('urn') == 1, m)
    c.close()
    await s.stop()
    s = await Sim(tmp, 'fill0', '--fill-pct', '0').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, qty=7))
    m = await c.msg()
    check('fills: --fill-pct 0: accepted only',
          m['type'] == 'A' and await c.quiet(0.2), m)
    c.close()
    await s.stop()


REJECTS = [
    # name, order fields, reason
    ('side X', dict(side=b'X'), 0x0009),
    ('quantity 0', dict(qty=0), 0x0013),
    ('quantity over 1,000,000', dict(qty=1_000_001), 0x0013),
    ('price 0', dict(price=0), 0x001D),
    ('price negative', dict(price=-5), 0x001D),
    ('price over 200,000.0000', dict(price=2_000_000_001), 0x001D),
    ('time in force Z', dict(tif=b'Z'), 0x000F),
    ('display Q', dict(display=b'Q'), 0x0003),
    ('capacity Z', dict(capacity=b'Z'), 0x000F),
    ('intermarket sweep Y', dict(iso=b'Y'), 0x0008),
    ('intermarket sweep Q', dict(iso=b'Q'), 0x000F),
    ('cross type O', dict(cross=b'O'), 0x0014),
    ('symbol not printable', dict(symbol=b'AA\x01L'), 0x0017),
    ('ClOrdID not printable', dict(clordid=b'C\x00'), 0x000F),
    ('appendage length beyond the message', dict(applen=5), 0x000F),
    ('appendage badly framed', dict(appendage=b'\x09\x03\0\0'), 0x000F),
]


async def t_rejects(tmp):
    s = await Sim(tmp, 'rejects').start()
    c = await s.logged_in()
    urn = 10
    for name, kw, why in REJECTS:
        urn += 1
        kw.setdefault('clordid', b'R%d' % urn)
        c.send(b'U', enter_order(urn, **kw))
        m = await c.msg()
        check('reject: %s -> 0x%04X' % (name, why),
              (m['type'], m.get('urn'), m.get('reason'), m.get('clordid'))
              == ('J', urn, why, kw['clordid'].ljust(14)), m)
    c.send(b'U', enter_order(urn, clordid=b'DUP'))
    m = await c.msg()
    check('reject: UserRefNum not above the last -> 0x000F',
          (m['type'], m.get('urn'), m.get('reason')) == ('J', urn, 0x000F), m)
    urn += 1
    c.send(b'U', enter_order(urn, qty=1_000_000, price=2_000_000_000,
                             appendage=b'\x05\x03\0\0\0\x01'))
    m = await c.msg()
    check('reject: limits themselves, with an appendage, accepted',
          m['type'] == 'A' and m.get('urn') == urn, m)
    await c.msg()
    for tif in b'0356E':
        urn += 1
        c.send(b'U', enter_order(urn, tif=bytes([tif]), qty=2))
        m = await c.msg()
        check('reject: time in force %c accepted' % tif, m['type'] == 'A', m)
        await c.msgs(2 if tif == ord('3') else 1)
    urn += 1
    c.send(b'U', replace_order(urn - 1, urn, clordid=b'REPL'))
    m = await c.msg()
    check('reject: Replace Order -> Replace Not Allowed 0x0015',
          (m['type'], m.get('urn'), m.get('reason'), m.get('clordid')) ==
          ('J', urn, 0x0015, b'REPL'.ljust(14)), m)
    c.close()
    await s.stop()


async def t_cancels(tmp):
    s = await Sim(tmp, 'cancels').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, qty=100))
    await c.msgs(2)                                     # open 50
    c.send(b'U', cancel_order(1, 30))
    m = await c.msg()
    check('cancel: to 30 -> Canceled 20, reason U',
          (m['type'], m.get('urn'), m.get('dec'), m.get('reason')) ==
          ('C', 1, 20, b'U'), m)
    c.send(b'U', cancel_order(1, 30))
    m = await c.msg()
    check('cancel: to the open size -> Cancel Reject',
          (m['type'], m.get('urn')) == ('I', 1), m)
    c.send(b'U', cancel_order(1, 0))
    m = await c.msg()
    check('cancel: quantity 0 -> Canceled the 30 left',
          (m['type'], m.get('dec'), m.get('reason')) == ('C', 30, b'U'), m)
    c.send(b'U', cancel_order(1, 0))
    m = await c.msg()
    check('cancel: closed order -> Cancel Reject', m['type'] == 'I', m)
    c.send(b'U', cancel_order(99, 0))
    m = await c.msg()
    check('cancel: unknown order -> Cancel Reject',
          (m['type'], m.get('urn')) == ('I', 99), m)
    orders = [(2, b'AAPL', b'B'), (3, b'MSFT', b'S'), (4, b'AAPL', b'S'),
              (5, b'MSFT', b'B')]
    for urn, sym, side in orders:
        c.send(b'U', enter_order(urn, side, 100, sym))
        await c.msgs(2)
    c.send(b'U', mass_cancel(6, b'AAPL'))
    ms = await c.msgs(3)
    check('mass cancel: symbol AAPL -> response, then 2 and 4 canceled',
          [(m['type'], m.get('urn'), m.get('dec'), m.get('reason'))
           for m in ms] == [('X', 6, None, None), ('C', 2, 50, b'U'),
                            ('C', 4, 50, b'U')]
          and ms[0].get('symbol') == b'AAPL    '
          and ms[0].get('firm') == b'    ' and ms[0].get('len') == 27, ms)
    side = b'\x02\x1bS'
    c.send(b'U', mass_cancel(7, appendage=side))
    ms = await c.msgs(2)
    check('mass cancel: side S appendage -> only 3 canceled',
          [(m['type'], m.get('urn')) for m in ms] == [('X', 7), ('C', 3)]
          and ms[0].get('appendage') == side and await c.quiet(0.2), ms)
    c.send(b'U', mass_cancel(8))
    ms = await c.msgs(2)
    check('mass cancel: all -> 5 canceled',
          [(m['type'], m.get('urn')) for m in ms] == [('X', 8), ('C', 5)]
          and await c.quiet(0.2), ms)
    c.send(b'U', mass_cancel(8))
    m = await c.msg()
    check('mass cancel: UserRefNum not above the last -> Rejected',
          (m['type'], m.get('urn'), m.get('reason')) == ('J', 8, 0x000F), m)
    c.send(b'U', mass_cancel(9, appendage=b'\x02\x1bQ'))
    m = await c.msg()
    check('mass cancel: bad side -> Rejected',
          (m['type'], m.get('urn'), m.get('reason')) == ('J', 9, 0x000F), m)
    c.close()
    await s.stop()


async def t_replay(tmp):
    s = await Sim(tmp, 'replay').start()
    c = await s.logged_in(seq=1)
    for urn in (1, 2, 3):
        c.send(b'U', enter_order(urn))
    await c.msgs(6)
    first = dict(c.seqs)
    c.send(b'O')
    check('replay: logout closes the connection', await c.eof(1))
    c = await s.client()
    p = await c.login(seq=3)
    check('replay: login from 3 accepted at 3', p and p[0] == 'A'
          and c.next_seq == 3, p)
    await c.msgs(4)
    check('replay: 3..6 resent byte for byte',
          c.seqs == {k: v for k, v in first.items() if k >= 3}, c.seqs)
    check('replay: nothing more', await c.quiet(0.2))
    c.send(b'U', enter_order(4))
    a, e = await c.msgs(2)
    check('replay: numbering goes on at 7',
          (a.get('seq'), e.get('seq')) == (7, 8), (a, e))
    c.close()
    c = await s.client()
    p = await c.login(seq=0)
    check('replay: sequence 0 -> from now (9), no replay',
          c.next_seq == 9 and await c.quiet(0.2), p)
    c.close()
    c = await s.client()
    p = await c.login(seq=100)
    check('replay: beyond the end -> next (9), no replay',
          c.next_seq == 9 and await c.quiet(0.2), p)
    c.close()
    c = await s.client()
    await c.login(seq=1)
    await c.msgs(8)
    check('replay: from 1, all 8 again, same bytes',
          all(c.seqs[k] == v for k, v in first.items()) and len(c.seqs) == 8)
    c.close()
    await s.stop()


async def t_cod(tmp):
    s = await Sim(tmp, 'cod', '--cancel-on-disconnect').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, qty=100))
    c.send(b'U', enter_order(2, qty=10, tif=b'3'))
    await c.msgs(5)
    c.close()                                  # no logout
    check('cancel-on-disconnect: the venue sees the close', await s.closed(1))
    c = await s.client()
    p = await c.login(seq=6)
    m = await c.msg()
    check('cancel-on-disconnect: open order canceled (Z), sequenced, replayed',
          p[0] == 'A' and (m['type'], m.get('seq'), m.get('urn'), m.get('dec'),
                           m.get('reason')) == ('C', 6, 1, 50, b'Z')
          and await c.quiet(0.2), m)
    c.send(b'U', enter_order(3, qty=100))
    await c.msgs(2)
    c.send(b'O')
    await c.eof(1)
    c = await s.client()
    await c.login(seq=9)
    check('cancel-on-disconnect: not after a logout', await c.quiet(0.3))
    c.send(b'U', cancel_order(3, 0))
    m = await c.msg()
    check('cancel-on-disconnect: order still open after logout',
          (m['type'], m.get('dec')) == ('C', 50), m)
    c.close()
    await s.stop()
    s = await Sim(tmp, 'nocod').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1, qty=100))
    await c.msgs(2)
    c.close()
    await asyncio.sleep(0.2)
    c = await s.client()
    await c.login(seq=3)
    quiet = await c.quiet(0.3)
    c.send(b'U', cancel_order(1, 0))
    m = await c.msg()
    check('no cancel-on-disconnect by default',
          quiet and (m['type'], m.get('dec'), m.get('seq')) == ('C', 50, 3), m)
    c.close()
    await s.stop()


async def t_silent(tmp):
    s = await Sim(tmp, 'silent', '--silent-after', '2',
                  '--heartbeat-ms', '100', '--dead-ms', '300').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    c.send(b'U', enter_order(2))
    ms = await c.msgs(4)
    check('silent-after 2: the 2 orders answered',
          [m['type'] for m in ms] == ['A', 'E', 'A', 'E'], ms)
    got = await c.recv(0.6)
    check('silent-after 2: then no heartbeat, no close', got is None, got)
    c.send(b'U', enter_order(3))
    got = await c.recv(0.4)
    check('silent-after 2: a 3rd order is not answered', got is None, got)
    c2 = await s.client()
    c2.send(b'L', login_payload())
    got = await c2.recv(0.4)
    check('silent-after 2: a new login is not answered', got is None, got)
    c.close()
    c2.close()
    await s.stop()


async def t_drop(tmp):
    s = await Sim(tmp, 'drop', '--drop-after', '2').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    c.send(b'U', enter_order(2))
    ms = await c.msgs(4)
    check('drop-after 2: answers, then the connection closes',
          [m['type'] for m in ms] == ['A', 'E', 'A', 'E']
          and await c.eof(1), ms)
    c = await s.client()
    await c.login(seq=5)
    c.send(b'U', enter_order(3))
    a, e = await c.msgs(2)
    check('drop-after 2: session and numbering go on after reconnect',
          (a['type'], a.get('seq'), e.get('seq')) == ('A', 5, 6)
          and not await c.eof(0.3))
    c.close()
    await s.stop()


async def t_reader_waits(tmp):
    # A client that does not read while it sends: the simulator's output
    # backs up, so its reader waits for its writes (drain), and the
    # client's heartbeats wait unread in the socket. That is the venue
    # not reading, not the client silent: no drop (a venue reads its
    # socket whatever it is writing). Once the client reads, every order
    # is answered on the same connection.
    hb_ms, dead_ms, n = 100, 600, 3000
    s = await Sim(tmp, 'readerwait', '--heartbeat-ms', str(hb_ms),
                  '--dead-ms', str(dead_ms), '--sndbuf', '4096').start()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(('127.0.0.1', s.port))
    sock.setblocking(False)
    c = Client()
    c.r, c.w = await asyncio.open_connection(sock=sock)
    p = await c.login()
    check('reader waits: logged in', p and p[0] == 'A', p)
    for i in range(1, n + 1):
        c.send(b'U', enter_order(i))
    end = time.monotonic() + 4 * dead_ms / 1000.0
    while time.monotonic() < end:
        c.send(b'R')
        await asyncio.sleep(hb_ms / 1000.0)
    taken = sum(1 for r in s.journal()
                if r.get('dir') == 'in' and r.get('type') == 'U')
    check('reader waits: the simulator stopped reading (output backed up)',
          taken < n, taken)
    check('reader waits: not dropped as silent while it did',
          not any(r.get('event') == 'drop' for r in s.journal()),
          [r for r in s.journal() if r.get('event') == 'drop'][:1])
    accepted = 0
    while accepted < n:
        m = await c.msg(5.0)
        if m['type'] == '?':
            break
        accepted += m['type'] == 'A'
    check('reader waits: every order answered on the same connection',
          accepted == n and not any(r.get('event') == 'drop'
                                    for r in s.journal()), accepted)
    c.close()
    await s.stop()


async def t_end_session(tmp):
    s = await Sim(tmp, 'eos', '--end-session-after', '1').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    ms = await c.msgs(2)
    p = await c.recv_data()
    check('end-session-after 1: answers, then Z, then close',
          [m['type'] for m in ms] == ['A', 'E'] and p == ('Z', b'')
          and await c.eof(1), (ms, p))
    c = await s.client()
    p = await c.login(seq=1)
    check('end-session-after 1: later login -> J S', p == ('J', b'S'), p)
    await s.stop()


async def t_bad(tmp):
    s = await Sim(tmp, 'badlen', '--bad-after', '1:badlen').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    ms = await c.msgs(3)
    check('bad-after badlen: a sequenced System Event of 11 bytes',
          [m['type'] for m in ms] == ['A', 'E', 'S'] and ms[2]['len'] == 11
          and ms[2].get('seq') == 3, ms)
    c.close()
    await s.stop()
    s = await Sim(tmp, 'unknown', '--bad-after', '1:unknown').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    ms = await c.msgs(2)
    p = await c.recv_data()
    c.send(b'U', enter_order(2))
    m = await c.msg()
    check('bad-after unknown: a packet of an unknown type, session goes on',
          p and p[0] not in 'AJSHZ+' and m['type'] == 'A'
          and m.get('seq') == 3,
          (p, m))
    c.close()
    await s.stop()
    s = await Sim(tmp, 'gap', '--bad-after', '1:gap').start()
    c = await s.logged_in()
    c.send(b'U', enter_order(1))
    ms = await c.msgs(2)
    seen = dict(c.seqs)
    check('bad-after gap: answers, then the connection closes',
          await c.eof(1))
    c = await s.client()
    p = await c.login(seq=3)
    m = await c.msg()
    check('bad-after gap: login from 3 accepted at 2, 2 resent',
          p[0] == 'A' and c.next_seq == 3 and m.get('seq') == 2
          and c.seqs[2] == seen[2], (p, m))
    c.close()
    c = await s.client()
    await c.login(seq=3)
    check('bad-after gap: once only', c.got[0][1][10:30].strip() == b'3')
    c.close()
    await s.stop()


def throttle_expected(s, cap):
    """A or J for each Enter Order, by the simulator's own receive times:
    accepted while fewer than cap were accepted in the second before it
    (a 1 s window, the rule of --max-orders-per-sec)."""
    acc, out = [], []
    for r in s.journal():
        if r.get('dir') == 'in' and r.get('msg') == 'O':
            ok = sum(1 for a in acc if r['t'] - a < 1.0) < cap
            if ok:
                acc.append(r['t'])
            out.append('A' if ok else 'J')
    return out


async def t_throttle(tmp):
    s = await Sim(tmp, 'throttle', '--max-orders-per-sec', '3').start()
    c = await s.logged_in()
    for urn in range(1, 6):
        c.send(b'U', enter_order(urn))
    ms = await c.msgs(8)
    kinds = [(m['type'], m.get('urn'), m.get('reason')) for m in ms]
    got = [k[0] for k in kinds if k[0] != 'E']
    want = throttle_expected(s, 3)
    check('throttle: 3 a second by the simulator\'s clock, the rest -> '
          '0x0029', got == want and want.count('J') >= 1
          and all(k[2] == 0x0029 for k in kinds if k[0] == 'J'),
          (kinds, want))
    # past the second (asyncio's sleep never ends early): accepted again,
    # as the simulator's own receive times say
    await asyncio.sleep(1.05)
    c.send(b'U', enter_order(6))
    m = await c.msg()
    want = throttle_expected(s, 3)
    check('throttle: a second later accepted again',
          m['type'] == want[-1] == 'A', (m, want))
    c.close()
    await s.stop()


async def t_bad_client(tmp):
    s = await Sim(tmp, 'badclient').start()
    c = await s.logged_in()
    c.send(b'U', b'Z\0\0\0\1')
    check('client: unknown OUCH type -> session dropped, no answer',
          await c.eof(1) and c.got[1:] == [], c.got)
    c = await s.logged_in()
    c.send(b'U', b'X\0\0\0\1\0\0\0')
    check('client: short Cancel Order -> session dropped', await c.eof(1))
    c = await s.logged_in()
    c.send(b'U', enter_order(1)[:40])
    check('client: short Enter Order -> session dropped', await c.eof(1))
    c = await s.logged_in()
    c.send(b'Q', b'')
    check('client: unknown packet type -> session dropped', await c.eof(1))
    c = await s.client()
    c.send(b'L', login_payload()[:-1])
    check('client: short Login Request -> closed', await c.eof(1))
    await s.stop()
    drops = {r['conn']: r['reason'] for r in s.journal()
             if r.get('event') == 'drop'}
    check('client: each closed by the venue on purpose, with a reason',
          sorted(drops) == [1, 2, 3, 4, 5]
          and all(drops[n] != 'venue shutting down' for n in drops), drops)


async def t_journal_sigterm(tmp):
    s = await Sim(tmp, 'journal', '--heartbeat-ms', '150').start()
    c = await s.logged_in(seq=1)
    c.send(b'+', b'hello')
    c.send(b'U', enter_order(1, qty=100))
    await c.msgs(2)
    c.send(b'R')
    await asyncio.sleep(0.35)
    c.send(b'U', cancel_order(1, 0))
    await c.msg()
    rc, out, err = await s.stop()
    check('sigterm: exit 0', rc == 0, (rc, err))
    check('sigterm: summary line',
          out.strip() == 'venue_sim: orders 1 accepted 1 rejected 0 '
          'executed_shares 50 cancels 1 canceled_shares 50 cancel_rejects 0'
          ' mass_cancels 0 sequenced 3', out)
    check('sigterm: client connection closed', await c.eof(1))
    j = s.journal()
    ins = [(r['type'], bytes.fromhex(r['hex'])) for r in j
           if r['dir'] == 'in']
    outs = [(r['type'], bytes.fromhex(r['hex'])) for r in j
            if r['dir'] == 'out']
    # the journal keeps a Login Request's password (bytes 6-15) as '*'
    sent = [(t.decode(), p[:6] + b'*' * 10 + p[16:] if t == b'L' else p)
            for t, p in c.sent]
    got = [p for p in c.got if p[0] != 'EOF']
    check('journal: every client packet, in order, with its bytes',
          ins == sent, (ins, sent))
    with open(s.jpath, 'rb') as f:
        raw = f.read()
    check('journal: no password in it, as text or as hex',
          PASSWORD.encode() not in raw and
          PASSWORD.encode().hex().encode() not in raw, PASSWORD)
    check('journal: every server packet, in order, with its bytes',
          outs == got, (outs, got))
    check('journal: heartbeats both ways',
          ('H', b'') in outs and ('R', b'') in ins)
    seqs = [r.get('seq') for r in j if r['dir'] == 'out' and r['type'] == 'S']
    check('journal: sequence numbers of sequenced data', seqs == [1, 2, 3],
          seqs)
    dec = [(r.get('msg'), r.get('urn'), r.get('qty'), r.get('decrement'))
           for r in j if r['dir'] != 'event' and r['type'] in 'SU']
    check('journal: OUCH decoded', dec == [
        ('O', 1, 100, None), ('A', 1, 100, None), ('E', 1, 50, None),
        ('X', 1, 0, None), ('C', 1, None, 50)], dec)
    acc = [r for r in j if r['dir'] == 'out' and r['type'] == 'A']
    check('journal: login accepted with session and sequence',
          acc and acc[0].get('session') == SESSION and acc[0].get('seq') == 1,
          acc)
    ok = all(isinstance(r.get('t'), float) and isinstance(r.get('ns'), int)
             and r['dir'] in ('in', 'out', 'event') for r in j)
    check('journal: timestamps and directions on every line', ok)
    check('journal: exit recorded last', j[-1].get('event') == 'exit', j[-1])
    ev = [(r.get('event'), r.get('reason')) for r in j
          if r['dir'] == 'event' and r.get('conn') == 1]
    check('sigterm: the connection closed before the exit',
          ev[-2:] == [('drop', 'venue shutting down'),
                      ('close', 'venue shutting down')], ev)


async def t_sigint(tmp):
    s = await Sim(tmp, 'sigint').start()
    rc, out, err = await s.stop(signal.SIGINT)
    check('sigint: exit 0 with a summary', rc == 0 and out.startswith(
        'venue_sim: orders 0 '), (rc, out, err))


async def t_restore_killed(tmp):
    """A venue process killed (SIGKILL) in the middle of the answers to a
    stream of orders starts again from its journal (--restore), which it
    wrote before it sent: every message the client had is there again,
    byte for byte. Killed at several points."""
    for k in range(6):
        name = 'restore%d' % k
        s = await Sim(tmp, name, '--fill-pct', '50').start()
        c = await s.logged_in(seq=1)
        for urn in range(1, 601):
            c.send(b'U', enter_order(urn))
        # killed once some answers came, while more are being made
        for _ in range(30 + 40 * k):
            if (await c.msg())['type'] == '?':
                break
        s.p.kill()
        await s.p.wait()
        c.close()
        s2 = Sim(tmp, name, '--fill-pct', '50', '--restore')
        os.unlink(s2.ready)     # the killed process's
        try:
            await s2.start()
        except RuntimeError as e:
            check('restore after SIGKILL %d: starts' % k, False, str(e))
            continue
        n = [r for r in s2.journal() if r.get('event') == 'restore'][-1]
        c2 = await s2.logged_in(seq=1)
        await c2.msgs(n['sequenced'])
        check('restore after SIGKILL %d: the %d messages the client had, '
              'byte for byte' % (k, len(c.seqs)),
              all(c2.seqs.get(q) == m for q, m in c.seqs.items()),
              sorted(set(c.seqs) - set(c2.seqs))[:5])
        c2.close()
        await s2.stop()


SCENARIOS = [t_login, t_heartbeats, t_fills, t_rejects, t_cancels, t_replay,
             t_cod, t_silent, t_drop, t_reader_waits, t_end_session, t_bad,
             t_throttle,
             t_bad_client, t_journal_sigterm, t_sigint, t_restore_killed]


async def run(tmp, only):
    for f in SCENARIOS:
        if only and only not in f.__name__:
            continue
        try:
            await asyncio.wait_for(f(tmp), 30)
        except Exception as e:      # a scenario that breaks is a failure
            check('%s runs' % f.__name__, False, repr(e))
    for s in SIMS:
        if s.p is not None and s.p.returncode is None:
            s.p.kill()
            await s.p.wait()


def main():
    keep = '--keep' in sys.argv
    only = sys.argv[sys.argv.index('--only') + 1] if '--only' in sys.argv \
        else None
    tmp = tempfile.mkdtemp(prefix='venue-sim-')
    t0 = time.monotonic()
    try:
        asyncio.run(run(tmp, only))
    finally:
        if keep:
            print('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed (%.1f s)' % (passed, failed,
                                             time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
