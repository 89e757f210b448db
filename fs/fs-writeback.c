// SPDX-License-Identifier: MIT
/*
 * fs-writeback.c - the flusher threads and dirty-memory throttling:
 * Linux's fs/fs-writeback.c, mm/backing-dev.c and mm/page-writeback.c,
 * folded into one small file.  include/spindle/writeback.h explains the
 * design; this file is its mechanics.
 *
 * Where it sits: the page cache (fs/filemap.c) puts a mapping on its
 * disk's b_dirty list when its first page gets dirty; the disk's flusher
 * thread takes mappings from there and calls their writepages (which
 * plugs, fs/mpage.c); sync(2) and the throttled writer use the same
 * functions from their own task.
 *
 * The flusher's loop, once per wake-up:
 *
 *     now = clock
 *     for each mapping on b_dirty, once (the head goes to the tail):
 *         if its first dirty page is older than dirty_expire_centisecs
 *            or background writeback is wanted (dirty > background limit):
 *             write back a batch of up to 4 MiB (one plug) and wait
 *     sleep dirty_writeback_centisecs (or until woken)
 *
 * A mapping still dirty after its batch waits for the next pass, behind
 * the others: one big writer does not starve the disk's other files.
 *
 * Locking: the bdi list is under bdi_lock (a mutex: creating a bdi
 * starts a thread); b_dirty and the mappings' dirty state are under
 * page_cache_lock.  A mapping stays on b_dirty while it has a dirty page,
 * even while it is being written, so sync(2) always finds it; the pass
 * holds its inode (igrab) so that it cannot be freed underneath.
 */
#include <spindle/writeback.h>
#include <spindle/pagemap.h>
#include <spindle/blkdev.h>
#include <spindle/sched.h>
#include <spindle/time.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "internal.h"

#define NSEC_PER_CENTISEC       10000000ull
#define WB_KICK_PAGES           1024    /* pages a pass writes per mapping */
#define DIRTY_RATELIMIT_PAGES   32      /* a writer checks the limits this often */

unsigned int vm_dirty_ratio = 20;
unsigned int dirty_background_ratio = 10;
unsigned int dirty_expire_interval = 3000;
unsigned int dirty_writeback_interval = 500;

static LIST_HEAD(bdi_list);
static DEFINE_MUTEX(bdi_lock);

unsigned int *vm_sysctl_find(const char *name)
{
	static const struct {
		const char *name;
		unsigned int *val;
	} knobs[] = {
		{ "dirty_ratio", &vm_dirty_ratio },
		{ "dirty_background_ratio", &dirty_background_ratio },
		{ "dirty_expire_centisecs", &dirty_expire_interval },
		{ "dirty_writeback_centisecs", &dirty_writeback_interval },
	};

	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++)
		if (!strcmp(knobs[i].name, name))
			return knobs[i].val;
	return NULL;
}

/*
 * Linux's global_dirty_limits: "dirtyable" memory is what is free plus
 * what the page cache holds (it could be reclaimed or written); the
 * ratios are percentages of that.
 */
void global_dirty_limits(unsigned long *background, unsigned long *dirty)
{
	struct page_cache_stats st;
	unsigned long avail;

	page_cache_stats(&st);
	avail = nr_free_pages() + st.nr_pages;
	*dirty = avail * READ_ONCE(vm_dirty_ratio) / 100;
	*background = avail * READ_ONCE(dirty_background_ratio) / 100;
	if (*background >= *dirty)
		*background = *dirty / 2;
}

static bool over_bground_thresh(void)
{
	unsigned long bg, thresh;
	struct page_cache_stats st;

	global_dirty_limits(&bg, &thresh);
	page_cache_stats(&st);
	return st.nr_dirty > bg;
}

/* --- the flusher -------------------------------------------------------------- */

/*
 * The next mapping of a pass over b_dirty, its inode held (igrab): the
 * head goes to the tail, so a pass of n steps sees each mapping once and
 * every mapping stays on b_dirty, where sync(2) finds it even while the
 * flusher writes it.  NULL when the list is empty.
 */
static struct address_space *wb_rotate(struct backing_dev_info *bdi)
{
	struct address_space *mapping = NULL;
	unsigned long flags;

	spin_lock_irqsave(&page_cache_lock, flags);
	if (!list_empty(&bdi->b_dirty)) {
		mapping = list_first_entry(&bdi->b_dirty, struct address_space, i_wb_list);
		list_move_tail(&mapping->i_wb_list, &bdi->b_dirty);
		if (!igrab(mapping->host))
			mapping = NULL;         /* being freed: its pages go with it */
	}
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return mapping;
}

static unsigned long wb_nr_dirty_mappings(struct backing_dev_info *bdi)
{
	struct address_space *mapping;
	unsigned long flags, n = 0;

	spin_lock_irqsave(&page_cache_lock, flags);
	list_for_each_entry(mapping, &bdi->b_dirty, i_wb_list)
		n++;
	spin_unlock_irqrestore(&page_cache_lock, flags);
	return n;
}

