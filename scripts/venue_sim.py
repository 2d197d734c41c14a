#!/usr/bin/env python3
"""venue_sim: a small OUCH 5.0 venue speaking SoupBinTCP 3.00 over TCP, for
tests and demos.

usage: venue_sim.py --listen HOST:PORT --user NAME --password PW
                    --session NAME [options]

One SoupBinTCP session (named by --session) lives as long as the process.
Sequenced messages are numbered from 1 and kept, so a client that logs in
again can ask for any of them.  One client at a time: a new login while a
client is logged in closes the older connection (no End of Session, no
cancel-on-disconnect for it).

Matching rule (exact, so that tests can predict every answer): each valid
Enter Order is accepted, then floor(quantity * fill_pct / 100) shares (if
any) execute at once at the limit price in one Order Executed (liquidity
flag 'R', match numbers 1, 2, ...); an IOC order (time in force '3') then
has its remainder canceled (reason 'I'); any other time in force leaves the
remainder open for Cancel Order / Mass Cancel Request.  Invalid orders get
a Rejected message with the OUCH 5.0 reject reason listed in REJECT below.

docs/venue.md "Venue simulator" describes the options, the rules and
what is left out.  Prints one summary line at exit (SIGTERM/SIGINT).
"""

import argparse
import asyncio
import collections
import json
import os
import signal
import struct
import sys
import time

# ------------------------------------------------------------ SoupBinTCP 3.00

LOGIN_REQ_LEN = 46          # username 6, password 10, session 10, seq 20

# ------------------------------------------------------------------- OUCH 5.0

ENTER_LEN = 47              # type + fixed fields, before the appendage
CANCEL_LEN = 9              # 'X' UserRefNum 4, quantity 4
MASS_CANCEL_LEN = 19        # 'C' UserRefNum 4, firm 4, symbol 8, appendage
                            # length 2
REPLACE_LEN = 40            # 'U' fixed part, before the appendage

MAX_PRICE = 2_000_000_000   # 200,000.0000 with 4 implied decimals

# Rejected Order reasons (2-byte integer)
REJECT = {
    'invalid_display': 0x0003,
    'iso_not_allowed': 0x0008,
    'invalid_side': 0x0009,
    'other': 0x000F,
    'invalid_quantity': 0x0013,
    'invalid_cross': 0x0014,
    'replace_not_allowed': 0x0015,
    'invalid_symbol': 0x0017,
    'invalid_price': 0x001D,
    'port_rate': 0x0029,        # Risk: Port Message Rate Restriction
}

SIDES = b'BSTE'
TIFS = b'0356E'             # day, IOC, GTX, GTT, after hours
TIF_IOC = ord('3')
DISPLAYS = b'YNA'
CAPACITIES = b'APRO'
SIDE_TAG = 0x1B             # Mass Cancel Request optional field: side

CANCEL_IOC = b'I'
CANCEL_USER = b'U'
CANCEL_DISCONNECT = b'Z'    # "canceled by the system"


def now_ns_since_midnight():
    return time.time_ns() % 86_400_000_000_000


def printable(b):
    return all(0x20 <= c <= 0x7E for c in b)


def text(b):
    return b.decode('ascii', 'replace').rstrip(' ')


# ------------------------------------------------------------------ messages


def msg_system_event(code):
    return struct.pack('>cQc', b'S', now_ns_since_midnight(), code)


def msg_accepted(o):
    return struct.pack('>cQIcI8sqccQcccc14sH', b'A', now_ns_since_midnight(),
                       o.urn, o.side, o.qty, o.symbol, o.price, o.tif,
                       o.display, o.ref, o.capacity, o.iso, o.cross, b'L',
                       o.clordid, 0)


def msg_executed(urn, qty, price, match):
    return struct.pack('>cQIIqcQH', b'E', now_ns_since_midnight(), urn, qty,
                       price, b'R', match, 0)


def msg_canceled(urn, dec, reason):
    return struct.pack('>cQIIc', b'C', now_ns_since_midnight(), urn, dec,
                       reason)


