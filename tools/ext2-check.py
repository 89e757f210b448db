#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext2-check.py IMG LOG - check what Spindle read from an ext2 image.

IMG is a disk made by tools/ext2-image.sh (partition 1 at 1 MiB holds
the file system; IMG.tree is the tree it was made from).  LOG is the
guest's serial log, holding the output of `treewalk -c /bin/cksum /mnt`
(tests/user/treewalk.c).  Three outside oracles:

  - the host's own tree: every name is listed, with the mode, owner,
    group, link count, size (not of directories) and times os.lstat gives
    (mke2fs -d copied them); every file's and link's CRC and size are the
    host's GNU cksum of the same path, or the guest's cksum failed with
    the same error the host's did (a dangling link, a link to a directory);
  - the image through debugfs: each name's inode number, and each inode's
    mode, owner, links, size, atime and 512-byte block count (st_blocks);
  - the image through dumpe2fs -h and the descriptors: statfs's figures as
    Linux's ext2_statfs computes them (f_blocks leaves out the superblock
    copies, descriptor tables, bitmaps and inode tables).

Prints what differs and exits 1, or one line of what was compared.
"""
import os
import re
import subprocess
import sys
import tempfile

MOUNT = '/mnt'


def guest_output(log):
    entries, sums, errors, statfs = {}, {}, [], None
    for line in open(log, errors='replace'):
        line = line.rstrip('\n')
        line = re.sub(r'^\[\s*\d+\.\d+\] ', '', line)
        m = re.match(r'ENTRY (.*) ino=(\d+) mode=(0[0-7]+) nlink=(\d+) uid=(\d+) gid=(\d+) '
                     r'size=(-?\d+) blocks=(\d+) atime=(\d+) mtime=(\d+)$', line)
        if m:
            v = m.groups()
            entries[v[0]] = dict(ino=int(v[1]), mode=int(v[2], 8), nlink=int(v[3]),
                                 uid=int(v[4]), gid=int(v[5]), size=int(v[6]),
                                 blocks=int(v[7]), atime=int(v[8]), mtime=int(v[9]))
            continue
        m = re.match(r'(\d+) (\d+) ' + MOUNT + r'/(.*)$', line)
        if m:
            sums[m.group(3)] = ('%s %s' % (m.group(1), m.group(2)))
            continue
        m = re.match(r'cksum: ' + MOUNT + r'/(.*): (.*)$', line)
        if m:
            sums[m.group(1)] = 'error: ' + m.group(2)
            continue
        if line.startswith('ERROR '):
            errors.append(line)
        m = re.match(r'STATFS (.*)$', line)
        if m:
            statfs = {k: int(v, 0) for k, v in (f.split('=') for f in m.group(1).split())}
    return entries, sums, errors, statfs


def host_tree(top):
    """{relative path: os.lstat}, as treewalk orders nothing: a dict."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, top)] = os.lstat(p)
    return out


