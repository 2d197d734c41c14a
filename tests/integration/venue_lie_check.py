#!/usr/bin/env python3
"""venue_lie_check: a hedgewire run against a hostile venue
(scripts/venue_sim.py --lie or --fuzz), judged on the simulator's journal
(its `lie` and `fuzz` events and what it received and sent), hedgewire's
exit status, stderr, summary and venue journal.

usage:
  venue_lie_check.py lie SIM.jsonl STATUS STDERR
      the one lie of the journal killed the run: exit status 8 + bits
      with bit 32; one stderr line `venue contradicted:` naming the lie's
      answer type, sequence number, UserRefNum and quantity; no Enter
      Order received later than LATE_S after the lie was sent; every
      order open at the venue at the lie got a Cancel Order after it (the
      one the lie is about only if the lie left it open), as did every
      order open at the first Cancel Order, after which no Enter Order
      came
  venue_lie_check.py fuzz SIM.jsonl STATUS STDERR SUMMARY VENUE.jl
                     MAX_POSITION
      the first contradiction hedgewire received (the lowest sequence
      number of a `lie` event, if its venue journal reaches it) killed the
      run as above, and none other did; each malformed packet the
      simulator sent before hedgewire logged out dropped the connection
      and is counted under its reason in the summary; the net position
      the venue filled per symbol (its Executed answers) never passed
      MAX_POSITION before a contradiction
Every rule is checked; each one broken is printed. Exit 1 if any.
"""

import collections
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from venue_check import records  # noqa: E402

# No Enter Order may reach the venue later than this after the lie was
# sent, by the simulator's clock (it stamps what it sends and receives):
# the client must have stopped sending by then.
LATE_S = 0.250

# A malformed packet the simulator sent this long before the client's
# Logout Request arrived was met by a client still up: it reads the
# socket every few microseconds while up. Closer to the Logout, the
# client may already have been stopping. (A margin for a loaded host's
# scheduling, not a property of hedgewire.)
LOGOUT_MARGIN_S = 2.0

TYPE_NAMES = {'E': 'Executed', 'A': 'Accepted', 'M': 'Modified',
              'U': 'Replaced', 'R': 'Restated'}
SANITIZER = re.compile(r'AddressSanitizer|LeakSanitizer|'
                       r'UndefinedBehaviorSanitizer|ThreadSanitizer|'
                       r'runtime error:')

errors = []


def bad(msg):
    errors.append(msg)


def status_ok(rc, want_kill):
    """The exit status: never a signal; 0 or 8 + bits; bit 32 iff a
    contradiction killed the run."""
    if rc >= 128 or rc < 0:
        bad('hedgewire ended by signal %d (exit status %d)' % (rc - 128, rc))
        return
    if rc != 0 and not 8 <= rc < 8 + 64:
        bad('exit status %d: neither 0 nor 8 + bits' % rc)
        return
    killed = rc >= 8 and (rc - 8) & 32
    if want_kill and not killed:
        bad('exit status %d: no bit 32 (venue contradicted)' % rc)
    elif not want_kill and killed:
        bad('exit status %d: bit 32, but no contradiction reached it' % rc)


def contradicted_lines(err):
    return [ln.rstrip('\n') for ln in open(err, encoding='utf-8',
                                            errors='replace')
            if 'venue contradicted:' in ln]


def sanitizer(err):
    for ln in open(err, encoding='utf-8', errors='replace'):
        if SANITIZER.search(ln):
            bad('stderr: sanitizer report: %s' % ln.strip()[:200])
            return


def names_lie(line, lie):
    """The line names the lie's type, sequence number, UserRefNum (new or
    original, for a Replaced) and its quantity."""
    nums = {int(x) for x in re.findall(r'\d+', line)}
    t = lie['msg']
    why = []
    if not (re.search(TYPE_NAMES[t], line, re.I) or
            re.search(r"['\"]%s['\"]|\btype %s\b" % (t, t), line)):
        why.append('type %s (%s)' % (t, TYPE_NAMES[t]))
    if lie['seq'] not in nums:
        why.append('sequence number %d' % lie['seq'])
    urns = {lie['urn'], lie.get('orig_urn', lie['urn'])}
    if not urns & nums:
        why.append('UserRefNum %s' % ' or '.join(map(str, sorted(urns))))
    if lie.get('qty') is not None and lie['qty'] not in nums:
        why.append('quantity %d' % lie['qty'])
    return why


