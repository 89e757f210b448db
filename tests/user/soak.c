// SPDX-License-Identifier: MIT
/*
 * soak SECONDS SEED DEV[:nodata]... - the disk soak (tools/soak.py runs it;
 * docs/testing.md).
 *
 * For SECONDS (the guest's clock), three processes per device hammer a
 * region of it each, with reads and writes of every size from 512 bytes
 * to 1 MiB (log-uniform, so small ones are as common as large ones):
 *
 *   buffered  through the device's page cache, with an fsync now and
 *             then and a BLKFLSBUF (write back, drop the cache) so that
 *             later reads come from the disk again;
 *   direct    O_DIRECT, the user's buffer under the DMA, an fsync (the
 *             disk's cache flush) now and then;
 *   aio       O_DIRECT through io_submit/io_getevents, AIO_DEPTH requests
 *             kept in flight, never two on the same sectors.
 *
 * Every write fills its sectors with the verification pattern of a new
 * generation g of its process (pattern seed gen_seed(worker, g), counted
 * from the device's start, so a sector's contents follow from its place
 * and its generation); the process remembers each sector's generation
 * and checks every read against it -- a sector never written must read
 * as zeros (the images start empty).  A "nodata" device (null_blk,
 * which stores nothing) gets the same load without the checks.  At the
 * end each process reads its whole region back once more.
 *
 * Meanwhile the parent switches the elevator of every disk that has one
 * (/sys/block/<dev>/queue/scheduler) to the next in its list, every
 * SWITCH_MS, and at the end puts each back.  It measures the kernel's
 * memory -- MemFree (/proc/meminfo) and the slab objects in use
 * (/proc/slabinfo) -- after a warm-up that opens, reads, flushes and
 * switches everything once (so one-time allocations are in "before"),
 * and again after every worker has exited and every device's cache has
 * been dropped.
 *
 * Output (one worker at a time, in order: a token on a pipe says whose
 * turn it is, so lines never mix):
 *   SOAK worker <dev> <mode> ops <n> reads <n> writes <n> bytes <n> flushes <n> errors <n> mismatches <n>
 *   SOAKMAP <dev> <offset> <length> <seed>|zero   what the worker left there
 *   SOAK elevator switches <n>
 *   SOAK memory before: MemFree <kB> kB, slab objects <n>
 *   SOAK memory after: MemFree <kB> kB, slab objects <n>
 *   SOAK verdict PASS | FAIL: <why>
 * tools/soak.py checks the SOAKMAP lines against the disk images (the
 * host's pattern-check.py), the log for hung tasks and panics, and sums
 * the figures.  Exit status 0 only with a PASS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/aio_abi.h>
#include <pattern.h>

#define SECTOR 512u
#define MAX_SECTORS 2048u /* 1 MiB, the largest I/O */
#define REGION (4u << 20) /* each worker's bytes */
#define REGION_SECTORS (REGION / SECTOR)
#define NR_MODES 3 /* buffered, direct, aio */
#define MAX_DEVS 8
#define AIO_DEPTH 4
#define SWITCH_MS 1500 /* between elevator switches */
#define MAX_SCHED_DEVS 16
#define REPORTS_MAX 5 /* error lines per worker */
/* Memory back to within these after the run (see docs/testing.md). */
#define MEMFREE_MARGIN_KB 256
#define SLAB_MARGIN_OBJS 64

enum mode { BUFFERED,
	    DIRECT,
	    AIO };
static const char *const mode_name[NR_MODES] = { "buffered", "direct", "aio" };

struct target {
	char name[32];
	int nodata;
};

struct worker {
	const struct target *t;
	enum mode mode;
	int id;
	uint64_t base; /* the region's first byte on the device */
	uint64_t rng;
	uint32_t gen;	  /* last generation written */
	uint32_t *genmap; /* per sector of the region; 0: never */
	unsigned long long ops, reads, writes, bytes, flushes, errors, mismatches;
	int fd;
};

