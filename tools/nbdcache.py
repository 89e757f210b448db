# SPDX-License-Identifier: MIT
"""nbdcache.py - a disk with a volatile write cache, for power cuts.

QEMU killed with SIGKILL loses nothing it has already handed to a raw
image file: the host's page cache keeps every write, flushed or not, so
a cut never shows what a drive's cache does at a power failure.  A qcow2
overlay with cache=writeback comes nearer (QEMU 7.2 keeps the L2 table
entry of a newly allocated cluster in memory until a flush: `qemu-io -t
writeback`, a write, then `abort`, leaves the write unreadable), but it
loses only writes to clusters first allocated since the last flush: an
overwrite of an allocated cluster -- a journal block reused when the log
starts again, a block rewritten at its home -- always survives, and no
subset or order can be chosen.  This module is the disk instead: a small NBD
server (the NBD protocol's fixed newstyle handshake, NBD_OPT_GO, and the
READ, WRITE, FLUSH and DISC commands; flags SEND_FLUSH and SEND_FUA) that
QEMU's own NBD client connects to, and which keeps every write in memory
-- its cache, one copy per 512-byte sector -- until a FLUSH puts the
cache on the image file (a write with FUA goes to the file at once).
Reads see the cache, as a drive's do.

When the connection ends without NBD_CMD_DISC -- QEMU was killed: the
power cut -- what the cache holds is what the drive had not yet written:
cut(rng) writes a random subset of its sectors to the image (each kept or
dropped by the seeded rng: a drive writes its cache back in whatever
order it likes, and a write of several sectors may be torn) and drops
the rest.  That is Linux's
dm-log-writes and CrashMonkey's idea -- replay what a disk may have
written by the moment of the cut -- done live at the cut.  It is a fair
model of a drive's volatile cache because it keeps exactly the promise
ATA and NVMe make: data is on the media once a FLUSH CACHE (or a FUA
write) that followed it has completed, and nothing about the rest.

Recording (record=, CrashMonkey's and ALICE's idea): every WRITE (its
offset, data and FUA flag) and every FLUSH is also appended, in the order
the disk received them, to a file, with the size the guest's serial log
had then (serial=): what the guest had printed before that command
arrived.  tools/crashstates.py rebuilds from such a file every state a
power cut could have left -- offline, without a boot per cut.  Records
are ">cBQIQ" (kind W, F or E for the clean end; FUA; offset; length;
serial size) followed, for W, by the data.  Each is on the file before
the command is answered.

    tools/nbdcache.py serve IMAGE SOCKET --record FILE [--serial LOG]

serves IMAGE in the background (the command returns once SOCKET
listens; the server ends with its one client).

Used by tools/powercut.py --cache and labs/09-crash-consistency; not a
general NBD server (one client, one export, no TLS, no structured
replies).
"""
import argparse
import os
import socket
import struct
import sys
import threading
from pathlib import Path

NBDMAGIC = 0x4E42444D41474943           # "NBDMAGIC"
IHAVEOPT = 0x49484156454F5054           # "IHAVEOPT"
REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES = 1, 2
OPT_EXPORT_NAME, OPT_ABORT, OPT_GO = 1, 2, 7
REP_ACK, REP_INFO, REP_ERR_UNSUP = 1, 3, (1 << 31) + 1
INFO_EXPORT = 0
TFLAG_HAS_FLAGS, TFLAG_SEND_FLUSH, TFLAG_SEND_FUA = 1, 4, 8
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
CMD_FLAG_FUA = 1
EINVAL = 22
SECTOR = 512
RECORD = struct.Struct(">cBQIQ")        # kind, FUA, offset, length, serial log size
SERVE_ACCEPT_TIMEOUT = 300              # seconds serve waits for its client: no server
                                        # outlives a QEMU that never started


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


