// SPDX-License-Identifier: MIT
/*
 * io_uring (fs/io_uring.c over fs/block_dev.c) on a fake disk whose bios
 * wait until the test ends them -- the test plays the disk's interrupt --
 * so what is posted when can be seen: nothing at io_uring_enter for an
 * O_DIRECT read, each CQE at its bio's end with its user_data and res.
 * The rings are reached as a process reaches them: through the
 * descriptor's f_op->mmap and the fault handler it installs, which hand
 * out the ring's own pages.  Also: params as Linux fills them, an SQ
 * index past the SQE array dropped and counted, a full CQ keeping the
 * CQEs that find no room on its overflow list, in order, a bad opcode
 * ending the batch unless IORING_SETUP_SUBMIT_ALL.
 */
#include <check.h>
#include <spindle/fs.h>
#include <spindle/fcntl.h>
#include <spindle/blkdev.h>
#include <spindle/bio.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <uapi/linux/io_uring.h>
#include "shim/host_kernel.h"
#include "shim/host_fs.h"
#include "../../fs/internal.h"
#include "../../block/blk.h"

/* the system calls, as syscalls.h declares them */
long sys_io_uring_setup(u32 entries, struct io_uring_params *params);
long sys_io_uring_enter(unsigned int fd, u32 to_submit, u32 min_complete, u32 flags,
			const void *argp, size_t argsz);
long sys_close(unsigned int fd);

#define FAKE_SECTORS    4096            /* 2 MiB */
#define FAKE_BYTES      (FAKE_SECTORS * 512)
#define MAX_HELD        64

static unsigned char *ram;
static struct gendisk *disk;
static struct bio *held[MAX_HELD];
static int nr_held;

static void fake_make_request(struct request_queue *q, struct bio *bio)
{
	struct bio_vec bv;
	struct bvec_iter iter;
	u64 pos = bio->bi_iter.bi_sector * 512;

	(void)q;
	if (bio_has_data(bio) && !bio_is_write(bio)) {
		/* the data arrives now; the completion when the test says */
		bio_for_each_segment(bv, bio, iter) {
			memcpy((char *)page_address(bv.bv_page) + bv.bv_offset, ram + pos, bv.bv_len);
			pos += bv.bv_len;
		}
		ck_assert_int_lt(nr_held, MAX_HELD);
		held[nr_held++] = bio;
		return;
	}
	bio_endio(bio);
}

/* The disk answers the first n held bios, oldest first (the interrupt). */
static void fake_end(int n)
{
	ck_assert_int_le(n, nr_held);
	for (int i = 0; i < n; i++)
		bio_endio(held[i]);
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
}

static void teardown(void)
{
	ck_assert_int_eq(nr_held, 0);
	exit_files(current);
	free(ram);
}

/* A ring as a process sees it: the kernel's pages, found through the
 * descriptor's mmap and fault, as a page each (they need not be
 * contiguous). */
struct uring {
	int fd;
	struct io_uring_params p;
	struct file *f;
	struct vm_area_struct vma;
};

/* The byte at off of the mapping at mmap offset base, through the fault. */
static void *uring_at(struct uring *u, u64 base, size_t off)
{
	struct vm_fault vmf = { .vma = &u->vma };
	int ret;

	u->vma.vm_pgoff = base >> PAGE_SHIFT;
	vmf.pgoff = (base + off) >> PAGE_SHIFT;
	ret = u->vma.vm_ops->fault(&vmf);
	ck_assert_int_eq(ret, VM_FAULT_OK);
	put_page(vmf.page);             /* the ring keeps its own reference */
	return (char *)page_address(vmf.page) + (off & ~PAGE_MASK);
}

static u32 *sq_u32(struct uring *u, u32 off) { return uring_at(u, IORING_OFF_SQ_RING, off); }
static u32 *cq_u32(struct uring *u, u32 off) { return uring_at(u, IORING_OFF_CQ_RING, off); }

