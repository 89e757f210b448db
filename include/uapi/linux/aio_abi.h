/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/aio_abi.h - the structures of the asynchronous I/O system
 * calls (io_setup, io_submit, io_getevents, io_cancel, io_destroy), laid
 * out as Linux's include/uapi/linux/aio_abi.h on x86-64, so libaio-style
 * programs run unchanged: the one definition the kernel (through
 * include/spindle/aio.h) and the C library (user/include/linux/aio_abi.h,
 * which adds the call wrappers) both include.  Plain C types, so that
 * neither side's typedefs are needed.  docs/aio.md has the whole path.
 */
#ifndef _UAPI_LINUX_AIO_ABI_H
#define _UAPI_LINUX_AIO_ABI_H

typedef unsigned long aio_context_t;    /* what io_setup hands back */

enum {
	IOCB_CMD_PREAD = 0,
	IOCB_CMD_PWRITE = 1,
	IOCB_CMD_FSYNC = 2,
	IOCB_CMD_FDSYNC = 3,
	/* 4 was IOCB_CMD_PREADX, never used */
	IOCB_CMD_POLL = 5,
	IOCB_CMD_NOOP = 6,
	IOCB_CMD_PREADV = 7,
	IOCB_CMD_PWRITEV = 8,
};

#define IOCB_FLAG_RESFD         (1 << 0)        /* signal an eventfd (not in Spindle) */
#define IOCB_FLAG_IOPRIO        (1 << 1)        /* aio_reqprio is valid (ignored) */

/* One completion, as io_getevents returns it. */
struct io_event {
	unsigned long long data;        /* the iocb's aio_data */
	unsigned long long obj;         /* the iocb's user address */
	long long res;                  /* bytes done, or -errno */
	long long res2;                 /* always 0 here */
};

/* One request, as the user fills it (little-endian field order). */
struct iocb {
	unsigned long long aio_data;    /* returned in io_event.data */
	unsigned int aio_key;           /* the kernel writes 0 here (Linux's KIOCB_KEY) */
	unsigned int aio_rw_flags;      /* RWF_* (none supported: must be 0) */
	unsigned short aio_lio_opcode;  /* IOCB_CMD_* */
	short aio_reqprio;
	unsigned int aio_fildes;
	unsigned long long aio_buf;     /* user buffer */
	unsigned long long aio_nbytes;
	long long aio_offset;
	unsigned long long aio_reserved2;       /* must be 0 */
	unsigned int aio_flags;         /* IOCB_FLAG_* */
	unsigned int aio_resfd;
};

_Static_assert(sizeof(struct io_event) == 32, "io_event is 32 bytes in Linux's ABI");
_Static_assert(sizeof(struct iocb) == 64, "iocb is 64 bytes in Linux's ABI");
_Static_assert(__builtin_offsetof(struct iocb, aio_lio_opcode) == 16, "iocb layout");
_Static_assert(__builtin_offsetof(struct iocb, aio_buf) == 24, "iocb layout");
_Static_assert(__builtin_offsetof(struct iocb, aio_flags) == 56, "iocb layout");

#endif /* _UAPI_LINUX_AIO_ABI_H */
