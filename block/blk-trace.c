// SPDX-License-Identifier: MIT
/*
 * blk-trace.c - recording the block layer's events, printing them as
 * blkparse does (see include/spindle/blktrace.h for the events).
 *
 * Each traced queue has a ring of events; recording one takes the ring's
 * lock (irqsave: events come from tasks and kblockd on any CPU, and a
 * driver may complete from an interrupt), takes the next place, copies a
 * few fields and the current task's name, and returns: cheap enough to
 * leave on while measuring.  When the ring is full the oldest events go, and the
 * printout says how many were lost.
 */
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/blktrace.h>
#include <spindle/bio.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/mutex.h>
#include <spindle/errno.h>
#include <spindle/uaccess.h>
#include "blk.h"

#define BLK_TRACE_EVENTS    4096

static char blktrace_disks[128];        /* blktrace=sda,hda */

static int __init blktrace_setup(const char *val)
{
	strlcpy(blktrace_disks, val, sizeof(blktrace_disks));
	return 0;
}
__setup("blktrace=", blktrace_setup);

/* Is name one of the comma-separated words of list? */
static bool name_listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (*list) {
		const char *end = strchr(list, ',');
		size_t n = end ? (size_t)(end - list) : strlen(list);

		if (n == len && !strncmp(list, name, n))
			return true;
		if (!end)
			break;
		list = end + 1;
	}
	return false;
}

/* through a small holder; the list and each queue's blk_trace pointer are
 * changed under traced_lock (start and stop come from sysfs writes and
 * the BLKTRACE* ioctls) */
static LIST_HEAD(traced_disks);
static DEFINE_MUTEX(traced_lock);
struct traced {
	struct list_head list;
	struct request_queue *q;
	struct blk_trace *bt;           /* the queue's ring, never freed */
	struct blk_trace *stopped;      /* bt while not recording, else NULL */
	bool setup;                     /* BLKTRACESETUP'd, not yet torn down */
};

/* q's holder, made (with its ring, not recording) if it has none yet;
 * NULL if out of memory.  Under traced_lock. */
static struct traced *traced_get(struct gendisk *disk)
{
	struct blk_trace *bt;
	struct traced *t;

	list_for_each_entry(t, &traced_disks, list)
		if (t->q == disk->queue)
			return t;
	bt = kzalloc(sizeof(*bt), GFP_KERNEL);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (bt)
		bt->ev = kcalloc(BLK_TRACE_EVENTS, sizeof(*bt->ev), GFP_KERNEL);
	if (!bt || !bt->ev || !t) {
		pr_warn("blktrace: %s: out of memory, not traced\n", disk->disk_name);
		if (bt)
			kfree(bt->ev);
		kfree(bt);
		kfree(t);
		return NULL;
	}
	spin_lock_init(&bt->lock);
	mutex_init(&bt->read_lock);
	bt->size = BLK_TRACE_EVENTS;
	bt->dev = MKDEV(disk->major, disk->first_minor);
	bt->start_ns = ktime_get_ns();
	strlcpy(bt->name, disk->disk_name, sizeof(bt->name));
	t->q = disk->queue;
	t->bt = bt;
	t->stopped = bt;
	list_add_tail(&t->list, &traced_disks);
	return t;
}

/* A fresh trace in t's ring: no events, none read, none dropped (an
 * event of an old trace may still be being added: it is simply counted). */
static void traced_reset(struct traced *t)
{
	struct blk_trace *bt = t->bt;
	unsigned long flags;

	mutex_lock(&bt->read_lock);
	spin_lock_irqsave(&bt->lock, flags);
	bt->head = bt->shown = bt->consumed = bt->dropped = 0;
	bt->start_ns = ktime_get_ns();
	spin_unlock_irqrestore(&bt->lock, flags);
	mutex_unlock(&bt->read_lock);
}

/* Record from now on (t was stopped). */
static void traced_run(struct gendisk *disk, struct traced *t)
{
	t->stopped = NULL;
	WRITE_ONCE(disk->queue->blk_trace, t->bt);
	pr_info("blktrace: tracing %s\n", disk->disk_name);
}

