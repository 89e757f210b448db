/* SPDX-License-Identifier: MIT */
/*
 * linux/aio_abi.h - the asynchronous I/O system calls' structures (the
 * next linux/aio_abi.h on the include path, include/uapi/linux/aio_abi.h,
 * which the kernel includes too), and Spindle's libc wrappers for the
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

/* the structures, shared with the kernel: include/uapi/linux/aio_abi.h */
#include_next <linux/aio_abi.h>

/* system calls 206..210 */
int io_setup(unsigned int nr_events, aio_context_t *ctxp);
int io_destroy(aio_context_t ctx);
long io_submit(aio_context_t ctx, long nr, struct iocb **iocbpp);
long io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event *events,
		  struct timespec *timeout);
int io_cancel(aio_context_t ctx, struct iocb *iocb, struct io_event *result);

#endif /* _LINUX_AIO_ABI_H */
