/* SPDX-License-Identifier: MIT */
/* fcntl.h - open(2)'s flags, with x86-64 Linux's values. */
#ifndef _FCNTL_H
#define _FCNTL_H

#include <sys/types.h>

#include <linux/fcntl.h> /* the flags: include/uapi/linux/fcntl.h */

int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int creat(const char *path, mode_t mode);

#endif
