/* SPDX-License-Identifier: MIT */
/*
 * aio.h - asynchronous I/O (fs/aio.c): the user ABI of Linux's io_setup,
 * io_submit, io_getevents, io_cancel and io_destroy, and the kernel's
 * per-request object, struct kiocb, that the file layer completes.
 *
 * The first half is the ABI, Linux's include/uapi/linux/aio_abi.h on
 * x86-64, kept once for the kernel and the libc in
 * include/uapi/linux/aio_abi.h (libaio programs use it unchanged).  The
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

/* --- the user ABI (Linux's aio_abi.h, shared with the libc) ---------------- */

#include <uapi/linux/aio_abi.h>

/* io_getevents' timeout (Linux's include/uapi/linux/time_types.h) */
struct __kernel_timespec {
	s64 tv_sec;
	long long tv_nsec;
};

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
	 * so it must not sleep.  NULL: a synchronous kiocb (is_sync_kiocb),
	 * whose caller waits -- preadv2's, to carry ki_flags */
	void (*ki_complete)(struct kiocb *iocb, long res);
	int ki_flags;                   /* IOCB_* below */
	/* an asynchronous IOCB_HIPRI read or write sent as one REQ_POLLED
	 * bio: that bio, with a reference for the kiocb's owner, who polls
	 * it (bio_poll) and puts it once ki_complete has run (Linux keeps
	 * it here too, for iocb_bio_iopoll).  NULL: nothing to poll. */
	void *private;
};

/* ki_flags (Linux's values, include/linux/fs.h), from RWF_* */
#define IOCB_HIPRI      (1 << 3)        /* poll for the completion (REQ_POLLED) */
#define IOCB_DSYNC      (1 << 4)        /* write: data on the disk before return */
#define IOCB_SYNC       (1 << 5)        /* ... and the metadata too */
/* its bios may come from, and go back to, a per-CPU cache of bios
 * (bio_alloc_kiocb): io_uring sets it on an IOPOLL ring, whose bios end
 * in the polling task, as Linux 6.1 does */
#define IOCB_ALLOC_CACHE (1 << 21)

static inline bool is_sync_kiocb(const struct kiocb *kiocb)
{
	return !kiocb->ki_complete;
}

/* "Queued: the result comes through ki_complete" (Linux's value). */
#define EIOCBQUEUED             529

/*
 * How io_submit and io_uring start a read or write (fs/aio.c), in two
 * steps so that each caller decides where an error goes (io_submit's
 * return value, or the event):
 *   kiocb_rw_check   what must hold before anything is queued: the file
 *                    open for the direction (EBADF), a length and, for a
 *                    file with positions, a range Linux's rw_verify_area
 *                    accepts (EINVAL), a user buffer (EFAULT).  0 if all do.
 *   kiocb_rw_start   a file opened O_DIRECT with a direct_IO goes down
 *                    asynchronously (-EIOCBQUEUED: ki_complete follows,
 *                    maybe from an interrupt handler); anything else is
 *                    done now, at ki_pos, and its result returned (a file
 *                    without positions: -ESPIPE).  May sleep.
 */
ssize_t kiocb_rw_start(struct kiocb *kiocb, struct iov_iter *it, bool write);
int kiocb_rw_check(struct file *f, loff_t pos, size_t len, const void __user *buf, bool write);

/* fs/aio.c: a dying address space's contexts, waited for and freed
 * (Linux's exit_aio, called from mmput).  May sleep. */
struct mm_struct;
void exit_aio(struct mm_struct *mm);

/* fs/io-wq.c: the current task's io_uring works on every ring cancelled,
 * the running ones interrupted and waited for -- as it exits (before
 * exit_mm), or execs (before the old mm goes; Linux's names).  May sleep. */
void io_uring_files_cancel(void);
void io_uring_task_cancel(void);

#endif /* SPINDLE_AIO_H */
