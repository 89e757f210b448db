/* SPDX-License-Identifier: MIT */
/*
 * aio.h - asynchronous I/O (fs/aio.c): the user ABI of Linux's io_setup,
 * io_submit, io_getevents, io_cancel and io_destroy, and the kernel's
 * per-request object, struct kiocb, that the file layer completes.
 *
 * The first half is the ABI, laid out as Linux's
 * include/uapi/linux/aio_abi.h on x86-64 (libaio programs use it
 * unchanged; user/include/linux/aio_abi.h is the user side's copy).  The
 * second half is what fs/block_dev.c sees: a kiocb with a completion
 * callback.  A read or write given a kiocb with ki_complete set may
 * return -EIOCBQUEUED: the I/O is on its way and ki_complete(iocb, res)
 * will be called once, maybe from an interrupt handler, with res = bytes
 * done or -errno.  Any other return value is the result itself (and
 * ki_complete is not called).
 *
 * Read docs/aio.md for the whole path.
 */
#ifndef SPINDLE_AIO_H
#define SPINDLE_AIO_H

#include <spindle/types.h>
#include <spindle/compiler.h>

/* --- the user ABI (Linux's aio_abi.h) ------------------------------------- */

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
	u64 data;               /* the iocb's aio_data */
	u64 obj;                /* the iocb's user address */
	s64 res;                /* bytes done, or -errno */
	s64 res2;               /* always 0 here */
};

/* One request, as the user fills it (little-endian field order). */
struct iocb {
	u64 aio_data;           /* returned in io_event.data */
	u32 aio_key;            /* the kernel writes 0 here (Linux's KIOCB_KEY) */
	u32 aio_rw_flags;       /* RWF_* (none supported: must be 0) */
	u16 aio_lio_opcode;     /* IOCB_CMD_* */
	s16 aio_reqprio;
	u32 aio_fildes;
	u64 aio_buf;            /* user buffer */
	u64 aio_nbytes;
	s64 aio_offset;
	u64 aio_reserved2;      /* must be 0 */
	u32 aio_flags;          /* IOCB_FLAG_* */
	u32 aio_resfd;
};

/* io_getevents' timeout (Linux's include/uapi/linux/time_types.h) */
struct __kernel_timespec {
	s64 tv_sec;
	long long tv_nsec;
};

_Static_assert(sizeof(struct io_event) == 32, "io_event is 32 bytes in Linux's ABI");
_Static_assert(sizeof(struct iocb) == 64, "iocb is 64 bytes in Linux's ABI");
_Static_assert(__builtin_offsetof(struct iocb, aio_lio_opcode) == 16, "iocb layout");
_Static_assert(__builtin_offsetof(struct iocb, aio_buf) == 24, "iocb layout");
_Static_assert(__builtin_offsetof(struct iocb, aio_flags) == 56, "iocb layout");

/* --- the kernel side: one request in flight ------------------------------- */

struct file;
struct iov_iter;

/*
 * The per-request object, Linux's struct kiocb (include/linux/fs.h): the
 * file, the offset, and who to tell when it is done.  fs/aio.c embeds it
 * in its own request (struct aio_kiocb).
 */
struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	/* called once with bytes or -errno; may run in interrupt context,
	 * so it must not sleep */
	void (*ki_complete)(struct kiocb *iocb, long res);
};

/* "Queued: the result comes through ki_complete" (Linux's value). */
#define EIOCBQUEUED             529

/* fs/block_dev.c: an O_DIRECT read or write of a block-device file for
 * iocb; -EIOCBQUEUED or the result.  May sleep (before the I/O goes). */
ssize_t blkdev_direct_IO_async(struct kiocb *iocb, struct iov_iter *it, bool write);

/* fs/aio.c: a dying address space's contexts, waited for and freed
 * (Linux's exit_aio, called from mmput).  May sleep. */
struct mm_struct;
void exit_aio(struct mm_struct *mm);

#endif /* SPINDLE_AIO_H */
