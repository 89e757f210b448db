/* SPDX-License-Identifier: MIT */
/*
 * blk.h - declarations private to block/ (not for drivers or users).
 */
#ifndef BLOCK_BLK_H
#define BLOCK_BLK_H

#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>

/* Can q poll: blk-mq, a poll op, poll queues (checked on every polled
 * bio's way down, so inline) */
static inline bool blk_mq_can_poll(struct request_queue *q)
{
	return q && q->tag_set && q->tag_set->ops->poll &&
	       q->tag_set->map[HCTX_TYPE_POLL].nr_queues;
}

struct request_queue *bio_queue(const struct bio *bio);
/* blk-core.c: an operation's name for the log ("READ", "WRITE", ...) */
const char *blk_op_str(unsigned int op);
int blk_queue_enter(struct request_queue *q, bool nowait);
void blk_queue_exit(struct request_queue *q);
void blk_queue_usage_sync(void);
/* bios inside q's make_request_fn: every CPU's count summed */
long blk_queue_usage(struct request_queue *q);
/* The lab function: order the bios a make_request_fn queued (blk-core.c). */
void blk_sort_pending_bios(struct bio_list *on_stack, struct bio_list *hold,
			   struct request_queue *q);

/* blk-core.c: /proc/diskstats accounting, of bios (bio-based devices) or
 * of requests (request-based ones, blk-mq.c) */
static inline enum stat_group bio_stat_group(const struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_WRITE:      return STAT_WRITE;
	case REQ_OP_WRITE_ZEROES: return STAT_WRITE;   /* as Linux's op_stat_group */
	case REQ_OP_DISCARD:    return STAT_DISCARD;
	case REQ_OP_FLUSH:      return STAT_FLUSH;
	default:                return STAT_READ;
	}
}
void part_account_start(struct block_device *part, enum stat_group g, u64 now);
void part_account_done(struct block_device *part, enum stat_group g,
		       unsigned int sectors, u64 start, bool merged_away);
void blk_account_io_done(struct bio *bio);
/* one more merge of direction rw (0 read, 1 write) on part and its disk */
void part_stat_inc_merges(struct block_device *part, int rw);

/* blk-flush.c: the PREFLUSH / DATA / POSTFLUSH sequence of a request */
struct request;
bool blk_insert_flush(struct request *rq);
void blk_flush_data_done(struct request *rq, blk_status_t error);
int blk_flush_init_queue(struct request_queue *q);

/* blk-mq.c: requests late at jiffies `now` (kblockd's timer, or host
 * tests with a fake clock) */
void blk_mq_check_timeouts(u64 now);
/* blk-mq.c: the queue leaves the timeout scan (blk_cleanup_queue) */
void blk_mq_exit_queue(struct request_queue *q);
/* blk-mq.c: how many queues the timeout scan walks (tests: none leaked) */
unsigned int blk_mq_nr_queues(void);
/* blk-mq.c: kblockd's work for blk_mq_restart_hw_queue (host tests call it) */
void blk_mq_run_restarts(void);
/* blk-mq.c: kblockd's work, callable directly by host tests: end the
 * requests completed on this CPU's list */
void blk_mq_run_completions(void);
/* blk-mq.c: a kblockd bound to each online CPU (boot; host tests) */
void blk_mq_start_kblockd(void);
/* blk-mq.c: send a plug's requests to their queues (blk-plug.c calls it
 * when the plug is flushed: blk_finish_plug, or its task goes to sleep) */
struct blk_plug;
void blk_mq_flush_plug_list(struct blk_plug *plug, bool from_schedule);

/* genhd.c: fault points of alloc_disk() and add_disk() (fail_alloc_disk=,
 * fail_add_disk=), for tests of the drivers' error paths */
struct fault_attr;
extern struct fault_attr fail_alloc_disk, fail_add_disk;
/* genhd.c: gendisks allocated and not yet put (tests: none leaked) */
unsigned long blk_nr_gendisks(void);
/* genhd.c */
struct block_device *add_part(struct gendisk *disk, int partno,
			      sector_t start, sector_t len);
/* partition.c: blk_scan_partitions() (blkdev.h) ... */
/* ... in two steps, so a rescan that cannot read keeps the old ones. */
struct parsed_partitions;
struct parsed_partitions *blk_read_partitions(struct gendisk *disk);
void blk_add_partitions(struct gendisk *disk, const struct parsed_partitions *state);
/* blk-trace.c: set up tracing for disk if blktrace= names it (add_disk) */
void blk_trace_setup_disk(struct gendisk *disk);

#endif /* BLOCK_BLK_H */
