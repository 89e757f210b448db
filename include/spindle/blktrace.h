/* SPDX-License-Identifier: MIT */
/*
 * blktrace.h - block-layer event tracing, in blkparse's text layout.
 *
 * Boot option blktrace=<disk>[,<disk>...] records, for each named disk,
 * every step its I/O takes -- the events of Linux's blktrace:
 *
 *   Q  a bio is queued for the disk     A  remapped from a partition
 *   X  split to the queue's limits      M  back-merged   F  front-merged
 *   G  got a request   S  slept to get one   P  plug   U  unplug (N requests;
 *   UT when schedule() unplugged a task that was going to sleep)
 *   I  inserted into the elevator       D  dispatched to the driver
 *   C  completed (with its error code)
 *
 * and show=blktrace prints them (then forgets them), one line each:
 *
 *     8,0    0        1     0.000000000     1  Q   W 2048 + 8 [init]
 *
 * device, cpu, sequence, seconds since tracing began, pid, event, RWBS
 * (F preflush; R, W, D discard or N none; F fua; S sync), then sector +
 * sectors and the task's name -- as `blkparse -i sda` prints them, so a
 * student can read a Linux trace the same way.
 */
#ifndef SPINDLE_BLKTRACE_H
#define SPINDLE_BLKTRACE_H

#include <spindle/types.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>
#include <spindle/blkdev.h>     /* q->blk_trace, for the inline test */
#include <spindle/blk_mq.h>     /* rq->q */

struct blk_trace_event {
	u64 time_ns;
	u64 sector;
	u64 extra;              /* A: original sector; X: where the rest starts; U: count */
	u32 bytes;
	u32 opf;
	int pid;
	int error;              /* C */
	u32 dev;                /* the queue's disk (major << 20 | minor) */
	u32 from_dev;           /* A: the partition it came from */
	char action;
	bool implicit;          /* U: from schedule(), printed "UT" as Linux's timer unplug */
	char comm[16];
};

struct blk_trace {
	/* Events come from submitters, dispatchers and completions on every
	 * CPU: head and the slot it names are taken under lock (irqsave).
	 * Linux has a buffer per CPU instead, merged by time when read. */
	spinlock_t lock;
	struct blk_trace_event *ev;
	unsigned int size;      /* capacity */
	unsigned int head;      /* [lock] events recorded (the ring keeps the last size) */
	unsigned int shown;     /* events already printed */
	struct mutex read_lock; /* debugfs readers take turns */
	unsigned int consumed;  /* [read_lock] events debugfs's trace0 has given */
	unsigned int dropped;   /* [read_lock] events lost before trace0 gave them */
	u64 start_ns;
	u32 dev;
	char name[32];
};

/*
 * Record events; all do nothing unless the queue is traced.  The test
 * is inline, so an untraced queue -- every queue, most of the time --
 * pays a load and a branch per event, not a call (Linux's tracepoints
 * cost a patched-out jump); the recording is out of line.
 */
void __blk_add_trace_bio(struct request_queue *q, struct bio *bio, char action, int error);
void __blk_add_trace_rq(struct request *rq, char action, int error);
void __blk_add_trace_split(struct request_queue *q, struct bio *bio, u64 split_sector);
void __blk_add_trace_remap(struct request_queue *q, struct bio *bio, u32 from_dev,
			   u64 from_sector);
void __blk_add_trace_plug(struct request_queue *q);
void __blk_add_trace_unplug(struct request_queue *q, unsigned int depth, bool from_schedule);

static inline bool blk_queue_traced(const struct request_queue *q)
{
	return q && READ_ONCE(q->blk_trace);
}

static inline void blk_add_trace_bio(struct request_queue *q, struct bio *bio, char action,
				     int error)
{
	if (unlikely(blk_queue_traced(q)))
		__blk_add_trace_bio(q, bio, action, error);
}

static inline void blk_add_trace_rq(struct request *rq, char action, int error)
{
	if (unlikely(blk_queue_traced(rq->q)))
		__blk_add_trace_rq(rq, action, error);
}

static inline void blk_add_trace_split(struct request_queue *q, struct bio *bio,
				       u64 split_sector)
{
	if (unlikely(blk_queue_traced(q)))
		__blk_add_trace_split(q, bio, split_sector);
}

static inline void blk_add_trace_remap(struct request_queue *q, struct bio *bio, u32 from_dev,
				       u64 from_sector)
{
	if (unlikely(blk_queue_traced(q)))
		__blk_add_trace_remap(q, bio, from_dev, from_sector);
}

static inline void blk_add_trace_plug(struct request_queue *q)
{
	if (unlikely(blk_queue_traced(q)))
		__blk_add_trace_plug(q);
}

static inline void blk_add_trace_unplug(struct request_queue *q, unsigned int depth,
					bool from_schedule)
{
	if (unlikely(blk_queue_traced(q)))
		__blk_add_trace_unplug(q, depth, from_schedule);
}

/* Start or stop tracing a disk at run time (sysfs will call these);
 * start returns 0 or -ENOMEM.  blktrace=<disk> starts it at boot. */
int blk_trace_start(struct gendisk *disk);
void blk_trace_stop(struct gendisk *disk);
/* The ring to read: the running trace's, or the last one stopped (its
 * events stay readable until tracing starts again); NULL if never traced. */
struct blk_trace *blk_trace_ring(struct request_queue *q);

/* One event as blkparse prints it (no newline); seq counts from 1. */
int blk_trace_format(const struct blk_trace *bt, const struct blk_trace_event *e,
		     u64 seq, char *buf, size_t size);
/*
 * The ring's events in Linux's binary blktrace format (struct
 * blk_io_trace records, with their payloads, and a "process" note giving
 * the name of each pid before its first event) -- the file that Linux's
 * blktrace writes as <dev>.blktrace.0 and that blkparse, btt and
 * iowatcher read.  Fills buf with whole records; returns the bytes used.
 */
size_t blk_trace_binary(struct blk_trace *bt, void *buf, size_t size);
/*
 * For Linux's blktrace(8): the BLKTRACESETUP/START/STOP/TEARDOWN ioctls
 * of a block device (0, -errno, or -ENOTTY for another command), and the
 * rings they set up, which debugfs shows as block/<name>/trace<cpu>.
 */
struct block_device;
int blk_trace_ioctl(struct block_device *bdev, unsigned int cmd, void __user *arg);
struct blk_trace *blk_trace_lookup(const char *name);
bool blk_trace_nth_name(unsigned int n, char *name);
/* Records of the events not yet consumed, as many as fit; the bytes used. */
size_t blk_trace_consume(struct blk_trace *bt, void *buf, size_t size);
/* Are there events trace0 has not given yet? */
bool blk_trace_unread(struct blk_trace *bt);
/* Print every traced disk's events (show=blktrace), then forget them. */
void blk_trace_print_all(void);
/* Events recorded so far in bt: every slot before it is filled, those of
 * events being added on other CPUs at this moment included. */
unsigned int blk_trace_head(struct blk_trace *bt);
/* The RWBS letters for an opf ("W", "FWS", "FN", ...). */
void blk_fill_rwbs(char *rwbs, u32 opf, u32 bytes);

#endif /* SPINDLE_BLKTRACE_H */