def msg_rejected(urn, reason, clordid):
    return struct.pack('>cQIH14s', b'J', now_ns_since_midnight(), urn,
                       reason, clordid)


def msg_cancel_reject(urn):
    return struct.pack('>cQI', b'I', now_ns_since_midnight(), urn)


def msg_mass_cancel_response(urn, firm, symbol, appendage):
    return struct.pack('>cQI4s8sH', b'X', now_ns_since_midnight(), urn, firm,
                       symbol, len(appendage)) + appendage


def redact(ptype, payload):
    """A packet's payload as the journal keeps it: a Login Request's
    password (bytes 6-15) and everything past it of a short or long one
    as '*', so the journal never holds the password."""
    if ptype != b'L':
        return payload
    return payload[:6] + b'*' * min(10, max(0, len(payload) - 6)) + \
        payload[16:LOGIN_REQ_LEN] + b'*' * max(0, len(payload) - LOGIN_REQ_LEN)


def decode_ouch(m):
    """Fields of an OUCH 5.0 message (either direction) for the journal."""
    if not m:
        return {}
    t = chr(m[0])
    f = {'msg': t}
    try:
        if t == 'O' and len(m) >= ENTER_LEN:
            (urn, side, qty, sym, px, tif, disp, cap, iso, cross, cl,
             app) = struct.unpack_from('>IcI8sqccccc14sH', m, 1)
            f.update(urn=urn, side=side.decode('latin-1'), qty=qty,
                     symbol=text(sym), price=px, tif=tif.decode('latin-1'),
                     display=disp.decode('latin-1'),
                     capacity=cap.decode('latin-1'),
                     iso=iso.decode('latin-1'), cross=cross.decode('latin-1'),
                     clordid=text(cl), appendage_len=app)
        elif t == 'X' and len(m) == CANCEL_LEN and m[:1] == b'X':
            urn, qty = struct.unpack_from('>II', m, 1)
            f.update(urn=urn, qty=qty)
        elif t == 'C' and len(m) >= MASS_CANCEL_LEN:
            urn, firm, sym, app = struct.unpack_from('>I4s8sH', m, 1)
            f.update(urn=urn, firm=text(firm), symbol=text(sym),
                     appendage_len=app)
    except struct.error:
        pass
    return f


def decode_out(m):
    """Fields of a server OUCH 5.0 message for the journal."""
    t = chr(m[0]) if m else ''
    f = {'msg': t}
    try:
        if len(m) >= 9:
            f['ts'] = struct.unpack_from('>Q', m, 1)[0]
        if t == 'A' and len(m) == 64:
            (urn, side, qty, sym, px, tif, disp, ref, cap, iso, cross, state,
             cl, app) = struct.unpack_from('>IcI8sqccQcccc14sH', m, 9)
            f.update(urn=urn, side=side.decode(), qty=qty, symbol=text(sym),
                     price=px, tif=tif.decode(), display=disp.decode(),
                     ref=ref, capacity=cap.decode(), iso=iso.decode(),
                     cross=cross.decode(), state=state.decode(),
                     clordid=text(cl))
        elif t == 'E' and len(m) == 36:
            urn, qty, px, liq, match, _ = struct.unpack_from('>IIqcQH', m, 9)
            f.update(urn=urn, qty=qty, price=px, liquidity=liq.decode(),
                     match=match)
        elif t == 'C' and len(m) == 18:
            urn, dec, why = struct.unpack_from('>IIc', m, 9)
            f.update(urn=urn, decrement=dec, reason=why.decode())
        elif t == 'J' and len(m) == 29:
            urn, why, cl = struct.unpack_from('>IH14s', m, 9)
            f.update(urn=urn, reason=why, clordid=text(cl))
        elif t == 'I' and len(m) == 13:
            f['urn'] = struct.unpack_from('>I', m, 9)[0]
        elif t == 'X' and len(m) >= 27:
            urn, firm, sym, app = struct.unpack_from('>I4s8sH', m, 9)
            f.update(urn=urn, firm=text(firm), symbol=text(sym),
                     appendage_len=app)
        elif t == 'S' and len(m) >= 10:
            f['event'] = chr(m[9])
            if len(m) != 10:
                f['bad_length'] = len(m)
    except (struct.error, UnicodeDecodeError):
        f['undecodable'] = True
    return f


