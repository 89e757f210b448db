// SPDX-License-Identifier: MIT
/*
 * brd.c - RAM disks: ram0, ram1, ... (major 1), Linux's brd.
 *
 * The simplest block driver there is: a bio-based driver whose
 * make_request_fn copies each segment to or from pages of RAM and ends the
 * bio at once, in the submitter's context.  No request queue, no
 * interrupt.  It is the bottom of the device stacks the bio-layer labs
 * build, because it can never be the slow part.
 *
 * Storage: one pointer per 4 KiB page of the disk, the page allocated on
 * the first write to it; reading a page never written returns zeroes.
 *
 * Boot options (Linux's module parameters): brd.rd_nr=<disks> (default 0:
 * none unless asked), brd.rd_size=<KiB per disk> (default 4096).
 * Does not sleep in make_request (GFP_NOIO page allocation; a write that
 * cannot get a page ends with BLK_STS_RESOURCE).
 */
#define pr_fmt(fmt) "brd: " fmt
#include <spindle/blkdev.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>

#define RAMDISK_MAJOR   1
#define RD_MAX          16
#define RD_MINORS       1               /* no partitions: as Linux's default */
#define SECTORS_PER_PAGE (PAGE_SIZE >> SECTOR_SHIFT)

static unsigned int rd_nr;
static unsigned long rd_size = 4096;    /* KiB */

struct brd_device {
	struct gendisk *disk;
	struct page **pages;
	unsigned long nr_pages;
};

static int __init brd_rd_nr_setup(const char *val)
{
	return kstrtouint(val, 0, &rd_nr) || rd_nr > RD_MAX ? -EINVAL : 0;
}
__setup("brd.rd_nr=", brd_rd_nr_setup);

static int __init brd_rd_size_setup(const char *val)
{
	unsigned long long kb;

	if (kstrtoull(val, 0, &kb) || kb == 0 || kb % (PAGE_SIZE / 1024))
		return -EINVAL;
	rd_size = kb;
	return 0;
}
__setup("brd.rd_size=", brd_rd_size_setup);

/* Copy one segment (within one disk page) to or from the disk. */
static blk_status_t brd_do_bvec(struct brd_device *brd, struct bio_vec *bv,
				sector_t sector, bool write)
{
	unsigned long idx = sector / SECTORS_PER_PAGE;
	unsigned int off = (sector % SECTORS_PER_PAGE) << SECTOR_SHIFT;
	char *mem = (char *)page_address(bv->bv_page) + bv->bv_offset;

	if (!brd->pages[idx]) {
		if (!write) {
			memset(mem, 0, bv->bv_len);
			return BLK_STS_OK;
		}
		brd->pages[idx] = alloc_page(GFP_NOIO | __GFP_ZERO | __GFP_ATOMIC);
		if (!brd->pages[idx])
			return BLK_STS_RESOURCE;
	}
	if (write)
		memcpy((char *)page_address(brd->pages[idx]) + off, mem, bv->bv_len);
	else
		memcpy(mem, (char *)page_address(brd->pages[idx]) + off, bv->bv_len);
	return BLK_STS_OK;
}

static void brd_make_request(struct request_queue *q, struct bio *bio)
{
	struct brd_device *brd = q->queuedata;
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct bio_vec bv;

	if (bio_op(bio) == REQ_OP_FLUSH || bio_op(bio) == REQ_OP_DISCARD) {
		bio_endio(bio);                 /* RAM has no cache; discard is a hint */
		return;
	}
	bio_for_each_segment(bv, bio, iter) {
		struct bio_vec rest = bv;       /* bv itself drives the loop */

		/* split a segment where it crosses a disk page */
		while (rest.bv_len) {
			unsigned int in_page = PAGE_SIZE - ((sector % SECTORS_PER_PAGE) << SECTOR_SHIFT);
			struct bio_vec part = rest;
			blk_status_t st;

			part.bv_len = min(rest.bv_len, in_page);
			st = brd_do_bvec(brd, &part, sector, bio_is_write(bio));
			if (st) {
				bio->bi_status = st;
				bio_endio(bio);
				return;
			}
			sector += part.bv_len >> SECTOR_SHIFT;
			rest.bv_offset += part.bv_len;
			rest.bv_len -= part.bv_len;
		}
	}
	bio_endio(bio);
}

static int __init brd_alloc(int i)
{
	struct brd_device *brd = kzalloc(sizeof(*brd), GFP_KERNEL);
	struct request_queue *q = NULL;
	int err = -ENOMEM;

	if (!brd)
		return -ENOMEM;
	brd->nr_pages = rd_size / (PAGE_SIZE / 1024);
	brd->pages = kcalloc(brd->nr_pages, sizeof(*brd->pages), GFP_KERNEL);
	if (!brd->pages)
		goto out_free_brd;
	q = blk_alloc_queue(brd_make_request, brd);
	if (!q)
		goto out_free_pages;
	brd->disk = alloc_disk(RD_MINORS);
	if (!brd->disk)
		goto out_free_queue;
	snprintf(brd->disk->disk_name, DISK_NAME_LEN, "ram%d", i);
	brd->disk->major = RAMDISK_MAJOR;
	brd->disk->first_minor = i * RD_MINORS;
	brd->disk->queue = q;
	q->nonrot = true;                       /* RAM */
	brd->disk->private_data = brd;
	set_capacity(brd->disk, (sector_t)rd_size * 2);
	err = add_disk(brd->disk);
	if (err)
		goto out_put_disk;
	return 0;

out_put_disk:
	put_disk(brd->disk);
out_free_queue:
	kfree(q);
out_free_pages:
	kfree(brd->pages);
out_free_brd:
	kfree(brd);
	return err;
}

static int __init brd_init(void)
{
	for (unsigned int i = 0; i < rd_nr; i++) {
		int err = brd_alloc(i);

		if (err) {
			pr_err("ram%u: cannot create (%d)\n", i, err);
			return err;
		}
	}
	if (rd_nr)
		pr_info("module loaded: %u RAM disks of %lu KiB\n", rd_nr, rd_size);
	return 0;
}
device_initcall(brd_init);
