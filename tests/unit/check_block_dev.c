// SPDX-License-Identifier: MIT
/*
 * Block-device files (fs/block_dev.c) over a fake RAM disk: the buffered
 * path's cache (nothing reaches the disk before write-back; fsync writes
 * back and sends a PREFLUSH), the end of the device, O_DIRECT's alignment
 * rules and its coherence with the cache, the BLK* ioctls, O_EXCL
 * holders; and the sysfs files of the disk in Linux's formats.
 */
#include <check.h>
#include <spindle/fs.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"
#include "../../block/blk.h"

/* fcntl, as syscalls.h declares it, with Linux's command numbers */
long sys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg);
#define F_GETFL 3
#define F_SETFL 4

#define FAKE_SECTORS    2049            /* 1 MiB + one sector: a partial last page */
#define FAKE_BYTES      (FAKE_SECTORS * 512)

static unsigned char *ram;
static int nr_write_bios, nr_read_bios, nr_flushes;
static bool fake_nofill;                /* reads leave the buffer alone (null_blk) */
static bool fake_fail_writes;           /* data writes end in BLK_STS_IOERR */
static unsigned int fake_last_write_bytes;      /* of the last data write bio */
static struct gendisk *disk;
static struct page *fake_first_page;    /* the last data bio's first segment */
static void (*fake_hook)(struct bio *bio);      /* runs before the bio is served */

/* A brd-like bio-based disk: copies at once, counts what it sees. */
static void fake_make_request(struct request_queue *q, struct bio *bio)
{
	struct bio_vec bv;
	struct bvec_iter iter;
	u64 pos = bio->bi_iter.bi_sector * 512;

	(void)q;
	if (fake_hook)
		fake_hook(bio);
	if (bio->bi_vcnt)
		fake_first_page = bio->bi_io_vec[0].bv_page;
	if (bio->bi_opf & REQ_PREFLUSH)
		nr_flushes++;
	if (bio_has_data(bio))
		*(bio_is_write(bio) ? &nr_write_bios : &nr_read_bios) += 1;
	if (bio_has_data(bio) && bio_is_write(bio))
		fake_last_write_bytes = bio->bi_iter.bi_size;
	if (bio_has_data(bio) && bio_is_write(bio) && fake_fail_writes) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		return;
	}
	bio_for_each_segment(bv, bio, iter) {
		char *p = (char *)page_address(bv.bv_page) + bv.bv_offset;

		if (bio_is_write(bio))
			memcpy(ram + pos, p, bv.bv_len);
		else if (!fake_nofill)
			memcpy(p, ram + pos, bv.bv_len);
		pos += bv.bv_len;
	}
	bio_endio(bio);
}

static void setup(void)
{
	struct request_queue *q;

	host_printk_quiet = true;
	host_mm_init(8192 * PAGE_SIZE);
	ck_assert_int_eq(bioset_init(&fs_bio_set, "fs_bio_set", 8, 0, BIOSET_NEED_BVECS), 0);
	ck_assert_int_eq(dio_init(), 0);
	fake_nofill = false;
	fake_fail_writes = false;
	fake_hook = NULL;
	host_user_hole = 0;
	host_vfs_init();
	ram = calloc(1, FAKE_BYTES);
	for (int i = 0; i < FAKE_BYTES; i++)
		ram[i] = (unsigned char)(i / 512);
	q = blk_alloc_queue(fake_make_request, NULL);
	disk = alloc_disk(16);
	strcpy(disk->disk_name, "fake");
	disk->major = 240;
	disk->queue = q;
	set_capacity(disk, FAKE_SECTORS);
	ck_assert_int_eq(add_disk(disk), 0);    /* no table: no partitions */
	ck_assert_ptr_nonnull(add_part(disk, 1, 8, 1024));   /* fake1: 512 KiB at 4 KiB */
	nr_write_bios = nr_read_bios = nr_flushes = 0;
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/dev", 0755), 0);
	ck_assert_int_eq(do_mount("none", "/dev", "devtmpfs", 0, NULL), 0);
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/sys", 0755), 0);
	ck_assert_int_eq(do_mount("none", "/sys", "sysfs", 0, NULL), 0);
}

static void teardown(void)
{
	exit_files(current);
	free(ram);
}

/* A buffer for direct I/O: from the fake RAM, whose pages the device can
 * be handed (see pin_user_pages_fast in shim/host_fs.c). */
static void *dio_alloc(size_t size)
{
	struct page *pg = alloc_pages(GFP_KERNEL, get_order(size));

	ck_assert_ptr_nonnull(pg);
	return page_address(pg);
}

static void dio_free(void *buf, size_t size)
{
	__free_pages(virt_to_page(buf), get_order(size));
}

/* pread/pwrite of a "user" buffer, as the system calls make them */
static long upread(long fd, void *buf, size_t n, loff_t pos)
{
	struct iov_iter it;

	iov_iter_ubuf(&it, ITER_DEST, (void __user *)buf, n);
	return ksys_pread(fd, &it, pos);
}

static long upwrite(long fd, const void *buf, size_t n, loff_t pos)
{
	struct iov_iter it;

	iov_iter_ubuf(&it, ITER_SOURCE, (void __user *)buf, n);
	return ksys_pwrite(fd, &it, pos);
}

static struct file *open_dev(const char *path, int flags)
{
	struct file *f = filp_open(path, flags, 0);

	ck_assert_msg(!IS_ERR(f), "%s: %ld", path, PTR_ERR(f));
	return f;
}

START_TEST(buffered_write_stays_in_cache_until_fsync)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	char buf[100];
	loff_t pos = 1000;
	struct stat st;

	ck_assert_int_eq(kernel_write(f, "spindle", 7, &pos), 7);
	ck_assert_int_eq(nr_write_bios, 0);             /* only the cache knows */
	ck_assert(memcmp(ram + 1000, "spindle", 7) != 0);
	pos = 998;
	ck_assert_int_eq(kernel_read(f, buf, 11, &pos), 11);
	ck_assert_int_eq(memcmp(buf + 2, "spindle", 7), 0);
	ck_assert_int_eq(buf[0], 1);                    /* sector 1 of the disk */
	ck_assert_int_eq(vfs_fsync(f, 0), 0);
	ck_assert_int_eq(nr_write_bios, 1);             /* one dirty page, one bio */
	ck_assert_int_eq(nr_flushes, 1);                /* then the cache flush */
	ck_assert_int_eq(memcmp(ram + 1000, "spindle", 7), 0);
	ck_assert_int_eq(ram[999], 1);                  /* read-modify-write kept it */
	ck_assert_int_eq(vfs_getattr(f->f_inode, &st), 0);
	ck_assert(S_ISBLK(st.st_mode));
	ck_assert_uint_eq(st.st_rdev, new_encode_dev(240, 0));
	fput(f);
}
END_TEST

