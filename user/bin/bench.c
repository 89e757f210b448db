// SPDX-License-Identifier: MIT
/*
 * bench DEV RW BS QD SIZE [ENGINE] [numjobs=N]
 *       (or bench DEV:RW:BS:QD:SIZE[:ENGINE][:numjobs=N], as the boot option)
 *
 * The kernel's bench= load generator (block/blk-bench.c), from user space,
 * printing the same line:
 *
 *   BENCH dev=sda rw=randread bs=4096 qd=32 iops=... MBps=... lat_avg_us=...
 *         lat_p99_us=... merges=... max_inflight=...
 *
 * RW is read|write|randread|randwrite; BS and SIZE take K/M/G/T (memparse.h); QD is the
 * number of requests kept in flight, by one of these engines (fio's names):
 *
 *   aio    (the default when QD > 1) ONE process keeps QD O_DIRECT I/Os
 *          in flight with io_submit/io_getevents (docs/aio.md): the
 *          first QD go in one io_submit, and each io_getevents that
 *          returns completions is followed by one io_submit refilling
 *          the slots they freed.  A latency runs from the io_submit of
 *          an I/O to the io_getevents that returned its event.
 *   psync  (the default when QD is 1) a process can have only one
 *          synchronous read or write outstanding, so QD is made of QD
 *          worker processes, each doing O_DIRECT pread/pwrite one after
 *          the other.  Each worker sends its count, latency sum, start
 *          and end times and its latency samples back through a pipe of
 *          its own; the parent merges them.
 *   pvsync2  the same with preadv2/pwritev2 (one iovec, no flags)
 *   hipri  pvsync2 with RWF_HIPRI -- fio's pvsync2 with --hipri: each I/O
 *          is polled for (the worker spins in the kernel reaping a poll
 *          queue, docs/block.md) instead of sleeping for an interrupt;
 *          on a disk without poll queues it sleeps, as pvsync2.
 *   io_uring  ONE process keeps QD I/Os in flight through an io_uring
 *          (docs/aio.md, "io_uring"), with the raw system calls and the
 *          rings mapped by hand (no liburing): the refills of the slots
 *          that completions freed go into the SQ, and ONE io_uring_enter
 *          both submits them and waits for at least one completion.
 *          Options after commas, fio's names (io_uring,hipri,fixedbufs):
 *            hipri          IORING_SETUP_IOPOLL: the enter polls the
 *                           device's poll queue instead of sleeping (on
 *                           a disk without poll queues the I/O completes
 *                           by interrupt, and the enter spins until then);
 *            sqthread_poll  IORING_SETUP_SQPOLL: a kernel thread takes
 *                           the SQEs, bench enters only to wait (or to
 *                           wake the thread); implies registered files;
 *            fixedbufs      READ_FIXED/WRITE_FIXED on buffers registered
 *                           once (IORING_REGISTER_BUFFERS): on Linux no
 *                           pinning per I/O (Spindle still pins them:
 *                           docs/performance.md).
 *          Its BENCH line ends with one more field, engine=io_uring and
 *          the options given; the other engines' lines are unchanged.
 *
 * Either way the disk sees up to QD requests at once, and I/O number i
 * (0 <= i < SIZE/BS) goes to block i (sequential, wrapping at the
 * device's end) or splitmix64(1 + i) % blocks (random) -- the kernel's
 * choice of blocks; with psync it is worker i % QD's.  The elapsed time
 * runs from the first start to the last end, p99 is the nearest-rank
 * 99th percentile.
 * merges= is the growth of the merge counters in /sys/block/DISK/stat;
 * max_inflight= is the most commands the driver held at once during the
 * run: /sys/block/DISK/queue/tags_peak, reset to 0 before the workers
 * start (Spindle's own file; the kernel's bench= reads the same counter;
 * 0 for a bio-based device, which has no tags).  DISK is the whole disk
 * DEV is on: for a partition (sda1) or a file (/mnt/f0, whose st_dev is
 * the partition the file system was mounted from) it is found by its
 * major:minor in the dev files of /sys/block/<disk> and its partitions,
 * as lsblk finds a device's disk.  The line does not name the engine
 * (scenarios and labs match it up to its end), except io_uring's, which
 * ends with engine=io_uring[,OPTION...]: tools/perf.py keeps its rows
 * apart by that.
 *
 * numjobs=N (fio's option, after the other arguments; DEV:...:numjobs=N in
 * the boot option's form) runs N copies of the job at once, as fio does:
 * N job processes, job k pinned with sched_setaffinity to CPU k mod the
 * number of online CPUs (counted in /proc/stat), each doing SIZE/BS I/Os
 * of its own -- job k's I/O number i is the job's number k*SIZE/BS + i
 * above, so the jobs read different blocks.  A job is what one bench
 * does alone (its own aio context, ring or psync workers, which inherit
 * its CPU).  Each job prints
 *
 *   BENCHJOB job=K cpu=C ios=... iops=...
 *
 * (C is the CPU the job ended on, by getcpu), then one BENCH line sums
 * them: iops= is every job's I/Os over the time from the first job's
 * start to the last one's end, latencies are over all jobs' samples, and
 * the line ends with numjobs=N.  Without numjobs the output is as above.
 * This is how the block layer's scaling with CPUs is measured
 * (docs/performance.md, "Scaling with CPUs").
 *
 * Writes destroy the data in the range.  Performance is shown by running
 * this, never asserted by a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <dirent.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <asm/unistd_64.h>
#include <pattern.h>
#include <memparse.h>

#define MAX_QD        256
#define MAX_JOBS      64                /* numjobs= */
#define MAX_BS        (1u << 20)
#define MAX_SAMPLES   (1u << 16)        /* latencies kept, over all workers */

