/* SPDX-License-Identifier: MIT */
/*
 * writeback.h - getting dirty pages back to the disk: a flusher thread
 * per disk, the dirty-memory limits, and the /proc/sys/vm knobs.
 *
 * Linux's design (bdi_writeback, "per-bdi flusher threads", Jens Axboe,
 * 2.6.32): each disk has a backing_dev_info with a list of its dirty
 * mappings (b_dirty, oldest first) and one kernel thread, "flush-M:m".
 * The thread wakes every dirty_writeback_centisecs and writes each
 * mapping whose first dirty page is older than dirty_expire_centisecs;
 * it also runs at once when a writer pushes dirty memory past
 * dirty_background_ratio.  A writer past dirty_ratio is throttled in
 * balance_dirty_pages_ratelimited(): it writes a batch of its own mapping's pages
 * itself before its write() returns (Linux before 3.2 did exactly this;
 * today it sleeps for a computed pause instead).
 *
 * Every batch goes under one blk_plug, its pages sorted by block
 * (fs/mpage.c), so a sequential buffered write reaches the driver as a
 * few large requests -- plugging's main customer.
 */
#ifndef SPINDLE_WRITEBACK_H
#define SPINDLE_WRITEBACK_H

#include <spindle/fs.h>
#include <spindle/list.h>

struct gendisk;
struct task_struct;

#define VM_READ_AHEAD_KB        128     /* read_ahead_kb's default, as Linux */

struct backing_dev_info {
	struct gendisk *disk;
	char name[16];                  /* "8:0": the disk's dev_t */
	struct list_head b_dirty;       /* its dirty mappings, oldest first */
	struct list_head bdi_list;      /* on the list of every bdi */
	unsigned long ra_pages;         /* read_ahead_kb in pages */
	struct task_struct *task;       /* the flusher; NULL on the host */
	bool wakeup;                    /* work waiting: run now, not at the period */
	unsigned long nr_written;       /* pages written by the flusher */
};

/* The four knobs of /proc/sys/vm, Linux's defaults (percent, centisecs). */
extern unsigned int vm_dirty_ratio;                     /* 20 */
extern unsigned int dirty_background_ratio;             /* 10 */
extern unsigned int dirty_expire_interval;              /* 3000: 30 s */
extern unsigned int dirty_writeback_interval;           /* 500: 5 s */

/* The disk's bdi, made (with its flusher) on first use; NULL: no memory. */
struct backing_dev_info *bdi_get(struct gendisk *disk);
/* Forget disk's bdi (the disk goes away): its mappings must be clean. */
void bdi_put_disk(struct gendisk *disk);
/* A mapping has its first dirty page: onto its bdi's b_dirty.
 * page_cache_lock held. */
void __mark_mapping_dirty(struct address_space *mapping);

/*
 * One pass of the flusher over bdi at time now_ns: a batch (4 MiB, one
 * plug) of each mapping expired by then -- of every one if `all`, or
 * while dirty memory is over the background limit -- waiting for each.
 * Returns pages written.  The thread calls it; so do the host tests,
 * with their own clock.  May sleep.
 */
unsigned long wb_do_writeback(struct backing_dev_info *bdi, u64 now_ns, bool all);
/* A writer dirtied pages of mapping: throttle it if dirty memory is over
 * the limits.  May sleep. */
void balance_dirty_pages_ratelimited(struct address_space *mapping);
/* The thresholds in pages: dirtyable memory times the ratios. */
void global_dirty_limits(unsigned long *background, unsigned long *dirty);

/* Write back and wait for every dirty mapping of the super_block sb
 * (NULL: of every one); the first error.  With sb, each disk written to
 * then gets a cache flush (syncfs). */
int writeback_and_wait_all(struct super_block *sb);

/* /proc/sys/vm/<name>: the knob's address, or NULL. */
unsigned int *vm_sysctl_find(const char *name);

#endif /* SPINDLE_WRITEBACK_H */
