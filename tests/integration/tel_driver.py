#!/usr/bin/env python3
"""tel_driver: sends telemetry commands to a running hedgewire at random
instants, as an operator (or a risk system) would.

usage: tel_driver.py FILE_PREFIX --cmd CMD [--cmd CMD ...] [--seed N]
                     [--gap-ms LO,HI] [--duration S] [--wait S] [--ready FILE]
                     [--after FILE:TEXT]
       tel_driver.py FILE_PREFIX --stdin [--wait S] [--ready FILE]

Waits (up to --wait seconds) for the DPDK telemetry socket of FILE_PREFIX,
then sends the commands in turn, cycling, with a random gap drawn
uniformly in [LO, HI] ms before each, until --duration seconds have passed
or hedgewire has gone. Prints one line per command: the command and the
JSON reply. Exits 1 if no command got an event back, or a reply was an
error other than "not running" (the run ended between two commands).

--after FILE:TEXT holds the commands (and the duration's start) until
FILE holds TEXT, at most --wait seconds: "once orders reach the venue"
rather than a guess of how long a loaded host takes to get there. FILE
ends at the first colon (so cannot hold one); not with --stdin.

--ready FILE is created once the interpreter is up, before it looks for
the socket: a test starts hedgewire after it, so that a slow interpreter
start on a loaded host never eats into the run. --stdin sends each line
of standard input as a command and prints each reply on one line, in the
layout dpdk-telemetry.py prints (one connection for a whole test, rather
than an interpreter per command).
"""

import argparse
import json
import os
import random
import socket
import sys
import time


def connect(path, wait):
    end = time.monotonic() + wait
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            s.recv(16384)  # the greeting
            return s
        except OSError:
            if time.monotonic() > end:
                return None
            time.sleep(0.02)


def interactive(s):
    for line in sys.stdin:
        s.send(line.strip().encode())
        print(json.dumps(json.loads(s.recv(65536))), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('prefix')
    ap.add_argument('--cmd', action='append')
    ap.add_argument('--stdin', action='store_true')
    ap.add_argument('--ready')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--gap-ms', default='2,20')
    ap.add_argument('--duration', type=float, default=5.0)
    ap.add_argument("--wait", type=float, default=30.0)  # a loaded host starts slowly
    ap.add_argument('--after')
    a = ap.parse_args()
    if not a.cmd and not a.stdin:
        ap.error('--cmd or --stdin')
    if a.after is not None and (a.stdin or ':' not in a.after):
        ap.error('--after FILE:TEXT, with --cmd')
    if a.ready:
        open(a.ready, 'w').close()
    lo, hi = (float(x) for x in a.gap_ms.split(','))
    rng = random.Random(a.seed)
    path = os.path.join('/var/run/dpdk', a.prefix, 'dpdk_telemetry.v2')
    s = connect(path, a.wait)
    if s is None:
        print(f'tel_driver: no telemetry socket {path}')
        return 1
    # the socket opens before hedgewire has registered its commands
    ready_by = time.monotonic() + a.wait
    while True:
        try:
            s.send(b'/hgw/events')
            body = next(iter(json.loads(s.recv(16384)).values()), None)
        except OSError:
            print('tel_driver: hedgewire went away before it was ready')
            return 1
        if body is not None:
            break
        if time.monotonic() > ready_by:
            print('tel_driver: /hgw/events never answered')
            return 1
        time.sleep(0.01)
    if a.stdin:
        return interactive(s)
    if a.after:
        fn, text = a.after.split(':', 1)
        after_by = time.monotonic() + a.wait
        while True:
            try:
                with open(fn, encoding='latin-1') as f:
                    if text in f.read():
                        break
            except OSError:
                pass
            if time.monotonic() > after_by:
                print(f'tel_driver: no {text!r} in {fn} within {a.wait:g} s')
                return 1
            time.sleep(0.05)
    events = errors = 0
    end = time.monotonic() + a.duration
    i = 0
    while time.monotonic() < end:
        time.sleep(rng.uniform(lo, hi) / 1000.0)
        cmd = a.cmd[i % len(a.cmd)]
        i += 1
        try:
            s.send(cmd.encode())
            reply = s.recv(16384)
        except OSError:
            break  # hedgewire has gone
        if not reply:
            break
        print(cmd, reply.decode())
        body = next(iter(json.loads(reply).values()), None)
        if body is None:
            break  # the commands are gone: hedgewire is shutting down
        if isinstance(body, dict) and 'event' in body:
            events += 1
        elif isinstance(body, dict) and body.get('error') == 'not running':
            break
        else:
            errors += 1
    print(f'tel_driver: {events} events, {errors} errors')
    return 0 if events > 0 and errors == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
