/* SPDX-License-Identifier: MIT */
/*
 * sys/stat.h - struct stat exactly as x86-64 Linux lays it out (144
 * bytes, Linux's x86-64 layout), the S_IF* file types and mode bits.
 */
#ifndef _SYS_STAT_H
#define _SYS_STAT_H

#include <sys/types.h>
#include <time.h>

struct stat {
	dev_t st_dev;
	ino_t st_ino;
	nlink_t st_nlink;
	mode_t st_mode;
	uid_t st_uid;
	gid_t st_gid;
	int __pad0;
	dev_t st_rdev;
	off_t st_size;
	blksize_t st_blksize;
	blkcnt_t st_blocks;             /* in 512-byte units */
	struct timespec st_atim;
	struct timespec st_mtim;
	struct timespec st_ctim;
	long __unused[3];
};
_Static_assert(sizeof(struct stat) == 144, "x86-64 Linux struct stat");

#define st_atime st_atim.tv_sec
#define st_mtime st_mtim.tv_sec
#define st_ctime st_ctim.tv_sec

#include <linux/stat.h> /* S_IF*, S_IS*: include/uapi/linux/stat.h */

/* major/minor as Linux's new_encode_dev packs them into dev_t */
#define major(d) ((unsigned int)((((d) >> 32) & 0xfffff000) | (((d) >> 8) & 0xfff)))
#define minor(d) ((unsigned int)((((d) >> 12) & 0xffffff00) | ((d) & 0xff)))
#define makedev(ma, mi) ((dev_t)((((ma) & 0xfffull) << 8) | (((ma) & ~0xfffull) << 32) | \
				 ((mi) & 0xffull) | (((mi) & ~0xffull) << 12)))

int stat(const char *path, struct stat *st);
int lstat(const char *path, struct stat *st);
int fstat(int fd, struct stat *st);
int mkdir(const char *path, mode_t mode);
int mknod(const char *path, mode_t mode, dev_t dev);
int mkfifo(const char *path, mode_t mode);

#endif