class CacheDisk:
    """An image file behind a write cache, served over NBD on a Unix socket."""

    def __init__(self, image, sock_path, record=None, serial=None, start=True):
        self.image = image
        self.record = open(record, "wb") if record else None
        self.serial = serial
        self.size = image.stat().st_size
        self.cache = {}                  # sector -> its newest 512 bytes, not yet on the file
        self.flushes = self.writes = 0
        self.clean_end = False           # the client said NBD_CMD_DISC
        self.error = None
        self.sock_path = sock_path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(sock_path))
        self.listener.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        if start:
            self.thread.start()

    # -- the cache: whole sectors, the drive's unit of atomic write ------

    def _read(self, offset, length):
        with open(self.image, "rb") as f:
            f.seek(offset)
            data = bytearray(f.read(length))
        for i in range(length // SECTOR):
            cached = self.cache.get(offset // SECTOR + i)
            if cached is not None:
                data[i * SECTOR:(i + 1) * SECTOR] = cached
        return bytes(data)

    def _put(self, sectors):
        """Sectors {number: bytes} onto the image file."""
        with open(self.image, "r+b") as f:
            for n in sorted(sectors):
                f.seek(n * SECTOR)
                f.write(sectors[n])

    def _write(self, offset, data, fua):
        sectors = {offset // SECTOR + i: data[i * SECTOR:(i + 1) * SECTOR]
                   for i in range(len(data) // SECTOR)}
        if fua:
            # on the media before the reply; the cache's older copies of
            # these sectors are gone (a drive keeps one copy per sector)
            self._put(sectors)
            for n in sectors:
                self.cache.pop(n, None)
        else:
            self.cache.update(sectors)

    def _flush(self):
        self._put(self.cache)
        self.cache = {}
        self.flushes += 1

    def cut(self, rng):
        """After the power cut: each cached sector reached the media or not,
        as the seeded rng says (a drive writes its cache back in whatever
        order it likes, so any subset is possible); the rest is lost.
        Returns (sectors kept, sectors lost)."""
        self.thread.join(timeout=10)
        kept = {n: d for n, d in sorted(self.cache.items()) if rng.random() < 0.5}
        self._put(kept)
        lost = len(self.cache) - len(kept)
        self.cache = {}
        return len(kept), lost

    def _log(self, kind, fua=0, offset=0, data=b""):
        """One record, on the file before the command is answered."""
        if not self.record:
            return
        try:
            seen = os.stat(self.serial).st_size if self.serial else 0
        except OSError:
            seen = 0
        self.record.write(RECORD.pack(kind, 1 if fua else 0, offset, len(data), seen) + data)
        self.record.flush()

    # -- the protocol ---------------------------------------------------

    def _serve(self):
        try:
            conn, _ = self.listener.accept()
            conn.settimeout(None)       # the listener's timeout is for accept() alone
            with conn:
                if self._handshake(conn):
                    self._transmission(conn)
        except (EOFError, BrokenPipeError, ConnectionResetError):
            pass                        # QEMU gone, maybe mid-reply: the cut
        except Exception as e:          # noqa: BLE001  (reported by the caller)
            self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.listener.close()
            # no socket file left in build/: nothing else can use it, and
            # a copy of build/ (tools/mklab.py) cannot copy one
            try:
                os.unlink(self.sock_path)
            except OSError:
                pass

    def _option_reply(self, conn, opt, rtype, data=b""):
        conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, rtype, len(data)) + data)

    def _handshake(self, conn):
        conn.sendall(struct.pack(">QQH", NBDMAGIC, IHAVEOPT,
                                 FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
        recv_exact(conn, 4)             # the client's flags
        tflags = TFLAG_HAS_FLAGS | TFLAG_SEND_FLUSH | TFLAG_SEND_FUA
        while True:
            magic, opt, length = struct.unpack(">QII", recv_exact(conn, 16))
            if magic != IHAVEOPT:
                raise ValueError("bad option magic %#x" % magic)
            recv_exact(conn, length)
            if opt == OPT_GO:
                self._option_reply(conn, opt, REP_INFO,
                                   struct.pack(">HQH", INFO_EXPORT, self.size, tflags))
                self._option_reply(conn, opt, REP_ACK)
                return True
            if opt == OPT_EXPORT_NAME:
                conn.sendall(struct.pack(">QH", self.size, tflags))
                return True
            if opt == OPT_ABORT:
                return False
            self._option_reply(conn, opt, REP_ERR_UNSUP)

    def _transmission(self, conn):
        while True:
            magic, flags, cmd, handle, offset, length = struct.unpack(
                ">IHHQQI", recv_exact(conn, 28))
            if magic != REQUEST_MAGIC:
                raise ValueError("bad request magic %#x" % magic)
            if cmd == CMD_DISC:
                self.clean_end = True
                self._log(b"E")
                return
            bad = offset + length > self.size
            if cmd == CMD_WRITE:
                data = recv_exact(conn, length)
                bad = bad or offset % SECTOR or length % SECTOR
                if not bad:
                    self.writes += 1
                    self._log(b"W", flags & CMD_FLAG_FUA, offset, data)
                    self._write(offset, data, flags & CMD_FLAG_FUA)
                conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, EINVAL if bad else 0, handle))
            elif cmd == CMD_READ:
                bad = bad or offset % SECTOR or length % SECTOR
                data = b"" if bad else self._read(offset, length)
                conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, EINVAL if bad else 0,
                                         handle) + data)
            elif cmd == CMD_FLUSH:
                self._log(b"F")
                self._flush()
                conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, 0, handle))
            else:
                conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, EINVAL, handle))


def read_records(path):
    """A recording's records: [(kind, fua, offset, data, serial size)]."""
    raw = Path(path).read_bytes()
    out, pos = [], 0
    while pos + RECORD.size <= len(raw):
        kind, fua, offset, length, seen = RECORD.unpack_from(raw, pos)
        pos += RECORD.size
        data = raw[pos:pos + length] if kind == b"W" else b""
        pos += len(data)
        out.append((kind.decode(), bool(fua), offset, data, seen))
    return out


def serve(args):
    """Bind, then serve from a child in its own session: the caller (a
    scenario's prep=) goes on once the socket listens."""
    disk = CacheDisk(Path(args.image), Path(args.socket), args.record, args.serial, start=False)
    disk.listener.settimeout(SERVE_ACCEPT_TIMEOUT)
    if os.fork():
        os._exit(0)
    os.setsid()
    disk.thread.start()             # threads do not cross a fork: started here
    fd = os.open(os.devnull, os.O_RDWR)
    for n in (0, 1, 2):
        os.dup2(fd, n)
    disk.thread.join()
    if disk.clean_end:
        disk._flush()                   # the cache on the image: the run's end state
    if disk.record:
        disk.record.close()
    os._exit(0 if disk.error is None else 1)


def main():
    ap = argparse.ArgumentParser(description="an NBD disk with a volatile write cache")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve", help="serve IMAGE on SOCKET in the background, recording")
    sp.add_argument("image")
    sp.add_argument("socket")
    sp.add_argument("--record", help="append every WRITE and FLUSH to this file")
    sp.add_argument("--serial", help="the guest's serial log, whose size each record notes")
    args = ap.parse_args()
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