START_TEST(last_close_and_sync_write_back)
{
	struct file *f = open_dev("/dev/fake1", O_WRONLY);
	loff_t pos = 0;
	static char page[8192];

	memset(page, 0xab, sizeof(page));
	ck_assert_int_eq(kernel_write(f, page, sizeof(page), &pos), (long)sizeof(page));
	ck_assert_int_eq(nr_read_bios, 0);     /* whole pages are not read first */
	fput(f);                               /* the last close writes back */
	ck_assert_int_eq(ram[8 * 512], 0xab);  /* fake1 starts at sector 8 */
	ck_assert_int_eq(ram[8 * 512 + 8191], 0xab);
	ck_assert_int_eq(ram[8 * 512 + 8192], 16 + 8);

	f = open_dev("/dev/fake", O_WRONLY);
	pos = 5;
	kernel_write(f, "z", 1, &pos);
	ksys_sync();
	ck_assert_int_eq(ram[5], 'z');
	ck_assert_int_ge(nr_flushes, 1);
	fput(f);
}
END_TEST

START_TEST(end_of_device_short_read_enospc_write)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	char buf[2048];
	loff_t pos = FAKE_BYTES - 100;

	ck_assert_int_eq(kernel_read(f, buf, sizeof(buf), &pos), 100);   /* short */
	ck_assert_int_eq(buf[99], (char)(FAKE_SECTORS - 1));
	ck_assert_int_eq(kernel_read(f, buf, sizeof(buf), &pos), 0);     /* at the end */
	pos = FAKE_BYTES - 10;
	ck_assert_int_eq(kernel_write(f, buf, 100, &pos), 10);           /* up to the end */
	ck_assert_int_eq(kernel_write(f, buf, 100, &pos), -ENOSPC);
	pos = FAKE_BYTES + 4096;
	ck_assert_int_eq(kernel_write(f, buf, 1, &pos), -ENOSPC);
	ck_assert_int_eq(vfs_llseek(f, 0, SEEK_END), FAKE_BYTES);
	ck_assert_int_eq(vfs_llseek(f, 1, SEEK_END), -EINVAL);  /* not past a device's end */
	ck_assert_int_eq(vfs_llseek(f, 0, SEEK_CUR), FAKE_BYTES);
	ck_assert_int_eq(vfs_fsync(f, 0), 0);                   /* the partial last page */
	ck_assert_int_eq(ram[FAKE_BYTES - 1], 0);
	fput(f);
}
END_TEST

static const struct dio_case {
	unsigned int lbs;
	long long pos;
	size_t count;
	unsigned long addr;
	bool ok;
} dio_cases[] = {
	{ 512, 0, 512, 0x1000, true },
	{ 512, 512, 4096, 0x1200, true },
	{ 512, 100, 512, 0x1000, false },       /* offset */
	{ 512, 0, 100, 0x1000, false },         /* length */
	{ 512, 0, 512, 0x1001, false },         /* buffer address */
	{ 4096, 512, 4096, 0x1000, false },     /* 4K-sector disk: 512 is not enough */
	{ 4096, 8192, 8192, 0x3000, true },
};

START_TEST(dio_alignment_rule_table)
{
	const struct dio_case *c = &dio_cases[_i];

	ck_assert_int_eq(blkdev_dio_aligned(c->lbs, c->pos, c->count, c->addr), c->ok);
}
END_TEST

START_TEST(direct_io_bypasses_cache_and_stays_coherent)
{
	struct file *cached = open_dev("/dev/fake", O_RDWR);
	struct file *direct = open_dev("/dev/fake", O_RDWR | O_DIRECT);
	char *buf = dio_alloc(8192);
	loff_t pos;

	/* misaligned: EINVAL, nothing sent */
	pos = 100;
	ck_assert_int_eq(kernel_read(direct, buf, 512, &pos), -EINVAL);
	pos = 0;
	ck_assert_int_eq(kernel_read(direct, buf + 1, 512, &pos), -EINVAL);
	ck_assert_int_eq(kernel_read(direct, buf, 100, &pos), -EINVAL);
	ck_assert_int_eq(nr_read_bios, 0);

	/* a dirty cached page is written back before a direct read */
	pos = 4096;
	kernel_write(cached, "cached", 6, &pos);
	nr_read_bios = nr_write_bios = 0;
	pos = 4096;
	ck_assert_int_eq(kernel_read(direct, buf, 512, &pos), 512);
	ck_assert_int_eq(memcmp(buf, "cached", 6), 0);
	ck_assert_int_eq(nr_read_bios, 1);
	ck_assert_int_eq(nr_write_bios, 1);

	/* a direct write goes straight down and drops the stale cached page */
	memset(buf, 'D', 1024);
	pos = 4096;
	ck_assert_int_eq(kernel_write(direct, buf, 1024, &pos), 1024);
	ck_assert_int_eq(nr_write_bios, 2);
	ck_assert_int_eq(ram[4096], 'D');
	pos = 4096;
	memset(buf, 0, 16);
	ck_assert_int_eq(kernel_read(cached, buf, 16, &pos), 16);
	ck_assert_int_eq(buf[0], 'D');
	/* reads past the end: short, then 0; writes: ENOSPC */
	pos = FAKE_BYTES - 512;
	ck_assert_int_eq(kernel_read(direct, buf, 4096, &pos), 512);
	ck_assert_int_eq(kernel_read(direct, buf, 512, &pos), 0);
	ck_assert_int_eq(kernel_write(direct, buf, 512, &pos), -ENOSPC);
	dio_free(buf, 8192);
	fput(direct);
	fput(cached);
}
END_TEST