static void uring_open(struct uring *u, u32 entries, u32 flags)
{
	memset(u, 0, sizeof(*u));
	u->p.flags = flags;
	u->fd = (int)sys_io_uring_setup(entries, &u->p);
	ck_assert_int_ge(u->fd, 0);
	u->f = fget((unsigned int)u->fd);
	ck_assert_ptr_nonnull(u->f);
	u->vma.vm_file = u->f;
	u->vma.vm_start = 0x10000000;
	u->vma.vm_end = u->vma.vm_start + PAGE_SIZE;
	u->vma.vm_flags = VM_READ | VM_WRITE | VM_SHARED;
	ck_assert_int_eq(u->f->f_op->mmap(u->f, &u->vma), 0);
	ck_assert_ptr_nonnull(u->vma.vm_ops);
}

static void uring_close(struct uring *u)
{
	fput(u->f);
	ck_assert_int_eq(sys_close((unsigned int)u->fd), 0);
}

/* Queue one SQE at the process's SQ tail (slot = tail's index). */
static void queue_sqe(struct uring *u, const struct io_uring_sqe *sqe)
{
	u32 *tail = sq_u32(u, u->p.sq_off.tail), t = *tail, slot = t & (u->p.sq_entries - 1);

	memcpy(uring_at(u, IORING_OFF_SQES, slot * sizeof(*sqe)), sqe, sizeof(*sqe));
	*sq_u32(u, u->p.sq_off.array + slot * 4) = slot;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
}

static struct io_uring_sqe read_sqe(int fd, void *buf, u32 len, u64 off, u64 data)
{
	return (struct io_uring_sqe){ .opcode = IORING_OP_READ, .fd = fd, .off = off,
		.addr = (u64)(unsigned long)buf, .len = len, .user_data = data };
}

static u32 cq_ready(struct uring *u)
{
	return __atomic_load_n(cq_u32(u, u->p.cq_off.tail), __ATOMIC_ACQUIRE) -
	       *cq_u32(u, u->p.cq_off.head);
}

/* Take the CQE at the head and move the head on. */
static struct io_uring_cqe pop_cqe(struct uring *u)
{
	u32 *head = cq_u32(u, u->p.cq_off.head), h = *head;
	struct io_uring_cqe cqe;

	ck_assert_uint_gt(cq_ready(u), 0);
	cqe = *(struct io_uring_cqe *)uring_at(u, IORING_OFF_CQ_RING, u->p.cq_off.cqes +
					       (h & (u->p.cq_entries - 1)) * sizeof(cqe));
	__atomic_store_n(head, h + 1, __ATOMIC_RELEASE);
	return cqe;
}

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

START_TEST(setup_fills_params_as_linux)
{
	struct uring u;
	struct vm_area_struct vma = { 0 };

	uring_open(&u, 5, 0);
	ck_assert_uint_eq(u.p.sq_entries, 8);
	ck_assert_uint_eq(u.p.cq_entries, 16);
	ck_assert_uint_eq(u.p.features, IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP |
					  IORING_FEAT_SUBMIT_STABLE | IORING_FEAT_RW_CUR_POS |
					  IORING_FEAT_EXT_ARG);
	ck_assert_uint_eq(*sq_u32(&u, u.p.sq_off.ring_mask), 7);
	ck_assert_uint_eq(*sq_u32(&u, u.p.sq_off.ring_entries), 8);
	ck_assert_uint_eq(*cq_u32(&u, u.p.cq_off.ring_mask), 15);
	ck_assert_uint_eq(*cq_u32(&u, u.p.cq_off.ring_entries), 16);
	/* the CQEs and the SQ array do not overlap */
	ck_assert_uint_ge(u.p.sq_off.array, u.p.cq_off.cqes + 16 * sizeof(struct io_uring_cqe));
	/* an offset that is none of the three, a length past the region */
	vma.vm_file = u.f;
	vma.vm_pgoff = 0x1000;
	vma.vm_start = 0x10000000;
	vma.vm_end = vma.vm_start + PAGE_SIZE;
	ck_assert_int_eq(u.f->f_op->mmap(u.f, &vma), -EINVAL);
	vma.vm_pgoff = IORING_OFF_SQES >> PAGE_SHIFT;
	vma.vm_end = vma.vm_start + 2 * PAGE_SIZE;      /* 8 SQEs: 512 bytes, one page */
	ck_assert_int_eq(u.f->f_op->mmap(u.f, &vma), -EINVAL);
	uring_close(&u);
	/* Linux's refusals */
	ck_assert_int_eq(sys_io_uring_setup(0, &u.p), -EINVAL);
	memset(&u.p, 0, sizeof(u.p));
	u.p.flags = IORING_SETUP_SINGLE_ISSUER;         /* not in Spindle */
	ck_assert_int_eq(sys_io_uring_setup(8, &u.p), -EINVAL);
	memset(&u.p, 0, sizeof(u.p));
	u.p.flags = IORING_SETUP_SQ_AFF;                /* without SQPOLL */
	ck_assert_int_eq(sys_io_uring_setup(8, &u.p), -EINVAL);
	memset(&u.p, 0, sizeof(u.p));
	u.p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	u.p.sq_thread_cpu = 4096;                       /* no such CPU */
	ck_assert_int_eq(sys_io_uring_setup(8, &u.p), -EINVAL);
}
END_TEST

