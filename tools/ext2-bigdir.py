#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext2-bigdir.py FS DIR-INO files|subdirs COUNT - fill directory DIR-INO of
the fresh 1 KiB-block ext2 in FS (mke2fs made it) with COUNT empty files
f00000, f00001, ... or COUNT empty subdirectories d00000, ...

Why not mke2fs -d: libext2fs adds each name by reading the whole
directory first, so 47,616 names take minutes; this writes the inodes
and the directory's blocks in one pass, packed in name order, the way a
linear directory looks.  It sets only what a file system needs to be
read -- the inodes, the directory's blocks and block map, a new
subdirectory's "." and ".." block -- and leaves the bitmaps, the free
counts and the link counts of the parent to e2fsck -fy, which the caller
runs next (with -D, which also builds the index).  Blocks come from the
end of the file system, far from mke2fs's own, and inodes from the first
free one on; both are checked free in the bitmaps mke2fs wrote.
"""
import struct
import sys

BS = 1024
MTIME = 1600000000


def main():
    path, dir_ino, kind, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    f = open(path, "r+b")
    f.seek(1024)
    sb = f.read(1024)
    (inodes_count, blocks_count, _, _, _, first_data_block, log_bs) = struct.unpack_from("<7I", sb, 0)
    blocks_per_group, = struct.unpack_from("<I", sb, 32)
    inodes_per_group, = struct.unpack_from("<I", sb, 40)
    inode_size, = struct.unpack_from("<H", sb, 88)
    assert log_bs == 0 and first_data_block == 1, "1 KiB blocks only"
    groups = (blocks_count - first_data_block + blocks_per_group - 1) // blocks_per_group
    f.seek((first_data_block + 1) * BS)
    gdt = f.read(groups * 32)
    desc = [struct.unpack_from("<3I", gdt, 32 * g) for g in range(groups)]  # bbitmap, ibitmap, itable

    def read_block(n):
        f.seek(n * BS)
        return f.read(BS)

    def write_block(n, data):
        assert len(data) == BS
        f.seek(n * BS)
        f.write(data)

    def bit(bitmap, i):
        return bitmap[i >> 3] >> (i & 7) & 1

    # free inodes, from the first on; free blocks, from the last back
    def free_inodes():
        for g in range(groups):
            bm = read_block(desc[g][1])
            for i in range(inodes_per_group):
                if not bit(bm, i):
                    yield g * inodes_per_group + i + 1

    def free_blocks():
        for g in reversed(range(groups)):
            bm = read_block(desc[g][0])
            first = first_data_block + g * blocks_per_group
            n = min(blocks_per_group, blocks_count - first)
            for i in reversed(range(n)):
                if not bit(bm, i):
                    yield first + i

    def write_inode(ino, mode, links, size, nsect, block_map):
        g, i = divmod(ino - 1, inodes_per_group)
        off = desc[g][2] * BS + i * inode_size
        raw = struct.pack("<HHIIIIIHHII", mode, 0, size, MTIME, MTIME, MTIME, 0, 0, links, nsect, 0)
        raw += struct.pack("<I", 0) + struct.pack("<15I", *block_map)
        raw = raw.ljust(128, b"\0")
        if inode_size > 128:
            raw += struct.pack("<H", 32)  # i_extra_isize, as mke2fs
            raw = raw.ljust(inode_size, b"\0")
        f.seek(off)
        f.write(raw)

    def entry(ino, name, ftype, rec_len):
        return struct.pack("<IHBB", ino, rec_len, len(name), ftype) + name.ljust(rec_len - 8, b"\0")

    inos = free_inodes()
    blocks = free_blocks()
    prefix, ftype = (b"f", 1) if kind == "files" else (b"d", 2)
    names = []
    for n in range(count):
        ino = next(inos)
        assert ino <= inodes_count
        if kind == "files":
            write_inode(ino, 0o100644, 1, 0, 0, [0] * 15)
        else:
            blk = next(blocks)
            write_block(blk, entry(ino, b".", 2, 12) + entry(dir_ino, b"..", 2, BS - 12))
            write_inode(ino, 0o40755, 2, BS, 2, [blk] + [0] * 14)
        names.append((ino, prefix + b"%05d" % n))

    # the directory: its "." and ".." first, then the names, packed
    dirblocks, cur = [], [entry(dir_ino, b".", 2, 12), entry(2, b"..", 2, 12)]
    used = 24
    for ino, name in names:
        need = (8 + len(name) + 3) & ~3
        if used + need > BS:
            dirblocks.append(cur)
            cur, used = [], 0
        cur.append(entry(ino, name, ftype, need))
        used += need
    dirblocks.append(cur)
    data = []
    for ents in dirblocks:
        last = ents[-1]
        slack = BS - sum(len(e) for e in ents)
        ino, rec_len, nlen, ft = struct.unpack_from("<IHBB", last)
        ents[-1] = entry(ino, last[8:8 + nlen], ft, rec_len + slack)
        data.append(b"".join(ents))

    # the block map: 12 direct, then a single and a double indirect
    apb = BS // 4
    phys = [next(blocks) for _ in data]
    for b, d in zip(phys, data):
        write_block(b, d)
    imap = phys[:12] + [0] * 3
    meta = 0
    rest = phys[12:]
    if rest:
        ind = next(blocks)
        meta += 1
        write_block(ind, struct.pack("<%dI" % apb, *(rest[:apb] + [0] * (apb - len(rest[:apb])))))
        imap[12] = ind
        rest = rest[apb:]
    if rest:
        dind = next(blocks)
        meta += 1
        tops = []
        while rest:
            chunk, rest = rest[:apb], rest[apb:]
            ind = next(blocks)
            meta += 1
            write_block(ind, struct.pack("<%dI" % apb, *(chunk + [0] * (apb - len(chunk)))))
            tops.append(ind)
        assert len(tops) <= apb
        write_block(dind, struct.pack("<%dI" % apb, *(tops + [0] * (apb - len(tops)))))
        imap[13] = dind
    links = 2 + (count if kind == "subdirs" else 0)
    write_inode(dir_ino, 0o40755, links, len(data) * BS, (len(data) + meta) * 2, imap)
    f.close()


if __name__ == "__main__":
    main()
