// SPDX-License-Identifier: MIT
/*
 * hostile_oom_io [DEV] - block I/O while user space holds all the memory.
 *
 * A hostile program's view of the block layer's promise (docs/block.md,
 * "When memory runs out"): with RAM full, fsync() of a block device with
 * dirty cached pages, a buffered pread() of parts not cached and an
 * O_DIRECT pread() either work or fail with a clean errno -- never a
 * kernel panic -- and once the memory is given back, everything written
 * is on the disk.
 *
 * Steps, on DEV (default sda; the first 1 MiB is overwritten, the rest
 * only read: it must be a fresh, zeroed disk):
 *   1. write the verification pattern (lib/pattern.c's: 64-bit word k of
 *      the device is splitmix64(PATTERN_BASE + k)) to DEV's first MiB
 *      through the cache, so 256 pages are dirty;
 *   2. take all the memory: files in /tmp until a write fails (ENOSPC or
 *      ENOMEM -- /tmp may have a size limit), then files in a ramfs
 *      mounted for the purpose (ramfs has no limit, as Linux's), then
 *      anonymous memory, faulted in page by page by read()ing /dev/zero
 *      into it until the kernel refuses the page (EFAULT);
 *   3. ROUNDS times: free a few pages (shrink the last file), dirty part
 *      of the first MiB again (same bytes), fsync, pread uncached parts
 *      (buffered and O_DIRECT), BLKRRPART, switch DEV's elevator, then
 *      take the freed pages back and do the same with nothing free;
 *   4. give everything back; fsync must now be 0 and the first MiB read
 *      back with O_DIRECT must be the pattern (the scenario also checks
 *      the disk image from the host).
 *
 * Nothing is printed while memory is full (the console is not under
 * test); results are kept and the TEST lines come at the end, in the
 * layout of syscalls.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <pattern.h>

#ifndef BLKRRPART
#define BLKRRPART 0x125f
#endif

#define PATTERN_BASE  11                        /* pattern-check.py's last argument */
#define DIRTY_BYTES   (1024 * 1024)             /* the pattern: 256 pages */
#define FILE_BYTES    (1024 * 1024)             /* one filler file */
#define MAX_FILES     2048                      /* 2 GiB: more than any test guest */
#define CHUNK         (64 * 1024)               /* filler write size */
#define ANON_CHUNK    (16 * 1024 * 1024)        /* anonymous mapping size */
#define MAX_ANON      64
#define ROUNDS        12
#define READ_BYTES    (128 * 1024)              /* one pread of an uncached part */
#define UNCACHED_BASE (8 * 1024 * 1024)         /* pread targets start here */
#define RAMFS_DIR     "/tmp/oom-ramfs"

static unsigned char pattern[DIRTY_BYTES] __attribute__((aligned(4096)));
static unsigned char buf[DIRTY_BYTES] __attribute__((aligned(4096)));
static unsigned char chunk[CHUNK];
static const unsigned char zeros[READ_BYTES];   /* what the fresh disk holds */
static char paths[MAX_FILES][40];
static int nfiles, fd_dev, fd_direct, fd_zero;
static int ramfs_mounted;                /* RAMFS_DIR holds a ramfs */
static void *anon[MAX_ANON];
static int nanon;
static long anon_pages, file_mib;
static int stop_errno;                          /* what ended the filling */

/* Results, printed at the end. */
struct outcome {
	int ok, enomem, bad;
	int bad_ret, bad_errno;                 /* the first bad answer */
};
static struct outcome o_fsync, o_pread, o_direct, o_rrpart, o_elv;
static char sched_path[96];

static int passed, failed;

static void report(const char *name, int ok, const char *why)
{
	if (ok) {
		printf("TEST hostile_oom_io.%s PASS\n", name);
		passed++;
	} else {
		printf("TEST hostile_oom_io.%s FAIL: %s\n", name, why);
		failed++;
	}
}

/* Touch the stack now: a page fault for it later, with no memory, kills us. */
static void prefault_stack(void)
{
	volatile char big[128 * 1024];

	for (size_t i = 0; i < sizeof(big); i += 4096)
		big[i] = 0;
}

