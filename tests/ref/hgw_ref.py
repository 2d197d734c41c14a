#!/usr/bin/env python3
"""hgw_ref: independent reference evaluator for hedgewire's trading path.

Written from hedgewire's documentation - docs/protocols.md "Feed rules"
and "Trading rules", docs/design.md "The feed path" and "Control events",
docs/venue.md "What the replicas do with the answers", docs/operations.md
"Configuration file" and the key table conf/demo.ini (read at run time
for the defaults) - and the published MoldUDP64 1.00, ITCH 5.0, OUCH 5.0
and SoupBinTCP 3.00 specifications and RFCs 768, 791 and 1071, never from
hedgewire's code: each rule below cites where it is written.  It shares
no code with hedgewire.  Python 3.11 standard library only.

usage: hgw_ref.py --feed FEED.pcap --table TABLE.bin --conf CONF.ini
                  --out EXPECTED.pcap [--summary SUMMARY.txt]
                  [--bbo BBO.txt] [--stats STATS.txt] [--trace TRACE.txt]
                  [--events EVENTS.txt]
       hgw_ref.py --feed FEED.pcap [--conf CONF.ini] --bbo BBO.txt
                  (book only: no table, no orders)
       hgw_ref.py --crc32c FILE   (prints the CRC-32C of a file)

--bbo writes the best bid/ask at the end of every instrument that has a
name (an 'R' message), in the generator's "bbo LOCATE NAME BIDPX BIDSHARES
BIDORDERS ASKPX ASKSHARES ASKORDERS" format (empty side: 0 0 0); --trace writes one line per trigger (session, sequence, locate,
feed time, touch, outcome); --stats writes the feed counters (messages, types, drops, gaps)
in the generator's truth-file vocabulary; --events replays hedgewire's
events log (kill switch, disabled instruments, [risk] limits, table
patches, orders recalled unsent, each at a feed position; see
tests/ref/README.md).
"""

import argparse
import os
import re
import struct
import sys

# ---------------------------------------------------------------- CRC-32C

_CRC_POLY = 0x82F63B78  # Castagnoli, reflected


def _crc_tables():
    t0 = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _CRC_POLY if c & 1 else c >> 1
        t0.append(c)
    tabs = [t0]
    for _ in range(7):  # slicing-by-8 tables
        prev = tabs[-1]
        tabs.append([(prev[n] >> 8) ^ t0[prev[n] & 0xFF] for n in range(256)])
    return tabs


