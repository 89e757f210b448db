/* SPDX-License-Identifier: MIT */
/*
 * blk_mq.h - requests: what the request layer hands a request-based
 * driver (IDE, AHCI) instead of bios.  (Linux's is include/linux/blk-mq.h;
 * Spindle's public headers all spell their names with underscores.)
 *
 * A request is one command for the device: a contiguous range of sectors,
 * one operation, and the bios whose data it carries (merged end to end:
 * bio -> bi_next -> ... -> biotail).  Requests are born from a bio, grow
 * by merging (back: a bio that starts where the request ends; front: one
 * that ends where it starts), wait on the task's plug or in the elevator,
 * are dispatched to the driver's queue_rq() with a tag, and complete with
 * blk_mq_end_request(), which ends each bio.
 *
 * Field names follow Linux's struct request.
 */
#ifndef SPINDLE_BLK_MQ_H
#define SPINDLE_BLK_MQ_H

#include <spindle/blk_types.h>
#include <spindle/list.h>
#include <spindle/spinlock.h>
#include <spindle/smp.h>
#include <spindle/wait.h>
#include <spindle/cache.h>

struct request_queue;
struct request;
struct block_device;
struct blk_mq_hw_ctx;
struct blk_mq_ctx;

#define BLK_MQ_MAX_DEPTH 64             /* tags: one bit each in a u64 */

/* rq->state: a request is completed once, whoever gets there first -- the
 * interrupt handler or the timeout handler. */
enum mq_rq_state { MQ_RQ_IDLE, MQ_RQ_IN_FLIGHT, MQ_RQ_COMPLETE };

typedef void (rq_end_io_fn)(struct request *rq, blk_status_t status);

/* A new field is also set in blk_rq_init_from_bio() (blk-mq.c), which
 * initialises every field by name, not by a memset. */
struct request {
	struct request_queue *q;
	struct blk_mq_ctx *mq_ctx;      /* the submitting CPU's software queue */
	struct blk_mq_hw_ctx *mq_hctx;  /* the hardware queue it goes to: its
					 * ctx's; with an elevator, the one
					 * that dispatched it (its tag's) */
	struct blk_mq_hw_ctx *pool_hctx; /* the hardware queue whose pool it
					 * came from, and goes back to (its
					 * ctx's of its type: never changes) */
	struct list_head queuelist;     /* on a plug, a dispatch list, or the
					 * elevator's FIFO -- one at a time */
	unsigned int cmd_flags;         /* REQ_OP_* | REQ_* (as bi_opf) */
	sector_t __sector;              /* first sector (whole-disk address) */
	unsigned int __data_len;        /* bytes */
	struct bio *bio;                /* the bios, first ... */
	struct bio *biotail;            /* ... and last */
	unsigned short nr_phys_segments;
	int tag;                        /* the driver's slot; -1 before dispatch */
	struct block_device *part;      /* for accounting */

	u64 start_time_ns;              /* when it was made (queue time) */
	u64 fifo_time;                  /* elevator: expiry (ns) */

	/* elevator private: mq-deadline keeps it in a sector-sorted list */
	struct list_head elv_sort;
	void *elv_priv;

	rq_end_io_fn *end_io;           /* for requests without bios (flush) */
	void *end_io_data;
	blk_status_t status;            /* set by blk_mq_complete_request() */

	enum mq_rq_state state;         /* IDLE -> IN_FLIGHT -> COMPLETE */
	u64 deadline;                   /* jiffies: ops->timeout after this */
	u64 gen;                        /* which dispatch of this request this is
					 * (kept over its reuses: the timeout
					 * scan's check, blk-mq.c) */
	unsigned int rq_flags;          /* RQF_*: the request layer's own */
	unsigned int flush_seq;         /* REQ_FSEQ_* steps done (blk-flush.c) */
	struct list_head flush_list;    /* on q->flush_pending/_running */
};

