// SPDX-License-Identifier: MIT
/*
 * jbd2_replay.c - Spindle's journal recovery (fs/jbd2/) run on the host
 * over a file system image, in place: the program tools/jimages.py runs
 * on e2fsprogs' journal test images, to compare what it leaves with what
 * e2fsck's own replay leaves.
 *
 *   jbd2_replay IMAGE JOURNAL_BLOCKS
 *
 * JOURNAL_BLOCKS is a file of the journal inode's blocks, one physical
 * block number a line in logical order (what `debugfs -R "blocks <8>"`
 * prints): the images use extents, which Spindle's ext2 cannot map, and
 * the journal layer below does not care who mapped its blocks.
 *
 * Two verdicts, each a line on stdout:
 *   mount: accepted | mount: refused (-errno)
 *       what Spindle's ext3 mount says of the superblock (fs/ext2/check.c,
 *       ext2_fill_geometry, as for `mount -t ext3`), its reason on the
 *       "EXT2-fs" line of the log (stderr);
 *   jbd2: load <errno> replayed <n> revoked <n> failed_commit <tid> sequence <tid>
 *       what jbd2_journal_load() did to the journal: the three passes and
 *       the journal superblock marked empty, or a refusal (its reason on
 *       the "JBD2:" line of the log), with every home block written
 *       straight into IMAGE.
 * The journal is replayed whatever the mount says, so that fs/jbd2 meets
 * every log the images hold; the fs superblock (needs_recovery) is left
 * alone: clearing it is the mount's step, not the journal's.
 *
 * Exit status: 0 when both verdicts were printed, 2 on a usage or I/O
 * error of the program itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <spindle/jbd2.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/ext2_fs.h>
#include "../../fs/ext2/ext2.h"

/* lib/ratelimit.c's needs: no timer and no interrupts on the host */
volatile u64 jiffies;
unsigned long local_irq_save(void)
{
	return 0;
}
void local_irq_restore(unsigned long flags)
{
	(void)flags;
}

/* the revoke table's memory: libc's */
void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

struct image {
	FILE *f;
	u64 *map;    /* journal block -> file system block */
	u32 map_len;
};

static int image_io(journal_t *j, u64 fs_block, void *buf, bool write)
{
	struct image *img = j->j_private;
	size_t n;

	if (fseeko(img->f, (off_t)(fs_block * j->j_blocksize), SEEK_SET))
		return -EIO;
	if (write)
		n = fwrite(buf, j->j_blocksize, 1, img->f);
	else
		n = fread(buf, j->j_blocksize, 1, img->f);
	return n == 1 ? 0 : -EIO;
}

static int r_read(journal_t *j, u32 nr, void *buf)
{
	struct image *img = j->j_private;

	if (nr >= img->map_len)
		return -EIO; /* recovery bounds it by j_total_len: cannot happen */
	return image_io(j, img->map[nr], buf, false);
}

static int r_write(journal_t *j, u32 nr, const void *buf)
{
	struct image *img = j->j_private;

	if (nr >= img->map_len)
		return -EIO;
	return image_io(j, img->map[nr], (void *)buf, true);
}

static int r_write_home(journal_t *j, u64 nr, const void *buf)
{
	return image_io(j, nr, (void *)buf, true);
}

static int r_sync(journal_t *j)
{
	struct image *img = j->j_private;

	return fflush(img->f) ? -EIO : 0;
}

static int read_map(const char *path, struct image *img)
{
	FILE *f = fopen(path, "r");
	unsigned long long b;
	u32 cap = 1024;

	if (!f)
		return -1;
	img->map = malloc(cap * sizeof(*img->map));
	while (img->map && fscanf(f, "%llu", &b) == 1) {
		if (img->map_len == cap) {
			cap *= 2;
			img->map = realloc(img->map, cap * sizeof(*img->map));
			if (!img->map)
				break;
		}
		img->map[img->map_len++] = b;
	}
	fclose(f);
	return img->map ? 0 : -1;
}

/* The mount's verdict on the superblock, as ext3 (fs/ext2/check.c). */
static void mount_verdict(const u8 *raw, u64 dev_bytes)
{
	static struct ext2_sb_info sbi;
	int err;

	strlcpy(sbi.s_id, "image", sizeof(sbi.s_id));
	sbi.s_ext3 = true;
	err = ext2_fill_geometry(&sbi, raw, dev_bytes);
	if (err)
		printf("mount: refused (%d)\n", err);
	else
		printf("mount: accepted\n");
}

int main(int argc, char **argv)
{
	struct image img = { 0 };
	journal_t journal;
	u8 raw[1024];
	u64 blocks;
	u32 log_bs, incompat, blocks_hi = 0;
	off_t dev_bytes;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IMAGE JOURNAL_BLOCKS\n", argv[0]);
		return 2;
	}
	img.f = fopen(argv[1], "r+b");
	if (!img.f || read_map(argv[2], &img) || fseeko(img.f, 0, SEEK_END) ||
	    (dev_bytes = ftello(img.f)) < 2048 || fseeko(img.f, 1024, SEEK_SET) ||
	    fread(raw, sizeof(raw), 1, img.f) != 1) {
		perror("jbd2_replay");
		return 2;
	}
	mount_verdict(raw, (u64)dev_bytes);

	/* the geometry the journal needs, read here: the mount may have
	 * refused the superblock (s_blocks_count_hi only with 64bit) */
	memcpy(&log_bs, raw + offsetof(struct ext2_super_block, s_log_block_size), 4);
	memcpy(&incompat, raw + offsetof(struct ext2_super_block, s_feature_incompat), 4);
	memcpy(&blocks, raw + 4, 4);
	blocks &= 0xffffffffu;
	if (incompat & 0x80) /* EXT4_FEATURE_INCOMPAT_64BIT */
		memcpy(&blocks_hi, raw + 0x150, 4);
	blocks |= (u64)blocks_hi << 32;
	if (log_bs > 6) {
		printf("jbd2: not loaded (block size 1024 << %u)\n", log_bs);
		return 0;
	}

	memset(&journal, 0, sizeof(journal));
	strlcpy(journal.j_devname, "image-8", sizeof(journal.j_devname));
	journal.j_blocksize = 1024u << log_bs;
	journal.j_total_len = img.map_len;
	journal.j_fs_blocks = blocks;
	journal.j_private = &img;
	journal.j_read_block = r_read;
	journal.j_write_block = r_write;
	journal.j_write_home = r_write_home;
	journal.j_sync = r_sync;
	err = jbd2_journal_load(&journal);
	printf("jbd2: load %d replayed %u revoked %u failed_commit %u sequence %u\n", err,
	       journal.j_replayed, journal.j_revoke_hits, journal.j_failed_commit,
	       journal.j_transaction_sequence);
	jbd2_journal_destroy(&journal);
	free(img.map);
	return fclose(img.f) ? 2 : 0;
}
