#!/usr/bin/env python3
"""Self-test of hgw_ref.py's feed decoder rules: checksums, sequence 0,
one current session ([feed] session_confirm), suspect jumps ([feed]
max_jump) and [feed] join.

usage: python3 tests/ref/test_feed_rules.py [--keep]

Builds small captures by hand (and damages some with
tests/integration/pcap_edit.py when it is there), runs hgw_ref.py --stats
on them and checks the counters.  Every data packet carries two 'S'
(system event) messages, so the book is never touched.  Prints one line
per check and "N passed, N failed"; exits 1 if any failed.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REF = os.path.join(HERE, 'hgw_ref.py')
PCAP_EDIT = os.path.join(REPO, 'tests', 'integration', 'pcap_edit.py')

END, HB = 0xFFFF, 0
A, B, C = b'HGWSESS001', b'HGWSESS002', b'PHANTOM   '

# ---------------------------------------------------------------- captures


def ones_sum(data):
    """16-bit ones' complement sum (RFC 1071), written here on its own so
    that a mistake in hgw_ref's checksum code cannot hide in the inputs."""
    if len(data) % 2:
        data += b'\0'
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
        s = (s & 0xFFFF) + (s >> 16)
    return s


def sys_msg(n):
    """An ITCH 'S' system event (12 bytes)."""
    return b'S' + struct.pack('>HHHI', 0, n & 0xFFFF, 0, n & 0xFFFFFFFF) + b'O'


def frame(sess, seq, nmsg=2, count=None, udp_ck=True, port=26477, odd=False):
    """Ethernet/IPv4/UDP/MoldUDP64 frame of nmsg 'S' messages (count 0 /
    END: heartbeat / end of session); correct IPv4 checksum, UDP checksum
    computed (udp_ck) or 0; odd: the last message an 'H' (25 bytes), for
    an odd UDP length."""
    if count is None:
        count = nmsg
    msgs = [sys_msg(seq + k) for k in range(nmsg)] if count not in (HB, END) else []
    if odd:
        msgs[-1] = b'H' + bytes(4) + bytes(6) + b'ODDLEN  ' + b'T' + b' ' + b'    '
    body = struct.pack('>10sQH', sess, seq, count) + b''.join(
        struct.pack('>H', len(m)) + m for m in msgs)
    src, dst = bytes((10, 1, 1, 1)), bytes((233, 54, 12, 111))
    ulen = 8 + len(body)
    udp = bytearray(struct.pack('>HHHH', 40000, port, ulen, 0) + body)
    if udp_ck:
        c = ~ones_sum(src + dst + struct.pack('>BBH', 0, 17, ulen) + bytes(udp)) & 0xFFFF
        struct.pack_into('>H', udp, 6, c or 0xFFFF)
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + ulen, 0, 0x4000, 64, 17, 0,
                               src, dst))
    struct.pack_into('>H', ip, 10, ~ones_sum(bytes(ip)) & 0xFFFF)
    return bytearray(b'\x01\x00\x5e\x36\x0c\x6f\x02\x00\x00\x00\x00\x09\x08\x00' + ip + udp)


def data_run(sess, first, npkt, nmsg=2):
    """npkt consecutive data packets of nmsg messages from seq first."""
    return [frame(sess, first + k * nmsg, nmsg) for k in range(npkt)]


def write_pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 34200, i, len(fr), len(fr)))
            f.write(bytes(fr))


# ---------------------------------------------------------------- running

class Stats:
    def __init__(self, text):
        self.v, self.drops, self.sessions = {}, {}, {}
        for line in text.splitlines():
            t = line.split()
            if t[0] == 'drop':
                self.drops[t[1]] = int(t[2])
            elif t[0] == 'session':
                self.sessions[t[1]] = (int(t[3]), int(t[5]))
            elif t[0] != 'type':
                self.v[t[0]] = int(t[1])

    def __getitem__(self, k):
        return self.v[k]

    def drop(self, k):
        return self.drops.get(k, 0)

    def nonzero_drops(self):
        return {k: v for k, v in self.drops.items() if v}


