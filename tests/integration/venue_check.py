#!/usr/bin/env python3
"""venue_check: what the venue simulator's journal (scripts/venue_sim.py
--journal, JSON lines) says about a hedgewire session, judged on its own
records of what it received and sent.

usage:
  venue_check.py orders SIM.jsonl
      every Enter Order received: UserRefNums strictly increasing (across
      connections and runs), no ClOrdID twice; prints orders=N
  venue_check.py answers SIM.jsonl HEDGEWIRE-JOURNAL
      hedgewire's venue journal holds every sequenced message the
      simulator sent, each once, in sequence order, with the same bytes
  venue_check.py covered SIM.jsonl HEDGEWIRE-JOURNAL...
      the journals of several runs together hold every sequenced message
      the simulator sent, with its bytes (a restart may repeat some)
  venue_check.py heartbeats SIM.jsonl
      client heartbeats received and server heartbeats sent, both > 0
  venue_check.py rate SIM.jsonl CAP SYMCAP
      no window of 0.9 s (receive times) holds more than CAP orders, or
      more than SYMCAP of one symbol (the 0.1 s margin is the simulator's
      own receive-time jitter on a loaded host)
  venue_check.py sendrate ORDERS.pcap SIM.jsonl CAP SYMCAP
      the wall-clock caps on hedgewire's own clock: its [order] journal
      (nanosecond pcap, each order stamped as it was handed to send())
      holds exactly the orders the simulator received, and any CAP + 1
      of them (SYMCAP + 1 of one symbol) span at least 1 s
  venue_check.py silences SIM.jsonl DEAD_MS
      how many times the simulator, logged in, sent nothing for DEAD_MS
      or more by its own clock (a server a client may call dead); prints
      silences=N
  venue_check.py cancels SIM.jsonl
      Cancel Orders received (each for an order it had), and the Canceled
      answers they got (each once: a replay after a reconnect sends some
      again); prints cancels=N canceled=M
  venue_check.py kill SIM.jsonl
      the kill switch, judged on the simulator's journal alone: the orders
      open at the venue when the first Cancel Order came (Accepted, less
      what Order Executed, Canceled and Rejected answers the simulator
      had sent by then took away) are exactly the ones cancelled; no
      Enter Order came after it
  venue_check.py ref SIM.jsonl REF.pcap [--conns LO-HI] [--late N]
      the Enter Orders the simulator received (on connections LO..HI;
      those a silent simulator ignored too) are the reference's
      (tests/ref/hgw_ref.py --out, given hedgewire's events log), byte
      for byte, in its order; a reference order may be missing only at a
      connection the simulator saw end other than by a Logout (written to
      a socket that died: docs/venue.md "Venue session"), or one of N
      handed back after hedgewire's workers stopped (downstream mode)
  venue_check.py events SIM.jsonl EVENTS.log [--kills N] [--unkills N]
                 [--first-seq S|auto] [--conns LO-HI] [--journal VENUE.jl]
                 [--taken N] [--unrelayed N]
      hedgewire's events log against the simulator's journal: its venue
      answers are the messages the simulator sent from S (default 1;
      auto: the log's first) to its last, each once, in order, type, UserRefNum, quantity, side,
      price and reason as sent; no unsent order reached the simulator;
      'kill 1' events = the sessions the simulator saw lost after a login
      answer + N operator kills, 'kill 0' events = the operator's (orders
      and losses of connections LO..HI only: one run's)
Exit 1 with the reason on the first rule broken.
"""

import bisect
import collections
import json
import struct
import sys


def records(path):
    with open(path, encoding='ascii') as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit('%s:%d: not JSON: %s' % (path, n, e))


def orders_in(path):
    return [r for r in records(path)
            if r.get('dir') == 'in' and r.get('type') == 'U'
            and r.get('msg') == 'O' and not r.get('ignored')]


