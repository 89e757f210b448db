#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dynelf_bad.py PROGRAM OUTDIR - copies of a dynamically linked program
whose PT_INTERP is damaged, one way each, for `dynelf --exec-errors`
(tests/user/dynelf.c), which runs them on the host's Linux and on
Spindle: the errno of each execve must be the same.  The interpreter
paths are relative, so that both find the files beside the program
(the kernel opens them from the current directory, as any path).

  dynelf-missing-ld    PT_INTERP names a file that is not there (ENOENT)
  dynelf-text-ld       ... names dynelf-text-ld.txt, text (ELIBBAD)
  dynelf-empty-ld      ... names dynelf-empty-ld.so, empty (EIO)
  dynelf-dir-ld        ... names "." (EACCES)
  dynelf-unterminated  its last byte is not a NUL (ENOEXEC)
  dynelf-long-interp   p_filesz past PATH_MAX (ENOEXEC)
  dynelf-short-interp  p_filesz of 1 (ENOEXEC)
"""
import os
import struct
import sys

PT_INTERP = 3


def interp_phdr(data):
    """The offset of the PT_INTERP program header, and its p_offset, p_filesz."""
    phoff, = struct.unpack_from('<Q', data, 32)
    phentsize, phnum = struct.unpack_from('<HH', data, 54)
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from('<I', data, at)[0] == PT_INTERP:
            off, = struct.unpack_from('<Q', data, at + 8)
            filesz, = struct.unpack_from('<Q', data, at + 32)
            return at, off, filesz
    sys.exit('%s: no PT_INTERP' % sys.argv[1])


def with_path(data, path):
    at, off, filesz = interp_phdr(data)
    raw = path.encode() + b'\0'
    assert len(raw) <= filesz, path
    data[off:off + filesz] = raw + b'\0' * (filesz - len(raw))
    return data


def unterminated(data):
    at, off, filesz = interp_phdr(data)
    data[off + filesz - 1] = ord('X')
    return data


def with_filesz(n):
    def poke(data):
        at, off, filesz = interp_phdr(data)
        struct.pack_into('<Q', data, at + 32, n)
        return data
    return poke


def main():
    prog, out = sys.argv[1], sys.argv[2]
    with open(prog, 'rb') as f:
        orig = f.read()
    cases = {
        'dynelf-missing-ld': lambda d: with_path(d, 'no-such-ld.so'),
        'dynelf-text-ld': lambda d: with_path(d, 'dynelf-text-ld.txt'),
        'dynelf-empty-ld': lambda d: with_path(d, 'dynelf-empty-ld.so'),
        'dynelf-dir-ld': lambda d: with_path(d, '.'),
        'dynelf-unterminated': unterminated,
        'dynelf-long-interp': with_filesz(4097),
        'dynelf-short-interp': with_filesz(1),
    }
    os.makedirs(out, exist_ok=True)
    for name, poke in cases.items():
        path = os.path.join(out, name)
        with open(path, 'wb') as f:
            f.write(poke(bytearray(orig)))
        os.chmod(path, 0o755)
    # the interpreters the first cases name: executable, so that only
    # their contents are wrong
    with open(os.path.join(out, 'dynelf-text-ld.txt'), 'w') as f:
        f.write('This text file is named as the ELF interpreter of dynelf-text-ld:\n'
                'execve must refuse the program with ELIBBAD.\n')
    open(os.path.join(out, 'dynelf-empty-ld.so'), 'w').close()
    for name in ('dynelf-text-ld.txt', 'dynelf-empty-ld.so'):
        os.chmod(os.path.join(out, name), 0o755)


if __name__ == '__main__':
    main()
