/*
 * blk-trace.c - recording the block layer's events, printing them as
 * blkparse does (see include/spindle/blktrace.h for the events).
 *
 * Each traced queue has a ring of events; recording one takes the ring's
 * place under irqsave (events come from interrupt-free task context and
 * from kblockd, but a driver may complete from an interrupt), copies a few
 * fields and the current task's name, and returns: cheap enough to leave
 * on while measuring.  When the ring is full the oldest events go, and the
 * printout says how many were lost.
 */
#include <spindle/blkdev.h>
#include <spindle/blk-mq.h>
#include <spindle/blktrace.h>
#include <spindle/bio.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/irqflags.h>
#include <spindle/errno.h>

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

static LIST_HEAD(traced_disks);          /* through a small holder */
struct traced {
	struct list_head list;
	struct request_queue *q;
	struct blk_trace *stopped;      /* the ring of a stopped trace, kept */
};

int blk_trace_start(struct gendisk *disk)
{
	struct blk_trace *bt;
	struct traced *t;

	if (disk->queue->blk_trace)
		return 0;
	list_for_each_entry(t, &traced_disks, list)
		if (t->q == disk->queue && t->stopped) {
			/* traced before: a fresh start in the same ring */
			bt = t->stopped;
			t->stopped = NULL;
			bt->head = bt->shown = 0;
			bt->start_ns = ktime_get_ns();
			WRITE_ONCE(disk->queue->blk_trace, bt);
			pr_info("blktrace: tracing %s\n", disk->disk_name);
			return 0;
		}
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
		return -ENOMEM;
	}
	bt->size = BLK_TRACE_EVENTS;
	bt->dev = MKDEV(disk->major, disk->first_minor);
	bt->start_ns = ktime_get_ns();
	strlcpy(bt->name, disk->disk_name, sizeof(bt->name));
	t->q = disk->queue;
	list_add_tail(&t->list, &traced_disks);
	WRITE_ONCE(disk->queue->blk_trace, bt);         /* events from now on */
	pr_info("blktrace: tracing %s\n", disk->disk_name);
	return 0;
}

/*
 * Stop recording.  The ring stays readable (show=blktrace) until the next
 * start; an event being recorded right now by kblockd or an interrupt
 * still finds it.
 */
void blk_trace_stop(struct gendisk *disk)
{
	struct traced *t;

	list_for_each_entry(t, &traced_disks, list)
		if (t->q == disk->queue && t->q->blk_trace) {
			t->stopped = t->q->blk_trace;
			WRITE_ONCE(t->q->blk_trace, NULL);
			pr_info("blktrace: stopped tracing %s\n", disk->disk_name);
		}
}

struct blk_trace *blk_trace_ring(struct request_queue *q)
{
	struct traced *t;

	if (q->blk_trace)
		return q->blk_trace;
	list_for_each_entry(t, &traced_disks, list)
		if (t->q == q)
			return t->stopped;
	return NULL;
}

void blk_trace_setup_disk(struct gendisk *disk)
{
	if (name_listed(blktrace_disks, disk->disk_name))
		blk_trace_start(disk);
}

/* A new event slot in q's ring, filled with the common fields; or NULL. */
static void add_event(struct request_queue *q, char action, u32 opf, u64 sector,
		      u32 bytes, int error, u64 extra, u32 from_dev, bool implicit)
{
	struct blk_trace *bt = q ? q->blk_trace : NULL;
	struct blk_trace_event *e;
	unsigned long flags;

	if (!bt)
		return;
	flags = local_irq_save();
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
	local_irq_restore(flags);
}

void blk_add_trace_bio(struct request_queue *q, struct bio *bio, char action, int error)
{
	add_event(q, action, bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size,
		  error, 0, 0, false);
}

void blk_add_trace_rq(struct request *rq, char action, int error)
{
	add_event(rq->q, action, rq->cmd_flags, blk_rq_pos(rq), blk_rq_bytes(rq), error, 0, 0,
		  false);
}

void blk_add_trace_split(struct request_queue *q, struct bio *bio, u64 split_sector)
{
	add_event(q, 'X', bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size, 0,
		  split_sector, 0, false);
}

void blk_add_trace_remap(struct request_queue *q, struct bio *bio, u32 from_dev, u64 from_sector)
{
	add_event(q, 'A', bio->bi_opf, bio->bi_iter.bi_sector, bio->bi_iter.bi_size, 0,
		  from_sector, from_dev, false);
}

void blk_add_trace_plug(struct request_queue *q)
{
	add_event(q, 'P', 0, 0, 0, 0, 0, 0, false);
}

void blk_add_trace_unplug(struct request_queue *q, unsigned int depth, bool from_schedule)
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

void blk_trace_print_all(void)
{
	struct traced *t;
	char line[160];

	list_for_each_entry(t, &traced_disks, list) {
		struct blk_trace *bt = t->q->blk_trace ? t->q->blk_trace : t->stopped;
		unsigned int head, first;

		if (!bt)
			continue;
		head = READ_ONCE(bt->head);
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
}
