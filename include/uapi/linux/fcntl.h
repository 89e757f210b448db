/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/fcntl.h - open(2)'s flags and the AT_ constants, with Linux's
 * x86-64 values (octal, as Linux writes them): the one list the kernel
 * (include/spindle/fcntl.h) and the C library (user/include/fcntl.h)
 * both include, so that a program built for Spindle runs unchanged on
 * Linux and the two sides cannot drift apart.
 */
#ifndef _UAPI_LINUX_FCNTL_H
#define _UAPI_LINUX_FCNTL_H

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
#define O_DIRECT        00040000        /* no cache: aligned buffers, offsets, sizes */
#define O_LARGEFILE     00100000
#define O_DIRECTORY     00200000
#define O_NOFOLLOW      00400000
#define O_NOATIME       01000000        /* reads leave atime (Spindle's never change it) */
#define O_CLOEXEC       02000000
#define __O_SYNC        04000000
#define O_SYNC          (__O_SYNC | O_DSYNC)

#define AT_FDCWD        -100            /* openat(): relative to the cwd */
#define AT_SYMLINK_NOFOLLOW 0x100	/* the link itself, not its target */
#define AT_EACCESS 0x200		/* faccessat: the effective ids */
#define AT_REMOVEDIR 0x200		/* unlinkat: rmdir instead */
#define AT_SYMLINK_FOLLOW 0x400		/* linkat: follow a link given as oldname */
#define AT_EMPTY_PATH 0x1000		/* an empty name is dfd itself */
#define AT_STATX_SYNC_TYPE 0x6000	/* statx: how fresh the answer must be */

#endif /* _UAPI_LINUX_FCNTL_H */
