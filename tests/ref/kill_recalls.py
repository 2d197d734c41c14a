#!/usr/bin/env python3
"""kill_recalls: did the kill switch's recalls keep positions honest?

usage: kill_recalls.py EVENTS.log ORDERS.pcap [ORDERS2.pcap ...]

Reads hedgewire's events log ([run] events_log, docs/design.md "Control
events") and the OUCH Enter Order frames that left (UserRefNum = the
trigger's sequence number mod 2^32). Without a venue session, a replica
counts an order in its position when it decides it, and every later
decision counts on it. An order the kill switch recalled (an `unsent`
event) is taken back out later; so two rules must hold for each one,
with K the last `kill 1` event logged before its `unsent`:

  1. no order whose trigger lies between the recalled trigger and K's
     position left: it was decided counting on the recalled one (and the
     recalled trigger itself lies before K's position and did not leave);
  2. no `kill 0` event lies between K and the `unsent`: a replica would
     decide with the switch off on a position that still holds an order
     that never left.

Prints `kills N, recalled M, orders that left: L` and exits 0, or prints
each breach and exits 1. Exits 2 on an unreadable file or a malformed
log. One feed session only (a log naming two is refused: UserRefNums
of two sessions cannot be told apart). Python 3.11 standard library only.
"""

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import positions  # noqa: E402  (Enter Order frames of a pcap)


def die(msg):
    sys.stderr.write('kill_recalls: %s\n' % msg)
    sys.exit(2)


def read_events(path):
    """(id, session hex, seq, type, args) of every event line."""
    out = []
    try:
        with open(path, encoding='latin-1') as f:
            for n, line in enumerate(f, 1):
                if not line[:1].isdigit():
                    continue            # header, comments, patch entries
                t = line.split()
                if len(t) < 4 or not t[2].isdigit():
                    die('%s:%d: malformed event line' % (path, n))
                out.append((int(t[0]), t[1], int(t[2]), t[3], t[4:], n))
    except OSError as e:
        die('%s: %s' % (path, e.strerror))
    return out


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) < 3:
        die('usage: kill_recalls.py EVENTS.log ORDERS.pcap [...]')
    events = read_events(argv[1])
    sent = []
    for p in argv[2:]:
        sent += [o[0] for o in positions.load(p)[0]]
    sessions = {e[1] for e in events if e[1] != '-'}
    sessions |= {e[4][0] for e in events if e[3] == 'unsent' and e[4]}
    if len(sessions) > 1:
        die('%s: %d feed sessions: one only' % (argv[1], len(sessions)))
    sent_set = set(sent)
    bad = []
    kill_on = None              # the last kill 1: (session, seq, line)
    off_since = False           # a kill 0 logged after it
    kills = recalled = 0
    for _eid, sess, seq, kind, args, line in events:
        if kind == 'kill' and args[:1] == ['1']:
            kills += 1
            kill_on, off_since = (sess, seq, line), False
        elif kind == 'kill':
            off_since = True
        elif kind == 'unsent':
            recalled += 1
            if len(args) != 2 or not args[1].isdigit():
                die('%s:%d: malformed unsent event' % (argv[1], line))
            q = int(args[1])
            if kill_on is None:
                bad.append('line %d: unsent %d with no kill before it' % (line, q))
                continue
            if off_since:
                bad.append('line %d: unsent %d logged after the kill switch went '
                           'off (kill at line %d)' % (line, q, kill_on[2]))
            if q & 0xFFFFFFFF in sent_set:
                bad.append('line %d: trigger %d recalled, yet its order left' % (line, q))
            if kill_on[0] == '-':
                # a kill before the first message: nothing was decided
                bad.append('line %d: unsent %d after a kill before the first '
                           'message' % (line, q))
                continue
            if q >= kill_on[1]:
                bad.append('line %d: trigger %d recalled, but decided at or after '
                           'the kill (seq %d)' % (line, q, kill_on[1]))
            lo, hi = q & 0xFFFFFFFF, kill_on[1] & 0xFFFFFFFF
            late = sorted(u for u in sent if lo < u < hi)
            if late:
                bad.append('line %d: trigger %d recalled, yet %d later orders '
                           'decided before the kill (seq %d) left: %s' % (
                               line, q, len(late), kill_on[1],
                               ' '.join(map(str, late[:8]))))
    print('kills %d, recalled %d, orders that left: %d' % (kills, recalled, len(sent)))
    for b in bad:
        print('BREACH ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