START_TEST(ioctls_as_linux)
{
	struct file *f = open_dev("/dev/fake", O_RDONLY);
	struct file *part;
	long fd;
	u64 size = 0;
	int ssz = 0;

	fput(f);
	fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ksys_ioctl(fd, 0x80081272, (unsigned long)&size), 0);  /* BLKGETSIZE64 */
	ck_assert_uint_eq(size, FAKE_BYTES);
	ck_assert_int_eq(ksys_ioctl(fd, 0x1268, (unsigned long)&ssz), 0);        /* BLKSSZGET */
	ck_assert_int_eq(ssz, 512);
	ck_assert_int_eq(ksys_ioctl(fd, 0x1261, 0), 0);                          /* BLKFLSBUF */
	ck_assert_int_eq(ksys_ioctl(fd, 0x5401, 0), -ENOTTY);
	/* BLKRRPART: EBUSY while a partition is open, then re-reads (no table) */
	part = open_dev("/dev/fake1", O_RDONLY);
	ck_assert_int_eq(ksys_ioctl(fd, 0x125f, 0), -EBUSY);
	fput(part);
	ck_assert_int_eq(ksys_ioctl(fd, 0x125f, 0), 0);
	ck_assert_ptr_null(lookup_bdev("fake1"));
	ck_assert_int_eq(PTR_ERR(filp_open("/dev/fake1", O_RDONLY, 0)), -ENOENT);
	close_fd(fd);
}
END_TEST

static void eat_all_memory(void);

/*
 * BLKRRPART as Linux's disk_scan_partitions: EBUSY while another file
 * holds the disk with O_EXCL, allowed for the holder; the table is read
 * after the disk's cache is written back, so one written through the
 * cache counts; a rescan that cannot read (no memory) keeps the old
 * partitions and says -ENOMEM.
 */
START_TEST(blkrrpart_holder_cache_and_failed_read)
{
	static unsigned char mbr[512];
	long excl, fd;
	loff_t pos = 0;
	struct file *w;

	excl = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_EXCL, 0);
	fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY, 0);
	ck_assert_int_ge(excl, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ksys_ioctl(fd, 0x125f, 0), -EBUSY);
	ck_assert_ptr_nonnull(lookup_bdev("fake1"));            /* untouched */
	ck_assert_int_eq(ksys_ioctl(excl, 0x125f, 0), 0);       /* the holder may */
	close_fd(excl);
	/* a table in the cache only: two partitions of 64 and 128 sectors */
	mbr[446 + 4] = 0x83; mbr[446 + 8] = 64; mbr[446 + 12] = 64;
	mbr[462 + 4] = 0x83; mbr[462 + 8] = 128; mbr[462 + 13] = 1;     /* 256 sectors */
	mbr[510] = 0x55; mbr[511] = 0xaa;
	w = open_dev("/dev/fake", O_RDWR);
	ck_assert_int_eq(kernel_write(w, mbr, 512, &pos), 512);
	ck_assert(ram[510] != 0x55);                            /* not on the disk yet */
	ck_assert_int_eq(ksys_ioctl(fd, 0x125f, 0), 0);
	ck_assert_int_eq(ram[510], 0x55);                       /* written back first */
	ck_assert_ptr_nonnull(lookup_bdev("fake1"));
	ck_assert_uint_eq(bdev_nr_sectors(lookup_bdev("fake1")), 64);
	ck_assert_uint_eq(bdev_nr_sectors(lookup_bdev("fake2")), 256);
	/* no memory to read the table (and no clean cached page for the
	 * allocator to reclaim: BLKFLSBUF drops them): the partitions stay */
	ck_assert_int_eq(ksys_ioctl(fd, 0x1261, 0), 0);
	eat_all_memory();
	ck_assert_int_eq(ksys_ioctl(fd, 0x125f, 0), -ENOMEM);
	ck_assert_uint_eq(bdev_nr_sectors(lookup_bdev("fake2")), 256);
	fput(w);
	close_fd(fd);
}
END_TEST

START_TEST(o_excl_holders)
{
	struct file *a = open_dev("/dev/fake1", O_RDONLY | O_EXCL);
	struct file *b, *c;

	ck_assert_int_eq(PTR_ERR(filp_open("/dev/fake1", O_RDONLY | O_EXCL, 0)), -EBUSY);
	ck_assert_int_eq(PTR_ERR(filp_open("/dev/fake", O_RDONLY | O_EXCL, 0)), -EBUSY);
	b = open_dev("/dev/fake1", O_RDONLY);           /* not exclusive: allowed */
	fput(b);
	fput(a);
	c = open_dev("/dev/fake", O_RDONLY | O_EXCL);   /* free again */
	ck_assert_int_eq(PTR_ERR(filp_open("/dev/fake1", O_RDONLY | O_EXCL, 0)), -EBUSY);
	fput(c);
	/* a device-mapper leg is held the same way */
	disk->part[1]->bd_holder = (void *)0x1;
	ck_assert_int_eq(PTR_ERR(filp_open("/dev/fake1", O_RDONLY | O_EXCL, 0)), -EBUSY);
	disk->part[1]->bd_holder = NULL;
}
END_TEST

static long slurp(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	long n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, size - 1, &pos);
	fput(f);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

START_TEST(sysfs_block_files_in_linux_format)
{
	char buf[512];
	unsigned long long v[17];
	struct file *f;
	loff_t pos = 0;

	ck_assert_int_gt(slurp("/sys/block/fake/size", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "2049\n");
	slurp("/sys/block/fake/fake1/start", buf, sizeof(buf));
	ck_assert_str_eq(buf, "8\n");
	slurp("/sys/block/fake/fake1/size", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1024\n");
	slurp("/sys/block/fake/dev", buf, sizeof(buf));
	ck_assert_str_eq(buf, "240:0\n");
	slurp("/sys/block/fake/queue/scheduler", buf, sizeof(buf));
	ck_assert_str_eq(buf, "none\n");                /* bio-based, as Linux */
	slurp("/sys/block/fake/queue/logical_block_size", buf, sizeof(buf));
	ck_assert_str_eq(buf, "512\n");
	ck_assert_int_eq(slurp("/sys/block/fake1/size", buf, sizeof(buf)), -ENOENT);
	/* stat: 17 fields each at least 8 wide */
	disk->part[0]->bd_stats[0].ios[STAT_READ] = 3;
	disk->part[0]->bd_stats[0].sectors[STAT_WRITE] = 24;
	slurp("/sys/block/fake/stat", buf, sizeof(buf));
	ck_assert_int_eq(sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
				"%llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
				&v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13],
				&v[14], &v[15], &v[16]), 17);
	ck_assert_uint_eq(v[0], 3);
	ck_assert_uint_eq(v[6], 24);
	ck_assert_int_eq(strlen(buf), 17 * 9);
	ck_assert_int_eq(strncmp(buf, "       3        0", 17), 0);
	/* writing an unknown scheduler: EINVAL (and a bio-based queue has none) */
	f = filp_open("/sys/block/fake/queue/scheduler", O_WRONLY, 0);
	ck_assert(!IS_ERR(f));
	ck_assert_int_eq(kernel_write(f, "cscan\n", 6, &pos), -EINVAL);
	fput(f);
	/* /proc/partitions is the block layer's text */
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/proc", 0555), 0);
	ck_assert_int_eq(do_mount("proc", "/proc", "proc", 0, NULL), 0);
	slurp("/proc/partitions", buf, sizeof(buf));
	ck_assert_str_eq(buf, "major minor  #blocks  name\n\n"
			      " 240        0       1024 fake\n"
			      " 240        1        512 fake1\n");
}
END_TEST

