/* SPDX-License-Identifier: MIT */
/*
 * sys/uio.h - vectored I/O: struct iovec and glibc's preadv2/pwritev2
 * (syscalls 327/328), whose flags are Linux's RWF_* (RWF_HIPRI: poll for
 * the completion; include/uapi/linux/fs.h).  An offset of -1 means the
 * file position, as Linux's.
 */
#ifndef _SYS_UIO_H
#define _SYS_UIO_H

#include <sys/types.h>
#include <linux/fs.h>	/* RWF_*: include/uapi/linux/fs.h */

struct iovec {
	void *iov_base;
	size_t iov_len;
};

ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);
ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);

#endif
