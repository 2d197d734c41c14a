#!/usr/bin/env python3
"""tel_abuse: the telemetry socket abused while an operator stops trading.

usage: tel_abuse.py FILE_PREFIX [--clients N] [--flooders F]
                    [--op telemetry|opsock|both] [--flood-opsock]
                    [--events-log FILE] [--op-wait S] [--wait S]

Against a running hedgewire (FILE_PREFIX's runtime directory,
/var/run/dpdk/FILE_PREFIX):

1. opens N connections (default 1000) to the telemetry socket
   (dpdk_telemetry.v2) one after the other, and holds every one that got
   the library's greeting; the library closes the ones past its own limit
   at once (no greeting): they are counted as refused;
2. floods commands on F of the held ones (default: all), each with up to
   16 in flight: unknown commands, names and arguments longer than the
   library reads (1 KiB, 64 KiB), /hgw/risk/kill with garbage arguments,
   patches of files that do not exist, and reads (/hgw/events, /help,
   /); the others hold their connection and say nothing.
   A last thread connects and disconnects without end, as the refused
   clients retrying would. With --flood-opsock one more thread sends
   garbage datagrams to the operator socket as fast as it takes them;
3. once every flooder has had an answer (the flood is on), the operator,
   a process of its own (so that these threads do not slow its clock
   readings), sets the kill switch:
   - opsock: sends /hgw/risk/kill,1 as one datagram to the operator
     socket (hgw_operator) and times the answer (an event); then reads
     the switch back there 50 times (each timed: min, median, max); with
     --events-log, times the kill event's line appearing in that file
     (polled every 0.2 ms: its resolution);
   - then telemetry: tries to connect for --op-wait seconds (default 3);
     if it gets in, sends /hgw/risk/kill,1 and times the answer;
4. stops the abuse (every connection closed), then times an ordinary
   command (/hgw/risk/kill, read) on a new telemetry connection.

Prints one line per figure ("clients", "flood", "operator-telemetry",
"operator-opsock", "kill-read", "events-log", "telemetry-after") with the
milliseconds measured from the request being sent; a last "tel_abuse:
..." line sums up. Exits 0 when the operator's kill (through every path
asked for with --op) was answered with an event and reads back on,
(with --events-log) its line is in the file, and the telemetry socket
answered after the abuse; else 1, saying what failed. Being locked out
of telemetry is a finding, not a failure: it is printed. The library
puts an unknown command's name into its answer as it came, so the
answers to names holding quotes or bytes are not JSON: counted apart.
Python 3 standard library only.
"""

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time

OPSOCK = 'hgw_operator'
TELSOCK = 'dpdk_telemetry.v2'

# The flood: one reply per command (SOCK_SEQPACKET: the library reads the
# first 1 KiB of a record and drops the rest). No command in it sets the
# kill switch, so the operator's kill is the only one.
FLOOD = [
    b'/hgw/nope',
    b'/' + b'z' * 54,                      # the longest name it looks up
    b'/' + b'z' * 200,                     # longer than any name
    b'no slash at all',
    b',,,,',                               # no command at all
    b'/hgw/risk/kill,2',
    b'/hgw/risk/kill,1x',
    b'/hgw/risk/kill,-1',
    b'/hgw/risk/kill, 1',
    b'/hgw/risk/kill,' + b'1' * 3000,      # past the 1 KiB buffer
    b'/hgw/risk/kill,x' + b'\xff' * 5000,
    b'/hgw/table/patch,' + b'A' * 65536,   # 64 KiB in one record
    b'/hgw/table/patch,/nonexistent/patch.txt',
    b'/hgw/table/entry,999999,0,0',
    b'/hgw/risk/limit,max_quantity,abc',
    b'/hgw/risk/disable,' + b'Q' * 900 + b',1',
    bytes(range(1, 256)) * 4,
    b'/hgw/events',
    b'/hgw/risk/kill',
    b'/help,/hgw/risk/kill',
    b'/',
]
WINDOW = 16
# The operator's reads of the switch after its kill (each timed).
SAMPLES = 50


def ms(t):
    return '%.3f' % (t * 1000.0)


