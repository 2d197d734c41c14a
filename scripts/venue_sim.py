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
what is left out.  --lie KIND --lie-after N and --fuzz SEED --fuzz-rate P
make a hostile venue (class Hostile below): one answer that contradicts
what the client sent, or answers garbled at random.  Prints one summary line at exit (SIGTERM/SIGINT).
"""

import argparse
import asyncio
import collections
import fcntl
import json
import os
import random
import signal
import socket
import struct
import sys
import termios
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


def msg_accepted(o, qty=None, state=b'L'):
    return struct.pack('>cQIcI8sqccQcccc14sH', b'A', now_ns_since_midnight(),
                       o.urn, o.side, o.qty if qty is None else qty,
                       o.symbol, o.price, o.tif, o.display, o.ref,
                       o.capacity, o.iso, o.cross, state, o.clordid, 0)


def msg_replaced(orig, o, qty, state=b'L'):
    """Replaced (68 bytes): the old UserRefNum, the new one (o.urn), then
    the Accepted fields from the side on."""
    return struct.pack('>cQIIcI8sqccQcccc14sH', b'U', now_ns_since_midnight(),
                       orig, o.urn, o.side, qty, o.symbol, o.price, o.tif,
                       o.display, o.ref, o.capacity, o.iso, o.cross, state,
                       o.clordid, 0)


def msg_modified(urn, side, qty):
    """Order Modified (18 bytes): the order's new open quantity."""
    return struct.pack('>cQIcI', b'M', now_ns_since_midnight(), urn, side,
                       qty)


def msg_restated(urn, reason, display_qty):
    """Order Restated (16 bytes and an appendage): one option, Display
    Quantity (tag 22, 4 bytes)."""
    return struct.pack('>cQIcHBBI', b'R', now_ns_since_midnight(), urn,
                       reason, 6, 5, 22, display_qty)


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


# fixed lengths of the server messages the simulator sends (Mass Cancel
# Response: at least, with its appendage)
ANSWER_LEN = {'S': 10, 'A': 64, 'U': 68, 'C': 18, 'E': 36, 'J': 29,
              'I': 13, 'M': 18, 'X': 27}


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
        elif t == 'M' and len(m) == 18:
            urn, side, qty = struct.unpack_from('>IcI', m, 9)
            f.update(urn=urn, side=side.decode(), qty=qty)
        elif t == 'U' and len(m) == 68:
            (orig, urn, side, qty, sym, px, tif, disp, ref, cap, iso, cross,
             state, cl, app) = struct.unpack_from('>IIcI8sqccQcccc14sH', m, 9)
            f.update(orig_urn=orig, urn=urn, side=side.decode(), qty=qty,
                     symbol=text(sym), price=px, state=state.decode(),
                     clordid=text(cl))
        if t in ANSWER_LEN and t != 'S' and len(m) != ANSWER_LEN[t] and \
                not (t == 'X' and len(m) > 27):
            f['bad_length'] = len(m)
        elif t not in ANSWER_LEN:
            f['unknown_type'] = True
    except (struct.error, UnicodeDecodeError):
        f['undecodable'] = True
    return f


# -------------------------------------------------------------------- state


class Order:
    __slots__ = ('urn', 'side', 'qty', 'symbol', 'price', 'tif', 'display',
                 'capacity', 'iso', 'cross', 'clordid', 'ref', 'open')


