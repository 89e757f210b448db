#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ext2-names-check.py IMG SCN - does the image hold what the guest's commands made?

IMG is a disk made by tools/ext2-image.sh (partition 1 at 1 MiB holds the
file system; IMG.tree is the tree it was made from), after a QEMU scenario
SCN changed the file system and unmounted it.  The oracle is the host doing
the same thing: the scenario's `init:` lines between

    init: echo ==== workload
    init: echo ==== done

are run again by bash, with GNU coreutils, on a copy of IMG.tree, "/mnt"
standing for the copy ("busybox sh -c" becomes "bash -c", "busybox mv"
GNU mv).  (A line may fail on purpose -- rmdir of a full
directory -- as long as it fails on both sides: the scenario's expect:
lines judge the guest's error messages.)  Then:

  1. e2fsck -fn on the image must find nothing to fix: every link count,
     block and inode bitmap, free count and directory block as e2fsck
     wants them;
  2. debugfs rdump of the whole image against the host's tree: the same
     names, types, sizes, file contents and symbolic-link targets (device
     nodes and FIFOs, which rdump leaves out: type and number from
     debugfs);
  3. debugfs ls -p of every directory and stat of every inode: names the
     host sees as one inode (hard links) are one inode in the image and
     no other name is; each inode's mode bits, owner, link count, and
     mtime are the host's -- the mtime only where the host's is older
     than its replay (set by the tree or by touch -d): "now" is a
     different time on the two sides (Spindle's clock starts at boot).

Prints the differences and exits 1, or one line of what was compared.
"""
import filecmp
import importlib.util
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

# debugfs's view of an image: tools/ext2-check.py's reading of ls -p and stat
_spec = importlib.util.spec_from_file_location(
    'ext2_check', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ext2-check.py'))
ext2_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ext2_check)


def workload(scn):
    lines, inside = [], False
    for line in open(scn):
        m = re.match(r'init:\s*(.*)$', line.strip())
        if not m:
            continue
        cmd = m.group(1)
        if cmd == 'echo ==== workload':
            inside = True
        elif cmd == 'echo ==== done':
            inside = False
        elif inside:
            lines.append(cmd)
    if not lines:
        sys.exit('ext2-names-check: no workload between "echo ==== workload" and '
                 '"echo ==== done" in %s' % scn)
    return lines


def replay(lines, top):
    for cmd in lines:
        # the guest's busybox sh (its init shell has no loops) is bash
        # here, and a busybox applet the GNU tool of that name
        cmd = re.sub(r'^busybox sh -c ', 'bash -c ', cmd)
        cmd = re.sub(r'^busybox ', '', cmd)
        # /mnt at a word's start only: /mntx is not the mount point
        cmd = re.sub(r'(?<![\w/])/mnt(?=/|\s|$)', top, cmd)
        subprocess.run(['bash', '-c', cmd], cwd=top, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def walk(top):
    """{relative path: os.lstat} of everything under top but lost+found."""
    out = {}
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not (root == top and d == 'lost+found')]
        for name in dirs + files:
            p = os.path.join(root, name)
            out[os.path.relpath(p, top)] = os.lstat(p)
    return out


def compare(host_top, img_top, names, modes, inodes, replayed):
    bad = []
    host, img = walk(host_top), walk(img_top)
    # rdump leaves device nodes and FIFOs out: their type (and number)
    # come from debugfs alone
    for p, h in host.items():
        if p not in img and not (stat.S_ISREG(h.st_mode) or stat.S_ISDIR(h.st_mode) or
                                 stat.S_ISLNK(h.st_mode)):
            if modes.get(p) is None:
                continue
            img[p] = h
            if stat.S_IFMT(modes[p]) != stat.S_IFMT(h.st_mode):
                bad.append('%s: type %o, host %o' % (p, stat.S_IFMT(modes[p]),
                                                     stat.S_IFMT(h.st_mode)))
            rdev = inodes.get(names[p], {}).get('rdev')
            if (stat.S_ISCHR(h.st_mode) or stat.S_ISBLK(h.st_mode)) and \
                    rdev != (os.major(h.st_rdev), os.minor(h.st_rdev)):
                bad.append('%s: device %s, host %d:%d' % (p, rdev, os.major(h.st_rdev),
                                                         os.minor(h.st_rdev)))
    for p in sorted(set(host) | set(img)):
        if p not in img:
            bad.append('%s: on the host, not in the image' % p)
            continue
        if p not in host:
            bad.append('%s: in the image, not on the host' % p)
            continue
        h, g = host[p], img[p]
        hp, gp = os.path.join(host_top, p), os.path.join(img_top, p)
        if stat.S_IFMT(h.st_mode) != stat.S_IFMT(g.st_mode):
            bad.append('%s: type %o, host %o' % (p, stat.S_IFMT(g.st_mode), stat.S_IFMT(h.st_mode)))
            continue
        if stat.S_ISLNK(h.st_mode) and os.readlink(hp) != os.readlink(gp):
            bad.append('%s: link to %r, host %r' % (p, os.readlink(gp), os.readlink(hp)))
        if stat.S_ISREG(h.st_mode) and (h.st_size != g.st_size or
                                        not filecmp.cmp(hp, gp, shallow=False)):
            bad.append('%s: contents differ (%d bytes, host %d)' % (p, g.st_size, h.st_size))
        d = inodes.get(names.get(p))
        if d is None:
            bad.append('%s: no inode in debugfs ls -p' % p)
            continue
        want = dict(perm=stat.S_IMODE(h.st_mode), uid=h.st_uid, gid=h.st_gid,
                    nlink=h.st_nlink)
        if h.st_mtime < replayed and not stat.S_ISLNK(h.st_mode):
            want['mtime'] = int(h.st_mtime)
        for k, v in want.items():
            if d[k] != v:
                bad.append('%s: %s %s, host %s' % (p, k, oct(d[k]) if k == 'perm' else d[k],
                                                   oct(v) if k == 'perm' else v))
    # hard links: the host's inode partition of the names is the image's
    by_host = {}
    for p, h in host.items():
        by_host.setdefault(h.st_ino, []).append(p)
    for group in by_host.values():
        inos = {names.get(p) for p in group}
        if len(inos) != 1 or None in inos:
            bad.append('%s: one inode on the host, image inodes %s' % (group, sorted(map(str, inos))))
            continue
        ino = inos.pop()
        others = [p for p, i in names.items() if i == ino and p not in group]
        if others:
            bad.append('%s: image inode %d also named %s' % (group, ino, others))
    return bad, len(host)


def main():
    img, scn = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        fs = os.path.join(tmp, 'fs')
        subprocess.run(['dd', 'if=' + img, 'of=' + fs, 'bs=1M', 'skip=1', 'status=none'],
                       check=True)
        fsck = subprocess.run(['e2fsck', '-fn', fs], capture_output=True, text=True)
        if fsck.returncode != 0:
            print('ext2-names-check: e2fsck -fn exit %d:\n%s%s' %
                  (fsck.returncode, fsck.stdout, fsck.stderr))
            sys.exit(1)
        host_top = os.path.join(tmp, 'host')
        # cp -a: owners, modes, times and hard links as they were
        subprocess.run(['cp', '-a', img + '.tree', host_top], check=True)
        replayed = int(time.time()) - 1
        replay(workload(scn), host_top)
        img_top = os.path.join(tmp, 'image')
        os.mkdir(img_top)
        subprocess.run(['debugfs', '-R', 'rdump / ' + img_top, fs], capture_output=True,
                       check=True)
        dirs = [''] + sorted(p for p, st in walk(host_top).items() if stat.S_ISDIR(st.st_mode))
        modes = {}
        names, inodes = ext2_check.image_view(fs, dirs, modes)
        bad, n = compare(host_top, img_top, names, modes, inodes, replayed)
    if bad:
        print('ext2-names-check: %d difference(s) from the host doing the same:' % len(bad))
        for b in bad[:50]:
            print('  ' + b)
        sys.exit(1)
    print('ext2-names-check: e2fsck clean; %d names agree with the host doing the same' % n)


if __name__ == '__main__':
    main()