_CRC_T = _crc_tables()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli, reflected, init/final xor 0xFFFFFFFF)."""
    t0, t1, t2, t3, t4, t5, t6, t7 = _CRC_T
    c = crc ^ 0xFFFFFFFF
    mv = memoryview(data)
    n8 = len(mv) & ~7
    if n8:
        for lo, hi in struct.iter_unpack('<II', mv[:n8]):
            lo ^= c
            c = (t7[lo & 0xFF] ^ t6[(lo >> 8) & 0xFF] ^
                 t5[(lo >> 16) & 0xFF] ^ t4[lo >> 24] ^
                 t3[hi & 0xFF] ^ t2[(hi >> 8) & 0xFF] ^
                 t1[(hi >> 16) & 0xFF] ^ t0[hi >> 24])
    for b in mv[n8:]:
        c = t0[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b'123456789') == 0xE3069283

_DEC = re.compile(r'[0-9]+\Z')

# ---------------------------------------------------------------- config

# The keys the reference reads.  Their defaults are not written here: they
# are read at run time from the documented key table, conf/demo.ini ("Every
# key hedgewire knows is listed here with its default"; README.md
# "Configuration"), and a key missing from it stops the reference (exit 2)
# naming it, so a default changed in the documentation changes the
# reference, and hedgewire has to follow.
KEYS = {
    'feed': ('group', 'port', 'vlan', 'max_jump', 'session_confirm', 'join',
             'warmup_messages'),
    'book': ('instruments',),
    'risk': ('kill', 'disable', 'max_quantity', 'max_notional', 'collar_bps',
             'max_position', 'window_ms', 'max_orders_instrument',
             'max_orders_total', 'max_open_orders'),
    'venue': ('host',),
    'order': ('src_mac', 'dst_mac', 'src_ip', 'dst_ip', 'src_port', 'dst_port',
              'capacity'),
}
DOC_CONF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'conf', 'demo.ini')


def die(msg):
    sys.stderr.write('hgw_ref: %s\n' % msg)
    sys.exit(2)


def parse_ini(path, into, only_known):
    """INI as docs/operations.md "Configuration file" describes it: [section]
    lines, KEY = VALUE lines, ';' starts a comment, and so does '#' as the
    first non-blank character.  Writes into into[section][key]; with
    only_known, keys absent from into are ignored (hedgewire validates
    them)."""
    section = None
    try:
        f = open(path, encoding='utf-8', errors='replace')
    except OSError as e:
        die('%s: %s' % (path, e))
    with f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split(';', 1)[0].strip()
            if not line or line.startswith('#'):
                continue
            if line.startswith('['):
                if not line.endswith(']'):
                    die('%s:%d: bad section line' % (path, lineno))
                section = line[1:-1].strip()
                if not only_known:
                    into.setdefault(section, {})
                continue
            if '=' not in line:
                die('%s:%d: expected key = value' % (path, lineno))
            key, val = line.split('=', 1)
            key, val = key.strip(), val.strip()
            if section is None:
                if only_known:
                    continue
                die('%s:%d: key %s before any [section]' % (path, lineno, key))
            if not only_known or (section in into and key in into[section]):
                into[section][key] = val


def documented_defaults(path=DOC_CONF):
    """Every key of the documented key table with its default; exits 2 when
    a key the reference reads is not there."""
    doc = {}
    parse_ini(path, doc, False)
    for sec, keys in KEYS.items():
        for key in keys:
            if key not in doc.get(sec, {}):
                die('%s: [%s] %s is not in the documented key table (the '
                    'reference takes its defaults from it)' % (path, sec, key))
    return doc


def read_conf(path):
    """The documented defaults, overridden by the keys of path (keys that
    are not in the documented table are ignored)."""
    conf = documented_defaults()
    if path is not None:
        parse_ini(path, conf, True)
    return conf


def c_int(conf, sec, key, lo=0, hi=(1 << 64) - 1):
    """A number: decimal digits only (docs/operations.md "Configuration
    file"), in lo..hi."""
    v = conf[sec][key]
    if not _DEC.match(v):
        die('bad value for [%s] %s: %r (expected a decimal integer)' % (sec, key, v))
    n = int(v, 10)
    if not lo <= n <= hi:
        die('bad value for [%s] %s: %r (expected %d..%d)' % (sec, key, v, lo, hi))
    return n


def c_bool(conf, sec, key):
    """docs/operations.md "Configuration file": yes/true/on/1, no/false/off/0."""
    v = conf[sec][key].lower()
    if v in ('yes', 'true', 'on', '1'):
        return True
    if v in ('no', 'false', 'off', '0'):
        return False
    die('bad value for [%s] %s: %r (expected a boolean)' % (sec, key, v))


def c_ip(conf, sec, key):
    """Dotted IPv4 (docs/operations.md "Configuration file")."""
    v = conf[sec][key]
    parts = v.split('.')
    try:
        if len(parts) != 4:
            raise ValueError
        b = bytes(int(p, 10) for p in parts)
    except ValueError:
        die('bad value for [%s] %s: %r (expected an IPv4 address)' % (sec, key, v))
    return b


def c_mac(conf, sec, key):
    """Colon-separated MAC (docs/operations.md "Configuration file")."""
    v = conf[sec][key]
    parts = v.split(':')
    try:
        if len(parts) != 6:
            raise ValueError
        if any(not 1 <= len(p) <= 2 for p in parts):
            raise ValueError
        b = bytes(int(p, 16) for p in parts)
    except ValueError:
        die('bad value for [%s] %s: %r (expected a MAC address)' % (sec, key, v))
    return b


# ---------------------------------------------------------------- table

TABLE_HDR = struct.Struct('<8sIIIIIIQI20s')
ENTRY = struct.Struct('<IBBBBiII')


class Table:
    """A table file as docs/protocols.md "Table file" lays it out, refused
    for the reasons it lists."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            data = f.read()
        if len(data) < 64:
            die('%s: table truncated (%d bytes, header is 64)' % (path, len(data)))
        (magic, version, esize, inst, spreads, imbs, tick, count, crc,
         _res) = TABLE_HDR.unpack_from(data, 0)
        if magic != b'HGWTABL1':
            die('%s: bad table magic %r' % (path, magic))
        if version != 1:
            die('%s: table format version %d (expected 1)' % (path, version))
        if esize != 64:
            die('%s: table entry size %d (expected 64)' % (path, esize))
        if count != inst * spreads * imbs:
            die('%s: table entry count %d != %d*%d*%d' % (path, count, inst, spreads, imbs))
        if inst == 0 or spreads == 0 or imbs == 0 or tick == 0:
            die('%s: table dimension is zero (instruments %d spreads %d imbalances %d tick %d)'
                % (path, inst, spreads, imbs, tick))
        want = 64 + count * 64
        if len(data) < want:
            die('%s: table truncated (%d bytes, expected %d)' % (path, len(data), want))
        if len(data) != want:
            die('%s: table has the wrong size (%d bytes, expected %d)' % (path, len(data), want))
        got = crc32c(memoryview(data)[64:])
        if got != crc:
            die('%s: table checksum mismatch (header 0x%08x, entries 0x%08x)' % (path, crc, got))
        self.data = data
        self.instruments, self.spreads, self.imbalances, self.tick = inst, spreads, imbs, tick


# ---------------------------------------------------------------- events log

LIMIT_NAMES = ('max_quantity', 'max_notional', 'collar_bps', 'max_position',
               'window_ms', 'max_orders_instrument', 'max_orders_total',
               'max_open_orders')
# OUCH 5.0 server message types a venue event may carry
VENUE_TYPES = 'SAUCDEBJPIMR'
_SDEC = re.compile(r'-?[0-9]+\Z')
_SESS = re.compile(r'[0-9a-f]{20}\Z')
U32, U64 = (1 << 32) - 1, (1 << 64) - 1


class Event:
    """One control-plane change at a feed position: sess None = before the
    first message; kind kill|disable|limit|patch|unsent; args as parsed;
    where 'file:line' for messages about it."""
    __slots__ = ('eid', 'sess', 'seq', 'kind', 'args', 'lineno', 'text', 'where')

    def __init__(self, eid, sess, seq, kind, args, lineno, text, where=''):
        self.eid, self.sess, self.seq, self.kind = eid, sess, seq, kind
        self.args, self.lineno, self.text, self.where = args, lineno, text, where


def parse_patch_line(tok, table, where):
    """'+ L S I action price_mode tif display price quantity tag', validated
    as docs/protocols.md "Table patch" says."""
    names = ('locate', 'spread bucket', 'imbalance bucket', 'action', 'price_mode',
             'tif', 'display', 'price', 'quantity', 'tag')
    if tok[0] != '+':
        die("%s: expected a '+ L S I action price_mode tif display price quantity tag' line" % where)
    f = tok[1:]
    for k, t in enumerate(f):          # a '#' field starts a comment
        if t.startswith('#'):
            f = f[:k]
            break
    if len(f) != 10:
        die('%s: patch line has %d fields (want: L S I action price_mode tif display '
            'price quantity tag)' % (where, len(f)))
    lim = {0: (0, table.instruments - 1), 1: (0, table.spreads - 1),
           2: (0, table.imbalances - 1), 4: (0, 1), 7: (-(1 << 31), (1 << 31) - 1),
           8: (0, U32), 9: (0, U32)}
    v = [0] * 10
    for k, t in enumerate(f):
        if k == 3:
            if t not in ('0', 'B', 'S'):
                die("%s: bad action '%s' (want 0, B or S)" % (where, t))
            v[k] = 0 if t == '0' else ord(t)
        elif k in (5, 6):
            if len(t) != 1 or not 0x20 < ord(t) <= 0x7e:
                die("%s: bad %s '%s' (want one printable character)" % (where, names[k], t))
            v[k] = ord(t)
        else:
            lo, hi = lim[k]
            if not _SDEC.match(t) or not lo <= int(t) <= hi:
                die("%s: bad %s '%s' (want %d..%d)" % (where, names[k], t, lo, hi))
            v[k] = int(t)
    key = (v[0] * table.spreads + v[1]) * table.imbalances + v[2]
    return key, ENTRY.pack(0, *v[3:]) + bytes(44)


def read_events(path, table, caps):
    """Parses hedgewire's events log (docs/design.md "Control events"); exits
    2 naming file:line on anything malformed.  caps: limit name -> the most
    a limit event may set it to (docs/operations.md "Telemetry",
    /hgw/risk/limit): max_orders_instrument/_total their start-up values,
    max_open_orders max(4096, its start-up value)."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        die('%s: %s' % (path, e))
    events = []
    i = 0
    while i < len(lines):
        lineno = i + 1
        raw = lines[i].strip()
        i += 1
        if not raw or raw.startswith('#'):
            continue
        where = '%s:%d' % (path, lineno)
        tok = raw.split()
        if tok[0] == '+':
            die("%s: '+' line outside a patch event" % where)
        if len(tok) < 4:
            die('%s: expected ID SESSION SEQ TYPE ARGS...' % where)
        eid, sess, seq, kind = tok[:4]
        args = tok[4:]
        # ids increase; gaps are events that concern one worker only
        # (a worker leaving the race), logged as comments
        last_id = events[-1].eid if events else 0
        if not _DEC.match(eid) or int(eid) <= last_id:
            die("%s: bad event id '%s' (want more than %d)" % (where, eid, last_id))
        if not _DEC.match(seq) or int(seq) > U64:
            die("%s: bad sequence number '%s'" % (where, seq))
        if sess == '-':
            sb = None
            if int(seq) != 0:
                die("%s: session '-' needs sequence number 0, not %s" % (where, seq))
        elif _SESS.match(sess):
            sb = bytes.fromhex(sess)
        else:
            die("%s: bad session '%s' (want 20 lowercase hex digits or -)" % (where, sess))
        if kind == 'kill':
            if len(args) != 1 or args[0] not in ('0', '1'):
                die('%s: want: kill 0|1' % where)
            val = args[0] == '1'
        elif kind == 'disable':
            if len(args) != 2 or args[1] not in ('0', '1') or not 1 <= len(args[0]) <= 8 \
                    or any(not 0x20 < ord(c) <= 0x7e for c in args[0]):
                die('%s: want: disable SYMBOL(1-8 characters) 0|1' % where)
            val = (args[0], args[1] == '1')
        elif kind == 'limit':
            if len(args) != 2 or args[0] not in LIMIT_NAMES:
                die('%s: want: limit NAME VALUE, NAME one of %s' % (where, ' '.join(LIMIT_NAMES)))
            name, v = args
            if name in caps:
                lo, hi = 1, caps[name]
            elif name in ('max_quantity', 'collar_bps'):
                lo, hi = 0, U32
            else:
                lo, hi = 0, U64
            if not _DEC.match(v) or not lo <= int(v) <= hi:
                die("%s: bad %s value '%s' (want %d..%d)" % (where, name, v, lo, hi))
            val = (name, int(v))
        elif kind == 'patch':
            if len(args) != 1 or not _DEC.match(args[0]):
                die('%s: want: patch N' % where)
            n = int(args[0])
            if table is None:
                die('%s: a patch event needs --table' % where)
            val = []
            for _k in range(n):
                if i >= len(lines):
                    die('%s: patch %d: the file ends after %d of its lines' % (where, n, _k))
                pt = lines[i].split()
                i += 1
                val.append(parse_patch_line(pt if pt else [''], table, '%s:%d' % (path, i)))
        elif kind == 'venue':
            # one answer of the venue session: SEQ TYPE USERREF QTY ORIG
            # SIDE REASON PRICE
            if len(args) != 8 or not all(_DEC.match(args[k]) for k in (0, 2, 3, 4, 6, 7)) \
                    or len(args[1]) != 1 or args[1] not in VENUE_TYPES \
                    or len(args[5]) != 1 or int(args[2]) > U32 or int(args[3]) > U32 \
                    or int(args[4]) > U32 or int(args[6]) > 0xFFFF:
                die('%s: want: venue SEQ TYPE(one of %s) USERREF QTY ORIG SIDE REASON PRICE'
                    % (where, VENUE_TYPES))
            val = (int(args[0]), args[1], int(args[2]), int(args[3]), int(args[4]),
                   args[5], int(args[6]))
        elif kind == 'unsent':
            # an order every replica decided that the kill switch recalled
            # before it was sent: identified by its trigger
            if len(args) != 2 or not _SESS.match(args[0]) or not _DEC.match(args[1]) \
                    or int(args[1]) > U64:
                die('%s: want: unsent TSESSION(20 lowercase hex digits) TSEQ' % where)
            val = (bytes.fromhex(args[0]), int(args[1]))
        else:
            die("%s: unknown event type '%s'" % (where, kind))
        events.append(Event(int(eid), sb, int(seq), kind, val, lineno, raw, where))
    return events


# ---------------------------------------------------------------- checksums

def csum16(data, start=0):
    """16-bit ones' complement sum (RFC 1071); a correct IPv4 header (RFC
    791) or UDP packet with its pseudo header (RFC 768) sums to 0xFFFF."""
    if len(data) & 1:
        data = bytes(data) + b'\0'
    s = start + sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def inet_checksum(data, start=0):
    return ~csum16(data, start) & 0xFFFF


# ---------------------------------------------------------------- pcap

def pcap_records(path):
    """Reads a classic (libpcap) capture: returns (whole file, endianness,
    nanosecond?).  Only Ethernet captures (docs/protocols.md "Feed formats")."""
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < 24:
        die('%s: not a pcap (too short)' % path)
    m = buf[:4]
    if m == b'\xd4\xc3\xb2\xa1':
        e, ns = '<', False
    elif m == b'\xa1\xb2\xc3\xd4':
        e, ns = '>', False
    elif m == b'\x4d\x3c\xb2\xa1':
        e, ns = '<', True
    elif m == b'\xa1\xb2\x3c\x4d':
        e, ns = '>', True
    else:
        die('%s: not a classic pcap (magic %s)' % (path, m.hex()))
    link = struct.unpack_from(e + 'I', buf, 20)[0] & 0x0FFFFFFF
    if link != 1:
        die('%s: link type %d is not Ethernet' % (path, link))
    return buf, e, ns


def pcap_iter(buf, e):
    rec = struct.Struct(e + 'IIII')
    n = len(buf)
    off = 24
    while off + 16 <= n:
        s, frac, incl, _orig = rec.unpack_from(buf, off)
        off += 16
        if off + incl > n:
            sys.stderr.write('hgw_ref: warning: pcap ends inside a record\n')
            return
        yield s, frac, off, incl
        off += incl
    if off != n:
        sys.stderr.write('hgw_ref: warning: pcap ends inside a record header\n')


def pcap_write(path, frames):
    """frames: list of (ts_ns, bytes); microsecond little-endian pcap."""
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for ts, fr in frames:
            f.write(struct.pack('<IIII', ts // 1000000000, (ts % 1000000000) // 1000,
                                len(fr), len(fr)))
            f.write(fr)


# ---------------------------------------------------------------- ITCH

# ITCH 5.0 message lengths (ITCH 5.0 "Message Formats"; docs/protocols.md
# "Feed formats": a length not its type's, or a type not here, is skipped)
ITCH_LEN = {'S': 12, 'R': 39, 'H': 25, 'Y': 20, 'L': 26, 'V': 35, 'W': 12,
            'K': 28, 'J': 35, 'h': 21, 'A': 36, 'F': 40, 'E': 31, 'C': 36,
            'X': 23, 'D': 19, 'U': 35, 'P': 44, 'Q': 40, 'B': 19, 'I': 50,
            'N': 20}
LEN_BY_BYTE = [-1] * 256
for _t, _l in ITCH_LEN.items():
    LEN_BY_BYTE[ord(_t)] = _l

SUMMARY_KEYS = ['triggers', 'out_of_table', 'no_quote', 'crossed', 'no_action',
                'bad_entry', 'decisions', 'reject_kill_switch',
                'reject_instrument_disabled', 'reject_max_quantity',
                'reject_max_notional', 'reject_price_collar',
                'reject_position_limit', 'reject_throttle_instrument',
                'reject_throttle_total', 'reject_open_orders', 'orders']

DROP_KEYS = ['eth_short', 'not_ipv4', 'vlan_mismatch', 'ip_bad_header',
             'ip_truncated', 'ip_fragment', 'not_udp', 'udp_bad_length',
             'not_feed', 'mold_short', 'mold_truncated', 'mold_trailing',
             'mold_too_many_sessions', 'mold_duplicate', 'mold_after_end',
             'itch_bad_length', 'itch_unknown_type']
# reasons added later: --stats lists them only when not zero, so that the
# output on a clean feed stays what it was
DROP_KEYS_NEW = ['ip_checksum', 'udp_checksum', 'mold_seq_zero', 'mold_suspect',
                 'mold_new_session', 'igmp_query']


# ---------------------------------------------------------------- engine

class Engine:
    def __init__(self, conf, table):
        self.table = table
        # ranges: the key table conf/demo.ini
        self.ninst = c_int(conf, 'book', 'instruments', 1, 65536)
        self.kill = c_bool(conf, 'risk', 'kill')
        self.disable = set(t for t in conf['risk']['disable'].replace(',', ' ').split() if t)
        self.max_quantity = c_int(conf, 'risk', 'max_quantity')
        self.max_notional = c_int(conf, 'risk', 'max_notional')
        self.collar_bps = c_int(conf, 'risk', 'collar_bps')
        self.max_position = c_int(conf, 'risk', 'max_position')
        self.window_ns = c_int(conf, 'risk', 'window_ms') * 1000000
        self.max_oi = c_int(conf, 'risk', 'max_orders_instrument', 1, 4096)
        self.max_ot = c_int(conf, 'risk', 'max_orders_total', 1, 4096)
        self.max_open = c_int(conf, 'risk', 'max_open_orders', 1, 65536)
        # with a venue session orders are open until its answers close them
        self.venue = conf['venue']['host'] != ''
        self.open = {}            # venue: UserRefNum -> [locate, 'B'|'S', open shares]
        self.open_side = {}       # venue: (locate, 'B'|'S') -> open shares
        self.venue_stats = dict.fromkeys(('filled_shares', 'reduced_shares',
                                          'closed_orders', 'unknown_orders'), 0)
        # the frame of docs/protocols.md "Order bytes"
        cap = conf['order']['capacity']
        if len(cap) != 1:
            die('bad value for [order] capacity: %r (expected one character)' % cap)
        self.capacity = cap.encode('latin-1')
        src_ip, dst_ip = c_ip(conf, 'order', 'src_ip'), c_ip(conf, 'order', 'dst_ip')
        sport = c_int(conf, 'order', 'src_port', 0, 65535)
        dport = c_int(conf, 'order', 'dst_port', 0, 65535)
        eth = c_mac(conf, 'order', 'dst_mac') + c_mac(conf, 'order', 'src_mac') + b'\x08\x00'
        ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 78, 0, 0x4000, 64, 17, 0,
                                   src_ip, dst_ip))
        struct.pack_into('>H', ip, 10, inet_checksum(ip))
        self.hdr = eth + bytes(ip)
        self.udp_ports = (sport, dport)
        # pseudo header + UDP header (checksum 0) partial sum
        self.udp_sum0 = csum16(src_ip + dst_ip + struct.pack('>BBH', 0, 17, 58) +
                               struct.pack('>HHHH', sport, dport, 58, 0))
        self.cnt = dict.fromkeys(SUMMARY_KEYS, 0)
        self.frames = []          # (ts, bytes)
        self.order_at = {}        # (raw session, seq) of a trigger -> [frame index, locate, signed qty]
        self.position = {}        # locate -> net shares
        self.thr_inst = {}        # locate -> accepted feed times, in order
        self.thr_total = []
        self.events_applied = 0
        self.ouch = struct.Struct('>cIcI8sQccccc14sH')

    def build_frame(self, side, qty, symbol, price, tif, display, clordid, urn):
        """docs/protocols.md "Order bytes": SoupBinTCP 3.00 Unsequenced Data
        carrying an OUCH 5.0 Enter Order, in UDP/IPv4/Ethernet."""
        ouch = self.ouch.pack(b'O', urn, side, qty, symbol, price, tif, display,
                              self.capacity, b'N', b'N', clordid, 0)
        payload = b'\x00\x30U' + ouch           # SoupBinTCP length 48, 'U'
        c = ~csum16(payload, self.udp_sum0) & 0xFFFF
        if c == 0:          # RFC 768: a computed 0 is sent as all ones
            c = 0xFFFF
        udp = struct.pack('>HHHH', self.udp_ports[0], self.udp_ports[1], 58, c)
        return self.hdr + udp + payload


