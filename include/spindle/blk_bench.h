/* SPDX-License-Identifier: MIT */
/*
 * blk_bench.h - the load generator behind the boot option
 *     bench=<dev>:<rw>:<bs>:<qd>:<size>
 * and (later) the user-space `bench`: keep qd bios of bs bytes in flight
 * against a block device until size bytes have moved, and measure.
 */
#ifndef SPINDLE_BLK_BENCH_H
#define SPINDLE_BLK_BENCH_H

#include <spindle/types.h>

struct block_device;

enum bench_rw { BENCH_READ, BENCH_WRITE, BENCH_RANDREAD, BENCH_RANDWRITE, BENCH_RANDRW };

struct bench_opts {
	enum bench_rw rw;
	u32 bs;                 /* bytes per I/O: a multiple of the block size, <= 1 MiB */
	u32 qd;                 /* I/Os kept in flight, 1..256 */
	u64 size;               /* total bytes */
	u64 seed;               /* for the random offsets */
};

struct bench_result {
	u64 ios;                /* completed */
	u64 ns;                 /* wall time of the run */
	u64 lat_avg_ns;         /* submit -> end_io, averaged */
	u64 lat_p99_ns;         /* ... its 99th percentile (nearest rank) */
	u64 merges;             /* merges the device's queue made meanwhile */
	unsigned int max_inflight;  /* most commands the driver held at once
				     * (request-based); else most bios */
	int error;              /* first I/O error (-errno), or 0 */
};

/* Run the load; returns 0, or -errno if it could not start (bad options). */
int blk_bench(struct block_device *bdev, const struct bench_opts *o, struct bench_result *r);

/* The pct-th percentile of lat[0..n) by nearest rank; sorts lat. */
u64 bench_percentile(u64 *lat, size_t n, unsigned int pct);

/* "read" -> BENCH_READ ...; returns -EINVAL for anything else. */
int bench_parse_rw(const char *s);
extern const char *const bench_rw_names[];

#endif /* SPINDLE_BLK_BENCH_H */
