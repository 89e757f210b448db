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

/* mount(2) flags Spindle looks at; umount2(2) flags */
#define MS_RDONLY       1
#define MS_REMOUNT      32      /* change a mounted fs's flags/options */
#define MNT_FORCE       1
#define MNT_DETACH      2

#endif /* SPINDLE_FCNTL_H */