static const char *const rw_names[] = { "read", "write", "randread", "randwrite" };
static const char *const engine_names[] = { "psync", "aio", "pvsync2", "hipri", "io_uring" };
enum { ENGINE_PSYNC, ENGINE_AIO, ENGINE_PVSYNC2, ENGINE_HIPRI, ENGINE_IO_URING };

/* the io_uring engine's options (fio's names), in the order printed */
static const char *const uring_opt_names[] = { "hipri", "sqthread_poll", "fixedbufs" };
enum { URING_HIPRI = 1 << 0, URING_SQPOLL = 1 << 1, URING_FIXEDBUFS = 1 << 2 };

struct job {
	char dev[64], path[128];
	char disk[64];                  /* the whole disk under /sys/block */
	int rw;                         /* index into rw_names */
	uint64_t bs, qd, size, blocks;
	int engine;                     /* ENGINE_* */
	unsigned uring_opts;            /* URING_*, for ENGINE_IO_URING */
	unsigned numjobs;               /* copies of the job run at once (numjobs=) */
	uint64_t first_io;              /* this copy's I/O numbers start here */
};

/* what a worker sends back, followed by `samples` u64 latencies (ns) */
struct result {
	uint64_t ios, lat_sum, start, end, samples;
	int64_t error;                  /* errno of the first failure, or 0 */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* a small sysfs file's text into buf (NUL-terminated); its length, or 0 */
static ssize_t read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return 0;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	return len;
}

/* read a small sysfs file of numbers into v[]; returns how many */
static int read_numbers(const char *path, uint64_t *v, int max)
{
	char buf[512], *p = buf;
	int n = 0;

	if (!read_text(path, buf, sizeof(buf)))
		return 0;
	while (n < max) {
		char *end;

		v[n] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
		n++;
	}
	return n;
}

/* does the sysfs dev file at path read "maj:min"? */
static int sysfs_dev_is(const char *path, unsigned int maj, unsigned int min)
{
	char buf[32], want[32];

	if (!read_text(path, buf, sizeof(buf)))
		return 0;
	snprintf(want, sizeof(want), "%u:%u\n", maj, min);
	return !strcmp(buf, want);
}

/*
 * The disk under /sys/block holding device d (a disk or one of its
 * partitions) into j->disk; -ENODEV if no disk or partition is d.
 */