/* rq->rq_flags */
#define RQF_FLUSH_SEQ   (1u << 0)       /* goes through the flush sequence */
#define RQF_FLUSH_RQ    (1u << 1)       /* the queue's own flush request */
#define RQF_REQUEUE     (1u << 2)       /* on kblockd's list to be requeued */
#define RQF_TRACED_C    (1u << 3)       /* its C (complete) event is recorded */
#define RQF_QUIET       (1u << 4)       /* its error is logged already: no line */
#define RQF_ELV         (1u << 5)       /* went through the elevator (not "none") */

/* What a driver's timeout handler did about a late request. */
enum blk_eh_timer_return {
	BLK_EH_DONE,            /* handled: the driver has completed it (or will) */
	BLK_EH_RESET_TIMER,     /* give it another rq_timeout */
};

/* --- for request-based drivers ------------------------------------------ */

struct io_comp_batch;

/*
 * What queue_rq() is given (Linux's struct blk_mq_queue_data): the
 * request, and whether it is the last the block layer has for the driver
 * now.  A driver whose device is told of new commands by a register
 * write (a doorbell: NVMe's SQ tail) may write it once, for the last of
 * a batch, instead of once per command -- each such write is an MMIO
 * store, and under a hypervisor or an emulator an exit.  A batch that
 * stops early, after a request sent with last false, is closed with
 * commit_rqs().
 */
struct blk_mq_queue_data {
	struct request *rq;
	bool last;
};

struct blk_mq_ops {
	/*
	 * Start bd->rq on the device (called without the queue lock; must
	 * not sleep).  Return BLK_STS_OK once the device has it,
	 * BLK_STS_RESOURCE if it cannot take it now (it is retried after a
	 * completion), or an error to fail it at once.  With bd->last
	 * false more follow at once: the device may be told later, by the
	 * last one's queue_rq() or by commit_rqs().
	 */
	blk_status_t (*queue_rq)(struct request_queue *q, const struct blk_mq_queue_data *bd);
	/*
	 * The batch ended without a request sent with last true (the next
	 * could not go: no tag, the driver full or failing it): tell the
	 * device of what hctx's queue_rq() took with last false.  Task
	 * context, must not sleep.  A driver that acts on every queue_rq()
	 * leaves it NULL.
	 */
	void (*commit_rqs)(struct blk_mq_hw_ctx *hctx);
	/*
	 * rq has been in flight longer than q->rq_timeout.  Called in task
	 * context (kblockd), may sleep (to reset a channel).  The driver
	 * either completes rq (blk_mq_complete_request, usually with
	 * BLK_STS_TIMEOUT or after a retry) and returns BLK_EH_DONE, or returns
	 * BLK_EH_RESET_TIMER.  Without this op, a late request is completed
	 * with BLK_STS_TIMEOUT.
	 */
	enum blk_eh_timer_return (*timeout)(struct request *rq);
	/*
	 * Reap hctx's completion queue now, without waiting for an
	 * interrupt (there is none on a poll queue): the driver hands what
	 * it finds to blk_mq_add_to_batch(rq, iob, status) -- or, where that
	 * says no, completes it with blk_mq_complete_request() -- and
	 * returns how many it found.  Called by blk_mq_poll() in task
	 * context, from any CPU, for a hardware context of type
	 * HCTX_TYPE_POLL only; must not sleep.  A driver without poll queues
	 * leaves it NULL.
	 */
	int (*poll)(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);
};

/*
 * Requests a queue has by default: enough for the elevator to have a
 * choice even on a disk that takes one command at a time (IDE).  Linux's
 * old default, BLKDEV_MAX_RQ.
 */
#define BLKDEV_DEFAULT_RQ       128

/*
 * The kinds of hardware context (Linux's enum hctx_type).  A request goes
 * to a context of the type its flags ask for: REQ_POLLED to a POLL one,
 * whose queue raises no interrupt and is reaped by its submitter
 * (blk_mq_poll); everything else to a DEFAULT one.  READ keeps Linux's
 * number but has no queues in Spindle: reads go to DEFAULT (an empty map
 * stands for DEFAULT, as in Linux).
 */
