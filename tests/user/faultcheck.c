// SPDX-License-Identifier: MIT
/*
 * faultcheck DEV OP KIND EXPECT - one cell of the fault matrix
 * (tools/fault-matrix.py): I/O to a disk that QEMU's blkdebug makes fail.
 *
 * DEV is the device to use (sda, hda, or dm-0 stacked over them).  The
 * first 2 MiB are written and read in 64 KiB O_DIRECT chunks with the
 * verification pattern (seed 11, counted from DEV's start); one chunk,
 * BAD_CHUNK, holds the sector blkdebug fails.  OP says which operation
 * fails: read, write or flush (fsync's cache flush); KIND whether it fails
 * once (the next try succeeds) or every time (sticky).  EXPECT is what the
 * caller must see: "error" (the operation returns -1 with EIO or ENOSPC)
 * or "data" (a mirror: the operation succeeds from or to the other leg).
 *
 * What is checked, in the guest: every other chunk is written and read
 * back intact; the failing operation gives the expected answer; after a
 * one-shot fault, a second try succeeds.  The host then checks the raw
 * image (tools/fault-matrix.py): the pattern where the guest says it
 * wrote it.  Prints "TEST faultcheck.<op>_<kind> PASS|FAIL: ..." and the
 * closing count.
 *
 * DEV may instead be a file's path (it starts with '/'): a file of at
 * least 2 MiB on a mounted file system whose chunk BAD_CHUNK holds the
 * failing sector.  The chunks then go through the page cache, each
 * written and fsynced on its own (so that a failed write-back loses that
 * chunk only), and are read back with O_DIRECT, so that the reads reach
 * the disk.  The caller must see EIO: for a write fault, from the fsync
 * after the failed write-back, once per open file as Linux's errseq
 * reports it (the next fsync says 0; a second descriptor, open before,
 * sees it once too); for a flush fault, from the fsync whose flush
 * failed; for a read fault, from the read.  A rewrite after a one-shot
 * fault is fsynced fine; after a sticky one its fsync fails again.  OP
 * "meta" (file mode only): what fails is the write of the file's inode
 * (its inode table block), so the first fsync must say EIO and the next
 * 0; whether a later one fails again depends on whether the inode was
 * dirtied again meanwhile (its times, to the second), so only the data
 * is judged after that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <pattern.h>

#define SEED        11
#define CHUNK       (64 * 1024)
#define CHUNKS      32                  /* 2 MiB */
#define BAD_CHUNK   8                   /* holds sector 1029 */

static unsigned char buf[CHUNK] __attribute__((aligned(4096)));
static unsigned char want[CHUNK];
static char why[200];

static int is_fault_errno(int e)
{
	return e == EIO || e == ENOSPC;
}

/* One chunk's write: 0, or the errno. */
static int write_chunk(int fd, int c)
{
	pattern_fill(buf, (uint64_t)c * CHUNK, CHUNK, SEED);
	return pwrite(fd, buf, CHUNK, (off_t)c * CHUNK) == CHUNK ? 0 : (errno ? errno : EIO);
}

/* One chunk's read and check: 0, the errno, or -1 for wrong data. */
static int read_chunk(int fd, int c)
{
	memset(buf, 0, CHUNK);
	if (pread(fd, buf, CHUNK, (off_t)c * CHUNK) != CHUNK)
		return errno ? errno : EIO;
	pattern_fill(want, (uint64_t)c * CHUNK, CHUNK, SEED);
	return memcmp(buf, want, CHUNK) ? -1 : 0;
}

/*
 * The faulty operation's answer against EXPECT.  first: the errno of the
 * first try (0: it succeeded); again: of a second try after it failed.
 */
static int judge(const char *what, int sticky, int expect_error, int first, int again)
{
	if (!expect_error) {
		if (first)
			snprintf(why, sizeof(why), "%s failed (errno %d) on a mirror", what, first);
		return !first;
	}
	if (sticky) {
		if (!is_fault_errno(first))
			snprintf(why, sizeof(why), "%s: errno %d, not EIO or ENOSPC", what, first);
		return is_fault_errno(first);
	}
	/* once: it may fail (then with EIO/ENOSPC), and the retry succeeds */
	if (first && !is_fault_errno(first)) {
		snprintf(why, sizeof(why), "%s: errno %d, not EIO or ENOSPC", what, first);
		return 0;
	}
	if (first && again) {
		snprintf(why, sizeof(why), "%s failed again (errno %d) after a one-shot fault", what, again);
		return 0;
	}
	return 1;
}