static int find_disk(struct job *j, dev_t d)
{
	char path[400];
	struct dirent *e, *p;
	DIR *top = opendir("/sys/block"), *sub;
	int found = 0;

	if (!top)
		return -ENODEV;
	while (!found && (e = readdir(top)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		found = sysfs_dev_is(path, major(d), minor(d));
		snprintf(path, sizeof(path), "/sys/block/%s", e->d_name);
		sub = found ? NULL : opendir(path);
		while (sub && !found && (p = readdir(sub)) != NULL) {
			if (p->d_name[0] == '.' || p->d_type != DT_DIR)
				continue;
			snprintf(path, sizeof(path), "/sys/block/%s/%s/dev", e->d_name, p->d_name);
			found = sysfs_dev_is(path, major(d), minor(d));
		}
		if (sub)
			closedir(sub);
		if (found)
			snprintf(j->disk, sizeof(j->disk), "%s", e->d_name);
	}
	closedir(top);
	return found ? 0 : -ENODEV;
}

static uint64_t disk_merges(const struct job *j)
{
	char path[160];
	uint64_t v[11] = { 0 };

	snprintf(path, sizeof(path), "/sys/block/%s/stat", j->disk);
	read_numbers(path, v, 11);
	return v[1] + v[5];             /* read merges, write merges */
}

/* DISK's queue/tags_peak file (see the top of this file). */
static void tags_peak_path(const struct job *j, char *path, size_t size)
{
	snprintf(path, size, "/sys/block/%s/queue/tags_peak", j->disk);
}

static void tags_peak_reset(const struct job *j)
{
	char path[160];
	int fd;

	tags_peak_path(j, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		write(fd, "0", 1);
		close(fd);
	}
}

static uint64_t tags_peak(const struct job *j)
{
	char path[160];
	uint64_t v = 0;

	tags_peak_path(j, path, sizeof(path));
	read_numbers(path, &v, 1);
	return v;
}

/* results to the parent, or die: the parent sees a short read */
static void send_all(int fd, const void *p, size_t n)
{
	if (write_all(fd, p, n))
		_exit(3);
}

/* The block of I/O number i of this copy of the job (see the top of
 * this file); first_io is 0 without numjobs. */
static uint64_t job_block(const struct job *j, uint64_t i)
{
	i += j->first_io;
	return j->rw >= 2 ? splitmix64(1 + i) % j->blocks : i % j->blocks;
}

/* a worker: I/Os w, w+qd, w+2qd ...; results to fd `out` */
static void worker(const struct job *j, unsigned w, int out)
{
	int write_mode = j->rw == 1 || j->rw == 3;
	uint64_t total = j->size / j->bs, cap = MAX_SAMPLES / j->numjobs / j->qd;
	struct result r = { 0 };
	uint64_t *lat = malloc((cap ? cap : 1) * sizeof(*lat));
	void *buf = mmap(NULL, j->bs, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(j->path, (write_mode ? O_WRONLY : O_RDONLY) | O_DIRECT);

	if (fd < 0 || buf == MAP_FAILED || !lat) {
		r.error = fd < 0 ? errno : ENOMEM;
		send_all(out, &r, sizeof(r));
		_exit(1);
	}
	if (write_mode)
		memset(buf, 0xa5, j->bs);
	r.start = now_ns();
	for (uint64_t i = w; i < total; i += j->qd) {
		uint64_t block = job_block(j, i);
		uint64_t t0, dt;
		ssize_t n;
		t0 = now_ns();
		if (j->engine == ENGINE_PSYNC) {
			n = write_mode ? pwrite(fd, buf, j->bs, (off_t)(block * j->bs))
				       : pread(fd, buf, j->bs, (off_t)(block * j->bs));
		} else {
			struct iovec v = { buf, j->bs };
			int flags = j->engine == ENGINE_HIPRI ? RWF_HIPRI : 0;

			n = write_mode ? pwritev2(fd, &v, 1, (off_t)(block * j->bs), flags)
				       : preadv2(fd, &v, 1, (off_t)(block * j->bs), flags);
		}

		dt = now_ns() - t0;
		if (n != (ssize_t)j->bs) {
			r.error = n < 0 ? errno : EIO;
			break;
		}
		if (r.ios < cap)
			lat[r.ios] = dt;
		r.ios++;
		r.lat_sum += dt;
	}
	r.end = now_ns();
	r.samples = r.ios < cap ? r.ios : cap;
	send_all(out, &r, sizeof(r));
	send_all(out, lat, r.samples * sizeof(*lat));
	_exit(0);
}

/*
 * The aio engine: this one process keeps qd I/Os in flight.  Slot s of
 * the context has its own buffer and its own iocb; io_submit sends the
 * first qd in one batch, then each io_getevents that returns some
 * completions is followed by one io_submit of as many new I/Os, into the
 * slots just freed.  A latency is from the io_submit that sent the I/O to
 * the io_getevents that returned its event.  Fills r and lat (up to cap
 * samples); returns 0, or -1 with r->error set.
 */
static int run_aio(const struct job *j, struct result *r, uint64_t *lat, uint64_t cap)
{
	int write_mode = j->rw == 1 || j->rw == 3;
	uint64_t total = j->size / j->bs, next = 0, done = 0;
	struct iocb *cbs = calloc(j->qd, sizeof(*cbs));
	struct iocb **batch = calloc(j->qd, sizeof(*batch));
	struct io_event *ev = calloc(j->qd, sizeof(*ev));
	uint64_t *sent_at = calloc(j->qd, sizeof(*sent_at));
	unsigned char *buf = mmap(NULL, j->qd * j->bs, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(j->path, (write_mode ? O_WRONLY : O_RDONLY) | O_DIRECT);
	aio_context_t ctx = 0;
	uint64_t *free_slots = calloc(j->qd, sizeof(*free_slots)), nfree = j->qd;

	memset(r, 0, sizeof(*r));
	if (fd < 0 || buf == MAP_FAILED || !cbs || !batch || !ev || !sent_at || !free_slots) {
		r->error = fd < 0 ? errno : ENOMEM;
		return -1;
	}
	if (io_setup(j->qd, &ctx) < 0) {
		r->error = errno;
		return -1;
	}
	if (write_mode)
		memset(buf, 0xa5, j->qd * j->bs);
	for (uint64_t s = 0; s < j->qd; s++)
		free_slots[s] = j->qd - 1 - s;
	r->start = now_ns();
	while (done < total && !r->error) {
		long n = 0, got;
		uint64_t t;

		/* fill every free slot with the next I/O, one io_submit */
		while (nfree && next < total) {
			uint64_t s = free_slots[--nfree];
			struct iocb *cb = &cbs[s];

			memset(cb, 0, sizeof(*cb));
			cb->aio_lio_opcode = write_mode ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
			cb->aio_fildes = fd;
			cb->aio_buf = (uint64_t)(uintptr_t)(buf + s * j->bs);
			cb->aio_nbytes = j->bs;
			cb->aio_offset = (int64_t)(job_block(j, next) * j->bs);
			cb->aio_data = s;
			batch[n++] = cb;
			next++;
		}
		t = now_ns();
		for (long k = 0; k < n; k++)
			sent_at[batch[k]->aio_data] = t;
		for (long k = 0; k < n; ) {
			long m = io_submit(ctx, n - k, batch + k);

			if (m <= 0) {
				r->error = m < 0 ? errno : EIO;
				break;
			}
			k += m;
		}
		if (r->error)
			break;
		got = io_getevents(ctx, 1, (long)j->qd, ev, NULL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r->error = got < 0 ? errno : EIO;
			break;
		}
		t = now_ns();
		for (long k = 0; k < got; k++) {
			uint64_t s = ev[k].data, dt = t - sent_at[s];

			if (ev[k].res != (int64_t)j->bs && !r->error)
				r->error = ev[k].res < 0 ? -ev[k].res : EIO;
			if (r->ios < cap)
				lat[r->ios] = dt;
			r->ios++;
			r->lat_sum += dt;
			free_slots[nfree++] = s;
			done++;
		}
	}
	r->end = now_ns();
	r->samples = r->ios < cap ? r->ios : cap;
	io_destroy(ctx);                /* waits for any still in flight */
	close(fd);
	munmap(buf, j->qd * j->bs);
	free(cbs);
	free(batch);
	free(ev);
	free(sent_at);
	free(free_slots);
	return r->error ? -1 : 0;
}

/*
 * The io_uring engine's ring, as io_uring_setup left it and mmap mapped
 * it.  Where each index sits in the mapping is not fixed: setup says it
 * in params.sq_off and cq_off (include/uapi/linux/io_uring.h).  Each
 * index has one writer: bench moves the SQ tail and the CQ head, each
 * with a store-release after the entries it covers; the kernel moves the
 * SQ head and the CQ tail, which bench reads with a load-acquire.
 */
struct uring {
	int fd;
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_flags, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;      /* the SQE array, a mapping of its own */
	struct io_uring_cqe *cqes;
	void *ring;                     /* SQ and CQ ring: one mapping */
	size_t ring_len, sqes_len;
};

/*
 * A ring of `entries` SQEs (and Linux's default of twice as many CQEs),
 * with setup flags `flags`, mapped into u; -1 with errno set on failure.
 * One mmap serves both rings: Spindle, and Linux since 5.4, say so with
 * IORING_FEAT_SINGLE_MMAP, which is required here.
 */
static int uring_setup(struct uring *u, unsigned entries, unsigned flags)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	unsigned char *ring;

	memset(&p, 0, sizeof(p));
	memset(u, 0, sizeof(*u));
	p.flags = flags;
	u->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (u->fd < 0)
		return -1;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		errno = EINVAL;
		return -1;
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	u->ring_len = sq_len > cq_len ? sq_len : cq_len;
	u->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	ring = mmap(NULL, u->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, u->fd,
		    IORING_OFF_SQ_RING);
	u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED, u->fd,
		       IORING_OFF_SQES);
	u->ring = ring == MAP_FAILED ? NULL : ring;
	if (ring == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_head = (unsigned *)(ring + p.sq_off.head);
	u->sq_tail = (unsigned *)(ring + p.sq_off.tail);
	u->sq_mask = (unsigned *)(ring + p.sq_off.ring_mask);
	u->sq_flags = (unsigned *)(ring + p.sq_off.flags);
	u->sq_array = (unsigned *)(ring + p.sq_off.array);
	u->cq_head = (unsigned *)(ring + p.cq_off.head);
	u->cq_tail = (unsigned *)(ring + p.cq_off.tail);
	u->cq_mask = (unsigned *)(ring + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(ring + p.cq_off.cqes);
	/* SQ slot i always names SQE i: bench fills SQEs in ring order */
	for (unsigned i = 0; i < p.sq_entries; i++)
		u->sq_array[i] = i;
	return 0;
}

static void uring_free(struct uring *u)
{
	if (u->sqes && u->sqes != MAP_FAILED)
		munmap(u->sqes, u->sqes_len);
	if (u->ring)
		munmap(u->ring, u->ring_len);
	if (u->fd >= 0)
		close(u->fd);           /* the release waits for I/O in flight */
}

/*
 * The io_uring engine: this one process keeps qd I/Os in flight, as the
 * aio engine does, slot s with its own buffer.  Each pass round the loop:
 *
 *   1. an SQE for every free slot, written at the SQ tail (no system call);
 *   2. the new tail published (store-release);
 *   3. ONE io_uring_enter(to_submit, min_complete = 1, GETEVENTS): the
 *      kernel takes the new SQEs under one plug, then waits -- sleeping,
 *      or with hipri polling the device -- until a CQE is there.
 *      With sqthread_poll the kernel's thread takes the SQEs itself:
 *      bench enters only when the CQ is empty (to sleep until it is not)
 *      or the thread has gone to sleep (to wake it);
 *   4. every CQE in the ring reaped, its slot freed, the CQ head moved.
 *
 * Where aio copies each iocb in (io_submit) and each event out
 * (io_getevents), in two system calls, here both travel through memory
 * shared with the kernel, and one call does both jobs.  A latency runs
 * from the enter that submitted an I/O to the reaping of its CQE.
 * Fills r and lat (up to cap samples); returns 0, or -1 with r->error set.
 */
static int run_uring(const struct job *j, struct result *r, uint64_t *lat, uint64_t cap)
{
	int write_mode = j->rw == 1 || j->rw == 3;
	int sqpoll = j->uring_opts & URING_SQPOLL, fixed = j->uring_opts & URING_FIXEDBUFS;
	unsigned flags = (j->uring_opts & URING_HIPRI ? IORING_SETUP_IOPOLL : 0) |
			 (sqpoll ? IORING_SETUP_SQPOLL : 0);
	unsigned char op = write_mode ? (fixed ? IORING_OP_WRITE_FIXED : IORING_OP_WRITE)
				      : (fixed ? IORING_OP_READ_FIXED : IORING_OP_READ);
	uint64_t total = j->size / j->bs, next = 0;
	uint64_t *sent_at = calloc(j->qd, sizeof(*sent_at));
	uint64_t *free_slots = calloc(j->qd, sizeof(*free_slots)), nfree = j->qd;
	struct iovec *iov = calloc(j->qd, sizeof(*iov));
	unsigned char *buf = mmap(NULL, j->qd * j->bs, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(j->path, (write_mode ? O_WRONLY : O_RDONLY) | O_DIRECT);
	struct uring u = { .fd = -1 };
	unsigned sq_tail;

	memset(r, 0, sizeof(*r));
	if (fd < 0 || buf == MAP_FAILED || !sent_at || !free_slots || !iov) {
		r->error = fd < 0 ? errno : ENOMEM;
		goto out;
	}
	if (uring_setup(&u, (unsigned)j->qd, flags) < 0) {
		r->error = errno;
		goto out;
	}
	if (write_mode)
		memset(buf, 0xa5, j->qd * j->bs);
	for (uint64_t s = 0; s < j->qd; s++) {
		free_slots[s] = j->qd - 1 - s;
		iov[s].iov_base = buf + s * j->bs;
		iov[s].iov_len = j->bs;
	}
	/* fixedbufs: slot s's buffer is registered buffer s, pinned once here */
	if (fixed && syscall(__NR_io_uring_register, u.fd, IORING_REGISTER_BUFFERS, iov,
			     (unsigned)j->qd) < 0) {
		r->error = errno;
		goto out;
	}
	/* sqthread_poll: the kernel's thread has no descriptor table, so the
	 * SQEs name the device as registered file 0 (fio does the same) */
	if (sqpoll && syscall(__NR_io_uring_register, u.fd, IORING_REGISTER_FILES, &fd, 1) < 0) {
		r->error = errno;
		goto out;
	}
	sq_tail = *u.sq_tail;
	r->start = now_ns();
	while (r->ios < total && !r->error) {
		unsigned enter = IORING_ENTER_GETEVENTS, head, tail;
		uint64_t t = now_ns();

		/* 1. the next I/O into every free slot: SQEs at the SQ tail */
		while (nfree && next < total) {
			uint64_t s = free_slots[--nfree];
			struct io_uring_sqe *sqe = &u.sqes[sq_tail & *u.sq_mask];

			memset(sqe, 0, sizeof(*sqe));
			sqe->opcode = op;
			sqe->flags = sqpoll ? IOSQE_FIXED_FILE : 0;
			sqe->fd = sqpoll ? 0 : fd;
			sqe->addr = (uint64_t)(uintptr_t)iov[s].iov_base;
			sqe->len = (unsigned)j->bs;
			sqe->off = job_block(j, next) * j->bs;
			sqe->buf_index = (unsigned short)s;     /* read only by the _FIXED ops */
			sqe->user_data = s;
			sent_at[s] = t;
			sq_tail++;
			next++;
		}
		/* 2. publish them: the kernel loads the tail with acquire */
		__atomic_store_n(u.sq_tail, sq_tail, __ATOMIC_RELEASE);
		/* 3. submit what the kernel has not taken, and wait for a CQE */
		if (sqpoll) {
			/* the tail before the flag, as the thread sets the flag
			 * before its last look at the tail (docs/aio.md) */
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (__atomic_load_n(u.sq_flags, __ATOMIC_RELAXED) & IORING_SQ_NEED_WAKEUP)
				enter |= IORING_ENTER_SQ_WAKEUP;
		}
		if (!sqpoll || (enter & IORING_ENTER_SQ_WAKEUP) ||
		    *u.cq_head == __atomic_load_n(u.cq_tail, __ATOMIC_ACQUIRE)) {
			unsigned to_submit = sqpoll ? 0 :
				sq_tail - __atomic_load_n(u.sq_head, __ATOMIC_ACQUIRE);

			if (syscall(__NR_io_uring_enter, u.fd, to_submit, 1, enter, NULL, 0) < 0 &&
			    errno != EINTR) {
				r->error = errno;
				break;
			}
		}
		/* 4. reap every CQE there, then hand their entries back */
		t = now_ns();
		head = *u.cq_head;
		tail = __atomic_load_n(u.cq_tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &u.cqes[head & *u.cq_mask];
			uint64_t s = cqe->user_data, dt = t - sent_at[s];

			if (cqe->res != (int)j->bs && !r->error)
				r->error = cqe->res < 0 ? -cqe->res : EIO;
			if (r->ios < cap)
				lat[r->ios] = dt;
			r->ios++;
			r->lat_sum += dt;
			free_slots[nfree++] = s;
		}
		__atomic_store_n(u.cq_head, head, __ATOMIC_RELEASE);
	}
	r->end = now_ns();
	r->samples = r->ios < cap ? r->ios : cap;
out:
	uring_free(&u);
	if (fd >= 0)
		close(fd);
	if (buf != MAP_FAILED)
		munmap(buf, j->qd * j->bs);
	free(sent_at);
	free(free_slots);
	free(iov);
	return r->error ? -1 : 0;
}

static int read_all(int fd, void *p, size_t n)
{
	while (n) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p = (char *)p + got;
		n -= (size_t)got;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "numjobs=N" into j->numjobs: 1 if it is another word, -1 if N is bad */
static int parse_numjobs(const char *word, struct job *j)
{
	uint64_t n;

	if (strncmp(word, "numjobs=", 8))
		return 0;
	if (parse_size(word + 8, &n) || !n || n > MAX_JOBS)
		return -1;
	j->numjobs = (unsigned)n;
	return 1;
}

static int parse_job(int argc, char **argv, struct job *j)
{
	char *f[7], *copy;
	struct stat st;
	uint64_t bytes = 0;
	int fd, n = 0, nj = 0;

	j->numjobs = 1;
	j->first_io = 0;
	if (argc == 2) {                /* DEV:RW:BS:QD:SIZE[:ENGINE][:numjobs=N] */
		copy = argv[1];
		while (n < 7 && (f[n] = strsep(&copy, ":")) != NULL)
			n++;
	} else if (argc >= 6 && argc <= 8) {
		for (n = 0; n < argc - 1; n++)
			f[n] = argv[n + 1];
	}
	if (n >= 6)                     /* numjobs=N, the last word if there */
		nj = parse_numjobs(f[n - 1], j);
	if (nj > 0)
		n--;
	if (n != 5 && n != 6)
		return -1;
	if (nj < 0) {
		printf("BENCH dev=%s FAIL: bad numjobs (1 to %d)\n", f[0], MAX_JOBS);
		return 1;
	}
	snprintf(j->dev, sizeof(j->dev), "%s", f[0]);
	snprintf(j->path, sizeof(j->path), strchr(f[0], '/') ? "%s" : "/dev/%s", f[0]);
	j->rw = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(f[1], rw_names[i]))
			j->rw = i;
	if (j->rw < 0 || parse_size(f[2], &j->bs) || parse_size(f[3], &j->qd) ||
	    parse_size(f[4], &j->size)) {
		printf("BENCH dev=%s FAIL: bad rw, bs or qd\n", j->dev);
		return 1;
	}
	j->engine = j->qd > 1 ? ENGINE_AIO : ENGINE_PSYNC;
	j->uring_opts = 0;
	if (n == 6) {
		char *opts = f[5], *name = strsep(&opts, ","), *o;

		j->engine = -1;
		for (int i = 0; i < (int)(sizeof(engine_names) / sizeof(engine_names[0])); i++)
			if (!strcmp(name, engine_names[i]))
				j->engine = i;
		/* io_uring,OPT,...: each OPT one of uring_opt_names */
		while (j->engine >= 0 && (o = strsep(&opts, ",")) != NULL) {
			int bit = 0;

			for (int i = 0; i < 3; i++)
				if (!strcmp(o, uring_opt_names[i]))
					bit = 1 << i;
			if (!bit || j->engine != ENGINE_IO_URING)
				j->engine = -1;
			j->uring_opts |= (unsigned)bit;
		}
		if (j->engine < 0) {
			printf("BENCH dev=%s FAIL: bad engine (psync, aio, pvsync2, hipri or "
			       "io_uring[,hipri][,sqthread_poll][,fixedbufs])\n", j->dev);
			return 1;
		}
	}
	if (!j->bs || j->bs % 512 || j->bs > MAX_BS || !j->qd || j->qd > MAX_QD ||
	    j->size < j->bs) {
		printf("BENCH dev=%s FAIL: cannot run %d\n", j->dev, -EINVAL);
		return 1;
	}
	fd = open(j->path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("BENCH dev=%s FAIL: no such device\n", j->dev);
		return 1;
	}
	if (S_ISBLK(st.st_mode))
		ioctl(fd, BLKGETSIZE64, &bytes);
	else
		bytes = (uint64_t)st.st_size;
	close(fd);
	/* a disk by name keeps its name if sysfs cannot say (no figures, then) */
	snprintf(j->disk, sizeof(j->disk), "%s", j->dev);
	find_disk(j, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev);
	j->blocks = bytes / j->bs;
	if (!j->blocks) {
		printf("BENCH dev=%s FAIL: cannot run %d\n", j->dev, -EINVAL);
		return 1;
	}
	return 0;
}

/*
 * One copy of the job, as bench without numjobs runs it: the aio or
 * io_uring engine in this process, or QD psync/pvsync2/hipri workers
 * forked from it.  Fills r (the whole copy's counts, times and first
 * error) and lat (up to cap latency samples, r->samples of them).
 */
static void run_job(const struct job *j, struct result *r, uint64_t *lat, uint64_t cap)
{
	int fds[MAX_QD];
	pid_t pids[MAX_QD];

	memset(r, 0, sizeof(*r));
	r->start = UINT64_MAX;
	if (j->engine == ENGINE_AIO) {
		run_aio(j, r, lat, cap);
		return;
	}
	if (j->engine == ENGINE_IO_URING) {
		run_uring(j, r, lat, cap);
		return;
	}
	for (unsigned w = 0; w < j->qd; w++) {
		int p[2];

		if (pipe(p) < 0) {
			r->error = errno;
			return;
		}
		pids[w] = fork();
		if (pids[w] == 0) {
			close(p[0]);
			worker(j, w, p[1]);
		}
		close(p[1]);
		fds[w] = p[0];
	}
	/* read every worker's result (a worker may block until its pipe is read) */
	for (unsigned w = 0; w < j->qd; w++) {
		struct result wr;
		uint64_t *dst;

		if (read_all(fds[w], &wr, sizeof(wr)) < 0) {
			r->error = r->error ? r->error : EIO;
			close(fds[w]);
			continue;
		}
		if (wr.error && !r->error)
			r->error = wr.error;
		/* each worker sends at most cap / qd samples: they all fit */
		dst = r->samples + wr.samples <= cap ? lat + r->samples : NULL;
		if (dst && read_all(fds[w], dst, wr.samples * sizeof(*lat)) == 0)
			r->samples += wr.samples;
		r->ios += wr.ios;
		r->lat_sum += wr.lat_sum;
		if (wr.ios && wr.start < r->start)
			r->start = wr.start;
		if (wr.end > r->end)
			r->end = wr.end;
		close(fds[w]);
	}
	for (unsigned w = 0; w < j->qd; w++)
		waitpid(pids[w], NULL, 0);
}

/* The online CPUs: the "cpuN" lines of /proc/stat (as glibc's
 * get_nprocs() counts them when sysfs cannot say). */
static unsigned online_cpus(void)
{
	static char buf[4096];
	unsigned n = 0;
	char *p = buf;

	if (!read_text("/proc/stat", buf, sizeof(buf)))
		return 1;
	while ((p = strstr(p, "\ncpu")) != NULL) {
		p += 4;
		if (*p >= '0' && *p <= '9')
			n++;
	}
	return n ? n : 1;
}

/*
 * Job k of numjobs: pinned to CPU k mod the online CPUs before it
 * starts (the psync workers it forks inherit the mask), its own I/O
 * numbers, and its result, its CPU and its samples back through `out`.
 */
static void job_process(struct job j, unsigned k, unsigned ncpus, int out)
{
	unsigned long mask[4] = { 0 };  /* up to 256 CPUs */
	uint64_t cap = MAX_SAMPLES / j.numjobs, *lat = malloc(cap * sizeof(*lat));
	struct result r = { 0 };
	unsigned cpu = k % ncpus, now = ~0u;

	mask[cpu / 64] = 1ul << (cpu % 64);
	if (syscall(__NR_sched_setaffinity, 0, sizeof(mask), mask) < 0) {
		r.error = errno;
	} else if (!lat) {
		r.error = ENOMEM;
	} else {
		j.first_io = k * (j.size / j.bs);
		run_job(&j, &r, lat, cap);
		syscall(__NR_getcpu, &now, NULL, NULL);
	}
	send_all(out, &r, sizeof(r));
	send_all(out, &now, sizeof(now));
	send_all(out, lat, r.samples * sizeof(*lat));
	_exit(0);
}

/*
 * numjobs=N: fork the N jobs, then merge what each sends back into r
 * and lat (printing a BENCHJOB line per job), as run_job() merges its
 * workers.
 */
static void run_jobs(const struct job *j, struct result *r, uint64_t *lat)
{
	unsigned ncpus = online_cpus(), started = 0;
	int fds[MAX_JOBS];
	pid_t pids[MAX_JOBS];

	memset(r, 0, sizeof(*r));
	r->start = UINT64_MAX;
	for (unsigned k = 0; k < j->numjobs; k++, started++) {
		int p[2];

		if (pipe(p) < 0) {
			r->error = errno;
			break;
		}
		pids[k] = fork();
		if (pids[k] == 0) {
			close(p[0]);
			job_process(*j, k, ncpus, p[1]);
		}
		close(p[1]);
		fds[k] = p[0];
	}
	for (unsigned k = 0; k < started; k++) {
		struct result jr;
		unsigned cpu;
		uint64_t us;

		if (read_all(fds[k], &jr, sizeof(jr)) < 0 ||
		    read_all(fds[k], &cpu, sizeof(cpu)) < 0 ||
		    read_all(fds[k], lat + r->samples, jr.samples * sizeof(*lat)) < 0) {
			r->error = r->error ? r->error : EIO;
			close(fds[k]);
			continue;
		}
		close(fds[k]);
		if (jr.error && !r->error)
			r->error = jr.error;
		r->samples += jr.samples;
		r->ios += jr.ios;
		r->lat_sum += jr.lat_sum;
		if (jr.ios && jr.start < r->start)
			r->start = jr.start;
		if (jr.end > r->end)
			r->end = jr.end;
		us = jr.ios && jr.start < jr.end ? (jr.end - jr.start) / 1000 : 0;
		printf("BENCHJOB job=%u cpu=%d ios=%llu iops=%llu\n", k,
		       cpu == ~0u ? -1 : (int)cpu, (unsigned long long)jr.ios,
		       (unsigned long long)(us ? jr.ios * 1000000 / us : 0));
	}
	for (unsigned k = 0; k < started; k++)
		waitpid(pids[k], NULL, 0);
}

int main(int argc, char **argv)
{
	struct job j;
	struct result r;
	int err;
	uint64_t *lat, us, iops, mbps10, p99 = 0, merges0;

	err = parse_job(argc, argv, &j);
	if (err < 0) {
		fputs("usage: bench DEV RW BS QD SIZE [psync|aio|pvsync2|hipri|io_uring[,hipri][,sqthread_poll][,fixedbufs]] [numjobs=N]\n"
		      "       (RW: read|write|randread|randwrite)\n",
		      stderr);
		return 2;
	}
	if (err)
		return 1;
	lat = malloc(MAX_SAMPLES * sizeof(*lat));
	if (!lat) {
		printf("BENCH dev=%s FAIL: I/O error %d\n", j.dev, -ENOMEM);
		return 1;
	}
	merges0 = disk_merges(&j);
	tags_peak_reset(&j);
	fflush(stdout);
	if (j.numjobs > 1)
		run_jobs(&j, &r, lat);
	else
		run_job(&j, &r, lat, MAX_SAMPLES);
	if (r.error) {
		printf("BENCH dev=%s FAIL: I/O error %d\n", j.dev, (int)-r.error);
		return 1;
	}
	if (r.samples) {
		qsort(lat, r.samples, sizeof(*lat), cmp_u64);
		p99 = lat[(r.samples * 99 + 99) / 100 - 1];      /* nearest rank */
	}
	us = r.start < r.end ? (r.end - r.start) / 1000 : 1;
	us = us ? us : 1;
	iops = r.ios * 1000000 / us;
	mbps10 = r.ios * j.bs * 10 / us;        /* bytes per us = MB/s */
	printf("BENCH dev=%s rw=%s bs=%llu qd=%llu iops=%llu MBps=%llu.%llu lat_avg_us=%llu "
	       "lat_p99_us=%llu merges=%llu max_inflight=%llu",
	       j.dev, rw_names[j.rw], (unsigned long long)j.bs, (unsigned long long)j.qd,
	       (unsigned long long)iops, (unsigned long long)(mbps10 / 10),
	       (unsigned long long)(mbps10 % 10),
	       (unsigned long long)(r.ios ? r.lat_sum / r.ios / 1000 : 0),
	       (unsigned long long)(p99 / 1000),
	       (unsigned long long)(disk_merges(&j) - merges0), (unsigned long long)tags_peak(&j));
	if (j.engine == ENGINE_IO_URING) {
		printf(" engine=io_uring");
		for (int i = 0; i < 3; i++)
			if (j.uring_opts & (1u << i))
				printf(",%s", uring_opt_names[i]);
	}
	if (j.numjobs > 1)
		printf(" numjobs=%u", j.numjobs);
	printf("\n");
	return 0;
}
