/* SPDX-License-Identifier: MIT */
/*
 * sys/statfs.h - statfs(2)/fstatfs(2): the file system a path or a
 * descriptor lives in -- its type (Linux's magic numbers), size and free
 * space in f_bsize blocks, inodes.  Linux's x86-64 struct statfs.
 */
#ifndef _SYS_STATFS_H
#define _SYS_STATFS_H

#include <sys/types.h>

struct statfs {
	long f_type;
	long f_bsize;
	unsigned long f_blocks;         /* 0: no limit, or not counted */
	unsigned long f_bfree;
	unsigned long f_bavail;
	unsigned long f_files;
	unsigned long f_ffree;
	struct { int __val[2]; } f_fsid;
	long f_namelen;
	long f_frsize;
	long f_flags;
	long f_spare[4];
};

#include <linux/magic.h> /* f_type's values: include/uapi/linux/magic.h */

int statfs(const char *path, struct statfs *buf);
int fstatfs(int fd, struct statfs *buf);

#endif