def run(feed_path, conf, table, trace=None, events=None):
    eng = Engine(conf, table)
    cnt = eng.cnt
    NINST = eng.ninst
    group = c_ip(conf, 'feed', 'group')
    any_group = group == b'\0\0\0\0'
    fport = c_int(conf, 'feed', 'port', 0, 65535)
    fvlan = c_int(conf, 'feed', 'vlan', 0, 4095)
    max_jump = c_int(conf, 'feed', 'max_jump')
    confirm = c_int(conf, 'feed', 'session_confirm', 0, U32)
    join = conf['feed']['join']
    if join not in ('recover', 'baseline'):
        die('bad value for [feed] join: %r (expected recover or baseline)' % join)
    baseline = join == 'baseline'
    # with join = baseline, a session met mid-way: no trigger is evaluated
    # until warmup_messages messages (counting from the first of the joined
    # packet) have been applied; a later such join starts it again
    warmup = c_int(conf, 'feed', 'warmup_messages', 0, 1 << 31)
    warm = {'until': 0, 'left_alone': 0, 'joins': 0}

    drops = dict.fromkeys(DROP_KEYS + DROP_KEYS_NEW, 0)
    types = {}
    fst = {'frames': 0, 'messages': 0, 'heartbeats': 0, 'end_of_session': 0,
           'gaps': 0, 'gap_messages': 0}

    buf, e, _ns = pcap_records(feed_path)
    H = struct.Struct('>H').unpack_from
    MOLD = struct.Struct('>10sQH').unpack_from

    # ITCH field views (offsets from the message start)
    S_ADD = struct.Struct('>xHxxHIQBI8xI').unpack_from     # locate ts_hi ts_lo ref side shares price
    S_RED = struct.Struct('>xHxxHIQI').unpack_from         # E / X: locate tsh tsl ref shares
    S_C = struct.Struct('>xHxxHIQI8xBI').unpack_from       # locate tsh tsl ref shares printable price
    S_D = struct.Struct('>xHxxHIQ').unpack_from            # locate tsh tsl ref
    S_U = struct.Struct('>xHxxHIQQII').unpack_from         # locate tsh tsl old new shares price
    S_R = struct.Struct('>xH8x8s').unpack_from             # locate stock
    S_P = struct.Struct('>xH29xI').unpack_from             # locate price@32
    S_Q = struct.Struct('>xH24xI').unpack_from             # locate price@27
    LENB = LEN_BY_BYTE

    # book state (docs/protocols.md "Book")
    orders = {}                       # ref -> [locate, side 0/1, shares, price]
    lv = [None] * (2 * NINST)         # locate*2+side -> {price: [shares, count]}
    best = [0] * (2 * NINST)          # cached best price, 0 = empty, None = dirty
    names = [None] * NINST            # 8-byte raw names
    last_trade = [None] * NINST

    # name -> [expected, ended, index, superseded, taken a packet]; only
    # sessions that were taken (became the current one) are here
    sessions = {}
    sess_names = []
    cur = None                        # the current session's list
    cand_name, cand_n, cand_next = None, 0, 0   # a new session not confirmed yet
    suspect = None                    # (session list, seq + blocks) of a held jump

    # strategy state
    tbl = eng.table
    if tbl is not None:
        T_INST, T_S, T_I, T_TICK = tbl.instruments, tbl.spreads, tbl.imbalances, tbl.tick
        tdata = tbl.data
        if events and any(ev.kind == 'patch' for ev in events):
            tdata = bytearray(tdata)    # patched in place
    ENT = ENTRY.unpack_from
    kill = eng.kill
    disable = eng.disable
    max_q, max_notional10k = eng.max_quantity, eng.max_notional * 10000
    collar_bps, max_pos = eng.collar_bps, eng.max_position
    W, max_oi, max_ot = eng.window_ns, eng.max_oi, eng.max_ot
    venue, max_open = eng.venue, eng.max_open
    open_orders, open_side = eng.open, eng.open_side
    position = eng.position
    thr_inst, thr_total = eng.thr_inst, eng.thr_total
    frames = eng.frames
    build = eng.build_frame

    def get_best(k):
        b = best[k]
        if b is None:
            d = lv[k]
            if d:
                b = max(d) if not (k & 1) else min(d)
            else:
                b = 0
            best[k] = b
        return b

    def add(loc, side, ref, shares, price):
        k = loc * 2 + side
        orders[ref] = [loc, side, shares, price]
        d = lv[k]
        if d is None:
            d = lv[k] = {}
        l = d.get(price)
        if l is None:
            d[price] = [shares, 1]
            b = best[k]
            if b is not None and (b == 0 or (price < b if side else price > b)):
                best[k] = price
        else:
            l[0] += shares
            l[1] += 1

    def remove(ref, o):
        del orders[ref]
        k = o[0] * 2 + o[1]
        d = lv[k]
        p = o[3]
        l = d[p]
        l[0] -= o[2]
        l[1] -= 1
        if l[1] == 0:
            del d[p]
            if best[k] == p:
                best[k] = None

    def reduce(ref, o, n):
        if n >= o[2]:
            remove(ref, o)
        else:
            o[2] -= n
            lv[o[0] * 2 + o[1]][o[3]][0] -= n

    def decide_traced(loc, sidx, seqno, ts):
        if tbl is None:
            cnt['triggers'] += 1
            return
        before = dict(cnt)
        decide1(loc, sidx, seqno, ts)
        what = [k for k in SUMMARY_KEYS[1:] if cnt[k] != before[k] and k != 'decisions']
        b, a = get_best(loc * 2), get_best(loc * 2 + 1)
        lt = last_trade[loc] if loc < NINST else None
        trace.write('%s %d loc %d t %d bid %d %d ask %d %d last %s -> %s\n' % (
            sess_names[sidx].decode('latin-1'), seqno, loc, ts,
            b, lv[loc * 2][b][0] if b else 0, a, lv[loc * 2 + 1][a][0] if a else 0,
            '-' if lt is None else lt, what[0] if what else '?'))

    def decide_book_only(loc, sidx, seqno, ts):
        cnt['triggers'] += 1

    def decide1(loc, sidx, seqno, ts):
        # docs/protocols.md "Trigger" and "Pricing table key"
        cnt['triggers'] += 1
        if loc >= T_INST:
            cnt['out_of_table'] += 1
            return
        k = loc * 2
        bid = best[k]
        if bid is None:
            bid = get_best(k)
        ask = best[k + 1]
        if ask is None:
            ask = get_best(k + 1)
        if bid == 0 or ask == 0:
            cnt['no_quote'] += 1
            return
        bs = lv[k][bid][0]
        as_ = lv[k + 1][ask][0]
        if bs == 0 or as_ == 0:   # a touch of zero shares is no quote
            cnt['no_quote'] += 1
            return
        if ask <= bid:
            cnt['crossed'] += 1
            return
        st = (ask - bid) // T_TICK
        s = (st if st > 1 else 1)
        s = (s if s < T_S else T_S) - 1
        i = (T_I * bs) // (bs + as_)      # bs, as_ > 0 here (no_quote above)
        if i > T_I - 1:
            i = T_I - 1
        key = (loc * T_S + s) * T_I + i
        # docs/protocols.md "Pricing table entry"
        _seq, action, mode, tif, display, eprice, qty, _tag = ENT(tdata, 64 + key * 64)
        if action == 66:      # 'B'
            if mode == 0:
                price = bid + eprice
            elif mode == 1:
                price = eprice
            else:
                price = 0     # unknown price mode: bad_entry
        elif action == 83:    # 'S'
            if mode == 0:
                price = ask - eprice
            elif mode == 1:
                price = eprice
            else:
                price = 0
        else:
            cnt['no_action'] += 1
            return
        if not 1 <= price <= 2000000000 or qty == 0:
            cnt['bad_entry'] += 1
            return
        cnt['decisions'] += 1
        # pre-trade risk, in the order of docs/protocols.md "Pre-trade risk"
        if kill:
            cnt['reject_kill_switch'] += 1
            return
        name = names[loc]
        if disable and name is not None and name.decode('latin-1').strip(' ') in disable:
            cnt['reject_instrument_disabled'] += 1
            return
        if qty > max_q:
            cnt['reject_max_quantity'] += 1
            return
        if price * qty > max_notional10k:
            cnt['reject_max_notional'] += 1
            return
        ref = last_trade[loc]
        if ref is None:
            ref = (bid + ask) // 2
        if abs(price - ref) * 10000 > collar_bps * ref:
            cnt['reject_price_collar'] += 1
            return
        # filled plus open exposure on the order's side (nothing is open
        # without a venue; docs/venue.md "What the replicas do with the
        # answers")
        if action == 66:
            pos = position.get(loc, 0) + open_side.get((loc, 'B'), 0) + qty
        else:
            pos = position.get(loc, 0) - open_side.get((loc, 'S'), 0) - qty
        if abs(pos) > max_pos:
            cnt['reject_position_limit'] += 1
            return
        urn = seqno & 0xFFFFFFFF
        if venue and (len(open_orders) >= max_open or urn in open_orders):
            cnt['reject_open_orders'] += 1
            return
        # throttles (docs/protocols.md "Pre-trade risk"): with the current
        # limit N (1 or more), throttled when the N-th most recent accepted
        # order of the scope has feed time later than ts - W (later than
        # ts included: feed time that went back still throttles)
        ti = thr_inst.get(loc)
        if ti is None:
            ti = thr_inst[loc] = []
        if len(ti) >= max_oi and ts - W < ti[-max_oi]:
            cnt['reject_throttle_instrument'] += 1
            return
        if len(thr_total) >= max_ot and ts - W < thr_total[-max_ot]:
            cnt['reject_throttle_total'] += 1
            return
        if venue:
            sd = 'B' if action == 66 else 'S'
            open_orders[urn] = [loc, sd, qty]
            open_side[(loc, sd)] = open_side.get((loc, sd), 0) + qty
        else:
            position[loc] = pos
        ti.append(ts)
        thr_total.append(ts)
        cnt['orders'] += 1
        # docs/protocols.md "Order bytes": UserRefNum seq mod 2^32, ClOrdID
        # the raw session field's last 4 bytes and seq mod 10^10
        sname = sess_names[sidx]
        if unsent_q:
            order_at[(sname, seqno)] = [len(frames), loc, qty if action == 66 else -qty]
        clordid = sname[6:10] + b'%010d' % (seqno % 10000000000)
        frames.append((ts, build(b'B' if action == 66 else b'S', qty,
                                 name if name is not None else b'        ',
                                 price, bytes((tif,)), bytes((display,)), clordid,
                                 seqno & 0xFFFFFFFF)))

    evq = events or []
    n_ev = len(evq)
    last_msg = None                   # (sidx, seq) of the last message
    # orders recalled before they were sent: (session, seq) of their triggers
    unsent_q = [ev for ev in evq if ev.kind == 'unsent']
    order_at = eng.order_at
    recalled = {}                     # trigger -> frame index of its order

    def recall(ev):
        """The order of ev's trigger never left: its effect on the position
        is taken back, the throttle windows keep its time (docs/design.md
        "Control events")."""
        o = order_at.pop(ev.args, None)
        if o is None:
            die('%s: unsent: %s order with trigger %s %d: %s' % (
                ev.where, 'an already unsent' if ev.args in recalled else
                'no (earlier) decided', ev.args[0].hex(), ev.args[1], ev.text))
        if venue:
            o_ = open_orders.get(ev.args[1] & 0xFFFFFFFF)
            if o_ is not None:
                take(ev.args[1] & 0xFFFFFFFF, o_[2], False)
        else:
            position[o[1]] -= o[2]
        recalled[ev.args] = o[0]

    vst = eng.venue_stats

    def take(urn, n, filled):
        """n of an open order's shares leave it (to the position if
        filled); it closes when none are left."""
        o = open_orders[urn]
        open_side[(o[0], o[1])] -= n
        if filled:
            position[o[0]] = position.get(o[0], 0) + (n if o[1] == 'B' else -n)
        o[2] -= n
        if o[2] == 0:
            del open_orders[urn]
            vst['closed_orders'] += 1

    def venue_answer(a):
        """One venue answer, as every replica applies it (docs/venue.md
        "What the replicas do with the answers")."""
        _vseq, t, urn, qty, orig, _side, reason = a
        if not venue:
            return
        if t == 'U':
            if orig not in open_orders:
                vst['unknown_orders'] += 1
                return
            if urn != orig and urn in open_orders:
                return
            o = open_orders[orig]
            loc, sd, rem = o
            vst['reduced_shares'] += rem
            take(orig, rem, False)
            if reason == ord('D'):      # replaced dead: nothing open
                qty = 0
            if qty:
                open_orders[urn] = [loc, sd, qty]
                open_side[(loc, sd)] = open_side.get((loc, sd), 0) + qty
            return
        if t not in 'ECDJAM':
            return
        o = open_orders.get(urn)
        if o is None:
            vst['unknown_orders'] += 1
            return
        if t == 'E':
            # more than is open: all of it joins the position, the
            # conservative side (docs/venue.md "What the replicas do
            # with the answers")
            extra = max(qty - o[2], 0)
            position[o[0]] = position.get(o[0], 0) + \
                (extra if o[1] == 'B' else -extra)
            n = qty - extra
            vst['filled_shares'] += qty
            take(urn, n, True)
        elif t in 'CD':
            n = min(qty, o[2])
            vst['reduced_shares'] += n
            take(urn, n, False)
        elif t == 'J':
            vst['reduced_shares'] += o[2]
            take(urn, o[2], False)
        else:                           # A (dead: nothing open), M: restate
            q = 0 if t == 'A' and reason == ord('D') else qty
            if q < o[2]:
                vst['reduced_shares'] += o[2] - q
                take(urn, o[2] - q, False)
            else:
                open_side[(o[0], o[1])] += q - o[2]
                o[2] = q

    def apply_events(k, sidx, seqno):
        """Applies, in file order, the events from evq[k] on that take
        effect before message (sidx, seqno); returns the next pending one.
        Sessions are ordered by first meeting (sidx).  docs/design.md
        "Control events"."""
        nonlocal kill, max_q, max_notional10k, collar_bps, max_pos, W, max_oi, max_ot, max_open
        while k < n_ev:
            ev = evq[k]
            if ev.sess is not None:
                st = sessions.get(ev.sess)
                if st is None or not (st[2] < sidx or (st[2] == sidx and seqno >= ev.seq)):
                    break
            a = ev.args
            if ev.kind == 'kill':
                kill = a
            elif ev.kind == 'disable':
                if a[1]:
                    disable.add(a[0])
                else:
                    disable.discard(a[0])
            elif ev.kind == 'limit':
                name, v = a
                if name == 'max_quantity':
                    max_q = v
                elif name == 'max_notional':
                    max_notional10k = v * 10000
                elif name == 'collar_bps':
                    collar_bps = v
                elif name == 'max_position':
                    max_pos = v
                elif name == 'window_ms':
                    W = v * 1000000
                elif name == 'max_orders_instrument':
                    max_oi = v
                elif name == 'max_open_orders':
                    max_open = v
                else:
                    max_ot = v
            elif ev.kind == 'unsent':
                recall(ev)
            elif ev.kind == 'venue':
                venue_answer(a)
            elif tbl is not None:           # patch
                for key, ent in a:
                    tdata[64 + key * 64:128 + key * 64] = ent
            eng.events_applied += 1
            if trace is not None:
                trace.write('event %d applied before %s %d: %s\n' % (
                    ev.eid, sess_names[sidx].decode('latin-1'), seqno, ev.text))
            k += 1
        return k

    if trace is not None:
        decide = decide_traced
    elif tbl is None:
        decide = decide_book_only
    else:
        decide = decide1
    if baseline:
        decide_after_warmup = decide

        def decide(loc, sidx, seqno, ts):
            # fst['messages'] already counts this message
            if fst['messages'] <= warm['until']:
                warm['left_alone'] += 1
                return
            decide_after_warmup(loc, sidx, seqno, ts)

    ev_k = 0
    # the decoder: docs/protocols.md "Frame checks", "Sessions", "Sequence
    # numbers" (drop reasons: docs/design.md "The feed path")
    for _s, _f, p, flen in pcap_iter(buf, e):
        fst['frames'] += 1
        end = p + flen
        if flen < 14:
            drops['eth_short'] += 1
            continue
        et = H(buf, p + 12)[0]
        q = p + 14
        vid = 0
        tagged = False
        if et == 0x8100 or et == 0x88A8:       # 802.1Q, 802.1ad
            if flen < 18:
                drops['eth_short'] += 1
                continue
            vid = H(buf, p + 14)[0] & 0x0FFF
            tagged = True
            et = H(buf, p + 16)[0]
            q = p + 18
        if et != 0x0800:
            drops['not_ipv4'] += 1
            continue
        if fvlan and (not tagged or vid != fvlan):
            drops['vlan_mismatch'] += 1
            continue
        avail = end - q
        if avail < 20:
            drops['ip_truncated'] += 1
            continue
        vihl = buf[q]
        ihl = (vihl & 15) * 4
        tot = H(buf, q + 2)[0]
        if vihl >> 4 != 4 or ihl < 20 or tot < ihl:
            drops['ip_bad_header'] += 1
            continue
        if tot > avail:
            drops['ip_truncated'] += 1
            continue
        if H(buf, q + 6)[0] & 0x3FFF:
            drops['ip_fragment'] += 1
            continue
        if buf[q + 9] == 2 and tot - ihl >= 8 and buf[q + ihl] == 0x11:
            # an IGMP Membership Query (RFC 2236, RFC 3376: type 0x11)
            drops['igmp_query'] += 1
            continue
        if buf[q + 9] != 17:
            drops['not_udp'] += 1
            continue
        u = q + ihl
        iplen = tot - ihl
        if iplen < 8:
            drops['udp_bad_length'] += 1
            continue
        ulen = H(buf, u + 4)[0]
        if ulen < 8 or ulen > iplen:
            drops['udp_bad_length'] += 1
            continue
        if (not any_group and buf[q + 16:q + 20] != group) or (fport and H(buf, u + 2)[0] != fport):
            drops['not_feed'] += 1
            continue
        # checksums: the IPv4 header; the UDP one unless 0 (not sent), over
        # the pseudo header (source, destination, 0, 17, UDP length), the
        # UDP header and payload; a correct one sums to 0xFFFF
        if csum16(buf[q:u]) != 0xFFFF:
            drops['ip_checksum'] += 1
            continue
        if H(buf, u + 6)[0] != 0 and \
                csum16(buf[u:u + ulen], csum16(buf[q + 12:q + 20]) + 17 + ulen) != 0xFFFF:
            drops['udp_checksum'] += 1
            continue
        m = u + 8
        mend = u + ulen
        if mend - m < 20:
            drops['mold_short'] += 1
            continue
        sess, seq, count = MOLD(buf, m)
        blocks = None
        pos = m + 20
        if count != 0 and count != 0xFFFF:
            blocks = []
            bad = False
            for _i in range(count):
                if pos + 2 > mend:
                    bad = True
                    break
                bl = H(buf, pos)[0]
                pos += 2
                if pos + bl > mend:
                    bad = True
                    break
                blocks.append((pos, bl))
                pos += bl
            if bad:
                drops['mold_truncated'] += 1
                continue
        if pos != mend:     # also a heartbeat / end of session with a body
            drops['mold_trailing'] += 1
            continue
        nblk = 0 if blocks is None else count
        if seq + nblk > U64:    # the numbers would wrap: not a real packet
            drops['mold_truncated'] += 1
            continue
        if seq == 0:        # MoldUDP64 numbers from 1: a zeroed or damaged header
            drops['mold_seq_zero'] += 1
            continue
        # docs/protocols.md "Sessions"
        st = sessions.get(sess)
        if st is None:
            # a session not met before: taken when there is no current one
            # or it has ended; else only the confirm-th consecutive packet in
            # sequence of this same name takes over (the earlier ones dropped)
            live = cur is not None and not cur[1]
            if live:
                if confirm == 0:
                    drops['mold_new_session'] += 1
                    continue
                if cand_n == 0 or cand_name != sess or seq != cand_next:
                    cand_name, cand_n = sess, 0
                cand_n += 1
                cand_next = seq + nblk
                if cand_n < confirm:
                    drops['mold_new_session'] += 1
                    continue
            if len(sessions) >= 4:
                drops['mold_too_many_sessions'] += 1
                continue
            if live:        # superseded: ended, and its end is after_end
                cur[3] = True
                cur[1] = True
            cand_n = 0
            st = sessions[sess] = [1, False, len(sess_names), False, False]
            sess_names.append(sess)
            cur = st
            if baseline and seq > 1:    # joined mid-session: no gap
                st[0] = seq
                warm['until'] = fst['messages'] + warmup
                warm['joins'] += 1
        if st[1]:
            # a repeated end of session (e.g. from the other A/B line) is a
            # duplicate; anything else after the end, and any packet of a
            # superseded session, is mold_after_end
            drops['mold_duplicate' if count == 0xFFFF and not st[3]
                  else 'mold_after_end'] += 1
            continue
        # docs/protocols.md "Sequence numbers"
        exp = st[0]
        # suspect jump: more than max_jump past the expected number, in a
        # session that took a packet before: held (dropped) until the next
        # packet of the session continues from it (real: go on, a gap) or
        # does not jump (forgotten)
        if max_jump and st[4] and seq > exp and seq - exp > max_jump:
            if suspect is not None and suspect[0] is st and seq >= suspect[1] \
                    and seq - suspect[1] <= max_jump:
                suspect = None
            else:
                suspect = (st, seq + nblk)
                drops['mold_suspect'] += 1
                continue
        elif suspect is not None and suspect[0] is st:
            suspect = None
        st[4] = True
        if blocks is None:
            if count == 0:
                fst['heartbeats'] += 1
            else:
                fst['end_of_session'] += 1
                st[1] = True
            if seq > exp:
                fst['gaps'] += 1
                fst['gap_messages'] += seq - exp
                st[0] = seq
            continue
        if seq + count - 1 < exp:
            drops['mold_duplicate'] += 1
            continue
        if seq > exp:
            fst['gaps'] += 1
            fst['gap_messages'] += seq - exp
            exp = seq
        st[0] = seq + count
        sidx = st[2]
        for j in range(exp - seq, count):
            mo, ml = blocks[j]
            if ml == 0:
                drops['itch_bad_length'] += 1
                continue
            t = buf[mo]
            want = LENB[t]
            if want != ml:
                if want < 0:
                    drops['itch_unknown_type'] += 1
                else:
                    drops['itch_bad_length'] += 1
                continue
            fst['messages'] += 1
            types[t] = types.get(t, 0) + 1
            seqno = seq + j
            if ev_k < n_ev:
                last_msg = (sidx, seqno)
                ev_k = apply_events(ev_k, sidx, seqno)
            # docs/protocols.md "Book"; a change is a trigger ("Trigger")
            if t == 65 or t == 70:                      # A, F
                loc, th, tl, ref, side, shares, price = S_ADD(buf, mo)
                if (side != 66 and side != 83) or not 1 <= price <= 2000000000 \
                        or ref in orders or loc >= NINST:
                    continue
                add(loc, 0 if side == 66 else 1, ref, shares, price)
                decide(loc, sidx, seqno, (th << 32) | tl)
            elif t == 69 or t == 88:                    # E, X
                loc, th, tl, ref, n = S_RED(buf, mo)
                o = orders.get(ref)
                if o is None:
                    continue
                reduce(ref, o, n)
                decide(o[0], sidx, seqno, (th << 32) | tl)
            elif t == 68:                               # D
                loc, th, tl, ref = S_D(buf, mo)
                o = orders.get(ref)
                if o is None:
                    continue
                remove(ref, o)
                decide(o[0], sidx, seqno, (th << 32) | tl)
            elif t == 85:                               # U
                loc, th, tl, ref, nref, shares, price = S_U(buf, mo)
                o = orders.get(ref)
                if o is None:
                    continue
                remove(ref, o)
                if 1 <= price <= 2000000000 and nref not in orders:
                    add(o[0], o[1], nref, shares, price)
                decide(o[0], sidx, seqno, (th << 32) | tl)
            elif t == 67:                               # C
                loc, th, tl, ref, n, printable, price = S_C(buf, mo)
                o = orders.get(ref)
                if o is None:
                    if printable == 89 and loc < NINST:
                        last_trade[loc] = price or None
                    continue
                if printable == 89:
                    last_trade[o[0]] = price or None
                reduce(ref, o, n)
                decide(o[0], sidx, seqno, (th << 32) | tl)
            elif t == 82:                               # R
                loc, stock = S_R(buf, mo)
                if loc < NINST:
                    names[loc] = stock
            elif t == 80:                               # P
                loc, price = S_P(buf, mo)
                if loc < NINST:
                    last_trade[loc] = price or None
            elif t == 81:                               # Q
                loc, price = S_Q(buf, mo)
                if loc < NINST:
                    last_trade[loc] = price or None

    # after the last message a replica takes, on a quiet feed or when it
    # stops, the events due before the next one of its session
    # (docs/design.md "Control events")
    if ev_k < n_ev and last_msg is not None:
        ev_k = apply_events(ev_k, last_msg[0], last_msg[1] + 1)
    # unsent orders never reached by their event (e.g. recalled after the
    # last message) never left either; one never decided is an error
    for ev in evq[ev_k:]:
        if ev.kind == 'unsent':
            recall(ev)
    if recalled:
        drop = set(recalled.values())
        frames[:] = [f for i, f in enumerate(frames) if i not in drop]
        cnt['orders'] -= len(drop)
    stats = dict(fst)
    stats['drops'] = drops
    stats['types'] = {chr(k): v for k, v in sorted(types.items())}
    stats['sessions'] = [(n.decode('latin-1'), st[0], st[1]) for n, st in sessions.items()]
    eng.warmup = warm

    def bbo_lines():
        out = []
        for loc in range(NINST):
            bd, ad = lv[loc * 2], lv[loc * 2 + 1]
            if names[loc] is None:      # like hedgewire --dump-book: named ones
                continue
            nm = names[loc].decode('latin-1').strip(' ')
            b, a = get_best(loc * 2), get_best(loc * 2 + 1)
            bl = bd[b] if b else (0, 0)
            al = ad[a] if a else (0, 0)
            out.append('bbo %d %s %d %d %d %d %d %d' % (loc, nm, b, bl[0], bl[1], a, al[0], al[1]))
        return out

    return eng, stats, bbo_lines


