/* SPDX-License-Identifier: MIT */
/*
 * ktest_block.h - requests made by hand, for the suites that test a
 * driver's builder of DMA tables without a disk (the IDE PRD table in
 * ata_test.c, the AHCI PRDT in ahci_test.c).
 *
 * A builder reads only page_to_phys(bv_page) + bv_offset and bv_len of
 * each segment, so a made-up request can describe any physical address --
 * above 4 GiB, where the test machines have no memory, or a 4 MiB run --
 * and nothing is ever read or written there.
 */
#ifndef TESTS_KERNEL_KTEST_BLOCK_H
#define TESTS_KERNEL_KTEST_BLOCK_H

#include <spindle/bio.h>
#include <spindle/blk_mq.h>

#define KTEST_RQ_SEGS 4 /* segments a made-up request may have */

/* One segment: where it is in physical memory and how long (0: none). */
struct ktest_seg {
	u64 phys;
	unsigned int len;
};

/* A request and the one bio under it, with their storage (on the stack). */
struct ktest_rq {
	struct request rq;
	struct bio bio;
	struct bio_vec vecs[KTEST_RQ_SEGS];
};

/*
 * Make kr a request of op (REQ_OP_READ, REQ_OP_WRITE) over one bio whose
 * segments are segs[0..], up to the first of length 0 or KTEST_RQ_SEGS of
 * them.  The request is on no queue and is never submitted: hand
 * &kr->rq to the builder under test.
 */
struct request *ktest_fake_request(struct ktest_rq *kr, const struct ktest_seg *segs,
				   unsigned int op);

#endif /* TESTS_KERNEL_KTEST_BLOCK_H */