class Journal:
    """What the venue received and sent, one JSON record a line, written
    before what it describes goes out. Between begin() and commit() (one
    client packet and all it causes) the records are written in one
    write(2) at the commit, and only then do the socket writes and
    closes queued meanwhile (act) run: a venue process killed at any
    instant leaves a journal that --restore can take whole, and never
    sent a byte its journal lacks."""

    def __init__(self, path, append=False):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT |
                          (os.O_APPEND if append else os.O_TRUNC),
                          0o644) if path else None
        self.depth = 0
        self.lines = []
        self.acts = []

    def write(self, **rec):
        if self.fd is None:
            return
        rec = {'t': round(time.time(), 6), 'ns': now_ns_since_midnight(),
               **rec}
        self.lines.append(json.dumps(rec, sort_keys=False) + '\n')
        if self.depth == 0:
            self.flush()

    def act(self, fn):
        """fn now, or after the records of the packet being taken."""
        if self.depth == 0:
            fn()
        else:
            self.acts.append(fn)

    def begin(self):
        self.depth += 1

    def commit(self):
        self.depth -= 1
        if self.depth != 0:
            return
        self.flush()
        acts, self.acts = self.acts, []
        for fn in acts:
            fn()

    def flush(self):
        data = ''.join(self.lines).encode('ascii')
        self.lines = []
        while data and self.fd is not None:
            data = data[os.write(self.fd, data):]

    def close(self):
        if self.fd is not None:
            self.flush()
            os.close(self.fd)
            self.fd = None


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
        self.draining = False       # the reader waits for its writes
        self.t_rx = self.t_tx = self.t_open = time.monotonic()

    # ---- output
    def send(self, ptype, payload=b'', **fields):
        if self.closed or self.v.silent:
            return
        pkt = struct.pack('>H', len(payload) + 1) + ptype + payload
        self.v.journal.write(dir='out', conn=self.cid, peer=self.peer,
                             type=ptype.decode('latin-1'), len=len(pkt) - 2,
                             hex=payload.hex(), **fields)
        self.out(pkt)
        self.t_tx = time.monotonic()

    def out(self, data):
        """Bytes to the client, once the journal holds what they are."""
        self.v.journal.act(lambda: self.w.write(data))

    def send_seq(self, seq, msg):
        self.send(b'S', msg, seq=seq, **decode_out(msg))

    def close(self, reason):
        if self.closed:
            return
        self.closed = True
        self.reason = reason
        self.v.journal.act(self.close_now)

    def close_now(self):
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
                v.journal.begin()
                try:
                    self.packet(body[:1], body[1:])
                finally:
                    v.journal.commit()
                # after a burst the client's packets are read (and
                # journaled) while it catches up, as a venue would
                if not self.closed and not v.burst_sent:
                    self.draining = True
                    await self.w.drain()
                    self.draining = False
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

    def reset(self, reason):
        """--reset-after: the connection ends with a TCP RST (SO_LINGER
        0), what was unsent discarded."""
        sock = self.w.get_extra_info('socket')
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            struct.pack('ii', 1, 0))
        self.v.journal.write(dir='event', conn=self.cid, peer=self.peer,
                             event='reset', reason=reason)
        self.closed = True
        self.reason = reason
        self.v.journal.act(self.w.transport.abort)

    def stall(self, ms):
        """--stall-after: stop reading the socket for ms (its receive
        buffer fills and TCP announces a zero window), then read on."""
        self.v.journal.write(dir='event', conn=self.cid, peer=self.peer,
                             event='stall', ms=ms)
        self.w.transport.pause_reading()
        asyncio.get_running_loop().call_later(
            ms / 1000.0, self.unstall)

    def unstall(self):
        if not self.closed:
            self.v.journal.write(dir='event', conn=self.cid, peer=self.peer,
                                 event='unstall')
            self.w.transport.resume_reading()

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

    def input_waiting(self):
        """Bytes from the client not read yet: in the stream reader's
        buffer or the socket's."""
        if len(getattr(self.r, '_buffer', b'')) != 0:
            return True
        sock = self.w.get_extra_info('socket')
        try:
            n = struct.unpack('i', fcntl.ioctl(sock.fileno(), termios.FIONREAD,
                                               b'\0\0\0\0'))[0]
        except (OSError, AttributeError, ValueError):
            return False
        return n > 0

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
            if now - self.t_rx >= dead and self.draining and \
                    self.input_waiting():
                # our reader waits for the client to take our output,
                # and the client's bytes wait for our reader: it is not
                # silent, we are not reading (a venue reads them)
                self.t_rx = now
            if now - self.t_rx >= dead:
                self.drop('client silent for %d ms' % v.args.dead_ms)
                return
            if self.logged_in and now - self.t_tx >= hb:
                self.send(b'H')


