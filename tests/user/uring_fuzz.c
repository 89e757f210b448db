// SPDX-License-Identifier: MIT
/*
 * uring_fuzz DEV [ROUNDS] [SEED] [V] - random SQEs at the kernel (V: print
 * each SQE before it is submitted, to find the one that did harm).
 *
 * The system-call fuzzer (tests/user/fuzz.c) cannot reach what io_uring
 * reads from memory: the 64 bytes of each SQE.  Here a child sets up a
 * ring with liburing and, ROUNDS times (default 200), fills a batch of
 * 1 to 32 SQEs with random values -- an opcode from the whole byte (the
 * known ones drawn more often), random IOSQE_* flags (links, drains,
 * fixed files, async), descriptors good and bad (DEV open O_DIRECT and
 * buffered, a tmpfs file, a pipe, /dev/null, -1, a number
 * never opened,
 * registered file indexes in range and out), addresses good and bad
 * (a buffer, NULL, a kernel address, the end of a mapping, a buffer it
 * unmaps while the batch is in flight), lengths and offsets from the
 * troublemakers of fuzz.c, random rw_flags, buf_index and personality;
 * TIMEOUT, TIMEOUT_REMOVE, ASYNC_CANCEL (and LINK_TIMEOUT, refused) drawn
 * more often, half of them shaped to arm, update and cancel timers --
 * submits it with io_uring_enter and reaps what comes within a second.
 * Every CQE must carry a user_data the batch used and a result that is a
 * count or an errno; the kernel must never crash or hang, and the child
 * must be able to exit with SQEs still in flight (a timeout of a year,
 * reads from an empty pipe, which io-wq's workers sleep in).
 *
 * Prints "TEST uring_fuzz.sqes PASS" if the child finished every round
 * and exited normally, having seen CQEs; "TEST uring_fuzz.after PASS" if
 * the kernel still runs a clean ring (NOP and a read) and MemFree came
 * back to within 256 KiB of where it was (the rings, requests and
 * pinned pages of the dead child are freed).  The same SEED repeats the
 * same SQEs.  Built against Debian's glibc and liburing (user/user.mk);
 * not run on the host: random writes go to DEV.
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "hostile.h"

#define BATCH_MAX       32
#define ENTRIES         64

static uint64_t state;

static uint64_t next_random(void)
{
	uint64_t z = (state += 0x9E3779B97F4A7C15ull);       /* splitmix64 */

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The buffers SQEs point into: 64 KiB with an inaccessible page after
 * them, so that a read too long for them faults (a short count) instead
 * of landing on the fuzzer's own variables. */
#define BUFSZ   65536
static char *buffer;
static uint8_t seen[(BATCH_MAX * 2000 + 8) / 8];       /* CQEs by user_data */
static int fds[6];
static int verbose;             /* print each SQE before it is submitted (V) */
static int out = 1;             /* the child's report: its stdout is /dev/null */
static int nfds;

static uint64_t random_addr(char *gone)
{
	switch (next_random() % 7) {
	case 0: return 0;
	case 1: return 0xffff800000000000ull + next_random() % 65536;     /* kernel */
	case 2: return (uint64_t)(uintptr_t)(buffer + BUFSZ - next_random() % 512);
	case 3: return (uint64_t)(uintptr_t)gone;   /* unmapped once the batch is in */
	case 4: return next_random() & 0x7fffffffffffull;
	default: return (uint64_t)(uintptr_t)(buffer + next_random() % 4 * 4096);
	}
}

static uint32_t random_len(void)
{
	static const uint32_t lens[] = { 0, 1, 511, 512, 4096, 8192, 65536, 1u << 20,
					 0x7fffffff, 0xffffffff };

	return lens[next_random() % (sizeof(lens) / sizeof(lens[0]))];
}

static int random_fd(void)
{
	switch (next_random() % 8) {
	case 0: return -1;
	case 1: return 1000;
	case 2: return (int)(next_random() % 4);    /* a registered index, or not */
	default: return fds[next_random() % nfds];
	}
}

/* TIMEOUT's times: at once, a tick, two ticks, 50 ms, a year */
static struct __kernel_timespec times[] = {
	{ 0, 0 }, { 0, 1000000 }, { 0, 2000000 }, { 0, 50000000 }, { 365 * 86400, 0 },
};

/*
 * Half of the TIMEOUT, TIMEOUT_REMOVE and ASYNC_CANCEL SQEs made well
 * enough to reach the timers: a TIMEOUT's time from times[] (a linked
 * one never the year: Spindle runs a chain inside io_uring_enter, link
 * after link, so that would hold the enter for a year -- Linux goes on at
 * once), a small count, random flags; a removal or a cancel aimed at a
 * tag handed out lately, with random flags.
 */