def venue_open(r, book):
    """The venue's open quantity per UserRefNum after its answer r."""
    m, u = r.get('msg'), r.get('urn')
    if r.get('bad_length') or r.get('unknown_type') or u is None:
        return      # the client cannot decode it
    if m == 'A':
        book[u] = 0 if r.get('state') == 'D' else r['qty']
    elif m in ('E', 'C') and u in book:
        book[u] = max(0, book[u] - (r['qty'] if m == 'E'
                                    else r['decrement']))
    elif m == 'J':
        book[u] = 0
    elif m == 'M' and u in book:
        book[u] = r['qty']
    elif m == 'U':
        book[r['orig_urn']] = 0
        book[u] = 0 if r.get('state') == 'D' else r['qty']


def kill_rules(recs, lie, label):
    """After the lie: no Enter Order later than LATE_S; a Cancel Order for
    every order open at the venue just before the lie, but the one the lie
    is about when the lie closed it (an Executed of more than is open:
    the venue says it is filled); for that one, when the lie left it open
    (an Accepted or Modified of more than was entered), or for a Replaced,
    its old or new UserRefNum; for every order the client entered that is
    open at the first Cancel Order after it; and for every order entered
    after the lie that the venue still holds open at the end, a Cancel
    Order after its Enter Order. (A Cancel Order after the lie is not
    always the lie's: a kill's cancels may still be going when the lie is
    read, the kill switch cleared meanwhile, and orders entered between
    them; the lie's cancels take those too.)"""
    t_sent = next((r['t'] for r in recs if r.get('dir') == 'out' and
                   r.get('type') == 'S' and r.get('seq') == lie['seq']),
                  None)
    if t_sent is None:
        bad('%s: message %d never sent' % (label, lie['seq']))
        return
    target = {lie['urn'], lie.get('orig_urn', lie['urn'])}
    book, seen, entered = {}, set(), set()
    late, cancelled = [], set()
    uncancelled = set()     # entered after the lie, no Cancel Order since
    first_x = open_at_x = target_open = None
    for r in recs:
        d, t, m = r.get('dir'), r.get('type'), r.get('msg')
        if d == 'out' and t == 'S' and r['seq'] not in seen:
            seen.add(r['seq'])
            venue_open(r, book)
            if r['seq'] == lie['seq']:
                target_open = any(book.get(u, 0) > 0 for u in target)
        elif d == 'in' and t == 'U' and m == 'O' and not r.get('ignored'):
            entered.add(r['urn'])
            if r['t'] > t_sent + LATE_S:
                late.append((r['urn'], round(r['t'] - t_sent, 3)))
            if r['t'] > t_sent:
                uncancelled.add(r['urn'])
        elif d == 'in' and t == 'U' and m == 'X' and r['t'] >= t_sent:
            if first_x is None:
                first_x = r
                # (a Replaced's new UserRefNum is the venue's, not one
                # the client could know: the rule above covers it)
                open_at_x = {u for u, q in book.items()
                             if q > 0 and u in entered}
            cancelled.add(r['urn'])
            uncancelled.discard(r['urn'])
    if late:
        bad('%s: %d Enter Orders more than %d ms after message %d was '
            'sent (UserRefNum, s after: %s)' % (
                label, len(late), LATE_S * 1000, lie['seq'], late[:4]))
    others = set(lie['open']) - target
    missing = sorted(others - cancelled)
    if missing:
        bad('%s: %d of the %d other orders open at the venue at message %d '
            'not cancelled (UserRefNum %s)' % (label, len(missing),
                                               len(others), lie['seq'],
                                               missing[:5]))
    if target_open and not target & cancelled:
        bad('%s: the order it is about, open at the venue after it, not '
            'cancelled (UserRefNum %s)' % (
                label, ' or '.join(map(str, sorted(target)))))
    if first_x is not None:
        miss = sorted(open_at_x - cancelled - target)
        if miss:
            bad('%s: %d orders open at the first Cancel Order not '
                'cancelled (UserRefNum %s)' % (label, len(miss), miss[:5]))
    still = sorted(u for u in uncancelled if book.get(u, 0) > 0)
    if still:
        bad('%s: %d orders entered after it open at the venue at the end '
            'with no Cancel Order after their Enter Order (UserRefNum %s)'
            % (label, len(still), still[:5]))