class Venue:
    def __init__(self, args):
        self.args = args
        restore = args.restore and args.journal and \
            os.path.exists(args.journal)
        records = []
        if restore:
            with open(args.journal, encoding='ascii') as f:
                records = [json.loads(line) for line in f if line.strip()]
        self.journal = Journal(args.journal, append=restore)
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
        self.entered = {}           # UserRefNum -> quantity, every Enter Order
        self.hostile = Hostile(self, args) \
            if args.lie or args.fuzz is not None else None
        if restore:
            self.restore(records)

    def restore(self, records):
        """--restore: the session as the journal left it, as a venue keeps
        its session over a restart of its process. The clients' OUCH
        messages are applied again in the order they came, nothing is
        sent; the sequenced messages must come out as the journal has
        them (a cancel-on-disconnect is not in the journal: not
        restorable)."""
        want = {}
        for r in records:
            if r.get('dir') == 'out' and r.get('type') == 'S':
                want[r['seq']] = bytes.fromhex(r['hex'])
            elif r.get('dir') == 'in' and r.get('type') == 'U' and \
                    not r.get('ignored'):
                self.ouch(None, bytes.fromhex(r['hex']))
        # the same messages but for their timestamps: the journal's bytes
        # are what was sent, and stay
        got = [(len(m), m[:1]) for m in self.msgs]
        if sorted(want) != list(range(1, len(want) + 1)) or \
                got != [(len(want[i]), want[i][:1])
                        for i in range(1, len(want) + 1)]:
            sys.exit('venue_sim: --restore: the journal\'s %d sequenced '
                     'messages are not what its orders give (%d)'
                     % (len(want), len(got)))
        self.msgs = [want[i] for i in range(1, len(want) + 1)]
        # connections the old process had open died with it: journalled
        # as closed, and the numbering goes on after them
        opened = [r['conn'] for r in records
                  if r.get('event') == 'connect']
        closed = {r['conn'] for r in records if r.get('event') == 'close'}
        for cid in opened:
            if cid not in closed:
                self.journal.write(dir='event', conn=cid, event='close',
                                   reason='venue process restarted')
        self.next_cid = max(opened, default=0) + 1
        self.journal.write(dir='event', event='restore',
                           sequenced=len(self.msgs))

    # ---- sequenced store
    def sequence(self, msg):
        self.msgs.append(msg)
        seq = len(self.msgs)
        if self.conn is not None and self.conn.logged_in:
            if self.hostile is None or \
                    not self.hostile.on_send(self.conn, seq, msg):
                self.conn.send_seq(seq, msg)
        return seq

    # ---- connections
    async def accept(self, reader, writer):
        if self.args.sndbuf is not None:
            writer.get_extra_info('socket').setsockopt(
                socket.SOL_SOCKET, socket.SO_SNDBUF, self.args.sndbuf)
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
        if self.hostile is not None:
            start = self.hostile.login_start(c, req, start)
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
        self.entered.setdefault(urn, struct.unpack_from('>I', m, 6)[0])
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
            if self.hostile is None or not self.hostile.enter(c, o):
                self.sequence(msg_accepted(o))
            # o.open is o.qty here, unless a hostile answer changed it
            fill = o.open * self.args.fill_pct // 100
            if fill:
                st.executed_shares += fill
                o.open -= fill
                self.sequence(msg_executed(o.urn, fill, o.price,
                                           self.next_match))
                self.next_match += 1
            if o.tif[0] == TIF_IOC and o.open:
                self.cancel(o, o.open, CANCEL_IOC)
        self.answered += 1
        if c is not None:              # not while restoring
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
        if self.hostile is not None:
            self.hostile.after_order(c, n)
        if self.bad_n == n:
            self.bad(c, self.bad_kind)
        if a.end_session_after == n and not c.closed:
            self.ended = True
            c.send(b'Z')
            c.drop('end of session')
        if a.drop_after == n and not c.closed:
            c.drop('drop-after %d' % n)
        if a.reset_after == n and not c.closed:
            c.reset('reset-after %d' % n)
        if a.stall_n == n and not c.closed:
            c.stall(a.stall_ms)
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
        self.journal.write(dir='out', conn=c.cid, peer=c.peer, event='burst',
                           n=n, first_seq=first, last_seq=len(self.msgs),
                           msg='S')
        c.out(b''.join(pkts))
        c.t_tx = time.monotonic()
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


# ----------------------------------------------------------- hostile venue

# --lie KIND: one answer that contradicts what the client sent
LIE_KINDS = ('exec-unsent', 'exec-closed-dead', 'exec-closed-zero',
             'exec-closed-modified', 'exec-closed-filled', 'overfill',
             'accept-over', 'modify-over', 'restate-over', 'replace',
             'replace-future')
