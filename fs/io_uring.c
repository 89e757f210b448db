// SPDX-License-Identifier: MIT
/*
 * io_uring.c - Linux's io_uring, first step: io_uring_setup (425),
 * io_uring_enter (426) and io_uring_register (427) with Linux 6.1's ABI
 * (include/uapi/linux/io_uring.h), so that liburing programs run unchanged.
 * docs/aio.md ("io_uring") walks one READ through it.
 *
 * Where it sits: beside fs/aio.c, whose way of starting a read or write it
 * shares (kiocb_rw_check, kiocb_rw_start: include/spindle/aio.h).  Where
 * AIO copies each request in and each event out, io_uring shares two
 * rings with the process, mapped from the ring's descriptor:
 *
 *   SQ ring + SQE array   the process writes SQEs, puts their indexes in
 *                         the SQ array and moves the SQ tail on;
 *   CQ ring               the kernel writes a CQE per request and moves the
 *                         CQ tail on; the process reads and moves the head.
 *
 *   io_uring_enter(fd, to_submit, min_complete, GETEVENTS)
 *     one blk_plug around the whole batch --> per SQE (copied first):
 *       O_DIRECT READ/WRITE: kiocb_rw_start sends the bios and returns
 *         -EIOCBQUEUED; the last bio's end (an interrupt) calls
 *         io_complete_rw, which posts the CQE and wakes the ring's waiters;
 *       what cannot block (NOP, a pipe or tty with data, /dev/null) runs
 *         here and its CQE is posted at once;
 *       what could (FSYNC, buffered I/O, offset -1, an empty pipe,
 *         READV/WRITEV of several buffers, IOSQE_ASYNC, a linked chain)
 *         goes to the ring's worker threads (fs/io-wq.c: io_must_punt,
 *         io_queue_async), which post its CQE when it ends;
 *     blk_finish_plug --> the batch reaches the driver, merged;
 *     then sleeps, interruptibly, until min_complete CQEs are in the ring.
 *
 * Memory ordering (Linux's, as documented in its io_uring.c): each index
 * has one writer.  The kernel reads the SQ tail with smp_load_acquire
 * (then the SQEs it covers are visible) and publishes its SQ head with
 * smp_store_release once it has copied them (then the process may reuse
 * them); it writes a CQE, then publishes the CQ tail with
 * smp_store_release; it reads the process's CQ head with READ_ONCE (a
 * stale one only makes the ring look fuller).  The process runs on any
 * CPU, in the middle of any of this.
 *
 * The rings' memory: order-0 pages, each with a reference held by the
 * ring and one by each PTE that maps it.  The descriptor's mmap hands them
 * out from a vm_ops fault (io_uring_fault), so munmap, fork and exit
 * treat them as any shared file page, and the pages outlive the ring only
 * as long as a mapping does.  The kernel reaches them through the direct
 * map, page by page (io_region_ptr): no entry straddles two pages.
 *
 * A full CQ loses nothing (IORING_FEAT_NODROP, Linux 6.1's overflow
 * list): a CQE that finds no room waits on the ring's overflow list, the
 * SQ ring's flags say IORING_SQ_CQ_OVERFLOW, and io_uring_enter with
 * GETEVENTS moves the list into the room the process has made; until
 * then every new CQE joins the list too, so the order holds.  Submission
 * is not held back by a full CQ (as in Linux 6.1).  Only a CQE
 * whose list entry cannot be allocated is lost, counted in cq_overflow.
 * fs/io_uring_cq.c posts and flushes; a request is still in flight
 * from its SQE to its CQE (nr_taken - nr_posted), for the release to
 * wait on.
 *
 * Lifetime: requests whose CQE was posted from an interrupt handler still
 * hold their file, which must not be dropped there (a last fput may
 * sleep): they wait on ctx->done until the next io_uring_enter, or the
 * ring's release, puts them.  The release (the last close of the
 * descriptor, or of a mapping, which holds the file -- at exit, too) waits
 * uninterruptibly for every request in flight before the rings go, as
 * exit_aio does: no interrupt handler writes into freed memory.
 *
 * Linked SQEs (IOSQE_IO_LINK): a chain goes whole to one worker, which
 * issues each link once the one before has ended; after a failure the
 * rest of the chain completes with -ECANCELED.  Linux starts the next
 * link from the completion instead; either way io_uring_enter returns at
 * once.
 *
 * io-wq (fs/io-wq.c): per ring, up to four "iou-wrk-<tid>" threads made
 * on demand, each running a punted request in its submitter's address
 * space.  The ring's release cancels what waits, interrupts what runs
 * and stops them before anything is freed; a task that exits or execs
 * does the same to its own requests first (io_uring_files_cancel).
 * IORING_SETUP_ATTACH_WQ is checked as Linux 6.1 checks it, and shares
 * nothing.  docs/aio.md, "io-wq".
 *
 * IORING_SETUP_IOPOLL (Linux's polled ring): a read or write is sent as
 * one REQ_POLLED bio to the device's poll queue (generic_direct_IO with
 * IOCB_HIPRI hands the bio back in kiocb->private), which raises no
 * interrupt; the request waits on ctx->iopoll_list, and io_uring_enter's
 * GETEVENTS, instead of sleeping, polls each one's queue (bio_poll) until
 * min_complete CQEs are there -- the completion runs inside bio_poll and
 * posts the CQE as an interrupt would.  Only O_DIRECT block devices can
 * be polled (Linux's f_op->iopoll): anything else gets -EOPNOTSUPP in its
 * CQE, FSYNC -EINVAL (not a polled opcode), NOP goes through.  The
 * release polls what is still in flight: nothing else ever would.
 *
 * IORING_SETUP_SQPOLL: a kernel thread per ring, "iou-sqp-<pid>", takes
 * the SQEs (io_sq_thread), each pass in the owner's address space,
 * borrowed for the pass (get_task_mm, kthread_use_mm: the SQEs name the
 * owner's buffers; setup marked the mm threaded, so PTE changes are
 * flushed on both CPUs).  After sq_thread_idle with nothing to do it sets
 * IORING_SQ_NEED_WAKEUP and sleeps until IORING_ENTER_SQ_WAKEUP;
 * SQPOLL|IOPOLL: it polls as well.  The ring's release stops it; if the
 * release runs in the thread itself (its mmput was the mm's last, the
 * mapping the ring's last reference), it frees the ring as it leaves.
 * It has no descriptor table: registered files only.  docs/aio.md,
 * "IOPOLL and SQPOLL".
 *
 * TIMEOUT, TIMEOUT_REMOVE and ASYNC_CANCEL need no file and send nothing
 * down (io_issue_ctl): a timeout is a timer whose function posts -ETIME
 * from the tick, or completes once `off` other CQEs are posted -- each
 * CQE is counted, __io_post_cqe -- (fs/io_uring_timeout.c); a cancel
 * looks in io-wq's queue and among its workers, then among the timeouts
 * (fs/io_uring_cancel.c).  Alone, they run in io_uring_enter; in a
 * chain, in the worker that runs it.  A CQE that cannot be kept marks the
 * ring, and GETEVENTS says EBADR from then on (Linux's
 * IO_CHECK_CQ_DROPPED_BIT); IORING_ENTER_EXT_ARG gives the wait a timeout
 * (ETIME).  docs/aio.md, "Timeouts and cancellation".
 *
 * Not here yet: the other setup flags (setup says EINVAL), drained SQEs
 * (the SQE's CQE says EINVAL), and the opcodes other than NOP, READV,
 * WRITEV, READ, WRITE, READ_FIXED, WRITE_FIXED, FSYNC, TIMEOUT,
 * TIMEOUT_REMOVE and ASYNC_CANCEL (EOPNOTSUPP, as Linux answers for one
 * it was built without; the probe tells which).
 *
 * Locking: ctx->uring_lock (a mutex) serialises submission, polling
 * (iopoll_list), registration, the request cache, the batch of
 * completions, the count of SQEs taken and the making of ctx->io_wq -- a forked
 * child shares the ring, and the SQ thread takes it for each pass; a
 * worker takes it only around a linked ASYNC_CANCEL or TIMEOUT_REMOVE,
 * and nobody waits for a worker while holding it.  The CQ tail, the
 * count of CQEs posted and the done list are under ctx->cq_wait.lock, taken
 * with interrupts off (completions come from disk interrupts); the
 * completer wakes the waiters under it, so a release that has seen the
 * last completion and taken the lock once may free the ring.  The armed
 * timeouts are under it too; their timers' base lock nests inside.
 */
#include <spindle/aio.h>
#include <spindle/fs.h>
#include <spindle/fcntl.h>
#include <spindle/blk_plug.h>
#include <spindle/bio.h>
#include <spindle/blkdev.h>
#include <spindle/barrier.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/mutex.h>
#include <spindle/wait.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/uaccess.h>
#include <spindle/uio.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/refcount.h>
#include <spindle/fault_inject.h>
#include <spindle/init.h>
#include <uapi/linux/io_uring.h>
#include "internal.h"
#include "io_uring_cq.h"
#include "io-wq.h"
#include "io_uring_timeout.h"
#include "io_uring_cancel.h"

#define IORING_MAX_ENTRIES      32768u                  /* SQ entries, Linux's */
#define IORING_MAX_CQ_ENTRIES   (2 * IORING_MAX_ENTRIES)
#define IORING_MAX_REG_BUFFERS  (1u << 14)              /* registered buffers, Linux's */
#define IORING_MAX_BUF_SIZE     (1ul << 30)             /* one registered buffer: 1 GiB */
#define IORING_MAX_FIXED_FILES  (1u << 20)              /* registered files, Linux's */
#define IORING_UIO_MAXIOV       1024u                   /* READV/WRITEV: Linux's UIO_MAXIOV */
#define IORING_CACHELINE        64                      /* each index on its own line */
#define IO_WAIT_MAX_NS          (1ull << 62)            /* a wait's timeout: "forever" beyond */
#define IO_WAIT_MAX_JIFFIES     (1ull << 40)            /* one sleep at most, jiffies */

/* Setup flags that Spindle implements. */
#define IORING_SETUP_SUPPORTED  (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL | \
				 IORING_SETUP_SQ_AFF | IORING_SETUP_CQSIZE | \
				 IORING_SETUP_CLAMP | IORING_SETUP_ATTACH_WQ | \
				 IORING_SETUP_SUBMIT_ALL)
#define IORING_SQ_IDLE_DEFAULT_MS 1000u         /* sq_thread_idle 0: Linux's HZ */
/* What params.features promises: one mmap maps both rings; no CQE is
 * dropped while memory lasts (the overflow list); an SQE (and
 * READV's iovecs) are read during io_uring_enter, never later; an offset
 * of -1 means the file's position; io_uring_enter takes
 * IORING_ENTER_EXT_ARG (a timeout for the wait). */
#define IORING_FEATURES         (IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | \
				 IORING_FEAT_SUBMIT_STABLE | IORING_FEAT_RW_CUR_POS | \
				 IORING_FEAT_EXT_ARG)

_Static_assert(sizeof(struct io_uring_sqe) == 64, "io_uring_sqe is 64 bytes in Linux");
_Static_assert(sizeof(struct io_uring_cqe) == 16, "io_uring_cqe is 16 bytes in Linux");
_Static_assert(sizeof(struct io_uring_params) == 120, "io_uring_params is 120 bytes in Linux");
_Static_assert(offsetof(struct io_uring_sqe, user_data) == 32, "Linux's layout");
_Static_assert(offsetof(struct io_uring_sqe, buf_index) == 40, "Linux's layout");

/*
 * The start of the rings' region (Linux's struct io_rings): the four
 * indexes, each on a cache line of its own (the process writes two, the
 * kernel two, often from different CPUs), the constants, the counters, and
 * the CQE array.  The SQ array follows the CQEs (sq_array_off).  Where
 * each field is, is told to the process in io_uring_params.
 */
struct io_rings {
	u32 sq_head __aligned(IORING_CACHELINE);        /* the kernel's */
	u32 sq_tail __aligned(IORING_CACHELINE);        /* the process's */
	u32 cq_head __aligned(IORING_CACHELINE);        /* the process's */
	u32 cq_tail __aligned(IORING_CACHELINE);        /* the kernel's */
	u32 sq_ring_mask, cq_ring_mask;
	u32 sq_ring_entries, cq_ring_entries;
	u32 sq_dropped;                 /* SQEs skipped: index out of range */
	u32 sq_flags;                   /* IORING_SQ_NEED_WAKEUP, IORING_SQ_CQ_OVERFLOW */
	u32 cq_flags;
	u32 cq_overflow;                /* CQEs lost: no memory to keep them */
	struct io_uring_cqe cqes[] __aligned(IORING_CACHELINE);
};
_Static_assert(sizeof(struct io_rings) <= PAGE_SIZE, "io_rings' head in the first page");