def main(argv=None):
    ap = argparse.ArgumentParser(description='hedgewire reference evaluator')
    ap.add_argument('--feed')
    ap.add_argument('--table')
    ap.add_argument('--conf')
    ap.add_argument('--out')
    ap.add_argument('--summary')
    ap.add_argument('--bbo', help='write every instrument\'s best bid/ask (generator bbo format)')
    ap.add_argument('--stats', help='write feed counters (generator truth vocabulary)')
    ap.add_argument('--trace', help='write one line per trigger: book touch and outcome')
    ap.add_argument('--events', metavar='FILE',
                    help='replay hedgewire\'s events log (control-plane changes at feed positions)')
    ap.add_argument('--crc32c', metavar='FILE', help='print the CRC-32C of FILE and exit')
    a = ap.parse_args(argv)
    if a.crc32c:
        with open(a.crc32c, 'rb') as f:
            print('0x%08x' % crc32c(f.read()))
        return 0
    if not a.feed:
        ap.error('--feed is required')
    if a.out and not a.table:
        ap.error('--out needs --table')
    conf = read_conf(a.conf)
    table = Table(a.table) if a.table else None
    events = None
    if a.events:
        if table is None:
            ap.error('--events needs --table')
        caps = {'max_orders_instrument': c_int(conf, 'risk', 'max_orders_instrument'),
                'max_orders_total': c_int(conf, 'risk', 'max_orders_total'),
                'max_open_orders': max(4096, c_int(conf, 'risk', 'max_open_orders'))}
        events = read_events(a.events, table, caps)
    trace = open(a.trace, 'w') if a.trace else None
    eng, stats, bbo_lines = run(a.feed, conf, table, trace, events)
    if trace is not None:
        trace.close()
    if a.out:
        pcap_write(a.out, eng.frames)
    if table is not None or a.summary:
        text = ''.join('%s %d\n' % (k, eng.cnt[k]) for k in SUMMARY_KEYS)
        if eng.venue:
            # what the venue's answers did, as hedgewire's summary says it
            text += ''.join('venue_%s %d\n' % kv for kv in eng.venue_stats.items())
            text += 'open_orders %d\n' % len(eng.open)
        if a.summary:
            with open(a.summary, 'w') as f:
                f.write(text)
        sys.stdout.write(text)
    if eng.warmup['joins']:
        sys.stderr.write('baseline_joins %d\nwarmup_triggers %d\n'
                         % (eng.warmup['joins'], eng.warmup['left_alone']))
    if events is not None:
        sys.stderr.write('events_applied %d\nevents_not_reached %d\n'
                         % (eng.events_applied, len(events) - eng.events_applied))
    if a.bbo:
        with open(a.bbo, 'w') as f:
            f.write(''.join(l + '\n' for l in bbo_lines()))
    if a.stats:
        with open(a.stats, 'w') as f:
            for k in ('frames', 'messages', 'heartbeats', 'end_of_session', 'gaps', 'gap_messages'):
                f.write('%s %d\n' % (k, stats[k]))
            for name, exp, ended in stats['sessions']:
                f.write('session %s next %d ended %d\n' % (name, exp, ended))
            for k, v in stats['drops'].items():
                if v or k not in DROP_KEYS_NEW:
                    f.write('drop %s %d\n' % (k, v))
            for k, v in stats['types'].items():
                f.write('type %s %d\n' % (k, v))
    return 0


if __name__ == '__main__':
    sys.exit(main())
