// SPDX-License-Identifier: MIT
/*
 * fuzz_ext2.c - ext2's on-disk checks (fs/ext2/check.c) fed arbitrary
 * file system images.
 *
 * The input is the device (the start of a 256 KiB one, the rest zeros):
 * a seed made by mke2fs and debugfs on a small image file is an input as
 * it stands.  The target does what mounting and reading
 * the whole tree would do, with the checks of check.c between the disk
 * and every use, as fs/ext2/ uses them: the superblock into a geometry,
 * each group descriptor, then from the root inode down (a bounded number
 * of inodes and blocks, so one input stays fast), each inode, each file
 * block through the indirect blocks, each directory block (up to the
 * first bad one) and its entries.  What the checks promise the rest of ext2, which indexes the
 * disk with these numbers unchecked:
 *
 *   - an accepted geometry fits the device: the block count, the
 *     descriptor table, each inode table inside its group;
 *   - an inode location is inside an inode table block;
 *   - every block number the map walk returns or reads lies inside the
 *     file system (the read callback asserts it);
 *   - an accepted directory block's entries tile the block and name
 *     inodes that exist; an accepted fast link fits in i_block;
 *   - a hashed directory's index (htree.c) leads to a leaf inside the
 *     directory, or is refused with a warning;
 *   - statfs's figures are consistent (bavail <= bfree, blocks <= count).
 *
 * Every rejection must say why in the log (one line, "EXT2-fs").
 */
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/stat.h>
#include "../../fs/ext2/ext2.h"
#include "fuzz.h"

#define FUZZ_MAX_INODES 64 /* inodes visited per input */

/* lib/ratelimit.c's needs: no timer and no interrupts here (the kernel's
 * are in tests/unit/shim/host_kernel.c, which this target does not link) */
volatile u64 jiffies;
unsigned long local_irq_save(void) { return 0; }
void local_irq_restore(unsigned long flags) { (void)flags; }

#define FUZZ_MAX_BLOCKS 300 /* blocks mapped per inode */

struct fuzz_image {
	const u8 *data;
	size_t size;
	struct ext2_sb_info *sbi;
};

static const u8 *block_at(const struct fuzz_image *img, u32 block)
{
	struct ext2_sb_info *sbi = img->sbi;

	FUZZ_ASSERT(block >= sbi->s_first_data_block && block < sbi->s_blocks_count);
	FUZZ_ASSERT(((u64)block + 1) * sbi->s_blocksize <= img->size);
	return img->data + (size_t)block * sbi->s_blocksize;
}

static int read_entry(void *ctx, int level, u32 block, u32 index, u32 *entry)
{
	const struct fuzz_image *img = ctx;

	FUZZ_ASSERT(level >= 1 && level <= 3);
	FUZZ_ASSERT(index < img->sbi->s_addr_per_block);
	memcpy(entry, block_at(img, block) + (size_t)index * 4, 4);
	return 0;
}

static bool logged(void)
{
	return strstr(host_printk_buf, "EXT2-fs") != NULL;
}

/* Directory block: every entry inside, every inode number possible. */
static void walk_dir_block(struct fuzz_image *img, const u8 *b, u32 *queue, unsigned int *n)
{
	struct ext2_sb_info *sbi = img->sbi;

	for (unsigned long o = 0; o < sbi->s_blocksize;) {
		struct ext2_dir_entry_2 de;

		FUZZ_ASSERT(o % 4 == 0 && sbi->s_blocksize - o >= EXT2_DIR_REC_LEN(1));
		memcpy(&de, b + o, sizeof(de));
		FUZZ_ASSERT(de.rec_len >= EXT2_DIR_REC_LEN(de.name_len));
		FUZZ_ASSERT(de.rec_len <= sbi->s_blocksize - o);
		FUZZ_ASSERT(de.inode <= sbi->s_inodes_count);
		if (de.inode && ext2_dtype(&de) == DT_DIR && *n < FUZZ_MAX_INODES &&
		    !(de.name_len <= 2 && b[o + 8] == '.'))
			queue[(*n)++] = de.inode;
		o += de.rec_len;
	}
}

/* htree.c's read callback: a directory's block through its map, checked
 * as a directory block, as fs/ext2/dir.c reads it */
