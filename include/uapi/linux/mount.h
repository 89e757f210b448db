/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/mount.h - mount(2)'s flags that Spindle knows, Linux's
 * values, and umount2(2)'s: the one list the kernel
 * (include/spindle/fcntl.h) and the C library (user/include/sys/mount.h)
 * both include.  Linux keeps the MNT_ flags out of its uapi folder (glibc
 * repeats them); here they sit with the rest, so nothing is repeated.
 */
#ifndef _UAPI_LINUX_MOUNT_H
#define _UAPI_LINUX_MOUNT_H

#define MS_RDONLY       1
#define MS_NOSUID       2
#define MS_NODEV        4
#define MS_NOEXEC       8
#define MS_REMOUNT      32      /* change a mounted fs's flags/options */

#define MNT_FORCE       1
#define MNT_DETACH      2

#endif /* _UAPI_LINUX_MOUNT_H */