static struct target targets[MAX_DEVS];
static int nr_targets;
static uint64_t end_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(struct worker *w)
{
	w->rng += 0x9E3779B97F4A7C15ull;
	return splitmix64(w->rng);
}

/* The pattern seed of generation g of worker id: 2^32 apart, so no two
 * generations' words ever coincide on a device smaller than 32 GiB (the
 * pattern of seed s shifted by d words is that of seed s + d). */
static uint64_t gen_seed(int id, uint32_t g)
{
	return ((uint64_t)(id + 1) << 56) + ((uint64_t)g << 32);
}

static void *alloc_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("soak: mmap %zu: %s\n", len, strerror(errno));
		exit(1);
	}
	return p;
}

static void report(struct worker *w, unsigned long long *count, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void report(struct worker *w, unsigned long long *count, const char *fmt, ...)
{
	char line[200];
	va_list ap;

	if (++*count > REPORTS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("SOAK %s %s %s: %s\n", count == &w->errors ? "ERROR" : "MISMATCH", w->t->name,
	       mode_name[w->mode], line);
	fflush(stdout);
}

/* An I/O: a sector range of the region. */
struct io {
	uint32_t first, nsect;
	int write;
};

/* Sizes log-uniform over 1 .. MAX_SECTORS sectors; anywhere in the region. */
static struct io pick_io(struct worker *w)
{
	struct io io;
	unsigned int e = (unsigned int)(rnd(w) % 12); /* 2^0 .. 2^11 sectors */

	io.nsect = (1u << e) + (uint32_t)(rnd(w) % (1u << e));
	if (io.nsect > MAX_SECTORS)
		io.nsect = MAX_SECTORS;
	io.first = (uint32_t)(rnd(w) % (REGION_SECTORS - io.nsect + 1));
	io.write = (int)(rnd(w) & 1);
	return io;
}

/* A write's data: a new generation on every sector of io. */
static void fill_write(struct worker *w, const struct io *io, unsigned char *buf)
{
	uint64_t off = w->base + (uint64_t)io->first * SECTOR;

	w->gen++;
	if (!w->t->nodata)
		pattern_fill(buf, off, (size_t)io->nsect * SECTOR, gen_seed(w->id, w->gen));
	for (uint32_t s = 0; s < io->nsect; s++)
		w->genmap[io->first + s] = w->gen;
}

/* A read's data against the generations: each sector its pattern, or zeros. */
static void check_read(struct worker *w, const struct io *io, const unsigned char *buf)
{
	static unsigned char want[SECTOR];

	if (w->t->nodata)
		return;
	for (uint32_t s = 0; s < io->nsect; s++) {
		uint32_t g = w->genmap[io->first + s];
		uint64_t off = w->base + (uint64_t)(io->first + s) * SECTOR;

		if (g)
			pattern_fill(want, off, SECTOR, gen_seed(w->id, g));
		else
			memset(want, 0, SECTOR);
		if (memcmp(buf + (size_t)s * SECTOR, want, SECTOR)) {
			report(w, &w->mismatches, "sector at byte %llu: not generation %u",
			       (unsigned long long)off, g);
			return;
		}
	}
}

/* One synchronous read or write of io, checked; for buffered and direct. */
static void sync_io(struct worker *w, const struct io *io, unsigned char *buf)
{
	size_t len = (size_t)io->nsect * SECTOR;
	off_t off = (off_t)(w->base + (uint64_t)io->first * SECTOR);
	ssize_t n;

	if (io->write)
		fill_write(w, io, buf);
	n = io->write ? pwrite(w->fd, buf, len, off) : pread(w->fd, buf, len, off);
	w->ops++;
	if (n != (ssize_t)len) {
		report(w, &w->errors, "%s of %zu at %lld: %zd (errno %d)",
		       io->write ? "write" : "read", len, (long long)off, n, errno);
		return;
	}
	w->bytes += len;
	if (io->write) {
		w->writes++;
	} else {
		w->reads++;
		check_read(w, io, buf);
	}
}

/* Now and then: an fsync, or (buffered) a BLKFLSBUF that empties the cache. */
static void maybe_flush(struct worker *w)
{
	unsigned int r = (unsigned int)(rnd(w) % 64);

	if (r == 0 && w->mode == BUFFERED) {
		w->ops++;
		w->flushes++;
		if (ioctl(w->fd, BLKFLSBUF, 0))
			report(w, &w->errors, "BLKFLSBUF: errno %d", errno);
	} else if (r < 3) {
		w->ops++;
		w->flushes++;
		if (fsync(w->fd))
			report(w, &w->errors, "fsync: errno %d", errno);
	}
}

static void run_sync(struct worker *w)
{
	unsigned char *buf = alloc_buf(MAX_SECTORS * SECTOR);

	while (now_ns() < end_ns) {
		struct io io = pick_io(w);

		sync_io(w, &io, buf);
		maybe_flush(w);
	}
}

/* --- the AIO worker -------------------------------------------------------- */

struct slot {
	struct iocb cb;
	struct io io;
	unsigned char *buf;
	int busy;
};

static int overlaps(const struct slot *slots, const struct io *io)
{
	for (int i = 0; i < AIO_DEPTH; i++)
		if (slots[i].busy && io->first < slots[i].io.first + slots[i].io.nsect &&
		    slots[i].io.first < io->first + io->nsect)
			return 1;
	return 0;
}

static void aio_complete(struct worker *w, struct slot *sl, long long res)
{
	size_t len = (size_t)sl->io.nsect * SECTOR;

	sl->busy = 0;
	if (res != (long long)len) {
		report(w, &w->errors, "aio %s of %zu at sector %u: res %lld",
		       sl->io.write ? "write" : "read", len, sl->io.first, res);
		return;
	}
	w->bytes += len;
	if (sl->io.write) {
		w->writes++;
	} else {
		w->reads++;
		check_read(w, &sl->io, sl->buf);
	}
}

static void run_aio(struct worker *w)
{
	static struct slot slots[AIO_DEPTH];
	aio_context_t ctx = 0;
	int inflight = 0;

	if (io_setup(AIO_DEPTH, &ctx)) {
		report(w, &w->errors, "io_setup: errno %d", errno);
		return;
	}
	for (int i = 0; i < AIO_DEPTH; i++)
		slots[i].buf = alloc_buf(MAX_SECTORS * SECTOR);
	while (inflight || now_ns() < end_ns) {
		struct io_event ev[AIO_DEPTH];
		long got;

		/* fill the free slots with I/Os on sectors nobody is using */
		for (int i = 0; i < AIO_DEPTH && now_ns() < end_ns; i++) {
			struct slot *sl = &slots[i];
			struct iocb *cbp = &sl->cb;

			if (sl->busy)
				continue;
			sl->io = pick_io(w);
			if (overlaps(slots, &sl->io))
				continue;
			if (sl->io.write)
				fill_write(w, &sl->io, sl->buf);
			memset(&sl->cb, 0, sizeof(sl->cb));
			sl->cb.aio_lio_opcode = sl->io.write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
			sl->cb.aio_fildes = (uint32_t)w->fd;
			sl->cb.aio_buf = (uint64_t)(uintptr_t)sl->buf;
			sl->cb.aio_nbytes = (uint64_t)sl->io.nsect * SECTOR;
			sl->cb.aio_offset = (int64_t)(w->base + (uint64_t)sl->io.first * SECTOR);
			sl->cb.aio_data = (uint64_t)i;
			w->ops++;
			if (io_submit(ctx, 1, &cbp) != 1) {
				report(w, &w->errors, "io_submit: errno %d", errno);
				continue;
			}
			sl->busy = 1;
			inflight++;
		}
		if (!inflight)
			continue;
		got = io_getevents(ctx, 1, AIO_DEPTH, ev, NULL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			report(w, &w->errors, "io_getevents: %ld (errno %d)", got, errno);
			break;
		}
		for (long i = 0; i < got; i++) {
			aio_complete(w, &slots[ev[i].data], ev[i].res);
			inflight--;
		}
	}
	if (io_destroy(ctx))
		report(w, &w->errors, "io_destroy: errno %d", errno);
}

/* --- one worker's life ------------------------------------------------------- */

/* The whole region read back once more, in 1 MiB pieces. */
static void final_verify(struct worker *w)
{
	unsigned char *buf = alloc_buf(MAX_SECTORS * SECTOR);

	for (uint32_t s = 0; s < REGION_SECTORS; s += MAX_SECTORS) {
		struct io io = { .first = s, .nsect = MAX_SECTORS, .write = 0 };

		sync_io(w, &io, buf);
	}
}

/* SOAKMAP lines: runs of sectors of one generation. */
static void print_map(struct worker *w)
{
	uint32_t start = 0;

	if (w->t->nodata)
		return;
	for (uint32_t s = 1; s <= REGION_SECTORS; s++) {
		uint32_t g = w->genmap[start];

		if (s < REGION_SECTORS && w->genmap[s] == g)
			continue;
		if (g)
			printf("SOAKMAP %s %llu %llu %llu\n", w->t->name,
			       (unsigned long long)(w->base + (uint64_t)start * SECTOR),
			       (unsigned long long)(s - start) * SECTOR,
			       (unsigned long long)gen_seed(w->id, g));
		else
			printf("SOAKMAP %s %llu %llu zero\n", w->t->name,
			       (unsigned long long)(w->base + (uint64_t)start * SECTOR),
			       (unsigned long long)(s - start) * SECTOR);
		start = s;
	}
}

static int open_target(const struct target *t, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", t->name);
	return open(path, flags);
}

/* In the child: the load, the last check, then (on our turn) the report. */
static void worker_main(struct worker *w, int turn_fd)
{
	char token;

	w->genmap = alloc_buf(REGION_SECTORS * sizeof(uint32_t));
	w->fd = open_target(w->t, O_RDWR | (w->mode == BUFFERED ? 0 : O_DIRECT));
	if (w->fd < 0) {
		report(w, &w->errors, "open: errno %d", errno);
	} else {
		if (w->mode == AIO)
			run_aio(w);
		else
			run_sync(w);
		final_verify(w);
		if (close(w->fd))
			report(w, &w->errors, "close: errno %d", errno);
	}
	while (read(turn_fd, &token, 1) < 0 && errno == EINTR)
		;
	printf("SOAK worker %s %s ops %llu reads %llu writes %llu bytes %llu flushes %llu "
	       "errors %llu mismatches %llu\n",
	       w->t->name, mode_name[w->mode], w->ops, w->reads, w->writes, w->bytes, w->flushes,
	       w->errors, w->mismatches);
	print_map(w);
	fflush(stdout);
	_exit(w->errors || w->mismatches ? 1 : 0);
}

/* --- the parent: elevators and memory --------------------------------------- */

struct sched_dev {
	char name[32];
	char names[4][16]; /* the elevators it offers */
	int nr, orig, cur;
};

static struct sched_dev sched_devs[MAX_SCHED_DEVS];
static int nr_sched;
static unsigned long switches, switch_errors;

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Every disk whose queue/scheduler offers a choice ("[mq-deadline] none cscan"). */
static void find_sched_devs(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	while (d && (de = readdir(d)) && nr_sched < MAX_SCHED_DEVS) {
		struct sched_dev *s = &sched_devs[nr_sched];
		char path[96], text[128], *p, *tok;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", de->d_name);
		if (read_file(path, text, sizeof(text)) || !strchr(text, '['))
			continue;
		memset(s, 0, sizeof(*s));
		strncpy(s->name, de->d_name, sizeof(s->name) - 1);
		for (p = text; (tok = strtok(p, " \n")) && s->nr < 4; p = NULL) {
			if (*tok == '[') {
				s->orig = s->nr;
				tok++;
				tok[strcspn(tok, "]")] = '\0';
			}
			strncpy(s->names[s->nr++], tok, sizeof(s->names[0]) - 1);
		}
		s->cur = s->orig;
		nr_sched++;
	}
	if (d)
		closedir(d);
}

static void switch_to(struct sched_dev *s, int i)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", s->name);
	switches++;
	if (write_file(path, s->names[i])) {
		switch_errors++;
		printf("SOAK ERROR %s: switching to %s: errno %d\n", s->name, s->names[i], errno);
		return;
	}
	s->cur = i;
}

static void switch_all(void)
{
	for (int i = 0; i < nr_sched; i++)
		switch_to(&sched_devs[i], (sched_devs[i].cur + 1) % sched_devs[i].nr);
}

static void restore_all(void)
{
	for (int i = 0; i < nr_sched; i++)
		if (sched_devs[i].cur != sched_devs[i].orig)
			switch_to(&sched_devs[i], sched_devs[i].orig);
}

/* Write back and drop every device's cache. */
static void drop_caches(void)
{
	int fd;

	for (int i = 0; i < nr_targets; i++) {
		fd = open_target(&targets[i], O_RDWR);
		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
	}
	/* and the free kmalloc objects each CPU keeps, with the slabs they
	 * hold (Linux's "2": reclaimable slab memory) */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "2\n", 2) != 2)
			printf("soak: drop_caches: errno %d\n", errno);
		close(fd);
	}
}

