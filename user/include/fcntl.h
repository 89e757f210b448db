/* SPDX-License-Identifier: MIT */
/* fcntl.h - open(2)'s flags, with x86-64 Linux's values. */
#ifndef _FCNTL_H
#define _FCNTL_H

#include <sys/types.h>

#define O_RDONLY     00
#define O_WRONLY     01
#define O_RDWR       02
#define O_ACCMODE    03
#define O_CREAT      0100
#define O_EXCL       0200
#define O_NOCTTY     0400
#define O_TRUNC      01000
#define O_APPEND     02000
#define O_NONBLOCK   04000
#define O_DSYNC      010000
#define O_DIRECT     040000      /* bypass the page cache: aligned buffers, offsets, sizes */
#define O_LARGEFILE  0100000
#define O_DIRECTORY  0200000
#define O_NOFOLLOW   0400000
#define O_CLOEXEC    02000000
#define O_SYNC       04010000

#define AT_FDCWD     (-100)

int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int creat(const char *path, mode_t mode);

#endif
