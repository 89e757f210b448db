/* SPDX-License-Identifier: MIT */
/*
 * model.h for fs/io_uring_cq.c compiled on the host against the model
 * process of tests/unit/check_io_uring_cq.c.  The unit build forces it in
 * before the file's own includes (tests/unit/unit.mk), and the test
 * includes it too:
 *
 *   smp_store_release(p, v), smp_wmb(), smp_mb()
 *                  the model's: what the process can see of the CQEs
 *                  catches up with memory only at these
 *   kmalloc, kfree the model's allocator, which can be told to fail
 *   the file's functions and the two it calls (io_cq_slot, io_cq_wake)
 *                  renamed model_*: every unit program also links the
 *                  kernel's own copy (fs/io_uring.c uses it)
 */
#ifndef URING_CQ_MODEL_H
#define URING_CQ_MODEL_H

#include <spindle/types.h>
#include <spindle/barrier.h>    /* first: its guard keeps these below */

void uring_model_release(u32 *p, u32 v);
void uring_model_barrier(void);
void *model_kmalloc(size_t size, unsigned int gfp);
void model_kfree(const void *p);

#undef smp_store_release
#undef smp_wmb
#undef smp_mb
#define smp_store_release(p, v) uring_model_release((p), (v))
#define smp_wmb()               uring_model_barrier()
#define smp_mb()                uring_model_barrier()

#define kmalloc                 model_kmalloc
#define kfree                   model_kfree

#define io_cq_init              model_io_cq_init
#define io_cqring_post          model_io_cqring_post
#define io_cqring_overflow_flush model_io_cqring_overflow_flush
#define io_cqring_overflow_kill model_io_cqring_overflow_kill
#define io_cq_slot              model_io_cq_slot
#define io_cq_wake              model_io_cq_wake

#endif /* URING_CQ_MODEL_H */
