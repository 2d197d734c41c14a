#!/usr/bin/env python3
"""Captures sessions between the venue simulator and the client of
test_venue_sim.py on the loopback (dumpcap), then has soupbin_tshark.py
check them against the simulator's journal with tshark's SoupBinTCP
dissector; then damages copies of the journal to see each kind of
difference caught.

usage: python3 tests/integration/test_venue_tshark.py [--keep]

Needs dumpcap (with the right to capture on lo) and tshark.  Prints one line
per check and "N passed, N failed"; exits 1 if any failed.
"""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_venue_sim as tv     # noqa: E402  (the client and Sim helpers)

CMP = os.path.join(HERE, 'soupbin_tshark.py')


async def session(s):
    """Two connections: orders, a reject, cancels, a mass cancel, debug,
    heartbeats both ways, a logout; then a replay and an abrupt close."""
    c = await s.logged_in(seq=1)
    c.send(b'U', tv.enter_order(1, qty=100))
    c.send(b'U', tv.enter_order(2, qty=11, tif=b'3', symbol=b'MSFT'))
    c.send(b'U', tv.enter_order(3, qty=0))
    c.send(b'+', b'debug')
    await c.msgs(6)
    c.send(b'U', tv.cancel_order(1, 20))
    c.send(b'U', tv.cancel_order(7, 0))
    c.send(b'U', tv.enter_order(4, qty=60))
    c.send(b'U', tv.mass_cancel(5, appendage=b'\x02\x1bB'))
    await c.msgs(7)
    for _ in range(3):
        c.send(b'R')
        await asyncio.sleep(0.12)
    c.send(b'O')
    await c.eof(1)
    c = await s.client()
    await c.login(seq=2)
    await c.msgs(12)
    c.send(b'U', tv.enter_order(6, qty=10))
    await c.msgs(2)
    await asyncio.sleep(0.15)
    c.close()
    await asyncio.sleep(0.1)
    return c


def run_cmp(cap, port, journal):
    p = subprocess.run([sys.executable, CMP, cap, str(port), journal],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode().strip()


def damaged(src, dst, how):
    lines = open(src).read().splitlines()
    recs = [json.loads(x) for x in lines]
    pk = [i for i, r in enumerate(recs) if r.get('dir') in ('in', 'out')]
    s_out = [i for i in pk if recs[i]['type'] == 'S']
    if how == 'payload':
        r = recs[s_out[2]]
        h = r['hex']
        r['hex'] = h[:-2] + ('00' if h[-2:] != '00' else '01')
    elif how == 'seq':
        recs[s_out[3]]['seq'] += 1
    elif how == 'missing':
        del recs[s_out[1]]
    elif how == 'last':
        del recs[pk[-1]]
    elif how == 'type':
        hb = [i for i in pk if recs[i]['type'] == 'R']
        recs[hb[0]]['type'] = 'H'
    elif how == 'session':
        a = [i for i in pk if recs[i]['type'] == 'A'][0]
        h = bytes.fromhex(recs[a]['hex'])
        recs[a]['hex'] = (b'SESS02    ' + h[10:]).hex()
    with open(dst, 'w') as f:
        for r in recs:
            f.write(json.dumps(r) + '\n')


async def main_async(tmp):
    s = await tv.Sim(tmp, 'tshark', '--heartbeat-ms', '100').start()
    cap = os.path.join(tmp, 'session.pcapng')
    dc = subprocess.Popen(['dumpcap', '-q', '-i', 'lo', '-f',
                           'tcp port %d' % s.port, '-w', cap],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # dumpcap says "Capturing on ..." once it is capturing
    line = b''
    end = time.monotonic() + 10
    os.set_blocking(dc.stderr.fileno(), False)
    while b'Capturing on' not in line and time.monotonic() < end \
            and dc.poll() is None:
        await asyncio.sleep(0.05)
        line += dc.stderr.read() or b''
    tv.check('dumpcap capturing', b'Capturing on' in line, line)
    await asyncio.sleep(0.2)
    try:
        await session(s)
    finally:
        await asyncio.sleep(0.3)
        dc.send_signal(signal.SIGINT)
        dc.wait(10)
        rc, out, err = await s.stop()
    tv.check('simulator stopped cleanly', rc == 0, (rc, err))
    rc, out = run_cmp(cap, s.port, s.jpath)
    tv.check('tshark agrees with the journal: %s' % out, rc == 0, out)
    for how in ('payload', 'seq', 'missing', 'last', 'type', 'session'):
        dst = os.path.join(tmp, 'journal-%s.jsonl' % how)
        damaged(s.jpath, dst, how)
        rc, out = run_cmp(cap, s.port, dst)
        tv.check('journal with a damaged %s caught: %s' % (how, out),
                 rc == 1, out)
    rc, out = run_cmp(cap, s.port + 1 if s.port < 65535 else 1, s.jpath)
    tv.check('wrong port: no packets -> 1', rc == 1, out)
    empty = os.path.join(tmp, 'empty.jsonl')
    open(empty, 'w').close()
    rc, out = run_cmp(cap, s.port + 1 if s.port < 65535 else 1, empty)
    tv.check('nothing on either side -> 1', rc == 1, out)


def main():
    keep = '--keep' in sys.argv
    tmp = tempfile.mkdtemp(prefix='venue-tshark-')
    try:
        asyncio.run(main_async(tmp))
    except Exception as e:
        tv.check('capture scenario runs', False, repr(e))
    finally:
        for s in tv.SIMS:
            if s.p is not None and s.p.returncode is None:
                s.p.kill()
        if keep:
            print('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed' % (tv.passed, tv.failed))
    return 1 if tv.failed else 0


if __name__ == '__main__':
    sys.exit(main())
