/* SPDX-License-Identifier: MIT */
/*
 * dirent.h - reading directories: opendir/readdir/closedir over
 * getdents64(217), whose records are struct linux_dirent64.
 */
#ifndef _DIRENT_H
#define _DIRENT_H

#include <sys/types.h>

#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

/* the same layout as the kernel's struct linux_dirent64 */
struct dirent {
	ino_t d_ino;
	off_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[256];
};

typedef struct _DIR DIR;

DIR *opendir(const char *path);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);
int dirfd(DIR *d);
int getdents64(int fd, void *buf, size_t n);

#endif