/* Memory shared with the process: order-0 pages, not contiguous. */
struct io_region {
	struct page **pages;
	unsigned int nr_pages;
};

/* One registered buffer (Linux's io_mapped_ubuf): its range and its
 * pages, pinned from registration to unregistration, one bio_vec per
 * page -- what READ_FIXED/WRITE_FIXED hand down (an ITER_BVEC), so that
 * an I/O neither walks the page tables nor pins again. */
struct io_mapped_ubuf {
	unsigned long ubuf, len;
	struct bio_vec *bvec;           /* bvec[0] starts at ubuf's offset in its page */
	unsigned int nr_bvecs;
};

/*
 * The registered buffers, as one table with a count (Linux counts its
 * rsrc nodes the same way): the registration holds one reference, and
 * each READ_FIXED/WRITE_FIXED in flight another.  The device reads or
 * writes those pages with no pin of the request's own, so
 * IORING_UNREGISTER_BUFFERS (or the ring's release) while one is on its
 * way only lets go of the registration's reference: the pages are
 * unpinned when the last such request is freed, not while a device may
 * still be writing them.
 */
struct io_buf_table {
	refcount_t refs;
	unsigned int nr;
	struct io_mapped_ubuf bufs[];
};

/* Drop nr references to a buffer table; the last unpins its pages.  Any
 * context that may free memory. */
static void io_buf_table_put_many(struct io_buf_table *t, unsigned int nr)
{
	if (!refcount_sub_and_test((int)nr, &t->refs))
		return;
	for (unsigned int i = 0; i < t->nr; i++) {
		struct io_mapped_ubuf *imu = &t->bufs[i];

		for (unsigned int j = 0; j < imu->nr_bvecs; j++)
			unpin_user_page(imu->bvec[j].bv_page);
		kfree(imu->bvec);
	}
	kfree(t);
}

static void io_buf_table_put(struct io_buf_table *t)
{
	io_buf_table_put_many(t, 1);
}

/* One ring (Linux's struct io_ring_ctx). */
struct io_ring_ctx {
	struct io_region ring;          /* struct io_rings, the CQEs, the SQ array */
	struct io_region sqes;          /* the SQE array */
	struct io_rings *rings;         /* ring's first page, through the direct map */
	u32 sq_array_off;               /* bytes from the start of ring */
	unsigned int flags;             /* IORING_SETUP_* */
	unsigned int sq_entries, cq_entries;    /* powers of two */

	struct mutex uring_lock;        /* submission and registration */
	u32 cached_sq_head;             /* uring_lock: SQEs taken so far */
	/* uring_lock: SQEs taken that owe a CQE (all but a dropped index);
	 * with nr_posted, the count in flight -- each of the two has one
	 * lock, so that counting an SQE in takes no cq_wait.lock */
	u32 nr_taken;
	struct io_buf_table *bufs;      /* uring_lock: IORING_REGISTER_BUFFERS */
	unsigned int buf_refs_cached;   /* uring_lock: references to bufs taken
					 * ahead, for fixed requests to come */
	struct file **files;            /* uring_lock: IORING_REGISTER_FILES (NULL: a hole) */
	unsigned int nr_files;
	/* uring_lock: IOPOLL requests sent and not yet reaped (polled for,
	 * and freed, by io_do_iopoll) */
	struct list_head iopoll_list;
	/* uring_lock: the workers that run what would block (fs/io-wq.c),
	 * made at the first punt; NULL until then */
	struct io_wq *io_wq;
	/*
	 * The completion batch (Linux's ctx->submit_state): while the holder
	 * of uring_lock submits or polls, compl_task names it, and the
	 * completions it runs itself (not an interrupt handler's, not another
	 * task's) only note their result -- on compl_list, or in a polled
	 * request -- to be posted together, under one cq_wait.lock, when
	 * the batch ends (io_submit_flush_completions).  Written under
	 * uring_lock; read by any completer, who compares it with current.
	 */
	struct task_struct *compl_task;
	struct list_head compl_list;    /* uring_lock: completed, CQE not posted */
	/* uring_lock: freed requests kept for the next SQEs (Linux's
	 * io_alloc_req and its free_list): no slab allocation per SQE */
	struct io_kiocb *req_cache;
	unsigned int nr_req_cached;

	/* IORING_SETUP_SQPOLL (set up once, then read-only) */
	struct task_struct *sq_thread;  /* "iou-sqp-<pid>", referenced */
	struct task_struct *sq_owner;   /* whose mm it borrows, referenced */
	struct mm_struct *sq_mm;        /* the owner's mm at setup: compared, not held */
	u64 sq_thread_idle;             /* jiffies of nothing to do before it sleeps */
	wait_queue_head_t sq_wait;      /* the SQ thread sleeps here */
	wait_queue_head_t sq_space;     /* IORING_ENTER_SQ_WAIT: room in the SQ */
	bool sq_orphaned;               /* released from the SQ thread itself: it frees */

	/* the rest under cq_wait.lock, interrupts off */
	wait_queue_head_t cq_wait;      /* io_uring_enter and the release sleep here */
	struct io_cq cq;                /* the CQ tail and the overflow list */
	bool cq_dropped;                /* a CQE was lost: GETEVENTS says EBADR */
	struct io_timeouts timeouts;    /* TIMEOUTs armed, and the CQEs they count */
	u32 nr_posted;                  /* CQEs posted for taken SQEs: in flight
					 * while it differs from nr_taken */
	struct list_head done;          /* posted from an interrupt: to free */
};

/* One request (Linux's struct io_kiocb).  A new field is also set in
 * io_alloc_req(), which sets each by name. */
struct io_kiocb {
	struct kiocb rw;                /* ki_filp: referenced */
	struct io_ring_ctx *ctx;
	u64 user_data;
	struct list_head list;          /* on ctx->done once posted, or ctx->iopoll_list */
	size_t expect;                  /* a read or write: its whole length */
	bool linked;                    /* its issuer waits for it: a link, or run by a worker */
	bool iopoll;                    /* IORING_SETUP_IOPOLL: its reaper polls and frees it */
	bool done;                      /* linked, iopoll: posted (under cq_wait.lock),
					 * or noted by its poller's batch (cqe_deferred) */
	bool cqe_deferred;              /* iopoll, done: its poller posts the CQE (res) */
	long res;                       /* linked: what was posted; deferred: to post */
	struct io_uring_sqe sqe;        /* its SQE, copied at submission */
	int init_err;                   /* failed before it started (io_init_req): its CQE */
	struct io_buf_table *bufs;      /* READ_FIXED/WRITE_FIXED: a reference, its pages' */
	struct io_kiocb *link;          /* the next of its chain (IOSQE_IO_LINK); in
					 * ctx->req_cache, the next one there */
	struct io_wq_work work;         /* punted: the chain it heads, for a worker */
};

static const struct file_operations io_uring_fops;

/* --- the shared regions ------------------------------------------------------ */

static void io_region_free(struct io_region *r)
{
	for (unsigned int i = 0; i < r->nr_pages; i++)
		if (r->pages[i])
			put_page(r->pages[i]);
	kfree(r->pages);
	r->pages = NULL;
	r->nr_pages = 0;
}

static int io_region_alloc(struct io_region *r, size_t size)
{
	r->nr_pages = DIV_ROUND_UP(size, PAGE_SIZE);
	r->pages = kzalloc(r->nr_pages * sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages)
		return -ENOMEM;
	for (unsigned int i = 0; i < r->nr_pages; i++) {
		/* zeroed: the process sees the page before the kernel writes it */
		r->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!r->pages[i]) {
			io_region_free(r);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The kernel's address of byte off of r.  Entries never straddle pages:
 * every array starts at a multiple of its entry's size, a power of two. */
static void *io_region_ptr(struct io_region *r, size_t off)
{
	return (char *)page_address(r->pages[off >> PAGE_SHIFT]) + (off & ~PAGE_MASK);
}

/* fs/io_uring_cq.c's way to a CQE slot, and to the waiters */
struct io_uring_cqe *io_cq_slot(struct io_cq *cq, u32 idx)
{
	struct io_ring_ctx *ctx = container_of(cq, struct io_ring_ctx, cq);

	return io_region_ptr(&ctx->ring, offsetof(struct io_rings, cqes) +
			     (idx & (ctx->cq_entries - 1)) * sizeof(struct io_uring_cqe));
}

/* Under cq_wait.lock, so the look at the queue is exact: nobody there
 * (a batch's CQEs in the submitter, who is not waiting), no call. */
void io_cq_wake(struct io_cq *cq)
{
	struct io_ring_ctx *ctx = container_of(cq, struct io_ring_ctx, cq);

	if (!list_empty(&ctx->cq_wait.head))
		__wake_up_locked(&ctx->cq_wait);
}

static u32 *io_sq_array_at(struct io_ring_ctx *ctx, u32 idx)
{
	return io_region_ptr(&ctx->ring, ctx->sq_array_off + (idx & (ctx->sq_entries - 1)) * 4);
}

/* --- completions: may run in an interrupt handler ---------------------------- */

/*
 * fail_io_uring_cqe=<interval>,<probability>,<space>,<times>: the
 * overflow list's entries fail to allocate, so that a CQE is lost
 * (include/spindle/fault_inject.h) -- how a test reaches EBADR.
 */
static DECLARE_FAULT_ATTR(fail_io_uring_cqe);

static int __init fail_io_uring_cqe_setup(const char *val)
{
	return setup_fault_attr(&fail_io_uring_cqe, val);
}
__setup("fail_io_uring_cqe=", fail_io_uring_cqe_setup);

/*
 * Post one CQE -- into the ring, or onto the overflow list when the ring
 * is full (fs/io_uring_cq.c) -- wake the waiters, and count the request
 * out of flight.  A CQE that could not be kept marks the ring (Linux's
 * IO_CHECK_CQ_DROPPED_BIT): from then on a GETEVENTS that has to wait
 * answers EBADR.  Caller holds cq_wait.lock.
 */
static void io_post_cqe_uncounted(struct io_ring_ctx *ctx, u64 user_data, s32 res)
{
	assert_spin_locked(&ctx->cq_wait.lock);
	ctx->nr_posted++;
	if (!io_cqring_post(&ctx->cq, user_data, res, 0)) {
		ctx->cq_dropped = true;
		printk_ratelimited(KERN_WARNING "io_uring: a CQE lost: no memory for the overflow list\n");
	}
}

/* fs/io_uring_timeout.c's way to post a timeout's CQE: not counted
 * among the CQEs that timeouts wait for (Linux's cq_timeouts). */
void io_timeout_post(struct io_timeouts *tq, u64 user_data, s32 res)
{
	io_post_cqe_uncounted(container_of(tq, struct io_ring_ctx, timeouts), user_data, res);
}

/* Any other request's CQE: counted, and the TIMEOUTs waiting for a
 * number of CQEs are told (fs/io_uring_timeout.c). */
static void __io_post_cqe(struct io_ring_ctx *ctx, u64 user_data, s32 res)
{
	io_post_cqe_uncounted(ctx, user_data, res);
	ctx->timeouts.cq_events++;
	if (!list_empty(&ctx->timeouts.list))
		io_flush_timeouts(&ctx->timeouts);
}

static void io_post_cqe(struct io_ring_ctx *ctx, u64 user_data, s32 res)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->cq_wait.lock, flags);
	__io_post_cqe(ctx, user_data, res);
	spin_unlock_irqrestore(&ctx->cq_wait.lock, flags);
}

/*
 * ki_complete of an asynchronous read or write: the last bio has ended.
 * Posts the CQE; the request waits on ctx->done for a process context to
 * put its file.  Does not sleep.
 *
 * Run by the task that is collecting this ring's completions (compl_task:
 * it submits, and null_blk or a merged plug completed the read inside
 * blk_finish_plug; or it polls, and bio_poll found it done), it only
 * notes the result: that task posts the batch's CQEs under one lock and
 * frees the requests in process context (io_submit_flush_completions,
 * io_do_iopoll) -- no lock, no wake-up and no trip through ctx->done per
 * I/O, as Linux 6.1 completes inline.  An interrupt handler that happens
 * to interrupt that task is not it (in_interrupt): it posts as ever.
 */