static void note(struct outcome *o, long ret, long want, const unsigned char *got,
		 const unsigned char *expect)
{
	if (ret == want && (!got || memcmp(got, expect, want) == 0)) {
		o->ok++;
	} else if (ret == -1 && errno == ENOMEM) {
		o->enomem++;
	} else {
		if (!o->bad) {
			o->bad_ret = (int)ret;
			o->bad_errno = ret == -1 ? errno : 0;
		}
		o->bad++;
	}
}

/* Write one filler file; returns 0 when it is full size, else errno. */
static int fill_file(const char *dir)
{
	long done = 0;
	int fd, err = 0;

	if (nfiles == MAX_FILES)
		return ENOSPC;
	snprintf(paths[nfiles], sizeof(paths[0]), "%s/f%d", dir, nfiles);
	fd = open(paths[nfiles], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return errno;
	nfiles++;
	while (done < FILE_BYTES) {
		long n = write(fd, chunk, CHUNK);

		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			break;
		}
		done += n;
	}
	close(fd);
	file_mib++;
	return err;
}

static int fill_dir(const char *dir)
{
	int err;

	while ((err = fill_file(dir)) == 0)
		;
	return err;
}

/* Anonymous memory, one page at a time, until the kernel says no. */
static void fill_anon(void)
{
	while (nanon < MAX_ANON) {
		char *p = mmap(NULL, ANON_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return;
		anon[nanon++] = p;
		for (long off = 0; off < ANON_CHUNK; off += 4096) {
			/* the kernel faults the page in for read(): EFAULT if it cannot */
			if (read(fd_zero, p + off, 4096) != 4096)
				return;
			anon_pages++;
		}
	}
}

/* Give back n pages of the last filler file (0: all of it). */
static void shrink_last(long pages)
{
	struct stat st;
	int fd = nfiles ? open(paths[nfiles - 1], O_WRONLY) : -1;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0)
		ftruncate(fd, st.st_size > pages * 4096 ? st.st_size - pages * 4096 : 0);
	close(fd);
}

/* Take memory back after shrink_last: grow the last file until it fails. */
static void regrow_last(void)
{
	int fd = nfiles ? open(paths[nfiles - 1], O_WRONLY | O_APPEND) : -1;

	if (fd < 0)
		return;
	while (write(fd, chunk, 4096) == 4096)
		;
	close(fd);
}

/* The I/O under test, with whatever memory there is right now. */
static void io_round(int r)
{
	long off = (long)(r % 16) * CHUNK;
	long rd = UNCACHED_BASE + (long)r * 2 * READ_BYTES;

	/* dirty 64 KiB of the pattern again: cached pages, the same bytes */
	pwrite(fd_dev, pattern + off, CHUNK, off);
	note(&o_fsync, fsync(fd_dev), 0, NULL, NULL);
	/* never read before: the cache must allocate, the disk is zeros there */
	memset(buf, 0xa5, READ_BYTES);
	note(&o_pread, pread(fd_dev, buf, READ_BYTES, rd), READ_BYTES, buf, zeros);
	memset(buf, 0xa5, READ_BYTES);
	note(&o_direct, pread(fd_direct, buf, READ_BYTES, rd + READ_BYTES), READ_BYTES,
	     buf, zeros);
	/* the rest of the block layer's allocations: a rescan, an elevator switch */
	note(&o_rrpart, ioctl(fd_dev, BLKRRPART, 0), 0, NULL, NULL);
	{
		const char *elv = r % 2 ? "mq-deadline" : "cscan";
		int fd = open(sched_path, O_WRONLY);

		if (fd < 0)
			note(&o_elv, -1, 0, NULL, NULL);
		else {
			note(&o_elv, write(fd, elv, strlen(elv)), strlen(elv), NULL, NULL);
			close(fd);
		}
	}
}

static void release_all(void)
{
	while (nfiles)
		unlink(paths[--nfiles]);
	if (ramfs_mounted)
		umount(RAMFS_DIR);
	while (nanon)
		munmap(anon[--nanon], ANON_CHUNK);
}