START_TEST(cqes_come_from_the_completions_not_from_enter)
{
	struct uring u;
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(4 * 4096);

	ck_assert_int_ge(fd, 0);
	uring_open(&u, 8, 0);
	memset(buf, 0, 4 * 4096);
	for (int i = 0; i < 4; i++) {
		struct io_uring_sqe sqe = read_sqe(fd, buf + i * 4096, 4096, (u64)(3 - i) * 8192,
						   100 + i);

		queue_sqe(&u, &sqe);
	}
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 4, 0, 0, NULL, 0), 4);
	/* taken: the kernel's SQ head moved; sent, none answered */
	ck_assert_uint_eq(*sq_u32(&u, u.p.sq_off.head), 4);
	ck_assert_int_eq(nr_held, 4);
	ck_assert_uint_eq(cq_ready(&u), 0);

	fake_end(2);                                    /* the first two end */
	ck_assert_uint_eq(cq_ready(&u), 2);
	for (int i = 0; i < 2; i++) {
		struct io_uring_cqe cqe = pop_cqe(&u);

		ck_assert_uint_eq(cqe.user_data, 100 + i);
		ck_assert_int_eq(cqe.res, 4096);
		ck_assert_int_eq(memcmp(buf + i * 4096, ram + (3 - i) * 8192, 4096), 0);
	}
	fake_end(2);
	/* two are there: GETEVENTS with min_complete 2 does not sleep */
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 0, 2, IORING_ENTER_GETEVENTS, NULL, 0), 0);
	ck_assert_uint_eq(pop_cqe(&u).user_data + pop_cqe(&u).user_data, 102 + 103);
	uring_close(&u);
	dio_free(buf, 4 * 4096);
}
END_TEST

START_TEST(an_sq_index_past_the_sqes_is_dropped)
{
	struct uring u;
	u32 *tail;

	uring_open(&u, 4, 0);
	tail = sq_u32(&u, u.p.sq_off.tail);
	*sq_u32(&u, u.p.sq_off.array) = 4;              /* one past the last SQE */
	__atomic_store_n(tail, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 1, 0, 0, NULL, 0), 0);
	ck_assert_uint_eq(*sq_u32(&u, u.p.sq_off.dropped), 1);
	ck_assert_uint_eq(*sq_u32(&u, u.p.sq_off.head), 1);
	ck_assert_uint_eq(cq_ready(&u), 0);
	/* the ring goes on */
	{
		struct io_uring_sqe nop = { .opcode = IORING_OP_NOP, .user_data = 9 };

		queue_sqe(&u, &nop);
	}
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0), 1);
	ck_assert_uint_eq(pop_cqe(&u).user_data, 9);
	uring_close(&u);
}
END_TEST