static void io_complete_rw(struct kiocb *kiocb, long res)
{
	struct io_kiocb *req = container_of(kiocb, struct io_kiocb, rw);
	struct io_ring_ctx *ctx = req->ctx;
	unsigned long flags;

	if (!req->linked && READ_ONCE(ctx->compl_task) == current && !in_interrupt()) {
		req->res = res;
		if (req->iopoll) {
			/* on iopoll_list (or about to be): its poller posts it */
			req->cqe_deferred = true;
			WRITE_ONCE(req->done, true);
		} else {
			list_add_tail(&req->list, &ctx->compl_list);
		}
		return;
	}
	spin_lock_irqsave(&ctx->cq_wait.lock, flags);
	if (req->linked || req->iopoll) {
		/* its submitter, or its poller, frees it */
		req->res = res;
		WRITE_ONCE(req->done, true);
	} else {
		list_add_tail(&req->list, &ctx->done);
	}
	__io_post_cqe(ctx, req->user_data, (s32)res);
	spin_unlock_irqrestore(&ctx->cq_wait.lock, flags);
}

/*
 * A fixed request's reference to the ring's table, from references taken
 * ahead a batch at a time under uring_lock, and given back there by a
 * request freed under it: one atomic operation per IO_BUF_REF_BATCH
 * requests instead of two per request (Linux's rsrc_cached_refs and
 * IO_RSRC_REF_BATCH).  Caller holds uring_lock; ctx->bufs is set.
 */
#define IO_BUF_REF_BATCH 100u

static struct io_buf_table *io_buf_table_get(struct io_ring_ctx *ctx)
{
	if (!ctx->buf_refs_cached) {
		refcount_add(IO_BUF_REF_BATCH, &ctx->bufs->refs);
		ctx->buf_refs_cached = IO_BUF_REF_BATCH;
	}
	ctx->buf_refs_cached--;
	return ctx->bufs;
}

/* Requests kept in a ring's cache at most: beyond, they go back to the
 * slab.  Enough for a batch of 128 SQEs in flight, 27 KiB. */
#define IO_REQ_CACHE_MAX        128u

/*
 * Put what a request holds and free it.  locked: the caller holds
 * uring_lock, and the request goes to the ring's cache for the next SQE
 * (Linux's io_req_add_to_cache); a worker, which runs without it, gives it
 * back to the slab.  May sleep (a last fput).
 */
static void io_free_req(struct io_kiocb *req, bool locked)
{
	struct io_ring_ctx *ctx = req->ctx;

	if (req->rw.private)
		bio_put(req->rw.private);       /* IOPOLL: the polled bio */
	if (req->rw.ki_filp)
		fput(req->rw.ki_filp);
	if (req->bufs) {
		if (locked && req->bufs == ctx->bufs)
			ctx->buf_refs_cached++;         /* back to the batch */
		else
			io_buf_table_put(req->bufs);
	}
	if (locked && ctx->nr_req_cached < IO_REQ_CACHE_MAX) {
		assert_mutex_held(&ctx->uring_lock);
		req->link = ctx->req_cache;
		ctx->req_cache = req;
		ctx->nr_req_cached++;
		return;
	}
	kfree(req);
}

/*
 * Put the requests completed from interrupts.  locked: as io_free_req.
 * A look without the lock first: an entry added meanwhile waits for the
 * next call (every io_uring_enter, the SQ thread's every pass, the
 * release).  May sleep.
 */
static void io_free_done(struct io_ring_ctx *ctx, bool locked)
{
	LIST_HEAD(done);
	struct io_kiocb *req, *tmp;

	if (READ_ONCE(ctx->done.next) == &ctx->done)
		return;
	spin_lock_irq(&ctx->cq_wait.lock);
	list_splice_init(&ctx->done, &done);
	spin_unlock_irq(&ctx->cq_wait.lock);
	list_for_each_entry_safe(req, tmp, &done, list)
		io_free_req(req, locked);
}

/*
 * The end of a batch (Linux's __io_submit_flush_completions): post the
 * CQEs of the requests that completed in the collecting task, all under
 * one cq_wait.lock, then free the requests into the cache.  Caller holds
 * uring_lock, and has cleared compl_task.  May sleep (a last fput).
 */
static void io_submit_flush_completions(struct io_ring_ctx *ctx)
{
	struct io_kiocb *req, *tmp;

	assert_mutex_held(&ctx->uring_lock);
	if (list_empty(&ctx->compl_list))
		return;
	spin_lock_irq(&ctx->cq_wait.lock);
	list_for_each_entry(req, &ctx->compl_list, list)
		__io_post_cqe(ctx, req->user_data, (s32)req->res);
	spin_unlock_irq(&ctx->cq_wait.lock);
	list_for_each_entry_safe(req, tmp, &ctx->compl_list, list)
		io_free_req(req, true);
	INIT_LIST_HEAD(&ctx->compl_list);
}

/* CQEs the process has not read yet. */
static u32 io_cqring_events(struct io_ring_ctx *ctx)
{
	return READ_ONCE(ctx->cq.cached_tail) - READ_ONCE(ctx->rings->cq_head);
}

/*
 * Move what waits on the overflow list into the ring's free room (Linux's
 * io_cqring_do_overflow_flush).  io_uring_enter's GETEVENTS does it, and
 * so does its wait each time it is woken.  Does not sleep.
 */
static void io_cqring_do_overflow_flush(struct io_ring_ctx *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->cq_wait.lock, flags);
	io_cqring_overflow_flush(&ctx->cq);
	spin_unlock_irqrestore(&ctx->cq_wait.lock, flags);
}

/*
 * Flush the overflow list; then are min_complete CQEs unread?  The list
 * is looked at without the lock first, as Linux tests its
 * IO_CHECK_CQ_OVERFLOW_BIT: a CQE put on it meanwhile wakes the waiter,
 * who has taken cq_wait.lock to go on the queue before it looks again.
 */
static bool io_cqring_ready(struct io_ring_ctx *ctx, u32 min_complete)
{
	if (READ_ONCE(ctx->cq.overflow_list.next) != &ctx->cq.overflow_list)
		io_cqring_do_overflow_flush(ctx);
	return io_cqring_events(ctx) >= min_complete;
}

/* --- the opcodes ------------------------------------------------------------ */

static bool io_op_supported(unsigned int op)
{
	switch (op) {
	case IORING_OP_NOP:
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
	case IORING_OP_FSYNC:
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_READ:
	case IORING_OP_WRITE:
	case IORING_OP_TIMEOUT:
	case IORING_OP_TIMEOUT_REMOVE:
	case IORING_OP_ASYNC_CANCEL:
		return true;
	}
	return false;
}

/* The opcodes with no file, no buffer: fs/io_uring_timeout.c and
 * fs/io_uring_cancel.c. */
static bool io_op_is_ctl(unsigned int op)
{
	return op == IORING_OP_TIMEOUT || op == IORING_OP_TIMEOUT_REMOVE ||
	       op == IORING_OP_ASYNC_CANCEL;
}

static bool io_op_is_write(unsigned int op)
{
	return op == IORING_OP_WRITEV || op == IORING_OP_WRITE_FIXED || op == IORING_OP_WRITE;
}

/*
 * What Linux's io_init_req refuses before the request starts (its CQE
 * carries the error and, without IORING_SETUP_SUBMIT_ALL, the batch stops
 * there): an opcode Linux does not know (EINVAL), one Spindle does not
 * have (EOPNOTSUPP), SQE flags Spindle does not do (EINVAL), the
 * opcode's own fields (Linux's prep functions).
 */
static int io_init_req(struct io_ring_ctx *ctx, const struct io_uring_sqe *sqe)
{
	unsigned int op = sqe->opcode;

	if (op >= IORING_OP_LAST)
		return -EINVAL;
	if (sqe->flags & ~(IOSQE_ASYNC | IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_IO_HARDLINK))
		return -EINVAL;         /* drain, buffer select, CQE skipping: not yet */
	if (!io_op_supported(op))
		return -EOPNOTSUPP;
	/* a polled ring takes only what can be polled for (Linux's
	 * io_op_def.iopoll: NOP and the reads and writes) */
	if ((ctx->flags & IORING_SETUP_IOPOLL) && (op == IORING_OP_FSYNC || io_op_is_ctl(op)))
		return -EINVAL;
	switch (op) {
	case IORING_OP_TIMEOUT:
		return io_timeout_prep(sqe);
	case IORING_OP_TIMEOUT_REMOVE:
		return io_timeout_remove_prep(sqe);
	case IORING_OP_ASYNC_CANCEL:
		return io_async_cancel_prep(sqe);
	case IORING_OP_FSYNC:
		/* as Linux's io_fsync_prep */
		if (sqe->addr || sqe->buf_index || sqe->splice_fd_in)
			return -EINVAL;
		if (sqe->fsync_flags & ~IORING_FSYNC_DATASYNC)
			return -EINVAL;
		break;
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
		if (!ctx->bufs || sqe->buf_index >= ctx->bufs->nr)
			return -EFAULT; /* as Linux's io_prep_rw */
		/* fall through */
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
	case IORING_OP_READ:
	case IORING_OP_WRITE:
		if (sqe->rw_flags)
			return -EOPNOTSUPP;     /* no RWF_* flag yet: kiocb_set_rw_flags' answer */
		break;
	}
	return 0;
}

/* The registered pages under [addr, addr + len) as an ITER_BVEC (Linux's
 * io_import_fixed): segment 0 starts at ubuf, each later one at its
 * page's start.  The range was checked (io_check_fixed). */
static void io_import_fixed(const struct io_mapped_ubuf *imu, u64 addr, size_t len, bool write,
			    struct iov_iter *it)
{
	size_t seg = (addr >> PAGE_SHIFT) - (imu->ubuf >> PAGE_SHIFT);
	size_t off = seg ? addr & ~PAGE_MASK : addr - imu->ubuf;

	iov_iter_bvec(it, write ? ITER_SOURCE : ITER_DEST, &imu->bvec[seg], off, len);
}

/* A READ_FIXED/WRITE_FIXED range must lie inside its registered buffer
 * (Linux's io_import_fixed). */
static int io_check_fixed(const struct io_buf_table *t, const struct io_uring_sqe *sqe)
{
	const struct io_mapped_ubuf *imu = &t->bufs[sqe->buf_index];
	u64 end;

	if (__builtin_add_overflow(sqe->addr, (u64)sqe->len, &end))
		return -EFAULT;
	if (sqe->addr < imu->ubuf || end > imu->ubuf + imu->len)
		return -EFAULT;
	return 0;
}

/*
 * At the file's position rather than at off: an offset of -1 (Linux's
 * IORING_FEAT_RW_CUR_POS, which moves the position as read(2) does), and
 * any file without positions (a pipe, the tty: off is not used).  Done
 * now, as read(2) and write(2) do it.
 */
static bool io_rw_at_fpos(const struct io_kiocb *req)
{
	return req->rw.ki_pos == -1 || !(req->rw.ki_filp->f_mode & FMODE_LSEEK);
}

/*
 * READV/WRITEV of several buffers: one after the other, synchronously,
 * stopping at the first short transfer (as readv).  Linux sends the whole
 * vector at once; Spindle's iov_iter has no vector kind yet.
 */
static long io_rw_vec_sync(struct io_kiocb *req, const struct iovec *vec, unsigned int nr,
			   bool write)
{
	struct file *f = req->rw.ki_filp;
	bool at_fpos = io_rw_at_fpos(req);
	loff_t pos = req->rw.ki_pos;
	long done = 0;

	for (unsigned int i = 0; i < nr; i++) {
		struct iov_iter it;
		long n = kiocb_rw_check(f, at_fpos ? 0 : pos, vec[i].iov_len, vec[i].iov_base, write);

		if (!n) {
			iov_iter_ubuf(&it, write ? ITER_SOURCE : ITER_DEST, vec[i].iov_base,
				      vec[i].iov_len);
			if (at_fpos)
				n = rw_at_fpos(f, &it, write);
			else
				n = write ? vfs_write(f, &it, &pos) : vfs_read(f, &it, &pos);
		}
		if (n < 0)
			return done ? done : n;
		done += n;
		if ((size_t)n < vec[i].iov_len)
			break;
	}
	return done;
}

/*
 * Can an IOPOLL ring's read or write of f be polled for?  Linux's test
 * (io_rw_init_file): opened O_DIRECT, and a file_operations with an
 * iopoll method -- in Spindle, as in Linux, a block device's (Linux's
 * blkdev_fops has iocb_bio_iopoll; ext2 has none).  Whether the device
 * has poll queues is not asked: if not, its bio loses REQ_POLLED on the
 * way down and completes by interrupt, and the reaper spins until then.
 */