def check_lie(simp, rc, err):
    recs = list(records(simp))
    lies = [r for r in recs if r.get('event') == 'lie']
    if len(lies) != 1:
        sys.exit('%d lie events in %s, want 1 (too few orders before the '
                 'feed ended?)' % (len(lies), simp))
    lie = lies[0]
    label = '%s (message %d, %s, UserRefNum %d)' % (
        lie['kind'], lie['seq'], TYPE_NAMES[lie['msg']], lie['urn'])
    if lie.get('why') is None:
        bad('%s: not a contradiction by the simulator\'s own book' % label)
    status_ok(rc, True)
    if rc != 8 + 32:
        # nothing else went wrong: the replicas agree, every order the
        # kill took back is handed back, the journal is whole
        bad('%s: exit status %d, not 40 (8 + 32 alone)' % (label, rc))
    sanitizer(err)
    lines = contradicted_lines(err)
    if not lines:
        bad("%s: no 'venue contradicted:' line on stderr" % label)
    elif len(lines) > 1:
        bad("%s: %d 'venue contradicted:' lines, want 1" % (label,
                                                           len(lines)))
    else:
        why = names_lie(lines[0], lie)
        if why:
            bad('%s: %r does not name its %s' % (label, lines[0],
                                                 ', '.join(why)))
    kill_rules(recs, lie, label)
    return label


# -------------------------------------------------------------- fuzz

# what the summary calls each malformed packet's drop
DROP_NAME = {'badlen': 'a message the application refused',
             'unknown-ouch': 'a message the application refused',
             'badpkt': 'malformed packet',
             'unknown-pkt': 'unknown packet type',
             'login-seq-accept': 'out-of-sequence login or data'}


def summary_drops(path):
    got = collections.Counter()
    for ln in open(path, encoding='utf-8', errors='replace'):
        mo = re.match(r'venue: connection dropped \((.*)\) (\d+)$',
                      ln.strip())
        if mo:
            got[mo.group(1)] += int(mo.group(2))
    return got


def journal_seqs(path):
    seqs = set()
    if os.path.exists(path):
        for ln in open(path, encoding='ascii', errors='replace'):
            if ln.startswith('#') or not ln.strip():
                continue
            seqs.add(int(ln.split()[0]))
    return seqs