START_TEST(a_full_cq_keeps_the_rest_on_the_overflow_list)
{
	struct uring u;
	int fd = ksys_open(AT_FDCWD, "/dev/fake", O_RDONLY | O_DIRECT, 0);
	unsigned char *buf = dio_alloc(12 * 4096);
	struct io_uring_sqe nop = { .opcode = IORING_OP_NOP, .user_data = 99 };
	u32 *sq_flags, *lost;

	ck_assert_int_ge(fd, 0);
	uring_open(&u, 4, 0);                           /* 4 SQ, 8 CQ entries */
	sq_flags = sq_u32(&u, u.p.sq_off.flags);
	lost = cq_u32(&u, u.p.cq_off.overflow);
	ck_assert(u.p.features & IORING_FEAT_NODROP);
	/* 12 reads in flight for 8 CQ entries: a full CQ holds nothing back */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++) {
			struct io_uring_sqe sqe = read_sqe(fd, buf + (round * 4 + i) * 4096, 4096,
							   0, round * 4 + i);

			queue_sqe(&u, &sqe);
		}
		ck_assert_int_eq(sys_io_uring_enter(u.fd, 4, 0, 0, NULL, 0), 4);
	}
	ck_assert_uint_eq(cq_ready(&u), 0);
	fake_end(12);                                   /* the "interrupts" post */
	ck_assert_uint_eq(cq_ready(&u), 8);
	ck_assert_uint_eq(*sq_flags & IORING_SQ_CQ_OVERFLOW, IORING_SQ_CQ_OVERFLOW);
	ck_assert_uint_eq(*lost, 0);
	/* a NOP's CQE joins the list behind the 4 reads', whatever the room */
	queue_sqe(&u, &nop);
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 1, 0, 0, NULL, 0), 1);
	for (u32 i = 0; i < 8; i++) {
		struct io_uring_cqe cqe = pop_cqe(&u);

		ck_assert_uint_eq(cqe.user_data, i);
		ck_assert_int_eq(cqe.res, 4096);
	}
	ck_assert_uint_eq(cq_ready(&u), 0);             /* not flushed yet */
	ck_assert_int_eq(sys_io_uring_enter(u.fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0), 0);
	ck_assert_uint_eq(cq_ready(&u), 5);
	for (u32 i = 8; i < 12; i++)
		ck_assert_uint_eq(pop_cqe(&u).user_data, i);
	ck_assert_uint_eq(pop_cqe(&u).user_data, 99);
	ck_assert_uint_eq(*sq_flags & IORING_SQ_CQ_OVERFLOW, 0);
	ck_assert_uint_eq(*lost, 0);
	uring_close(&u);
	dio_free(buf, 12 * 4096);
}
END_TEST

START_TEST(a_bad_opcode_ends_the_batch_unless_submit_all)
{
	static const u32 flags[2] = { 0, IORING_SETUP_SUBMIT_ALL };

	for (int k = 0; k < 2; k++) {
		struct uring u;
		struct io_uring_sqe bad = { .opcode = IORING_OP_LAST, .user_data = 1 };
		struct io_uring_sqe nop = { .opcode = IORING_OP_NOP, .user_data = 2 };
		struct io_uring_cqe cqe;

		uring_open(&u, 4, flags[k]);
		queue_sqe(&u, &bad);
		queue_sqe(&u, &nop);
		ck_assert_int_eq(sys_io_uring_enter(u.fd, 2, 0, 0, NULL, 0), k ? 2 : 1);
		cqe = pop_cqe(&u);
		ck_assert_uint_eq(cqe.user_data, 1);
		ck_assert_int_eq(cqe.res, -EINVAL);
		if (!k)         /* the NOP waits for the next call */
			ck_assert_int_eq(sys_io_uring_enter(u.fd, 1, 0, 0, NULL, 0), 1);
		cqe = pop_cqe(&u);
		ck_assert_uint_eq(cqe.user_data, 2);
		ck_assert_int_eq(cqe.res, 0);
		uring_close(&u);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("io_uring");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, setup_fills_params_as_linux);
	tcase_add_test(core, cqes_come_from_the_completions_not_from_enter);
	suite_add_tcase(s, core);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(limits, an_sq_index_past_the_sqes_is_dropped);
	tcase_add_test(limits, a_full_cq_keeps_the_rest_on_the_overflow_list);
	tcase_add_test(limits, a_bad_opcode_ends_the_batch_unless_submit_all);
	suite_add_tcase(s, limits);
	return s;
}
