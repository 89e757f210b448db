/* SPDX-License-Identifier: MIT */
/* sys/mount.h - mount(165) and umount2(166). */
#ifndef _SYS_MOUNT_H
#define _SYS_MOUNT_H

#include <linux/mount.h> /* MS_*, MNT_*: include/uapi/linux/mount.h */

int mount(const char *source, const char *target, const char *fstype,
	  unsigned long flags, const void *data);
int umount(const char *target);
int umount2(const char *target, int flags);

#endif