/* fsync's errno, 0 if it succeeded */
static int fsync_errno(int fd)
{
	return fsync(fd) ? errno : 0;
}

/* Checks that an fsync's errno is want, else says why and returns 0. */
static int want_fsync(int fd, int want, const char *what)
{
	int e = fsync_errno(fd);

	if (e != want)
		snprintf(why, sizeof(why), "%s: fsync errno %d, not %d", what, e, want);
	return e == want;
}

/*
 * The file mode (see the top): a write or flush fault met by fsync, a
 * read fault by an O_DIRECT read.  *first, *again: the errnos of the
 * faulty operation's first try and of its retry.
 */
static int file_cell(const char *path, const char *op, int sticky, int *first, int *again)
{
	int fd = open(path, O_RDWR), fd2 = open(path, O_RDWR), dfd, ok = 1;
	int wfault = !strcmp(op, "write"), ffault = !strcmp(op, "flush");
	int mfault = !strcmp(op, "meta");

	if (fd < 0 || fd2 < 0) {
		snprintf(why, sizeof(why), "open %s: %s", path, strerror(errno));
		return 0;
	}
	for (int c = 0; c < CHUNKS && ok; c++) {
		int bad = c == BAD_CHUNK, e;

		pattern_fill(buf, (uint64_t)c * CHUNK, CHUNK, SEED);
		if (pwrite(fd, buf, CHUNK, (off_t)c * CHUNK) != CHUNK) {
			snprintf(why, sizeof(why), "buffered write of chunk %d: errno %d", c, errno);
			ok = 0;
			break;
		}
		e = fsync_errno(fd);
		if (mfault) {
			if (c == 0) {
				*first = e;
				*again = fsync_errno(fd);
				ok = e == EIO && !*again;
				if (!ok)
					snprintf(why, sizeof(why), "the inode's write: fsync errno %d, then %d",
						 e, *again);
			} else if (e && e != EIO) {
				snprintf(why, sizeof(why), "chunk %d: fsync errno %d", c, e);
				ok = 0;
			}
			continue;
		}
		/* a flush fault meets the first fsync; a sticky one every fsync */
		if (ffault && (c == 0 || sticky)) {
			if (c == 0)
				*first = e;
			ok = e == EIO;
			if (!ok)
				snprintf(why, sizeof(why), "chunk %d: fsync errno %d, its flush failed", c, e);
			if (ok && c == 0 && !sticky) {
				*again = fsync_errno(fd);
				ok = !*again;
				if (!ok)
					snprintf(why, sizeof(why), "fsync after a one-shot flush fault: errno %d",
						 *again);
			}
			continue;
		}
		if (!(bad && wfault)) {
			if (e)
				snprintf(why, sizeof(why), "chunk %d: fsync errno %d", c, e);
			ok = !e;
			continue;
		}
		/* the write-back of this chunk failed: the error, once per file */
		*first = e;
		ok = e == EIO;
		if (!ok)
			snprintf(why, sizeof(why), "the failed write-back: fsync errno %d, not EIO", e);
		ok = ok && want_fsync(fd, 0, "the same file again") &&
		     want_fsync(fd2, EIO, "the other descriptor") &&
		     want_fsync(fd2, 0, "the other descriptor again");
		if (!ok)
			break;
		/* the rewrite: fine after a one-shot fault, failing again after a sticky one */
		if (pwrite(fd, buf, CHUNK, (off_t)c * CHUNK) != CHUNK) {
			snprintf(why, sizeof(why), "rewrite of chunk %d: errno %d", c, errno);
			ok = 0;
			break;
		}
		*again = fsync_errno(fd);
		ok = *again == (sticky ? EIO : 0);
		if (!ok)
			snprintf(why, sizeof(why), "the rewrite's fsync: errno %d", *again);
	}
	close(fd2);
	close(fd);
	dfd = ok ? open(path, O_RDONLY | O_DIRECT) : -1;
	if (ok && dfd < 0) {
		snprintf(why, sizeof(why), "open %s O_DIRECT: %s", path, strerror(errno));
		ok = 0;
	}
	for (int c = 0; c < CHUNKS && ok; c++) {
		int e;

		if (c == BAD_CHUNK && wfault && sticky)
			continue;               /* never written: nothing to compare */
		e = read_chunk(dfd, c);
		if (c == BAD_CHUNK && !strcmp(op, "read")) {
			*first = e;
			if (e == EIO)
				*again = read_chunk(dfd, c);
			ok = e == EIO && *again == (sticky ? EIO : 0);
			if (!ok)
				snprintf(why, sizeof(why), "the read: errno %d, then %d", e, *again);
		} else if (e) {
			snprintf(why, sizeof(why), "chunk %d: %s (%d)", c,
				 e < 0 ? "read back wrong" : "read failed", e);
			ok = 0;
		}
	}
	if (dfd >= 0)
		close(dfd);
	return ok;
}

