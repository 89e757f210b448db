// SPDX-License-Identifier: MIT
/*
 * aio.c - asynchronous I/O from one process: Linux's io_setup, io_submit,
 * io_getevents, io_cancel and io_destroy, with the libaio ABI
 * (include/spindle/aio.h, docs/aio.md).
 *
 * Where it sits: beside read_write.c, above fs/block_dev.c.  A process
 * makes a context (io_setup), hands it a batch of requests (io_submit)
 * and collects their completions later (io_getevents), so one process
 * keeps many I/Os in flight -- what a synchronous pread() cannot do.
 *
 *   io_submit --> one blk_plug around the whole batch --> per iocb:
 *     O_DIRECT read/write: the file's a_ops->direct_IO (fs/direct-io.c)
 *       pins the buffer, sends the bios, returns -EIOCBQUEUED; the last
 *       bio's completion (an interrupt) calls aio_complete(), which puts
 *       the request on the context's completion list and wakes the
 *       context's wait queue;
 *     anything else that reads or writes (a buffered block device, a
 *       ramfs file, a pipe) runs synchronously here, and so does
 *     IOCB_CMD_FSYNC/FDSYNC: its event is posted at once (Linux runs
 *       those on a workqueue; here io_submit itself does the work);
 *   blk_finish_plug --> the batch reaches the driver, merged;
 *   io_getevents --> sleeps (interruptibly, with the timeout) on the
 *     wait queue until min_nr events are there, copies them out.
 *
 * The completion list is the context's ring.  Linux's ring is an array
 * mapped into the process; Spindle's lives in kernel memory and
 * io_getevents copies out.  The request itself is the list entry: it
 * holds a reference to its file, and an interrupt handler must not drop
 * that (a last fput may sleep), so the request stays until reaped and
 * the file is put then, in process context.  Each request counts from
 * io_submit until io_getevents reaps it (reqs_active), and io_submit
 * refuses one more than nr_events with EAGAIN, as Linux: every request
 * has room for its event.
 *
 * Errors: a bad context is EINVAL; a bad user pointer EFAULT; a bad
 * descriptor EBADF; an opcode not listed above (PREADV, POLL, NOOP...)
 * EINVAL, returned by io_submit.  What the read or write itself says
 * (EINVAL for a misaligned O_DIRECT buffer, EIO) is the event's res.
 * io_cancel cannot take back block I/O once it is sent: EINVAL, as Linux
 * answers for requests that have no cancel method.
 *
 * Exit: a process that exits (or execs) with I/O in flight waits for it
 * in exit_aio(), called from mmput(): its address space and its
 * contexts go after the last completion, never before, so no interrupt
 * handler posts into freed memory.  io_destroy does the same for one
 * context.
 *
 * Locking: io_submit and io_getevents take no lock that another context
 * takes -- two processes, or two threads each with its own context, share
 * nothing on the way (docs/locking.md, "lock_stat").
 *   - a context's counters, reference count and completion list are
 *     under its wait queue's own spinlock, with interrupts off
 *     (completions come from disk interrupts); the completer wakes the
 *     waiters under that same lock (__wake_up_locked), so a destroyer
 *     that has seen the last completion and taken the lock once may free
 *     the context;
 *   - the address space's list of contexts changes under its mmap_lock
 *     (io_setup and io_destroy take it anyway, to map and unmap the
 *     ring), and is read under no lock at all: see lookup_ioctx();
 *   - aio_nr_lock, the one global lock, counts events for io_setup and
 *     io_destroy only (Linux's aio_nr_lock).
 */
#include <spindle/aio.h>
#include <spindle/fs.h>
#include <spindle/fcntl.h>
#include <spindle/blk_plug.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/mutex.h>
#include <spindle/wait.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/uaccess.h>
#include <spindle/uio.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/smp.h>
#include <uapi/asm/mman.h>
#include "internal.h"