static bool io_file_can_poll(const struct file *f)
{
	return (f->f_flags & O_DIRECT) && f->f_inode && S_ISBLK(f->f_inode->i_mode) &&
	       f->f_mapping && f->f_mapping->a_ops && f->f_mapping->a_ops->direct_IO;
}

/*
 * Start a read or write.  Its result, or -EIOCBQUEUED when its CQE will
 * come from the completion.
 */
static long io_rw(struct io_kiocb *req, const struct io_uring_sqe *sqe)
{
	struct io_ring_ctx *ctx = req->ctx;
	unsigned int op = sqe->opcode;
	bool write = io_op_is_write(op);
	void __user *buf = (void __user *)(unsigned long)sqe->addr;
	size_t len = sqe->len;
	const struct io_mapped_ubuf *fixed = NULL;
	struct iov_iter it;
	long ret;

	/* a direct I/O's bio (and its dio) from this CPU's cache of freed
	 * ones, whether a poller or an interrupt ends it: Linux 6.2's
	 * "io_uring/rw: enable bio caches for IRQ rw" (6.1: IOPOLL only) */
	req->rw.ki_flags |= IOCB_ALLOC_CACHE;
	if (ctx->flags & IORING_SETUP_IOPOLL) {
		/* buffered I/O, a pipe, a file of ext2: Linux's EOPNOTSUPP */
		if (!io_file_can_poll(req->rw.ki_filp))
			return -EOPNOTSUPP;
		/* generic_direct_IO sends it as one REQ_POLLED bio, handed
		 * back in rw.private, and no interrupt will say it is done */
		req->rw.ki_flags |= IOCB_HIPRI;
		req->iopoll = true;
	}
	if (op == IORING_OP_READV || op == IORING_OP_WRITEV) {
		struct iovec *vec;

		if (sqe->len > IORING_UIO_MAXIOV)
			return -EINVAL;
		vec = kmalloc((sqe->len ? sqe->len : 1) * sizeof(*vec), GFP_KERNEL);
		if (!vec)
			return -ENOMEM;
		if (copy_from_user(vec, buf, sqe->len * sizeof(*vec))) {
			kfree(vec);
			return -EFAULT;
		}
		if (sqe->len != 1) {
			for (unsigned int i = 0; i < sqe->len; i++)
				req->expect += vec[i].iov_len;
			ret = io_rw_vec_sync(req, vec, sqe->len, write);
			kfree(vec);
			return ret;
		}
		/* one buffer: the same path as READ and WRITE */
		buf = vec[0].iov_base;
		len = vec[0].iov_len;
		kfree(vec);
	} else if (op == IORING_OP_READ_FIXED || op == IORING_OP_WRITE_FIXED) {
		/* the table io_alloc_req took for it, whatever the ring's is now */
		ret = io_check_fixed(req->bufs, sqe);
		if (ret)
			return ret;
		fixed = &req->bufs->bufs[sqe->buf_index];
	}
	req->expect = len;
	ret = kiocb_rw_check(req->rw.ki_filp, io_rw_at_fpos(req) ? 0 : req->rw.ki_pos, len, buf,
			     write);
	if (ret)
		return ret;
	if (fixed)
		io_import_fixed(fixed, sqe->addr, len, write, &it);
	else
		iov_iter_ubuf(&it, write ? ITER_SOURCE : ITER_DEST, buf, len);
	if (io_rw_at_fpos(req))
		return rw_at_fpos(req->rw.ki_filp, &it, write);
	return kiocb_rw_start(&req->rw, &it, write);
}

/* IOSQE_FIXED_FILE: fd indexes the registered files.  The request takes
 * its own reference, so unregistering does not wait for it.  Caller
 * holds uring_lock. */
static struct file *io_file_get_fixed(struct io_ring_ctx *ctx, int fd)
{
	assert_mutex_held(&ctx->uring_lock);
	if (fd < 0 || (unsigned int)fd >= ctx->nr_files || !ctx->files[fd])
		return NULL;
	return get_file(ctx->files[fd]);
}

/* Does the chain a worker has queued or runs match an ASYNC_CANCEL?  Its
 * head is what is looked at (Linux matches each request; here a chain
 * is one work).  Counts the matches, for CANCEL_ALL's answer. */
static bool io_cancel_match_work(struct io_wq_work *work, void *data)
{
	struct io_cancel_data *cd = data;
	struct io_kiocb *req = container_of(work, struct io_kiocb, work);
	bool match;

	if (cd->flags & IORING_ASYNC_CANCEL_FD)
		match = req->rw.ki_filp == cd->file;
	else
		match = (cd->flags & IORING_ASYNC_CANCEL_ANY) || req->user_data == cd->data;
	if (match)
		cd->nr_matched++;
	return match;
}

/* ASYNC_CANCEL: match by file too (IORING_ASYNC_CANCEL_FD), a
 * registered one with FD_FIXED or IOSQE_FIXED_FILE (Linux's
 * io_async_cancel).  Caller holds uring_lock. */
static long io_cancel(struct io_ring_ctx *ctx, const struct io_uring_sqe *sqe)
{
	struct io_cancel_data cd = {
		.ctx = ctx, .data = sqe->addr, .flags = sqe->cancel_flags,
		.wq = ctx->io_wq, .match = io_cancel_match_work,
	};
	long ret;

	if (cd.flags & IORING_ASYNC_CANCEL_FD) {
		if ((cd.flags & IORING_ASYNC_CANCEL_FD_FIXED) || (sqe->flags & IOSQE_FIXED_FILE))
			cd.file = io_file_get_fixed(ctx, sqe->fd);
		else if (!(ctx->flags & IORING_SETUP_SQPOLL) && sqe->fd >= 0)
			cd.file = fget((unsigned int)sqe->fd);
		if (!cd.file)
			return -EBADF;
	}
	ret = io_async_cancel(&cd, &ctx->timeouts);
	if (cd.file)
		fput(cd.file);
	return ret;
}

/*
 * TIMEOUT, TIMEOUT_REMOVE, ASYNC_CANCEL: no file, nothing for a device.
 * An armed TIMEOUT posts its CQE later, from its timer or from the CQE
 * that reaches its count; a linked one is waited for here, as any link.
 */
static void io_issue_ctl(struct io_ring_ctx *ctx, const struct io_uring_sqe *sqe, bool *failed)
{
	bool linked = sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
	long ret;

	switch (sqe->opcode) {
	case IORING_OP_TIMEOUT:
		ret = io_timeout(&ctx->timeouts, sqe, linked ? failed : NULL);
		if (ret == -EIOCBQUEUED) {
			if (!linked)
				*failed = false;
			return;
		}
		break;
	case IORING_OP_TIMEOUT_REMOVE:
		ret = io_timeout_remove(&ctx->timeouts, sqe);
		break;
	default:
		ret = io_cancel(ctx, sqe);
		break;
	}
	io_post_cqe(ctx, sqe->user_data, (s32)ret);
	*failed = ret < 0;
}

/*
 * A request whose issuer waits for it (a link, or anything a worker
 * runs) went down asynchronously: wait (uninterruptibly: the bios will
 * end) until its completion has posted it.  The plug is flushed as the
 * task goes to sleep (schedule), so its bios are sent.  A polled one
 * (IOPOLL; polled bios skip the plug) is polled for here, as
 * dio_poll_wait does, while its bio is still REQ_POLLED.
 */
static long io_wait_linked(struct io_kiocb *req)
{
	struct io_ring_ctx *ctx = req->ctx;
	struct bio *bio = req->rw.private;

	while (bio && !READ_ONCE(req->done) && (READ_ONCE(bio->bi_opf) & REQ_POLLED))
		if (!bio_poll(bio, 0)) {
			cpu_relax();    /* a spin-wait (Linux's blk_mq_poll_classic) */
			cond_resched();
		}
	wait_event(ctx->cq_wait, READ_ONCE(req->done));
	/* the completer set done under this lock: once we hold it, it has
	 * let go of req */
	spin_lock_irq(&ctx->cq_wait.lock);
	spin_unlock_irq(&ctx->cq_wait.lock);
	return req->res;
}

/*
 * A request for sqe (a copy), its file looked up now -- from the
 * submitter's descriptor table, which a worker does not have.  init_err:
 * io_init_req's verdict, posted when the request is completed.  NULL: no
 * memory.  Caller holds uring_lock.
 */
static struct io_kiocb *io_alloc_req(struct io_ring_ctx *ctx, const struct io_uring_sqe *sqe,
				     int init_err)
{
	struct io_kiocb *req = ctx->req_cache;

	assert_mutex_held(&ctx->uring_lock);
	if (req) {
		/* one the ring used before (io_free_req) */
		ctx->req_cache = req->link;
		ctx->nr_req_cached--;
	} else {
		req = kmalloc(sizeof(*req), GFP_KERNEL);
		if (!req)
			return NULL;
	}
	/* every field by name, the rest zero as in a new one (Linux's
	 * io_init_req): zeroing the whole request first cost some 27
	 * instructions an I/O */
	req->rw = (struct kiocb){ .ki_pos = (loff_t)sqe->off, .ki_complete = io_complete_rw };
	req->ctx = ctx;
	req->user_data = sqe->user_data;
	req->list.next = req->list.prev = NULL;
	req->expect = 0;
	req->linked = req->iopoll = req->done = req->cqe_deferred = false;
	req->res = 0;
	req->sqe = *sqe;
	req->init_err = init_err;
	req->bufs = NULL;
	req->link = NULL;
	req->work = (struct io_wq_work){ .task = NULL };
	if (init_err || sqe->opcode == IORING_OP_NOP || io_op_is_ctl(sqe->opcode))
		return req;          /* no file to look up */
	/* the registered buffer's table, taken here under uring_lock: a
	 * worker that issues the request later takes nothing of ctx's, and
	 * an unregistration meanwhile leaves the request its pages */
	if (sqe->opcode == IORING_OP_READ_FIXED || sqe->opcode == IORING_OP_WRITE_FIXED)
		req->bufs = io_buf_table_get(ctx);      /* io_init_req saw ctx->bufs */
	/* a bad descriptor is the CQE's answer, not a failed start (Linux
	 * looks the file up when it issues the request) */
	if (sqe->flags & IOSQE_FIXED_FILE)
		req->rw.ki_filp = io_file_get_fixed(ctx, sqe->fd);
	else if (ctx->flags & IORING_SETUP_SQPOLL)
		/* the SQ thread has no descriptor table: registered files
		 * only, as Linux before 5.11 (no IORING_FEAT_SQPOLL_NONFIXED) */
		req->rw.ki_filp = NULL;
	else
		req->rw.ki_filp = sqe->fd >= 0 ? fget((unsigned int)sqe->fd) : NULL;
	return req;
}

/*
 * Must req go to a worker, or can io_uring_enter issue it without
 * sleeping for long?  Linux 6.1 tries each request with IOCB_NOWAIT and
 * punts it on -EAGAIN; Spindle's file operations take no IOCB_NOWAIT, so
 * the question is asked before the try:
 *   - FSYNC always goes (Linux 6.1's io_fsync refuses a non-blocking
 *     issue);
 *   - an IOPOLL ring's reads and writes never do (they are polled for);
 *   - a ring's own descriptor never does: it fails at once, and a worker
 *     must never hold a ring's last reference (its release ends the
 *     workers);
 *   - O_DIRECT with direct_IO, at an offset, one buffer: its bios are
 *     sent and it returns -EIOCBQUEUED, so it stays;
 *   - a file with ->poll (a pipe, the tty): a read stays if poll says it
 *     will not wait (data, or the writer gone); a write only if it fails
 *     at once (POLLERR) -- POLLOUT promises one byte of room, and a pipe
 *     write waits for room for all of a small write;
 *   - a character device without ->poll (/dev/null, /dev/zero) never
 *     waits (fs.h: no ->poll means always ready);
 *   - the rest goes: buffered I/O of a regular file or a block device
 *     (Linux reads the page cache with IOCB_NOWAIT; Spindle's filemap has
 *     no such mode), the file's position, READV of several buffers.
 * A NOP, a bad descriptor and a failed SQE stay: they cannot block.
 */