int main(int argc, char **argv)
{
	char dev[64], why[160];
	uint64_t *w = (uint64_t *)pattern;
	long r;
	int err;

	snprintf(dev, sizeof(dev), "/dev/%s", argc > 1 ? argv[1] : "sda");
	snprintf(sched_path, sizeof(sched_path), "/sys/block/%s/queue/scheduler",
		 argc > 1 ? argv[1] : "sda");
	for (size_t k = 0; k < DIRTY_BYTES / 8; k++)
		w[k] = splitmix64(PATTERN_BASE + k);
	memset(chunk, 0x5a, sizeof(chunk));
	/* fault in all of bss now: with no memory, a first touch is SIGSEGV */
	memset(buf, 0, sizeof(buf));
	memset(paths, 0, sizeof(paths));
	for (size_t i = 0; i < sizeof(zeros); i += 4096)
		(void)*(volatile const unsigned char *)&zeros[i];
	prefault_stack();
	fd_dev = open(dev, O_RDWR);
	fd_direct = open(dev, O_RDONLY | O_DIRECT);
	fd_zero = open("/dev/zero", O_RDONLY);
	if (fd_dev < 0 || fd_direct < 0 || fd_zero < 0) {
		printf("TEST hostile_oom_io.setup FAIL: open %s: %s\n", dev, strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	r = pwrite(fd_dev, pattern, DIRTY_BYTES, 0);
	report("dirty", r == DIRTY_BYTES, "pwrite of the first MiB was short");

	/* mounted while there is memory for it; filled after /tmp */
	mkdir("/tmp/oom", 0700);
	mkdir(RAMFS_DIR, 0700);
	ramfs_mounted = mount("ramfs", RAMFS_DIR, "ramfs", 0, NULL) == 0;
	stop_errno = fill_dir("/tmp/oom");
	if (ramfs_mounted)
		stop_errno = fill_dir(RAMFS_DIR);
	fill_anon();

	for (int i = 0; i < ROUNDS; i++) {
		shrink_last(1 << (i % 6));      /* 1 .. 32 pages free */
		io_round(2 * i);
		regrow_last();
		io_round(2 * i + 1);            /* nothing free */
	}

	release_all();
	snprintf(why, sizeof(why), "filling stopped with errno %d after %ld MiB of files, "
		 "%ld anonymous pages", stop_errno, file_mib, anon_pages);
	report("fill", stop_errno == ENOSPC || stop_errno == ENOMEM, why);
	printf("hostile_oom_io: %ld MiB of files (ramfs %s), %ld anonymous pages; "
	       "fsync %d ok %d ENOMEM, pread %d ok %d ENOMEM, direct %d ok %d ENOMEM, "
	       "BLKRRPART %d ok %d ENOMEM, elevator %d ok %d ENOMEM\n",
	       file_mib, ramfs_mounted ? "mounted" : "not mounted", anon_pages,
	       o_fsync.ok, o_fsync.enomem, o_pread.ok, o_pread.enomem,
	       o_direct.ok, o_direct.enomem, o_rrpart.ok, o_rrpart.enomem, o_elv.ok, o_elv.enomem);
	snprintf(why, sizeof(why), "%d bad answers, the first %d errno %d",
		 o_fsync.bad, o_fsync.bad_ret, o_fsync.bad_errno);
	report("fsync_under_oom", !o_fsync.bad, why);
	snprintf(why, sizeof(why), "%d bad answers (wrong bytes or errno), the first %d errno %d",
		 o_pread.bad, o_pread.bad_ret, o_pread.bad_errno);
	report("pread_under_oom", !o_pread.bad, why);
	snprintf(why, sizeof(why), "%d bad answers (wrong bytes or errno), the first %d errno %d",
		 o_direct.bad, o_direct.bad_ret, o_direct.bad_errno);
	report("direct_under_oom", !o_direct.bad, why);
	snprintf(why, sizeof(why), "%d bad answers, the first %d errno %d",
		 o_rrpart.bad, o_rrpart.bad_ret, o_rrpart.bad_errno);
	report("rrpart_under_oom", !o_rrpart.bad, why);
	snprintf(why, sizeof(why), "%d bad answers, the first %d errno %d",
		 o_elv.bad, o_elv.bad_ret, o_elv.bad_errno);
	report("elevator_under_oom", !o_elv.bad, why);

	err = fsync(fd_dev) ? errno : 0;
	snprintf(why, sizeof(why), "fsync after the memory came back: errno %d", err);
	report("fsync_after", err == 0, why);
	memset(buf, 0, DIRTY_BYTES);
	r = pread(fd_direct, buf, DIRTY_BYTES, 0);
	report("data_on_disk", r == DIRTY_BYTES && memcmp(buf, pattern, DIRTY_BYTES) == 0,
	       "the first MiB read back with O_DIRECT is not the pattern");
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
