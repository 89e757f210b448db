/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/stat.h - a file's type and mode bits in st_mode, Linux's
 * values (its include/uapi/linux/stat.h): the one list the kernel
 * (include/spindle/stat.h) and the C library (user/include/sys/stat.h)
 * both include.  struct stat itself is each side's own, as in Linux and
 * glibc; both are checked to be x86-64 Linux's 144-byte layout.
 */
#ifndef _UAPI_LINUX_STAT_H
#define _UAPI_LINUX_STAT_H

#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000
#define S_ISUID  04000
#define S_ISGID  02000
#define S_ISVTX  01000

#define S_ISREG(m)  (((m) & S_IFMT) == S_IFREG)
#define S_ISDIR(m)  (((m) & S_IFMT) == S_IFDIR)
#define S_ISCHR(m)  (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m)  (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISLNK(m)  (((m) & S_IFMT) == S_IFLNK)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

#endif /* _UAPI_LINUX_STAT_H */