int main(int argc, char **argv)
{
	char path[64], name[64];
	int fd, ok = 1, sticky, expect_error, first = 0, again = 0;
	const char *op;

	if (argc != 5) {
		fputs("usage: faultcheck DEV|/FILE read|write|flush|meta once|sticky error|data\n",
		      stderr);
		return 2;
	}
	op = argv[2];
	sticky = !strcmp(argv[3], "sticky");
	expect_error = !strcmp(argv[4], "error");
	snprintf(name, sizeof(name), "%s_%s", op, argv[3]);
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	if (argv[1][0] == '/') {
		why[0] = '\0';
		ok = file_cell(argv[1], op, sticky, &first, &again);
		goto report;
	}
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		printf("TEST faultcheck.%s FAIL: open %s: %s\n0 passed, 1 failed\n", name, path,
		       strerror(errno));
		return 1;
	}
	why[0] = '\0';
	/* writes: every chunk; the bad one (write faults) judged */
	for (int c = 0; c < CHUNKS && ok; c++) {
		int e = write_chunk(fd, c);

		if (c == BAD_CHUNK && !strcmp(op, "write")) {
			first = e;
			if (e && !sticky)
				again = write_chunk(fd, c);
			ok = judge("the write", sticky, expect_error, first, again);
		} else if (e) {
			snprintf(why, sizeof(why), "write of chunk %d failed: errno %d", c, e);
			ok = 0;
		}
	}
	if (ok && !strcmp(op, "flush")) {
		first = fsync(fd) ? errno : 0;
		if (first && !sticky)
			again = fsync(fd) ? errno : 0;
		ok = judge("fsync", sticky, expect_error, first, again);
	} else if (ok && fsync(fd)) {
		snprintf(why, sizeof(why), "fsync failed: errno %d", errno);
		ok = 0;
	}
	/* reads: every chunk back; the bad one (read faults) judged */
	for (int c = 0; c < CHUNKS && ok; c++) {
		int e;

		if (c == BAD_CHUNK && !strcmp(op, "write") && sticky && expect_error)
			continue;               /* never written: nothing to compare */
		e = read_chunk(fd, c);
		if (c == BAD_CHUNK && !strcmp(op, "read")) {
			first = e;
			if (e > 0 && !sticky)
				again = read_chunk(fd, c);
			if (first < 0 || again < 0) {
				snprintf(why, sizeof(why), "chunk %d read back wrong", c);
				ok = 0;
			} else {
				ok = judge("the read", sticky, expect_error, first, again);
			}
		} else if (e) {
			snprintf(why, sizeof(why), "chunk %d: %s (%d)", c,
				 e < 0 ? "read back wrong" : "read failed", e);
			ok = 0;
		}
	}
	close(fd);
report:
	printf("faultcheck: %s on %s: first try errno %d, second %d\n", name, argv[1], first, again);
	if (ok)
		printf("TEST faultcheck.%s PASS\n1 passed, 0 failed\n", name);
	else
		printf("TEST faultcheck.%s FAIL: %s\n0 passed, 1 failed\n", name, why);
	return ok ? 0 : 1;
}