enum hctx_type {
	HCTX_TYPE_DEFAULT,      /* everything not below */
	HCTX_TYPE_READ,         /* just reads (not used: folded into DEFAULT) */
	HCTX_TYPE_POLL,         /* REQ_POLLED: no interrupt, polled */
	HCTX_MAX_TYPES,
};

/*
 * One queue map (Linux's struct blk_mq_queue_map): a contiguous run of
 * nr_queues hardware contexts from queue_offset, and which of them each
 * CPU sends to.  mq_map holds the context's index in the queue (offset
 * included), so q->queue_hw_ctx[map->mq_map[cpu]] is the CPU's context.
 */
struct blk_mq_queue_map {
	unsigned int mq_map[NR_CPUS];   /* CPU -> hardware context (blk_mq_map_queues) */
	unsigned int nr_queues;         /* 0: the map is empty, DEFAULT stands in */
	unsigned int queue_offset;      /* its first hardware context */
};

struct blk_mq_tag_set {
	const struct blk_mq_ops *ops;
	unsigned int nr_hw_queues;      /* hardware queues of every type together
					 * (0 or 1: one).  With one map, at most
					 * nr_cpu_ids, as Linux caps it */
	unsigned int nr_maps;           /* 0 or 1: DEFAULT only, which then gets
					 * every queue; HCTX_MAX_TYPES: the driver
					 * set each map's nr_queues and queue_offset */
	unsigned int queue_depth;       /* commands each hardware queue takes at
					 * once (<= 64) */
	unsigned int nr_requests;       /* requests each hardware queue has (0:
					 * BLKDEV_DEFAULT_RQ, or 2 x depth if that
					 * is more) */
	void *driver_data;
	struct blk_mq_queue_map map[HCTX_MAX_TYPES];    /* filled by blk_mq_init_queue */
};

/*
 * A hardware context (Linux's struct blk_mq_hw_ctx): one queue of the
 * device -- one NVMe submission queue, the one AHCI port -- with its own
 * lock, tags and dispatch list, so that CPUs sending to different
 * hardware queues share no lock on the way to the driver.  Each field
 * says what keeps it safe: [init] set by blk_mq_init_queue, only read
 * after; [hlock] hctx->lock, taken with interrupts off.
 */
struct blk_mq_hw_ctx {
	spinlock_t lock;
	struct request_queue *queue;        /* [init] */
	unsigned int queue_num;             /* [init] its index: the driver's queue */
	enum hctx_type type;                /* [init] DEFAULT or POLL */
	struct cpumask cpumask;             /* [init] the CPUs mapped to it */
	unsigned int nr_ctx;                /* [init] ... their software queues */
	struct blk_mq_ctx **ctxs;           /* [init] */
	unsigned int next_ctx;              /* [hlock] the ctx to look at first */
	/*
	 * The requests the CPUs mapped here make (Linux's per-hctx
	 * static_rqs and sched_tags; Spindle keeps a free list where Linux
	 * has a tag bitmap).  Taken and given back under hctx->lock: CPUs
	 * with a hardware queue each share no lock to get a request.  A
	 * request keeps its pool (rq->pool_hctx) even when another hctx
	 * dispatches it (an elevator), and goes back there when freed.
	 */
	struct request *static_rqs;         /* [init] nr_requests of them */
	struct list_head free_rqs;          /* [hlock] */
	unsigned int nr_free;               /* [hlock] on free_rqs; read unlocked
					     * (READ_ONCE) by a freezer */
	unsigned int nr_rq_waiters;         /* [hlock] tasks asleep on rq_wait */
	struct wait_queue_head rq_wait;     /* [own] waiting for a free request */
	u64 tags_used;                      /* [hlock] bit n: tag n is in flight */
	unsigned int tags_busy;             /* [hlock] its bits set, counted as they
					     * change (a count of the bits took a
					     * loop per bit at every dispatch) */
	struct request *tag_rq[BLK_MQ_MAX_DEPTH]; /* [hlock] */
	struct list_head dispatch;          /* [hlock] came back busy, requeued, a
					     * flush step: sent before anything else;
					     * a POLL context's only source */
	/* [poll_lock] polled requests the driver completed, for the next
	 * blk_mq_poll() on this context to end.  poll_lock is a leaf, taken
	 * with interrupts off under the driver's completion lock (NVMe's
	 * cq_lock) or under hctx->lock (the timeout scan completes there) */
	spinlock_t poll_lock;
	struct list_head poll_done;
	bool busy;                          /* [hlock] the driver said BLK_STS_RESOURCE */
	unsigned int restart_seq;           /* [hlock] bumped when a tag is freed or
					     * the driver restarts the queue */
	bool restart_pending;               /* [hlock] ... for kblockd to run it */
	bool sched_restart;                 /* [hlock] a run stopped with requests
					     * left (no tag, or busy): the next
					     * freed tag runs the queue again
					     * (Linux's BLK_MQ_S_SCHED_RESTART) */
	unsigned int tags_peak;             /* [hlock] most tags in use at once (bench);
					     * reset without the lock (WRITE_ONCE) */
	/* [hlock] requests sent to queue_rq, by the CPU they were made on:
	 * Spindle's /sys/block/<disk>/mq/<n>/dispatched (Linux counts the
	 * same per software queue in debugfs, hctxN/cpuM/dispatched) */
	unsigned long dispatched[NR_CPUS];
};

