#!/usr/bin/env python3
"""tel_flood: a long stream of control commands through one telemetry
connection, as a table updater and a risk system hammering hedgewire for
a whole trading day would, and hedgewire's resident memory before and
after it.

usage: tel_flood.py FILE_PREFIX --pid PID --patch FILE [--patch FILE ...]
                    --patches N --toggles M [--window W] [--wait S]

Sends N /hgw/table/patch commands (the FILEs in turn) and M
/hgw/risk/kill toggles (1, 0, 1, ... so an even M ends with the switch
off), interleaved evenly, keeping up to W commands in flight on the one
connection (replies come back in order), so the stream is limited by
hedgewire, not by a round trip per command. Every command must get an
event back. A patch refused because too many are still waiting for a
worker ("patch store full", "event record full": the workers are behind,
e.g. descheduled on a loaded host) is sent again 1 ms later, and counted;
any other answer is an error.

Reads VmRSS of PID from /proc/PID/status just before the first command
and just after the last reply. Prints

  rss_kb START END
  tel_flood: N patches, M toggles in T s (R commands/s); K patches sent again

and exits 0, or prints the first bad answers and exits 1. Python 3
standard library only.
"""

import argparse
import collections
import json
import os
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tel_driver import connect  # noqa: E402  (the one telemetry connect)


def rss_kb(pid):
    with open('/proc/%d/status' % pid, encoding='ascii') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    raise SystemExit('tel_flood: no VmRSS for pid %d' % pid)


def commands(patches, npatch, ntoggle):
    """The stream: npatch patches and ntoggle toggles, evenly mixed."""
    total = npatch + ntoggle
    p = t = 0
    for j in range(total):
        # a patch whenever the patches' share of j + 1 commands grows
        if (j + 1) * npatch // total > p:
            yield '/hgw/table/patch,' + patches[p % len(patches)]
            p += 1
        else:
            yield '/hgw/risk/kill,' + ('1' if t % 2 == 0 else '0')
            t += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('prefix')
    ap.add_argument('--pid', type=int, required=True)
    ap.add_argument('--patch', action='append', required=True)
    ap.add_argument('--patches', type=int, required=True)
    ap.add_argument('--toggles', type=int, required=True)
    ap.add_argument('--window', type=int, default=32)
    ap.add_argument('--wait', type=float, default=30.0)
    a = ap.parse_args()
    path = os.path.join('/var/run/dpdk', a.prefix, 'dpdk_telemetry.v2')
    s = connect(path, a.wait)
    if s is None:
        print('tel_flood: no telemetry socket %s' % path)
        return 1
    stream = commands(a.patch, a.patches, a.toggles)
    again = collections.deque()     # refused patches, with when to resend
    flight = collections.deque()
    sent_again = bad = 0
    done = {'patch': 0, 'kill': 0}
    rss0 = rss_kb(a.pid)
    t0 = time.monotonic()
    while True:
        while len(flight) < a.window:
            now = time.monotonic()
            if again and again[0][0] <= now:
                cmd = again.popleft()[1]
                sent_again += 1
            else:
                cmd = next(stream, None)
                if cmd is None:
                    break
            try:
                s.send(cmd.encode())
            except OSError as e:
                print('tel_flood: hedgewire went away: %s' % e)
                return 1
            flight.append(cmd)
        if not flight:
            if not again:
                break
            time.sleep(max(0.0, again[0][0] - time.monotonic()))
            continue
        cmd = flight.popleft()
        try:
            reply = s.recv(16384)
        except OSError:
            reply = b''
        if not reply:
            print('tel_flood: hedgewire went away after %d patches, %d '
                  'toggles (at %s)' % (done['patch'], done['kill'], cmd))
            return 1
        body = next(iter(json.loads(reply).values()), None)
        if isinstance(body, dict) and 'event' in body:
            done['patch' if '/patch,' in cmd else 'kill'] += 1
            continue
        err = body.get('error', '') if isinstance(body, dict) else ''
        if '/patch,' in cmd and ('patch store full' in err or
                                 'event record full' in err):
            again.append((time.monotonic() + 0.001, cmd))
            continue
        bad += 1
        if bad <= 5:
            print('tel_flood: %s: %s' % (cmd, reply.decode()))
    t = time.monotonic() - t0
    rss1 = rss_kb(a.pid)
    print('rss_kb %d %d' % (rss0, rss1))
    n = done['patch'] + done['kill']
    print('tel_flood: %d patches, %d toggles in %.1f s (%.0f commands/s); '
          '%d patches sent again' % (done['patch'], done['kill'], t,
                                     n / t if t > 0 else 0, sent_again))
    return 0 if bad == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