def check_orders(path):
    last = None
    seen = set()
    rs = orders_in(path)
    for r in rs:
        urn, cl = r['urn'], r['clordid']
        if last is not None and urn <= last:
            sys.exit('UserRefNum %d after %d: not increasing' % (urn, last))
        if cl in seen:
            sys.exit('ClOrdID %r twice' % cl)
        last = urn
        seen.add(cl)
    print('orders=%d, UserRefNums strictly increasing, ClOrdIDs unique'
          % len(rs))


def check_answers(simp, hwp):
    sent = {}
    for r in records(simp):
        if r.get('dir') == 'out' and r.get('type') == 'S':
            h = r['hex']
            if sent.setdefault(r['seq'], h) != h:
                sys.exit('simulator: message %d sent with two contents'
                         % r['seq'])
    if not sent:
        sys.exit('the simulator sent no sequenced message')
    top = max(sent)
    if sorted(sent) != list(range(1, top + 1)):
        sys.exit('simulator: sequence numbers not 1..%d' % top)
    got = []
    with open(hwp, encoding='ascii') as f:
        for line in f:
            if line.startswith('#'):
                continue
            w = line.split()
            seq, length, hx = int(w[0]), int(w[8]), w[9]
            got.append(seq)
            want = sent.get(seq)
            if want is None:
                sys.exit('hedgewire journal: message %d the simulator '
                         'never sent' % seq)
            if length != len(want) // 2 or not want.startswith(hx):
                sys.exit('hedgewire journal: message %d differs' % seq)
    if got != list(range(1, top + 1)):
        dup = [s for s, c in collections.Counter(got).items() if c > 1]
        sys.exit('hedgewire journal: %d messages, want 1..%d in order '
                 '(duplicates %s)' % (len(got), top, dup[:5]))
    print('venue messages 1..%d in hedgewire\'s journal, in order, once, '
          'same bytes' % top)


def check_covered(simp, hwps):
    sent = {}
    for r in records(simp):
        if r.get('dir') == 'out' and r.get('type') == 'S':
            sent.setdefault(r['seq'], r['hex'])
    got = set()
    for hwp in hwps:
        with open(hwp, encoding='ascii') as f:
            for line in f:
                if line.startswith('#'):
                    continue
                w = line.split()
                seq, hx = int(w[0]), w[9]
                if seq not in sent or not sent[seq].startswith(hx):
                    sys.exit('%s: message %d differs from what was sent'
                             % (hwp, seq))
                got.add(seq)
    missing = sorted(set(sent) - got)
    if missing:
        sys.exit('%d messages in no journal, first %d' % (len(missing),
                                                          missing[0]))
    print('venue messages 1..%d all in the journals of %d runs'
          % (max(sent), len(hwps)))


def check_heartbeats(path):
    r_in = h_out = 0
    for r in records(path):
        if r.get('dir') == 'in' and r.get('type') == 'R':
            r_in += 1
        elif r.get('dir') == 'out' and r.get('type') == 'H':
            h_out += 1
    if r_in == 0 or h_out == 0:
        sys.exit('client heartbeats %d, server heartbeats %d' % (r_in, h_out))
    print('client heartbeats received %d, server heartbeats sent %d'
          % (r_in, h_out))


def most_in_window(times, width):
    best = 0
    for i, t in enumerate(times):
        j = bisect.bisect_left(times, t + width)
        best = max(best, j - i)
    return best


def check_rate(path, cap, symcap):
    rs = orders_in(path)
    if not rs:
        sys.exit('no orders')
    width = 0.9
    times = sorted(r['t'] for r in rs)
    total = most_in_window(times, width)
    by_sym = collections.defaultdict(list)
    for r in rs:
        by_sym[r['symbol']].append(r['t'])
    sym = max(most_in_window(sorted(v), width) for v in by_sym.values())
    if total > cap:
        sys.exit('%d orders in %.1f s (cap %d)' % (total, width, cap))
    if sym > symcap:
        sys.exit('%d orders of one symbol in %.1f s (cap %d)'
                 % (sym, width, symcap))
    print('orders=%d over %.2f s; most in any %.1f s: %d (cap %d), of one '
          'symbol %d (cap %d)' % (len(rs), times[-1] - times[0], width,
                                   total, cap, sym, symcap))