START_TEST(devtmpfs_lists_disks_registered_later)
{
	char buf[256];
	struct gendisk *d2;
	struct stat st;

	ck_assert_int_eq(ksys_stat("/dev/late", &st), -ENOENT);
	d2 = alloc_disk(1);
	strcpy(d2->disk_name, "late");
	d2->major = 241;
	d2->queue = blk_alloc_queue(fake_make_request, NULL);
	set_capacity(d2, 8);
	ck_assert_int_eq(add_disk(d2), 0);
	ck_assert_int_eq(ksys_stat("/dev/late", &st), 0);
	ck_assert_uint_eq(st.st_rdev, new_encode_dev(241, 0));
	ck_assert_int_eq(slurp("/sys/block/late/size", buf, sizeof(buf)), 2);
}
END_TEST

/* --- out of memory ------------------------------------------------------- */

/* Every page, then every kmalloc object left in a slab: kmalloc fails. */
/*
 * Every free page and object, GFP_ATOMIC: without reclaim, so the page
 * cache keeps what it holds (a GFP_KERNEL hog would take its clean pages
 * too, as the allocator reclaims them).
 */
static void eat_all_memory(void)
{
	while (alloc_page(GFP_ATOMIC))
		;
	for (size_t size = 16; size <= KMALLOC_MAX_CACHE_SIZE; size *= 2)
		while (kmalloc(size, GFP_ATOMIC))
			;
	ck_assert_ptr_null(kmalloc(16, GFP_ATOMIC));
}

/*
 * fsync with no memory left: the list of dirty pages cannot be kmalloc'ed
 * and neither can a bio's segment array.  Write-back goes in batches from
 * the stack and the bios come from fs_bio_set's reserves; every dirty
 * byte reaches the disk and fsync returns 0.
 */
START_TEST(fsync_writes_back_with_no_memory)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	static unsigned char data[FAKE_BYTES];
	loff_t pos = 0;

	for (int i = 0; i < FAKE_BYTES; i++)
		data[i] = (unsigned char)(i * 7 + 3);
	ck_assert_int_eq(kernel_write(f, data, FAKE_BYTES, &pos), FAKE_BYTES);
	ck_assert_int_eq(nr_write_bios, 0);
	eat_all_memory();
	ck_assert_int_eq(vfs_fsync(f, 0), 0);
	ck_assert_int_eq(memcmp(ram, data, FAKE_BYTES), 0);
	ck_assert_int_eq(nr_flushes, 1);
	/* a read of what is cached needs no memory and sees the same bytes */
	pos = 4096;
	memset(data, 0, 4096);
	ck_assert_int_eq(kernel_read(f, data, 4096, &pos), 4096);
	ck_assert_int_eq(memcmp(data, ram + 4096, 4096), 0);
	fput(f);
}
END_TEST

/*
 * List dir one record per getdents64 call, calling between(name) after
 * each; the names, space-separated.
 */
static void list_piecewise(const char *dir, char *out, size_t size,
			   void (*between)(const char *name))
{
	char buf[32];
	long fd = ksys_open(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0), n;

	ck_assert_int_ge(fd, 0);
	out[0] = '\0';
	while ((n = ksys_getdents64(fd, buf, sizeof(buf))) > 0) {
		struct linux_dirent64 *d = (struct linux_dirent64 *)buf;

		strlcat(out, d->d_name, size);
		strlcat(out, " ", size);
		between(d->d_name);
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(close_fd(fd), 0);
}

static struct gendisk *second;

/* BLKRRPART's effect on fake, once fake1 was read */
static void drop_after_fake1(const char *name)
{
	if (strcmp(name, "fake1") == 0)
		blk_drop_partitions(disk);
}

/* the first disk /sys/block lists going away, once it was read: zz, in
 * the order of Linux's kernfs (by a hash of the names, fs/sysfs.c) */
static void del_after_zz(const char *name)
{
	if (strcmp(name, "zz") == 0)
		del_gendisk(second);
}

/*
 * /dev and /sys/block listed in pieces while partitions or disks go: a
 * device still there is listed (positions were indexes into the disk
 * list, so one dropped before the reader's place made it skip the next).
 */
START_TEST(listings_skip_nothing_when_devices_go)
{
	char names[256];

	second = alloc_disk(1);
	strcpy(second->disk_name, "zz");
	second->major = 241;
	second->queue = blk_alloc_queue(fake_make_request, NULL);
	set_capacity(second, 8);
	ck_assert_int_eq(add_disk(second), 0);
	ck_assert_ptr_nonnull(add_part(disk, 2, 1032, 8));     /* fake2 */
	list_piecewise("/dev", names, sizeof(names), drop_after_fake1);
	ck_assert_str_eq(names, ". .. console null zero fake fake1 zz ");
	list_piecewise("/sys/block", names, sizeof(names), del_after_zz);
	ck_assert_str_eq(names, ". .. zz fake ");
}
END_TEST

/*
 * A buffered read of pages not cached, with no memory: the cache gives up
 * its own least recently used clean pages for them (reclaim), so the read
 * works and returns the disk's bytes; with every page dirty and nothing
 * free, it is -ENOMEM, never a crash.
 */
START_TEST(buffered_read_with_no_memory_reuses_clean_pages)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	static unsigned char got[65536];
	loff_t pos = 0;

	ck_assert_int_eq(kernel_read(f, got, 65536, &pos), 65536);      /* 16 clean pages */
	eat_all_memory();
	pos = 524288;
	ck_assert_int_eq(kernel_read(f, got, 65536, &pos), 65536);
	ck_assert_int_eq(memcmp(got, ram + 524288, 65536), 0);
	pos = 0;
	ck_assert_int_eq(kernel_read(f, got, 4096, &pos), 4096);        /* read again */
	ck_assert_int_eq(memcmp(got, ram, 4096), 0);
	fput(f);
}
END_TEST