/*
 * A software queue (Linux's struct blk_mq_ctx): one per CPU and queue.
 * With the elevator "none", a request made on this CPU waits here until
 * its hardware queue runs; only this CPU's submitters and that hctx's
 * dispatcher take its lock.
 */
struct blk_mq_ctx {
	spinlock_t lock;
	struct list_head rq_list;           /* [lock] oldest first */
	unsigned int cpu;                   /* [init] */
	/* [init] this CPU's hardware context of each type (an empty map's
	 * entry is the DEFAULT one); only the DEFAULT one takes requests
	 * from rq_list -- a polled request never waits here */
	struct blk_mq_hw_ctx *hctxs[HCTX_MAX_TYPES];
} ____cacheline_aligned_in_smp;         /* q->queue_ctx[] has one per CPU: no
					 * CPU's shares a line with the next's */

/* A request-based queue: bios become requests, merged, scheduled by the
 * elevator (elevator=<name>), dispatched to ops->queue_rq. */
struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set);
/* Free a queue that never carried I/O (a driver's error path). */
void blk_mq_destroy_queue(struct request_queue *q);
/* The driver calls this from queue_rq when the command starts. */
void blk_mq_start_request(struct request *rq);
/* The device is done with rq: callable from interrupt handlers; the bios
 * are ended later in task context (kblockd).  Returns false (and does
 * nothing) if rq was already completed -- e.g. by its timeout handler. */
bool blk_mq_complete_request(struct request *rq, blk_status_t status);
/* The same from an interrupt handler that can end rq itself: false when
 * rq is to end on this CPU -- the handler then puts it on a list and,
 * its own locks dropped, calls blk_mq_end_request_batch() -- true when
 * it was sent elsewhere (kblockd, its poller) or already completed. */
bool blk_mq_complete_request_remote(struct request *rq, blk_status_t status);
void blk_mq_end_request_batch(struct list_head *list);
/*
 * A poll's completions, gathered while the driver holds its lock and ended
 * by blk_mq_poll() after it has let go (Linux's struct io_comp_batch): no
 * lock per request, and no trip through hctx->poll_done.
 */
struct io_comp_batch {
	struct list_head req_list;      /* by queuelist, each marked complete */
};
/*
 * In a driver's ->poll: complete rq into iob, for blk_mq_poll() to end
 * (Linux's blk_mq_add_to_batch).  False when there is no batch (iob
 * NULL): the caller then completes rq as usual.  True also when rq was
 * completed already (its timeout handler was first): nothing to do.
 */