def tel_connect(path, timeout):
    """A telemetry connection with its greeting, or None (refused)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(path)
        if s.recv(16384):
            return s
    except OSError:
        pass
    s.close()
    return None


class Flooder(threading.Thread):
    def __init__(self, s, stop):
        super().__init__(daemon=True)
        self.s, self.stop = s, stop
        self.sent = self.answered = self.bad = 0
        self.first = threading.Event()
        self.error = None

    def run(self):
        s = self.s
        s.settimeout(30)
        flight = 0
        i = 0
        try:
            while not self.stop.is_set() or flight:
                while flight < WINDOW and not self.stop.is_set():
                    s.send(FLOOD[i % len(FLOOD)])
                    i += 1
                    flight += 1
                    self.sent += 1
                r = s.recv(65536)
                if not r:
                    self.error = 'connection closed by hedgewire'
                    return
                flight -= 1
                try:
                    json.loads(r)
                    self.answered += 1
                except ValueError:
                    self.bad += 1
                self.first.set()
        except OSError as e:
            self.error = str(e)
        finally:
            self.first.set()


class Churn(threading.Thread):
    """The refused clients retrying: connect, close, again."""

    def __init__(self, path, stop):
        super().__init__(daemon=True)
        self.path, self.stop = path, stop
        self.tries = self.got_in = 0

    def run(self):
        while not self.stop.is_set():
            s = tel_connect(self.path, 1.0)
            self.tries += 1
            if s is not None:
                self.got_in += 1
                s.close()


class OpFlood(threading.Thread):
    """Garbage datagrams to the operator socket, as fast as it takes them."""

    def __init__(self, path, stop):
        super().__init__(daemon=True)
        self.path, self.stop = path, stop
        self.sent = self.full = 0

    def run(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind('')      # answers come back here (and are never read)
        s.setblocking(False)
        junk = [b'/hgw/nope', b'/hgw/risk/kill,2', b'x' * 60000,
                b'/hgw/risk/kill,' + b'1' * 4000]
        i = 0
        while not self.stop.is_set():
            try:
                s.sendto(junk[i % len(junk)], self.path)
                self.sent += 1
                i += 1
            except BlockingIOError:
                self.full += 1
                time.sleep(0)
            except OSError:
                time.sleep(0.001)
        s.close()


class LogWatch(threading.Thread):
    """When each line past its start first appeared in the events log."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.start_at = os.path.getsize(path) if os.path.exists(path) else 0
        self.lines = {}         # event id -> (time first seen, line)
        self.stop = threading.Event()

    def run(self):
        tail = b''
        try:
            f = open(self.path, 'rb')
        except OSError:
            return
        with f:
            f.seek(self.start_at)
            while not self.stop.is_set():
                got = f.read()
                now = time.monotonic()
                if not got:
                    time.sleep(0.0002)
                    continue
                tail += got
                *whole, tail = tail.split(b'\n')
                for line in whole:
                    w = line.split()
                    if w and w[0].isdigit():
                        self.lines.setdefault(
                            int(w[0]),
                            (now, line.decode('ascii', 'replace')))


