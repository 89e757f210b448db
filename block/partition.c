// SPDX-License-Identifier: MIT
/*
 * partition.c - reading a new disk's partition table and registering what
 * it finds (the parsers themselves are in block/partitions/).
 *
 * The parsers read sectors through a callback; here the callback builds a
 * bio for the whole disk and waits for it, so partition scanning uses the
 * same path as any other I/O (and needs task context: it sleeps).
 */
#include <spindle/blkdev.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/err.h>
#include "blk.h"
#include "partitions/check.h"

/* Read count sectors at sector into buf, a page at a time. */
static int part_read(void *ctx, sector_t sector, unsigned int count, void *buf)
{
	struct block_device *whole = ctx;
	struct page *page = alloc_page(GFP_KERNEL);
	int err = 0;

	if (!page)
		return -ENOMEM;
	while (count && !err) {
		unsigned int n = min(count, (unsigned int)(PAGE_SIZE >> SECTOR_SHIFT));
		struct bio *bio = bio_alloc(GFP_NOIO, 1);

		bio_set_dev(bio, whole);
		bio->bi_iter.bi_sector = sector;
		bio->bi_opf = REQ_OP_READ;
		bio_add_page(bio, page, n << SECTOR_SHIFT, 0);
		err = submit_bio_wait(bio);
		bio_put(bio);
		if (!err)
			memcpy(buf, page_address(page), n << SECTOR_SHIFT);
		buf = (char *)buf + (n << SECTOR_SHIFT);
		sector += n;
		count -= n;
	}
	__free_page(page);
	return err;
}

/*
 * Read disk's partition table into a new state (the caller kfree()s it):
 * nothing is changed yet, so a rescan that cannot read the table -- no
 * memory, an I/O error -- leaves the partitions there were.  An ERR_PTR
 * on failure, already logged.  May sleep.
 */
struct parsed_partitions *blk_read_partitions(struct gendisk *disk)
{
	struct parsed_partitions *state = kzalloc(sizeof(*state), GFP_KERNEL);
	int found;

	if (!state) {
		pr_warn("%s: no memory to read the partition table\n", disk->disk_name);
		return ERR_PTR(-ENOMEM);
	}
	state->name = disk->disk_name;
	state->capacity = disk->capacity;
	state->read = part_read;
	state->ctx = disk->part[0];
	found = check_partition(state);
	if (found < 0) {
		pr_warn("%s: unable to read partition table (%d)\n", disk->disk_name, found);
		kfree(state);
		return ERR_PTR(found);
	}
	if (found == 0)         /* no table: nothing a parser left counts */
		memset(state->parts, 0, sizeof(state->parts));
	return state;
}

/* Register a block_device for each partition blk_read_partitions() found. */
void blk_add_partitions(struct gendisk *disk, const struct parsed_partitions *state)
{
	for (int p = 1; p < DISK_MAX_PARTS && p < disk->minors; p++) {
		const struct parsed_partition *pp = &state->parts[p];
		sector_t size = pp->size;

		if (!pp->present)
			continue;
		/* The parsers already refused entries beyond the disk; this is
		 * the last line of defence for the remap in blk-core.c. */
		if (pp->from >= disk->capacity || pp->size > disk->capacity - pp->from) {
			pr_warn("%s: partition %d beyond the end of the disk, ignored\n",
				disk->disk_name, p);
			continue;
		}
		/* As Linux: the extended container is registered with 2 sectors
		 * (1 KiB in /proc/partitions), so nothing writes over the
		 * logical partitions through it. */
		if (msdos_is_extended(pp->sys_ind))
			size = min(size, (sector_t)MSDOS_EXTENDED_LINUX_SIZE);
		if (!add_part(disk, p, pp->from, size))
			pr_warn("%s: no memory for partition %d\n", disk->disk_name, p);
	}
}

void blk_scan_partitions(struct gendisk *disk)
{
	struct parsed_partitions *state = blk_read_partitions(disk);

	if (IS_ERR(state))
		return;
	blk_add_partitions(disk, state);
	kfree(state);
}
