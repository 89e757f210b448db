/* SPDX-License-Identifier: MIT */
/*
 * mempool.h - a reserve of pre-allocated objects for allocations that must
 * not fail (kernel/mm/mempool.c).
 *
 * The block layer may need memory to write data out -- and writing data
 * out is how a kernel frees memory.  So the objects an I/O needs (bios)
 * come from a pool that keeps min_nr of them in reserve: mempool_alloc()
 * takes from the general allocator while it can, then from the reserve,
 * and when both are empty, a caller that may sleep waits for someone to
 * mempool_free() an object -- which completing I/O does.  It never fails
 * for a sleeping caller and never starts I/O itself.
 *
 * MEMPOOL_RESERVE_ONLY makes the reserve the only source, so a lab can
 * run a pool dry deterministically (the deadlock of the old FIFO bio order).
 */
#ifndef SPINDLE_MEMPOOL_H
#define SPINDLE_MEMPOOL_H

#include <spindle/types.h>
#include <spindle/spinlock.h>
#include <spindle/wait.h>
#include <spindle/mm.h>

typedef struct mempool {
	spinlock_t lock;
	unsigned int min_nr;            /* reserve size */
	unsigned int curr_nr;           /* objects in the reserve now */
	void **elements;                /* the reserve: a stack of objects */
	size_t size;                    /* object size (kmalloc) */
	unsigned int flags;
	unsigned long nr_waits;         /* times an allocation had to wait */
	struct wait_queue_head wait;
} mempool_t;

#define MEMPOOL_RESERVE_ONLY  (1u << 0)

/* Returns 0 or -ENOMEM (the reserve could not be filled). */
int mempool_init(mempool_t *pool, unsigned int min_nr, size_t size, unsigned int flags);
void mempool_exit(mempool_t *pool);
/* May sleep unless gfp has __GFP_ATOMIC; then NULL when empty. */
void *mempool_alloc(mempool_t *pool, gfp_t gfp);
/* Does not sleep: refills the reserve first, wakes a waiter. */
void mempool_free(void *element, mempool_t *pool);

#endif /* SPINDLE_MEMPOOL_H */