int blk_trace_start(struct gendisk *disk)
{
	struct traced *t;
	int err = 0;

	mutex_lock(&traced_lock);
	if (!disk->queue->blk_trace) {
		t = traced_get(disk);
		if (t) {
			traced_reset(t);
			traced_run(disk, t);
		} else {
			err = -ENOMEM;
		}
	}
	mutex_unlock(&traced_lock);
	return err;
}

/* Stop recording t (under traced_lock). */
static void traced_stop(struct gendisk *disk, struct traced *t)
{
	t->stopped = t->bt;
	WRITE_ONCE(t->q->blk_trace, NULL);
	pr_info("blktrace: stopped tracing %s\n", disk->disk_name);
}

/*
 * Stop recording.  The ring stays readable (show=blktrace) until the next
 * start; an event being recorded right now by kblockd or an interrupt
 * still finds it.
 */
void blk_trace_stop(struct gendisk *disk)
{
	struct traced *t;

	mutex_lock(&traced_lock);
	list_for_each_entry(t, &traced_disks, list)
		if (t->q == disk->queue && t->q->blk_trace)
			traced_stop(disk, t);
	mutex_unlock(&traced_lock);
}

/* --- the BLKTRACE* ioctls (Linux's blk_trace_ioctl) ------------------------------ */

/* struct blk_user_trace_setup, of Linux's include/uapi/linux/blktrace_api.h */
struct blk_user_trace_setup {
	char name[32];          /* out: the name of the debugfs directory */
	u16 act_mask;
	u32 buf_size;
	u32 buf_nr;
	u64 start_lba;
	u64 end_lba;
	u32 pid;
};

/* _IOWR(0x12, 115, struct blk_user_trace_setup) and _IO(0x12, 116..118) */
#define BLKTRACESETUP     0xc0481273u
#define BLKTRACESTART     0x1274u
#define BLKTRACESTOP      0x1275u
#define BLKTRACETEARDOWN  0x1276u
_Static_assert(sizeof(struct blk_user_trace_setup) == 72, "Linux's layout: 72 bytes");

/*
 * Set up, start, stop and tear down the trace blktrace(8) reads from
 * debugfs (fs/debugfs.c): as Linux, SETUP on a disk already set up (or
 * traced since boot by blktrace=) is EBUSY, START of a running or STOP of
 * a stopped trace EINVAL, and anything on a disk never set up EINVAL.
 * Spindle's ring is a fixed size: buf_size and buf_nr are not used, and
 * every event is recorded (act_mask, start_lba/end_lba and pid are not
 * filters here).  On a partition the whole disk is traced, under its name.
 * Returns -ENOTTY for any other command.
 */
int blk_trace_ioctl(struct block_device *bdev, unsigned int cmd, void __user *arg)
{
	struct gendisk *disk = bdev->bd_disk;
	struct blk_user_trace_setup buts;
	struct traced *t = NULL, *it;
	int err = 0;

	if (cmd == BLKTRACESETUP && copy_from_user(&buts, arg, sizeof(buts)))
		return -EFAULT;
	if (cmd != BLKTRACESETUP && cmd != BLKTRACESTART && cmd != BLKTRACESTOP &&
	    cmd != BLKTRACETEARDOWN)
		return -ENOTTY;
	mutex_lock(&traced_lock);
	list_for_each_entry(it, &traced_disks, list)
		if (it->q == disk->queue)
			t = it;
	switch (cmd) {
	case BLKTRACESETUP:
		if (disk->queue->blk_trace || (t && t->setup)) {
			err = -EBUSY;
			break;
		}
		t = traced_get(disk);
		if (!t) {
			err = -ENOMEM;
			break;
		}
		traced_reset(t);
		t->setup = true;
		strlcpy(buts.name, disk->disk_name, sizeof(buts.name));
		if (copy_to_user(arg, &buts, sizeof(buts))) {
			t->setup = false;
			err = -EFAULT;
		}
		break;
	case BLKTRACESTART:
		if (!t || !t->setup || !t->stopped)
			err = -EINVAL;
		else
			traced_run(disk, t);
		break;
	case BLKTRACESTOP:
		if (!t || !t->setup || t->stopped)
			err = -EINVAL;
		else
			traced_stop(disk, t);
		break;
	case BLKTRACETEARDOWN:
		if (!t || !t->setup) {
			err = -EINVAL;
			break;
		}
		if (!t->stopped)
			traced_stop(disk, t);
		t->setup = false;       /* the ring stays: sysfs's trace0 still shows it */
		break;
	}
	mutex_unlock(&traced_lock);
	return err;
}

