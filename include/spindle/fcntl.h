/* SPDX-License-Identifier: MIT */
/*
 * fcntl.h - open(2) flags, lseek(2) whences, the AT_ constants, mount
 * flags: the numbers of the Linux x86-64 ABI, so
 * that a program built for Spindle runs unchanged on Linux (octal, as
 * Linux writes them).
 */
#ifndef SPINDLE_FCNTL_H
#define SPINDLE_FCNTL_H

#define O_ACCMODE       00000003
#define O_RDONLY        00000000
#define O_WRONLY        00000001
#define O_RDWR          00000002
#define O_CREAT         00000100
#define O_EXCL          00000200
#define O_NOCTTY        00000400
#define O_TRUNC         00001000
#define O_APPEND        00002000
#define O_NONBLOCK      00004000
#define O_DSYNC         00010000
#define O_DIRECT        00040000
#define O_LARGEFILE     00100000
#define O_DIRECTORY     00200000
#define O_NOFOLLOW      00400000
#define O_CLOEXEC       02000000

#ifndef SEEK_SET                        /* the host's stdio.h has them too */
#define SEEK_SET        0
#define SEEK_CUR        1
#define SEEK_END        2
#endif

#define AT_FDCWD        -100            /* openat(): relative to the cwd */

/* mount(2) flags Spindle looks at; umount2(2) flags */
#define MS_RDONLY       1
#define MNT_FORCE       1
#define MNT_DETACH      2

#endif /* SPINDLE_FCNTL_H */