/* Nothing cached and nothing free: a buffered read or write is -ENOMEM. */
START_TEST(buffered_io_with_no_memory_and_no_cache_is_enomem)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	char got[512];
	loff_t pos = 8192;

	eat_all_memory();
	ck_assert_int_eq(kernel_read(f, got, sizeof(got), &pos), -ENOMEM);
	ck_assert_int_eq(kernel_write(f, got, sizeof(got), &pos), -ENOMEM);
	ck_assert_int_eq(nr_read_bios + nr_write_bios, 0);
	ck_assert_int_eq(vfs_fsync(f, 0), 0);   /* nothing dirty: only the flush */
	fput(f);
}
END_TEST

/*
 * A device that does not fill a read's buffer (null_blk): with the
 * caller's own pages under the device, O_DIRECT leaves the caller's own
 * bytes there, as Linux does -- never what some kernel page held before
 * (here, pages a "previous user" filled with 0xEE and freed just before
 * the read).  The buffered path hands out cache pages: those start zeroed.
 */
START_TEST(direct_read_of_unfilled_buffer_keeps_own_bytes)
{
	struct file *direct = open_dev("/dev/fake", O_RDONLY | O_DIRECT);
	struct file *cached = open_dev("/dev/fake", O_RDONLY);
	unsigned char *buf = dio_alloc(65536);
	struct page *old[16];
	loff_t pos;

	for (int i = 0; i < 16; i++) {
		old[i] = alloc_page(GFP_KERNEL);
		memset(page_address(old[i]), 0xee, PAGE_SIZE);
	}
	for (int i = 15; i >= 0; i--)
		__free_page(old[i]);
	fake_nofill = true;
	memset(buf, 0x11, 65536);
	pos = 0;
	ck_assert_int_eq(kernel_read(direct, buf, 65536, &pos), 65536);
	for (int i = 0; i < 65536; i++)
		ck_assert_msg(buf[i] == 0x11, "byte %d is %#x", i, buf[i]);
	memset(buf, 0x11, 65536);
	pos = 65536;
	ck_assert_int_eq(kernel_read(cached, buf, 65536, &pos), 65536);
	for (int i = 0; i < 65536; i++)
		ck_assert_msg(buf[i] == 0, "cached byte %d is %#x", i, buf[i]);
	dio_free(buf, 65536);
	fput(direct);
	fput(cached);
}
END_TEST

/* O_DIRECT with no memory: nothing to bounce through, so it needs only
 * its bios, from fs_bio_set's reserve: one bio for 256 KiB. */
START_TEST(direct_io_with_no_memory)
{
	struct file *direct = open_dev("/dev/fake", O_RDWR | O_DIRECT);
	unsigned char *buf = dio_alloc(262144);
	loff_t pos = 0;

	eat_all_memory();
	ck_assert_int_eq(kernel_read(direct, buf, 262144, &pos), 262144);
	ck_assert_int_eq(memcmp(buf, ram, 262144), 0);
	ck_assert_int_eq(nr_read_bios, 1);
	memset(buf, 'w', 262144);
	pos = 4096;
	ck_assert_int_eq(kernel_write(direct, buf, 262144, &pos), 262144);
	ck_assert_int_eq(ram[4096], 'w');
	ck_assert_int_eq(ram[4096 + 262143], 'w');
	ck_assert_int_eq(nr_write_bios, 1);
	fput(direct);
}
END_TEST

/*
 * Zero copy: the bio's pages are the caller's own, at every page offset a
 * 512-byte block can start at, for one block, a page, and a buffer over
 * several pages; the data lands where it should and reads back the same.
 */
START_TEST(direct_io_uses_the_callers_pages_at_every_offset)
{
	static const size_t lens[] = { 512, 4096, 5 * 4096 + 1024 };
	struct file *direct = open_dev("/dev/fake", O_RDWR | O_DIRECT);
	unsigned char *buf = dio_alloc(8 * 4096), *back = dio_alloc(8 * 4096);

	for (unsigned int off = 0; off < 4096; off += 512) {
		for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
			size_t len = lens[l];
			loff_t where = 8192 + (loff_t)off * 16, pos = where;

			for (size_t i = 0; i < len; i++)
				buf[off + i] = (unsigned char)(i * 7 + off + l);
			ck_assert_int_eq(kernel_write(direct, buf + off, len, &pos), (long)len);
			ck_assert_ptr_eq(fake_first_page, virt_to_page(buf));
			ck_assert_int_eq(memcmp(ram + where, buf + off, len), 0);
			memset(back, 0, 8 * 4096);
			pos = where;
			/* read into another offset than written from */
			ck_assert_int_eq(kernel_read(direct, back + (4096 - off) % 4096, len, &pos), (long)len);
			ck_assert_ptr_eq(fake_first_page, virt_to_page(back));
			ck_assert_int_eq(memcmp(back + (4096 - off) % 4096, buf + off, len), 0);
		}
	}
	/* every pin was dropped: the buffers are back to their owner's one reference */
	ck_assert_uint_eq(page_count(virt_to_page(buf)), 1);
	ck_assert_uint_eq(page_count(virt_to_page(back)), 1);
	dio_free(buf, 8 * 4096);
	dio_free(back, 8 * 4096);
	fput(direct);
}
END_TEST

/*
 * A user buffer with a hole part way (unmapped from the third page): the
 * transfer is short, up to the hole, and nothing past it is written; with
 * the hole at the very start, EFAULT and nothing at all.
 */
START_TEST(direct_io_stops_at_a_hole_in_the_buffer)
{
	long fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDWR | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4 * 4096);
	unsigned char before[4 * 4096];

	ck_assert_int_ge(fd, 0);
	memcpy(before, ram + 65536, sizeof(before));
	memset(buf, 'h', 4 * 4096);
	host_user_hole = (unsigned long)buf + 2 * 4096;
	ck_assert_int_eq(upwrite(fd, buf + 512, 3 * 4096, 65536), 2 * 4096 - 512);
	ck_assert_int_eq(ram[65536], 'h');
	ck_assert_int_eq(ram[65536 + 2 * 4096 - 513], 'h');
	ck_assert_int_eq(memcmp(ram + 65536 + 2 * 4096 - 512, before + 2 * 4096 - 512, 4096 + 512), 0);
	nr_write_bios = 0;
	ck_assert_int_eq(upwrite(fd, buf + 2 * 4096, 4096, 0), -EFAULT);
	ck_assert_int_eq(upread(fd, buf + 2 * 4096, 4096, 0), -EFAULT);
	ck_assert_int_eq(nr_write_bios, 0);
	host_user_hole = 0;
	dio_free(buf, 4 * 4096);
	close_fd(fd);
}
END_TEST

