// SPDX-License-Identifier: MIT
/*
 * ioctl.c - the block layer's ioctls (Linux's blkdev_ioctl): what an
 * ioctl() on an open block-device file (/dev/sda, /dev/sda1) asks of the
 * device, in Linux's numbers and types (uapi/linux/fs.h), so that
 * blockdev(8), sfdisk and lsblk work unchanged:
 *
 *   BLKGETSIZE64  the size in bytes (u64)
 *   BLKGETSIZE    the size in 512-byte sectors (unsigned long)
 *   BLKSSZGET     the logical block size in bytes (int)
 *   BLKPBSZGET, BLKIOMIN, BLKIOOPT, BLKALIGNOFF
 *                 the topology libblkid asks for (mke2fs warns without
 *                 it): physical block and minimum I/O size are the
 *                 logical block size (QEMU's disks say so too), no
 *                 optimal size (0), no misalignment (0)
 *   BLKFLSBUF     write back the device's cached pages, then forget the
 *                 clean ones
 *   BLKRRPART     read the partition table again
 *   BLKDISCARD    discard a byte range (u64 start, len)
 *   BLKZEROOUT    make a byte range read as zeroes (u64 start, len)
 *   HDIO_GETGEO   the driver's made-up geometry and the partition's start
 *                 (struct hd_geometry, uapi/linux/hdreg.h)
 *   BLKTRACESETUP, BLKTRACESTART, BLKTRACESTOP, BLKTRACETEARDOWN
 *                 blktrace(8)'s tracing (block/blk-trace.c)
 *   anything else -ENOTTY
 *
 * Where it sits: fs/block_dev.c's device file passes every ioctl() here
 * with the device and the open file; the device's page cache and its
 * openers are the file layer's, reached through the calls blkdev.h lists
 * for this (sync_blockdev, invalidate_bdev, bdev_rescan_lock ...).  May
 * sleep.
 */
#include <spindle/blkdev.h>
#include <spindle/mm.h>
#include <spindle/bio.h>
#include <spindle/uaccess.h>
#include <spindle/err.h>
#include <spindle/errno.h>
#include <spindle/blktrace.h>
#include <spindle/string.h>
#include <uapi/linux/fs.h>
#include <uapi/linux/hdreg.h>
#include "blk.h"

/*
 * BLKRRPART: forget the partitions and read the table again, as Linux's
 * disk_scan_partitions():
 *   - EINVAL on a partition, or a disk that cannot have any;
 *   - EBUSY while another open file holds the disk with O_EXCL (the
 *     holder itself may rescan), or a partition is open or claimed;
 *   - the disk's own dirty cached pages are written back first: a table
 *     just written through the cache (fdisk's way) is the one read;
 *   - the table is read before anything is dropped, so a rescan that
 *     cannot read it (ENOMEM, EIO) leaves the old partitions in place.
 * The partitions' cached pages are written back and freed with them.
 */
static int blkdev_reread_part(struct block_device *whole, void *holder)
{
	struct gendisk *disk = whole->bd_disk;
	struct parsed_partitions *state;
	int err;

	if (whole->bd_partno)
		return -EINVAL;
	if (disk->minors <= 1)
		return -EINVAL;
	err = bdev_rescan_lock(whole, holder);
	if (err)
		return err;
	err = sync_blockdev(whole);
	if (err)
		goto out;
	state = blk_read_partitions(disk);
	if (IS_ERR(state)) {
		err = PTR_ERR(state);
		goto out;
	}
	bdev_drop_partition_caches(disk);
	/* still under the lock: an open of a partition now being freed
	 * waits, and then finds the new table's */
	blk_drop_partitions(disk);
	blk_add_partitions(disk, state);
	kfree(state);
out:
	bdev_rescan_unlock();
	return err;
}

/*
 * BLKDISCARD and BLKZEROOUT, as Linux's blk_ioctl_discard() and
 * blk_ioctl_zeroout(): u64 range[2] = {start, len} in bytes, both
 * multiples of 512 (and of the logical block size), inside the device;
 * else EINVAL.  A device without the operation answers EOPNOTSUPP.
 * Linux's BLKZEROOUT then falls back to writing pages of zeroes
 * (blkdev_issue_zeroout without BLKDEV_ZERO_NOFALLBACK); Spindle's does
 * not: it refuses, as that flag asks.  The device's cached pages are
 * written back and dropped first (Linux truncates only the range), so no
 * stale page shadows the new contents.
 */
static int blkdev_range_ioctl(struct block_device *bdev, unsigned int op, void __user *argp)
{
	u64 range[2];

	if (copy_from_user(range, argp, sizeof(range)))
		return -EFAULT;
	return blkdev_issue_range(bdev, op, range[0], range[1]);
}