static bool io_must_punt(const struct io_kiocb *req)
{
	const struct io_uring_sqe *sqe = &req->sqe;
	struct file *f = req->rw.ki_filp;
	bool vec = sqe->opcode == IORING_OP_READV || sqe->opcode == IORING_OP_WRITEV;
	unsigned int mask;

	if (req->init_err || sqe->opcode == IORING_OP_NOP || !f || f->f_op == &io_uring_fops)
		return false;
	if (sqe->opcode == IORING_OP_FSYNC)
		return true;
	if (req->ctx->flags & IORING_SETUP_IOPOLL)
		return false;
	if ((f->f_flags & O_DIRECT) && f->f_mapping && f->f_mapping->a_ops &&
	    f->f_mapping->a_ops->direct_IO)
		return io_rw_at_fpos(req) || (vec && sqe->len != 1);
	if (f->f_op && f->f_op->poll) {
		mask = f->f_op->poll(f);
		if (io_op_is_write(sqe->opcode))
			return !(mask & POLLERR);
		return !(mask & (POLLIN | POLLHUP | POLLERR));
	}
	return !(f->f_inode && S_ISCHR(f->f_inode->i_mode));
}

/*
 * Issue one request: its result, or -EIOCBQUEUED when its CQE will come
 * from the completion.  May sleep -- in io_uring_enter only where
 * io_must_punt said it would not for long.
 */
static long io_issue(struct io_kiocb *req)
{
	const struct io_uring_sqe *sqe = &req->sqe;
	long ret;

	if (req->init_err)
		return req->init_err;
	if (sqe->opcode == IORING_OP_NOP)
		return 0;
	if (!req->rw.ki_filp)
		return -EBADF;
	if (sqe->opcode == IORING_OP_FSYNC)
		/* the whole file, whatever off and len say: Linux syncs that
		 * range (vfs_fsync_range), Spindle has only vfs_fsync */
		return vfs_fsync(req->rw.ki_filp, sqe->fsync_flags & IORING_FSYNC_DATASYNC);
	ret = io_rw(req, sqe);
	/* a tty read interrupted (a worker's cancel): no system call to
	 * restart, so -EINTR in the CQE, as Linux's io_rw_done */
	return ret == -ERESTARTNOHAND ? -EINTR : ret;
}

/*
 * After io_issue: post req's CQE and free it -- or, when it went down
 * asynchronously, wait for it if its issuer must (linked), else leave
 * it to its completion (io_complete_rw; freed by io_free_done, or by
 * io_do_iopoll for a polled one, on iopoll_list under uring_lock, which
 * only io_uring_enter's caller holds here).  True if it failed as a link
 * counts it: an error, or a read or write that moved fewer bytes than
 * asked.
 */
static bool io_req_finish(struct io_kiocb *req, long ret, bool locked)
{
	struct io_ring_ctx *ctx = req->ctx;
	bool failed;

	if (ret == -EIOCBQUEUED && !req->linked) {
		if (req->iopoll)
			list_add_tail(&req->list, &ctx->iopoll_list);
		return false;
	}
	if (ret == -EIOCBQUEUED)
		ret = io_wait_linked(req);      /* posted by io_complete_rw */
	else
		io_post_cqe(ctx, req->user_data, (s32)ret);
	failed = ret < 0 || (req->sqe.opcode != IORING_OP_FSYNC && (size_t)ret != req->expect);
	io_free_req(req, locked);
	return failed;
}

/*
 * Run a chain (a single request is a chain of one) in order, each link
 * waited for before the next starts; after a failure the rest complete
 * with -ECANCELED, except after a hard link (IOSQE_IO_HARDLINK).  Linux
 * starts each link from the completion of the one before; here a worker
 * runs the whole chain.  cancel: nonzero -- the chain never ran, and
 * each CQE says so (-ECANCELED, or -ENOMEM with no worker to run it).
 * locked: the caller holds uring_lock (a chain run in io_uring_enter).
 */
static void io_run_chain(struct io_kiocb *req, int cancel, bool locked)
{
	bool failed = false;

	while (req) {
		struct io_kiocb *next = req->link;

		if (cancel || failed) {
			io_post_cqe(req->ctx, req->user_data, cancel ? cancel : -ECANCELED);
			io_free_req(req, locked);
		} else if (io_op_is_ctl(req->sqe.opcode)) {
			struct io_ring_ctx *ctx = req->ctx;
			bool hard = req->sqe.flags & IOSQE_IO_HARDLINK;
			/* a cancel or a removal reads what uring_lock guards
			 * (registered files, the workers, the timeouts' owner
			 * check); a TIMEOUT may wait for its timer: not under it */
			bool lock = !locked && req->sqe.opcode != IORING_OP_TIMEOUT;

			if (lock)
				mutex_lock(&ctx->uring_lock);
			io_issue_ctl(ctx, &req->sqe, &failed);
			if (lock)
				mutex_unlock(&ctx->uring_lock);
			failed = failed && !hard;
			io_free_req(req, locked);
		} else {
			bool hard = req->sqe.flags & IOSQE_IO_HARDLINK;

			req->linked = true;
			failed = io_req_finish(req, io_issue(req), locked) && !hard;
		}
		req = next;
	}
}

/* fs/io-wq.c's callbacks: a worker runs the chain work heads, in the
 * submitter's address space; or the chain is cancelled unrun. */
static void io_wq_submit_work(struct io_wq_work *work)
{
	struct task_struct *task = work->task;

	io_run_chain(container_of(work, struct io_kiocb, work), 0, false);
	put_task_struct(task);
}

static void io_wq_cancel_work(struct io_wq_work *work, int res)
{
	struct task_struct *task = work->task;

	io_run_chain(container_of(work, struct io_kiocb, work), res, false);
	put_task_struct(task);
}

/*
 * Hand the chain req heads to the ring's workers (Linux's io_queue_iowq),
 * and return at once.  It runs in the address space it was submitted in:
 * the submitter's, or with SQPOLL the owner's, which the SQ thread
 * borrows.  That mm is marked threaded first, while the submitter is on
 * it, as kthread_use_mm requires.  With no memory for the pool it runs
 * here.  Caller holds uring_lock.
 */
static void io_queue_async(struct io_kiocb *req)
{
	struct io_ring_ctx *ctx = req->ctx;
	struct task_struct *task = ctx->sq_owner ? ctx->sq_owner : current;

	assert_mutex_held(&ctx->uring_lock);
	if (!ctx->io_wq)
		ctx->io_wq = io_wq_create(io_wq_submit_work, io_wq_cancel_work);
	if (!ctx->io_wq || !current->mm) {
		io_run_chain(req, 0, true);
		return;
	}
	WRITE_ONCE(current->mm->threaded, true);
	get_task_struct(task);
	req->work.task = task;
	req->work.mm = current->mm;
	req->work.user_data = req->user_data;
	io_wq_enqueue(ctx->io_wq, &req->work);
}

/* One request, in no chain: issued here, or punted (IOSQE_ASYNC, or it
 * would block: io_must_punt).  Caller holds uring_lock. */
static void io_queue_sqe(struct io_kiocb *req)
{
	if ((req->sqe.flags & IOSQE_ASYNC) || io_must_punt(req))
		io_queue_async(req);
	else
		io_req_finish(req, io_issue(req), true);
}

/* A chain being put together from its SQEs (Linux's io_submit_link):
 * failed, if one of them failed before it could start. */
struct io_submit_link {
	struct io_kiocb *head, *last;
	bool failed;
};

/*
 * A whole chain is in: to a worker, which runs it link by link -- so that
 * io_uring_enter never waits for a link.  A chain with an SQE that failed
 * before it started runs not at all: that SQE's CQE carries its error,
 * the others -ECANCELED (Linux's io_submit_fail_init).
 */
static void io_queue_link(struct io_submit_link *link)
{
	struct io_kiocb *req = link->head, *next;

	link->head = link->last = NULL;
	if (!link->failed) {
		io_queue_async(req);
		return;
	}
	for (; req; req = next) {
		next = req->link;
		io_post_cqe(req->ctx, req->user_data, req->init_err ? req->init_err : -ECANCELED);
		io_free_req(req, true);
	}
}

/*
 * Take one SQE (a copy).  Returns nonzero when it failed before it
 * started and its chain, if any, ends with it: the batch stops there
 * unless the ring was set up with IORING_SETUP_SUBMIT_ALL (Linux's rule;
 * a failed SQE that links on lets the chain be put together first).
 * Every SQE gets its CQE, whose room the caller reserved.
 *
 * A linked SQE (IOSQE_IO_LINK, IOSQE_IO_HARDLINK) joins the chain being
 * put together; the first SQE without the flag ends it, and the chain
 * goes to a worker (io_queue_link).  A NOP alone is answered at once.
 */
static int io_submit_sqe(struct io_ring_ctx *ctx, const struct io_uring_sqe *sqe,
			 struct io_submit_link *link)
{
	int err = io_init_req(ctx, sqe);
	bool in_link = sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
	struct io_kiocb *req;

	if (!link->head && !in_link) {
		if (err || (sqe->opcode == IORING_OP_NOP && !(sqe->flags & IOSQE_ASYNC))) {
			io_post_cqe(ctx, sqe->user_data, err);
			return err;
		}
		if (io_op_is_ctl(sqe->opcode)) {
			bool failed;

			io_issue_ctl(ctx, sqe, &failed);        /* posts its CQE */
			return 0;
		}
	}
	req = io_alloc_req(ctx, sqe, err);
	if (!req) {
		io_post_cqe(ctx, sqe->user_data, -ENOMEM);
		err = -ENOMEM;
		link->failed = true;
		if (link->head && !in_link)
			io_queue_link(link);
		return link->head ? 0 : err;
	}
	if (link->head) {
		link->last->link = req;
		link->last = req;
	} else if (in_link) {
		link->head = link->last = req;
		link->failed = false;
	} else {
		io_queue_sqe(req);
		return 0;
	}
	if (err)
		link->failed = true;
	if (in_link)
		return 0;               /* the chain goes on: Linux's rule */
	io_queue_link(link);
	return err;
}

/*
 * Take up to nr SQEs from the SQ ring, all under one plug (as io_submit:
 * the requests of a batch merge in the plug list and reach the driver
 * together at blk_finish_plug) -- when there are more than two: one or
 * two requests have nothing to merge with worth a plug's list and its
 * flush, and go straight down (Linux 6.1's io_submit_state_start,
 * need_plug = max_ios > 2).  How many were taken; a full CQ stops
 * nothing (the overflow list keeps the CQEs).  An SQ array entry that indexes
 * past the SQE array is dropped (counted in sq_dropped) and ends the batch,
 * as in Linux.  A chain the batch ends inside is queued as it is.
 *
 * The batch collects the completions the submitter runs itself (a
 * device that completes inside blk_finish_plug, as null_blk with
 * irqmode=0): their CQEs are posted together once the plug is flushed
 * (ctx->compl_task, io_submit_flush_completions).  Caller holds
 * uring_lock.
 */
static int io_submit_sqes(struct io_ring_ctx *ctx, unsigned int nr)
{
	struct io_rings *r = ctx->rings;
	/* the SQEs the tail covers are visible after this load */
	u32 entries = smp_load_acquire(&r->sq_tail) - ctx->cached_sq_head;
	struct io_submit_link link = { NULL, NULL, false };
	struct blk_plug plug;
	int submitted = 0;
	bool plugged;

	nr = min(min(nr, ctx->sq_entries), entries);
	if (!nr)
		return 0;
	WRITE_ONCE(ctx->compl_task, current);
	plugged = nr > 2;
	if (plugged)
		blk_start_plug(&plug);
	while (nr--) {
		struct io_uring_sqe sqe;
		u32 idx;

		idx = READ_ONCE(*io_sq_array_at(ctx, ctx->cached_sq_head));
		ctx->cached_sq_head++;
		if (idx >= ctx->sq_entries) {
			WRITE_ONCE(r->sq_dropped, READ_ONCE(r->sq_dropped) + 1);
			break;
		}
		/* a copy: the process may rewrite the slot once we move on */
		memcpy(&sqe, io_region_ptr(&ctx->sqes, idx * sizeof(sqe)), sizeof(sqe));
		ctx->nr_taken++;        /* in flight until its CQE is posted */
		submitted++;
		if (io_submit_sqe(ctx, &sqe, &link) && !(ctx->flags & IORING_SETUP_SUBMIT_ALL))
			break;
	}
	if (link.head)
		io_queue_link(&link);
	/* the slots are free for the process again */
	smp_store_release(&r->sq_head, ctx->cached_sq_head);
	if (plugged)
		blk_finish_plug(&plug);
	WRITE_ONCE(ctx->compl_task, NULL);
	io_submit_flush_completions(ctx);
	return submitted;
}

