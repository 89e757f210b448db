// SPDX-License-Identifier: MIT
/*
 * dirent.c - opendir/readdir/closedir.  getdents64(217) fills a buffer
 * with variable-length struct linux_dirent64 records, each d_reclen bytes
 * long; readdir hands them out one at a time and refills when the buffer
 * is used up.  The kernel's record is exactly our struct dirent's first
 * part, so readdir returns a pointer straight into the buffer.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct _DIR {
	int fd;
	int pos, len;                   /* next record at buf[pos]; valid up to len */
	char buf[8192] __attribute__((aligned(8)));
};

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		return NULL;
	}
	d->fd = fd;
	return d;
}

struct dirent *readdir(DIR *d)
{
	struct dirent *de;

	if (d->pos >= d->len) {
		int n = getdents64(d->fd, d->buf, sizeof(d->buf));

		if (n <= 0)
			return NULL;    /* 0: the end; <0: errno says why */
		d->pos = 0;
		d->len = n;
	}
	de = (struct dirent *)(d->buf + d->pos);
	d->pos += de->d_reclen;
	return de;
}

int closedir(DIR *d)
{
	int r = close(d->fd);

	free(d);
	return r;
}

int dirfd(DIR *d)
{
	return d->fd;
}