/* The ring of the disk called name if BLKTRACESETUP set it up, else NULL
 * (debugfs's block/<name>/). */
struct blk_trace *blk_trace_lookup(const char *name)
{
	struct blk_trace *bt = NULL;
	struct traced *t;

	mutex_lock(&traced_lock);
	list_for_each_entry(t, &traced_disks, list)
		if (t->setup && strcmp(t->bt->name, name) == 0)
			bt = t->bt;
	mutex_unlock(&traced_lock);
	return bt;
}

/* The name of the n-th set-up disk into name[32]; false past the last. */
bool blk_trace_nth_name(unsigned int n, char *name)
{
	struct traced *t;
	bool found = false;

	mutex_lock(&traced_lock);
	list_for_each_entry(t, &traced_disks, list)
		if (t->setup && n-- == 0) {
			strlcpy(name, t->bt->name, 32);
			found = true;
			break;
		}
	mutex_unlock(&traced_lock);
	return found;
}

struct blk_trace *blk_trace_ring(struct request_queue *q)
{
	struct blk_trace *bt = READ_ONCE(q->blk_trace);
	struct traced *t;

	if (bt)
		return bt;              /* rings are never freed */
	mutex_lock(&traced_lock);
	list_for_each_entry(t, &traced_disks, list)
		if (t->q == q) {
			bt = t->bt;
			break;
		}
	mutex_unlock(&traced_lock);
	return bt;
}

void blk_trace_setup_disk(struct gendisk *disk)
{
	if (name_listed(blktrace_disks, disk->disk_name))
		blk_trace_start(disk);
}

unsigned int blk_trace_head(struct blk_trace *bt)
{
	unsigned long flags;
	unsigned int head;

	spin_lock_irqsave(&bt->lock, flags);
	head = bt->head;
	spin_unlock_irqrestore(&bt->lock, flags);
	return head;
}

/* A new event slot in q's ring, filled with the common fields; or NULL. */
static void add_event(struct request_queue *q, char action, u32 opf, u64 sector,
		      u32 bytes, int error, u64 extra, u32 from_dev, bool implicit)
{
	struct blk_trace *bt = q ? READ_ONCE(q->blk_trace) : NULL;
	struct blk_trace_event *e;
	unsigned long flags;

	if (!bt)
		return;
	spin_lock_irqsave(&bt->lock, flags);
	e = &bt->ev[bt->head++ % bt->size];
	e->time_ns = ktime_get_ns() - bt->start_ns;
	e->action = action;
	e->opf = opf;
	e->sector = sector;
	e->bytes = bytes;
	e->error = error;
	e->extra = extra;
	e->dev = bt->dev;
	e->from_dev = from_dev;
	e->implicit = implicit;
	e->pid = current ? current->pid : 0;
	strlcpy(e->comm, current ? current->comm : "?", sizeof(e->comm));
	spin_unlock_irqrestore(&bt->lock, flags);
}

void __blk_add_trace_bio(struct request_queue *q, struct bio *bio, char action, int error)
{
	add_event(q, action, bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size,
		  error, 0, 0, false);
}

void __blk_add_trace_rq(struct request *rq, char action, int error)
{
	add_event(rq->q, action, rq->cmd_flags, blk_rq_pos(rq), blk_rq_bytes(rq), error, 0, 0,
		  false);
}

void __blk_add_trace_split(struct request_queue *q, struct bio *bio, u64 split_sector)
{
	add_event(q, 'X', bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size, 0,
		  split_sector, 0, false);
}

void __blk_add_trace_remap(struct request_queue *q, struct bio *bio, u32 from_dev, u64 from_sector)
{
	add_event(q, 'A', bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size, 0,
		  from_sector, from_dev, false);
}

void __blk_add_trace_plug(struct request_queue *q)
{
	add_event(q, 'P', 0, 0, 0, 0, 0, 0, false);
}

void __blk_add_trace_unplug(struct request_queue *q, unsigned int depth, bool from_schedule)
{
	add_event(q, 'U', 0, 0, 0, 0, depth, 0, from_schedule);
}