/* --- IOPOLL: the reaper polls --------------------------------------------------- */

/*
 * One pass over the polled requests in flight (Linux's io_do_iopoll):
 * each one not done yet has its bio's queue polled -- its completion,
 * and maybe those of others on the same queue, run inside bio_poll() and
 * post their CQEs -- and the ones done are freed.  Returns how many were.
 * Caller holds uring_lock.  May sleep (a last fput).
 */
static int io_do_iopoll(struct io_ring_ctx *ctx)
{
	struct io_kiocb *req, *tmp;
	LIST_HEAD(done);
	int found = 0;

	struct task_struct *prev = ctx->compl_task;

	assert_mutex_held(&ctx->uring_lock);
	/* what bio_poll completes here only notes its result (io_complete_rw) */
	WRITE_ONCE(ctx->compl_task, current);
	list_for_each_entry_safe(req, tmp, &ctx->iopoll_list, list) {
		/* not REQ_POLLED (no poll queue, a split): an interrupt
		 * completes it, and bio_poll says 0 at once */
		if (!READ_ONCE(req->done) && req->rw.private)
			bio_poll(req->rw.private, 0);
		if (READ_ONCE(req->done)) {
			list_move_tail(&req->list, &done);
			found++;
		}
	}
	WRITE_ONCE(ctx->compl_task, prev);
	if (!found)
		return 0;
	/* done is set under this lock by an interrupt's completer: once we
	 * hold it, each one seen has let go of its request.  The CQEs of
	 * those completed here (or in the submitter) are posted now, as a
	 * batch (Linux's io_do_iopoll, then io_submit_flush_completions). */
	spin_lock_irq(&ctx->cq_wait.lock);
	list_for_each_entry(req, &done, list)
		if (req->cqe_deferred)
			__io_post_cqe(ctx, req->user_data, (s32)req->res);
	spin_unlock_irq(&ctx->cq_wait.lock);
	list_for_each_entry_safe(req, tmp, &done, list)
		io_free_req(req, true);
	return found;
}

/*
 * io_uring_enter's GETEVENTS on an IOPOLL ring (Linux's io_iopoll_check):
 * no sleep -- nothing would wake it -- but passes of io_do_iopoll until
 * min_complete CQEs are unread, at least one pass, giving the CPU up
 * between passes when the time slice is over.  Stops early when nothing
 * polled is left in flight (a CQE that will never come is not waited
 * for), and on a signal (-EINTR).  Caller holds uring_lock (as Linux,
 * io_uring_enter keeps the one it submitted under).
 */
static int io_iopoll_check(struct io_ring_ctx *ctx, u32 min_complete)
{
	int ret = 0;

	assert_mutex_held(&ctx->uring_lock);
	/* a CQE was lost: say so rather than poll (Linux's check_cq) */
	if (READ_ONCE(ctx->cq_dropped))
		return -EBADR;
	io_cqring_ready(ctx, 0);                /* flushes the overflow list */
	while (!list_empty(&ctx->iopoll_list)) {
		if (!io_do_iopoll(ctx))
			cpu_relax();    /* a spin-wait (Linux's blk_mq_poll_classic) */
		if (io_cqring_ready(ctx, min_complete))
			break;
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (need_resched()) {
			/* let a submitter on this ring in while we are out */
			mutex_unlock(&ctx->uring_lock);
			cond_resched();
			mutex_lock(&ctx->uring_lock);
		}
	}
	return ret;
}

/* --- SQPOLL: a kernel thread takes the SQEs --------------------------------------- */

/* SQEs the process has published and the kernel not taken yet. */
static u32 io_sqring_entries(struct io_ring_ctx *ctx)
{
	return smp_load_acquire(&ctx->rings->sq_tail) - READ_ONCE(ctx->cached_sq_head);
}

/*
 * One pass of the SQ thread (Linux's __io_sq_thread): in the owner's
 * address space (the SQEs name its buffers), take every SQE published,
 * under one plug (io_submit_sqes), and poll an IOPOLL ring's requests.
 * The owner's mm is held only for the pass: between passes the thread
 * holds nothing of the process, so the process's exit is not held up by
 * it.  Once the owner has exited (or exec'd: another mm), nothing more
 * is taken.  Returns how many SQEs and completions it handled.
 */
static int io_sq_pass(struct io_ring_ctx *ctx)
{
	struct mm_struct *mm;
	int done = 0, n;

	mm = get_task_mm(ctx->sq_owner);
	if (!mm)
		return 0;
	if (mm != ctx->sq_mm) {
		mmput(mm);
		return 0;
	}
	kthread_use_mm(mm);
	mutex_lock(&ctx->uring_lock);
	io_free_done(ctx, true);
	n = io_submit_sqes(ctx, ctx->sq_entries);
	if (n > 0)
		done += n;
	if (!list_empty(&ctx->iopoll_list))
		done += io_do_iopoll(ctx);
	mutex_unlock(&ctx->uring_lock);
	kthread_unuse_mm(mm);
	if (n > 0)
		wake_up(&ctx->sq_space);        /* IORING_ENTER_SQ_WAIT */
	/* maybe the last user, if the owner exited meanwhile: then the
	 * mm's teardown may drop the ring's last reference, and
	 * io_uring_release runs here, in this thread (sq_orphaned) */
	mmput(mm);
	return done;
}

/*
 * Nothing to do for sq_thread_idle: say so in the SQ ring's flags
 * (IORING_SQ_NEED_WAKEUP: the process must enter with
 * IORING_ENTER_SQ_WAKEUP to have its SQEs taken) and sleep.  The flag is
 * set before the SQ tail is looked at again, and the process publishes
 * its tail before it looks at the flag (a full barrier each side, Linux's
 * protocol): either the thread sees the new SQE, or the process sees the
 * flag and wakes it.  stuck: SQEs that could not be taken (the owner exited) --
 * the thread sleeps over them too, until woken.
 */
static void io_sq_sleep(struct io_ring_ctx *ctx, u32 stuck)
{
	DEFINE_WAIT(wait);

	prepare_to_wait(&ctx->sq_wait, &wait, TASK_INTERRUPTIBLE);
	__atomic_fetch_or(&ctx->rings->sq_flags, IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
	smp_mb();
	if (io_sqring_entries(ctx) == stuck && list_empty(&ctx->iopoll_list) &&
	    !kthread_should_stop())
		schedule();
	finish_wait(&ctx->sq_wait, &wait);
	__atomic_fetch_and(&ctx->rings->sq_flags, ~IORING_SQ_NEED_WAKEUP, __ATOMIC_SEQ_CST);
}

static void io_ring_ctx_free(struct io_ring_ctx *ctx);

/*
 * The SQ thread (Linux's io_sq_thread): passes while there is work, and
 * spinning -- giving the CPU up whenever its slice is over -- until
 * sq_thread_idle has gone by without any, then asleep until woken.  Ends
 * at kthread_stop (the ring's release), or by itself when the release
 * ran inside its own pass.
 */
static int io_sq_thread(void *data)
{
	struct io_ring_ctx *ctx = data;
	u64 timeout = jiffies + ctx->sq_thread_idle;

	/* iopoll_list: only this thread touches it on an SQPOLL ring */
	while (!kthread_should_stop()) {
		u32 pending = io_sqring_entries(ctx);
		int done = 0;

		if (pending || !list_empty(&ctx->iopoll_list))
			done = io_sq_pass(ctx);
		if (READ_ONCE(ctx->sq_orphaned))
			break;
		if (done) {
			timeout = jiffies + ctx->sq_thread_idle;
		} else if ((s64)(jiffies - timeout) >= 0) {
			/* the pending ones could not be taken: sleep over them */
			io_sq_sleep(ctx, pending);
			timeout = jiffies + ctx->sq_thread_idle;
			continue;
		} else {
			cpu_relax();    /* a spin-wait for the next SQE */
		}
		cond_resched();
	}
	if (READ_ONCE(ctx->sq_orphaned)) {
		io_ring_ctx_free(ctx);
		put_task_struct(current);       /* the release's, never to come */
	}
	return 0;
}

/*
 * IORING_ENTER_SQ_WAIT (Linux's io_sqpoll_wait_sq): sleep until the SQ
 * has a free slot, or a signal comes.
 */
static void io_sqpoll_wait_sq(struct io_ring_ctx *ctx)
{
	wait_event_interruptible(ctx->sq_space, io_sqring_entries(ctx) < ctx->sq_entries ||
				 signal_pending(current));
}

/* --- io_uring_enter ----------------------------------------------------------- */

/*
 * Sleep until min_complete CQEs are unread: 0, or -EINTR on a signal,
 * or -ETIME once deadline (CLOCK_MONOTONIC ns; 0: none) has passed.
 * The overflow list is flushed first (GETEVENTS with min_complete 0 is
 * how a process asks for it: liburing does so when it sees
 * IORING_SQ_CQ_OVERFLOW), and again at each wakeup: a CQE posted while
 * the list is not empty joins the list and wakes us, and room the
 * process made meanwhile takes it.  The sleep is counted in jiffies, so
 * the loop checks the clock: it never says ETIME early.
 */
static int io_cqring_wait(struct io_ring_ctx *ctx, u32 min_complete, u64 deadline)
{
	int ret;

	for (;;) {
		u64 now;

		if (io_cqring_ready(ctx, min_complete))
			return 0;
		if (READ_ONCE(ctx->cq_dropped) || signal_pending(current))
			break;
		if (!deadline) {
			wait_event_interruptible(ctx->cq_wait, io_cqring_ready(ctx, min_complete) ||
						 READ_ONCE(ctx->cq_dropped) ||
						 signal_pending(current));
			continue;
		}
		now = ktime_get_ns();
		if (now >= deadline)
			break;
		wait_event_interruptible_timeout(ctx->cq_wait,
						 io_cqring_ready(ctx, min_complete) ||
						 READ_ONCE(ctx->cq_dropped) || signal_pending(current),
						 (long)min(DIV_ROUND_UP(deadline - now, NSEC_PER_SEC / HZ) + 1,
							   (u64)IO_WAIT_MAX_JIFFIES));
	}
	/* a CQE was lost (Linux's IO_CHECK_CQ_DROPPED_BIT, never cleared):
	 * a wait that cannot be met says EBADR */
	if (READ_ONCE(ctx->cq_dropped))
		ret = -EBADR;
	else if (signal_pending(current))
		return -EINTR;
	else
		ret = -ETIME;
	/* as Linux: not an error while there are CQEs to read */
	return io_cqring_events(ctx) ? 0 : ret;
}

/*
 * io_uring_enter's last two arguments (Linux's io_get_ext_arg): a signal
 * mask and its size, or with IORING_ENTER_EXT_ARG a struct
 * io_uring_getevents_arg that also holds a relative timeout, turned into
 * a deadline (0: none).  EINVAL for a wrong size or a nonzero pad, EFAULT.
 */
static int io_get_ext_arg(u32 flags, const void __user *argp, size_t argsz,
			  const void __user **sig, size_t *sigsz, u64 *deadline)
{
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts;

	*deadline = 0;
	if (!(flags & IORING_ENTER_EXT_ARG)) {
		*sig = argp;
		*sigsz = argsz;
		return 0;
	}
	if (argsz != sizeof(arg))
		return -EINVAL;
	if (copy_from_user(&arg, argp, sizeof(arg)))
		return -EFAULT;
	if (arg.pad)
		return -EINVAL;
	*sig = (const void __user *)(unsigned long)arg.sigmask;
	*sigsz = arg.sigmask_sz;
	if (arg.ts) {
		u64 now = ktime_get_ns(), ns;

		if (copy_from_user(&ts, (const void __user *)(unsigned long)arg.ts, sizeof(ts)))
			return -EFAULT;
		/* Linux does not check the fields; a negative time is none left */
		if (ts.tv_sec < 0 || ts.tv_nsec < 0)
			ns = 0;
		else if ((u64)ts.tv_sec > IO_WAIT_MAX_NS / NSEC_PER_SEC)
			ns = IO_WAIT_MAX_NS;
		else
			ns = min((u64)ts.tv_sec * NSEC_PER_SEC + (u64)ts.tv_nsec, IO_WAIT_MAX_NS);
		*deadline = now + ns;
	}
	return 0;
}

#define IORING_ENTER_SUPPORTED  (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | \
				 IORING_ENTER_SQ_WAIT | IORING_ENTER_EXT_ARG)

