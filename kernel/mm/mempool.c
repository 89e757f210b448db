// SPDX-License-Identifier: MIT
/*
 * mempool.c - reserves for allocations that must not fail
 * (include/spindle/mempool.h).
 *
 * mempool_alloc():
 *   1. the general allocator (kmalloc), unless the pool is reserve-only;
 *   2. the reserve;
 *   3. if the caller may sleep: wait on pool->wait until mempool_free()
 *      puts an object back, then try again.  An atomic caller gets NULL.
 * mempool_free() refills the reserve before giving memory back to kmalloc,
 * so the reserve is full again as soon as I/O drains; while it is full,
 * a free takes no lock.
 *
 * Portable (host unit tests).
 */
#include <spindle/mempool.h>
#include <spindle/printk.h>
#include <spindle/errno.h>

int mempool_init(mempool_t *pool, unsigned int min_nr, size_t size, unsigned int flags)
{
	spin_lock_init(&pool->lock);
	init_waitqueue_head(&pool->wait);
	pool->min_nr = min_nr;
	pool->curr_nr = 0;
	pool->size = size;
	pool->flags = flags;
	pool->nr_waits = 0;
	pool->elements = kcalloc(min_nr ? min_nr : 1, sizeof(void *), GFP_KERNEL);
	if (!pool->elements)
		return -ENOMEM;
	while (pool->curr_nr < min_nr) {
		void *e = kmalloc(size, GFP_KERNEL);

		if (!e) {
			mempool_exit(pool);
			return -ENOMEM;
		}
		pool->elements[pool->curr_nr++] = e;
	}
	return 0;
}

/* Every object must have come back. */
void mempool_exit(mempool_t *pool)
{
	while (pool->curr_nr)
		kfree(pool->elements[--pool->curr_nr]);
	kfree(pool->elements);
	pool->elements = NULL;
}

static void *take_reserved(mempool_t *pool)
{
	unsigned long flags;
	void *e = NULL;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->curr_nr)
		e = pool->elements[--pool->curr_nr];
	spin_unlock_irqrestore(&pool->lock, flags);
	return e;
}

void *mempool_alloc(mempool_t *pool, gfp_t gfp)
{
	void *e;

	/* step 3 may sleep: check the caller even when kmalloc or the
	 * reserve will answer this time (Linux's might_sleep_if) */
	might_sleep_if(!(gfp & __GFP_ATOMIC));
	for (;;) {
		if (!(pool->flags & MEMPOOL_RESERVE_ONLY)) {
			e = kmalloc(pool->size, gfp | __GFP_ATOMIC);
			if (e)
				return e;
		}
		e = take_reserved(pool);
		if (e || (gfp & __GFP_ATOMIC))
			return e;
		/* Only a free can help now: sleep until one happens. */
		pool->nr_waits++;
		wait_event(pool->wait, READ_ONCE(pool->curr_nr) > 0);
	}
}

/*
 * With the reserve full -- nearly always -- the element goes straight
 * back to kmalloc, and the pool's lock is not taken: a pool that every
 * CPU's I/O frees into (the bios') would otherwise be one lock all of
 * them share.  The unlocked look at curr_nr is Linux's: a task sleeps
 * in mempool_alloc() only once the reserve is empty, so its elements
 * are all out, each taken after curr_nr went down (under the lock,
 * whose release orders that before the element is handed on); their
 * frees see the reserve short, take the lock, refill it and wake it.
 */
void mempool_free(void *element, mempool_t *pool)
{
	unsigned long flags;

	if (!element)
		return;
	smp_rmb();      /* curr_nr after what the element held: Linux's pairing */
	if (READ_ONCE(pool->curr_nr) < pool->min_nr) {
		spin_lock_irqsave(&pool->lock, flags);
		if (pool->curr_nr < pool->min_nr) {
			pool->elements[pool->curr_nr++] = element;
			spin_unlock_irqrestore(&pool->lock, flags);
			wake_up(&pool->wait);
			return;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	kfree(element);
}