static void shape_ctl_sqe(struct io_uring_sqe *sqe, uint64_t tag)
{
	unsigned int nt = sizeof(times) / sizeof(times[0]);
	bool linked = sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK);

	if (sqe->opcode == IORING_OP_TIMEOUT) {
		sqe->len = 1;
		sqe->buf_index = 0;
		sqe->off = next_random() % 4;
		sqe->timeout_flags = (uint32_t)(next_random() % 8 ? 0 : next_random() & 0x3f);
		sqe->addr = (uint64_t)(uintptr_t)&times[next_random() % (linked ? nt - 1 : nt)];
		return;
	}
	sqe->addr = tag > 1 ? tag - 1 - next_random() % (tag - 1 < 64 ? tag - 1 : 64) : 0;
	sqe->off = 0;
	sqe->len = 0;
	if (sqe->opcode == IORING_OP_TIMEOUT_REMOVE) {
		sqe->timeout_flags = (uint32_t)(next_random() % 4 ? 0 : next_random() & 0x1f);
		sqe->addr2 = (uint64_t)(uintptr_t)&times[next_random() % nt];
	} else {
		sqe->cancel_flags = (uint32_t)(next_random() % 4 ? 0 : next_random() & 0xf);
	}
}

/* One SQE of random contents, user_data = tag. */
static void random_sqe(struct io_uring_sqe *sqe, uint64_t tag, char *gone)
{
	uint64_t r = next_random();

	memset(sqe, 0, sizeof(*sqe));
	/* half the time an opcode Linux 6.1 knows (0-47), else any byte */
	sqe->opcode = (uint8_t)(r & 1 ? (r >> 8) % 48 : r >> 8);
	sqe->flags = (uint8_t)(next_random() % 4 ? next_random() & 0x1f : next_random());
	sqe->ioprio = (uint16_t)(next_random() % 8 ? 0 : next_random());
	sqe->fd = random_fd();
	sqe->off = next_random() % 4 ? (next_random() % 64) * 4096 : next_random();
	sqe->addr = random_addr(gone);
	sqe->len = next_random() % 2 ? (uint32_t)(next_random() % 4 + 1) : random_len();
	sqe->rw_flags = next_random() % 4 ? 0 : (int)next_random();
	sqe->buf_index = (uint16_t)(next_random() % 4 ? 0 : next_random() % 4);
	sqe->personality = (uint16_t)(next_random() % 8 ? 0 : next_random());
	sqe->user_data = tag;
	/* the timers and the cancels, more often and better aimed */
	if (next_random() % 16 == 0) {
		static const uint8_t ctl[] = { IORING_OP_TIMEOUT, IORING_OP_TIMEOUT_REMOVE,
					       IORING_OP_ASYNC_CANCEL, IORING_OP_LINK_TIMEOUT };

		sqe->opcode = ctl[next_random() % sizeof(ctl)];
	}
	if ((sqe->opcode == IORING_OP_TIMEOUT || sqe->opcode == IORING_OP_TIMEOUT_REMOVE ||
	     sqe->opcode == IORING_OP_ASYNC_CANCEL) && next_random() % 2)
		shape_ctl_sqe(sqe, tag);
	/* a garbage time linked: maybe a year's wait inside the enter */
	if (sqe->opcode == IORING_OP_TIMEOUT && (sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)))
		sqe->addr = (uint64_t)(uintptr_t)&times[0];
}