#define AIO_MAX_NR              65536   /* events over all contexts (Linux's aio-max-nr) */
#define AIO_MAX_EVENTS          (0x10000000u / sizeof(struct io_event))  /* per context, Linux's */

/* One context (Linux's struct kioctx). */
struct kioctx {
	struct kioctx *next;            /* the address space's next context */
	aio_context_t user_id;          /* what io_setup gave the user */
	unsigned int max_reqs;          /* nr_events */
	/* the rest under wait.lock, interrupts off */
	wait_queue_head_t wait;         /* io_getevents and io_destroy sleep here */
	/* references: the address space's list (until io_destroy or exit
	 * takes the context off it) and each system call using it (Linux's
	 * ctx->users); dead: off the list, lookups fail, waiters return */
	unsigned int users;
	bool dead;
	unsigned int reqs_active;       /* submitted and not yet reaped */
	unsigned int reqs_inflight;     /* submitted and not yet completed */
	struct list_head done;          /* completed, oldest first: the ring */
	unsigned int nr_done;
};

/* One request (Linux's struct aio_kiocb). */
struct aio_kiocb {
	struct kiocb rw;
	struct kioctx *ctx;
	struct list_head list;          /* on ctx->done once complete */
	struct io_event ev;
};

static DEFINE_SPINLOCK(aio_nr_lock);
static unsigned long aio_nr;            /* events of every context (aio_nr_lock) */

/*
 * The id io_setup hands out is the address of a page mapped read-only
 * into the process, as on Linux, where that page begins the ring of
 * events.  libaio's io_getevents reads the page's header first and takes
 * the events from the ring in user space when the header's magic says
 * the kernel fills it (Linux's AIO_RING_MAGIC).  Spindle keeps its events
 * in the kernel: the magic is 0, and libaio -- and fio's userspace_reap
 * -- call io_getevents instead.  An id that is not an address would
 * make libaio read unmapped memory.
 */
struct aio_ring {
	u32 id, nr, head, tail;
	u32 magic;                      /* 0: no events here, ask the kernel */
	u32 compat_features, incompat_features, header_length;
};

/*
 * The ring's VMA carries its context in vm_private_data, so that
 * io_destroy unmaps the ring and nothing else: a process may have
 * munmap()ed the page and mapped something of its own at that address,
 * which is not the kernel's to take.  (Linux's ring is a mapping of an
 * "[aio]" file; Linux 6.18 on a host unmaps whatever is at the address
 * when the new page's first word reads as the ring's id: tests/user/aio.c,
 * case "remap".)  Caller holds mm->mmap_lock.
 */
static long aio_map_ring(struct mm_struct *mm, struct kioctx *ctx)
{
	struct vm_area_struct *vma;
	struct aio_ring *ring;
	long addr;

	assert_mutex_held(&mm->mmap_lock);
	addr = do_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (addr < 0)
		return addr;
	ring = mm_get_page(mm, (unsigned long)addr);
	vma = find_vma(mm, (unsigned long)addr);
	if (!ring || !vma) {
		do_munmap(mm, (unsigned long)addr, PAGE_SIZE);
		return -ENOMEM;
	}
	ring->nr = ctx->max_reqs;
	ring->header_length = sizeof(*ring);
	vma->vm_private_data = ctx;
	return addr;
}

/* Unmap ctx's ring if it is still at ctx->user_id.  Caller holds mmap_lock. */
static void aio_unmap_ring(struct mm_struct *mm, struct kioctx *ctx)
{
	struct vm_area_struct *vma = find_vma(mm, (unsigned long)ctx->user_id);

	assert_mutex_held(&mm->mmap_lock);
	if (vma && vma->vm_start == (unsigned long)ctx->user_id && vma->vm_private_data == ctx &&
	    vma_is_anonymous(vma))
		do_munmap(mm, vma->vm_start, PAGE_SIZE);
}

/* --- contexts ------------------------------------------------------------- */

