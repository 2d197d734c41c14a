#!/usr/bin/env python3
"""Self-test of hgw_ref.py --events and positions.py.

usage: python3 tests/ref/test_events.py [--synthetic] [--keep]

Builds a feed and a table in a temporary directory with hgw-feedgen and
hgw-tablegen (found through $HGW_BUILD, else BUILD/app/... under the
repository, else on PATH); without them, or with --synthetic, writes a
small feed and table itself.  Every check compares a run with events
against the run without (baseline), with risk limits loose enough that
only the events change decisions (the unsent checks also use a tight
max_position).  Prints one line per check and
"N passed, N failed"; exits 1 if any failed.
"""

import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cmp_orders  # noqa: E402
import hgw_ref     # noqa: E402

REF = os.path.join(HERE, 'hgw_ref.py')
POS = os.path.join(HERE, 'positions.py')
LOOSE = ('[risk]\nmax_orders_total = 4096\nmax_orders_instrument = 1000\n'
         'max_position = 1000000000\n')

# ---------------------------------------------------------------- inputs


def find_tool(name):
    cands = []
    if os.environ.get('HGW_BUILD'):
        cands.append(os.path.join(os.environ['HGW_BUILD'], 'app', name, name))
    cands.append(os.path.join(REPO, 'build', 'app', name, name))
    for c in cands:
        if os.access(c, os.X_OK):
            return c
    return shutil.which(name)


def mold_frame(sess, seq, msgs, count=None):
    """A MoldUDP64 frame: IPv4 header checksum set, UDP checksum 0 (not
    sent); count 0 / 0xFFFF with no msgs: heartbeat / end of session."""
    body = struct.pack('>10sQH', sess, seq, len(msgs) if count is None else count) + \
        b''.join(struct.pack('>H', len(m)) + m for m in msgs)
    udp = struct.pack('>HHHH', 40000, 26477, 8 + len(body), 0) + body
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                               bytes((10, 1, 1, 1)), bytes((233, 54, 12, 111))))
    struct.pack_into('>H', ip, 10, hgw_ref.inet_checksum(ip))
    return b'\x01\x00\x5e\x36\x0c\x6f' + b'\x02\x00\x00\x00\x00\x09' + b'\x08\x00' + \
        bytes(ip) + udp


