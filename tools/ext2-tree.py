#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext2-tree.py DIR [--no-triple] - make the tree of files the ext2 tests put on disk.

The same tree, made the same way every time, is copied into images by
`mke2fs -t ext2 -d DIR` (tools/ext2-image.sh) and read back by Spindle;
the host's view of it (cksum, os.lstat) is the oracle the guest's output
is compared with (tools/ext2-check.py).  It exercises what an ext2 reader
must get right:

  - files that stop in the direct blocks, the single and the double
    indirect blocks, and a sparse one whose data lies past 64 MiB, in the
    triple indirect blocks of a 1 KiB-block file system (holes read as
    zeros at every level);
  - an empty file, a one-letter name, a 255-byte name, names with spaces;
  - a directory of 300 entries (many directory blocks);
  - a fast symbolic link (target in the inode), a slow one (a target of
    more than 60 bytes, in a block), a dangling one;
  - a hard link (nlink 2);
  - modes, owners and times set to known values.

--no-triple leaves out the 64 MiB sparse file, which only a 1 KiB-block
file system maps through triple indirection (larger blocks reach it with
double indirection, which the other sparse file already covers): the
guest sums 64 MiB of zeros in seconds that the other block sizes can save.

Must run as root (chown).  File contents come from a fixed generator, so
the tree is the same on every machine.
"""
import os
import sys

MTIME = 1600000000          # 2020-09-13: every file's mtime, unless set
ATIME = 1500000000


def data(n, seed):
    """n bytes of a fixed pseudo-random sequence (an LCG: no imports)."""
    out = bytearray(n)
    x = seed
    for i in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        out[i] = x >> 56
    return bytes(out)


def write(path, content, mode=0o644, uid=0, gid=0, mtime=MTIME):
    with open(path, 'wb') as f:
        f.write(content)
    os.chown(path, uid, gid)        # before chmod: chown clears set-user-ID
    os.chmod(path, mode)
    os.utime(path, (ATIME, mtime))


def sparse(path, size, chunks, seed):
    """A file of `size` bytes with data only at the (offset, length) chunks."""
    with open(path, 'wb') as f:
        for i, (off, n) in enumerate(chunks):
            f.seek(off)
            f.write(data(n, seed + i))
        f.truncate(size)
    os.utime(path, (ATIME, MTIME))


def main():
    top = sys.argv[1]
    os.makedirs(top)
    j = os.path.join
    write(j(top, 'hello.txt'), b'hello, ext2\n', 0o644, 1000, 100, 1234567890)
    write(j(top, 'empty'), b'', 0o600, 1001, 1001)
    write(j(top, 'a'), b'x', 0o444)
    write(j(top, 'direct.bin'), data(11 * 1024, 1))             # 1 KiB: direct only
    write(j(top, 'indirect.bin'), data(200 * 1024, 2))          # 1 KiB: single indirect
    write(j(top, 'double.bin'), data(300 * 1024 + 123, 3))      # 1 KiB: double indirect
    write(j(top, 'script.sh'), b'#!/bin/sh\necho hi\n', 0o755, 0, 0)
    write(j(top, 'setuid'), b'suid\n', 0o4755, 0, 0)
    write(j(top, 'name with spaces'), b'spaces\n')
    write(j(top, 'n' * 255), b'the longest name\n')
    # holes at every level: 2 KiB blocks reach double indirection past
    # 1 MiB, 4 KiB blocks past 4 MiB
    sparse(j(top, 'sparse.bin'), 5 * 1024 * 1024 + 4096,
           [(0, 100), (20 * 1024, 5000), (300 * 1024, 4096),
            (1100 * 1024, 3000), (5 * 1024 * 1024, 4096)], 10)
    # 1 KiB blocks: triple indirection starts at (12 + 256 + 65536) KiB
    if '--no-triple' not in sys.argv[2:]:
        sparse(j(top, 'triple.bin'), 67400000 + 5000, [(0, 10), (67400000, 5000)], 20)
    os.link(j(top, 'hello.txt'), j(top, 'hardlink'))
    os.symlink('hello.txt', j(top, 'link-fast'))
    os.symlink('nowhere', j(top, 'link-dangling'))
    d = j(top, 'dir', 'sub', 'deep')
    os.makedirs(d)
    write(j(d, 'file.txt'), b'deep down\n', 0o640, 42, 43)
    # more than 60 bytes: kept in a block ("slow"), still a valid path
    os.symlink('dir/sub/deep/' + '../deep/' * 8 + 'file.txt', j(top, 'link-slow'))
    os.symlink('../..', j(top, 'dir', 'sub', 'up'))
    many = j(top, 'many')
    os.makedirs(many)
    for i in range(300):
        write(j(many, 'entry-%03d' % i), b'%d\n' % i)
    for p, mode, uid, gid in [(j(top, 'dir'), 0o750, 7, 8), (j(top, 'dir', 'sub'), 0o755, 0, 0),
                              (d, 0o700, 42, 43), (many, 0o755, 0, 0)]:
        os.chown(p, uid, gid)
        os.chmod(p, mode)
        os.utime(p, (ATIME, MTIME))
    for p in ['link-fast', 'link-dangling', 'link-slow', 'dir/sub/up']:
        os.utime(j(top, p), (ATIME, MTIME), follow_symlinks=False)
    os.utime(top, (ATIME, MTIME))


if __name__ == '__main__':
    main()