/*
 * The caller's context with this id, with a reference for the system
 * call (put_ioctx() at its end), or NULL.  Linux's lookup_ioctx.
 *
 * The list is read under no lock, so that the threads of a process, each
 * with its own context, share nothing here.  What keeps a context from
 * being freed between reading the pointer and taking the reference is
 * interrupts being off: io_destroy takes the context off the list, then
 * runs a function on every CPU (aio_synchronize) and waits for it; a CPU
 * with interrupts off runs it only once it has left this function, so
 * after it no CPU still holds a pointer it read from the list without a
 * reference.  This is what Linux's rcu_read_lock() and synchronize_rcu()
 * do here, at the price of an IPI to each CPU per io_destroy.
 */
static struct kioctx *lookup_ioctx(aio_context_t id)
{
	struct mm_struct *mm = current->mm;
	struct kioctx *ctx, *found = NULL;
	unsigned long flags;

	if (!mm || !id)
		return NULL;
	flags = local_irq_save(); /* the read side: see above */
	/* acquire: pairs with io_setup's release, a context is seen whole */
	for (ctx = smp_load_acquire(&mm->ioctx_list); ctx; ctx = smp_load_acquire(&ctx->next)) {
		if (ctx->user_id != id)
			continue;
		spin_lock(&ctx->wait.lock);
		if (!ctx->dead) {
			ctx->users++;
			found = ctx;
		}
		spin_unlock(&ctx->wait.lock);
		break;
	}
	local_irq_restore(flags);
	return found;
}

/* The end of a system call's use of ctx.  The last reference wakes
 * io_destroy, under the lock it takes once before it frees ctx. */
static void put_ioctx(struct kioctx *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->wait.lock, flags);
	if (--ctx->users == 0)
		__wake_up_locked(&ctx->wait);
	spin_unlock_irqrestore(&ctx->wait.lock, flags);
}

static void aio_sync_ipi(void *info)
{
	(void)info;
}

/* Every CPU has left any lookup_ioctx() it was in.  May sleep (waits). */
static void aio_synchronize(void)
{
	on_each_cpu(aio_sync_ipi, NULL, true);
}

/* Take ctx off its address space's list (caller holds mmap_lock, or no
 * task uses mm any more); false if it is not there.  Lookups may still
 * be walking past it: its next stays as it was. */
static bool unlink_ioctx(struct mm_struct *mm, struct kioctx *ctx)
{
	struct kioctx **pp;

	for (pp = &mm->ioctx_list; *pp; pp = &(*pp)->next)
		if (*pp == ctx) {
			WRITE_ONCE(*pp, ctx->next);
			spin_lock(&aio_nr_lock);
			aio_nr -= ctx->max_reqs;
			spin_unlock(&aio_nr_lock);
			return true;
		}
	return false;
}

static void aio_free_req(struct aio_kiocb *req)
{
	fput(req->rw.ki_filp);
	kfree(req);
}

/*
 * An unlinked ctx dies: the list's reference goes, io_getevents sleepers
 * return, and once no system call uses it and every request has
 * completed, it is freed with the events nobody reaped.  A system call
 * still using it submits before it puts its reference, so once users is
 * 0 no request is added.  Uninterruptible: the bios are on their way and
 * will end (the drivers time out a device that does not answer).  May
 * sleep.
 */
static void kill_ioctx(struct kioctx *ctx)
{
	struct aio_kiocb *req, *tmp;

	spin_lock_irq(&ctx->wait.lock);
	ctx->dead = true;
	ctx->users--;
	__wake_up_locked(&ctx->wait);
	spin_unlock_irq(&ctx->wait.lock);
	aio_synchronize(); /* no lookup holds a pointer to it without a reference */
	wait_event(ctx->wait, READ_ONCE(ctx->users) == 0 && READ_ONCE(ctx->reqs_inflight) == 0);
	/* the last completer wakes us under this lock: once we hold it,
	 * it has let go of ctx for good */
	spin_lock_irq(&ctx->wait.lock);
	spin_unlock_irq(&ctx->wait.lock);
	list_for_each_entry_safe(req, tmp, &ctx->done, list)
		aio_free_req(req);
	kfree(ctx);
}