# -------------------------------------------------------------------- state


class Order:
    __slots__ = ('urn', 'side', 'qty', 'symbol', 'price', 'tif', 'display',
                 'capacity', 'iso', 'cross', 'clordid', 'ref', 'open')


class Journal:
    def __init__(self, path):
        self.f = open(path, 'w', encoding='ascii') if path else None

    def write(self, **rec):
        if self.f is None:
            return
        rec = {'t': round(time.time(), 6), 'ns': now_ns_since_midnight(),
               **rec}
        self.f.write(json.dumps(rec, sort_keys=False) + '\n')
        self.f.flush()

    def close(self):
        if self.f is not None:
            self.f.flush()
            self.f.close()
            self.f = None


class Stats:
    def __init__(self):
        self.orders = self.accepted = self.rejected = 0
        self.executed_shares = self.cancels = self.canceled_shares = 0
        self.cancel_rejects = self.mass_cancels = 0

    def line(self, seq):
        return ('venue_sim: orders %d accepted %d rejected %d executed_shares'
                ' %d cancels %d canceled_shares %d cancel_rejects %d'
                ' mass_cancels %d sequenced %d' % (
                    self.orders, self.accepted, self.rejected,
                    self.executed_shares, self.cancels, self.canceled_shares,
                    self.cancel_rejects, self.mass_cancels, seq))


class Conn:
    """One TCP connection of a client."""

    def __init__(self, venue, reader, writer, cid):
        self.v = venue
        self.r = reader
        self.w = writer
        self.cid = cid
        peer = writer.get_extra_info('peername') or ('?', 0)
        self.peer = '%s:%d' % (peer[0], peer[1])
        self.logged_in = False
        self.logged_out = False     # a Logout Request was received
        self.no_cod = False         # no cancel-on-disconnect when it closes
        self.closed = False
        self.reason = None
        self.t_rx = self.t_tx = self.t_open = time.monotonic()

    # ---- output
    def send(self, ptype, payload=b'', **fields):
        if self.closed or self.v.silent:
            return
        pkt = struct.pack('>H', len(payload) + 1) + ptype + payload
        self.w.write(pkt)
        self.t_tx = time.monotonic()
        self.v.journal.write(dir='out', conn=self.cid, peer=self.peer,
                             type=ptype.decode('latin-1'), len=len(pkt) - 2,
                             hex=payload.hex(), **fields)

    def send_seq(self, seq, msg):
        self.send(b'S', msg, seq=seq, **decode_out(msg))

    def close(self, reason):
        if self.closed:
            return
        self.closed = True
        self.reason = reason
        try:
            self.w.close()
        except Exception:       # already gone
            pass

    # ---- input
    async def run(self):
        v = self.v
        v.journal.write(dir='event', conn=self.cid, peer=self.peer,
                        event='connect')
        timer = asyncio.ensure_future(self.timers())
        try:
            while not self.closed:
                try:
                    head = await self.r.readexactly(2)
                    (n,) = struct.unpack('>H', head)
                    body = await self.r.readexactly(n) if n else b''
                except (asyncio.IncompleteReadError, ConnectionError, OSError):
                    if not self.closed:
                        self.reason = 'client closed'
                    break
                self.t_rx = time.monotonic()
                if v.silent:
                    v.journal.write(dir='in', conn=self.cid, peer=self.peer,
                                    type=body[:1].decode('latin-1'),
                                    len=n, hex=redact(body[:1],
                                                      body[1:]).hex(),
                                    ignored=True)
                    continue
                if n == 0:
                    self.drop('empty packet')
                    break
                self.packet(body[:1], body[1:])
                # after a burst the client's packets are read (and
                # journaled) while it catches up, as a venue would
                if not self.closed and not v.burst_sent:
                    await self.w.drain()
        except ConnectionError:
            self.reason = self.reason or 'connection error'
        finally:
            timer.cancel()
            self.closed = True
            try:
                self.w.close()
            except Exception:
                pass
            v.disconnected(self)

    def drop(self, reason):
        self.v.journal.write(dir='event', conn=self.cid, peer=self.peer,
                             event='drop', reason=reason)
        self.close(reason)

    def packet(self, ptype, payload):
        v = self.v
        t = ptype.decode('latin-1')
        rec = dict(dir='in', conn=self.cid, peer=self.peer, type=t,
                   len=len(payload) + 1, hex=redact(ptype, payload).hex())
        if ptype == b'L' and len(payload) == LOGIN_REQ_LEN:
            rec.update(username=text(payload[0:6]),
                       session=text(payload[16:26]).lstrip(' '),
                       req_seq=payload[26:46].decode('latin-1').strip(' '))
        elif ptype == b'U':
            rec.update(decode_ouch(payload))
        v.journal.write(**rec)
        if ptype == b'+':
            return                                  # debug: ignored
        if not self.logged_in:
            if ptype == b'L':
                v.login(self, payload)
            else:
                self.drop('%r before login' % t)
            return
        if ptype == b'R':
            if v.args.burst_on_heartbeat and v.answered and not v.burst_sent:
                v.burst(self)
            return
        if ptype == b'O':
            self.logged_out = True
            self.drop('logout')
        elif ptype == b'U':
            v.ouch(self, payload)
        else:
            self.drop('unexpected packet type %r' % t)

    async def timers(self):
        v = self.v
        hb = v.args.heartbeat_ms / 1000.0
        dead = v.args.dead_ms / 1000.0
        tick = max(0.005, min(hb, dead) / 5.0)
        while not self.closed:
            await asyncio.sleep(tick)
            if v.silent or self.closed:
                continue
            now = time.monotonic()
            if now - self.t_rx >= dead:
                self.drop('client silent for %d ms' % v.args.dead_ms)
                return
            if self.logged_in and now - self.t_tx >= hb:
                self.send(b'H')


