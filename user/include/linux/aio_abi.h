/* SPDX-License-Identifier: MIT */
/*
 * linux/aio_abi.h - the asynchronous I/O system calls' structures, laid
 * out as Linux's include/uapi/linux/aio_abi.h on x86-64 (the kernel's
 * copy is include/spindle/aio.h), and Spindle's libc wrappers for the
 * calls (user/lib/syscalls.c): the raw system calls of io_setup(2) and
 * friends -- the kernel's arguments, errors as -1 and errno -- not
 * libaio's io_context_t functions, which return -errno.
 *
 * A program fills a struct iocb per request, passes an array of pointers
 * to io_submit, and collects a struct io_event per completed request
 * from io_getevents (docs/aio.md).
 */
#ifndef _LINUX_AIO_ABI_H
#define _LINUX_AIO_ABI_H

#include <stdint.h>
#include <time.h>

typedef unsigned long aio_context_t;

enum {
	IOCB_CMD_PREAD = 0,
	IOCB_CMD_PWRITE = 1,
	IOCB_CMD_FSYNC = 2,
	IOCB_CMD_FDSYNC = 3,
	IOCB_CMD_POLL = 5,
	IOCB_CMD_NOOP = 6,
	IOCB_CMD_PREADV = 7,
	IOCB_CMD_PWRITEV = 8,
};

#define IOCB_FLAG_RESFD         (1 << 0)
#define IOCB_FLAG_IOPRIO        (1 << 1)

struct io_event {
	uint64_t data;          /* the iocb's aio_data */
	uint64_t obj;           /* the address of the iocb */
	int64_t res;            /* bytes done, or -errno */
	int64_t res2;
};

struct iocb {
	uint64_t aio_data;
	uint32_t aio_key;       /* set to 0 by the kernel */
	uint32_t aio_rw_flags;
	uint16_t aio_lio_opcode;
	int16_t aio_reqprio;
	uint32_t aio_fildes;
	uint64_t aio_buf;
	uint64_t aio_nbytes;
	int64_t aio_offset;
	uint64_t aio_reserved2;
	uint32_t aio_flags;
	uint32_t aio_resfd;
};

_Static_assert(sizeof(struct iocb) == 64, "Linux's struct iocb");
_Static_assert(sizeof(struct io_event) == 32, "Linux's struct io_event");

/* system calls 206..210 */
int io_setup(unsigned int nr_events, aio_context_t *ctxp);
int io_destroy(aio_context_t ctx);
long io_submit(aio_context_t ctx, long nr, struct iocb **iocbpp);
long io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event *events,
		  struct timespec *timeout);
int io_cancel(aio_context_t ctx, struct iocb *iocb, struct io_event *result);

#endif /* _LINUX_AIO_ABI_H */