struct mem {
	long free_kb;
	long slab_objs;
};

static struct mem read_mem(void)
{
	static char text[4096];
	struct mem m = { -1, -1 };
	char *p;

	if (!read_file("/proc/meminfo", text, sizeof(text)) && (p = strstr(text, "MemFree:")))
		m.free_kb = strtol(p + 8, NULL, 10);
	if (!read_file("/proc/slabinfo", text, sizeof(text))) {
		m.slab_objs = 0;
		for (p = strchr(text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
			char *q = p + 1;

			if (*q == '#')
				continue;
			q += strcspn(q, " "); /* past the name */
			m.slab_objs += strtol(q, NULL, 10);
		}
	}
	return m;
}

/* Everything once, so that one-time allocations happen before "before". */
static void warm_up(void)
{
	static unsigned char buf[4096] __attribute__((aligned(4096)));
	aio_context_t ctx = 0;
	pid_t pid;

	for (int i = 0; i < nr_targets; i++) {
		for (int f = 0; f < 2; f++) {
			int fd = open_target(&targets[i], O_RDWR | (f ? O_DIRECT : 0));

			if (fd < 0)
				continue;
			if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf))
				printf("soak: warm-up read of %s failed: errno %d\n", targets[i].name,
				       errno);
			close(fd);
		}
	}
	for (int i = 0; i < nr_sched; i++)
		for (int k = 0; k < sched_devs[i].nr; k++)
			switch_to(&sched_devs[i], (sched_devs[i].cur + 1) % sched_devs[i].nr);
	if (io_setup(AIO_DEPTH, &ctx) == 0)
		io_destroy(ctx);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	drop_caches();
	switches = 0;
}