struct fuzz_dir {
	struct fuzz_image *img;
	const struct ext2_inode *raw;
	unsigned long ino;
	u64 nblocks;
};

static int read_dir_block(void *ctx, int level, u32 block, const void **data)
{
	struct fuzz_dir *d = ctx;
	struct ext2_sb_info *sbi = d->img->sbi;
	u32 pblock;
	int err;

	FUZZ_ASSERT(level >= 0 && level < EXT2_DX_MAX_LEVELS);
	FUZZ_ASSERT(block < d->nblocks); /* the probe checked it */
	err = ext2_get_branch(sbi, d->raw->i_block, d->ino, block, read_entry, d->img, &pblock,
			      NULL);
	if (err)
		return err;
	if (!pblock) {
		/* as dir.c's ext2_get_dir_block says it */
		ext2_error(sbi, "ext2_get_dir_block", "directory #%lu contains a hole at block %u",
			   d->ino, block);
		return -EUCLEAN;
	}
	err = ext2_check_dir_block(sbi, block_at(d->img, pblock), d->ino, block);
	if (err)
		return err;
	*data = block_at(d->img, pblock);
	return 0;
}

/* A hashed directory's index, probed for a few names: a leaf inside the
 * directory, or a refusal that says why. */
static void probe_index(struct fuzz_image *img, const struct ext2_inode *raw, unsigned long ino,
			u64 nblocks)
{
	static const char *const names[] = { "a", "lost+found", "f00000", "a-much-longer-name" };
	struct fuzz_dir d = { img, raw, ino, nblocks };

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++) {
		struct ext2_dx_path path;
		int err;

		host_printk_reset();
		err = ext2_dx_probe(img->sbi, ino, nblocks, names[i], (int)strlen(names[i]),
				    read_dir_block, &d, &path);
		for (int hops = 0; !err && hops < 4; hops++) {
			FUZZ_ASSERT(path.leaf > 0 && path.leaf < nblocks);
			err = ext2_dx_next_leaf(img->sbi, ino, nblocks, read_dir_block, &d, &path);
			if (err == 0)
				break;
			err = err == 1 ? 0 : err;
		}
		if (err)
			FUZZ_ASSERT(logged());
	}
}

static void walk_inode(struct fuzz_image *img, unsigned long ino, u32 *queue, unsigned int *n)
{
	struct ext2_sb_info *sbi = img->sbi;
	struct ext2_inode raw;
	unsigned int offset;
	u64 size, nblocks;
	bool dir_bad = false;
	u32 block;

	if (ext2_inode_location(sbi, ino, &block, &offset)) {
		FUZZ_ASSERT(logged());
		return;
	}
	FUZZ_ASSERT(offset + sbi->s_inode_size <= sbi->s_blocksize);
	memcpy(&raw, block_at(img, block) + offset, sizeof(raw));
	switch (ext2_check_inode(sbi, &raw, ino)) {
	case 0:
		break;
	case -ESTALE:
		return;
	default:
		FUZZ_ASSERT(logged());
		return;
	}
	size = ext2_inode_size(&raw);
	FUZZ_ASSERT(size <= sbi->s_max_size);
	if (S_ISLNK(raw.i_mode) && ext2_inode_is_fast_symlink(sbi, &raw)) {
		FUZZ_ASSERT(size > 0 && size <= EXT2_FAST_SYMLINK_MAX);
		return;
	}
	if (!S_ISREG(raw.i_mode) && !S_ISDIR(raw.i_mode) && !S_ISLNK(raw.i_mode))
		return;
	nblocks = DIV_ROUND_UP(size, sbi->s_blocksize);
	for (u64 i = 0; i < nblocks && i < FUZZ_MAX_BLOCKS; i++) {
		u32 pblock;
		u64 hole;

		host_printk_reset();
		if (ext2_get_branch(sbi, raw.i_block, ino, i, read_entry, img, &pblock, &hole)) {
			FUZZ_ASSERT(logged());
			return;
		}
		/* a hole spans at least its own block, and never past the map */
		FUZZ_ASSERT(pblock ? hole == 0 : hole >= 1);
		FUZZ_ASSERT(pblock || ext2_block_to_path(sbi, i + hole - 1, (u32[4]){ 0 }) != 0);
		if (!pblock || !S_ISDIR(raw.i_mode) || dir_bad)
			continue;
		/* a bad block ends the directory (ext2_readdir and
		 * ext2_find_entry stop at it); its map is still walked */
		if (ext2_check_dir_block(sbi, block_at(img, pblock), ino, i)) {
			FUZZ_ASSERT(logged());
			dir_bad = true;
			continue;
		}
		walk_dir_block(img, block_at(img, pblock), queue, n);
	}
	if (S_ISDIR(raw.i_mode) && (raw.i_flags & EXT2_INDEX_FL) && nblocks > 1 &&
	    nblocks <= FUZZ_MAX_BLOCKS)
		probe_index(img, &raw, ino, nblocks);
}

