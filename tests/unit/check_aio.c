// SPDX-License-Identifier: MIT
/*
 * Asynchronous I/O (fs/aio.c over fs/block_dev.c) on a fake disk whose
 * bios wait until the test ends them -- the test plays the disk's
 * interrupt -- so what is posted when can be seen: nothing at io_submit,
 * each event at its last bio's end, with its data, obj and res; the
 * EAGAIN limit counting unreaped events; errors and short transfers as
 * the event's res; the synchronous opcodes posting at once; io_destroy
 * and exit_aio freeing what nobody reaped.
 */
#include <check.h>
#include <spindle/fs.h>
#include <spindle/fcntl.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/aio.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"
#include "../../block/blk.h"

/* the system calls, as syscalls.h declares them (it cannot be included
 * next to the host's headers) */
long sys_io_setup(unsigned int nr_events, aio_context_t *ctxp);
long sys_io_destroy(aio_context_t ctx_id);
long sys_io_submit(aio_context_t ctx_id, long nr, struct iocb **iocbpp);
long sys_io_getevents(aio_context_t ctx_id, long min_nr, long nr,
		      struct io_event *events, struct __kernel_timespec *timeout);
long sys_io_cancel(aio_context_t ctx_id, struct iocb *iocb, struct io_event *result);

#define FAKE_SECTORS    4096            /* 2 MiB */
#define FAKE_BYTES      (FAKE_SECTORS * 512)
#define MAX_HELD        64

static unsigned char *ram;
static struct gendisk *disk;
static struct bio *held[MAX_HELD];
static int nr_held;
static bool hold_bios;                  /* direct I/O waits for fake_end() */
static blk_status_t fail_status;        /* the next bios served end with this */
static struct mm_struct test_mm;        /* the "process" owning the contexts */
static struct __kernel_timespec poll_ts = { 0, 0 };

static void fake_serve(struct bio *bio)
{
	struct bio_vec bv;
	struct bvec_iter iter;
	u64 pos = bio->bi_iter.bi_sector * 512;

	bio_for_each_segment(bv, bio, iter) {
		char *p = (char *)page_address(bv.bv_page) + bv.bv_offset;

		if (bio_is_write(bio))
			memcpy(ram + pos, p, bv.bv_len);
		else
			memcpy(p, ram + pos, bv.bv_len);
		pos += bv.bv_len;
	}
	bio->bi_status = fail_status;
	bio_endio(bio);
}

static void fake_make_request(struct request_queue *q, struct bio *bio)
{
	(void)q;
	if (hold_bios && bio_has_data(bio)) {
		ck_assert_int_lt(nr_held, MAX_HELD);
		held[nr_held++] = bio;
		return;
	}
	fake_serve(bio);
}

/* The disk answers the first n held bios, oldest first (the interrupt). */
static void fake_end(int n)
{
	ck_assert_int_le(n, nr_held);
	for (int i = 0; i < n; i++)
		fake_serve(held[i]);
	memmove(held, held + n, (nr_held - n) * sizeof(held[0]));
	nr_held -= n;
}

static void setup(void)
{
	struct request_queue *q;

	host_printk_quiet = true;
	host_mm_init(8192 * PAGE_SIZE);
	ck_assert_int_eq(bioset_init(&fs_bio_set, "fs_bio_set", 8, 0, BIOSET_NEED_BVECS), 0);
	ck_assert_int_eq(dio_init(), 0);
	host_user_hole = 0;
	host_vfs_init();
	ram = calloc(1, FAKE_BYTES);
	for (int i = 0; i < FAKE_BYTES; i++)
		ram[i] = (unsigned char)(i / 512 + i);
	q = blk_alloc_queue(fake_make_request, NULL);
	disk = alloc_disk(1);
	strcpy(disk->disk_name, "fake");
	disk->major = 240;
	disk->queue = q;
	set_capacity(disk, FAKE_SECTORS);
	ck_assert_int_eq(add_disk(disk), 0);
	ck_assert_int_eq(do_mkdirat(AT_FDCWD, "/dev", 0755), 0);
	ck_assert_int_eq(do_mount("none", "/dev", "devtmpfs", 0, NULL), 0);
	nr_held = 0;
	hold_bios = true;
	fail_status = BLK_STS_OK;
	memset(&test_mm, 0, sizeof(test_mm));
	mutex_init(&test_mm.mmap_lock);         /* io_setup maps the ring page */
	current->mm = &test_mm;
}