unsigned long wb_do_writeback(struct backing_dev_info *bdi, u64 now_ns, bool all)
{
	u64 expire = (u64)READ_ONCE(dirty_expire_interval) * NSEC_PER_CENTISEC;
	unsigned long written = 0;

	for (unsigned long n = wb_nr_dirty_mappings(bdi); n; n--) {
		struct address_space *mapping = wb_rotate(bdi);
		struct writeback_control wbc = {
			.sync_mode = WB_SYNC_NONE,
			.nr_to_write = WB_KICK_PAGES,
			.range_end = MAX_LFS_FILESIZE,
		};

		if (!mapping)
			continue;
		if (all || now_ns - READ_ONCE(mapping->dirtied_when) >= expire ||
		    over_bground_thresh()) {
			filemap_fdatawrite_wbc(mapping, &wbc);
			filemap_fdatawait(mapping);
			written += WB_KICK_PAGES - wbc.nr_to_write;
		}
		iput(mapping->host);
	}
	bdi->nr_written += written;
	return written;
}

static int bdi_writeback_thread(void *data)
{
	struct backing_dev_info *bdi = data;

	while (!kthread_should_stop()) {
		u64 period = msecs_to_jiffies((u64)READ_ONCE(dirty_writeback_interval) * 10);

		wb_do_writeback(bdi, ktime_get_ns(), false);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!READ_ONCE(bdi->wakeup))
			schedule_timeout(period ? (long)period : MAX_SCHEDULE_TIMEOUT);
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(bdi->wakeup, false);
	}
	return 0;
}

static void bdi_wakeup(struct backing_dev_info *bdi)
{
	WRITE_ONCE(bdi->wakeup, true);
	if (bdi->task)
		wake_up_process(bdi->task);
}

struct backing_dev_info *bdi_get(struct gendisk *disk)
{
	struct backing_dev_info *bdi;

	mutex_lock(&bdi_lock);
	list_for_each_entry(bdi, &bdi_list, bdi_list)
		if (bdi->disk == disk)
			goto out;
	bdi = kzalloc(sizeof(*bdi), GFP_KERNEL);
	if (!bdi)
		goto out;
	bdi->disk = disk;
	snprintf(bdi->name, sizeof(bdi->name), "%d:%d", disk->major, disk->first_minor);
	INIT_LIST_HEAD(&bdi->b_dirty);
	bdi->ra_pages = VM_READ_AHEAD_KB / (PAGE_SIZE / 1024);
	/* Linux 2.6.32's name for it; without a thread (no memory), sync,
	 * fsync, close and the throttled writers still write everything */
	bdi->task = kthread_create(bdi_writeback_thread, bdi, "flush-%s", bdi->name);
	if (bdi->task)
		wake_up_process(bdi->task);
	list_add_tail(&bdi->bdi_list, &bdi_list);
out:
	mutex_unlock(&bdi_lock);
	return bdi;
}

void __mark_mapping_dirty(struct address_space *mapping)
{
	if (mapping->bdi && list_empty(&mapping->i_wb_list))
		list_add_tail(&mapping->i_wb_list, &mapping->bdi->b_dirty);
}

/* --- throttling the writer ------------------------------------------------------ */

/*
 * Over the background limit: wake the flusher.  Over dirty_ratio: the
 * writer pays, writing a batch of its own mapping and waiting, until
 * dirty memory is under the limit or its mapping has nothing left to
 * write -- so one fast writer cannot fill memory with dirty pages that
 * reclaim cannot free.  Checked every DIRTY_RATELIMIT_PAGES pages, as
 * Linux's ratelimit does, not on every page.
 */
void balance_dirty_pages_ratelimited(struct address_space *mapping)
{
	unsigned long bg, thresh;
	struct page_cache_stats st;

	static unsigned int nr_dirtied;         /* racy on purpose: a hint */

	if (++nr_dirtied < DIRTY_RATELIMIT_PAGES)
		return;
	nr_dirtied = 0;
	for (;;) {
		struct writeback_control wbc = {
			.sync_mode = WB_SYNC_NONE,
			.nr_to_write = DIRTY_RATELIMIT_PAGES * 8,
			.range_end = MAX_LFS_FILESIZE,
		};

		global_dirty_limits(&bg, &thresh);
		page_cache_stats(&st);
		if (st.nr_dirty > bg && mapping->bdi)
			bdi_wakeup(mapping->bdi);
		if (st.nr_dirty + st.nr_writeback <= thresh || !mapping->nrdirty)
			break;
		filemap_fdatawrite_wbc(mapping, &wbc);
		filemap_fdatawait(mapping);
	}
}

/* --- sync ------------------------------------------------------------------------- */

int writeback_and_wait_all(struct super_block *sb)
{
	struct backing_dev_info *bdi;
	int err = 0;

	mutex_lock(&bdi_lock);
	list_for_each_entry(bdi, &bdi_list, bdi_list) {
		bool wrote = false;

		for (unsigned long n = wb_nr_dirty_mappings(bdi); n; n--) {
			struct address_space *mapping = wb_rotate(bdi);
			errseq_t before;
			int e;

			if (!mapping)
				continue;
			if (!sb || mapping->host->i_sb == sb) {
				before = READ_ONCE(mapping->wb_err);
				wrote = true;
				filemap_write_and_wait(mapping);
				e = errseq_check(&mapping->wb_err, before);
				if (e && !err)
					err = e;
			}
			iput(mapping->host);
		}
		/* syncfs: the file system's data is written; now make the
		 * disk keep it (sync(2) flushes every device itself) */
		if (sb && wrote && bdi->disk->part[0]) {
			int e = blkdev_issue_flush(bdi->disk->part[0]);

			if (e && !err)
				err = e;
		}
	}
	mutex_unlock(&bdi_lock);
	return err;
}