def journal_orders(path):
    """(stamp ns, OUCH message) of every order in a nanosecond pcap."""
    buf = open(path, 'rb').read()
    if struct.unpack_from('<I', buf, 0)[0] != 0xa1b23c4d:
        sys.exit('%s: not a nanosecond pcap' % path)
    out, off = [], 24
    while off + 16 <= len(buf):
        sec, ns, n = struct.unpack_from('<III', buf, off)
        out.append((sec * 10**9 + ns, buf[off + 16 + 45:off + 16 + n]))
        off += 16 + n
    return out


def check_sendrate(jp, simp, cap, symcap):
    # hedgewire lets an order go when the cap-th last send is at least a
    # second old by its TSC; the journal stamps the same TSC (before the
    # send() whose end the window records) in ns, so the rule holds
    # exactly in the journal's times, but for the 1 ns rounding of each
    # conversion
    js = journal_orders(jp)
    got = sorted(r['hex'] for r in records(simp)
                 if r.get('dir') == 'in' and r.get('type') == 'U'
                 and r.get('msg') == 'O')
    if sorted(m.hex() for _, m in js) != got:
        sys.exit('the journal holds %d orders, the simulator got %d: not '
                 'the same' % (len(js), len(got)))
    def worst(times, k):
        times = sorted(times)
        return min((times[i + k] - times[i] for i in range(len(times) - k)),
                   default=None)
    tot = worst([t for t, _ in js], cap)
    by_sym = collections.defaultdict(list)
    for t, m in js:
        by_sym[m[10:18]].append(t)
    sym = [w for w in (worst(v, symcap) for v in by_sym.values())
           if w is not None]
    one_s = 10**9 - 2
    if tot is not None and tot < one_s:
        sys.exit('%d orders within %.6f s by hedgewire\'s clock (cap %d a '
                 'second)' % (cap + 1, tot / 1e9, cap))
    if sym and min(sym) < one_s:
        sys.exit('%d orders of one symbol within %.6f s by hedgewire\'s '
                 'clock (cap %d)' % (symcap + 1, min(sym) / 1e9, symcap))
    print('orders=%d, the same as the simulator got; by hedgewire\'s clock '
          'any %d span at least %.6f s, any %d of one symbol %.6f s'
          % (len(js), cap + 1, (tot or 0) / 1e9, symcap + 1,
             min(sym, default=0) / 1e9))


def check_silences(path, dead_ms):
    last, logged, n = {}, set(), 0
    for r in records(path):
        c = r.get('conn')
        if r.get('dir') == 'out':
            if r.get('type') == 'A':
                logged.add(c)
            if c in logged and c in last and \
                    r['t'] - last[c] >= dead_ms / 1000.0:
                n += 1
            last[c] = r['t']
        elif r.get('event') == 'close' and c in logged and c in last and \
                r['t'] - last[c] >= dead_ms / 1000.0:
            n += 1
    print('silences=%d' % n)


def check_cancels(path):
    ordered = set()
    cancelled = set()
    answered = set()        # sequence numbers: a replay sends one again
    n_x = 0
    for r in records(path):
        if r.get('dir') == 'in' and r.get('type') == 'U':
            if r.get('msg') == 'O':
                ordered.add(r['urn'])
            elif r.get('msg') == 'X':
                if r['urn'] not in ordered:
                    sys.exit('Cancel Order for %d, never entered' % r['urn'])
                if r['qty'] != 0:
                    sys.exit('Cancel Order for %d to %d, not 0'
                             % (r['urn'], r['qty']))
                cancelled.add(r['urn'])
                n_x += 1
        elif (r.get('dir') == 'out' and r.get('type') == 'S'
              and r.get('msg') == 'C' and r.get('urn') in cancelled):
            answered.add(r['seq'])
    if n_x == 0:
        sys.exit('no Cancel Order received')
    print('cancels=%d canceled=%d' % (n_x, len(answered)))


