/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - ordering memory accesses between CPUs (Linux's
 * asm/barrier.h and asm-generic/barrier.h).
 *
 * barrier() (compiler.h) stops only the compiler.  These stop the CPU too,
 * where it needs stopping.  x86 is "total store order": it keeps loads in
 * order, stores in order, and a load after a store to the *same* address
 * in order -- the one thing it does reorder is a store followed by a load
 * of a different address (the store may sit in the store buffer while the
 * load goes ahead).  So on x86:
 *
 *   smp_mb()            a full fence: lock-prefixed add to the stack, as
 *                       Linux uses (cheaper than mfence, same effect here)
 *   smp_rmb(), smp_wmb()  only barrier(): loads and stores stay in order
 *   smp_store_release(p, v)  store v, after every earlier access
 *   smp_load_acquire(p)      load, before every later access
 *   smp_store_mb(x, v)  store v, then a full fence: what set_current_state()
 *                       needs (sched.h), since its next step is a load of
 *                       the condition the waker stores
 *
 * Written with GCC's __atomic builtins where they say the same thing, so
 * the host build (the unit tests) gets the host's own fences.
 */
#ifndef SPINDLE_BARRIER_H
#define SPINDLE_BARRIER_H

#include <spindle/compiler.h>

#define smp_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() barrier()
#define smp_wmb() barrier()

#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_mb(x, v)      __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/*
 * Against a device that reads and writes RAM by DMA (Linux's wmb(),
 * rmb(), dma_rmb()):
 *
 *   wmb()      stores to memory (a ring entry) before a later store, also
 *              an MMIO one (the doorbell that tells the device to read it)
 *   rmb()      loads before later loads, of memory and MMIO alike
 *   dma_rmb()  loads of DMA memory in order: an entry's "it is new" flag
 *              before the rest of the entry the device wrote before it
 *
 * On x86 as Linux has them: sfence, lfence, and a compiler barrier (the
 * loads of cacheable memory stay in order).  smp_wmb() and smp_rmb() say
 * "against other CPUs" and are no substitute, even where they compile to
 * the same.  A host test may define its own first, to watch them
 * (tests/unit/check_nvme_ring.c models a controller that way).
 */
#ifndef wmb
#define wmb()     __asm__ volatile("sfence" ::: "memory")
#endif
#ifndef rmb
#define rmb()     __asm__ volatile("lfence" ::: "memory")
#endif
#ifndef dma_rmb
#define dma_rmb() barrier()
#endif

/* after taking a spinlock, order the critical section against what came
 * before it too (Linux's smp_mb__after_spinlock) */
#define smp_mb__after_spinlock() smp_mb()

#endif /* SPINDLE_BARRIER_H */