def synth_feed(path, sess, seed, nmsg, ref_base=1, ninst=30):
    """ITCH adds/executes/cancels/deletes around a per-instrument mid,
    four messages a MoldUDP64 packet, one session ending with an end of
    session; bids stay below the
    mid and asks above.  Names and mids do not depend on seed, so a second session (other seed and ref_base) trades
    on the same books."""
    rnd = random.Random(1000)
    t = 34200 * 10**9

    def ts():
        nonlocal t
        t += rnd.randint(1000, 20000)
        return struct.pack('>HI', t >> 32, t & 0xFFFFFFFF)

    msgs = []
    for loc in range(1, ninst + 1):
        name = ''.join(rnd.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZ') for _ in range(4))
        msgs.append(b'R' + struct.pack('>HH', loc, 0) + ts() + name.ljust(8).encode()
                    + b'Q' + b' ' * 19)   # 39 bytes: fields after the name left blank
    mid = {loc: rnd.randint(100, 5000) * 100 for loc in range(1, ninst + 1)}
    rnd = random.Random(seed)
    live = {}
    ref = ref_base
    while len(msgs) < nmsg:
        loc = rnd.randint(1, ninst)
        r = rnd.random()
        mine = [k for k, v in live.items() if v[0] == loc]
        if r < 0.5 or not mine:
            side = rnd.choice('BS')
            off = rnd.randint(1, 6) * 100
            price = mid[loc] - off if side == 'B' else mid[loc] + off
            sh = rnd.randint(1, 5) * 100
            msgs.append(b'A' + struct.pack('>HH', loc, 0) + ts() +
                        struct.pack('>Qc', ref, side.encode()) + struct.pack('>I', sh) +
                        b'TEST    ' + struct.pack('>I', price))
            live[ref] = [loc, sh]
            ref += 1
        else:
            k = rnd.choice(mine)
            if r < 0.75:
                msgs.append(b'D' + struct.pack('>HH', loc, 0) + ts() + struct.pack('>Q', k))
                del live[k]
            else:
                n = min(live[k][1], 100)
                msgs.append(b'E' + struct.pack('>HH', loc, 0) + ts() +
                            struct.pack('>QIQ', k, n, rnd.randint(1, 10**9)))
                live[k][1] -= n
                if live[k][1] == 0:
                    del live[k]
    for m in msgs:
        assert len(m) == hgw_ref.ITCH_LEN[chr(m[0])], m[:1]
    frames = []
    for i in range(0, len(msgs), 4):
        frames.append((t, mold_frame(sess, 1 + i, msgs[i:i + 4])))
    frames.append((t, mold_frame(sess, 1 + len(msgs), [], 0xFFFF)))   # end of session
    hgw_ref.pcap_write(path, frames)


def synth_table(path, inst=64, spreads=8, imbs=8, seed=5, fill=0.1):
    rnd = random.Random(seed)
    ents = bytearray()
    for _ in range(inst * spreads * imbs):
        if rnd.random() < fill:
            ents += hgw_ref.ENTRY.pack(0, ord(rnd.choice('BS')), 0, ord('0'), ord('Y'),
                                       rnd.randint(0, 2) * 100, rnd.randint(1, 5) * 100,
                                       rnd.randint(1, 10**6)) + bytes(44)
        else:
            ents += bytes(64)
    hdr = hgw_ref.TABLE_HDR.pack(b'HGWTABL1', 1, 64, inst, spreads, imbs, 100,
                                 inst * spreads * imbs, hgw_ref.crc32c(ents), bytes(20))
    with open(path, 'wb') as f:
        f.write(hdr + ents)


def concat_pcaps(out, a, b):
    with open(a, 'rb') as f:
        da = f.read()
    with open(b, 'rb') as f:
        db = f.read()
    assert da[:4] == db[:4]
    with open(out, 'wb') as f:
        f.write(da + db[24:])


def make_inputs(d, synthetic):
    feedgen, tablegen = find_tool('hgw-feedgen'), find_tool('hgw-tablegen')
    if not synthetic and feedgen and tablegen:
        run = lambda *a: subprocess.run(a, check=True)   # noqa: E731
        run(feedgen, '-q', '-o', d + '/feed.pcap', '--seed', '31', '--instruments', '40',
            '--messages', '20000', '--per-packet', '4')
        run(feedgen, '-q', '-o', d + '/feed2.pcap', '--seed', '32', '--instruments', '40',
            '--messages', '5000', '--per-packet', '4', '--session', 'HGW0000002')
        run(tablegen, '-q', '-o', d + '/table.tbl', '--instruments', '64', '--spreads', '8',
            '--imbalances', '8', '--seed', '5', '--fill', '0.1')
        how = 'hgw-feedgen %s, hgw-tablegen %s' % (feedgen, tablegen)
    else:
        synth_feed(d + '/feed.pcap', b'HGWTEST001', 31, 20000)
        synth_feed(d + '/feed2.pcap', b'HGWTEST002', 32, 5000, ref_base=10**8)
        synth_table(d + '/table.tbl')
        how = 'synthetic feed and table (%s)' % (
            '--synthetic' if synthetic else 'hgw-feedgen/hgw-tablegen not found')
    concat_pcaps(d + '/sessions2.pcap', d + '/feed.pcap', d + '/feed2.pcap')
    with open(d + '/conf.ini', 'w') as f:
        f.write(LOOSE)
    return how

# ---------------------------------------------------------------- running


class Run:
    pass


def ref(d, events_text=None, feed='feed.pcap', conf='conf.ini', tag='x'):
    """Runs hgw_ref; returns a Run with rc, err, summary, frames, urns,
    trace lines (split), and the event lines of the trace."""
    out, summ, tr = ['%s/%s.%s' % (d, tag, x) for x in ('pcap', 'sum', 'trace')]
    cmd = [sys.executable, REF, '--feed', '%s/%s' % (d, feed), '--table', d + '/table.tbl',
           '--conf', '%s/%s' % (d, conf), '--out', out, '--summary', summ, '--trace', tr]
    if events_text is not None:
        ev = '%s/%s.ev' % (d, tag)
        with open(ev, 'w') as f:
            f.write(events_text)
        cmd += ['--events', ev]
    p = subprocess.run(cmd, capture_output=True, text=True)
    r = Run()
    r.rc, r.err = p.returncode, p.stderr
    if r.rc != 0:
        return r
    with open(summ) as f:
        r.summary_text = f.read()
    r.summary = {k: int(v) for k, v in (l.split() for l in r.summary_text.splitlines())}
    with open(out, 'rb') as f:
        r.pcap_bytes = f.read()
    r.frames = [fr for _ts, fr in cmp_orders.read_pcap(out)]
    r.urns = [struct.unpack_from('>I', fr, 46)[0] for fr in r.frames]
    r.trace, r.events = [], []
    with open(tr) as f:
        for line in f:
            (r.events if line.startswith('event ') else r.trace).append(line.split())
    r.applied = None
    for line in r.err.splitlines():
        if line.startswith('events_applied '):
            r.applied = int(line.split()[1])
    return r


def last_seq(path):
    """The sequence number of the last message of a one-session capture
    (MoldUDP64 over Ethernet/IPv4/UDP: header at byte 42)."""
    last = 0
    for _ts, fr in cmp_orders.read_pcap(path):
        seq, count = struct.unpack_from('>QH', fr, 42 + 10)
        if 0 < count < 0xFFFF:
            last = max(last, seq + count - 1)
    return last


def trig(t):
    """(session, seq, locate, time, bid, bidsh, ask, asksh, outcome) of a trace line."""
    return (t[0], int(t[1]), int(t[3]), int(t[5]), int(t[7]), int(t[8]), int(t[10]),
            int(t[11]), t[-1])


def table_key(tbl, tr):
    _s, _q, loc, _t, bid, bs, ask, as_, _o = tr
    st = (ask - bid) // tbl.tick
    s = min(max(st, 1), tbl.spreads) - 1
    i = min(tbl.imbalances - 1, (tbl.imbalances * bs) // (bs + as_))
    return loc, s, i

# ---------------------------------------------------------------- checks


RESULTS = []


def check(name, ok, detail=''):
    ok = bool(ok)
    RESULTS.append(ok)
    detail = detail.replace('\n', '; ')
    print('%s %s%s' % ('PASS' if ok else 'FAIL', name, (': ' + detail) if detail else ''))


def positions_after(frames):
    """[(urn, symbol, position after)] in UserRefNum order."""
    pos, out = {}, []
    for fr in sorted(frames, key=lambda f: struct.unpack_from('>I', f, 46)[0]):
        _t, urn, side, qty, sym = struct.unpack_from('>cIcI8s', fr, 45)
        pos[sym] = pos.get(sym, 0) + (qty if side == b'B' else -qty)
        out.append((urn, sym, pos[sym]))
    return out


def main(argv):
    synthetic = '--synthetic' in argv
    keep = '--keep' in argv
    d = tempfile.mkdtemp(prefix='hgw_events_')
    try:
        print('inputs: ' + make_inputs(d, synthetic))
        tests(d)
    finally:
        if keep:
            print('kept ' + d)
        else:
            shutil.rmtree(d, ignore_errors=True)
    npass = sum(RESULTS)
    print('%d passed, %d failed' % (npass, len(RESULTS) - npass))
    return 0 if all(RESULTS) else 1


def tests(d):
    tbl = hgw_ref.Table(d + '/table.tbl')
    base = ref(d, None, tag='base')
    if base.rc != 0:
        check('baseline run', False, base.err.strip())
        return
    n = len(base.urns)
    loose = sum(base.summary[k] for k in ('reject_position_limit', 'reject_throttle_instrument',
                                          'reject_throttle_total')) == 0
    check('baseline has orders to work with, none rejected by position or throttle',
          n >= 30 and base.urns == sorted(base.urns) and loose, '%d orders' % n)
    if n < 30:
        return
    S = base.trace[0][0].encode('latin-1').hex()
    trs = [trig(t) for t in base.trace]

    # (a) no events: identical outputs
    for tag, text in (('empty', ''), ('comments', '# nothing\n\n   # still nothing\n')):
        r = ref(d, text, tag='a_' + tag)
        check('(a) %s events file = no --events' % tag,
              r.rc == 0 and r.pcap_bytes == base.pcap_bytes and r.summary_text ==
              base.summary_text and r.applied == 0 and r.trace == base.trace,
              'rc %d %s' % (r.rc, r.err.strip()))

    # (b) kill from the start
    r = ref(d, '1 - 0 kill 1\n', tag='b')
    check('(b) "- 0 kill 1": every decision a kill_switch reject, no orders',
          r.rc == 0 and r.summary['orders'] == 0 and r.urns == [] and
          r.summary['decisions'] == base.summary['decisions'] > 0 and
          r.summary['reject_kill_switch'] == r.summary['decisions'] and r.applied == 1,
          'decisions %s kill %s orders %s' % (r.summary.get('decisions'),
                                              r.summary.get('reject_kill_switch'),
                                              r.summary.get('orders')))

    # (c) kill on at an order's trigger, off at a later order's trigger
    q1, q2 = base.urns[n // 3], base.urns[2 * n // 3]
    r = ref(d, '# kill window\n1 %s %d kill 1\n2 %s %d kill 0\n' % (S, q1, S, q2), tag='c')
    before = [u for u in r.urns if u < q1]
    inside = [u for u in r.urns if q1 <= u < q2]
    after = [u for u in r.urns if u >= q2]
    kill_seqs = [int(t[1]) for t in r.trace if t[-1] == 'reject_kill_switch']
    exp = [f for f, u in zip(base.frames, base.urns) if not q1 <= u < q2]
    check('(c) kill on at %d, off at %d: orders before and after, none between' % (q1, q2),
          r.rc == 0 and before and after and not inside and q2 in r.urns and q1 not in r.urns
          and kill_seqs and min(kill_seqs) >= q1 and max(kill_seqs) < q2
          and r.frames == exp and r.applied == 2,
          'before %d inside %d after %d, kill rejects at %s..%s' % (
              len(before), len(inside), len(after), min(kill_seqs or [0]), max(kill_seqs or [0])))

    # (d) max_position lowered at q
    q = base.urns[n // 2]
    bpos = positions_after(base.frames)
    worst_before = max([abs(p) for u, _s, p in bpos if u < q] or [0])
    lim = worst_before // 2
    # take effect at the first order from q on that the new limit rejects
    q = min([u for u, _s, p in bpos if u >= q and abs(p) > lim] or [q])
    r = ref(d, '1 %s %d limit max_position %d\n' % (S, q, lim), tag='d')
    pa = positions_after(r.frames)
    over_after = [(u, s, p) for u, s, p in pa if u >= q and abs(p) > lim]
    over_before = [(u, s, p) for u, s, p in pa if u < q and abs(p) > lim]
    rej = [int(t[1]) for t in r.trace if t[-1] == 'reject_position_limit']
    check('(d) limit max_position %d at %d enforced from there on' % (lim, q),
          r.rc == 0 and lim > 0 and over_before and not over_after and rej and
          min(rej) == q and [f for f, u in zip(r.frames, r.urns) if u < q] ==
          [f for f, u in zip(base.frames, base.urns) if u < q],
          '%d orders over the limit before, %d after; %d position rejects from %s' % (
              len(over_before), len(over_after), len(rej), min(rej or [0])))
    p = subprocess.run([sys.executable, POS, d + '/d.pcap', '--max-position', str(lim)],
                       capture_output=True, text=True)
    exc = [int(l.split()[-1]) for l in p.stdout.splitlines() if l.startswith('exceeded ')]
    check('(d) positions.py --max-position %d: exit 1, only before %d' % (lim, q),
          p.returncode == 1 and exc and max(exc) < q and 'orders %d' % len(r.urns) in p.stdout,
          'rc %d, %d symbols exceeded, last at %s' % (p.returncode, len(exc), max(exc or [0])))
    p = subprocess.run([sys.executable, POS, d + '/base.pcap', '--table-free'],
                       capture_output=True, text=True)
    worst_all = max(abs(x) for _u, _s, x in positions_after(base.frames))
    check('positions.py on the baseline: max_abs_position and orders',
          p.returncode == 0 and p.stdout.splitlines()[-1] == 'orders %d' % n and
          p.stdout.splitlines()[0].startswith('max_abs_position ') and
          p.stdout.splitlines()[0].endswith(' %d' % worst_all) and len(p.stdout.splitlines()) == 2,
          p.stdout.strip().replace('\n', '; '))
    p = subprocess.run([sys.executable, POS, d + '/nonexistent.pcap'], capture_output=True,
                       text=True)
    check('positions.py on a missing file exits 2', p.returncode == 2, p.stderr.strip())

    # (e) patch the entry most used by orders after q to action 0
    # (the key with the most orders on both sides of q)
    ordered = {}
    for t in trs:
        if t[8] == 'orders':
            c = ordered.setdefault(table_key(tbl, t), [0, 0])
            c[t[1] >= q] += 1
    key = max(sorted(ordered), key=lambda k: min(ordered[k]))
    L, Sb, I = key
    # take effect at the first of its orders from q on
    q = min(t[1] for t in trs if t[8] == 'orders' and t[1] >= q and table_key(tbl, t) == key)
    r = ref(d, '1 %s %d patch 1\n+ %d %d %d 0 0 0 Y 0 0 0\n' % (S, q, L, Sb, I), tag='e')
    gone = set(t[1] for t in trs if t[8] == 'orders' and t[1] >= q and table_key(tbl, t) == key)
    exp = [f for f, u in zip(base.frames, base.urns) if u not in gone]
    rt = [trig(t) for t in r.trace]
    wrong = [t for t in rt if t[1] >= q and t[8] not in ('no_quote', 'crossed', 'out_of_table')
             and table_key(tbl, t) == key and t[8] != 'no_action']
    kept = [t for t in rt if t[1] < q and t[8] == 'orders' and table_key(tbl, t) == key]
    check('(e) patch %d %d %d to action 0 at %d: its %d orders from there on go' % (
              L, Sb, I, q, len(gone)),
          r.rc == 0 and len(gone) > 0 and r.frames == exp and not wrong and
          len(kept) == ordered[key][0] > 0 and
          r.summary['orders'] == n - len(gone) and
          r.summary['no_action'] > base.summary['no_action'],
          'orders %d -> %d, entry still acting after %d: %d, its orders before: %d' % (
              n, r.summary.get('orders', -1), q, len(wrong), len(kept)))

    # disable a symbol between two positions
    syms = {}
    for fr, u in zip(base.frames, base.urns):
        if q1 <= u < q2:
            s = fr[55:63]
            syms[s] = syms.get(s, 0) + 1
    sym = max(sorted(syms), key=lambda s: syms[s])
    name = sym.decode('latin-1').rstrip(' ')
    r = ref(d, '1 %s %d disable %s 1\n2 %s %d disable %s 0\n' % (S, q1, name, S, q2, name),
            tag='dis')
    exp = [f for f, u in zip(base.frames, base.urns) if not (q1 <= u < q2 and f[55:63] == sym)]
    check('disable %s on at %d, off at %d' % (name, q1, q2),
          r.rc == 0 and r.frames == exp and
          r.summary['reject_instrument_disabled'] >= syms[sym] > 0,
          '%d of its orders fall between; rejects %s' % (
              syms[sym], r.summary.get('reject_instrument_disabled')))

    # throttle: max_orders_total and window_ms lowered at q
    N, Wms = 3, 1
    r = ref(d, '1 %s %d limit max_orders_total %d\n2 %s %d limit window_ms %d\n'
            % (S, q, N, S, q, Wms), tag='thr')
    acc, bad = [], 0
    for t in (trig(x) for x in r.trace):
        if t[8] == 'orders':
            if t[1] >= q and len(acc) >= N and acc[-N] + Wms * 10**6 > t[3]:
                bad += 1
            acc.append(t[3])
    thr = [int(t[1]) for t in r.trace if t[-1] == 'reject_throttle_total']
    check('limit max_orders_total %d, window_ms %d at %d' % (N, Wms, q),
          r.rc == 0 and bad == 0 and thr and min(thr) >= q and
          [f for f, u in zip(r.frames, r.urns) if u < q] ==
          [f for f, u in zip(base.frames, base.urns) if u < q],
          '%d total-throttle rejects from %s, %d orders break the rule' % (
              len(thr), min(thr or [0]), bad))

    # a later session reaches an event of an earlier one; an unmet session never
    two = ref(d, None, feed='sessions2.pcap', tag='two')
    if two.rc == 0:
        s1, s2 = two.trace[0][0], two.trace[-1][0]
        r = ref(d, '1 %s 99999999999 kill 1\n' % s1.encode('latin-1').hex(), feed='sessions2.pcap',
                tag='late')
        k1 = [t for t in r.trace if t[0] == s1 and t[-1] == 'reject_kill_switch']
        d2 = [t for t in r.trace if t[0] == s2 and t[-1] not in (
            'no_quote', 'crossed', 'no_action', 'bad_entry', 'out_of_table')]
        check('event past the end of session 1 takes effect at session 2',
              r.rc == 0 and s1 != s2 and not k1 and d2 and
              all(t[-1] == 'reject_kill_switch' for t in d2) and r.applied == 1 and
              r.events and r.events[0][4] == s2,
              'session 2 decisions %d, all kill: %s; applied before %s' % (
                  len(d2), all(t[-1] == 'reject_kill_switch' for t in d2),
                  ' '.join(r.events[0][4:6]) if r.events else '-'))
        r = ref(d, '1 %s 1 kill 1\n' % b'NOSUCHSESS'.hex(), feed='sessions2.pcap', tag='unmet')
        check('event of a session never met: no effect',
              r.rc == 0 and r.pcap_bytes == two.pcap_bytes and r.applied == 0 and
              r.summary_text == two.summary_text, r.err.strip().replace('\n', '; '))
    else:
        check('two-session run', False, two.err.strip())

    unsent_checks(d, tbl, base, S, trs)

    # (f) malformed lines exit 2 naming file:line
    ok_l = '1 - 0 kill 0\n'
    bad = [
        ('unknown type', ok_l + '2 - 0 reboot 1\n', 2),
        ('id out of order', ok_l + '1 - 0 kill 1\n', 2),
        ('uppercase session', '1 %s 5 kill 1\n' % ('AB' * 10), 1),
        ('short session', '1 %s 5 kill 1\n' % S[:18], 1),
        ("'-' with a sequence", '1 - 5 kill 1\n', 1),
        ('kill 2', '1 - 0 kill 2\n', 1),
        ('kill without value', '1 - 0 kill\n', 1),
        ('symbol of 9', '1 - 0 disable ABCDEFGHI 1\n', 1),
        ('disable 2', '1 - 0 disable ABC 2\n', 1),
        ('limit name', '1 - 0 limit max_apples 5\n', 1),
        ('limit value', '1 - 0 limit max_position -5\n', 1),
        ('limit above start-up', '1 - 0 limit max_orders_total 5000\n', 1),
        ('limit max_orders 0', '1 - 0 limit max_orders_instrument 0\n', 1),
        ('patch cut by an event', ok_l + '2 - 0 patch 2\n+ 0 0 0 B 0 0 Y 100 100 1\n'
         '3 - 0 kill 1\n', 4),
        ('patch cut by the end', ok_l + '2 - 0 patch 2\n+ 0 0 0 B 0 0 Y 100 100 1\n', 2),
        ('patch locate', '1 - 0 patch 1\n+ %d 0 0 B 0 0 Y 100 100 1\n' % tbl.instruments, 2),
        ('patch action', '1 - 0 patch 1\n+ 0 0 0 X 0 0 Y 100 100 1\n', 2),
        ('patch price_mode', '1 - 0 patch 1\n+ 0 0 0 B 2 0 Y 100 100 1\n', 2),
        ('patch field missing', '1 - 0 patch 1\n+ 0 0 0 B 0 0 Y 100 100\n', 2),
        ('patch line without +', '1 - 0 patch 1\n0 0 0 B 0 0 Y 100 100 1\n', 2),
        ("'+' outside a patch", ok_l + '+ 0 0 0 B 0 0 Y 100 100 1\n', 2),
        ('too few fields', '1 -\n', 1),
    ]
    for what, text, line in bad:
        r = ref(d, text, tag='f')
        want = 'f.ev:%d' % line
        lines = r.err.strip().splitlines()
        check('(f) %s: exit 2 at %s' % (what, want),
              r.rc == 2 and len(lines) == 1 and want in lines[0], r.err.strip())
    r = ref(d, '1 - 0 patch 1\n+ 0 0 0 B 0 0 Y 100 100 1 # a comment\n'
            '2 - 0 limit max_orders_total 4096\n3 - 0 disable ABCDEFGH 0\n', tag='fok')
    check('(f) well-formed lines are accepted', r.rc == 0 and r.applied == 3, r.err.strip())



def unsent_checks(d, tbl, base, S, trs):
    """unsent TSESSION TSEQ: the order of that trigger never left."""
    n = len(base.urns)
    others = [k for k in hgw_ref.SUMMARY_KEYS if k != 'orders']

    # (u1) two orders (a buy and a sell if there are both) recalled: exactly
    # they leave the output and orders; every decision stays
    mid = base.urns[n // 2:]
    sides = {}
    for fr, u in zip(base.frames, base.urns):
        if u in mid:
            sides.setdefault(fr[50:51], u)
    pick = sorted(sides.values())[:2] if len(sides) == 2 else mid[:2]
    text = ''.join('%d %s %d unsent %s %d\n' % (k + 1, S, u + 1, S, u)
                   for k, u in enumerate(pick))
    r = ref(d, text, tag='u1')
    exp = [f for f, u in zip(base.frames, base.urns) if u not in pick]
    check('(u1) unsent %s: exactly those orders leave the output and orders' %
          ' '.join(map(str, pick)),
          r.rc == 0 and r.frames == exp and r.summary['orders'] == n - 2 and
          all(r.summary[k] == base.summary[k] for k in others) and r.applied == 2 and
          r.trace == base.trace,
          'rc %d orders %s -> %s %s' % (r.rc, n, r.summary.get('orders') if r.rc == 0 else '-',
                                        r.err.strip()))

    # (u2) with a max_position limit: a recalled order gives its room back.
    # Find a trigger R rejected by the position limit, and the last order O
    # on the same locate before it, on R's side, that used the room R needed
    def positions_by_loc(run):
        loc_of = {t[1]: t[2] for t in (trig(x) for x in run.trace)}
        out = {}
        for fr, u in zip(run.frames, run.urns):
            _t, _u, side, qty = struct.unpack_from('>cIcI', fr, 45)
            out.setdefault(loc_of[u], []).append((u, qty if side == b'B' else -qty))
        return out

    worst = max(abs(x) for _u, _s, x in positions_after(base.frames))
    found = None
    for div in (2, 3, 4, 6, 8, 12, 16):
        M = worst // div
        if M <= 0:
            break
        with open(d + '/pos.ini', 'w') as f:
            f.write(LOOSE.replace('max_position = 1000000000', 'max_position = %d' % M))
        p = ref(d, None, conf='pos.ini', tag='u2base')
        if p.rc != 0:
            break
        byloc = positions_by_loc(p)
        for t in (trig(x) for x in p.trace):
            if t[8] != 'reject_position_limit':
                continue
            loc, R = t[2], t[1]
            e = hgw_ref.ENTRY.unpack_from(tbl.data, 64 + 64 * (
                (loc * tbl.spreads + table_key(tbl, t)[1]) * tbl.imbalances + table_key(tbl, t)[2]))
            sr = e[6] if e[1] == ord('B') else -e[6]
            before = [(u, q) for u, q in byloc.get(loc, []) if u < R]
            pos = sum(q for _u, q in before)
            same = [(u, q) for u, q in before if (q > 0) == (sr > 0)]
            if same and abs(pos - same[-1][1] + sr) <= M:
                found = (M, p, R, same[-1][0], sr, loc)
                break
        if found:
            break
    if not found:
        check('(u2) a position reject that an unsent order would have allowed', False,
              'none found')
        return
    M, p, R, O, sr, loc = found
    r = ref(d, '1 %s %d unsent %s %d\n' % (S, R, S, O), conf='pos.ini', tag='u2')
    rt = {t[1]: t[8] for t in (trig(x) for x in r.trace)} if r.rc == 0 else {}
    pt = {t[1]: t[8] for t in (trig(x) for x in p.trace)}
    early = [(f, u) for f, u in zip(r.frames, r.urns) if u < R] if r.rc == 0 else None
    check('(u2) max_position %d: unsent %d (%s) at %d lets the %s at %d (loc %d) through' % (
              M, O, 'buy' if sr > 0 else 'sell', R, 'buy' if sr > 0 else 'sell', R, loc),
          r.rc == 0 and O not in r.urns and R in r.urns and rt.get(R) == 'orders' and
          early == [(f, u) for f, u in zip(p.frames, p.urns) if u < R and u != O] and
          all(rt[q] == pt[q] for q in pt if q < R) and
          r.summary['reject_position_limit'] < p.summary['reject_position_limit'],
          'rc %d, %d at %d: %s (was %s); position rejects %s -> %s %s' % (
              r.rc, R, R, rt.get(R), pt.get(R), p.summary['reject_position_limit'],
              r.summary.get('reject_position_limit') if r.rc == 0 else '-', r.err.strip()))
    if r.rc == 0:
        # from R on, the output's positions are the reference's: within M
        pa = [(u, s_, x) for u, s_, x in positions_after(r.frames) if u >= R and abs(x) > M]
        check('(u2) positions of the output within max_position %d from %d on' % (M, R),
              not pa, '%d over: %s' % (len(pa), pa[:3]))
        # the same event right after its trigger (at O + 1): the output's
        # positions are the reference's from there on
        r2 = ref(d, '1 %s %d unsent %s %d\n' % (S, O + 1, S, O), conf='pos.ini', tag='u2b')
        pa = [(u, s_, x) for u, s_, x in positions_after(r2.frames) if u > O and abs(x) > M] \
            if r2.rc == 0 else None
        check('(u2) the same unsent right after its trigger: %d left out, positions within '
              '%d from there on' % (O, M),
              r2.rc == 0 and O not in r2.urns and r2.applied == 1 and pa == [] and
              r2.summary['orders'] >= p.summary['orders'] - 1,
              '%s over %s' % (len(pa) if pa is not None else '-', r2.err.strip()))

    # (u3) an event never reached (past the end of the session) still
    # removes the order; it corrects nothing that follows
    u = base.urns[-1]
    r = ref(d, '1 %s 99999999999 unsent %s %d\n' % (S, S, u), tag='u3')
    check('(u3) unsent past the end: not applied, order %d removed' % u,
          r.rc == 0 and r.applied == 0 and r.frames == base.frames[:-1] and
          r.summary['orders'] == n - 1, r.err.strip())

    # (u5) docs/design.md "Control events" (a quiet feed): after the last message (L)
    # a replica takes the events due before the next one (L + 1); one at
    # L + 2 stays untaken
    L = last_seq(d + '/feed.pcap')
    r = ref(d, '1 %s %d kill 1\n' % (S, L + 1), tag='u5a')
    r2 = ref(d, '1 %s %d kill 1\n' % (S, L + 2), tag='u5b')
    check('(u5) an event at the last message %d + 1 is taken at the end, one at + 2 is not' % L,
          L > 0 and r.rc == 0 and r.applied == 1 and r.frames == base.frames and
          r.events and r.events[0][4:6] == [trs[0][0], '%d:' % (L + 1)] and
          r2.rc == 0 and r2.applied == 0,
          'applied %s / %s: %s %s' % (getattr(r, 'applied', '-'), getattr(r2, 'applied', '-'),
                                      r.err.strip(), r2.err.strip()))

    # (u4) malformed or unknown: exit 2 naming file:line
    O = base.urns[n // 2]
    no_order = [t[1] for t in trs if t[8] != 'orders' and t[1] > O][0]
    ok_l = '1 - 0 kill 0\n'
    bad = [
        ('unsent without trigger', ok_l + '2 %s %d unsent\n' % (S, O + 1), 2),
        ('unsent without TSEQ', '1 %s %d unsent %s\n' % (S, O + 1, S), 1),
        ('unsent extra field', '1 %s %d unsent %s %d 1\n' % (S, O + 1, S, O), 1),
        ('unsent uppercase TSESSION', '1 %s %d unsent %s %d\n' % (
            S, O + 1, b'NOSUCHSESS'.hex().upper(), O), 1),
        ('unsent short TSESSION', '1 %s %d unsent %s %d\n' % (S, O + 1, S[2:], O), 1),
        ('unsent TSEQ not decimal', '1 %s %d unsent %s 0x%x\n' % (S, O + 1, S, O), 1),
        ('unsent TSEQ negative', '1 %s %d unsent %s -%d\n' % (S, O + 1, S, O), 1),
        ('unsent trigger without an order', ok_l + '2 %s %d unsent %s %d\n' % (
            S, no_order + 1, S, no_order), 2),
        ('unsent of a session never met', ok_l + '2 %s %d unsent %s %d\n' % (
            S, O + 1, b'NOSUCHSESS'.hex(), O), 2),
        ('unsent at its own trigger', ok_l + '2 %s %d unsent %s %d\n' % (S, O, S, O), 2),
        ('unsent before its trigger', ok_l + '2 %s %d unsent %s %d\n' % (S, O - 1, S, O), 2),
        ('unsent twice', '1 %s %d unsent %s %d\n2 %s %d unsent %s %d\n' % (
            S, O + 1, S, O, S, O + 2, S, O), 2),
        ('unsent never reached, no order', ok_l + '2 %s 99999999999 unsent %s %d\n' % (
            S, S, no_order), 2),
    ]
    for what, text, line in bad:
        r = ref(d, text, tag='f')
        want = 'f.ev:%d' % line
        lines = r.err.strip().splitlines()
        check('(u4) %s: exit 2 at %s' % (what, want),
              r.rc == 2 and len(lines) == 1 and want in lines[0], r.err.strip())


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