static void teardown(void)
{
	ck_assert_int_eq(nr_held, 0);
	exit_aio(&test_mm);
	ck_assert_ptr_null(test_mm.ioctx_list);
	current->mm = NULL;
	exit_files(current);
	free(ram);
}

/* A "user" buffer the device may be handed (see pin_user_pages_fast in
 * shim/host_fs.c). */
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

static void prep(struct iocb *cb, int op, int fd, void *buf, size_t len, loff_t off, u64 data)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (u64)(unsigned long)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = data;
	cb->aio_key = 77;
}

static long poll_events(aio_context_t ctx, struct io_event *ev, long nr)
{
	return sys_io_getevents(ctx, 0, nr, ev, &poll_ts);
}

START_TEST(events_come_from_the_completions_not_from_submit)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4 * 4096);
	struct iocb cb[4], *list[4];
	struct io_event ev[8];
	aio_context_t ctx = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_io_setup(8, &ctx), 0);
	ck_assert_uint_ne(ctx, 0);
	memset(buf, 0, 4 * 4096);
	for (int i = 0; i < 4; i++) {
		prep(&cb[i], IOCB_CMD_PREAD, fd, buf + i * 4096, 4096, (loff_t)(3 - i) * 8192, 100 + i);
		list[i] = &cb[i];
	}
	ck_assert_int_eq(sys_io_submit(ctx, 4, list), 4);
	ck_assert_int_eq(cb[0].aio_key, 0);             /* Linux's KIOCB_KEY */
	ck_assert_int_eq(nr_held, 4);                   /* sent, none answered */
	ck_assert_int_eq(poll_events(ctx, ev, 8), 0);
	ck_assert_int_eq(buf[0], 0);

	fake_end(2);                                    /* the first two end */
	ck_assert_int_eq(poll_events(ctx, ev, 8), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(ev[i].data, 100 + i);
		ck_assert_ptr_eq((void *)(unsigned long)ev[i].obj, &cb[i]);
		ck_assert_int_eq(ev[i].res, 4096);
		ck_assert_int_eq(ev[i].res2, 0);
		ck_assert_int_eq(memcmp(buf + i * 4096, ram + (3 - i) * 8192, 4096), 0);
	}
	ck_assert_int_eq(poll_events(ctx, ev, 8), 0);   /* reaped: gone */
	fake_end(2);
	/* min_nr 2 is there: no sleep */
	ck_assert_int_eq(sys_io_getevents(ctx, 2, 8, ev, NULL), 2);
	ck_assert_uint_eq(ev[0].data + ev[1].data, 102 + 103);
	ck_assert_int_eq(memcmp(buf + 3 * 4096, ram, 4096), 0);
	ck_assert_int_eq(sys_io_destroy(ctx), 0);
	ck_assert_int_eq(sys_io_destroy(ctx), -EINVAL);
	dio_free(buf, 4 * 4096);
}
END_TEST