static int fuzz(const char *dev, unsigned long rounds)
{
	struct io_uring ring;
	struct iovec iov = { buffer, 4096 };
	unsigned long cqes = 0;
	uint64_t tag = 1;
	int pipefd[2], tmp;
	char path[64];

	if (io_uring_queue_init(ENTRIES, &ring, 0))
		return 10;
	snprintf(path, sizeof(path), "/dev/%s", dev);
	fds[nfds++] = open(path, O_RDWR | O_DIRECT);
	fds[nfds++] = open(path, O_RDWR);
	tmp = open("/tmp/uring_fuzz.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	fds[nfds++] = tmp;
	/* a blocking pipe: a READ of it while empty goes to a worker
	 * (io-wq), and io_uring_enter returns */
	if (pipe(pipefd))
		return 11;
	fds[nfds++] = pipefd[0];
	fds[nfds++] = pipefd[1];
	fds[nfds++] = open("/dev/null", O_RDWR);
	for (int i = 0; i < nfds; i++)
		if (fds[i] < 0)
			return 12;
	/* registered files and a registered buffer, sometimes in use */
	if (io_uring_register_files(&ring, fds, 4) || io_uring_register_buffers(&ring, &iov, 1))
		return 13;
	for (unsigned long r = 0; r < rounds; r++) {
		unsigned int n = (unsigned int)(next_random() % BATCH_MAX) + 1;
		uint64_t first = tag;
		char *gone = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
		struct __kernel_timespec wait = { 1, 0 };
		struct io_uring_cqe *cqe;

		if (gone == MAP_FAILED)
			return 14;
		for (unsigned int i = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			if (!sqe)
				break;
			random_sqe(sqe, tag++, gone);
			if (verbose)
				dprintf(out, "sqe %llu: op %u flags %#x fd %d off %#llx addr %#llx len %#x "
				       "rw_flags %#x buf_index %u\n", (unsigned long long)sqe->user_data,
				       sqe->opcode, sqe->flags, sqe->fd, (unsigned long long)sqe->off,
				       (unsigned long long)sqe->addr, sqe->len, sqe->rw_flags,
				       sqe->buf_index);
		}

		/* without IORING_SETUP_SUBMIT_ALL an enter stops after the
		 * first SQE that fails (its CQE says why), as on Linux: enter
		 * again until the SQ is empty; errors are answers too */
		while (io_uring_sq_ready(&ring) && io_uring_submit(&ring) > 0)
			;
		munmap(gone, 8192);             /* pulled from under the SQEs */
		/* reap what comes within a second; the rest may stay in flight */
		while (io_uring_wait_cqe_timeout(&ring, &cqe, &wait) == 0) {
			/* a tag handed out (this batch's, or one left in
			 * flight before), and only once */
			if (cqe->user_data < 1 || cqe->user_data >= tag ||
			    seen[cqe->user_data / 8] & (1u << cqe->user_data % 8)) {
				dprintf(out, "uring_fuzz: a CQE with user_data %llu (tags 1-%llu, this batch "
				       "from %llu)\n", (unsigned long long)cqe->user_data,
				       (unsigned long long)tag - 1, (unsigned long long)first);
				return 20;
			}
			seen[cqe->user_data / 8] |= (uint8_t)(1u << cqe->user_data % 8);
			if (cqe->res < -4095) {
				dprintf(out, "uring_fuzz: res %d is neither a count nor an errno\n", cqe->res);
				return 21;
			}
			cqes++;
			io_uring_cqe_seen(&ring, cqe);
			wait.tv_sec = 0;
			wait.tv_nsec = 10 * 1000 * 1000;
			if (next_random() % 64 == 0)
				break;  /* leave some for the exit */
		}
		/* empty the pipe of the fuzzer's writes, without waiting
		 * (a worker's READ may see the flag too: -EAGAIN, an answer) */
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
		while (read(pipefd[0], buffer + 32768, 4096) > 0)
			;
		fcntl(pipefd[0], F_SETFL, 0);
	}
	dprintf(out, "uring_fuzz: %llu SQEs in %lu rounds, %lu CQEs reaped\n",
		(unsigned long long)tag - 1, rounds, cqes);
	return cqes ? 0 : 22;
	/* exit with the ring open and some SQEs in flight */
}

/* A clean ring after the storm: a NOP and a read of DEV. */
static int after(const char *dev)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDONLY);
	if (fd < 0 || io_uring_queue_init(8, &ring, 0))
		return 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, buffer, 4096, 0);
	io_uring_sqe_set_data64(sqe, 1);
	ok = io_uring_submit_and_wait(&ring, 2) == 2;
	for (int i = 0; ok && i < 2; i++) {
		ok = io_uring_wait_cqe(&ring, &cqe) == 0 &&
		     cqe->res == (cqe->user_data ? 4096 : 0);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 200;
	int passed = 0, failed = 0;

	if (rounds > 2000)
		rounds = 2000;          /* seen[] holds this many batches' tags */
	long before, after_kb;
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: uring_fuzz DEV [ROUNDS] [SEED]\n");
		return 2;
	}
	state = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	verbose = argc > 4 && !strcmp(argv[4], "V");
	buffer = mmap(NULL, BUFSZ + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (buffer == MAP_FAILED || mprotect(buffer + BUFSZ, 4096, PROT_NONE))
		return 1;
	before = mem_free_kb();
	pid = fork();
	if (pid == 0) {
		/* fds 0-2 become /dev/null: a random WRITE would print on
		 * the console, a READ take its keys; the child reports on a
		 * descriptor out of reach */
		int null = open("/dev/null", O_RDWR);

		out = fcntl(1, F_DUPFD, 20);
		if (null < 0 || out < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(15);
		close(null);
		_exit(fuzz(argv[1], rounds));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && ++passed)
		printf("TEST uring_fuzz.sqes PASS\n");
	else if (++failed)
		printf("TEST uring_fuzz.sqes FAIL: child %s %d\n",
		       WIFEXITED(st) ? "exited" : "killed by signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	unlink("/tmp/uring_fuzz.file");
	after_kb = mem_free_kb();
	if (after(argv[1]) && before - after_kb < 256 && ++passed)
		printf("TEST uring_fuzz.after PASS\n");
	else if (++failed)
		printf("TEST uring_fuzz.after FAIL: a clean ring %s; MemFree %ld kB before, %ld after\n",
		       after(argv[1]) ? "works" : "fails", before, after_kb);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