void blk_fill_rwbs(char *rwbs, u32 opf, u32 bytes)
{
	int i = 0;
	u32 op = opf & REQ_OP_MASK;

	if (opf & REQ_PREFLUSH)
		rwbs[i++] = 'F';
	if (op == REQ_OP_FLUSH) {
		if (!(opf & REQ_PREFLUSH))
			rwbs[i++] = 'F';
		rwbs[i++] = 'N';
	} else if (op == REQ_OP_DISCARD) {
		rwbs[i++] = 'D';
	} else if (op == REQ_OP_WRITE_ZEROES) {
		rwbs[i++] = 'N';                /* no data moves, as Linux's */
	} else if (op == REQ_OP_WRITE) {
		rwbs[i++] = bytes ? 'W' : 'N';
	} else {
		rwbs[i++] = 'R';
	}
	if (opf & REQ_FUA)
		rwbs[i++] = 'F';
	if (opf & REQ_SYNC)
		rwbs[i++] = 'S';
	rwbs[i] = '\0';
}

int blk_trace_format(const struct blk_trace *bt, const struct blk_trace_event *e,
		     u64 seq, char *buf, size_t size)
{
	char rwbs[8], act[3] = { e->action, '\0', '\0' };
	u64 secs = e->time_ns / NSEC_PER_SEC, ns = e->time_ns % NSEC_PER_SEC;
	unsigned long long sector = e->sector, sectors = e->bytes >> SECTOR_SHIFT;
	int n;

	(void)bt;
	if (e->action == 'P' || e->action == 'U')
		strlcpy(rwbs, "N", sizeof(rwbs));
	else
		blk_fill_rwbs(rwbs, e->opf, e->bytes);
	if (e->action == 'U' && e->implicit)
		act[1] = 'T';
	/* blkparse's "%D %2c %8s %5T.%9t %5p %2a %3d " */
	n = scnprintf(buf, size, "%3u,%-3u %2d %8llu %5llu.%09llu %5d %2s %3s ",
		      MAJOR(e->dev), MINOR(e->dev), 0, (unsigned long long)seq,
		      (unsigned long long)secs, (unsigned long long)ns, e->pid, act, rwbs);
	switch (e->action) {
	case 'P':
		n += scnprintf(buf + n, size - n, "[%s]", e->comm);
		break;
	case 'U':
		n += scnprintf(buf + n, size - n, "[%s] %llu", e->comm, (unsigned long long)e->extra);
		break;
	case 'X':
		n += scnprintf(buf + n, size - n, "%llu / %llu [%s]", sector,
			       (unsigned long long)e->extra, e->comm);
		break;
	case 'A':
		n += scnprintf(buf + n, size - n, "%llu + %llu <- (%u,%u) %llu", sector, sectors,
			       MAJOR(e->from_dev), MINOR(e->from_dev), (unsigned long long)e->extra);
		break;
	case 'C':
		if (sectors)
			n += scnprintf(buf + n, size - n, "%llu + %llu [%d]", sector, sectors, e->error);
		else
			n += scnprintf(buf + n, size - n, "[%d]", e->error);
		break;
	default:
		if (sectors)
			n += scnprintf(buf + n, size - n, "%llu + %llu [%s]", sector, sectors, e->comm);
		else
			n += scnprintf(buf + n, size - n, "[%s]", e->comm);
		break;
	}
	return n;
}

/* --- Linux's binary format (Linux's include/uapi/linux/blktrace_api.h) --------------- */

#define BLK_IO_TRACE_MAGIC      0x65617400u
#define BLK_IO_TRACE_VERSION    0x07u

/* categories, in the action's upper 16 bits */
enum {
	BLK_TC_READ = 1 << 0, BLK_TC_WRITE = 1 << 1, BLK_TC_FLUSH = 1 << 2,
	BLK_TC_SYNC = 1 << 3, BLK_TC_QUEUE = 1 << 4, BLK_TC_REQUEUE = 1 << 5,
	BLK_TC_ISSUE = 1 << 6, BLK_TC_COMPLETE = 1 << 7, BLK_TC_NOTIFY = 1 << 10,
	BLK_TC_DISCARD = 1 << 13, BLK_TC_FUA = 1 << 15,
};
#define BLK_TC_ACT(c)           ((u32)(c) << 16)