class Runner:
    def __init__(self, d):
        self.d, self.n = d, 0

    def stats(self, frames, conf=''):
        """hgw_ref --stats on frames with [feed] conf lines; Stats, or
        (rc, stderr) when it fails."""
        self.n += 1
        base = '%s/c%d' % (self.d, self.n)
        write_pcap(base + '.pcap', frames)
        return self.stats_file(base + '.pcap', conf)

    def stats_file(self, pcap, conf=''):
        self.n += 1
        base = '%s/r%d' % (self.d, self.n)
        with open(base + '.ini', 'w') as f:
            f.write('[feed]\n' + conf)
        p = subprocess.run([sys.executable, REF, '--feed', pcap, '--conf', base + '.ini',
                            '--stats', base + '.stats'], capture_output=True, text=True)
        if p.returncode != 0:
            return (p.returncode, p.stderr)
        with open(base + '.stats') as f:
            return Stats(f.read())

    def edit(self, frames, *ops):
        """pcap_edit.py IN OUT ops: the damaged pcap's path."""
        self.n += 1
        base = '%s/e%d' % (self.d, self.n)
        write_pcap(base + '.in.pcap', frames)
        subprocess.run([sys.executable, PCAP_EDIT, base + '.in.pcap', base + '.pcap'] +
                       list(ops), check=True, capture_output=True)
        return base + '.pcap'


RESULTS = []


def check(name, ok, detail=''):
    ok = bool(ok)
    RESULTS.append(ok)
    print('%s %s%s' % ('PASS' if ok else 'FAIL', name, (': ' + str(detail)) if detail else ''))


def expect(name, st, want_vals=None, want_drops=None, want_sessions=None):
    """want_drops: the exact set of non-zero drops; want_sessions: name ->
    (next, ended), exactly the sessions listed."""
    if isinstance(st, tuple):
        check(name, False, 'exit %d: %s' % (st[0], st[1].strip()))
        return
    bad = []
    for k, v in (want_vals or {}).items():
        if st[k] != v:
            bad.append('%s %d (want %d)' % (k, st[k], v))
    if want_drops is not None and st.nonzero_drops() != want_drops:
        bad.append('drops %s (want %s)' % (st.nonzero_drops(), want_drops))
    if want_sessions is not None:
        ws = {k.decode(): v for k, v in want_sessions.items()}
        if st.sessions != ws:
            bad.append('sessions %s (want %s)' % (st.sessions, ws))
    check(name, not bad, '; '.join(bad))


# ---------------------------------------------------------------- checks