def check_fuzz(simp, rc, err, summ, vjl, max_pos):
    recs = list(records(simp))
    lies = sorted((r for r in recs if r.get('event') == 'lie'),
                  key=lambda r: r['seq'])
    got = journal_seqs(vjl)
    top = max(got, default=0)
    first = lies[0] if lies else None
    lines = contradicted_lines(err)
    # received: in its venue journal (or named: a journal may lag)
    reached = first is not None and (first['seq'] <= top or any(
        str(first['seq']) in re.findall(r'\d+', ln) for ln in lines))
    status_ok(rc, reached)
    sanitizer(err)
    if reached:
        label = 'first contradiction %s (message %d, %s, UserRefNum %d: ' \
            '%s)' % (first['kind'], first['seq'], TYPE_NAMES[first['msg']],
                     first['urn'], first['why'])
        if len(lines) != 1:
            bad("%s: %d 'venue contradicted:' lines, want 1" % (label,
                                                               len(lines)))
        else:
            why = names_lie(lines[0], dict(first, qty=None))
            if why:
                bad('%s: %r does not name its %s' % (label, lines[0],
                                                     ', '.join(why)))
        kill_rules(recs, dict(first), label)
    elif lines:
        bad("'venue contradicted:' with no contradiction received (its "
            "journal ends at message %d): %s" % (top, lines[0]))
    # malformed packets: each drops the connection, counted by reason;
    # but one the client may have met after its Logout Request (it
    # stops, and heeds nothing more: LOGOUT_MARGIN_S), or after the first
    # contradiction, may or may not be counted
    t_end = next((r['t'] for r in recs if r.get('dir') == 'in' and
                  r.get('type') == 'O'), float('inf'))
    t_lie = next((r['t'] for r in recs if r.get('dir') == 'out' and
                  r.get('type') == 'S' and first is not None and
                  r.get('seq') == first['seq']), float('inf'))
    closes = {r['conn']: r.get('reason') for r in recs
              if r.get('event') == 'close'}
    want, maybe = collections.Counter(), collections.Counter()
    fuzz = [r for r in recs if r.get('event') == 'fuzz']
    for r in fuzz:
        k = r['kind']
        if k not in DROP_NAME or r['t'] >= t_end:
            continue
        if r['t'] < min(t_lie, t_end - LOGOUT_MARGIN_S):
            want[DROP_NAME[k]] += 1
            # (the client's close or reset: the simulator's own closes
            # have reasons of its own)
            if closes.get(r['conn']) not in ('client closed',
                                             'connection error', None):
                bad('fuzz %s on connection %d: the simulator closed it (%s),'
                    ' not the client' % (k, r['conn'], closes[r['conn']]))
        else:
            maybe[DROP_NAME[k]] += 1
    drops = summary_drops(summ)
    for name in set(want) | set(maybe):
        if not want[name] <= drops[name] <= want[name] + maybe[name]:
            bad('connection dropped (%s): %d in the summary, the simulator '
                'sent %d such packets (%d more after the first '
                'contradiction)' % (name, drops[name], want[name],
                                    maybe[name]))
    # the position the venue filled, per symbol, in sequence order
    orders = {r['urn']: (r['symbol'], r['side']) for r in recs
              if r.get('dir') == 'in' and r.get('type') == 'U'
              and r.get('msg') == 'O'}
    pos, seen, worst = collections.Counter(), set(), (0, None, None)
    for r in recs:
        if r.get('dir') != 'out' or r.get('type') != 'S' or \
                r.get('msg') != 'E' or r['seq'] in seen or \
                r.get('bad_length') or 'urn' not in r:
            continue
        seen.add(r['seq'])
        if first is not None and r['seq'] >= first['seq']:
            continue
        sym, side = orders.get(r['urn'], (None, None))
        if sym is None:
            bad('message %d: Executed for UserRefNum %d never entered, '
                'no lie journalled before it' % (r['seq'], r['urn']))
            continue
        pos[sym] += r['qty'] if side == 'B' else -r['qty']
        if abs(pos[sym]) > abs(worst[0]):
            worst = (pos[sym], sym, r['seq'])
        if abs(pos[sym]) > max_pos:
            bad('message %d: the venue filled %s to a position of %d, over '
                'max_position %d, before any contradiction' % (
                    r['seq'], sym, pos[sym], max_pos))
            break
    kinds = collections.Counter(r['kind'] for r in fuzz)
    return ('mutations %s; contradictions %d (first %s); hedgewire\'s '
            'journal to message %d; drops %s; largest position %d (%s)' % (
                dict(sorted(kinds.items())), len(lies),
                '%s at %d' % (first['kind'], first['seq']) if first
                else 'none', top, dict(drops), worst[0], worst[1]))


def main(argv):
    if len(argv) == 5 and argv[1] == 'lie':
        what = check_lie(argv[2], int(argv[3]), argv[4])
    elif len(argv) == 8 and argv[1] == 'fuzz':
        what = check_fuzz(argv[2], int(argv[3]), argv[4], argv[5], argv[6],
                          int(argv[7]))
    else:
        sys.exit(__doc__)
    for e in errors:
        print('FAIL: %s' % e)
    if errors:
        sys.exit(1)
    print('ok: %s' % what)


if __name__ == '__main__':
    main(sys.argv)
