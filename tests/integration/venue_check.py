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
Exit 1 with the reason on the first rule broken.
"""

import bisect
import collections
import json
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


def check_kill(path):
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
                late_enter.append(r['urn'])
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
    if late_enter:
        sys.exit('%d Enter Orders after the first Cancel Order (UserRefNum '
                 '%s)' % (len(late_enter), late_enter[:5]))
    got = set(cancelled)
    missing = sorted(open_at_kill - got)
    if missing:
        sys.exit('%d of the %d orders open at the kill not cancelled '
                 '(UserRefNum %s)' % (len(missing), len(open_at_kill),
                                      missing[:5]))
    unknown = sorted(u for u in got - open_at_kill if u not in closed_before)
    if unknown:
        sys.exit('Cancel Order for orders the venue never had before the '
                 'kill: %s' % unknown[:5])
    extra = sorted(got - open_at_kill)
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
    elif mode == 'kill':
        check_kill(path)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