/*
 * No task uses mm any more (mmput): nothing changes its list or looks
 * anything up in it, so no lock -- fork's failure path puts a new mm
 * while it holds the parent's mmap_lock.
 */
void exit_aio(struct mm_struct *mm)
{
	struct kioctx *ctx;

	while ((ctx = mm->ioctx_list)) {
		unlink_ioctx(mm, ctx);
		kill_ioctx(ctx);
	}
}

long sys_io_setup(unsigned int nr_events, aio_context_t __user *ctxp)
{
	struct mm_struct *mm = current->mm;
	struct kioctx *ctx;
	aio_context_t id;
	long addr;

	if (copy_from_user(&id, ctxp, sizeof(id)))
		return -EFAULT;
	if (id || nr_events == 0 || nr_events > AIO_MAX_EVENTS || !mm)
		return -EINVAL;         /* *ctxp must be 0 on entry, as Linux */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->max_reqs = nr_events;
	ctx->users = 1; /* the list's */
	init_waitqueue_head(&ctx->wait);
	INIT_LIST_HEAD(&ctx->done);
	spin_lock(&aio_nr_lock);
	addr = aio_nr + nr_events > AIO_MAX_NR ? -EAGAIN : 0;
	if (!addr)
		aio_nr += nr_events;
	spin_unlock(&aio_nr_lock);
	if (addr) {
		kfree(ctx);
		return addr;
	}
	mutex_lock(&mm->mmap_lock);
	addr = aio_map_ring(mm, ctx);
	if (addr >= 0) {
		ctx->user_id = (aio_context_t)addr;
		ctx->next = mm->ioctx_list;
		/* release: lookups see a context whole (lookup_ioctx) */
		smp_store_release(&mm->ioctx_list, ctx);
	}
	mutex_unlock(&mm->mmap_lock);
	if (addr < 0) {
		spin_lock(&aio_nr_lock);
		aio_nr -= nr_events;
		spin_unlock(&aio_nr_lock);
		kfree(ctx);
		return addr;
	}
	if (copy_to_user(ctxp, &ctx->user_id, sizeof(ctx->user_id))) {
		mutex_lock(&mm->mmap_lock);
		unlink_ioctx(mm, ctx);
		aio_unmap_ring(mm, ctx);
		mutex_unlock(&mm->mmap_lock);
		kill_ioctx(ctx); /* another thread may have guessed the id */
		return -EFAULT;
	}
	return 0;
}

long sys_io_destroy(aio_context_t ctx_id)
{
	struct mm_struct *mm = current->mm;
	struct kioctx *ctx = lookup_ioctx(ctx_id);
	bool found;

	if (!ctx)
		return -EINVAL;
	mutex_lock(&mm->mmap_lock);
	found = unlink_ioctx(mm, ctx);
	if (found)
		aio_unmap_ring(mm, ctx);
	mutex_unlock(&mm->mmap_lock);
	put_ioctx(ctx);
	if (!found)
		return -EINVAL; /* another thread destroyed it first */
	kill_ioctx(ctx);
	return 0;
}

/* --- completion: may run in an interrupt handler ---------------------------- */

/* ki_complete of every request: post its event.  Does not sleep. */
static void aio_complete(struct kiocb *kiocb, long res)
{
	struct aio_kiocb *req = container_of(kiocb, struct aio_kiocb, rw);
	struct kioctx *ctx = req->ctx;
	unsigned long flags;

	req->ev.res = res;
	req->ev.res2 = 0;
	spin_lock_irqsave(&ctx->wait.lock, flags);
	list_add_tail(&req->list, &ctx->done);
	ctx->nr_done++;
	ctx->reqs_inflight--;
	__wake_up_locked(&ctx->wait);
	spin_unlock_irqrestore(&ctx->wait.lock, flags);
}