long sys_io_uring_enter(unsigned int fd, u32 to_submit, u32 min_complete, u32 flags,
			const void __user *argp, size_t argsz)
{
	struct io_ring_ctx *ctx;
	struct fd f;
	bool poll, locked = false;
	long ret = 0;

	/* registered ring descriptors are Linux's too, but Spindle does
	 * not offer them (no IORING_FEAT_REG_REG_RING) */
	if (flags & ~IORING_ENTER_SUPPORTED)
		return -EINVAL;
	/* no reference when the table is not shared, as Linux's fdget: the
	 * descriptor cannot be closed under us */
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	if (f.file->f_op != &io_uring_fops) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ctx = f.file->private_data;
	/* SQPOLL|IOPOLL: the SQ thread polls, the caller sleeps */
	poll = (flags & IORING_ENTER_GETEVENTS) &&
	       (ctx->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL)) == IORING_SETUP_IOPOLL;
	if (ctx->flags & IORING_SETUP_SQPOLL) {
		io_free_done(ctx, false);
		/* the SQ thread takes the SQEs: to_submit is only echoed */
		if (flags & IORING_ENTER_SQ_WAKEUP)
			wake_up(&ctx->sq_wait);
		if (flags & IORING_ENTER_SQ_WAIT)
			io_sqpoll_wait_sq(ctx);
		ret = to_submit;
	} else if (to_submit) {
		/* (SQ_WAKEUP and SQ_WAIT: ignored here, as Linux does) */
		mutex_lock(&ctx->uring_lock);
		io_free_done(ctx, true);
		ret = io_submit_sqes(ctx, to_submit);
		/* a poller keeps the lock for its polling, as Linux does */
		locked = poll && ret == (long)to_submit;
		if (!locked)
			mutex_unlock(&ctx->uring_lock);
		if (ret != (long)to_submit)
			goto out;
	} else {
		io_free_done(ctx, false);
	}
	if (flags & IORING_ENTER_GETEVENTS) {
		const void __user *sig;
		size_t sigsz;
		u64 deadline;
		long ret2 = io_get_ext_arg(flags, argp, argsz, &sig, &sigsz, &deadline);

		if (!ret2)
			ret2 = set_user_sigmask(sig, sigsz);
		if (!ret2 && poll) {
			/* a polling caller does not look at the timeout, as Linux */
			if (!locked)
				mutex_lock(&ctx->uring_lock);
			locked = true;
			ret2 = io_iopoll_check(ctx, min_complete);
		} else if (!ret2) {
			ret2 = io_cqring_wait(ctx, min_complete, deadline);
		}
		if (!ret)
			ret = ret2;
	}
	if (locked)
		mutex_unlock(&ctx->uring_lock);
out:
	fdput(f);
	return ret;
}

/* --- io_uring_register --------------------------------------------------------- */

/* The registration lets go: no new request finds the table; requests in
 * flight keep it until they are freed.  Caller holds uring_lock. */
static void io_sqe_buffers_unregister(struct io_ring_ctx *ctx)
{
	struct io_buf_table *t = ctx->bufs;

	if (!t)
		return;
	ctx->bufs = NULL;
	/* the registration's own reference, and those taken ahead */
	io_buf_table_put_many(t, 1 + ctx->buf_refs_cached);
	ctx->buf_refs_cached = 0;
}

/*
 * Pin one buffer's pages, once, and describe them as bio_vecs (Linux's
 * io_sqe_buffer_register): segment 0 from the buffer's start to its
 * page's end, the rest a page each, the last up to the buffer's end.
 * The pages stay pinned even if the process unmaps the range: the ring
 * holds them until unregistration, as Linux does (and until the last I/O
 * in flight on them ends: struct io_buf_table).
 */
static int io_buffer_pin(struct io_mapped_ubuf *imu, const struct iovec *iov)
{
	unsigned long start = (unsigned long)iov->iov_base;
	unsigned long end, left = iov->iov_len;
	struct page **pages;
	unsigned int nr;
	long got;

	if (!iov->iov_base || !iov->iov_len || iov->iov_len > IORING_MAX_BUF_SIZE)
		return -EFAULT;
	if (__builtin_add_overflow(start, iov->iov_len, &end) || !access_ok(iov->iov_base, iov->iov_len))
		return -EFAULT;
	nr = (unsigned int)((PAGE_ALIGN(end) - (start & PAGE_MASK)) >> PAGE_SHIFT);
	pages = kcalloc(nr, sizeof(*pages), GFP_KERNEL);
	imu->bvec = kcalloc(nr, sizeof(*imu->bvec), GFP_KERNEL);
	if (!pages || !imu->bvec) {
		kfree(pages);
		kfree(imu->bvec);
		imu->bvec = NULL;
		return -ENOMEM;
	}
	got = pin_user_pages_fast(start, nr, FOLL_WRITE, pages);
	if (got != nr) {
		for (long j = 0; j < got; j++)
			unpin_user_page(pages[j]);
		kfree(pages);
		kfree(imu->bvec);
		imu->bvec = NULL;
		return -EFAULT;
	}
	for (unsigned int j = 0; j < nr; j++) {
		unsigned int off = j ? 0 : (unsigned int)(start & ~PAGE_MASK);
		unsigned int len = (unsigned int)min(PAGE_SIZE - off, left);

		imu->bvec[j] = (struct bio_vec){ .bv_page = pages[j], .bv_len = len, .bv_offset = off };
		left -= len;
	}
	kfree(pages);
	imu->ubuf = start;
	imu->len = iov->iov_len;
	imu->nr_bvecs = nr;
	return 0;
}

static int io_sqe_buffers_register(struct io_ring_ctx *ctx, const struct iovec __user *arg,
				   unsigned int nr)
{
	int err = 0;

	struct io_buf_table *t;

	if (ctx->bufs)
		return -EBUSY;
	if (!nr || nr > IORING_MAX_REG_BUFFERS)
		return -EINVAL;
	t = kzalloc(sizeof(*t) + nr * sizeof(t->bufs[0]), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	refcount_set(&t->refs, 1);
	for (unsigned int i = 0; i < nr; i++) {
		struct iovec iov;

		if (copy_from_user(&iov, &arg[i], sizeof(iov)))
			err = -EFAULT;
		else
			err = io_buffer_pin(&t->bufs[i], &iov);
		if (err)
			break;
		t->nr = i + 1;
	}
	if (err) {
		io_buf_table_put(t);    /* all or nothing, as Linux */
		return err;
	}
	ctx->bufs = t;
	return 0;
}

static void io_sqe_files_unregister(struct io_ring_ctx *ctx)
{
	for (unsigned int i = 0; i < ctx->nr_files; i++)
		if (ctx->files[i])
			fput(ctx->files[i]);
	kfree(ctx->files);
	ctx->files = NULL;
	ctx->nr_files = 0;
}

/*
 * IORING_REGISTER_FILES: a table of descriptors, each referenced once
 * here instead of at every request (Linux's io_sqe_files_register).  -1
 * leaves a hole; a ring's own descriptor is refused (EBADF), as Linux
 * refuses it: a ring holding itself would never be released.
 */
static int io_sqe_files_register(struct io_ring_ctx *ctx, const int __user *arg,
				 unsigned int nr)
{
	int err = 0;

	if (ctx->files)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > IORING_MAX_FIXED_FILES)
		return -EMFILE;
	ctx->files = kcalloc(nr, sizeof(*ctx->files), GFP_KERNEL);
	if (!ctx->files)
		return -ENOMEM;
	ctx->nr_files = nr;
	for (unsigned int i = 0; i < nr && !err; i++) {
		int fd;

		if (copy_from_user(&fd, &arg[i], sizeof(fd))) {
			err = -EFAULT;
		} else if (fd != -1) {
			ctx->files[i] = fd >= 0 ? fget((unsigned int)fd) : NULL;
			if (!ctx->files[i])
				err = -EBADF;
			else if (ctx->files[i]->f_op == &io_uring_fops)
				err = -EBADF;
		}
	}
	if (err)
		io_sqe_files_unregister(ctx);   /* all or nothing, as Linux */
	return err;
}

/* IORING_REGISTER_PROBE: which opcodes this kernel has (Linux's io_probe). */
static int io_probe(void __user *arg, unsigned int nr_args)
{
	struct io_uring_probe *p;
	size_t size;
	int err = 0;

	if (nr_args > 256)
		nr_args = 256;          /* ops_len is a byte */
	size = sizeof(*p) + nr_args * sizeof(p->ops[0]);
	p = kzalloc(size, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	if (copy_from_user(p, arg, size)) {
		err = -EFAULT;
		goto out;
	}
	/* the caller hands it zeroed, as Linux requires */
	for (size_t i = 0; i < size; i++)
		if (((const unsigned char *)p)[i]) {
			err = -EINVAL;
			goto out;
		}
	p->last_op = IORING_OP_LAST - 1;
	if (nr_args > IORING_OP_LAST)
		nr_args = IORING_OP_LAST;
	for (unsigned int i = 0; i < nr_args; i++) {
		p->ops[i].op = (unsigned char)i;
		if (io_op_supported(i))
			p->ops[i].flags = IO_URING_OP_SUPPORTED;
	}
	p->ops_len = (unsigned char)nr_args;
	if (copy_to_user(arg, p, size))
		err = -EFAULT;
out:
	kfree(p);
	return err;
}

long sys_io_uring_register(unsigned int fd, unsigned int opcode, void __user *arg,
			   unsigned int nr_args)
{
	struct io_ring_ctx *ctx;
	struct file *f;
	long ret;

	if (opcode >= IORING_REGISTER_LAST)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (f->f_op != &io_uring_fops) {
		fput(f);
		return -EOPNOTSUPP;
	}
	ctx = f->private_data;
	mutex_lock(&ctx->uring_lock);
	switch (opcode) {
	case IORING_REGISTER_BUFFERS:
		ret = io_sqe_buffers_register(ctx, arg, nr_args);
		break;
	case IORING_UNREGISTER_BUFFERS:
		ret = -EINVAL;
		if (arg || nr_args)
			break;
		ret = -ENXIO;           /* nothing registered: Linux's answer */
		if (!ctx->bufs)
			break;
		io_sqe_buffers_unregister(ctx);
		ret = 0;
		break;
	case IORING_REGISTER_FILES:
		ret = io_sqe_files_register(ctx, arg, nr_args);
		break;
	case IORING_UNREGISTER_FILES:
		ret = -EINVAL;
		if (arg || nr_args)
			break;
		ret = -ENXIO;
		if (!ctx->files)
			break;
		io_sqe_files_unregister(ctx);
		ret = 0;
		break;
	case IORING_REGISTER_PROBE:
		ret = io_probe(arg, nr_args);
		break;
	default:
		ret = -EINVAL;          /* the rest: not in Spindle yet */
		break;
	}
	mutex_unlock(&ctx->uring_lock);
	fput(f);
	return ret;
}

/* --- the descriptor: mmap and release ------------------------------------------ */

/* vm_ops->fault: the page of the region the offset names, referenced. */
static int io_uring_fault(struct vm_fault *vmf)
{
	struct io_ring_ctx *ctx = vmf->vma->vm_file->private_data;
	pgoff_t pgoff = vmf->pgoff;
	struct io_region *r = &ctx->ring;

	if (pgoff >= IORING_OFF_SQES >> PAGE_SHIFT) {
		r = &ctx->sqes;
		pgoff -= IORING_OFF_SQES >> PAGE_SHIFT;
	} else if (pgoff >= IORING_OFF_CQ_RING >> PAGE_SHIFT) {
		pgoff -= IORING_OFF_CQ_RING >> PAGE_SHIFT;
	}
	if (pgoff >= r->nr_pages)
		return VM_FAULT_SIGBUS;
	get_page(r->pages[pgoff]);
	vmf->page = r->pages[pgoff];
	return VM_FAULT_OK;
}

/* no page_mkwrite: the pages are mapped writable at once, nothing tracked */
static const struct vm_operations_struct io_uring_vm_ops = {
	.fault = io_uring_fault,
};

/* The three offsets Linux's io_uring_mmap knows, each no longer than its
 * region (EINVAL otherwise, as Linux). */
static int io_uring_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct io_ring_ctx *ctx = f->private_data;
	unsigned long off = vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct io_region *r;

	switch (off) {
	case IORING_OFF_SQ_RING:
	case IORING_OFF_CQ_RING:
		r = &ctx->ring;
		break;
	case IORING_OFF_SQES:
		r = &ctx->sqes;
		break;
	default:
		return -EINVAL;
	}
	if (len > (unsigned long)r->nr_pages << PAGE_SHIFT)
		return -EINVAL;
	vma->vm_ops = &io_uring_vm_ops;
	return 0;
}