START_TEST(a_write_reaches_the_disk_with_its_bios)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDWR | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(2 * 1024 * 1024);
	struct iocb cb, *list[1] = { &cb };
	struct io_event ev[1];
	aio_context_t ctx = 0;

	ck_assert_int_eq(sys_io_setup(1, &ctx), 0);
	/* 1 MiB + 8 KiB ending 4 KiB past the disk's end: cut to 1 MiB +
	 * 4 KiB, two bios (of 256 pages at most) */
	memset(buf, 'W', 2 * 1024 * 1024);
	prep(&cb, IOCB_CMD_PWRITE, fd, buf, 1024 * 1024 + 8192, FAKE_BYTES - 1024 * 1024 - 4096, 5);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), 1);
	ck_assert_int_eq(nr_held, 2);
	ck_assert_int_ne(ram[FAKE_BYTES - 1], 'W');
	fake_end(1);
	ck_assert_int_eq(poll_events(ctx, ev, 1), 0);   /* one bio still out */
	fake_end(1);
	ck_assert_int_eq(poll_events(ctx, ev, 1), 1);
	ck_assert_int_eq(ev[0].res, 1024 * 1024 + 4096);        /* short: the end */
	ck_assert_int_eq(ram[FAKE_BYTES - 1024 * 1024 - 4096], 'W');
	ck_assert_int_eq(ram[FAKE_BYTES - 1], 'W');
	ck_assert_int_ne(ram[FAKE_BYTES - 1024 * 1024 - 4097], 'W');
	dio_free(buf, 2 * 1024 * 1024);
}
END_TEST

START_TEST(eagain_counts_events_not_yet_reaped)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4096);
	struct iocb cb[3], *list[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	aio_context_t ctx = 0;

	ck_assert_int_eq(sys_io_setup(2, &ctx), 0);
	for (int i = 0; i < 3; i++)
		prep(&cb[i], IOCB_CMD_PREAD, fd, buf, 4096, 0, i);
	/* a batch larger than the context is cut to nr_events */
	ck_assert_int_eq(sys_io_submit(ctx, 3, list), 2);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list + 2), -EAGAIN);
	fake_end(2);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list + 2), -EAGAIN);    /* unreaped */
	ck_assert_int_eq(sys_io_getevents(ctx, 1, 1, ev, NULL), 1);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list + 2), 1);
	fake_end(1);
	/* io_destroy frees the events nobody reaped */
	ck_assert_int_eq(sys_io_destroy(ctx), 0);
	dio_free(buf, 4096);
}
END_TEST

/*
 * io_getevents into an array whose third entry crosses into an unmapped
 * page: the two events before it are copied and counted, the third stays
 * for the next call, as Linux's ring keeps what it could not copy; a call
 * whose first entry is unmapped is EFAULT and keeps every event.  The
 * events kept still hold their slots (EAGAIN) until they are reaped.
 */
START_TEST(a_fault_part_way_keeps_the_events_not_copied)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4096), *area = dio_alloc(2 * 4096);
	struct io_event *ev = (struct io_event *)(area + 4096 - 2 * sizeof(*ev) - 16), good[3];
	struct iocb cb[5], *list[5] = { &cb[0], &cb[1], &cb[2], &cb[3], &cb[4] };
	aio_context_t ctx = 0;

	ck_assert_int_eq(sys_io_setup(3, &ctx), 0);
	for (int i = 0; i < 5; i++)
		prep(&cb[i], IOCB_CMD_PREAD, fd, buf, 4096, 0, 10 + i);
	ck_assert_int_eq(sys_io_submit(ctx, 3, list), 3);
	fake_end(3);
	host_user_hole = (unsigned long)area + 4096;
	ck_assert_int_eq(sys_io_getevents(ctx, 3, 3, ev, NULL), 2);
	ck_assert_uint_eq(ev[0].data, 10);
	ck_assert_uint_eq(ev[1].data, 11);
	ck_assert_int_eq(sys_io_getevents(ctx, 1, 1, (struct io_event *)(area + 4096), NULL),
			 -EFAULT);
	/* 12, kept, still holds its slot: two more fill the context */
	ck_assert_int_eq(sys_io_submit(ctx, 2, list + 3), 2);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EAGAIN);
	host_user_hole = 0;
	fake_end(2);
	ck_assert_int_eq(sys_io_getevents(ctx, 3, 3, good, NULL), 3);
	ck_assert_uint_eq(good[0].data, 12);
	ck_assert_uint_eq(good[1].data, 13);
	ck_assert_uint_eq(good[2].data, 14);
	ck_assert_int_eq(poll_events(ctx, good, 3), 0);
	ck_assert_int_eq(sys_io_destroy(ctx), 0);
	dio_free(area, 2 * 4096);
	dio_free(buf, 4096);
}
END_TEST