def first_kill(evp):
    """(session tag, seq) of the first 'kill 1' in hedgewire's events
    log: taken before that feed message (docs/design.md "Control
    events"), so an order whose trigger comes before it was decided
    before the kill."""
    with open(evp, encoding='ascii') as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and not w[0].startswith('#') and \
                    w[3] == 'kill' and w[4] == '1':
                sess = bytes.fromhex(w[1])
                return sess[-4:].decode('latin-1'), int(w[2])
    sys.exit('%s: no kill in the events log' % evp)


def check_kill(path, evp=None):
    """Open = accepted, less executed, canceled and rejected shares, per
    the answers the simulator sent before the first Cancel Order (it
    answers each message before it reads the next, so its journal's order
    is the venue's). A cancel for an order the venue had closed is allowed
    only where hedgewire could not yet know: its closing answer lies past
    every closing answer hedgewire did heed (the answers reach it in
    sequence order, so what it knew at the kill is a prefix 1..K), and
    the venue refused that cancel (Cancel Reject)."""
    open_q = {}             # UserRefNum -> open shares at the venue
    closed_at = {}          # UserRefNum -> seq of the answer that closed it
    first_x = None
    cancelled = []
    late_enter = []
    cancel_rejects = set()
    for n, r in enumerate(records(path)):
        d, t, m = r.get('dir'), r.get('type'), r.get('msg')
        if d == 'in' and t == 'U' and m == 'O':
            if first_x is not None:
                late_enter.append((r['urn'], r.get('clordid', '')))
        elif d == 'in' and t == 'U' and m == 'X':
            if first_x is None:
                first_x = n
                open_at_kill = {u for u, q in open_q.items() if q > 0}
                closed_before = dict(closed_at)
            cancelled.append(r['urn'])
        elif d == 'out' and t == 'S' and first_x is None:
            u = r.get('urn')
            if m == 'A':
                open_q[u] = r['qty']
            elif m in ('E', 'C') and u in open_q:
                dec = r['qty'] if m == 'E' else r['decrement']
                open_q[u] -= dec
                if open_q[u] <= 0:
                    closed_at.setdefault(u, r['seq'])
            elif m == 'J':
                open_q[u] = 0
                closed_at.setdefault(u, r['seq'])
        elif d == 'out' and t == 'S' and m == 'I':
            cancel_rejects.add(r['urn'])
    if first_x is None:
        sys.exit('no Cancel Order received')
    in_flight = []
    if late_enter and evp is not None:
        # downstream: orders decided before the kill may still be on
        # their way to hgw-dedup when its sweep runs; hgw-dedup does not
        # recall them, so they reach the venue after the first cancel
        # (docs/venue.md "Downstream mode"). Any decided at or after the
        # kill's position is a kill switch that did not hold.
        tag, kseq = first_kill(evp)
        in_flight = [u for u, cl in late_enter
                     if len(cl) == 14 and cl[:4] == tag and
                     cl[4:].isdigit() and int(cl[4:]) < kseq]
        late_enter = [(u, cl) for u, cl in late_enter if u not in in_flight]
    if late_enter:
        sys.exit('%d Enter Orders after the first Cancel Order (UserRefNum '
                 '%s)' % (len(late_enter), [u for u, _ in late_enter][:5]))
    if in_flight:
        print('in flight at the kill, entered after the sweep: %d '
              '(UserRefNum %s)' % (len(in_flight), in_flight[:5]))
    got = set(cancelled)
    missing = sorted(open_at_kill - got)
    if missing:
        sys.exit('%d of the %d orders open at the kill not cancelled '
                 '(UserRefNum %s)' % (len(missing), len(open_at_kill),
                                      missing[:5]))
    # an order in flight at the kill that reached hgw-dedup while its
    # sweep ran is in the open table the sweep walks, so its cancel
    # follows its entry: the kill holding, not a cancel for nothing
    unknown = sorted(u for u in got - open_at_kill
                     if u not in closed_before and u not in in_flight)
    if unknown:
        sys.exit('Cancel Order for orders the venue never had before the '
                 'kill: %s' % unknown[:5])
    extra = sorted(got - open_at_kill - set(in_flight))
    if extra:
        k = min(closed_before[u] for u in extra)
        heeded = [u for u, s in closed_before.items()
                  if s > k and u not in got]
        if heeded:
            sys.exit('cancels for orders closed by message %d and later, '
                     'but not for %s closed later still: not a prefix of '
                     'the answers' % (k, sorted(heeded)[:5]))
        unrefused = [u for u in extra if u not in cancel_rejects]
        if unrefused:
            sys.exit('cancels for closed orders %s not refused by the venue'
                     % unrefused[:5])
    print('kill: %d orders open at the first Cancel Order, %d cancelled '
          '(%d closed ones not yet known closed, refused), none entered '
          'after' % (len(open_at_kill), len(got), len(extra)))