static int parse_args(int argc, char **argv, long *seconds, uint64_t *seed)
{
	if (argc < 4)
		return -1;
	*seconds = strtol(argv[1], NULL, 10);
	*seed = strtoull(argv[2], NULL, 10);
	if (*seconds <= 0 || argc - 3 > MAX_DEVS)
		return -1;
	for (int i = 3; i < argc; i++) {
		struct target *t = &targets[nr_targets++];
		char *colon = strchr(argv[i], ':');

		t->nodata = colon && !strcmp(colon, ":nodata");
		if (colon)
			*colon = '\0';
		strncpy(t->name, argv[i], sizeof(t->name) - 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static pid_t pids[MAX_DEVS * NR_MODES];
	static int turn[MAX_DEVS * NR_MODES][2];
	int nr = 0, failed = 0;
	struct mem before, after;
	long seconds;
	uint64_t seed, next_switch;
	char why[160] = "";

	if (parse_args(argc, argv, &seconds, &seed)) {
		fputs("usage: soak SECONDS SEED DEV[:nodata]...\n", stderr);
		return 2;
	}
	find_sched_devs();
	warm_up();
	before = read_mem();
	printf("SOAK start: %ld s, seed %llu, %d devices, %d workers, %d elevators to switch\n",
	       seconds, (unsigned long long)seed, nr_targets, nr_targets * NR_MODES, nr_sched);
	fflush(stdout);
	end_ns = now_ns() + (uint64_t)seconds * 1000000000u;
	for (int t = 0; t < nr_targets; t++) {
		for (int m = 0; m < NR_MODES; m++, nr++) {
			struct worker w = {
				.t = &targets[t],
				.mode = (enum mode)m,
				.id = nr,
				.base = (uint64_t)m * REGION,
				.rng = splitmix64(seed ^ ((uint64_t)nr << 32)),
			};

			if (pipe(turn[nr]) || (pids[nr] = fork()) < 0) {
				printf("soak: cannot start worker %d: errno %d\n", nr, errno);
				return 1;
			}
			if (pids[nr] == 0) {
				close(turn[nr][1]);
				worker_main(&w, turn[nr][0]);
			}
			close(turn[nr][0]);
		}
	}
	/* the elevators change under the load, until the end */
	next_switch = now_ns() + SWITCH_MS * 1000000ull;
	while (now_ns() < end_ns) {
		struct timespec ts = { 0, 100 * 1000000 };

		nanosleep(&ts, NULL);
		if (now_ns() >= next_switch) {
			switch_all();
			next_switch += SWITCH_MS * 1000000ull;
		}
	}
	/* each worker reports in turn, then exits */
	for (int i = 0; i < nr; i++) {
		int status = 0;

		if (write(turn[i][1], "g", 1) != 1 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
		close(turn[i][1]);
	}
	restore_all();
	drop_caches();
	after = read_mem();
	printf("SOAK elevator switches %lu errors %lu\n", switches, switch_errors);
	printf("SOAK memory before: MemFree %ld kB, slab objects %ld\n", before.free_kb,
	       before.slab_objs);
	printf("SOAK memory after: MemFree %ld kB, slab objects %ld\n", after.free_kb,
	       after.slab_objs);
	if (failed)
		snprintf(why, sizeof(why), "%d of %d workers saw errors or mismatches", failed, nr);
	else if (switch_errors)
		snprintf(why, sizeof(why), "%lu elevator switches failed", switch_errors);
	else if (before.free_kb < 0 || before.slab_objs < 0)
		snprintf(why, sizeof(why), "cannot read /proc/meminfo or /proc/slabinfo");
	else if (after.free_kb < before.free_kb - MEMFREE_MARGIN_KB)
		snprintf(why, sizeof(why), "MemFree %ld kB lower than before (margin %d kB)",
			 before.free_kb - after.free_kb, MEMFREE_MARGIN_KB);
	else if (after.slab_objs > before.slab_objs + SLAB_MARGIN_OBJS)
		snprintf(why, sizeof(why), "%ld slab objects more than before (margin %d)",
			 after.slab_objs - before.slab_objs, SLAB_MARGIN_OBJS);
	if (why[0])
		printf("SOAK verdict FAIL: %s\n", why);
	else
		printf("SOAK verdict PASS: %d workers, no error, no mismatch, memory back "
		       "(margins %d kB, %d objects)\n",
		       nr, MEMFREE_MARGIN_KB, SLAB_MARGIN_OBJS);
	return why[0] ? 1 : 0;
}