/* --- io_submit ------------------------------------------------------------ */

/* A read or write that is not an O_DIRECT one: done now. */
static long aio_rw_sync(struct file *f, struct iov_iter *it, loff_t pos, bool write)
{
	if (pos < 0)
		return -EINVAL;
	if (!(f->f_mode & FMODE_LSEEK))
		return -ESPIPE;         /* as pread on a pipe */
	return write ? vfs_write(f, it, &pos) : vfs_read(f, it, &pos);
}

int kiocb_rw_check(struct file *f, loff_t pos, size_t len, const void __user *buf, bool write)
{
	if (!(f->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	if ((ssize_t)len < 0)
		return -EINVAL;
	/* Linux's rw_verify_area, before queueing: a negative offset, or a
	 * range past 2^63 (else a direct write there would be queued and
	 * end in -ENOSPC) */
	if ((f->f_mode & FMODE_LSEEK) && rw_verify_area(pos, len))
		return -EINVAL;
	if (!access_ok(buf, len))
		return -EFAULT;
	return 0;
}

ssize_t kiocb_rw_start(struct kiocb *kiocb, struct iov_iter *it, bool write)
{
	struct file *f = kiocb->ki_filp;

	if ((f->f_flags & O_DIRECT) && f->f_mapping && f->f_mapping->a_ops &&
	    f->f_mapping->a_ops->direct_IO)
		return f->f_mapping->a_ops->direct_IO(f, it, &kiocb->ki_pos, write, kiocb);
	return aio_rw_sync(f, it, kiocb->ki_pos, write);
}

/* Start req as iocb says; 0 once it is on its way (or done), else the
 * error io_submit returns for it. */
static int aio_start(struct aio_kiocb *req, const struct iocb *iocb)
{
	struct file *f = req->rw.ki_filp;
	bool write = iocb->aio_lio_opcode == IOCB_CMD_PWRITE;
	void __user *buf = (void __user *)(unsigned long)iocb->aio_buf;
	struct iov_iter it;
	long ret;

	switch (iocb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PWRITE:
		ret = kiocb_rw_check(f, iocb->aio_offset, (size_t)iocb->aio_nbytes, buf, write);
		if (ret)
			return (int)ret;
		iov_iter_ubuf(&it, write ? ITER_SOURCE : ITER_DEST, buf, iocb->aio_nbytes);
		ret = kiocb_rw_start(&req->rw, &it, write);
		break;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		if (iocb->aio_buf || iocb->aio_nbytes || iocb->aio_offset)
			return -EINVAL;         /* as Linux's aio_fsync */
		/* synchronous, here: Linux queues it to a workqueue, and the
		 * event is the same either way */
		ret = vfs_fsync(f, iocb->aio_lio_opcode == IOCB_CMD_FDSYNC);
		break;
	default:
		return -EINVAL;
	}
	if (ret != -EIOCBQUEUED)
		aio_complete(&req->rw, ret);
	return 0;
}

static int io_submit_one(struct kioctx *ctx, struct iocb __user *user_iocb)
{
	struct aio_kiocb *req;
	struct iocb iocb;
	u32 key = 0;
	int err;

	if (copy_from_user(&iocb, user_iocb, sizeof(iocb)))
		return -EFAULT;
	if (iocb.aio_reserved2 || (iocb.aio_flags & IOCB_FLAG_RESFD))
		return -EINVAL;         /* eventfd notification: not in Spindle */
	if (iocb.aio_rw_flags)
		return -EOPNOTSUPP;     /* no RWF_* flag is supported */

	spin_lock_irq(&ctx->wait.lock);
	if (ctx->reqs_active >= ctx->max_reqs) {
		spin_unlock_irq(&ctx->wait.lock);
		return -EAGAIN;         /* no room for one more event */
	}
	ctx->reqs_active++;
	ctx->reqs_inflight++;
	spin_unlock_irq(&ctx->wait.lock);

	err = -EAGAIN;                  /* Linux's answer when no request can be had */
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		goto undo;
	req->ctx = ctx;
	req->ev.data = iocb.aio_data;
	req->ev.obj = (u64)(unsigned long)user_iocb;
	req->rw.ki_pos = iocb.aio_offset;
	req->rw.ki_complete = aio_complete;
	err = -EBADF;
	req->rw.ki_filp = fget(iocb.aio_fildes);
	if (!req->rw.ki_filp)
		goto free;
	err = -EFAULT;
	if (copy_to_user(&user_iocb->aio_key, &key, sizeof(key)))
		goto put;
	err = aio_start(req, &iocb);
	if (!err)
		return 0;
put:
	fput(req->rw.ki_filp);
free:
	kfree(req);
undo:
	spin_lock_irq(&ctx->wait.lock);
	ctx->reqs_active--;
	ctx->reqs_inflight--;
	spin_unlock_irq(&ctx->wait.lock);
	return err;
}

/*
 * The whole batch goes down under one plug, as Linux's io_submit: the
 * requests of 32 consecutive writes wait in the plug list, merge there,
 * and reach the driver together at blk_finish_plug (docs/block.md).
 */
long sys_io_submit(aio_context_t ctx_id, long nr, struct iocb __user *__user *iocbpp)
{
	struct kioctx *ctx;
	struct blk_plug plug;
	long i;
	int err = 0;

	if (nr < 0)
		return -EINVAL;
	ctx = lookup_ioctx(ctx_id);
	if (!ctx)
		return -EINVAL;
	if (nr > ctx->max_reqs)
		nr = ctx->max_reqs;     /* as Linux: no batch can fit more */
	blk_start_plug(&plug);
	for (i = 0; i < nr; i++) {
		struct iocb __user *user_iocb;

		if (copy_from_user(&user_iocb, &iocbpp[i], sizeof(user_iocb))) {
			err = -EFAULT;
			break;
		}
		err = io_submit_one(ctx, user_iocb);
		if (err)
			break;
	}
	blk_finish_plug(&plug);
	put_ioctx(ctx);
	return i ? i : err;
}

/* --- io_getevents --------------------------------------------------------- */

/*
 * Move up to nr completed events to the user: how many were copied, or
 * -EFAULT if the first could not be.  As Linux's aio_read_events_ring, an
 * event is gone only once it is in the user's array: when the copy faults
 * part way, the events not copied go back to the head of the list, in
 * their order, for the next io_getevents -- a bad buffer loses nothing.
 * The requests are taken off the list first because copy_to_user may
 * fault and sleep, which it must not do under the spinlock.
 */
static long aio_read_events(struct kioctx *ctx, struct io_event __user *events, long nr)
{
	LIST_HEAD(reaped);
	struct aio_kiocb *req, *tmp;
	long n = 0, copied = 0;

	spin_lock_irq(&ctx->wait.lock);
	while (n < nr && !list_empty(&ctx->done)) {
		list_move_tail(ctx->done.next, &reaped);
		n++;
	}
	ctx->nr_done -= n;
	spin_unlock_irq(&ctx->wait.lock);

	list_for_each_entry_safe(req, tmp, &reaped, list) {
		if (copy_to_user(&events[copied], &req->ev, sizeof(req->ev)))
			break;
		list_del(&req->list);
		aio_free_req(req);
		copied++;
	}
	spin_lock_irq(&ctx->wait.lock);
	ctx->reqs_active -= copied;
	if (copied < n) {
		/* the rest go back in front of any that completed meanwhile */
		list_splice_init(&reaped, &ctx->done);
		ctx->nr_done += n - copied;
	}
	spin_unlock_irq(&ctx->wait.lock);
	return copied || !n ? copied : -EFAULT;
}

/* Nanoseconds still to wait as jiffies to sleep: one tick more than the
 * time rounded up (the current tick is partly gone). */
static long ns_to_timeout(u64 ns)
{
	u64 ns_per_tick = NSEC_PER_SEC / HZ;

	if (ns / NSEC_PER_SEC >= (u64)MAX_SCHEDULE_TIMEOUT / 2 / HZ)
		return MAX_SCHEDULE_TIMEOUT;
	return (long)DIV_ROUND_UP(ns, ns_per_tick) + 1;
}

/* io_getevents on a context the caller holds a reference to. */
static long aio_getevents(struct kioctx *ctx, long min_nr, long nr,
			  struct io_event __user *events, bool poll, u64 deadline)
{
	long got = 0;

	/*
	 * Reap what is there; while fewer than min_nr, sleep until more
	 * come, the time is up, or a signal arrives.  {0, 0} never sleeps.
	 * The time is up by the clock the caller reads (ktime, which is
	 * CLOCK_MONOTONIC), not by counting ticks: a tick can be accounted a
	 * little before its time (time.c), and io_getevents must never
	 * return before its timeout -- so a wait that ends early sleeps again
	 * for the rest.
	 */
	for (;;) {
		long n = aio_read_events(ctx, events + got, nr - got), left = MAX_SCHEDULE_TIMEOUT;

		if (n < 0)
			return got ? got : n;
		got += n;
		if (got >= min_nr || got == nr || poll)
			break;
		if (READ_ONCE(ctx->dead))	/* io_destroy from another thread */
			return got ? got : -EINVAL;
		if (deadline) {
			u64 now = ktime_get_ns();

			if (now >= deadline)
				break;
			left = ns_to_timeout(deadline - now);
		}
		if (signal_pending(current))
			return got ? got : -EINTR;
		wait_event_interruptible_timeout(ctx->wait,
				READ_ONCE(ctx->nr_done) || READ_ONCE(ctx->dead) ||
				signal_pending(current), left);
	}
	return got;
}

long sys_io_getevents(aio_context_t ctx_id, long min_nr, long nr,
		      struct io_event __user *events, struct __kernel_timespec __user *timeout)
{
	struct kioctx *ctx;
	bool poll = false;
	u64 deadline = 0;               /* ktime; 0: no timeout */
	struct __kernel_timespec ts;
	long ret;

	if (min_nr < 0 || nr < 0 || min_nr > nr)
		return -EINVAL;
	if (timeout) {
		if (copy_from_user(&ts, timeout, sizeof(ts)))
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long long)NSEC_PER_SEC)
			return -EINVAL;
		poll = !ts.tv_sec && !ts.tv_nsec;
		if (!poll && (u64)ts.tv_sec < (u64)MAX_SCHEDULE_TIMEOUT / 2 / HZ)
			deadline = ktime_get_ns() + (u64)ts.tv_sec * NSEC_PER_SEC + (u64)ts.tv_nsec;
	}
	ctx = lookup_ioctx(ctx_id);
	if (!ctx)
		return -EINVAL;
	ret = aio_getevents(ctx, min_nr, nr, events, poll, deadline);
	put_ioctx(ctx);
	return ret;
}

/* --- io_cancel ------------------------------------------------------------ */

/*
 * Block I/O cannot be called back once sent, so there is nothing to
 * cancel: EINVAL, as Linux answers for a request without a cancel method
 * (and for one it does not know).  The arguments are checked first.
 */
long sys_io_cancel(aio_context_t ctx_id, struct iocb __user *iocb,
		   struct io_event __user *result)
{
	struct kioctx *ctx = lookup_ioctx(ctx_id);
	u32 key;

	(void)result;
	if (!ctx)
		return -EINVAL;
	put_ioctx(ctx);
	/* the address by hand: iocb may be any value, NULL included */
	if (copy_from_user(&key, (char __user *)iocb + offsetof(struct iocb, aio_key), sizeof(key)))
		return -EFAULT;
	return -EINVAL;
}