def tests(r):
    clean = data_run(A, 1, 5) + [frame(A, 11, count=END)]
    expect('clean capture: 10 messages, no drop, no gap', r.stats(clean),
           {'messages': 10, 'gaps': 0, 'end_of_session': 1}, {}, {A: (11, 1)})

    # ---- 1. checksums
    f = [bytearray(x) for x in clean]
    f[1][14 + 8] ^= 0x04                                # TTL bit: IPv4 header checksum
    expect('IPv4 header bit flipped: ip_checksum, its messages a gap', r.stats(f),
           {'messages': 8, 'gaps': 1, 'gap_messages': 2}, {'ip_checksum': 1})
    f = [bytearray(x) for x in clean]
    f[2][-3] ^= 0x10                                    # ITCH payload bit: UDP checksum
    expect('UDP payload bit flipped: udp_checksum, its messages a gap', r.stats(f),
           {'messages': 8, 'gaps': 1, 'gap_messages': 2}, {'udp_checksum': 1})
    f = [bytearray(x) for x in clean]
    f[2][42 + 17] ^= 0x01                               # MoldUDP64 sequence bit
    expect('MoldUDP64 header bit flipped: udp_checksum (not a duplicate or a gap '
           'of its own)', r.stats(f), {'messages': 8, 'gaps': 1, 'gap_messages': 2},
           {'udp_checksum': 1})
    f = [bytearray(x) for x in clean]
    f[0][14 + 12] ^= 0x80                               # source address: pseudo header
    expect('IPv4 source bit flipped: ip_checksum (checked first)', r.stats(f),
           {'messages': 8, 'gaps': 1}, {'ip_checksum': 1})
    f = [bytearray(x) for x in clean]
    f[3][14 + 10:14 + 12] = b'\0\0'
    expect('IPv4 header checksum 0 is wrong, not "none"', r.stats(f),
           {'messages': 8}, {'ip_checksum': 1})
    f = [bytearray(x) for x in clean]
    f[3][34 + 6:34 + 8] = bytes((f[3][40] ^ 0x01, f[3][41]))
    expect('UDP checksum field wrong: udp_checksum', r.stats(f), {'messages': 8},
           {'udp_checksum': 1})
    z = [frame(A, 1 + 2 * k, udp_ck=False) for k in range(5)] + \
        [frame(A, 11, count=END, udp_ck=False)]
    expect('UDP checksum 0 (not sent): accepted', r.stats(z),
           {'messages': 10, 'gaps': 0}, {})
    z[2][-3] ^= 0x10
    expect('UDP checksum 0 and a payload bit flipped: accepted (nothing to tell)',
           r.stats(z), {'messages': 10, 'gaps': 0}, {})
    odd = [frame(A, 1, 1), frame(A, 2, 3, odd=True), frame(A, 5, 1), frame(A, 6, count=END)]
    check('odd UDP length frame built', (len(odd[1]) - 34) % 2 == 1)
    expect('odd UDP length, intact: accepted', r.stats(odd), {'messages': 5, 'gaps': 0}, {})
    odd[1][-1] ^= 0x02
    expect('odd UDP length: the padded last byte is summed, flip caught', r.stats(odd),
           {'messages': 2, 'gaps': 1, 'gap_messages': 3}, {'udp_checksum': 1})
    f = [bytearray(x) for x in clean] + [frame(A, 11, port=9999)]
    f[-1][14 + 8] ^= 0x04
    expect('another port with a bad checksum: not_feed (filter first)', r.stats(f),
           {'messages': 10}, {'not_feed': 1})
    f = [bytearray(x) for x in clean]
    f[1] = f[1][:-4]                                    # cut: IPv4 length > frame
    expect('a cut frame: ip_truncated, not a checksum drop', r.stats(f),
           {'messages': 8}, {'ip_truncated': 1})

    # ---- 2. sequence number 0
    f = clean[:2] + [frame(A, 0)] + clean[2:]
    expect('data packet with seq 0: mold_seq_zero', r.stats(f),
           {'messages': 10, 'gaps': 0}, {'mold_seq_zero': 1})
    f = [frame(A, 0, count=HB), frame(A, 0, count=END)] + clean
    expect('heartbeat and end of session with seq 0: mold_seq_zero, session untouched',
           r.stats(f), {'messages': 10, 'heartbeats': 0, 'end_of_session': 1},
           {'mold_seq_zero': 2}, {A: (11, 1)})
    f = [frame(B, 0)] + clean
    expect('seq 0 first: takes no session slot', r.stats(f), {'messages': 10},
           {'mold_seq_zero': 1}, {A: (11, 1)})
    if os.path.exists(PCAP_EDIT):
        p = r.edit(clean, '--zero-mold', '--fix-checksums')
        expect('pcap_edit --zero-mold (sanitised capture): every packet mold_seq_zero',
               r.stats_file(p), {'messages': 0}, {'mold_seq_zero': 6}, {})
        p = r.edit(clean, '--seq', '3=0')
        expect('pcap_edit --seq 3=0 without fixing checksums: udp_checksum',
               r.stats_file(p), {'messages': 8}, {'udp_checksum': 1})
        p = r.edit(clean, '--seq', '3=0', '--fix-checksums')
        expect('pcap_edit --seq 3=0 --fix-checksums: mold_seq_zero', r.stats_file(p),
               {'messages': 8, 'gaps': 1, 'gap_messages': 2}, {'mold_seq_zero': 1})
    else:
        check('pcap_edit.py found', False, PCAP_EDIT)
    hi = (1 << 64) - 2
    expect('seq + count past 2^64: mold_truncated',
           r.stats(clean[:5] + [frame(A, hi, 2)] + clean[5:]), {'messages': 10},
           {'mold_truncated': 1})

    # ---- 3. sessions
    if os.path.exists(PCAP_EDIT):
        p = r.edit(clean, '--session', '3=PHANTOM', '--fix-checksums')
        expect('phantom session name (checksums fixed): mold_new_session, the end '
               'of session still counted', r.stats_file(p),
               {'messages': 8, 'gaps': 1, 'gap_messages': 2, 'end_of_session': 1},
               {'mold_new_session': 1}, {A: (11, 1)})
    f = clean[:2] + [frame(C, 5, count=END), frame(C, 1, count=HB)] + clean[2:]
    expect('phantom end of session / heartbeat: mold_new_session, the real end counted',
           r.stats(f), {'messages': 10, 'end_of_session': 1, 'gaps': 0},
           {'mold_new_session': 2}, {A: (11, 1)})
    nb = data_run(B, 1, 12)
    f = data_run(A, 1, 3) + nb[:9] + [frame(A, 7), frame(A, 9, count=END)] + nb[9:] + \
        [frame(B, 25, count=END)]
    expect('session_confirm 8: the 8th in-sequence packet of B takes over (7 dropped '
           'are a gap); A superseded, its data and its end mold_after_end', r.stats(f),
           {'messages': 6 + 10, 'gaps': 1, 'gap_messages': 14, 'end_of_session': 1},
           {'mold_new_session': 7, 'mold_after_end': 2}, {A: (7, 1), B: (25, 1)})
    expect('... with join = baseline: no gap', r.stats(f, 'join = baseline\n'),
           {'messages': 16, 'gaps': 0, 'end_of_session': 1},
           {'mold_new_session': 7, 'mold_after_end': 2}, {A: (7, 1), B: (25, 1)})
    expect('... with session_confirm = 3', r.stats(f, 'session_confirm = 3\n'),
           {'messages': 6 + 20, 'gaps': 1, 'gap_messages': 4},
           {'mold_new_session': 2, 'mold_after_end': 2}, {A: (7, 1), B: (25, 1)})
    expect('... with session_confirm = 0: B never taken while A lives, taken at once '
           'after A\'s end', r.stats(f[:-1], 'session_confirm = 0\n'),
           {'messages': 8 + 6, 'end_of_session': 1, 'gaps': 1, 'gap_messages': 18},
           {'mold_new_session': 9}, {A: (9, 1), B: (25, 0)})
    f2 = data_run(A, 1, 3) + nb[:4] + [frame(C, 9)] + nb[4:]
    expect('a different name in between restarts the count', r.stats(
        f2, 'session_confirm = 5\n'), {'messages': 6 + 2 * 4, 'gaps': 1, 'gap_messages': 16},
        {'mold_new_session': 9}, {A: (7, 1), B: (25, 0)})
    f3 = data_run(A, 1, 3) + nb[:4] + nb[5:]            # B's 5th packet missing
    expect('a break in B\'s sequence restarts the count', r.stats(
        f3, 'session_confirm = 5\n'), {'messages': 6 + 2 * 3, 'gaps': 1, 'gap_messages': 18},
        {'mold_new_session': 8}, {A: (7, 1), B: (25, 0)})
    f4 = data_run(A, 1, 3) + nb[:3] + [frame(A, 7)] + nb[3:6]
    expect('packets of the current session in between do not restart it', r.stats(
        f4, 'session_confirm = 5\n'), {'messages': 8 + 4, 'gap_messages': 8},
        {'mold_new_session': 4}, {A: (9, 1), B: (13, 0)})
    f5 = clean + [frame(B, 1), frame(A, 13), frame(A, 11, count=END), frame(B, 3)]
    expect('after A\'s end, B is taken at once; A\'s data mold_after_end, its end '
           'again mold_duplicate', r.stats(f5), {'messages': 14, 'gaps': 0},
           {'mold_after_end': 1, 'mold_duplicate': 1}, {A: (11, 1), B: (5, 0)})
    names = [b'HGWSESS%03d' % k for k in range(1, 6)]
    f6 = []
    for nm in names:
        f6 += [frame(nm, 1), frame(nm, 3, count=END)]
    expect('a 5th session: mold_too_many_sessions', r.stats(f6),
           {'messages': 8, 'end_of_session': 4}, {'mold_too_many_sessions': 2})
    f7 = clean[:3] + [frame(B, 1 + 2 * k) for k in range(3)] + clean[3:]
    expect('confirmation with a full table: mold_too_many_sessions',
           r.stats([frame(n, 1, count=END) for n in names[2:5]] + f7,
                   'session_confirm = 2\n'),
           {'messages': 10, 'end_of_session': 4},
           {'mold_new_session': 1, 'mold_too_many_sessions': 2})

    # ---- 4. suspect jumps
    big = 1 << 63
    f = data_run(A, 1, 3) + [frame(A, big)] + data_run(A, 7, 2) + [frame(A, big + 2)] + \
        [frame(A, 11), frame(A, 13, count=END)]
    expect('seq 2^63: held as suspect, forgotten when the feed goes on (twice)',
           r.stats(f), {'messages': 12, 'gaps': 0, 'end_of_session': 1},
           {'mold_suspect': 2}, {A: (13, 1)})
    j = 7 + 1000001
    f = data_run(A, 1, 3) + [frame(A, j), frame(A, j + 2), frame(A, j + 4, count=END)]
    expect('a real jump (> max_jump): held, then confirmed by the next packet; the '
           'gap includes the held messages', r.stats(f),
           {'messages': 8, 'gaps': 1, 'gap_messages': j + 2 - 7},
           {'mold_suspect': 1}, {A: (j + 4, 1)})
    f = data_run(A, 1, 3) + [frame(A, 7 + 1000000), frame(A, 7 + 1000002)]
    expect('a jump of exactly max_jump is not suspect', r.stats(f),
           {'messages': 10, 'gaps': 1, 'gap_messages': 1000000}, {})
    f = data_run(A, 1, 3) + [frame(A, j), frame(A, j + 2 + 1000001), frame(A, 7)]
    expect('a second jump too far from the suspect replaces it, then forgotten',
           r.stats(f), {'messages': 8, 'gaps': 0}, {'mold_suspect': 2})
    f = data_run(A, 1, 3) + [frame(A, j), frame(A, j + 2 + 1000000)]
    expect('... within max_jump of the suspect\'s end: confirmed', r.stats(f),
           {'messages': 8, 'gaps': 1, 'gap_messages': j + 2 + 1000000 - 7},
           {'mold_suspect': 1})
    f = data_run(A, 1, 3) + [frame(A, j), frame(A, j)]
    expect('a repeat of the suspect packet (seq < its end) is suspect again',
           r.stats(f), {'messages': 6}, {'mold_suspect': 2})
    f = data_run(A, 1, 3) + [frame(A, big, count=HB), frame(A, 7), frame(A, big, count=END),
                             frame(A, 9, count=END)]
    expect('heartbeat and end of session far ahead: suspect; the real end counted',
           r.stats(f), {'messages': 8, 'heartbeats': 0, 'end_of_session': 1, 'gaps': 0},
           {'mold_suspect': 2}, {A: (9, 1)})
    f = data_run(A, 1, 3) + [frame(A, j, count=HB), frame(A, j, count=END)]
    expect('heartbeat far ahead confirmed by the end of session continuing from it',
           r.stats(f), {'end_of_session': 1, 'gaps': 1, 'gap_messages': j - 7},
           {'mold_suspect': 1}, {A: (j, 1)})
    f = data_run(A, 1, 3) + [frame(A, big)] + data_run(A, 7, 1)
    expect('max_jump = 0: no suspect, a gap', r.stats(f, 'max_jump = 0\n'),
           {'messages': 8, 'gaps': 1}, {'mold_duplicate': 1})
    f = [frame(A, big), frame(A, big + 2)]
    expect('a session\'s first packet is never suspect (recover: a gap)', r.stats(f),
           {'messages': 4, 'gaps': 1, 'gap_messages': big - 1}, {})
    f = data_run(A, 1, 3) + [frame(A, big), frame(A, 7, count=END), frame(B, 1),
                             frame(A, big + 2)]
    expect('after the end of session, a packet continuing a suspect is mold_after_end',
           r.stats(f),
           {'messages': 8}, {'mold_suspect': 1, 'mold_after_end': 1})

    # ---- 5. join
    f = [frame(A, 101 + 2 * k) for k in range(3)] + [frame(A, 107, count=END)]
    expect('join = recover (default): first seq 101 is a gap of 100', r.stats(f),
           {'messages': 6, 'gaps': 1, 'gap_messages': 100}, {}, {A: (107, 1)})
    expect('join = baseline: first seq 101 is the start, no gap',
           r.stats(f, 'join = baseline\n'), {'messages': 6, 'gaps': 0}, {}, {A: (107, 1)})
    f = [frame(A, 101, count=HB)] + f
    expect('join = baseline starting with a heartbeat', r.stats(f, 'join = baseline\n'),
           {'messages': 6, 'gaps': 0, 'heartbeats': 1}, {})
    expect('join = baseline, a later gap still counted', r.stats(
        [frame(A, 101), frame(A, 105)], 'join = baseline\n'),
        {'messages': 4, 'gaps': 1, 'gap_messages': 2}, {})

    # ---- configuration
    for conf, what in (('join = sideways\n', 'join'), ('max_jump = -1\n', 'max_jump'),
                       ('session_confirm = x\n', 'session_confirm')):
        st = r.stats(clean, conf)
        check('bad [feed] %s: exit 2 naming it' % what,
              isinstance(st, tuple) and st[0] == 2 and what in st[1], st)
    st = r.stats(clean, 'max_jump = 5\nsession_confirm = 2\njoin = recover\n')
    expect('good [feed] values are taken', st, {'messages': 10}, {})


def main(argv):
    keep = '--keep' in argv
    d = tempfile.mkdtemp(prefix='hgw_feed_rules_')
    try:
        tests(Runner(d))
    finally:
        if keep:
            print('kept ' + d)
        else:
            shutil.rmtree(d, ignore_errors=True)
    npass = sum(RESULTS)
    print('%d passed, %d failed' % (npass, len(RESULTS) - npass))
    return 0 if all(RESULTS) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