/* The device: the input is its beginning, the rest reads as zeros -- so
 * a seed can leave out the empty tail of a file system (seeds are kept
 * small).  A longer input is a device of its own length.
 *
 * Only the bytes the last input wrote are cleared for the next one
 * (device_dirty): the tail past every input stays zero, and clearing all
 * 256 KiB per input took nine tenths of the fuzzer's time, for the same
 * device. */
#define FUZZ_DEVICE_BYTES (256 * 1024)
static u8 device[FUZZ_DEVICE_BYTES];
static size_t device_dirty; /* device[device_dirty..] is all zeros */

int LLVMFuzzerTestOneInput(const u8 *input, size_t input_size)
{
	const u8 *data = input;
	size_t size = input_size;
	struct ext2_sb_info sbi = { .s_id = "fuzz" };
	struct fuzz_image img;
	u32 queue[FUZZ_MAX_INODES];
	unsigned int n = 0;
	struct statfs sf;
	size_t gd_bytes;

	fuzz_begin();
	if (size < FUZZ_DEVICE_BYTES) {
		/* the C library's copies: the kernel's memcpy is not what is
		 * under test here, and instrumented it was a tenth of the
		 * time */
		__builtin_memcpy(device, input, size);
		if (device_dirty > size)
			__builtin_memset(device + size, 0, device_dirty - size);
		device_dirty = size;
		data = device;
		size = FUZZ_DEVICE_BYTES;
	}
	img = (struct fuzz_image){ data, size, &sbi };
	if (ext2_fill_geometry(&sbi, data + EXT2_SUPER_OFFSET, size)) {
		FUZZ_ASSERT(logged());
		return 0;
	}
	sbi.s_err_ratelimit.burst = 1 << 30; /* every rejection must be said */
	FUZZ_ASSERT(sbi.s_blocksize == 1024 || sbi.s_blocksize == 2048 || sbi.s_blocksize == 4096);
	FUZZ_ASSERT((u64)sbi.s_blocks_count * sbi.s_blocksize <= size);
	FUZZ_ASSERT((u64)sbi.s_first_data_block + 1 + sbi.s_gdb_count <= sbi.s_blocks_count);
	gd_bytes = (size_t)sbi.s_groups_count * sizeof(struct ext2_group_desc);
	sbi.s_group_desc = malloc(gd_bytes);
	memcpy(sbi.s_group_desc, block_at(&img, sbi.s_first_data_block + 1), gd_bytes);
	for (u32 g = 0; g < sbi.s_groups_count; g++)
		if (ext2_check_descriptor(&sbi, &sbi.s_group_desc[g], g)) {
			FUZZ_ASSERT(logged());
			goto out;
		}
	for (u32 g = 0; g < sbi.s_groups_count; g++) {
		const struct ext2_group_desc *gd = &sbi.s_group_desc[g];

		FUZZ_ASSERT((u64)gd->bg_inode_table + sbi.s_itb_per_group <= sbi.s_blocks_count);
	}
	ext2_fill_statfs(&sbi, &sf);
	FUZZ_ASSERT(sf.f_bavail <= sf.f_bfree && sf.f_blocks <= sbi.s_blocks_count);
	queue[n++] = EXT2_ROOT_INO;
	for (unsigned int i = 0; i < n; i++)
		walk_inode(&img, queue[i], queue, &n);
	fuzz_end();
out:
	free(sbi.s_group_desc);
	return 0;
}
