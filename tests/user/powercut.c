// SPDX-License-Identifier: MIT
/*
 * powercut DEV BLOCKS - the writer the power-cut test (tools/powercut.py)
 * kills at a random moment.
 *
 * Writes DEV's 64 KiB blocks 0, 1, 2, ... BLOCKS-1 with the verification
 * pattern (seed 21, counted from DEV's start), through the block
 * device's page cache, in groups of two, and after each group an fsync --
 * which writes the dirty pages back, waits for them, and sends the disk a
 * cache flush (REQ_PREFLUSH): once it has returned, the group is durable.
 * (Buffered on purpose: an fsync that returned before its write-back had
 * reached the disk would leave the data in memory, and the cut would lose
 * it.)  Only then does it print
 *
 *     POWERCUT durable <n>       blocks [0, n) are on the disk
 *
 * and before each write it prints "POWERCUT writing <i>" (so the host
 * knows how far the writes may have gone: nothing past the last block
 * begun may change).  The host cuts the power (kills QEMU) somewhere in
 * the middle and checks the raw image against the last "durable" line.
 *
 * powercut -f DIR FILES - the same on a file system: creates DIR/f0,
 * DIR/f1, ... each one BLOCK of the pattern (file i holds the words of
 * bytes [i * BLOCK, (i + 1) * BLOCK), so no two files are alike), and
 * after each one fsync()s the file and then DIR, as a careful program
 * must: a new file's name lives in its directory, which the file's own
 * fsync need not write (on Linux's ext2 it does not).  Then
 *
 *     POWERCUT durable-file <i>  DIR/f<i> is on the disk, name and data
 *
 * The host (tools/powercut.py --fs ext2, or a scenario's check) repairs
 * the image with e2fsck -fy, as ext2 needs after a crash, and reads each
 * durable file back with debugfs.
 *
 * powercut -m DIR OPS [SEED] - a metadata-heavy run for a journaling file
 * system: OPS operations picked at random (from SEED, default 1) among
 * create (a file of 1 to 48 KiB, past the 12 direct blocks of a 1 KiB
 * ext3), append, truncate, rename (within or across directories, and
 * over another file, the atomic replace), unlink, mkdir and rmdir, in
 * DIR's four directories d0..d3.  File k holds the pattern's words of
 * bytes [k * MBLOCK, k * MBLOCK + size): whatever its name and size, its
 * content is a prefix of that.  Each operation is announced, done, then
 * made durable -- fsync of the file it wrote, then of every directory
 * whose entries it changed -- and only then confirmed:
 *
 *     POWERCUT op <n> create <name> <k> <size>   (append <name> <k> <size>,
 *                truncate <name> <size>, rename <old> <new>, unlink <name>,
 *                mkdir <name>, rmdir <name>; names relative to DIR)
 *     POWERCUT durable <n>
 *
 * -M instead of -m: a new file is made durable by its directory's fsync
 * alone, not its own -- the journal commit that the directory's fsync
 * forces writes the file's data first (ordered mode), so a commit that
 * writes it late or not at all loses it (labs/09-crash-consistency).
 *
 * so after a cut the host (tools/powercut.py --fs ext3) knows the tree
 * as of the last durable operation and the one operation that may or may
 * not have happened (a rename: the old name or the new, never both or
 * neither).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include <asm/unistd_64.h>
#include <pattern.h>

#define SEED    21
#define BLOCK   (64 * 1024)
#define GROUP   2
#define MBLOCK  (128 * 1024)    /* -m: file k's pattern starts at k * MBLOCK */
#define MFILES  48              /* -m: at most this many files at once */
#define MDIRS   4               /* -m: d0 .. d3 */

static unsigned char buf[BLOCK] __attribute__((aligned(4096)));

static int fail(const char *what, long i)
{
	printf("powercut: %s %ld: %s\n", what, i, strerror(errno));
	return 1;
}

static int write_files(const char *dir, long files)
{
	char path[256];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	if (dfd < 0)
		return fail(dir, 0);
	printf("POWERCUT start\n");
	fflush(stdout);
	for (long i = 0; i < files; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		pattern_fill(buf, (uint64_t)i * BLOCK, BLOCK, SEED);
		printf("POWERCUT writing %ld\n", i);
		fflush(stdout);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("create of file", i);
		if (write(fd, buf, BLOCK) != BLOCK)
			return fail("write of file", i);
		if (fsync(fd))
			return fail("fsync of file", i);
		if (close(fd))
			return fail("close of file", i);
		if (fsync(dfd))
			return fail("fsync of the directory after file", i);
		printf("POWERCUT durable-file %ld\n", i);
		fflush(stdout);
	}
	printf("POWERCUT done\n");
	return 0;
}