/*
 * fcntl(F_SETFL) turns O_DIRECT on and off, as Linux's setfl(): the reads
 * that follow obey it (a misaligned buffer: EINVAL only while it is on);
 * O_APPEND, O_NONBLOCK and O_NOATIME change with it, the access mode and
 * open-only flags (O_CREAT, O_TRUNC) do not.  A file with no direct_IO
 * (a ramfs file) refuses O_DIRECT with EINVAL and keeps its flags.
 */
START_TEST(setfl_sets_and_clears_o_direct)
{
	long fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY, 0), plain;
	unsigned char *buf = dio_alloc(2 * 4096);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(upread(fd, buf + 1, 512, 0), 512);
	ck_assert_int_eq(sys_fcntl(fd, F_SETFL, O_DIRECT), 0);
	ck_assert_int_eq(sys_fcntl(fd, F_GETFL, 0), O_RDONLY | O_DIRECT);
	ck_assert_int_eq(upread(fd, buf + 1, 512, 0), -EINVAL);
	ck_assert_int_eq(upread(fd, buf, 512, 512), 512);
	ck_assert_int_eq(buf[0], 1);
	ck_assert_int_eq(sys_fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK | O_NOATIME | O_TRUNC | O_RDWR),
			 0);
	ck_assert_int_eq(sys_fcntl(fd, F_GETFL, 0), O_RDONLY | O_APPEND | O_NONBLOCK | O_NOATIME);
	ck_assert_int_eq(upread(fd, buf + 1, 512, 0), 512);
	ck_assert_int_eq(sys_fcntl(fd, F_SETFL, 0), 0);
	ck_assert_int_eq(sys_fcntl(fd, F_GETFL, 0), O_RDONLY);

	plain = ksys_open(AT_FDCWD, "/plain", O_RDWR | O_CREAT | O_APPEND, 0644);
	ck_assert_int_ge(plain, 0);
	ck_assert_int_eq(sys_fcntl(plain, F_SETFL, O_DIRECT), -EINVAL);
	ck_assert_int_eq(sys_fcntl(plain, F_GETFL, 0) & ~O_CREAT, O_RDWR | O_APPEND);
	ck_assert_int_eq(sys_fcntl(plain, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(sys_fcntl(plain, F_GETFL, 0) & ~O_CREAT, O_RDWR | O_NONBLOCK);
	close_fd(plain);
	close_fd(fd);
	dio_free(buf, 2 * 4096);
}
END_TEST

/*
 * The owner lets go of its buffer while the device still works on it (a
 * process killed or exiting with I/O in flight; here the hook frees the
 * buffer before the device copies): the pin keeps the pages allocated
 * until the bio ends, and only then do they go back.
 */
static void *freed_buf;
static unsigned long free_during_io;

static void free_buffer_during_io(struct bio *bio)
{
	if (!bio_has_data(bio) || !freed_buf)
		return;
	dio_free(freed_buf, 4 * 4096);          /* the owner's reference */
	ck_assert(!(virt_to_page(freed_buf)->flags & PG_buddy));    /* still held */
	free_during_io = nr_free_pages();
	freed_buf = NULL;
}

START_TEST(pinned_pages_outlive_their_owner_until_the_io_ends)
{
	long fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4 * 4096);
	unsigned long before;

	ck_assert_int_ge(fd, 0);
	before = nr_free_pages();
	freed_buf = buf;
	fake_hook = free_buffer_during_io;
	ck_assert_int_eq(upread(fd, buf, 4 * 4096, 4096), 4 * 4096);
	fake_hook = NULL;
	ck_assert_ptr_null(freed_buf);
	ck_assert_uint_eq(free_during_io, before);      /* nothing came back then */
	ck_assert(virt_to_page(buf)->flags & PG_buddy);  /* the unpin freed it */
	ck_assert_uint_ge(nr_free_pages(), before + 4);
	close_fd(fd);
}
END_TEST

/*
 * A buffered write that dirties a page while a direct write of the same
 * range is on its way (the hook does it when the direct bio reaches the
 * disk): the page is not dropped after the direct write -- that would
 * lose the buffered write -- but kept, and the kernel says so; write-back
 * then puts the buffered data on the disk, after the direct data.  (The
 * buffered write is of a whole page: it needs no read, which the hook,
 * running inside the direct bio's submission, could not wait for.)
 */
static struct file *racing_cached;

static void buffered_write_during_direct_write(struct bio *bio)
{
	static char page[4096];
	loff_t pos = 8192;

	if (!bio_is_write(bio) || !bio_has_data(bio) || !racing_cached)
		return;
	memset(page, 'b', sizeof(page));
	ck_assert_int_eq(kernel_write(racing_cached, page, sizeof(page), &pos), 4096);
	racing_cached = NULL;
}

START_TEST(direct_write_keeps_a_page_dirtied_meanwhile)
{
	struct file *cached = open_dev("/dev/fake", O_RDWR);
	struct file *direct = open_dev("/dev/fake", O_RDWR | O_DIRECT);
	unsigned char *buf = dio_alloc(8192);
	char back[16];
	loff_t pos = 4096;

	memset(buf, 'D', 8192);
	racing_cached = cached;
	fake_hook = buffered_write_during_direct_write;
	host_printk_reset();
	ck_assert_int_eq(kernel_write(direct, buf, 8192, &pos), 8192);
	fake_hook = NULL;
	ck_assert_ptr_null(racing_cached);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "fake: direct write at byte 4096: 1 cached page(s) dirtied"));
	ck_assert_int_eq(ram[8192 + 100], 'D');         /* the direct data, for now */
	pos = 8192 + 96;
	ck_assert_int_eq(kernel_read(cached, back, 16, &pos), 16);
	ck_assert_int_eq(memcmp(back, "bbbbbbbbbbbbbbbb", 16), 0);
	ck_assert_int_eq(vfs_fsync(cached, 0), 0);
	ck_assert_int_eq(ram[8192], 'b');
	ck_assert_int_eq(ram[8192 + 4095], 'b');
	pos = 4096;                                     /* the other page was dropped */
	ck_assert_int_eq(kernel_read(cached, back, 1, &pos), 1);
	ck_assert_int_eq(back[0], 'D');
	dio_free(buf, 8192);
	fput(direct);
	fput(cached);
}
END_TEST

/*
 * Memory taken from everyone: every free page, then every free object of
 * every kmalloc size, so the next allocation of any kind fails.  Pages
 * can be handed back a few at a time.
 */