class Venue:
    def __init__(self, args):
        self.args = args
        self.journal = Journal(args.journal)
        self.stats = Stats()
        self.session = args.session
        self.msgs = []              # sequenced messages; seq = index + 1
        self.orders = {}
        self.last_urn = 0
        self.next_ref = 1
        self.next_match = 1
        self.ended = False          # End of Session sent
        self.conn = None            # the logged-in connection
        self.conns = set()
        self.silent = False
        self.answered = 0           # Enter Orders answered
        self.rate = collections.deque()
        self.gap_armed = False
        self.burst_sent = False
        self.next_cid = 1
        bad = args.bad_after
        self.bad_n, self.bad_kind = (None, None)
        if bad:
            n, _, kind = bad.partition(':')
            self.bad_n, self.bad_kind = int(n), kind

    # ---- sequenced store
    def sequence(self, msg):
        self.msgs.append(msg)
        seq = len(self.msgs)
        if self.conn is not None and self.conn.logged_in:
            self.conn.send_seq(seq, msg)
        return seq

    # ---- connections
    async def accept(self, reader, writer):
        c = Conn(self, reader, writer, self.next_cid)
        self.next_cid += 1
        self.conns.add(c)
        await c.run()

    def disconnected(self, c):
        self.conns.discard(c)
        self.journal.write(dir='event', conn=c.cid, peer=c.peer,
                           event='close', reason=c.reason)
        if self.conn is not c:
            return
        self.conn = None
        if (self.args.cancel_on_disconnect and not c.logged_out
                and not c.no_cod and not self.ended):
            for urn in sorted(self.orders):
                o = self.orders[urn]
                if o.open > 0:
                    self.cancel(o, o.open, CANCEL_DISCONNECT)

    def login(self, c, p):
        if len(p) != LOGIN_REQ_LEN:
            c.drop('login request of %d bytes' % (len(p) + 1))
            return
        user, pw = text(p[0:6]).lstrip(' '), text(p[6:16]).lstrip(' ')
        sess = text(p[16:26]).lstrip(' ')
        seq_txt = p[26:46].decode('latin-1').strip(' ')
        if user != self.args.user or pw != self.args.password:
            c.send(b'J', b'A', reason='A')
            c.drop('not authorized')
            return
        if (sess and sess != self.session) or self.ended:
            c.send(b'J', b'S', reason='S')
            c.drop('session not available')
            return
        if not seq_txt.isdigit() and seq_txt != '':
            c.drop('requested sequence number %r' % seq_txt)
            return
        req = int(seq_txt or '0')
        nxt = len(self.msgs) + 1
        start = nxt if req == 0 else min(req, nxt)
        if self.gap_armed:
            self.gap_armed = False
            start = max(1, start - 1)
            self.journal.write(dir='event', conn=c.cid, event='bad',
                               kind='gap', requested=req, accepted=start)
        old = self.conn
        if old is not None and old is not c:
            old.no_cod = True
            old.drop('replaced by a new login')
        self.conn = c
        c.logged_in = True
        c.send(b'A', ('%-10s%20d' % (self.session, start)).encode('ascii'),
               session=self.session, seq=start)
        for s in range(start, nxt):
            c.send_seq(s, self.msgs[s - 1])

    # ---- OUCH
    def ouch(self, c, m):
        t = m[:1]
        if t == b'O' and len(m) >= ENTER_LEN:
            self.enter(c, m)
        elif t == b'X' and len(m) == CANCEL_LEN:
            urn, qty = struct.unpack_from('>II', m, 1)
            o = self.orders.get(urn)
            if o is None or o.open == 0 or qty >= o.open:
                self.stats.cancel_rejects += 1
                self.sequence(msg_cancel_reject(urn))
            else:
                self.cancel(o, o.open - qty, CANCEL_USER)
        elif t == b'C' and len(m) >= MASS_CANCEL_LEN:
            self.mass_cancel(m)
        elif t == b'U' and len(m) >= REPLACE_LEN:
            urn = struct.unpack_from('>I', m, 5)[0]
            self.stats.rejected += 1
            self.sequence(msg_rejected(urn, REJECT['replace_not_allowed'],
                                       m[24:38]))
        else:
            c.drop('OUCH message %r of %d bytes' % (t, len(m)))

    def check_order(self, m):
        (urn, side, qty, sym, px, tif, disp, cap, iso, cross, cl,
         app) = struct.unpack_from('>IcI8sqccccc14sH', m, 1)
        if urn <= self.last_urn:
            return urn, REJECT['other']
        self.last_urn = urn
        if ENTER_LEN + app != len(m) or not appendage_ok(m[ENTER_LEN:]):
            return urn, REJECT['other']
        lim = self.args.max_orders_per_sec
        if lim:
            now = time.monotonic()
            while self.rate and now - self.rate[0] >= 1.0:
                self.rate.popleft()
            if len(self.rate) >= lim:
                return urn, REJECT['port_rate']
            self.rate.append(now)
        if side[0] not in SIDES:
            return urn, REJECT['invalid_side']
        if qty == 0 or qty > self.args.max_qty:
            return urn, REJECT['invalid_quantity']
        if px <= 0 or px > MAX_PRICE:
            return urn, REJECT['invalid_price']
        if tif[0] not in TIFS:
            return urn, REJECT['other']
        if disp[0] not in DISPLAYS:
            return urn, REJECT['invalid_display']
        if cap[0] not in CAPACITIES:
            return urn, REJECT['other']
        if iso == b'Y':
            return urn, REJECT['iso_not_allowed']
        if iso != b'N':
            return urn, REJECT['other']
        if cross != b'N':
            return urn, REJECT['invalid_cross']
        if not printable(sym):
            return urn, REJECT['invalid_symbol']
        if not printable(cl):
            return urn, REJECT['other']
        return urn, None

    def enter(self, c, m):
        st = self.stats
        st.orders += 1
        urn, why = self.check_order(m)
        if why is not None:
            st.rejected += 1
            self.sequence(msg_rejected(urn, why, m[31:45]))
        else:
            o = Order()
            (o.urn, o.side, o.qty, o.symbol, o.price, o.tif, o.display,
             o.capacity, o.iso, o.cross, o.clordid,
             _) = struct.unpack_from('>IcI8sqccccc14sH', m, 1)
            o.ref = self.next_ref
            self.next_ref += 1
            o.open = o.qty
            self.orders[o.urn] = o
            st.accepted += 1
            self.sequence(msg_accepted(o))
            fill = o.qty * self.args.fill_pct // 100
            if fill:
                st.executed_shares += fill
                o.open -= fill
                self.sequence(msg_executed(o.urn, fill, o.price,
                                           self.next_match))
                self.next_match += 1
            if o.tif[0] == TIF_IOC and o.open:
                self.cancel(o, o.open, CANCEL_IOC)
        self.answered += 1
        self.after_order(c, self.answered)

    def cancel(self, o, dec, reason):
        o.open -= dec
        self.stats.cancels += 1
        self.stats.canceled_shares += dec
        self.sequence(msg_canceled(o.urn, dec, reason))

    def mass_cancel(self, m):
        urn, firm, sym, app = struct.unpack_from('>I4s8sH', m, 1)
        ext = m[MASS_CANCEL_LEN:]
        if urn <= self.last_urn:
            self.stats.rejected += 1
            self.sequence(msg_rejected(urn, REJECT['other'], b' ' * 14))
            return
        self.last_urn = urn
        sides = mass_cancel_sides(ext) if len(ext) == app else None
        if sides is None:
            self.stats.rejected += 1
            self.sequence(msg_rejected(urn, REJECT['other'], b' ' * 14))
            return
        self.stats.mass_cancels += 1
        self.sequence(msg_mass_cancel_response(urn, firm, sym, ext))
        for u in sorted(self.orders):
            o = self.orders[u]
            if o.open == 0:
                continue
            if sym.strip(b' ') and o.symbol != sym:
                continue
            if sides and o.side not in sides:
                continue
            self.cancel(o, o.open, CANCEL_USER)

    # ---- scripted faults, after the N-th order has been answered
    def after_order(self, c, n):
        a = self.args
        if self.bad_n == n:
            self.bad(c, self.bad_kind)
        if a.end_session_after == n and not c.closed:
            self.ended = True
            c.send(b'Z')
            c.drop('end of session')
        if a.drop_after == n and not c.closed:
            c.drop('drop-after %d' % n)
        if a.silent_after == n:
            self.journal.write(dir='event', conn=c.cid, event='silent')
            self.silent = True

    def burst(self, c):
        """--burst-on-heartbeat N: the client has gone quiet after orders;
        N System Event messages (Start of Day: about no order, so they
        change nothing the client holds) in one write, journaled as one
        record."""
        n = self.args.burst_on_heartbeat
        self.burst_sent = True
        if c.closed or self.silent:
            return
        first = len(self.msgs) + 1
        pkts = []
        for _ in range(n):
            msg = msg_system_event(b'S')
            self.msgs.append(msg)
            pkts.append(struct.pack('>H', len(msg) + 1) + b'S' + msg)
        c.w.write(b''.join(pkts))
        c.t_tx = time.monotonic()
        self.journal.write(dir='out', conn=c.cid, peer=c.peer, event='burst',
                           n=n, first_seq=first, last_seq=len(self.msgs),
                           msg='S')
        # the time spent here was ours, not the client's silence
        c.t_rx = time.monotonic()

    def bad(self, c, kind):
        self.journal.write(dir='event', conn=c.cid, event='bad', kind=kind)
        if kind == 'badlen':
            # a System Event one byte longer than its type allows, sequenced
            self.sequence(msg_system_event(b'O') + b'\0')
        elif kind == 'unknown':
            c.send(b'Y', b'\1\2\3\4')
        elif kind == 'gap':
            # the next Login Accepted will be one lower than asked for
            self.gap_armed = True
            c.drop('bad gap: connection closed; next login accepted low')

    async def shutdown(self):
        for c in list(self.conns):
            c.no_cod = True
            c.drop('venue shutting down')
        await asyncio.sleep(0)