/* --- -m: the metadata run ----------------------------------------------- */

struct mfile {
	char name[32];          /* relative to DIR; "" when free */
	long k;                 /* its pattern: bytes [k * MBLOCK, ...) */
	long size;
};

static struct mfile mfiles[MFILES];
static char mtdirs[8][16];      /* the t<n> directories made and not removed */
static const char *mdir;
static int mdata_by_commit;     /* -M: a created file's data left to the commit */
static unsigned long long mrng;
static long mop;

static unsigned int mrand(unsigned int n)
{
	mrng ^= mrng << 13;
	mrng ^= mrng >> 7;
	mrng ^= mrng << 17;
	return (unsigned int)(mrng % n);
}

static void mpath(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", mdir, name);
}

/* fsync the directory holding name (DIR itself for a top-level name) */
static int mfsync_parent(const char *name)
{
	char path[256];
	const char *slash = strrchr(name, '/');
	int fd, ret;

	if (slash)
		snprintf(path, sizeof(path), "%s/%.*s", mdir, (int)(slash - name), name);
	else
		snprintf(path, sizeof(path), "%s", mdir);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

/* write file f's pattern bytes [from, to) at its end, then fsync it */
static int mwrite(const struct mfile *f, long from, long to, int flags)
{
	char path[256];
	int fd, ret = 0;

	mpath(path, sizeof(path), f->name);
	fd = open(path, O_WRONLY | flags, 0644);
	if (fd < 0)
		return -1;
	pattern_fill(buf, (uint64_t)(f->k * MBLOCK + from), (size_t)(to - from), SEED);
	if (write(fd, buf, (size_t)(to - from)) != to - from)
		ret = -1;
	else if (!(mdata_by_commit && (flags & O_CREAT)) && fsync(fd))
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

static struct mfile *mpick(void)
{
	int live[MFILES], n = 0;

	for (int i = 0; i < MFILES; i++)
		if (mfiles[i].name[0])
			live[n++] = i;
	return n ? &mfiles[live[mrand((unsigned int)n)]] : NULL;
}

/* "POWERCUT op <n> " and the rest of the line, flushed before the operation */
static void mannounce(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mannounce(const char *fmt, ...)
{
	va_list ap;

	printf("POWERCUT op %ld ", mop);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int mcreate(long *next_k)
{
	struct mfile *f = NULL;

	for (int i = 0; i < MFILES && !f; i++)
		if (!mfiles[i].name[0])
			f = &mfiles[i];
	if (!f)
		return 1;
	f->k = (*next_k)++;
	f->size = 1024L * (1 + mrand(48));
	snprintf(f->name, sizeof(f->name), "d%u/f%ld", mrand(MDIRS), f->k);
	mannounce("create %s %ld %ld", f->name, f->k, f->size);
	if (mwrite(f, 0, f->size, O_CREAT | O_EXCL))
		return -1;
	return mfsync_parent(f->name);
}

static int mappend(struct mfile *f)
{
	long old = f->size;

	if (old >= 96 * 1024)
		return 1;
	f->size += 1024L * (1 + mrand(16));
	mannounce("append %s %ld %ld", f->name, f->k, f->size);
	return mwrite(f, old, f->size, O_APPEND);
}

static int mtruncate(struct mfile *f)
{
	char path[256];
	int fd, ret;

	f->size = f->size / 2048 * 1024;
	mannounce("truncate %s %ld", f->name, f->size);
	mpath(path, sizeof(path), f->name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = ftruncate(fd, f->size) || fsync(fd) ? -1 : 0;
	close(fd);
	return ret;
}

/* rename f to a new name, or -- one time in three -- over another file */
static int mrename(struct mfile *f)
{
	struct mfile *victim = mrand(3) == 0 ? mpick() : NULL;
	char from[256], to[256], old[32];

	if (victim == f)
		victim = NULL;
	snprintf(old, sizeof(old), "%s", f->name);
	if (victim)
		snprintf(f->name, sizeof(f->name), "%s", victim->name);
	else
		snprintf(f->name, sizeof(f->name), "d%u/f%ld.%ld", mrand(MDIRS), f->k, mop);
	mannounce("rename %s %s", old, f->name);
	if (victim)
		victim->name[0] = '\0';
	mpath(from, sizeof(from), old);
	mpath(to, sizeof(to), f->name);
	if (syscall(__NR_rename, from, to))
		return -1;
	if (mfsync_parent(f->name))
		return -1;
	return mfsync_parent(old);
}

static int munlink(struct mfile *f)
{
	char path[256];

	mannounce("unlink %s", f->name);
	mpath(path, sizeof(path), f->name);
	if (unlink(path))
		return -1;
	f->name[0] = '\0';
	return mfsync_parent(path + strlen(mdir) + 1);
}

/* mkdir of a t<n> directory in one of d0..d3, or rmdir of one */
static int mdirop(void)
{
	unsigned int slot = mrand(8);
	char path[256];

	if (!mtdirs[slot][0]) {
		snprintf(mtdirs[slot], sizeof(mtdirs[slot]), "d%u/t%ld", mrand(MDIRS), mop);
		mannounce("mkdir %s", mtdirs[slot]);
		mpath(path, sizeof(path), mtdirs[slot]);
		if (mkdir(path, 0755))
			return -1;
	} else {
		mannounce("rmdir %s", mtdirs[slot]);
		mpath(path, sizeof(path), mtdirs[slot]);
		if (rmdir(path))
			return -1;
		mtdirs[slot][0] = '\0';
	}
	return mfsync_parent(path + strlen(mdir) + 1);
}

/* one operation: announced, done, made durable; 0, 1 (none possible), -1 */
static int mstep(long *next_k)
{
	struct mfile *f = mpick();
	unsigned int what = mrand(8);

	if (what <= 1 || !f)
		return mcreate(next_k);
	switch (what) {
	case 2:
		return mappend(f);
	case 3:
		return mtruncate(f);
	case 4:
	case 5:
		return mrename(f);
	case 6:
		return munlink(f);
	default:
		return mdirop();
	}
}

static int write_meta(const char *dir, long ops, unsigned long long seed)
{
	long next_k = 0;
	char path[256];

	mdir = dir;
	mrng = seed * 0x9E3779B97F4A7C15ull | 1;
	printf("POWERCUT start\n");
	fflush(stdout);
	for (unsigned int d = 0; d < MDIRS; d++, mop++) {
		snprintf(path, sizeof(path), "%s/d%u", dir, d);
		mannounce("mkdir d%u", d);
		if (mkdir(path, 0755) || mfsync_parent(path + strlen(dir) + 1))
			return fail("mkdir", (long)d);
		printf("POWERCUT durable %ld\n", mop);
		fflush(stdout);
	}
	while (mop < ops) {
		int ret = mstep(&next_k);

		if (ret < 0)
			return fail("operation", mop);
		if (ret == 0) {
			printf("POWERCUT durable %ld\n", mop);
			fflush(stdout);
			mop++;
		}
	}
	printf("POWERCUT done\n");
	return 0;
}

int main(int argc, char **argv)
{
	char path[64];
	long blocks;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "-f") && (blocks = strtol(argv[3], NULL, 10)) > 0)
		return write_files(argv[2], blocks);
	if ((argc == 4 || argc == 5) && (!strcmp(argv[1], "-m") || !strcmp(argv[1], "-M")) &&
	    (blocks = strtol(argv[3], NULL, 10)) > 0) {
		mdata_by_commit = argv[1][1] == 'M';
		return write_meta(argv[2], blocks, argc == 5 ? strtoull(argv[4], NULL, 0) : 1);
	}
	if (argc != 3 || (blocks = strtol(argv[2], NULL, 10)) <= 0) {
		fputs("usage: powercut DEV BLOCKS | powercut -f DIR FILES | powercut -m|-M DIR OPS [SEED]\n",
		      stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		printf("powercut: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("POWERCUT start\n");
	fflush(stdout);
	for (long i = 0; i < blocks; i++) {
		pattern_fill(buf, (uint64_t)i * BLOCK, BLOCK, SEED);
		printf("POWERCUT writing %ld\n", i);
		fflush(stdout);
		if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK) {
			printf("powercut: write of block %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if ((i + 1) % GROUP == 0) {
			if (fsync(fd)) {
				printf("powercut: fsync: %s\n", strerror(errno));
				return 1;
			}
			printf("POWERCUT durable %ld\n", i + 1);
			fflush(stdout);
		}
	}
	printf("POWERCUT done\n");
	return 0;
}
