#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pattern-check.py IMG OFFSET LENGTH SEED [--zero|--fill=BYTE] [--base=B] [--stripe=N:I:CHUNK] - the host's view of a guest's writes.

Reads the raw disk image IMG (as QEMU's guest saw it: a raw file) and checks
that bytes [OFFSET, OFFSET+LENGTH) hold the verification pattern of the
kernel's pattern= option (lib/pattern.c) for SEED: the 8-byte little-endian
word at byte offset 8*k of the device is splitmix64(SEED + k), k counted
from the start of the image.  With --zero, checks that the range reads as
zeros instead (after a discard); with --fill=BYTE, that every byte of it
is BYTE (bench's writes fill their buffers with 0xa5; SEED is then unused).

OFFSET and LENGTH take K, M, G suffixes (binary) and must be multiples of 8.
To check a partition, give its start on the disk as --base=<bytes>: k then
counts from the partition's start, as the guest's pattern= does.

To check one leg of a device-mapper striped target, --stripe=N:I:CHUNK
says the range is stripe I (0-based) of N, in chunks of CHUNK bytes (K, M
suffixes), and --base is that stripe's start on the disk: byte x of the
stripe holds byte ((x / CHUNK) * N + I) * CHUNK + x % CHUNK of the
striped device, whose pattern the guest wrote (dm-stripe.c's map, the
other way round).  OFFSET and LENGTH then count in the stripe.

Exit status 0 when every word matches; 1 with the first mismatches
(offset, expected, found) otherwise; 2 on bad arguments.  This is the
"outside oracle" of the IDE, AHCI and dm scenarios: the guest's own verify
could agree with a bug in its write path, the host cannot.
"""
import struct
import sys

MASK = (1 << 64) - 1
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
CHUNK = 1 << 20


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def size(text):
    text = text.strip().upper()
    unit = text[-1] if text and text[-1] in UNITS else ""
    return int(text[:len(text) - len(unit)], 0) * UNITS[unit]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    zero = "--zero" in opts
    fill = None                     # a byte every byte should be
    base = 0
    stripe = None                   # (stripes, index, chunk bytes)
    for o in opts:
        if o.startswith("--base="):
            base = size(o.split("=", 1)[1])
        elif o.startswith("--stripe="):
            try:
                n, i, chunk = o.split("=", 1)[1].split(":")
                stripe = (int(n, 0), int(i, 0), size(chunk))
            except ValueError:
                stripe = (0, 0, 0)
            if not (stripe[0] > 0 and 0 <= stripe[1] < stripe[0] and
                    stripe[2] > 0 and stripe[2] % 8 == 0):
                print("pattern-check: --stripe=N:I:CHUNK wants 0 <= I < N and CHUNK a "
                      "positive multiple of 8", file=sys.stderr)
                return 2
        elif o.startswith("--fill="):
            fill = int(o.split("=", 1)[1], 0)
            if not 0 <= fill <= 255:
                print("pattern-check: --fill wants a byte, 0 to 0xff", file=sys.stderr)
                return 2
        elif o != "--zero":
            print("pattern-check: unknown option %s" % o, file=sys.stderr)
            return 2
    if len(args) != 4:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    img, offset, length, seed = args[0], size(args[1]), size(args[2]), int(args[3], 0)
    if offset % 8 or length % 8 or length <= 0:
        print("pattern-check: offset and length must be positive multiples of 8",
              file=sys.stderr)
        return 2
    bad = []
    nbad = 0
    with open(img, "rb") as f:
        f.seek(base + offset)
        done = 0
        while done < length:
            data = f.read(min(CHUNK, length - done))
            if not data:
                print("pattern-check: %s ends at byte %d, before the range does"
                      % (img, base + offset + done))
                return 1
            n = len(data) // 8
            words = struct.unpack("<%dQ" % n, data[:n * 8])
            k0 = (offset + done) // 8
            for i, w in enumerate(words):
                k = k0 + i
                if stripe:              # the striped device's word here
                    stripes, index, chunk = stripe
                    x = 8 * k
                    k = (((x // chunk) * stripes + index) * chunk + x % chunk) // 8
                if fill is not None:
                    want = fill * 0x0101010101010101
                else:
                    want = 0 if zero else splitmix64((seed + k) & MASK)
                if w != want:
                    nbad += 1
                    if len(bad) < 5:
                        bad.append((offset + done + 8 * i, want, w))
            done += n * 8
    if nbad:
        print("pattern-check: %s: %d of %d words differ in [%d, %d)%s:"
              % (img, nbad, length // 8, offset, offset + length,
                 " (want zeros)" if zero else
                 " (want bytes 0x%02x)" % fill if fill is not None else " (seed %d)" % seed))
        for off, want, got in bad:
            print("  byte %d: expected %016x, found %016x" % (off, want, got))
        return 1
    print("pattern-check: %s: %d words OK in [%d, %d)" % (img, length // 8, offset, offset + length))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