START_TEST(errors_are_the_events_res)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDWR | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(8192);
	struct iocb cb[3], *list[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	aio_context_t ctx = 0;

	ck_assert_int_eq(sys_io_setup(4, &ctx), 0);
	prep(&cb[0], IOCB_CMD_PREAD, fd, buf + 1, 512, 0, 0);          /* misaligned */
	prep(&cb[1], IOCB_CMD_PWRITE, fd, buf, 512, FAKE_BYTES, 1);    /* at the end */
	prep(&cb[2], IOCB_CMD_PREAD, fd, buf, 4096, 0, 2);             /* the disk fails */
	ck_assert_int_eq(sys_io_submit(ctx, 3, list), 3);
	ck_assert_int_eq(nr_held, 1);
	ck_assert_int_eq(poll_events(ctx, ev, 3), 2);   /* the first two, at once */
	ck_assert_int_eq(ev[0].res, -EINVAL);
	ck_assert_int_eq(ev[1].res, -ENOSPC);
	fail_status = BLK_STS_IOERR;
	fake_end(1);
	ck_assert_int_eq(poll_events(ctx, ev, 3), 1);
	ck_assert_int_eq(ev[0].res, -EIO);
	ck_assert_uint_eq(ev[0].data, 2);
	fail_status = BLK_STS_OK;
	dio_free(buf, 8192);
}
END_TEST

START_TEST(sync_opcodes_post_their_event_at_once)
{
	int dfd = ksys_open(AT_FDCWD, "/dev/fake", O_RDWR | O_DIRECT, 0);
	int bfd = ksys_open(AT_FDCWD, "/dev/fake", O_RDWR, 0);
	char kbuf[16];
	struct iocb cb[3], *list[3] = { &cb[0], &cb[1], &cb[2] };
	struct io_event ev[3];
	aio_context_t ctx = 0;

	hold_bios = false;              /* buffered reads and flushes wait inline */
	ck_assert_int_eq(sys_io_setup(4, &ctx), 0);
	prep(&cb[0], IOCB_CMD_PREAD, bfd, kbuf, 16, 512, 0);   /* buffered: done in io_submit */
	prep(&cb[1], IOCB_CMD_FSYNC, dfd, NULL, 0, 0, 1);
	prep(&cb[2], IOCB_CMD_FDSYNC, dfd, NULL, 0, 0, 2);
	ck_assert_int_eq(sys_io_submit(ctx, 3, list), 3);
	ck_assert_int_eq(poll_events(ctx, ev, 3), 3);
	ck_assert_int_eq(ev[0].res, 16);
	ck_assert_int_eq(memcmp(kbuf, ram + 512, 16), 0);
	ck_assert_int_eq(ev[1].res, 0);
	ck_assert_int_eq(ev[2].res, 0);
	/* an opcode Spindle does not run: io_submit's error, no event */
	prep(&cb[0], IOCB_CMD_NOOP, dfd, NULL, 0, 0, 0);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EINVAL);
	ck_assert_int_eq(poll_events(ctx, ev, 3), 0);
}
END_TEST