def appendage_ok(ext):
    """Optional fields: [length incl. tag][tag][value], back to back."""
    i = 0
    while i < len(ext):
        n = ext[i]
        if n < 1 or i + 1 + n > len(ext):
            return False
        i += 1 + n
    return True


def mass_cancel_sides(ext):
    """The sides named by the Mass Cancel Request's Side optional fields
    (empty: every side), or None if the appendage is malformed."""
    if not appendage_ok(ext):
        return None
    sides = set()
    i = 0
    while i < len(ext):
        n = ext[i]
        tag, val = ext[i + 1], ext[i + 2:i + 1 + n]
        if tag == SIDE_TAG:
            if len(val) != 1 or val[0] not in SIDES:
                return None
            sides.add(val)
        i += 1 + n
    return sides


# -------------------------------------------------------------------- main


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--listen', required=True, help='HOST:PORT (PORT 0: any)')
    ap.add_argument('--user', required=True)
    ap.add_argument('--password', required=True)
    ap.add_argument('--session', required=True)
    ap.add_argument('--fill-pct', type=int, default=50)
    ap.add_argument('--heartbeat-ms', type=int, default=1000)
    ap.add_argument('--dead-ms', type=int, default=15000)
    ap.add_argument('--journal')
    ap.add_argument('--ready-file')
    ap.add_argument('--cancel-on-disconnect', action='store_true')
    ap.add_argument('--silent-after', type=int)
    ap.add_argument('--drop-after', type=int)
    ap.add_argument('--end-session-after', type=int)
    ap.add_argument('--bad-after', metavar='N:KIND')
    ap.add_argument('--max-orders-per-sec', type=int)
    ap.add_argument('--max-qty', type=int, default=1_000_000)
    ap.add_argument('--burst-on-heartbeat', type=int, metavar='N',
                    help='on the first Client Heartbeat after an order, '
                    'N System Event (Start of Day) messages at once')
    a = ap.parse_args(argv)
    if not 0 <= a.fill_pct <= 100:
        ap.error('--fill-pct must be 0..100')
    if a.heartbeat_ms <= 0 or a.dead_ms <= 0:
        ap.error('--heartbeat-ms and --dead-ms must be positive')
    for name in ('user', 'password', 'session'):
        v, width = getattr(a, name), {'user': 6, 'password': 10,
                                      'session': 10}[name]
        if not v or len(v) > width or not printable(v.encode('latin-1')) \
                or v != v.strip(' '):
            ap.error('--%s must be 1..%d printable characters' % (name, width))
    if a.bad_after:
        n, _, kind = a.bad_after.partition(':')
        if not n.isdigit() or int(n) < 1 or kind not in (
                'badlen', 'unknown', 'gap'):
            ap.error('--bad-after N:KIND, KIND one of badlen, unknown, gap')
    for name in ('silent_after', 'drop_after', 'end_session_after',
                 'max_orders_per_sec', 'burst_on_heartbeat'):
        v = getattr(a, name)
        if v is not None and v < 1:
            ap.error('--%s must be at least 1' % name.replace('_', '-'))
    host, _, port = a.listen.rpartition(':')
    if not host or not port.isdigit():
        ap.error('--listen HOST:PORT')
    a.host, a.port = host, int(port)
    return a


async def amain(a):
    v = Venue(a)
    server = await asyncio.start_server(v.accept, a.host, a.port)
    port = server.sockets[0].getsockname()[1]
    v.journal.write(dir='event', event='listen', port=port,
                    session=a.session)
    if a.ready_file:
        tmp = a.ready_file + '.tmp'
        with open(tmp, 'w') as f:
            f.write('%d\n' % port)
        os.replace(tmp, a.ready_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    await stop.wait()
    server.close()
    await v.shutdown()
    await server.wait_closed()
    # let the connection tasks see their closes
    for _ in range(50):
        if not v.conns:
            break
        await asyncio.sleep(0.01)
    v.journal.write(dir='event', event='exit', sequenced=len(v.msgs))
    v.journal.close()
    print(v.stats.line(len(v.msgs)), flush=True)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    asyncio.run(amain(a))
    return 0


if __name__ == '__main__':
    sys.exit(main())