def pcap_orders(path):
    """OUCH messages of the reference's order frames (42 bytes of
    Ethernet/IPv4/UDP, 3 of SoupBinTCP header)."""
    buf = open(path, 'rb').read()
    out, off = [], 24
    while off + 16 <= len(buf):
        n = struct.unpack_from('<I', buf, off + 8)[0]
        out.append(buf[off + 16 + 45:off + 16 + n].hex())
        off += 16 + n
    return out


def conn_ends(path):
    """conn -> the simulator's reason for its close."""
    return {r['conn']: r.get('reason') for r in records(path)
            if r.get('dir') == 'event' and r.get('event') == 'close'}


def check_ref(simp, refp, opts):
    lo, hi = 1, 1 << 30
    if 'conns' in opts:
        a, _, b = opts['conns'].partition('-')
        lo, hi = int(a), int(b) if b else 1 << 30
    late = int(opts.get('late', 0))
    got = [(r['conn'], r['hex']) for r in records(simp)
           if r.get('dir') == 'in' and r.get('type') == 'U'
           and r.get('msg') == 'O' and lo <= r['conn'] <= hi]
    ref = pcap_orders(refp)
    ends = conn_ends(simp)
    pos = {h: i for i, h in enumerate(ref)}
    last, at_drop, other = -1, 0, []
    for k, (conn, h) in enumerate(got):
        i = pos.get(h)
        if i is None or i <= last:
            sys.exit('order %d the venue got (connection %d) is %s the '
                     "reference's (it decides %d)" % (
                         k, conn, 'not' if i is None else 'out of order in',
                         len(ref)))
        if i > last + 1:
            # missing before it: at a drop of the connection before?
            prev = got[k - 1][0] if k else None
            if prev is not None and prev != conn and \
                    ends.get(prev) != 'logout':
                at_drop += i - last - 1
            else:
                other.extend(range(last + 1, i))
        last = i
    if last + 1 < len(ref):
        if got and ends.get(got[-1][0]) not in (None, 'logout'):
            at_drop += len(ref) - last - 1
        else:
            other.extend(range(last + 1, len(ref)))
    if len(other) > late:
        sys.exit('the venue got %d orders, the reference decides %d: %d '
                 'missing not at a drop (first, reference order %d), %d '
                 'allowed' % (len(got), len(ref), len(other), other[0], late))
    print("the venue got %d orders, each the reference's, in order; %d "
          "missing after a connection that ended otherwise than by a Logout, %d handed back late" % (len(got), at_drop,
                                                   len(other)))


def sim_fields(r):
    """(type, UserRefNum, qty, side, price, reason) the message carries,
    None where it carries none."""
    m = r.get('msg')
    f = {'A': (r.get('urn'), r.get('qty'), r.get('side'), r.get('price'),
               ord(r['state']) if r.get('state') else None),
         'E': (r.get('urn'), r.get('qty'), None, r.get('price'), None),
         'C': (r.get('urn'), r.get('decrement'), None, None,
               ord(r['reason']) if r.get('reason') else None),
         'J': (r.get('urn'), None, None, None, r.get('reason')),
         'I': (r.get('urn'), None, None, None, None)}.get(
             m, (None, None, None, None, None))
    return (m,) + f