bool blk_mq_add_to_batch(struct request *rq, struct io_comp_batch *iob, blk_status_t status);
/* Give rq back to the request layer unfinished: it is dispatched again,
 * before anything new (an innocent request after a port reset).  Callable
 * from interrupt handlers; the driver must forget rq's tag. */
void blk_mq_requeue_request(struct request *rq);
/* End rq now (task context, or an interrupt handler's batch above):
 * every bio, then the tag and the request. */
void blk_mq_end_request(struct request *rq, blk_status_t status);
/* Spread the CPUs over qmap's nr_queues contexts from queue_offset: fills
 * qmap->mq_map (blk_mq_init_queue calls it for each map). */
void blk_mq_map_queues(struct blk_mq_queue_map *qmap);
/* Send queued requests to the driver while hctx has free tags (task context). */
void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx);
/* ... for every hardware queue of q. */
void blk_mq_run_hw_queues(struct request_queue *q);
/* The hardware queue this CPU's requests go to (the DEFAULT map's). */
struct blk_mq_hw_ctx *blk_mq_map_queue(struct request_queue *q, unsigned int cpu);
/* ... of one type (an empty map gives the DEFAULT one). */
struct blk_mq_hw_ctx *blk_mq_map_queue_type(struct request_queue *q, enum hctx_type type,
					    unsigned int cpu);
/* Does q have poll queues (a POLL map and ops->poll)?  Its queue/io_poll:
 * blk_mq_can_poll(q), inline in block/blk.h. */
/*
 * Poll hardware context @cookie of q once (Linux's blk_mq_poll): the
 * driver's poll op reaps its completion queue, then every polled request
 * completed on that context is ended here, in the caller's task context.
 * Returns the requests ended (0: none yet).  May sleep only as the bios'
 * end_io do; task context.
 */
int blk_mq_poll(struct request_queue *q, unsigned int cookie);
/* The most tags any of q's hardware queues held at once; and reset them. */
unsigned int blk_mq_tags_peak(struct request_queue *q);
void blk_mq_reset_tags_peak(struct request_queue *q);
/*
 * The driver can take commands again although none of q's own completed
 * -- e.g. IDE: the other disk on the channel finished.  Every hardware
 * queue of q is run soon by kblockd.  Callable from interrupt handlers.  A queue_rq() that returned
 * BLK_STS_RESOURCE before this call is retried: no restart is lost.
 */
void blk_mq_restart_hw_queue(struct request_queue *q);

/*
 * Freeze: new bios wait in blk_queue_enter() until the thaw; returns once
 * every request the queue had made has completed (the caller's own plug
 * is flushed first).  For changing what requests depend on -- the
 * elevator.  May sleep.  Nests.
 */
void blk_mq_freeze_queue(struct request_queue *q);
void blk_mq_unfreeze_queue(struct request_queue *q);

/* Walk every segment of every bio of a request. */
#define __rq_for_each_bio(_bio, rq) \
	for ((_bio) = (rq)->bio; (_bio); (_bio) = (_bio)->bi_next)
#define rq_for_each_segment(bvl, rq, _bio, _iter) \
	__rq_for_each_bio(_bio, rq) \
		bio_for_each_segment(bvl, _bio, _iter)

static inline sector_t blk_rq_pos(const struct request *rq) { return rq->__sector; }
static inline unsigned int blk_rq_bytes(const struct request *rq) { return rq->__data_len; }
static inline unsigned int blk_rq_sectors(const struct request *rq) { return rq->__data_len >> SECTOR_SHIFT; }
static inline sector_t blk_rq_end_pos(const struct request *rq) { return rq->__sector + blk_rq_sectors(rq); }
static inline enum req_opf req_op(const struct request *rq) { return (enum req_opf)(rq->cmd_flags & REQ_OP_MASK); }
static inline int rq_data_dir(const struct request *rq) { return req_op(rq) & 1; }

#endif /* SPINDLE_BLK_MQ_H */