def host_cksums(paths):
    """{path: "CRC SIZE" or "error: <strerror>"} from one run of GNU cksum."""
    r = subprocess.run(['cksum', '--'] + paths, capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        crc, size, path = line.split(' ', 2)
        out[path] = crc + ' ' + size
    for line in r.stderr.splitlines():
        m = re.match(r"cksum: (.*): ([^:]*)$", line)
        if m:
            out[m.group(1)] = 'error: ' + m.group(2)
    return out


def debugfs(fs, commands):
    with tempfile.NamedTemporaryFile('w', suffix='.cmd') as f:
        f.write('\n'.join(commands) + '\n')
        f.flush()
        return subprocess.run(['debugfs', '-f', f.name, fs], capture_output=True,
                              text=True, check=True).stdout


def image_view(fs, dirs, modes=None):
    """{path: inode number} from `ls -p` of each directory, then
    {inode: fields} from `stat <ino>`; modes, if given, gets {path: the
    entry's whole mode} (the type of a node rdump leaves out)."""
    names = {}
    listing = debugfs(fs, ['ls -p "/%s"' % d if d else 'ls -p /' for d in dirs])
    # the output of each ls is preceded by the command echoed: "debugfs: ls -p ..."
    current = None
    for line in listing.splitlines():
        m = re.match(r'debugfs: ls -p "?/(.*?)"?$', line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r'/(\d+)/([0-7]+)/(\d+)/(\d+)/(.*)/(\d*)/$', line)
        if m and current is not None and m.group(5) not in ('.', '..'):
            p = os.path.join(current, m.group(5)) if current else m.group(5)
            names[p] = int(m.group(1))
            if modes is not None:
                modes[p] = int(m.group(2), 8)
    inodes = {}
    text = debugfs(fs, ['stat <%d>' % i for i in sorted(set(names.values()))])
    for block in re.split(r'\n(?=Inode: )', text):
        m = re.search(r'Inode: (\d+)\s+Type: [A-Za-z ]+?\s+Mode:\s+([0-7]+)', block)
        if not m:
            continue
        ino = int(m.group(1))
        f = dict(perm=int(m.group(2), 8))
        f['uid'] = int(re.search(r'User:\s+(\d+)', block).group(1))
        f['gid'] = int(re.search(r'Group:\s+(\d+)', block).group(1))
        f['size'] = int(re.search(r'Size: (\d+)', block).group(1))
        f['nlink'] = int(re.search(r'Links: (\d+)', block).group(1))
        f['blocks'] = int(re.search(r'Blockcount: (\d+)', block).group(1))
        f['atime'] = int(re.search(r'atime: 0x([0-9a-f]+)', block).group(1), 16)
        f['mtime'] = int(re.search(r'mtime: 0x([0-9a-f]+)', block).group(1), 16)
        dev = re.search(r'Device major/minor number: ([0-9a-f]+):([0-9a-f]+)', block)
        if dev:
            f['rdev'] = (int(dev.group(1), 16), int(dev.group(2), 16))
        inodes[ino] = f
    return names, inodes


def expected_statfs(fs):
    """Linux's ext2_statfs from dumpe2fs's view of the image."""
    h = {}
    for line in subprocess.run(['dumpe2fs', '-h', fs], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        if ':' in line:
            k, v = line.split(':', 1)
            h[k.strip()] = v.strip()
    bs = int(h['Block size'])
    blocks = int(h['Block count'])
    first = int(h['First block'])
    bpg = int(h['Blocks per group'])
    groups = (blocks - first - 1) // bpg + 1
    gdb = -(-groups // (bs // 32))
    sparse = 'sparse_super' in h['Filesystem features'].split()

    def has_super(g):
        if not sparse or g <= 1:
            return True
        for b in (3, 5, 7):
            p = b
            while p < g:
                p *= b
            if p == g:
                return True
        return False
    overhead = first + sum(1 + gdb for g in range(groups) if has_super(g))
    overhead += groups * (2 + int(h['Inode blocks per group']))
    free = int(h['Free blocks'])
    reserved = int(h['Reserved block count'])
    return dict(type=0xEF53, bsize=bs, blocks=blocks - overhead, bfree=free,
                bavail=max(0, free - reserved), files=int(h['Inode count']),
                ffree=int(h['Free inodes']), namelen=255, flags=0x21)


def main():
    img, log = sys.argv[1], sys.argv[2]
    tree = img + '.tree'
    entries, sums, errors, statfs = guest_output(log)
    host = host_tree(tree)
    bad = list(errors)
    with tempfile.TemporaryDirectory() as tmp:
        fs = os.path.join(tmp, 'fs')
        subprocess.run(['dd', 'if=' + img, 'of=' + fs, 'bs=1M', 'skip=1', 'status=none'],
                       check=True)
        dirs = [''] + sorted(p for p, st in host.items() if os.path.isdir(os.path.join(tree, p))
                             and not os.path.islink(os.path.join(tree, p)))
        names, inodes = image_view(fs, dirs)
        want_statfs = expected_statfs(fs)
    files = [os.path.join(tree, p) for p in sorted(host)
             if not os.path.isdir(os.path.join(tree, p))]
    host_sums = host_cksums(files)
    names.pop('lost+found', None)
    entries.pop('lost+found', None)
    for p in sorted(set(host) | set(entries)):
        if p not in entries:
            bad.append('%s: on the host, not listed by the guest' % p)
            continue
        if p not in host:
            bad.append('%s: listed by the guest, not on the host' % p)
            continue
        g, st = entries[p], host[p]
        # not atime: mke2fs's own reading of the tree may have moved it
        want = dict(mode=st.st_mode, uid=st.st_uid, gid=st.st_gid, nlink=st.st_nlink,
                    mtime=int(st.st_mtime))
        isdir = os.path.isdir(os.path.join(tree, p)) and not os.path.islink(os.path.join(tree, p))
        if not isdir:
            want['size'] = st.st_size
        ino = names.get(p)
        if ino is None:
            bad.append('%s: not in the image (debugfs)' % p)
        else:
            d = inodes[ino]
            want.update(ino=ino, blocks=d['blocks'], size=d['size'], atime=d['atime'])
            for k in ('uid', 'gid', 'nlink'):
                if d[k] != want[k]:
                    bad.append('%s: debugfs %s=%d, host %d' % (p, k, d[k], want[k]))
        for k, v in want.items():
            if g[k] != v:
                bad.append('%s: %s=%s, expected %s' % (p, k, g[k], v))
        # a link to a directory: GNU cksum 9.1 sums it as empty, ours says
        # EISDIR (as POSIX's read() does); neither is a file's checksum
        if not os.path.isdir(os.path.join(tree, p)):
            hs = host_sums.get(os.path.join(tree, p))
            if sums.get(p) != hs:
                bad.append('%s: cksum %r, host %r' % (p, sums.get(p), hs))
    if statfs != want_statfs:
        bad.append('statfs: guest %s, expected %s' % (statfs, want_statfs))
    if bad:
        print('ext2-check: %d difference(s):' % len(bad))
        for b in bad:
            print('  ' + b)
        sys.exit(1)
    print('ext2-check: %d names, %d cksums and statfs agree with the host' %
          (len(entries), len([p for p in sums if p in host])))


if __name__ == '__main__':
    main()
