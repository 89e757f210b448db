/* SPDX-License-Identifier: MIT */
/*
 * stat.h - file types and modes, struct stat and struct linux_dirent64 in
 * the Linux x86-64 layout, and how a device
 * number is packed into st_rdev.
 */
#ifndef SPINDLE_STAT_H
#define SPINDLE_STAT_H

#include <spindle/types.h>
#include <spindle/compiler.h>

#include <uapi/linux/stat.h> /* S_IF*, S_IS*: shared with user space */

/* getdents64's d_type: the file type, S_IF* >> 12 */
#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define S_DT(mode) (((mode) & S_IFMT) >> 12)

/* What stat(2) writes: 144 bytes, x86-64 Linux's arch/x86 layout. */
struct stat {
	u64 st_dev;
	u64 st_ino;
	u64 st_nlink;                   /* before st_mode on x86-64 */
	u32 st_mode;
	u32 st_uid;
	u32 st_gid;
	u32 __pad0;
	u64 st_rdev;
	s64 st_size;
	s64 st_blksize;
	s64 st_blocks;                  /* in 512-byte units, whatever st_blksize */
	u64 st_atime;
	u64 st_atime_nsec;
	u64 st_mtime;
	u64 st_mtime_nsec;
	u64 st_ctime;
	u64 st_ctime_nsec;
	s64 __reserved[3];
};
BUILD_BUG_ON(sizeof(struct stat) != 144);
BUILD_BUG_ON(offsetof(struct stat, st_mode) != 24);
BUILD_BUG_ON(offsetof(struct stat, st_size) != 48);

/* One getdents64 record; d_reclen rounds the whole record up to 8 bytes. */
struct linux_dirent64 {
	u64 d_ino;
	s64 d_off;                      /* where the next record's read starts */
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
BUILD_BUG_ON(offsetof(struct linux_dirent64, d_name) != 19);

/*
 * statfs(2)/fstatfs(2)'s answer, x86-64 Linux's layout (asm-generic
 * statfs.h with 64-bit words): sizes in f_bsize units, inode counts,
 * f_type the file system's magic number.
 */
struct statfs {
	s64 f_type;
	s64 f_bsize;
	u64 f_blocks;                   /* size; 0: no limit (or not counted) */
	u64 f_bfree;
	u64 f_bavail;                   /* free to a user (no root reserve here) */
	u64 f_files;                    /* inodes; 0: no limit */
	u64 f_ffree;
	s32 f_fsid[2];
	s64 f_namelen;
	s64 f_frsize;
	s64 f_flags;                    /* ST_VALID, and the mount's ST_* flags */
	s64 f_spare[4];
};
BUILD_BUG_ON(sizeof(struct statfs) != 120);
BUILD_BUG_ON(offsetof(struct statfs, f_namelen) != 64);

#define ST_RDONLY       0x0001  /* mounted read-only */
#define ST_VALID        0x0020  /* f_flags is meaningful (Linux) */

#include <uapi/linux/magic.h> /* f_type: Linux's magic numbers, shared with user space */

/*
 * st_rdev as Linux's new_encode_dev(): 12 bits of major and 20 of minor
 * packed so that small numbers keep the old 8:8 layout -- minor's low
 * byte, then major, then the rest of minor.  glibc's major()/minor()
 * undo it.
 */
static inline u64 new_encode_dev(unsigned int major, unsigned int minor)
{
	return (minor & 0xff) | ((u64)major << 8) | ((u64)(minor & ~0xffu) << 12);
}

#endif /* SPINDLE_STAT_H */