def check_events(simp, evp, opts):
    sent, clordids, losses = {}, set(), 0
    login_answered, asked = set(), {}
    lost, rejected, conns = [], set(), []
    # the last sequenced message sent before each connection closed
    conn_top, top_so_far = {}, 0
    lo, hi = 1, 1 << 30
    if 'conns' in opts:
        a, _, b = opts['conns'].partition('-')
        lo, hi = int(a), int(b) if b else 1 << 30
    for r in records(simp):
        d, t = r.get('dir'), r.get('type')
        if d != 'out' or t != 'S':
            if not lo <= r.get('conn', lo) <= hi:
                continue
        if d == 'out' and t == 'S':
            sent.setdefault(r['seq'], r)
            top_so_far = max(top_so_far, r['seq'])
        elif d == 'in' and t == 'L':
            asked[r['conn']] = int(r.get('req_seq') or 0)
        elif d == 'out' and (t == 'J' or t == 'A' and asked.get(r['conn'])
                             in (0, r.get('seq'))):
            # a Login Rejected ends the session (a kill); a Login
            # Accepted counts when it starts where it was asked to (else
            # the client refuses it: the session never was up)
            login_answered.add(r['conn'])
        elif d == 'in' and t == 'U' and r.get('msg') == 'O':
            clordids.add(r['clordid'])
        elif d == 'event' and r.get('event') == 'close' and \
                r['conn'] in login_answered and r.get('reason') != 'logout':
            lost.append(r['conn'])
            conn_top[r['conn']] = top_so_far
        if d == 'out' and t == 'J':
            rejected.add(r['conn'])
        if d == 'event' and r.get('event') == 'connect':
            conns.append(r['conn'])
    kills = {'1': 0, '0': 0}
    seqs, unsent = [], 0
    # the kill switch after each venue answer in the log (on: a session
    # lost then adds no kill event)
    switch, on_after = [False], {}
    with open(evp, encoding='ascii') as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0].startswith('#') or w[0] == '+':
                continue
            where = '%s:%d' % (evp, n)
            if w[3] == 'kill':
                kills[w[4]] += 1
                switch.append(w[4] == '1')
            elif w[3] == 'unsent':
                sess, tseq = bytes.fromhex(w[4]), int(w[5])
                cl = sess[-4:].decode('latin-1') + '%010d' % (tseq % 10**10)
                if cl in clordids:
                    sys.exit('%s: unsent order %s, but the venue got it'
                             % (where, cl))
                unsent += 1
            elif w[3] == 'venue':
                seq = int(w[4])
                r = sent.get(seq)
                if r is None:
                    sys.exit('%s: venue message %d the simulator never sent'
                             % (where, seq))
                have = (w[5], int(w[6]), int(w[7]), w[9], int(w[11]),
                        int(w[10]))
                want = sim_fields(r)
                for name, a, b in zip(('type', 'UserRefNum', 'quantity',
                                       'side', 'price', 'reason'),
                                      have, want):
                    if b is not None and a != b:
                        sys.exit('%s: venue message %d: %s %r, the simulator '
                                 'sent %r' % (where, seq, name, a, b))
                seqs.append(seq)
                on_after[seq] = switch[-1]
    first = opts.get('first-seq', '1')
    first = (seqs[0] if seqs else 1) if first == 'auto' else int(first)
    top = max(sent) if sent else first - 1
    # a message that does not decode is no event: the replicas cannot
    # take it (a kill instead: docs/venue.md "Venue session")
    want = [q for q in range(first, top + 1)
            if not (sent[q].get('bad_length') or sent[q].get('undecodable'))]
    last = seqs[-1] if seqs else first - 1
    if seqs != want[:len(seqs)]:
        dup = [s for s, c in collections.Counter(seqs).items() if c > 1]
        sys.exit('events log: %d venue answers, want %d..%d in order, once '
                 '(duplicates %s, missing %s)' % (
                     len(seqs), first, top, dup[:5],
                     sorted(set(range(first, top + 1)) - set(seqs))[:5]))
    # the answers after the workers stopped have no position to be taken
    # at (docs/venue.md "What the replicas do with the answers"): they
    # are in hedgewire's venue journal only
    if last < top:
        if 'journal' not in opts:
            sys.exit('events log: venue answers %d..%d, the simulator sent '
                     'up to %d' % (first, last, top))
        with open(opts['journal'], encoding='ascii') as f:
            jseqs = {int(line.split()[0]) for line in f
                     if not line.startswith('#')}
        # downstream: the last N never reached hedgewire (they came
        # after it left the link: hgw-dedup's count)
        gone = sorted(set(range(last + 1, top + 1 - int(opts.get(
            'unrelayed', 0)))) - jseqs)
        if gone:
            sys.exit('venue messages %s in neither the events log nor the '
                     'venue journal' % gone[:5])
    if 'taken' in opts and int(opts['taken']) != len(seqs):
        sys.exit('events log: %d venue answers, hedgewire says %s taken'
                 % (len(seqs), opts['taken']))
    # a loss is certain when the login was rejected or the client came
    # back; the last connection's close without a Logout may be the
    # client's own stop (its Logout unread when it gave up waiting), no
    # kill then
    last_conn = max(conns) if conns else None
    # and none is certain when the kill switch was on at its last answer
    # (or that answer is not in the log: after the stop)
    on_after[0] = False
    losses = sum(1 for c in lost if (c in rejected or c != last_conn) and
                 not on_after.get(conn_top[c], True))
    maybe = len(lost) - losses
    want0 = int(opts.get('unkills', 0))
    want1 = losses + int(opts.get('kills', 0))
    if not want1 <= kills['1'] <= want1 + maybe or kills['0'] != want0:
        sys.exit("events log: %d 'kill 1' and %d 'kill 0', want %d (%d "
                 "sessions lost at the simulator + %s operator's; %d more "
                 "may be a stop) and %d"
                 % (kills['1'], kills['0'], want1, losses,
                    opts.get('kills', 0), maybe, want0))
    print('events log: venue answers %d..%d as the simulator sent them (%d '
          'after the stop, in the journal); %d unsent, none at the venue; '
          'kill 1 x%d (%d sessions lost), kill 0 x%d' % (
              first, last, top - last, unsent, kills['1'], losses, kills['0']))