START_TEST(bad_arguments)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4096);
	struct iocb cb, *list[1] = { &cb };
	struct io_event ev[1];
	struct __kernel_timespec bad_ts = { 0, 1000000000 };
	aio_context_t ctx = 0, junk = 1;

	ck_assert_int_eq(sys_io_setup(0, &ctx), -EINVAL);
	ck_assert_int_eq(sys_io_setup(4, &junk), -EINVAL);
	ck_assert_int_eq(sys_io_setup(4, NULL), -EFAULT);
	ck_assert_int_eq(sys_io_setup(4, &ctx), 0);
	ck_assert_int_eq(sys_io_submit(ctx + 1000, 1, list), -EINVAL);
	ck_assert_int_eq(sys_io_submit(ctx, -1, list), -EINVAL);
	ck_assert_int_eq(sys_io_submit(ctx, 1, NULL), -EFAULT);
	list[0] = NULL;
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EFAULT);
	list[0] = &cb;
	prep(&cb, IOCB_CMD_PREAD, 99, buf, 4096, 0, 0);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EBADF);
	prep(&cb, IOCB_CMD_PWRITE, fd, buf, 4096, 0, 0);       /* opened read-only */
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EBADF);
	prep(&cb, IOCB_CMD_PREAD, fd, buf, 4096, 0, 0);
	cb.aio_reserved2 = 1;
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EINVAL);
	prep(&cb, IOCB_CMD_PREAD, fd, buf, 4096, -4096, 0);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EINVAL);
	/* offset + nbytes past 2^63: not a position (rw_verify_area) */
	prep(&cb, IOCB_CMD_PREAD, fd, buf, 8192, INT64_MAX - 4095, 0);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), -EINVAL);
	ck_assert_int_eq(sys_io_getevents(ctx, 2, 1, ev, NULL), -EINVAL);
	ck_assert_int_eq(sys_io_getevents(ctx, 0, 1, ev, &bad_ts), -EINVAL);
	ck_assert_int_eq(sys_io_getevents(ctx + 1000, 0, 1, ev, NULL), -EINVAL);
	/* in flight and not cancellable */
	prep(&cb, IOCB_CMD_PREAD, fd, buf, 4096, 0, 0);
	ck_assert_int_eq(sys_io_submit(ctx, 1, list), 1);
	ck_assert_int_eq(sys_io_cancel(ctx, &cb, ev), -EINVAL);
	/* an iocb outside user space (the host cannot fault on a low one) */
	ck_assert_int_eq(sys_io_cancel(ctx, (struct iocb *)0xffff800000000000ul, ev), -EFAULT);
	ck_assert_int_eq(sys_io_cancel(ctx + 1000, &cb, ev), -EINVAL);
	fake_end(1);
	/* the failed submissions took no slot: the one read is all there is */
	ck_assert_int_eq(sys_io_getevents(ctx, 1, 1, ev, NULL), 1);
	ck_assert_int_eq(poll_events(ctx, ev, 1), 0);
	dio_free(buf, 4096);
}
END_TEST

START_TEST(exit_aio_frees_every_context)
{
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4096);
	struct iocb cb, *list[1] = { &cb };
	aio_context_t a = 0, b = 0;

	ck_assert_int_eq(sys_io_setup(4, &a), 0);
	ck_assert_int_eq(sys_io_setup(4, &b), 0);
	ck_assert_uint_ne(a, b);
	prep(&cb, IOCB_CMD_PREAD, fd, buf, 4096, 0, 0);
	ck_assert_int_eq(sys_io_submit(a, 1, list), 1);
	ck_assert_int_eq(sys_io_submit(b, 1, list), 1);
	fake_end(2);
	/* the fd closed with events unreaped: the requests hold the file */
	ck_assert_int_eq(close_fd(fd), 0);
	exit_aio(&test_mm);             /* frees both, events and all */
	ck_assert_ptr_null(test_mm.ioctx_list);
	ck_assert_int_eq(sys_io_destroy(a), -EINVAL);
	dio_free(buf, 4096);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("aio");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, events_come_from_the_completions_not_from_submit);
	tcase_add_test(core, a_write_reaches_the_disk_with_its_bios);
	tcase_add_test(core, sync_opcodes_post_their_event_at_once);
	tcase_add_test(core, exit_aio_frees_every_context);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, eagain_counts_events_not_yet_reaped);
	tcase_add_test(limits, a_fault_part_way_keeps_the_events_not_copied);
	tcase_add_test(limits, errors_are_the_events_res);
	tcase_add_test(limits, bad_arguments);
	suite_add_tcase(s, limits);
	return s;
}