# the kinds that answer an Enter Order of their own (the next one)
LIE_FRESH = ('exec-closed-dead', 'exec-closed-zero', 'accept-over')
# --fuzz: what may happen to an answer, and how often, relative
FUZZ_WEIGHTS = (
    ('disconnect', 12),     # the connection closed after the answer
    ('disconnect-mid', 8),  # closed with the answer's packet half written
    ('login-seq', 8),       # closed; the next Login Accepted names a wrong
                            # next sequence number
    ('repeat', 16),         # an earlier answer sent again, a new number
    ('badlen', 8),          # an answer one byte short or long, sequenced
    ('unknown-ouch', 4),    # a sequenced message of no OUCH type
    ('badpkt', 8),          # a SoupBinTCP packet of a bad length
    ('unknown-pkt', 4),     # a packet of no SoupBinTCP type
    ('lie', 1),             # a contradiction (the --lie kinds, below): rare,
                            # since the first one ends a client's run
)
FUZZ_LIES = ('exec-unsent', 'exec-closed', 'overfill', 'accept-over',
             'modify-over', 'replace', 'replace-future')
# mutations after which the client must drop the connection
FUZZ_MALFORMED = ('badlen', 'unknown-ouch', 'badpkt', 'unknown-pkt')


class Hostile:
    """A venue that lies (--lie) or garbles its answers (--fuzz).

    The venue's book (Order.open) follows what it tells the client, lies
    included, so it is the client's view of its orders by the rules of
    docs/venue.md "What the replicas do with the answers"; a message is a
    contradiction when, against that view, it is a Replaced, an Executed
    for a UserRefNum never entered, for an order closed or for more than is
    open, or an Accepted or Order Modified for more than was entered.
    Every lie and mutation is journalled as an event (`lie`, `fuzz`) with
    the sequence number it took, before the message is sent."""

    def __init__(self, venue, args):
        self.v = venue
        self.kind, self.after = args.lie, args.lie_after
        self.armed = self.done = False
        self.rng = random.Random(args.fuzz) if args.fuzz is not None \
            else None
        self.rate = args.fuzz_rate
        self.busy = False           # inside a mutation: no other one
        self.tainted = set()        # connections sent a malformed packet
        self.skew = 0               # the next Login Accepted's error

    # ---- the client's view
    def open_urns(self):
        return sorted(u for u, o in self.v.orders.items() if o.open > 0)

    def contradiction(self, m):
        """Why m contradicts what the client sent (None: it does not)."""
        t, v = m[:1], self.v
        if t == b'U':
            return 'Replaced (no Replace Order is ever sent)'
        if t == b'R' and len(m) == 22 and m[16] == 5 and m[17] == 22:
            urn, qty = struct.unpack_from('>I', m, 9)[0], \
                struct.unpack_from('>I', m, 18)[0]
            if urn in v.entered and qty > v.entered[urn]:
                return 'Order Restated showing %d, %d entered' % (
                    qty, v.entered[urn])
            return None
        if t not in b'EAM' or len(m) < 18:
            return None
        urn, qty = struct.unpack_from('>I', m, 9)[0], \
            struct.unpack_from('>I', m, 13 if t == b'E' else 14)[0]
        if t != b'E':
            if urn in v.entered and qty > v.entered[urn]:
                return '%s for %d, %d entered' % (
                    'Accepted' if t == b'A' else 'Order Modified', qty,
                    v.entered[urn])
            return None
        if urn not in v.entered:
            return 'Executed for a UserRefNum never entered'
        o = v.orders.get(urn)
        n = o.open if o is not None else 0
        if n == 0:
            return 'Executed for a closed order'
        if qty > n:
            return 'Executed for %d, %d open' % (qty, n)
        return None

    def apply(self, m):
        """The book after m, a message not made by the matching rule."""
        t, v = m[:1], self.v
        if len(m) < 13 or t not in b'AECJMU':
            return
        urn = struct.unpack_from('>I', m, 9)[0]
        o = v.orders.get(urn)
        if t == b'U':
            new = struct.unpack_from('>I', m, 13)[0]
            n = Order()
            for k in Order.__slots__:
                setattr(n, k, getattr(o, k, None))
            n.urn, n.qty = new, struct.unpack_from('>I', m, 18)[0]
            n.open = 0 if m[51:52] == b'D' else n.qty
            if o is not None:
                o.open = 0
            v.orders[new] = n
        elif o is None:
            return
        elif t == b'A':
            o.open = 0 if m[47:48] == b'D' else \
                struct.unpack_from('>I', m, 14)[0]
        elif t == b'M':
            o.open = struct.unpack_from('>I', m, 14)[0]
        elif t in b'EC':
            o.open = max(0, o.open - struct.unpack_from('>I', m, 13)[0])
        elif t == b'J':
            o.open = 0

    def unsent_urn(self):
        """A UserRefNum below the last one entered that never was (0 if
        every one was)."""
        for u in range(self.v.last_urn - 1, 0, -1):
            if u not in self.v.entered and u not in self.v.orders:
                return u
        return 0

    def executed(self, urn, qty, price):
        m = msg_executed(urn, qty, price, self.v.next_match)
        self.v.next_match += 1
        return m

    def lie(self, c, kind, m, **f):
        """Sends the contradiction m, journalled first."""
        v = self.v
        why = self.contradiction(m)
        v.journal.write(dir='event', conn=c.cid if c else None, event='lie',
                        kind=kind, seq=len(v.msgs) + 1, msg=chr(m[0]),
                        why=why, open=self.open_urns(), **f)
        self.apply(m)
        self.quiet(m)

    def honest(self, m):
        """A message the matching rule could have sent (its effect on the
        book applied), sent without a mutation."""
        self.apply(m)
        self.quiet(m)

    def quiet(self, m):
        """Sequences m with no mutation of its own."""
        busy, self.busy = self.busy, True
        try:
            self.v.sequence(m)
        finally:
            self.busy = busy

    # ---- --lie
    def after_order(self, c, n):
        if self.kind is None or self.done or n < self.after:
            return
        if self.kind in LIE_FRESH:
            self.armed = True
            return
        opn = [o for o in self.v.orders.values() if o.open > 0]
        if opn or self.kind == 'exec-unsent':
            self.done = True
            self.lie_on(c, self.kind,
                        max(opn, key=lambda o: o.urn) if opn else None)

    def enter(self, c, o):
        """The Accepted (and lie) for a new order o when armed; False:
        answer it as usual."""
        if not self.armed or self.done:
            return False
        self.done = True
        k = self.kind
        if k == 'accept-over':
            self.lie(c, k, msg_accepted(o, qty=o.qty + 1), urn=o.urn,
                     qty=o.qty + 1, entered=o.qty, venue_open=o.qty)
            return True
        if k == 'exec-closed-dead':
            self.honest(msg_accepted(o, state=b'D'))
        else:
            self.honest(msg_accepted(o, qty=0))
        self.lie(c, k, self.executed(o.urn, o.qty, o.price), urn=o.urn,
                 qty=o.qty, entered=o.qty, venue_open=0)
        return True

    def lie_on(self, c, k, o):
        """A lie of kind k about the open order o."""
        v = self.v
        if k == 'exec-unsent':
            u = self.unsent_urn()
            self.lie(c, k, self.executed(u, 100, 1_000_000), urn=u, qty=100,
                     entered=0, venue_open=0)
        elif k in ('exec-closed-modified', 'exec-closed-filled'):
            q = o.open
            if k == 'exec-closed-modified':
                self.honest(msg_modified(o.urn, o.side, 0))
            else:
                v.stats.executed_shares += q
                self.honest(self.executed(o.urn, q, o.price))
            self.lie(c, k, self.executed(o.urn, q, o.price), urn=o.urn,
                     qty=q, entered=o.qty, venue_open=0)
        elif k == 'overfill':
            self.lie(c, k, self.executed(o.urn, o.open + 1, o.price),
                     urn=o.urn, qty=o.open + 1, entered=o.qty,
                     venue_open=o.open)
        elif k == 'modify-over':
            self.lie(c, k, msg_modified(o.urn, o.side, o.qty + 1),
                     urn=o.urn, qty=o.qty + 1, entered=o.qty,
                     venue_open=o.open)
        elif k == 'restate-over':
            self.lie(c, k, msg_restated(o.urn, b'R', o.qty + 1),
                     urn=o.urn, qty=o.qty + 1, entered=o.qty,
                     venue_open=o.open)
        elif k in ('replace', 'replace-future'):
            n = Order()
            for s in Order.__slots__:
                setattr(n, s, getattr(o, s))
            n.urn = self.unsent_urn() if k == 'replace' else v.last_urn + 1
            n.ref = v.next_ref
            v.next_ref += 1
            self.lie(c, k, msg_replaced(o.urn, n, o.open), urn=n.urn,
                     orig_urn=o.urn, qty=o.open, entered=o.qty,
                     venue_open=o.open)

    # ---- --fuzz
    def on_send(self, c, seq, m):
        """Before sequenced message seq (m) goes to c: perhaps a mutation.
        True when it has dealt with sending m."""
        if self.rng is None or self.busy or c.closed or \
                c.cid in self.tainted or self.rng.random() >= self.rate:
            return False
        names, weights = zip(*FUZZ_WEIGHTS)
        k = self.rng.choices(names, weights)[0]
        v, j = self.v, self.v.journal
        if k == 'disconnect-mid':
            pkt = struct.pack('>H', len(m) + 1) + b'S' + m
            cut = self.rng.randrange(1, len(pkt))
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k, seq=seq,
                    written=cut, of=len(pkt))
            c.out(pkt[:cut])
            c.drop('fuzz: disconnect mid-packet')
            return True
        c.send_seq(seq, m)
        if k in ('disconnect', 'login-seq'):
            if k == 'login-seq':
                self.skew = self.rng.choice((-1, 1))
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k,
                    after_seq=seq, skew=self.skew if k == 'login-seq'
                    else None)
            c.drop('fuzz: %s' % k)
            return True
        self.busy = True
        try:
            self.mutate(c, k)
        finally:
            self.busy = False
        return True

    def mutate(self, c, k):
        v, j, rng = self.v, self.v.journal, self.rng
        nxt = len(v.msgs) + 1
        if k == 'repeat':
            # what the book allows: no contradiction (a lie's job)
            old = [i for i, m in enumerate(v.msgs) if m[:1] in b'ECJI'
                   and not decode_out(m).get('bad_length')
                   and self.contradiction(m) is None]
            if not old:
                return
            i = rng.choice(old)
            m = v.msgs[i]
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k, seq=nxt,
                    of_seq=i + 1)
            self.apply(m)
            v.sequence(m)
        elif k == 'badlen':
            good = [m for m in v.msgs if m[:1] in b'AECJI'
                    and not decode_out(m).get('bad_length')]
            m = rng.choice(good) if good else msg_system_event(b'O')
            m = m[:-1] if rng.random() < 0.5 else m + b'\0'
            self.tainted.add(c.cid)
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k, seq=nxt,
                    type=chr(m[0]), len=len(m))
            v.sequence(m)
        elif k == 'unknown-ouch':
            m = b'K' + struct.pack('>QI', now_ns_since_midnight(), 1)
            self.tainted.add(c.cid)
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k, seq=nxt)
            v.sequence(m)
        elif k in ('badpkt', 'unknown-pkt'):
            if k == 'badpkt':
                raw = rng.choice((b'\0\x02H\0', b'\0\0', b'\x10\x01S' +
                                  b'\0' * 8, b'\0\x02Z\0'))
            else:
                raw = b'\0\x05' + rng.choice(b'YQxk').to_bytes(1, 'big') + \
                    b'\1\2\3\4'
            self.tainted.add(c.cid)
            j.write(dir='event', conn=c.cid, event='fuzz', kind=k,
                    hex=raw.hex())
            c.out(raw)
        elif k == 'lie':
            self.fuzz_lie(c, rng.choice(FUZZ_LIES))

    def fuzz_lie(self, c, k):
        v = self.v
        opn = [o for o in v.orders.values() if o.open > 0]
        shut = [o for u, o in v.orders.items()
                if o.open == 0 and u in v.entered]
        if k == 'exec-closed' and shut:
            o = self.rng.choice(shut)
            self.lie(c, k, self.executed(o.urn, o.qty, o.price), urn=o.urn,
                     qty=o.qty, entered=v.entered[o.urn], venue_open=0)
        elif k == 'overfill' and opn:
            # more than was entered: more than open, whatever came before
            o = self.rng.choice(opn)
            q = max(o.open, v.entered.get(o.urn, 0)) + 1
            self.lie(c, k, self.executed(o.urn, q, o.price), urn=o.urn,
                     qty=q, entered=v.entered.get(o.urn),
                     venue_open=o.open)
        elif k in ('accept-over', 'modify-over') and opn:
            o = self.rng.choice(opn)
            q = max(o.qty, v.entered.get(o.urn, 0)) + 1
            m = msg_accepted(o, qty=q) if k == 'accept-over' else \
                msg_modified(o.urn, o.side, q)
            self.lie(c, k, m, urn=o.urn, qty=q,
                     entered=v.entered.get(o.urn), venue_open=o.open)
        elif k in ('replace', 'replace-future') and opn:
            self.lie_on(c, k, self.rng.choice(opn))
        else:
            u = self.unsent_urn()
            self.lie(c, 'exec-unsent', self.executed(u, 100, 1_000_000),
                     urn=u, qty=100, entered=0, venue_open=0)

    def login_start(self, c, req, start):
        """The Login Accepted's sequence number: start, or a wrong one
        after a login-seq mutation."""
        if not self.skew:
            return start
        k, self.skew = self.skew, 0
        bad = start + k if start + k >= 1 else start + 1
        self.v.journal.write(dir='event', conn=c.cid, event='fuzz',
                             kind='login-seq-accept', requested=req,
                             accepted=bad)
        self.tainted.add(c.cid)
        return bad


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
    ap.add_argument('--lie', choices=LIE_KINDS,
                    help='one answer that contradicts what was sent')
    ap.add_argument('--lie-after', type=int, metavar='N',
                    help='the lie after N Enter Orders answered honestly')
    ap.add_argument('--fuzz', type=int, metavar='SEED',
                    help='garble answers at random, from this seed')
    ap.add_argument('--fuzz-rate', type=float, default=0.02, metavar='P',
                    help='chance that a sequenced answer is garbled')
    ap.add_argument('--max-orders-per-sec', type=int)
    ap.add_argument('--max-qty', type=int, default=1_000_000)
    ap.add_argument('--burst-on-heartbeat', type=int, metavar='N',
                    help='on the first Client Heartbeat after an order, '
                    'N System Event (Start of Day) messages at once')
    ap.add_argument('--reset-after', type=int, metavar='N',
                    help='after the N-th order, end the connection with a '
                    'TCP RST')
    ap.add_argument('--stall-after', metavar='N:MS',
                    help='after the N-th order, stop reading the socket for '
                    'MS ms (a zero window)')
    ap.add_argument('--restore', action='store_true',
                    help='start from the session the --journal holds (a '
                    'venue restarting), appending to it')
    ap.add_argument('--rcvbuf', type=int, metavar='BYTES',
                    help='SO_RCVBUF of the listening socket (and so of '
                    'each connection)')
    ap.add_argument('--sndbuf', type=int, metavar='BYTES',
                    help='SO_SNDBUF of each connection (with a client that '
                    'does not read, the simulator\'s output backs up soon)')
    a = ap.parse_args(argv)
    a.stall_n = a.stall_ms = None
    if a.stall_after:
        n, _, ms = a.stall_after.partition(':')
        if not n.isdigit() or int(n) < 1 or not ms.isdigit() or int(ms) < 1:
            ap.error('--stall-after N:MS, both at least 1')
        a.stall_n, a.stall_ms = int(n), int(ms)
    if a.rcvbuf is not None and a.rcvbuf < 1:
        ap.error('--rcvbuf must be at least 1')
    if a.sndbuf is not None and a.sndbuf < 1:
        ap.error('--sndbuf must be at least 1')
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
    for name in ('silent_after', 'drop_after', 'reset_after',
                 'end_session_after',
                 'max_orders_per_sec', 'burst_on_heartbeat'):
        v = getattr(a, name)
        if v is not None and v < 1:
            ap.error('--%s must be at least 1' % name.replace('_', '-'))
    host, _, port = a.listen.rpartition(':')
    if not host or not port.isdigit():
        ap.error('--listen HOST:PORT')
    a.host, a.port = host, int(port)
    if (a.lie is None) != (a.lie_after is None) or \
            (a.lie_after is not None and a.lie_after < 1):
        ap.error('--lie KIND and --lie-after N (N at least 1) go together')
    if not 0 < a.fuzz_rate <= 1:
        ap.error('--fuzz-rate must be in (0, 1]')
    return a


async def amain(a):
    v = Venue(a)
    if a.rcvbuf is not None:
        # set before listen(): the window announced in the handshake and
        # the buffer of each accepted connection follow it
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
        ls.bind((a.host, a.port))
        server = await asyncio.start_server(v.accept, sock=ls)
    else:
        server = await asyncio.start_server(v.accept, a.host, a.port)
    port = server.sockets[0].getsockname()[1]
    v.journal.write(dir='event', event='listen', port=port,
                    session=a.session)
    # the handlers before the ready file: a signal sent as soon as it
    # appears stops the simulator cleanly
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    if a.ready_file:
        tmp = a.ready_file + '.tmp'
        with open(tmp, 'w') as f:
            f.write('%d\n' % port)
        os.replace(tmp, a.ready_file)
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
