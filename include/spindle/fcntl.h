/* SPDX-License-Identifier: MIT */
/*
 * fcntl.h - open(2) flags and the AT_ constants (from the list user space
 * shares, include/uapi/linux/fcntl.h), lseek(2) whences, mount flags: the
 * numbers of the Linux x86-64 ABI.
 */
#ifndef SPINDLE_FCNTL_H
#define SPINDLE_FCNTL_H

#include <uapi/linux/fcntl.h> /* O_*, AT_FDCWD: shared with user space */

#ifndef SEEK_SET                        /* the host's stdio.h has them too */
#define SEEK_SET        0
#define SEEK_CUR        1
#define SEEK_END        2
#endif

#include <uapi/linux/mount.h> /* MS_*, MNT_*: shared with user space */

/* Kernel-internal open flag (Linux's __FMODE_EXEC): this open is execve's.
 * Anything but a regular file is then EACCES before its own open runs --
 * a FIFO's open would wait for a writer (fs/open.c).  Never from user
 * space: ksys_open() clears it. */
#define __FMODE_EXEC    00000040

#endif /* SPINDLE_FCNTL_H */