/* The work of both, and of fallocate() on a device file (fs/block_dev.c):
 * bytes [start, start + len) discarded (REQ_OP_DISCARD) or zeroed
 * (REQ_OP_WRITE_ZEROES). */
int blkdev_issue_range(struct block_device *bdev, unsigned int op, u64 start, u64 len)
{
	const struct queue_limits *lim = &bdev->bd_disk->queue->limits;
	u64 lbs_mask = bdev_logical_block_size(bdev) - 1;
	/* one bio's bi_size is 32 bits: cut the range in such pieces */
	const u64 chunk = (u64)(0xffffffffu & ~(u32)lbs_mask) & ~(u64)(SECTOR_SIZE - 1);
	int err;

	if (op == REQ_OP_DISCARD ? !lim->max_discard_sectors : !lim->max_write_zeroes_sectors)
		return -EOPNOTSUPP;
	if ((start | len) & (SECTOR_SIZE - 1) || (start | len) & lbs_mask)
		return -EINVAL;
	if (start + len < start || start + len > (u64)bdev_nr_sectors(bdev) << SECTOR_SHIFT)
		return -EINVAL;
	err = sync_blockdev(bdev);
	invalidate_bdev(bdev);
	if (err)
		return err;
	while (len) {
		u64 n = len < chunk ? len : chunk;
		struct bio *bio = bio_alloc(GFP_KERNEL, 0);

		if (!bio)
			return -ENOMEM;
		bio_set_dev(bio, bdev);
		bio->bi_opf = op;
		bio->bi_iter.bi_sector = start >> SECTOR_SHIFT;
		bio->bi_iter.bi_size = (unsigned int)n;
		err = submit_bio_wait(bio);
		bio_put(bio);
		if (err)
			return err;
		start += n;
		len -= n;
	}
	return 0;
}

/* BLKFLSBUF: write back, then forget every clean cached page. */
static int blkdev_flushbuf(struct block_device *bdev)
{
	int err = sync_blockdev(bdev);

	invalidate_bdev(bdev);
	return err;
}

/*
 * HDIO_GETGEO, as Linux's blkdev_getgeo(): the start is the partition's
 * (0 for the whole disk), the rest the driver's -- a geometry nothing
 * addresses by any more, which partitioning tools still ask for to
 * align on.  A disk whose driver makes none up: -ENOTTY.
 */
static int blkdev_getgeo(struct block_device *bdev, struct hd_geometry __user *argp)
{
	struct gendisk *disk = bdev->bd_disk;
	struct hd_geometry geo;

	if (!disk->getgeo)
		return -ENOTTY;
	memset(&geo, 0, sizeof(geo));
	geo.start = bdev->bd_start_sect;
	disk->getgeo(disk, &geo);
	return copy_to_user(argp, &geo, sizeof(geo)) ? -EFAULT : 0;
}

long blkdev_ioctl(struct block_device *bdev, void *holder, unsigned int cmd,
		  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case BLKGETSIZE64: {
		u64 bytes = (u64)bdev_nr_sectors(bdev) << SECTOR_SHIFT;

		return copy_to_user(argp, &bytes, sizeof(bytes)) ? -EFAULT : 0;
	}
	case BLKGETSIZE: {
		unsigned long sectors = bdev_nr_sectors(bdev);

		return copy_to_user(argp, &sectors, sizeof(sectors)) ? -EFAULT : 0;
	}
	case BLKSSZGET: {
		int lbs = bdev_logical_block_size(bdev);

		return copy_to_user(argp, &lbs, sizeof(lbs)) ? -EFAULT : 0;
	}
	case BLKPBSZGET:
	case BLKIOMIN: {
		unsigned int bytes = bdev_logical_block_size(bdev);

		return copy_to_user(argp, &bytes, sizeof(bytes)) ? -EFAULT : 0;
	}
	case BLKIOOPT: {
		unsigned int none = 0;

		return copy_to_user(argp, &none, sizeof(none)) ? -EFAULT : 0;
	}
	case BLKALIGNOFF: {
		int aligned = 0;

		return copy_to_user(argp, &aligned, sizeof(aligned)) ? -EFAULT : 0;
	}
	case BLKFLSBUF:
		return blkdev_flushbuf(bdev);
	case BLKRRPART:
		return blkdev_reread_part(bdev, holder);
	case BLKDISCARD:
		return blkdev_range_ioctl(bdev, REQ_OP_DISCARD, argp);
	case BLKZEROOUT:
		return blkdev_range_ioctl(bdev, REQ_OP_WRITE_ZEROES, argp);
	case HDIO_GETGEO:
		return blkdev_getgeo(bdev, argp);
	default:
		return blk_trace_ioctl(bdev, cmd, argp);
	}
}