def options(args):
    o = {}
    for i in range(0, len(args), 2):
        if not args[i].startswith('--') or i + 1 >= len(args):
            sys.exit(__doc__)
        o[args[i][2:]] = args[i + 1]
    return o


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    mode, path = argv[1], argv[2]
    if mode == 'orders':
        check_orders(path)
    elif mode == 'answers' and len(argv) == 4:
        check_answers(path, argv[3])
    elif mode == 'covered' and len(argv) >= 4:
        check_covered(path, argv[3:])
    elif mode == 'heartbeats':
        check_heartbeats(path)
    elif mode == 'rate' and len(argv) == 5:
        check_rate(path, int(argv[3]), int(argv[4]))
    elif mode == 'cancels':
        check_cancels(path)
    elif mode == 'sendrate' and len(argv) == 6:
        check_sendrate(path, argv[3], int(argv[4]), int(argv[5]))
    elif mode == 'silences' and len(argv) == 4:
        check_silences(path, int(argv[3]))
    elif mode == 'kill' and len(argv) in (3, 4):
        check_kill(path, argv[3] if len(argv) == 4 else None)
    elif mode == 'ref' and len(argv) >= 4:
        check_ref(path, argv[3], options(argv[4:]))
    elif mode == 'events' and len(argv) >= 4:
        check_events(path, argv[3], options(argv[4:]))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
