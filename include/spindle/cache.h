/* SPDX-License-Identifier: MIT */
/*
 * cache.h - the cache line, for data that CPUs must not share by accident
 * (Linux's linux/cache.h).
 *
 * Caches keep memory coherent 64 bytes at a time.  Two CPUs that write
 * two different variables in one line still pass the line back and forth
 * ("false sharing"), each write costing the other CPU a miss, exactly as
 * if they shared one variable.  An array with one element per CPU or per
 * hardware queue is where it happens: give the element type
 * ____cacheline_aligned_in_smp and each element starts a line of its own
 * (its size rounds up to a multiple of the line).  tools/c2c.py finds
 * such lines (docs/performance.md, "Scaling with CPUs").
 */
#ifndef SPINDLE_CACHE_H
#define SPINDLE_CACHE_H

#define L1_CACHE_SHIFT  6
#define L1_CACHE_BYTES  (1 << L1_CACHE_SHIFT)   /* x86-64 */
#define SMP_CACHE_BYTES L1_CACHE_BYTES

#define ____cacheline_aligned __attribute__((__aligned__(SMP_CACHE_BYTES)))
/* Spindle always runs SMP-capable code, so the two are one */
#define ____cacheline_aligned_in_smp ____cacheline_aligned

#endif /* SPINDLE_CACHE_H */