struct hog {
	struct list_head pages;
	void *objs;                     /* a chain through the objects */
};

static void hog_all(struct hog *h)
{
	struct page *pg;
	void *p;

	INIT_LIST_HEAD(&h->pages);
	h->objs = NULL;
	while ((pg = alloc_page(GFP_ATOMIC)))         /* no reclaim: see eat_all_memory */
		list_add(&pg->lru, &h->pages);
	for (size_t size = 16; size <= 2048; size *= 2)
		while ((p = kmalloc(size, GFP_ATOMIC))) {
			*(void **)p = h->objs;
			h->objs = p;
		}
	ck_assert_uint_eq(nr_free_pages(), 0);
}

static void hog_give_back(struct hog *h, int n)
{
	while (n-- > 0 && !list_empty(&h->pages)) {
		struct page *pg = list_first_entry(&h->pages, struct page, lru);

		list_del(&pg->lru);
		__free_page(pg);
	}
}

static void hog_release(struct hog *h)
{
	while (h->objs) {
		void *next = *(void **)h->objs;

		kfree(h->objs);
		h->objs = next;
	}
	hog_give_back(h, 1 << 30);
}

/*
 * Freeing must not need memory: the last close of a device with dirty
 * pages writes them back even when kmalloc has nothing left (it needed
 * an array to sort them: ENOMEM, and the data stayed in memory only).
 */
START_TEST(last_close_writes_back_with_no_free_memory)
{
	struct file *f = open_dev("/dev/fake", O_WRONLY);
	static char page[4096];
	struct hog h;
	loff_t pos;

	memset(page, 0xcd, sizeof(page));
	for (int i = 0; i < 3; i++) {                   /* pages 0, 2, 4 */
		pos = 2 * i * 4096;
		ck_assert_int_eq(kernel_write(f, page, sizeof(page), &pos), 4096);
	}
	hog_all(&h);
	fput(f);                                        /* the last close */
	hog_release(&h);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ram[2 * i * 4096], 0xcd);
		ck_assert_int_eq(ram[2 * i * 4096 + 4095], 0xcd);
		ck_assert_int_eq(ram[(2 * i + 1) * 4096], (2 * i + 1) * 8);  /* untouched */
	}
}
END_TEST

/*
 * A few pages but no memory for a bio's segment array: reads (with
 * readahead) and direct I/O use a smaller bio from the reserve, or say
 * ENOMEM -- before, bio_alloc's NULL was dereferenced.  Direct I/O needs
 * no pages of its own: its segment array comes from fs_bio_set's reserve.
 */
START_TEST(reads_with_no_memory_for_a_segment_array)
{
	struct file *f = open_dev("/dev/fake", O_RDONLY);
	struct file *direct = open_dev("/dev/fake", O_RDONLY | O_DIRECT);
	unsigned char *buf = dio_alloc(65536);
	struct hog h;
	loff_t pos = 3 * 512 + 7;

	hog_all(&h);
	hog_give_back(&h, 8);           /* room for some readahead, no more */
	ck_assert_int_eq(kernel_read(f, buf, 1, &pos), 1);
	ck_assert_int_eq(buf[0], 3);                    /* sector 3's byte */
	hog_release(&h);

	hog_all(&h);
	pos = 65536;
	ck_assert_int_eq(kernel_read(direct, buf, 65536, &pos), 65536);
	ck_assert_int_eq(buf[0], 128);                  /* sector 128 */
	ck_assert_int_eq(buf[65535], 255);
	hog_release(&h);
	fput(direct);
	fput(f);
	dio_free(buf, 65536);
}
END_TEST

/* --- write-back: the flusher, throttling, errors ------------------------------------ */

#define NS_PER_SEC      1000000000ull

static void write_page_at(struct file *f, pgoff_t index, char c)
{
	static char page[4096];
	loff_t pos = (loff_t)index * 4096;

	memset(page, c, sizeof(page));
	ck_assert_int_eq(kernel_write(f, page, sizeof(page), &pos), 4096);
}

/*
 * The flusher writes nothing younger than dirty_expire_centisecs, and
 * then everything dirty: pages dirtied in the order 2, 0, 1 reach the
 * disk sorted, as ONE bio of 12 KiB.  A knob changed at run time counts.
 */
START_TEST(flusher_writes_expired_pages_sorted)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	struct backing_dev_info *bdi = f->f_mapping->bdi;

	ck_assert_ptr_nonnull(bdi);
	host_clock_ns = 1 * NS_PER_SEC;
	write_page_at(f, 2, 'c');
	write_page_at(f, 0, 'a');
	write_page_at(f, 1, 'b');
	ck_assert_uint_eq(wb_do_writeback(bdi, 30 * NS_PER_SEC, false), 0);    /* 29 s old */
	ck_assert_int_eq(nr_write_bios, 0);
	ck_assert_uint_eq(wb_do_writeback(bdi, 31 * NS_PER_SEC, false), 3);
	ck_assert_int_eq(nr_write_bios, 1);
	ck_assert_uint_eq(fake_last_write_bytes, 3 * 4096);
	ck_assert_int_eq(ram[0], 'a');
	ck_assert_int_eq(ram[4096], 'b');
	ck_assert_int_eq(ram[8192 + 4095], 'c');
	ck_assert_int_eq(nr_flushes, 0);        /* write-back alone promises nothing */

	dirty_expire_interval = 100;            /* 1 s */
	host_clock_ns = 40 * NS_PER_SEC;
	write_page_at(f, 9, 'z');
	ck_assert_uint_eq(wb_do_writeback(bdi, 40 * NS_PER_SEC + NS_PER_SEC / 2, false), 0);
	ck_assert_uint_eq(wb_do_writeback(bdi, 41 * NS_PER_SEC, false), 1);
	ck_assert_int_eq(ram[9 * 4096], 'z');
	fput(f);
}
END_TEST

/*
 * Linux's errseq semantics: a write-back error is reported once to each
 * file that was open when it happened -- by the fsync that started the
 * write, and by another file's fsync -- and then no more; a file opened
 * after it was reported does not see it.  No FLUSH follows a failed
 * write-back.  An error met by the flusher, with no one waiting, is kept
 * for the next fsync of each file.
 */
