#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The venue's end of tcp-dlg's connection (Linux's TCP): accepts one
connection, reads until the client's FIN, and checks the stream against
the published OUCH 5.0 and SoupBinTCP layouts: every packet an
Unsequenced Data packet ('U', length 48) holding one Enter Order ('O',
47 bytes) whose fields are those tcp-dlg builds for its UserRefNum i,
and the UserRefNums strictly increasing. Writes them one a line to
--refs.

  tcp_dlg_peer.py --listen IP:PORT --ready FILE --refs FILE
      [--stall-after BYTES --stall-s S] [--rx-times FILE]

--stall-after: stop reading after that many bytes for S seconds, with a
small receive buffer, so that the window closes (a receiver that stops).
--rx-times: when the kernel received an order (SO_TIMESTAMPNS,
CLOCK_REALTIME ns) and its UserRefNum, one a line, for each read that
ended with a whole order (a read's stamp is its last segment's; the
orders before it in the same read are left out).
Exit 0, or 1 naming the first packet that is not what it should be.
"""
import argparse
import socket
import struct
import sys
import time

ENTER = struct.Struct('>cIcI8sQccccc14sH')   # 47 bytes
# Linux's SO_TIMESTAMPNS (asm-generic/socket.h), where Python lacks it
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)


def expected(i):
    """tcp-dlg's order of trigger i, by the OUCH 5.0 layout."""
    return ENTER.pack(b'O', i, b'B' if i & 1 else b'S', 100 + i % 900,
                      b'HGWT    ', 1000000 + (i % 5000) * 100, b'0', b'Y',
                      b'A', b'N', b'N', b'0001' + b'%010d' % (i % 10**10), 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--listen', required=True)
    ap.add_argument('--ready', required=True)
    ap.add_argument('--refs', required=True)
    ap.add_argument('--stall-after', type=int, default=0)
    ap.add_argument('--stall-s', type=float, default=0)
    ap.add_argument('--rx-times')
    a = ap.parse_args()
    host, port = a.listen.rsplit(':', 1)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.stall_after:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ls.bind((host, int(port)))
    ls.listen(1)
    with open(a.ready, 'w') as f:
        f.write('%d\n' % ls.getsockname()[1])
    s, _ = ls.accept()
    if a.rx_times:
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    buf = bytearray()
    stamps = []                 # (bytes received so far, kernel ns)
    stalled = False
    while True:
        if a.stall_after and not stalled and len(buf) >= a.stall_after:
            stalled = True
            time.sleep(a.stall_s)
        d, anc, _, _ = s.recvmsg(65536, 64)
        if not d:
            break
        buf += d
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack('qq', val[:16])
                stamps.append((len(buf), sec * 10**9 + nsec))
    s.close()
    refs, off, last = [], 0, 0
    while off < len(buf):
        if len(buf) - off < 3:
            print('FAIL: %d bytes of a packet at the end' % (len(buf) - off))
            return 1
        ln, typ = struct.unpack_from('>Hc', buf, off)
        if ln != 48 or typ != b'U' or len(buf) - off < 50:
            print('FAIL: packet %d at byte %d: length %d type %r'
                  % (len(refs) + 1, off, ln, typ))
            return 1
        body = bytes(buf[off + 3:off + 50])
        i = struct.unpack_from('>I', body, 1)[0]
        if body != expected(i):
            print('FAIL: packet %d (UserRefNum %d) is not its order'
                  % (len(refs) + 1, i))
            return 1
        if i <= last:
            print('FAIL: UserRefNum %d after %d (packet %d)'
                  % (i, last, len(refs) + 1))
            return 1
        last = i
        refs.append(i)
        off += 50
    with open(a.refs, 'w') as f:
        f.writelines('%d\n' % i for i in refs)
    if a.rx_times:
        # a read's stamp is its last segment's: it goes to the last order
        # that read completed only (orders before it in the same read
        # came earlier; they are left out)
        with open(a.rx_times, 'w') as f:
            for end, ns in stamps:
                if end % 50 == 0 and end // 50 <= len(refs):
                    f.write('%d %d\n' % (refs[end // 50 - 1], ns))
    print('peer: %d orders, %d bytes%s' % (len(refs), len(buf),
          ', stalled %.1f s' % a.stall_s if stalled else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