/* actions, in the lower 16 */
enum {
	__BLK_TA_QUEUE = 1, __BLK_TA_BACKMERGE, __BLK_TA_FRONTMERGE, __BLK_TA_GETRQ,
	__BLK_TA_SLEEPRQ, __BLK_TA_REQUEUE, __BLK_TA_ISSUE, __BLK_TA_COMPLETE,
	__BLK_TA_PLUG, __BLK_TA_UNPLUG_IO, __BLK_TA_UNPLUG_TIMER, __BLK_TA_INSERT,
	__BLK_TA_SPLIT, __BLK_TA_BOUNCE, __BLK_TA_REMAP,
};
#define __BLK_TN_PROCESS        0       /* a note: pid -> name */

struct blk_io_trace {
	u32 magic;              /* BLK_IO_TRACE_MAGIC | version */
	u32 sequence;
	u64 time;               /* ns */
	u64 sector;
	u32 bytes;
	u32 action;             /* category bits << 16 | action */
	u32 pid;
	u32 device;             /* the kernel's dev_t: major << 20 | minor */
	u32 cpu;
	u16 error;
	u16 pdu_len;            /* payload bytes after the record */
} __packed;

struct blk_io_trace_remap {     /* A's payload; big-endian, as Linux's */
	u32 device_from;
	u32 device_to;
	u64 sector_from;
} __packed;

/* Spindle's event letter -> Linux's action with its category. */
static u32 blk_trace_action(const struct blk_trace_event *e)
{
	u32 op = e->opf & REQ_OP_MASK, what;

	switch (e->action) {
	case 'Q': what = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'M': what = __BLK_TA_BACKMERGE | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'F': what = __BLK_TA_FRONTMERGE | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'G': what = __BLK_TA_GETRQ | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'S': what = __BLK_TA_SLEEPRQ | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'R': what = __BLK_TA_REQUEUE | BLK_TC_ACT(BLK_TC_REQUEUE); break;
	case 'D': what = __BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_ISSUE); break;
	case 'C': what = __BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_COMPLETE); break;
	case 'I': what = __BLK_TA_INSERT | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'X': what = __BLK_TA_SPLIT; break;
	case 'A': what = __BLK_TA_REMAP | BLK_TC_ACT(BLK_TC_QUEUE); break;
	case 'P': return __BLK_TA_PLUG | BLK_TC_ACT(BLK_TC_QUEUE);
	case 'U': return (e->implicit ? __BLK_TA_UNPLUG_TIMER : __BLK_TA_UNPLUG_IO) |
			 BLK_TC_ACT(BLK_TC_QUEUE);
	default: return 0;
	}
	/* the request's direction and flags, as Linux's __blk_add_trace */
	what |= BLK_TC_ACT(op_is_write(op) ? BLK_TC_WRITE : BLK_TC_READ);
	if (e->opf & REQ_SYNC)
		what |= BLK_TC_ACT(BLK_TC_SYNC);
	if (e->opf & REQ_PREFLUSH || op == REQ_OP_FLUSH)
		what |= BLK_TC_ACT(BLK_TC_FLUSH);
	if (e->opf & REQ_FUA)
		what |= BLK_TC_ACT(BLK_TC_FUA);
	if (op == REQ_OP_DISCARD)
		what |= BLK_TC_ACT(BLK_TC_DISCARD);
	return what;
}

/* One record and its payload at buf; the bytes it took, 0 if no room. */
static size_t put_record(void *buf, size_t room, const struct blk_io_trace *t,
			 const void *pdu)
{
	size_t n = sizeof(*t) + t->pdu_len;

	if (n > room)
		return 0;
	memcpy(buf, t, sizeof(*t));
	memcpy((char *)buf + sizeof(*t), pdu, t->pdu_len);
	return n;
}

/*
 * Events [first, head) of bt as records in buf; *next is the first event
 * that did not fit (head if all did).  Returns the bytes used.
 */