START_TEST(fsync_reports_a_writeback_error_once_per_file)
{
	struct file *a = open_dev("/dev/fake", O_RDWR);
	struct file *b = open_dev("/dev/fake", O_RDWR), *c;

	write_page_at(a, 3, 'e');
	fake_fail_writes = true;
	ck_assert_int_eq(vfs_fsync(a, 0), -EIO);
	ck_assert_int_eq(nr_flushes, 0);
	ck_assert_int_eq(vfs_fsync(a, 0), 0);   /* once; and now a flush */
	ck_assert_int_eq(nr_flushes, 1);
	ck_assert_int_eq(vfs_fsync(b, 0), -EIO);
	ck_assert_int_eq(vfs_fsync(b, 0), 0);
	c = open_dev("/dev/fake", O_RDWR);
	ck_assert_int_eq(vfs_fsync(c, 0), 0);

	write_page_at(c, 4, 'f');               /* this one the flusher meets */
	ck_assert_uint_eq(wb_do_writeback(c->f_mapping->bdi, 0, true), 1);
	ck_assert_int_eq(vfs_fsync(a, 0), -EIO);
	ck_assert_int_eq(vfs_fsync(b, 0), -EIO);
	ck_assert_int_eq(vfs_fsync(c, 0), -EIO);
	ck_assert_int_eq(vfs_fsync(a, 0), 0);
	fake_fail_writes = false;
	fput(c);
	fput(b);
	fput(a);
}
END_TEST

/* /proc/meminfo's Dirty and Writeback lines, in Linux's columns. */
START_TEST(meminfo_counts_dirty_pages)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	char buf[1024];

	for (pgoff_t i = 0; i < 3; i++)
		write_page_at(f, 10 + i, 'd');
	proc_meminfo_show(buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "\nDirty:                12 kB\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nWriteback:             0 kB\n"));
	ck_assert_int_eq(vfs_fsync(f, 0), 0);
	proc_meminfo_show(buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "\nDirty:                 0 kB\n"));
	fput(f);
}
END_TEST

/*
 * Past dirty_ratio a writer writes back itself before its write()
 * returns: with the ratio at 1% (about 80 of the fake machine's pages),
 * a 1 MiB write leaves the disk written in part and less than all of it
 * dirty -- no fsync, no flusher.
 */
START_TEST(writer_past_dirty_ratio_is_throttled)
{
	struct file *f = open_dev("/dev/fake", O_RDWR);
	static char big[1 << 20];
	struct page_cache_stats st;
	unsigned long bg, thresh;
	loff_t pos = 0;

	vm_dirty_ratio = 1;
	global_dirty_limits(&bg, &thresh);
	ck_assert_uint_lt(thresh, 128);
	memset(big, 't', sizeof(big));
	ck_assert_int_eq(kernel_write(f, big, sizeof(big), &pos), (long)sizeof(big));
	ck_assert_int_gt(nr_write_bios, 0);
	page_cache_stats(&st);
	ck_assert_uint_lt(st.nr_dirty, 256);
	ck_assert_int_eq(ram[0], 't');
	vm_dirty_ratio = 20;
	fput(f);
}
END_TEST

static long put_text(const char *path, const char *text)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	long n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, text, strlen(text), &pos);
	fput(f);
	return n;
}

/*
 * queue/read_ahead_kb reads and writes as Linux's; a first read of the
 * disk from its start brings in a 128 KiB window; a random read brings
 * in only what it asked for.
 */
START_TEST(readahead_window_and_read_ahead_kb)
{
	struct file *f = open_dev("/dev/fake", O_RDONLY);
	struct page_cache_stats st;
	char buf[64];
	loff_t pos = 0;

	slurp("/sys/block/fake/queue/read_ahead_kb", buf, sizeof(buf));
	ck_assert_str_eq(buf, "128\n");
	ck_assert_int_eq(put_text("/sys/block/fake/queue/read_ahead_kb", "512\n"), 4);
	slurp("/sys/block/fake/queue/read_ahead_kb", buf, sizeof(buf));
	ck_assert_str_eq(buf, "512\n");
	ck_assert_int_lt(put_text("/sys/block/fake/queue/read_ahead_kb", "lots"), 0);

	ck_assert_int_eq(kernel_read(f, buf, 1, &pos), 1);
	page_cache_stats(&st);
	ck_assert_uint_eq(st.nr_pages, 32);
	pos = 200 * 4096;                       /* elsewhere: random */
	ck_assert_int_eq(kernel_read(f, buf, 1, &pos), 1);
	page_cache_stats(&st);
	ck_assert_uint_eq(st.nr_pages, 33);
	fput(f);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("block_dev");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, buffered_write_stays_in_cache_until_fsync);
	tcase_add_test(core, last_close_and_sync_write_back);
	tcase_add_test(core, direct_io_bypasses_cache_and_stays_coherent);
	tcase_add_test(core, direct_io_uses_the_callers_pages_at_every_offset);
	tcase_add_test(core, direct_io_stops_at_a_hole_in_the_buffer);
	tcase_add_test(core, setfl_sets_and_clears_o_direct);
	tcase_add_test(core, pinned_pages_outlive_their_owner_until_the_io_ends);
	tcase_add_test(core, direct_write_keeps_a_page_dirtied_meanwhile);
	tcase_add_test(core, ioctls_as_linux);
	tcase_add_test(core, sysfs_block_files_in_linux_format);
	tcase_add_test(core, devtmpfs_lists_disks_registered_later);
	tcase_add_test(core, flusher_writes_expired_pages_sorted);
	tcase_add_test(core, fsync_reports_a_writeback_error_once_per_file);
	tcase_add_test(core, meminfo_counts_dirty_pages);
	tcase_add_test(core, writer_past_dirty_ratio_is_throttled);
	tcase_add_test(core, readahead_window_and_read_ahead_kb);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, end_of_device_short_read_enospc_write);
	tcase_add_loop_test(limits, dio_alignment_rule_table, 0, ARRAY_SIZE(dio_cases));
	tcase_add_test(limits, o_excl_holders);
	tcase_add_test(limits, blkrrpart_holder_cache_and_failed_read);
	tcase_add_test(limits, fsync_writes_back_with_no_memory);
	tcase_add_test(limits, direct_read_of_unfilled_buffer_keeps_own_bytes);
	tcase_add_test(limits, buffered_read_with_no_memory_reuses_clean_pages);
	tcase_add_test(limits, buffered_io_with_no_memory_and_no_cache_is_enomem);
	tcase_add_test(limits, direct_io_with_no_memory);

	tcase_add_test(limits, last_close_writes_back_with_no_free_memory);
	tcase_add_test(limits, listings_skip_nothing_when_devices_go);
	tcase_add_test(limits, reads_with_no_memory_for_a_segment_array);
	suite_add_tcase(s, limits);
	return s;
}
