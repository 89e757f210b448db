// SPDX-License-Identifier: MIT
/*
 * ktest_block.c - requests made by hand for the in-kernel suites
 * (tests/kernel/ktest_block.h says what for).
 */
#include <spindle/mm.h>
#include <spindle/string.h>
#include "ktest_block.h"

struct request *ktest_fake_request(struct ktest_rq *kr, const struct ktest_seg *segs,
				   unsigned int op)
{
	unsigned int n = 0, bytes = 0;

	memset(kr, 0, sizeof(*kr));
	for (; n < KTEST_RQ_SEGS && segs[n].len; n++) {
		kr->vecs[n].bv_page = pfn_to_page(segs[n].phys >> PAGE_SHIFT);
		kr->vecs[n].bv_offset = (unsigned int)(segs[n].phys & (PAGE_SIZE - 1));
		kr->vecs[n].bv_len = segs[n].len;
		bytes += segs[n].len;
	}
	kr->bio.bi_io_vec = kr->vecs;
	kr->bio.bi_vcnt = (unsigned short)n;
	kr->bio.bi_iter.bi_size = bytes;
	kr->bio.bi_opf = op;
	kr->rq.bio = kr->rq.biotail = &kr->bio;
	kr->rq.__data_len = bytes;
	kr->rq.nr_phys_segments = (unsigned short)n;    /* as blk_bio_segments() counts */
	kr->rq.cmd_flags = op;
	return &kr->rq;
}