/* Wait for the requests in flight, then free everything.  May sleep. */
static void io_ring_ctx_free(struct io_ring_ctx *ctx)
{
	u32 taken;

	/* the workers first: what is queued is cancelled, what runs is
	 * interrupted, and once they have ended no worker touches ctx */
	if (ctx->io_wq)
		io_wq_destroy(ctx->io_wq);
	/* polled requests end only when polled for: reap them all first */
	mutex_lock(&ctx->uring_lock);
	while (!list_empty(&ctx->iopoll_list))
		if (!io_do_iopoll(ctx))
			cond_resched();
	taken = ctx->nr_taken;          /* nobody takes SQEs any more */
	mutex_unlock(&ctx->uring_lock);
	/* armed TIMEOUTs would otherwise keep it waiting: cancel them */
	io_kill_timeouts(&ctx->timeouts);
	wait_event(ctx->cq_wait, READ_ONCE(ctx->nr_posted) == taken);
	/* the last completer wakes us under this lock: once we hold it, it
	 * has let go of ctx for good */
	spin_lock_irq(&ctx->cq_wait.lock);
	io_cqring_overflow_kill(&ctx->cq);      /* CQEs nobody will read */
	spin_unlock_irq(&ctx->cq_wait.lock);
	io_free_done(ctx, false);
	while (ctx->req_cache) {
		struct io_kiocb *req = ctx->req_cache;

		ctx->req_cache = req->link;
		kfree(req);
	}
	io_sqe_buffers_unregister(ctx);
	io_sqe_files_unregister(ctx);
	io_region_free(&ctx->ring);
	io_region_free(&ctx->sqes);
	if (ctx->sq_owner)
		put_task_struct(ctx->sq_owner);
	kfree(ctx);
}

/*
 * The last close of the descriptor and its mappings (at exit too): stop
 * the SQ thread, then free the ring.  Run by the SQ thread itself when
 * its pass held the owner's mm last (the owner exited meanwhile, and the
 * mapping was the ring's last reference): it cannot stop itself, so it
 * frees the ring as it leaves.
 */
static int io_uring_release(struct inode *inode, struct file *f)
{
	struct io_ring_ctx *ctx = f->private_data;

	(void)inode;
	if (ctx->sq_thread) {
		if (ctx->sq_thread == current) {
			WRITE_ONCE(ctx->sq_orphaned, true);
			return 0;
		}
		kthread_stop(ctx->sq_thread);
		put_task_struct(ctx->sq_thread);
	}
	io_ring_ctx_free(ctx);
	return 0;
}

static const struct file_operations io_uring_fops = {
	.mmap = io_uring_mmap,
	.release = io_uring_release,
};

/* --- io_uring_setup ------------------------------------------------------------ */

/*
 * The ring's file: a nameless inode ("anon_inode:[io_uring]", as Linux's
 * anon_inode_getfile names it; fs/anon_inodes.c), open for reading and
 * writing.  Its mapping exists only so that the VMAs of the rings have a
 * file mapping to hang on; it caches nothing.
 */
static struct file *io_uring_get_file(struct io_ring_ctx *ctx)
{
	return anon_inode_getfile("[io_uring]", &io_uring_fops, ctx, O_RDWR | O_CLOEXEC);
}

static u32 roundup_pow_of_two_u32(u32 n)
{
	u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Linux's checks and sizes (io_uring_create), in its order. */
static int io_uring_sizes(struct io_uring_params *p, u32 entries)
{
	if (!entries)
		return -EINVAL;
	if (entries > IORING_MAX_ENTRIES) {
		if (!(p->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		entries = IORING_MAX_ENTRIES;
	}
	p->sq_entries = roundup_pow_of_two_u32(entries);
	if (p->flags & IORING_SETUP_CQSIZE) {
		if (!p->cq_entries)
			return -EINVAL;
		if (p->cq_entries > IORING_MAX_CQ_ENTRIES) {
			if (!(p->flags & IORING_SETUP_CLAMP))
				return -EINVAL;
			p->cq_entries = IORING_MAX_CQ_ENTRIES;
		}
		p->cq_entries = roundup_pow_of_two_u32(p->cq_entries);
		if (p->cq_entries < p->sq_entries)
			return -EINVAL;
	} else {
		p->cq_entries = 2 * p->sq_entries;
	}
	return 0;
}

/* Where each field is, for the process (io_uring_params' sq_off, cq_off). */
static void io_fill_offsets(struct io_ring_ctx *ctx, struct io_uring_params *p)
{
	memset(&p->sq_off, 0, sizeof(p->sq_off));
	p->sq_off.head = offsetof(struct io_rings, sq_head);
	p->sq_off.tail = offsetof(struct io_rings, sq_tail);
	p->sq_off.ring_mask = offsetof(struct io_rings, sq_ring_mask);
	p->sq_off.ring_entries = offsetof(struct io_rings, sq_ring_entries);
	p->sq_off.flags = offsetof(struct io_rings, sq_flags);
	p->sq_off.dropped = offsetof(struct io_rings, sq_dropped);
	p->sq_off.array = ctx->sq_array_off;
	memset(&p->cq_off, 0, sizeof(p->cq_off));
	p->cq_off.head = offsetof(struct io_rings, cq_head);
	p->cq_off.tail = offsetof(struct io_rings, cq_tail);
	p->cq_off.ring_mask = offsetof(struct io_rings, cq_ring_mask);
	p->cq_off.ring_entries = offsetof(struct io_rings, cq_ring_entries);
	p->cq_off.overflow = offsetof(struct io_rings, cq_overflow);
	p->cq_off.cqes = offsetof(struct io_rings, cqes);
	p->cq_off.flags = offsetof(struct io_rings, cq_flags);
}

static struct io_ring_ctx *io_ring_ctx_alloc(const struct io_uring_params *p)
{
	struct io_ring_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	size_t rings_size;

	if (!ctx)
		return NULL;
	ctx->flags = p->flags;
	ctx->sq_entries = p->sq_entries;
	ctx->cq_entries = p->cq_entries;
	mutex_init(&ctx->uring_lock);
	init_waitqueue_head(&ctx->cq_wait);
	init_waitqueue_head(&ctx->sq_wait);
	init_waitqueue_head(&ctx->sq_space);
	INIT_LIST_HEAD(&ctx->done);
	INIT_LIST_HEAD(&ctx->iopoll_list);
	INIT_LIST_HEAD(&ctx->compl_list);
	rings_size = offsetof(struct io_rings, cqes) + (size_t)p->cq_entries * sizeof(struct io_uring_cqe);
	ctx->sq_array_off = (u32)ALIGN(rings_size, IORING_CACHELINE);
	if (io_region_alloc(&ctx->ring, ctx->sq_array_off + (size_t)p->sq_entries * 4) ||
	    io_region_alloc(&ctx->sqes, (size_t)p->sq_entries * sizeof(struct io_uring_sqe))) {
		io_region_free(&ctx->ring);
		kfree(ctx);
		return NULL;
	}
	ctx->rings = page_address(ctx->ring.pages[0]);
	ctx->rings->sq_ring_mask = p->sq_entries - 1;
	ctx->rings->cq_ring_mask = p->cq_entries - 1;
	ctx->rings->sq_ring_entries = p->sq_entries;
	ctx->rings->cq_ring_entries = p->cq_entries;
	io_cq_init(&ctx->cq, p->cq_entries, &ctx->rings->cq_tail, &ctx->rings->cq_head,
		   &ctx->rings->sq_flags, &ctx->rings->cq_overflow);
	ctx->cq.fail_alloc = &fail_io_uring_cqe;
	io_timeouts_init(&ctx->timeouts, &ctx->cq_wait);
	return ctx;
}

/*
 * IORING_SETUP_SQPOLL (Linux's io_sq_offload_create): the SQ thread,
 * "iou-sqp-<pid>" as Linux names it, made but not yet woken; pinned to
 * sq_thread_cpu with IORING_SETUP_SQ_AFF.  The caller's mm is marked
 * threaded now, while only the caller runs on it: the thread will load
 * it on another CPU (kthread_use_mm).
 */
/*
 * IORING_SETUP_ATTACH_WQ: share wq_fd's io-wq.  In Linux 6.1 the io-wq
 * belongs to the task, so there is nothing to share without SQPOLL, and
 * wq_fd is only checked (io_sq_offload_create): no such descriptor
 * ENXIO, not a ring EINVAL; with SQPOLL the new ring would share the
 * other's SQ thread, which must be the caller's process's (EPERM).
 * Spindle checks the same, and the new ring keeps workers and an SQ
 * thread of its own.
 */
static int io_attach_wq_check(const struct io_uring_params *p)
{
	struct file *f = fget(p->wq_fd);
	int err = 0;

	if (!f)
		return -ENXIO;
	if (f->f_op != &io_uring_fops) {
		err = -EINVAL;
	} else if (p->flags & IORING_SETUP_SQPOLL) {
		struct io_ring_ctx *other = f->private_data;

		if (!other->sq_owner || other->sq_owner->tgid != current->tgid)
			err = other->sq_owner ? -EPERM : -EINVAL;
	}
	fput(f);
	return err;
}

static int io_sq_offload_create(struct io_ring_ctx *ctx, const struct io_uring_params *p)
{
	struct task_struct *t;

	if (!current->mm)
		return -EINVAL;
	ctx->sq_thread_idle = msecs_to_jiffies(p->sq_thread_idle ? p->sq_thread_idle :
					       IORING_SQ_IDLE_DEFAULT_MS);
	WRITE_ONCE(current->mm->threaded, true);
	ctx->sq_mm = current->mm;
	get_task_struct(current);
	ctx->sq_owner = current;
	t = kthread_create(io_sq_thread, ctx, "iou-sqp-%d", current->tgid);
	if (!t)
		return -ENOMEM;
	get_task_struct(t);             /* the release's, for kthread_stop */
	if (p->flags & IORING_SETUP_SQ_AFF) {
		struct cpumask mask = { 0 };

		cpumask_set_cpu(p->sq_thread_cpu, &mask);
		set_cpus_allowed_ptr(t, &mask);
	}
	ctx->sq_thread = t;
	return 0;
}

long sys_io_uring_setup(u32 entries, struct io_uring_params __user *params)
{
	struct io_uring_params p;
	struct io_ring_ctx *ctx;
	struct file *f;
	int fd, err;

	if (copy_from_user(&p, params, sizeof(p)))
		return -EFAULT;
	for (unsigned int i = 0; i < ARRAY_SIZE(p.resv); i++)
		if (p.resv[i])
			return -EINVAL;
	/* the rest of what Linux 6.1 knows: not in Spindle yet, so EINVAL,
	 * as Linux answers for a flag it does not know */
	if (p.flags & ~IORING_SETUP_SUPPORTED)
		return -EINVAL;
	/* SQ_AFF: only with SQPOLL, on an online CPU (Linux's checks) */
	if ((p.flags & IORING_SETUP_SQ_AFF) &&
	    (!(p.flags & IORING_SETUP_SQPOLL) || p.sq_thread_cpu >= nr_cpu_ids ||
	     !cpu_online(p.sq_thread_cpu)))
		return -EINVAL;
	err = io_uring_sizes(&p, entries);
	if (err)
		return err;
	if (p.flags & IORING_SETUP_ATTACH_WQ) {
		err = io_attach_wq_check(&p);
		if (err)
			return err;
	}
	ctx = io_ring_ctx_alloc(&p);
	if (!ctx)
		return -ENOMEM;
	io_fill_offsets(ctx, &p);
	p.features = IORING_FEATURES;
	if (p.flags & IORING_SETUP_SQPOLL) {
		err = io_sq_offload_create(ctx, &p);
		if (err)
			goto free_ctx;
	}
	if (copy_to_user(params, &p, sizeof(p))) {
		err = -EFAULT;
		goto free_ctx;
	}
	f = io_uring_get_file(ctx);
	if (IS_ERR(f)) {
		err = (int)PTR_ERR(f);
		goto free_ctx;
	}
	if (ctx->sq_thread)
		wake_up_process(ctx->sq_thread);
	fd = get_unused_fd_flags(O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fput(f);                /* its release frees ctx */
		return fd;
	}
	fd_install((unsigned int)fd, f);
	return fd;
free_ctx:
	if (ctx->sq_thread) {
		/* never woken: kthread_stop runs it straight to its end */
		kthread_stop(ctx->sq_thread);
		put_task_struct(ctx->sq_thread);
	}
	io_ring_ctx_free(ctx);
	return err;
}