def op_datagram(path, cmd, timeout):
    """Send cmd to the operator socket; (reply, seconds) or (None, s)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind('')
    s.settimeout(timeout)
    t0 = time.monotonic()
    try:
        s.sendto(cmd, path)
        r = s.recv(65536)
        return r.decode(), time.monotonic() - t0, t0
    except OSError as e:
        return 'error: %s' % e, time.monotonic() - t0, t0
    finally:
        s.close()


def operator(a, tel, ops):
    """The operator's kill, timed from the request: prints the figures,
    and 'operator: FAIL: ...' lines; 0 or 1."""
    fails = []
    watch = None
    if a.events_log:
        watch = LogWatch(a.events_log)
        watch.start()
    if a.operator in ('opsock', 'both'):
        r, dt, sent_at = op_datagram(ops, b'/hgw/risk/kill,1', a.wait)
        print('operator-opsock %s ms %s' % (ms(dt), r))
        try:
            ev = json.loads(r)['/hgw/risk/kill']['event']
        except (ValueError, KeyError, TypeError):
            ev = None
            fails.append('the operator socket answered %s' % r)
        # the switch read back there, SAMPLES times (under the same
        # abuse): each answer's time
        samples = []
        for _ in range(SAMPLES if ev is not None else 0):
            r2, dt2, _ = op_datagram(ops, b'/hgw/risk/kill', a.wait)
            samples.append(dt2)
            if '"kill":1' not in r2.replace(' ', ''):
                fails.append('the kill switch reads %s' % r2)
                break
        samples.sort()
        if samples:
            print('kill-read %d reads: min %s p50 %s max %s ms; last %s'
                  % (len(samples), ms(samples[0]),
                     ms(samples[len(samples) // 2]), ms(samples[-1]), r2))
        if watch is not None and ev is not None:
            end = time.monotonic() + a.wait
            while ev not in watch.lines and time.monotonic() < end:
                time.sleep(0.001)
            if ev not in watch.lines:
                fails.append('no line for event %d in %s'
                             % (ev, a.events_log))
            else:
                t, line = watch.lines[ev]
                print('events-log %s ms %s' % (ms(t - sent_at), line))
                if ' kill 1' not in line:
                    fails.append('event %d in the events log: %s'
                                 % (ev, line))
    if a.operator in ('telemetry', 'both'):
        t0 = time.monotonic()
        tries = 0
        s = None
        while time.monotonic() - t0 < a.op_wait:
            tries += 1
            s = tel_connect(tel, a.op_wait)
            if s is not None:
                break
        if s is None:
            print('operator-telemetry locked-out %d connection attempts in '
                  '%s ms, none got in' % (tries, ms(time.monotonic() - t0)))
        else:
            try:
                s.send(b'/hgw/risk/kill,1')
                r = s.recv(16384).decode()
            except OSError as e:
                r = 'error: %s' % e
            dt = time.monotonic() - t0
            s.close()
            print('operator-telemetry %s ms (%d attempts) %s'
                  % (ms(dt), tries, r))
    if watch is not None:
        watch.stop.set()
    for f in fails:
        print('operator: FAIL: %s' % f)
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('prefix')
    ap.add_argument('--clients', type=int, default=1000)
    ap.add_argument('--flooders', type=int, default=1000)
    ap.add_argument('--op', choices=('telemetry', 'opsock', 'both'),
                    default='both')
    ap.add_argument('--flood-opsock', action='store_true')
    ap.add_argument('--events-log')
    ap.add_argument('--op-wait', type=float, default=3.0)
    ap.add_argument('--wait', type=float, default=30.0)
    ap.add_argument('--operator', choices=('telemetry', 'opsock', 'both'),
                    help=argparse.SUPPRESS)     # the operator's process
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < a.clients + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (min(hard, a.clients + 64), hard))
    rundir = os.path.join('/var/run/dpdk', a.prefix)
    tel, ops = os.path.join(rundir, TELSOCK), os.path.join(rundir, OPSOCK)
    if a.operator:
        return operator(a, tel, ops)
    fails = []

    # hedgewire is up and its commands are registered
    end = time.monotonic() + a.wait
    while True:
        s = tel_connect(tel, 1.0)
        if s is not None:
            try:
                s.send(b'/hgw/risk/kill')
                if b'"kill"' in s.recv(16384):
                    s.close()
                    break
            except OSError:
                pass
            s.close()
        if time.monotonic() > end:
            print('tel_abuse: hedgewire did not answer /hgw/risk/kill on %s '
                  'within %g s' % (tel, a.wait))
            return 1
        time.sleep(0.02)
    # ... and its operator socket is there (made just after)
    while a.op != 'telemetry' and not os.path.exists(ops):
        if time.monotonic() > end:
            print('tel_abuse: no operator socket %s within %g s'
                  % (ops, a.wait))
            return 1
        time.sleep(0.02)

    # 1. N clients at once
    held, refused = [], 0
    t0 = time.monotonic()
    for _ in range(a.clients):
        s = tel_connect(tel, 2.0)
        if s is None:
            refused += 1
        else:
            held.append(s)
    print('clients %d held %d refused %d (%s ms to open them)'
          % (a.clients, len(held), refused, ms(time.monotonic() - t0)))

    # 2. the flood
    stop = threading.Event()
    flooders = [Flooder(s, stop) for s in held[:a.flooders]]
    for f in flooders:
        f.start()
    churn = Churn(tel, stop)
    churn.start()
    opflood = None
    if a.flood_opsock:
        opflood = OpFlood(ops, stop)
        opflood.start()
    for f in flooders:
        f.first.wait(a.wait)

    # 3. the operator, a process of its own (not slowed by these threads)
    cmd = [sys.executable, os.path.abspath(__file__), a.prefix,
           '--operator', a.op, '--op-wait', str(a.op_wait),
           '--wait', str(a.wait)]
    if a.events_log:
        cmd += ['--events-log', a.events_log]
    child = subprocess.run(cmd, stdout=subprocess.PIPE, text=True,
                           check=False)
    sys.stdout.write(child.stdout)
    tel_ok = None
    for line in child.stdout.splitlines():
        if line.startswith('operator-telemetry '):
            tel_ok = 'locked-out' not in line and '"event"' in line
        elif line.startswith('operator: FAIL: '):
            fails.append(line[len('operator: FAIL: '):])
    if child.returncode not in (0, 1):
        fails.append('the operator process ended with status %d'
                     % child.returncode)

    # 4. the abuse stops; telemetry answers again
    stop.set()
    for f in flooders:
        f.join(a.wait)
    churn.join(a.wait)
    if opflood is not None:
        opflood.join(a.wait)
    for s in held:
        s.close()
    sent = sum(f.sent for f in flooders)
    answered = sum(f.answered for f in flooders)
    bad = sum(f.bad for f in flooders)
    errors = [f.error for f in flooders if f.error]
    print('flood %d commands sent, %d answered (%d not JSON) on %d '
          'connections; churn %d connects, %d got in%s'
          % (sent, answered, bad, len(flooders), churn.tries, churn.got_in,
             '; opsock flood %d datagrams (%d times its queue was full)'
             % (opflood.sent, opflood.full) if opflood else ''))
    if errors:
        fails.append('flood connections: %s' % '; '.join(errors[:3]))
    t0 = time.monotonic()
    after = None
    while time.monotonic() - t0 < a.wait:
        s = tel_connect(tel, a.wait)
        if s is None:
            continue	# a held connection's thread not gone yet
        try:
            s.send(b'/hgw/risk/kill')
            after = s.recv(16384).decode()
        except OSError as e:
            after = 'error: %s' % e
        s.close()
        break
    print('telemetry-after %s ms %s' % (ms(time.monotonic() - t0), after))
    if after is None or '"kill"' not in after:
        fails.append('telemetry did not answer after the abuse: %s' % after)
    if tel_ok is False:
        print('tel_abuse: telemetry locked the operator out')
    if fails:
        for f in fails:
            print('tel_abuse: FAIL: %s' % f)
        return 1
    print('tel_abuse: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