static size_t blk_trace_records(struct blk_trace *bt, unsigned int first, unsigned int head,
				void *buf, size_t size, unsigned int *next)
{
	int named[64];                  /* pids whose name was noted */
	unsigned int nnamed = 0, i;
	size_t used = 0;

	for (i = first; i != head; i++) {
		const struct blk_trace_event *e = &bt->ev[i % bt->size];
		struct blk_io_trace t = {
			.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
			.sequence = i + 1, .time = e->time_ns, .sector = e->sector,
			.bytes = e->bytes, .action = blk_trace_action(e), .pid = (u32)e->pid,
			/* -errno in 16 bits, as Linux stores it (blkparse shows -5 as 65531) */
			.device = e->dev, .error = (u16)e->error,
		};
		union {
			u64 be64;
			struct blk_io_trace_remap remap;
		} pdu;
		bool known = false;
		size_t n;

		for (unsigned int k = 0; k < nnamed; k++)
			known |= named[k] == e->pid;
		if (!known) {
			/* blkparse learns a pid's name from a note before its events */
			struct blk_io_trace note = {
				.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
				.time = e->time_ns, .pid = (u32)e->pid, .device = e->dev,
				.action = __BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY),
				.pdu_len = sizeof(e->comm),     /* NUL-padded, as Linux sends it */
			};

			n = put_record((char *)buf + used, size - used, &note, e->comm);
			if (!n)
				break;
			used += n;
			if (nnamed < ARRAY_SIZE(named))
				named[nnamed++] = e->pid;
		}
		if (e->action == 'U' || e->action == 'X') {
			/* U: the number of requests; X: where the second part starts */
			pdu.be64 = __builtin_bswap64(e->extra);
			t.pdu_len = sizeof(pdu.be64);
		} else if (e->action == 'A') {
			pdu.remap.device_from = __builtin_bswap32(e->from_dev);
			pdu.remap.device_to = __builtin_bswap32(e->dev);
			pdu.remap.sector_from = __builtin_bswap64(e->extra);
			t.pdu_len = sizeof(pdu.remap);
		}
		n = put_record((char *)buf + used, size - used, &t, &pdu);
		if (!n)
			break;
		used += n;
	}
	*next = i;
	return used;
}

size_t blk_trace_binary(struct blk_trace *bt, void *buf, size_t size)
{
	unsigned int head, next;

	if (!bt)
		return 0;
	head = blk_trace_head(bt);
	return blk_trace_records(bt, head > bt->size ? head - bt->size : 0, head, buf, size, &next);
}

/*
 * The consuming read of debugfs's block/<disk>/trace0 (Linux's relay
 * channel): the records of the events no reader has had yet, as many as
 * fit in buf.  Events the ring overwrote before anyone read them are
 * counted in dropped.  Readers take turns under read_lock (blktrace has
 * one per CPU file, but trace0 is the only one with records).
 */
size_t blk_trace_consume(struct blk_trace *bt, void *buf, size_t size)
{
	unsigned int head, first, next;
	size_t used;

	mutex_lock(&bt->read_lock);
	head = blk_trace_head(bt);
	first = bt->consumed;
	if (head - first > bt->size) {
		bt->dropped += head - first - bt->size;
		first = head - bt->size;
	}
	used = blk_trace_records(bt, first, head, buf, size, &next);
	bt->consumed = next;
	mutex_unlock(&bt->read_lock);
	return used;
}

bool blk_trace_unread(struct blk_trace *bt)
{
	return blk_trace_head(bt) != READ_ONCE(bt->consumed);
}


void blk_trace_print_all(void)
{
	struct traced *t;
	char line[160];

	mutex_lock(&traced_lock);
	list_for_each_entry(t, &traced_disks, list) {
		struct blk_trace *bt = t->bt;
		unsigned int head, first;

		if (!bt)
			continue;
		head = blk_trace_head(bt);
		first = bt->shown;

		printk("==> /sys/block/%s/trace <==\n", bt->name);
		if (head - first > bt->size) {
			printk("(%u events lost: the ring holds %u)\n", head - first - bt->size, bt->size);
			first = head - bt->size;
		}
		for (unsigned int i = first; i != head; i++) {
			blk_trace_format(bt, &bt->ev[i % bt->size], (u64)i + 1, line, sizeof(line));
			printk("%s\n", line);
		}
		bt->shown = head;
	}
	mutex_unlock(&traced_lock);
}
