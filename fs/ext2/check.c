// SPDX-License-Identifier: MIT
/*
 * check.c - ext2's on-disk checks and arithmetic, apart from all I/O.
 *
 * Everything ext2 believes about a disk passes through here first: the
 * superblock's geometry (ext2_fill_geometry), each group descriptor, each
 * inode, each directory block, each block number met in the block map.
 * A disk is outside data -- a damaged one, or one made to crash the
 * kernel -- so nothing is used before it is checked, and each check says
 * what it found in Linux's words (ext2_error) and returns -EUCLEAN.
 *
 * The file reads nothing itself: the block-map walk asks a callback for
 * the entries of indirect blocks.  So it compiles for the host unchanged,
 * where tests/unit/check_ext2.c and tests/fuzz/fuzz_ext2.c feed it images
 * made by mke2fs and then damaged.
 */
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <spindle/stat.h>
#include "ext2.h"

void ext2_error(struct ext2_sb_info *sbi, const char *function, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	/* a damaged directory read in a loop must not flood the console */
	if (__ratelimit(&sbi->s_err_ratelimit)) {
		va_start(ap, fmt);
		vscnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		printk(KERN_CRIT "EXT2-fs error (device %s): %s: %s\n", sbi->s_id, function, what);
	}
	/* then the kernel's reaction (errors=), each time */
	if (sbi->s_on_error)
		sbi->s_on_error(sbi);
}

/* --- the superblock ----------------------------------------------------------- */

/* The largest file the block map can reach: 12 direct blocks and three
 * levels of indirection (Linux's ext2_max_size, without its i_blocks cap,
 * which only matters past 2 TiB). */
static u64 ext2_max_size(const struct ext2_sb_info *sbi)
{
	u64 a = sbi->s_addr_per_block;
	u64 blocks = EXT2_NDIR_BLOCKS + a + a * a + a * a * a;

	return blocks << sbi->s_blocksize_bits;
}

/* The checks on figures read from the superblock; ext2_geometry() below
 * derives the rest.  0 or -EUCLEAN, logged. */
static int ext2_check_counts(struct ext2_sb_info *sbi, const struct ext2_super_block *es,
			     u64 dev_bytes)
{
	u64 dev_blocks = dev_bytes >> sbi->s_blocksize_bits;
	u32 want_first = sbi->s_blocksize == 1024 ? 1 : 0;

	if (sbi->s_inode_size < EXT2_GOOD_OLD_INODE_SIZE || !is_power_of_2(sbi->s_inode_size) ||
	    sbi->s_inode_size > sbi->s_blocksize) {
		ext2_msg(sbi, KERN_ERR, "error: unsupported inode size: %u", sbi->s_inode_size);
		return -EUCLEAN;
	}
	/* the superblock is in block 1 of a 1 KiB file system, else block 0:
	 * what comes before the first data block is not the file system's */
	if (es->s_first_data_block != want_first) {
		ext2_msg(sbi, KERN_ERR, "error: first data block %u, should be %u",
			 es->s_first_data_block, want_first);
		return -EUCLEAN;
	}
	if (es->s_blocks_count <= es->s_first_data_block + 1) {
		ext2_msg(sbi, KERN_ERR, "error: block count %u too small", es->s_blocks_count);
		return -EUCLEAN;
	}
	if (es->s_blocks_count > dev_blocks) {
		ext2_msg(sbi, KERN_ERR,
			 "bad geometry: block count %u exceeds size of device (%llu blocks)",
			 es->s_blocks_count, (unsigned long long)dev_blocks);
		return -EUCLEAN;
	}
	if (es->s_blocks_per_group == 0 || es->s_blocks_per_group > sbi->s_blocksize * 8) {
		ext2_msg(sbi, KERN_ERR, "error: #blocks per group too big: %u",
			 es->s_blocks_per_group);
		return -EUCLEAN;
	}
	if (es->s_inodes_per_group < sbi->s_inodes_per_block ||
	    es->s_inodes_per_group > sbi->s_blocksize * 8 ||
	    es->s_inodes_per_group % sbi->s_inodes_per_block) {
		ext2_msg(sbi, KERN_ERR, "error: invalid #inodes per group: %u",
			 es->s_inodes_per_group);
		return -EUCLEAN;
	}
	if (es->s_r_blocks_count > es->s_blocks_count) {
		ext2_msg(sbi, KERN_ERR, "error: reserved block count %u exceeds block count %u",
			 es->s_r_blocks_count, es->s_blocks_count);
		return -EUCLEAN;
	}
	return 0;
}

/* What follows from the checked figures; then the checks that need it. */
static int ext2_geometry(struct ext2_sb_info *sbi, const struct ext2_super_block *es)
{
	u64 computed;

	sbi->s_blocks_count = es->s_blocks_count;
	sbi->s_inodes_count = es->s_inodes_count;
	sbi->s_first_data_block = es->s_first_data_block;
	sbi->s_blocks_per_group = es->s_blocks_per_group;
	sbi->s_inodes_per_group = es->s_inodes_per_group;
	sbi->s_itb_per_group = es->s_inodes_per_group / sbi->s_inodes_per_block;
	sbi->s_groups_count = (es->s_blocks_count - es->s_first_data_block - 1) /
				      es->s_blocks_per_group +
			      1;
	sbi->s_desc_per_block = sbi->s_blocksize / sizeof(struct ext2_group_desc);
	sbi->s_gdb_count = DIV_ROUND_UP(sbi->s_groups_count, sbi->s_desc_per_block);
	sbi->s_addr_per_block = sbi->s_blocksize / sizeof(u32);
	sbi->s_addr_per_block_bits = sbi->s_blocksize_bits - 2;
	sbi->s_max_size = ext2_max_size(sbi);

	computed = (u64)sbi->s_groups_count * sbi->s_inodes_per_group;
	if (computed != es->s_inodes_count) {
		ext2_msg(sbi, KERN_ERR, "error: invalid #inodes: %u vs computed %llu",
			 es->s_inodes_count, (unsigned long long)computed);
		return -EUCLEAN;
	}
	if (sbi->s_first_ino < EXT2_GOOD_OLD_FIRST_INO || sbi->s_first_ino > sbi->s_inodes_count) {
		ext2_msg(sbi, KERN_ERR, "error: invalid first inode %u", sbi->s_first_ino);
		return -EUCLEAN;
	}
	/* the descriptor table follows the superblock's block */
	if ((u64)sbi->s_first_data_block + 1 + sbi->s_gdb_count > sbi->s_blocks_count) {
		ext2_msg(sbi, KERN_ERR, "error: %u group descriptor blocks do not fit",
			 sbi->s_gdb_count);
		return -EUCLEAN;
	}
	return 0;
}

int ext2_fill_geometry(struct ext2_sb_info *sbi, const void *raw, u64 dev_bytes)
{
	const struct ext2_super_block *es = &sbi->s_es;
	u32 unknown;
	int err;

	sbi->s_err_ratelimit = (struct ratelimit_state)RATELIMIT_STATE_INIT(
		DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);
	memcpy(&sbi->s_es, raw, sizeof(sbi->s_es));
	if (es->s_magic != EXT2_SUPER_MAGIC) {
		ext2_msg(sbi, KERN_ERR, "error: can't find an ext2 filesystem on dev %s.",
			 sbi->s_id);
		return -EINVAL;
	}
	if (es->s_rev_level > EXT2_DYNAMIC_REV) {
		ext2_msg(sbi, KERN_ERR, "error: revision level %u too high (this driver reads 0 and 1)",
			 es->s_rev_level);
		return -EINVAL;
	}
	if (es->s_rev_level == EXT2_GOOD_OLD_REV) {
		/* revision 0 has no feature flags: whatever the fields hold */
		sbi->s_inode_size = EXT2_GOOD_OLD_INODE_SIZE;
		sbi->s_first_ino = EXT2_GOOD_OLD_FIRST_INO;
	} else {
		/* as ext3, a log waiting for replay is understood (super.c
		 * replays it); as ext2 it is an unknown feature, as Linux's
		 * ext2 says */
		unknown = es->s_feature_incompat & ~EXT2_FEATURE_INCOMPAT_SUPP &
			  ~(sbi->s_ext3 ? EXT3_FEATURE_INCOMPAT_RECOVER : 0);
		if (unknown) {
			ext2_msg(sbi, KERN_ERR,
				 "error: couldn't mount because of unsupported optional features (%x)",
				 unknown);
			return -EINVAL;
		}
		/* features that only a writer must know: reading is safe */
		unknown = es->s_feature_ro_compat & ~EXT2_FEATURE_RO_COMPAT_SUPP;
		if (unknown)
			ext2_msg(sbi, KERN_INFO,
				 "unsupported read-only-compatible features (%x): read-only mount only",
				 unknown);
		sbi->s_inode_size = es->s_inode_size;
		sbi->s_first_ino = es->s_first_ino;
	}
	if (sbi->s_ext3 && (es->s_rev_level == EXT2_GOOD_OLD_REV ||
			    !(es->s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))) {
		ext2_msg(sbi, KERN_ERR,
			 "error: couldn't mount as ext3 due to feature incompatibilities (no journal)");
		return -EINVAL;
	}
	if (es->s_log_block_size > EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE) {
		ext2_msg(sbi, KERN_ERR, "error: unsupported blocksize (s_log_block_size %u)",
			 es->s_log_block_size);
		return -EINVAL;
	}
	sbi->s_blocksize_bits = EXT2_MIN_BLOCK_LOG_SIZE + es->s_log_block_size;
	sbi->s_blocksize = 1ul << sbi->s_blocksize_bits;
	sbi->s_inodes_per_block = sbi->s_inode_size ? sbi->s_blocksize / sbi->s_inode_size : 0;
	err = ext2_check_counts(sbi, es, dev_bytes);
	if (!err)
		err = ext2_geometry(sbi, es);
	if (err)
		return err;
	if (!(es->s_state & EXT2_VALID_FS))
		ext2_msg(sbi, KERN_WARNING, "warning: mounting unchecked fs, running e2fsck is recommended");
	else if (es->s_state & EXT2_ERROR_FS)
		ext2_msg(sbi, KERN_WARNING,
			 "warning: mounting fs with errors, running e2fsck is recommended");
	return 0;
}

/* First and last block of group g. */
static void ext2_group_range(const struct ext2_sb_info *sbi, u32 g, u32 *first, u32 *last)
{
	*first = sbi->s_first_data_block + g * sbi->s_blocks_per_group;
	*last = g == sbi->s_groups_count - 1 ? sbi->s_blocks_count - 1
					     : *first + sbi->s_blocks_per_group - 1;
}

int ext2_check_descriptor(struct ext2_sb_info *sbi, const struct ext2_group_desc *gd, u32 group)
{
	u32 first, last;

	ext2_group_range(sbi, group, &first, &last);
	if (gd->bg_block_bitmap < first || gd->bg_block_bitmap > last) {
		ext2_error(sbi, "ext2_check_descriptors",
			   "Block bitmap for group %u not in group (block %u)!", group,
			   gd->bg_block_bitmap);
		return -EUCLEAN;
	}
	if (gd->bg_inode_bitmap < first || gd->bg_inode_bitmap > last) {
		ext2_error(sbi, "ext2_check_descriptors",
			   "Inode bitmap for group %u not in group (block %u)!", group,
			   gd->bg_inode_bitmap);
		return -EUCLEAN;
	}
	if (gd->bg_inode_table < first || gd->bg_inode_table > last ||
	    last - gd->bg_inode_table < sbi->s_itb_per_group - 1) {
		ext2_error(sbi, "ext2_check_descriptors",
			   "Inode table for group %u not in group (block %u)!", group,
			   gd->bg_inode_table);
		return -EUCLEAN;
	}
	return 0;
}

/* --- inodes ------------------------------------------------------------------- */

int ext2_inode_location(struct ext2_sb_info *sbi, unsigned long ino, u32 *block,
			unsigned int *offset)
{
	if ((ino != EXT2_ROOT_INO && ino < sbi->s_first_ino) || ino > sbi->s_inodes_count) {
		ext2_error(sbi, "ext2_get_inode", "bad inode number: %lu", ino);
		return -EUCLEAN;
	}
	return __ext2_inode_location(sbi, ino, block, offset);
}

int __ext2_inode_location(struct ext2_sb_info *sbi, unsigned long ino, u32 *block,
			  unsigned int *offset)
{
	u32 group, index;
	u64 byte;

	if (ino < 1 || ino > sbi->s_inodes_count) {
		ext2_error(sbi, "ext2_get_inode", "bad inode number: %lu", ino);
		return -EUCLEAN;
	}
	group = (ino - 1) / sbi->s_inodes_per_group;
	index = (ino - 1) % sbi->s_inodes_per_group;
	byte = (u64)index * sbi->s_inode_size;
	*block = sbi->s_group_desc[group].bg_inode_table + (u32)(byte >> sbi->s_blocksize_bits);
	*offset = byte & (sbi->s_blocksize - 1);
	return 0;
}

u64 ext2_inode_size(const struct ext2_inode *raw)
{
	u64 size = raw->i_size;

	if (S_ISREG(raw->i_mode))
		size |= (u64)raw->i_size_high << 32;
	return size;
}

/* Linux's ext2_inode_is_fast_symlink: a link that holds no block (but
 * perhaps an extended-attribute block) keeps its target in i_block. */
bool ext2_inode_is_fast_symlink(struct ext2_sb_info *sbi, const struct ext2_inode *raw)
{
	u32 ea_blocks = raw->i_file_acl ? sbi->s_blocksize >> 9 : 0;

	return S_ISLNK(raw->i_mode) && raw->i_blocks - ea_blocks == 0;
}

static int ext2_check_size(struct ext2_sb_info *sbi, const struct ext2_inode *raw,
			   unsigned long ino)
{
	u64 size = ext2_inode_size(raw);

	if (size > sbi->s_max_size) {
		ext2_error(sbi, "ext2_iget", "inode %lu: size %llu past the largest file (%llu)",
			   ino, (unsigned long long)size, (unsigned long long)sbi->s_max_size);
		return -EUCLEAN;
	}
	if (S_ISDIR(raw->i_mode) && (size == 0 || (size & (sbi->s_blocksize - 1)))) {
		ext2_error(sbi, "ext2_iget",
			   "size of directory #%lu is not a multiple of chunk size", ino);
		return -EUCLEAN;
	}
	if (S_ISLNK(raw->i_mode)) {
		u64 most = ext2_inode_is_fast_symlink(sbi, raw) ? EXT2_FAST_SYMLINK_MAX
								: sbi->s_blocksize - 1;

		if (size == 0 || size > most) {
			ext2_error(sbi, "ext2_iget", "inode %lu: symbolic link of %llu bytes",
				   ino, (unsigned long long)size);
			return -EUCLEAN;
		}
	}
	return 0;
}

int ext2_check_inode(struct ext2_sb_info *sbi, const struct ext2_inode *raw, unsigned long ino)
{
	/* Linux's test: no links and either never used or deleted */
	if (raw->i_links_count == 0 && (raw->i_mode == 0 || raw->i_dtime))
		return -ESTALE;
	switch (raw->i_mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFLNK:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	default:
		ext2_error(sbi, "ext2_iget", "inode %lu: bad file type (mode 0%o)", ino,
			   raw->i_mode);
		return -EUCLEAN;
	}
	return ext2_check_size(sbi, raw, ino);
}

/* --- directories -------------------------------------------------------------- */

int ext2_check_dir_block(struct ext2_sb_info *sbi, const void *buf, unsigned long dir_ino, u64 n)
{
	const char *base = buf;
	unsigned long offs = 0;
	const char *error;
	const struct ext2_dir_entry_2 *p = NULL;

	/* the entries must tile the block exactly: a walk that steps by
	 * rec_len lands on the block's end, never past it, never short */
	while (offs < sbi->s_blocksize) {
		p = (const struct ext2_dir_entry_2 *)(base + offs);
		if (sbi->s_blocksize - offs < EXT2_DIR_REC_LEN(1))
			goto Espan;
		if (p->rec_len < EXT2_DIR_REC_LEN(1))
			goto Ebadsize;
		if (p->rec_len & 3)
			goto Ealign;
		if (p->rec_len < EXT2_DIR_REC_LEN(p->name_len))
			goto Enamelen;
		if (p->rec_len > sbi->s_blocksize - offs)
			goto Espan;
		if (p->inode > sbi->s_inodes_count)
			goto Einumber;
		if (p->inode && p->name_len == 0)
			goto Enoname;
		offs += p->rec_len;
	}
	return 0;
Ebadsize:
	error = "rec_len is smaller than minimal";
	goto bad_entry;
Ealign:
	error = "unaligned directory entry";
	goto bad_entry;
Enamelen:
	error = "rec_len is too small for name_len";
	goto bad_entry;
Espan:
	error = "directory entry across blocks";
	goto bad_entry;
Einumber:
	error = "inode out of bounds";
	goto bad_entry;
Enoname:
	error = "entry without a name";
bad_entry:
	/* a header cut by the block's end is not read: its fields are 0 */
	ext2_error(sbi, "ext2_check_dir_block",
		   "bad entry in directory #%lu: %s - offset=%llu, inode=%u, rec_len=%u, name_len=%u",
		   dir_ino, error, (unsigned long long)((n << sbi->s_blocksize_bits) + offs),
		   sbi->s_blocksize - offs >= 8 ? p->inode : 0,
		   sbi->s_blocksize - offs >= 8 ? p->rec_len : 0,
		   sbi->s_blocksize - offs >= 8 ? p->name_len : 0);
	return -EUCLEAN;
}

unsigned int ext2_dtype(const struct ext2_dir_entry_2 *de)
{
	static const u8 dtype[EXT2_FT_MAX] = {
		[EXT2_FT_UNKNOWN] = DT_UNKNOWN,
		[EXT2_FT_REG_FILE] = DT_REG,
		[EXT2_FT_DIR] = DT_DIR,
		[EXT2_FT_CHRDEV] = DT_CHR,
		[EXT2_FT_BLKDEV] = DT_BLK,
		[EXT2_FT_FIFO] = DT_FIFO,
		[EXT2_FT_SOCK] = S_DT(S_IFSOCK),
		[EXT2_FT_SYMLINK] = DT_LNK,
	};

	return de->file_type < EXT2_FT_MAX ? dtype[de->file_type] : DT_UNKNOWN;
}

/* --- the block map -------------------------------------------------------------- */

int ext2_block_to_path(struct ext2_sb_info *sbi, u64 iblock, u32 offsets[4])
{
	u64 a = sbi->s_addr_per_block;
	unsigned int bits = sbi->s_addr_per_block_bits;

	if (iblock < EXT2_NDIR_BLOCKS) {
		offsets[0] = (u32)iblock;
		return 1;
	}
	iblock -= EXT2_NDIR_BLOCKS;
	if (iblock < a) {
		offsets[0] = EXT2_IND_BLOCK;
		offsets[1] = (u32)iblock;
		return 2;
	}
	iblock -= a;
	if (iblock < a * a) {
		offsets[0] = EXT2_DIND_BLOCK;
		offsets[1] = (u32)(iblock >> bits);
		offsets[2] = (u32)(iblock & (a - 1));
		return 3;
	}
	iblock -= a * a;
	if (iblock < a * a * a) {
		offsets[0] = EXT2_TIND_BLOCK;
		offsets[1] = (u32)(iblock >> (2 * bits));
		offsets[2] = (u32)((iblock >> bits) & (a - 1));
		offsets[3] = (u32)(iblock & (a - 1));
		return 4;
	}
	return 0;
}

/*
 * Follow the path: i_block's entry, then one entry of each indirect block
 * on the way.  A 0 anywhere is a hole: nothing below it was ever written.
 */
int ext2_get_branch(struct ext2_sb_info *sbi, const u32 *i_block, unsigned long ino,
		    u64 iblock, ext2_read_entry_fn read_entry, void *ctx, u32 *pblock, u64 *hole)
{
	u32 offsets[4];
	int depth = ext2_block_to_path(sbi, iblock, offsets);
	u32 b;
	int i;

	if (!depth)
		return -EFBIG;
	b = i_block[offsets[0]];
	for (i = 1;; i++) {
		int err;

		if (!b)
			break;
		if (b < sbi->s_first_data_block || b >= sbi->s_blocks_count) {
			ext2_error(sbi, "ext2_get_branch",
				   "inode %lu: %s block %u outside the file system (logical block %llu)",
				   ino, i < depth ? "indirect" : "data", b,
				   (unsigned long long)iblock);
			return -EUCLEAN;
		}
		if (i == depth)
			break;
		err = read_entry(ctx, i, b, offsets[i], &b);
		if (err)
			return err;
	}
	*pblock = b;
	if (hole && b) {
		*hole = 0;
	} else if (hole) {
		/* the 0 was entry offsets[i - 1] of its block: every block below
		 * it is a hole too, so the hole runs from iblock to the end of
		 * that entry's subtree (a^(depth - i) blocks, iblock at pos) */
		u64 size = 1, pos = 0;

		for (int k = i; k < depth; k++) {
			size *= sbi->s_addr_per_block;
			pos = pos * sbi->s_addr_per_block + offsets[k];
		}
		*hole = size - pos;
	}
	return 0;
}

/* --- statfs ------------------------------------------------------------------- */

/* sparse_super: superblock copies in groups 0, 1 and powers of 3, 5, 7 */
static bool ext2_group_sparse(u32 group)
{
	static const u32 bases[] = { 3, 5, 7 };

	if (group <= 1)
		return true;
	for (unsigned int i = 0; i < ARRAY_SIZE(bases); i++) {
		u64 p = bases[i];

		while (p < group)
			p *= bases[i];
		if (p == group)
			return true;
	}
	return false;
}

static bool ext2_bg_has_super(const struct ext2_sb_info *sbi, u32 group)
{
	if (!(sbi->s_es.s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return true;
	return ext2_group_sparse(group);
}

/*
 * Linux's ext2_statfs, "bsddf" (the default): f_blocks leaves out the
 * file system's own structures -- what precedes the first data block,
 * each superblock copy and its descriptor table, and every group's two
 * bitmaps and inode table (not the blocks reserved for growing the
 * descriptor table, as Linux's ext2 does not count them either).  The
 * free counts are the sums of the group descriptors'.
 */
void ext2_fill_statfs(struct ext2_sb_info *sbi, struct statfs *buf)
{
	const struct ext2_super_block *es = &sbi->s_es;
	u64 overhead = sbi->s_first_data_block, bfree = 0, ffree = 0;
	u64 fsid;

	for (u32 g = 0; g < sbi->s_groups_count; g++) {
		if (ext2_bg_has_super(sbi, g))
			overhead += 1 + sbi->s_gdb_count;
		overhead += 2 + sbi->s_itb_per_group;
		bfree += sbi->s_group_desc[g].bg_free_blocks_count;
		ffree += sbi->s_group_desc[g].bg_free_inodes_count;
	}
	buf->f_type = EXT2_SUPER_MAGIC;
	buf->f_bsize = buf->f_frsize = sbi->s_blocksize;
	buf->f_blocks = sbi->s_blocks_count > overhead ? sbi->s_blocks_count - overhead : 0;
	buf->f_bfree = bfree;
	buf->f_bavail = bfree > es->s_r_blocks_count ? bfree - es->s_r_blocks_count : 0;
	buf->f_files = sbi->s_inodes_count;
	buf->f_ffree = ffree;
	buf->f_namelen = EXT2_NAME_LEN;
	/* Linux: the two halves of the UUID xored */
	fsid = 0;
	for (int i = 0; i < 8; i++)
		fsid |= (u64)(es->s_uuid[i] ^ es->s_uuid[i + 8]) << (8 * i);
	buf->f_fsid[0] = (s32)(u32)fsid;
	buf->f_fsid[1] = (s32)(u32)(fsid >> 32);
}

/* --- allocation: bitmaps and groups -------------------------------------------- */

/* The first clear bit in [from, to), or to. */
static u32 ext2_next_zero_bit(const u8 *bitmap, u32 from, u32 to)
{
	while (from < to) {
		/* a full byte is skipped at once */
		if (!(from & 7) && to - from >= 8 && bitmap[from >> 3] == 0xff) {
			from += 8;
			continue;
		}
		if (!ext2_test_bit(bitmap, from))
			return from;
		from++;
	}
	return to;
}

long ext2_bitmap_find(const void *bitmap, u32 nbits, u32 goal)
{
	u32 bit;

	if (goal >= nbits)
		goal = 0;
	bit = ext2_next_zero_bit(bitmap, goal, nbits);
	if (bit < nbits)
		return bit;
	bit = ext2_next_zero_bit(bitmap, 0, goal);
	return bit < goal ? (long)bit : -1;
}

u32 ext2_bitmap_run(const void *bitmap, u32 nbits, u32 start, u32 max)
{
	u32 n = 0;

	while (n < max && start + n < nbits && !ext2_test_bit(bitmap, start + n))
		n++;
	return n;
}

u32 ext2_group_first_block(const struct ext2_sb_info *sbi, u32 group)
{
	return sbi->s_first_data_block + group * sbi->s_blocks_per_group;
}

u32 ext2_group_nr_blocks(const struct ext2_sb_info *sbi, u32 group)
{
	u32 first = ext2_group_first_block(sbi, group);

	return min(sbi->s_blocks_per_group, sbi->s_blocks_count - first);
}

long ext2_find_block_group(const struct ext2_sb_info *sbi, u32 goal_group)
{
	for (u32 i = 0; i < sbi->s_groups_count; i++) {
		u32 g = (goal_group + i) % sbi->s_groups_count;

		if (sbi->s_group_desc[g].bg_free_blocks_count)
			return g;
	}
	return -1;
}

/*
 * A directory: a group with at least the average of free inodes and of
 * free blocks and the fewest directories (Linux's Orlov allocator, its
 * spreading part only), so that trees spread over the disk and their
 * files, which go near them, have room.  A file: its directory's group
 * when it has a free inode and a free block, else Linux's quadratic
 * probe (parent + 1, 2, 4 ...), else the first group with a free inode.
 */
long ext2_find_inode_group(const struct ext2_sb_info *sbi, u32 parent_group, bool dir)
{
	const struct ext2_group_desc *gd = sbi->s_group_desc;
	u32 ngroups = sbi->s_groups_count;
	long best = -1;

	if (parent_group >= ngroups)
		parent_group = 0;
	if (dir) {
		u64 free_inodes = 0, free_blocks = 0;

		for (u32 g = 0; g < ngroups; g++) {
			free_inodes += gd[g].bg_free_inodes_count;
			free_blocks += gd[g].bg_free_blocks_count;
		}
		for (u32 i = 0; i < ngroups; i++) {
			u32 g = (parent_group + i) % ngroups;

			if (!gd[g].bg_free_inodes_count ||
			    (u64)gd[g].bg_free_inodes_count * ngroups < free_inodes ||
			    (u64)gd[g].bg_free_blocks_count * ngroups < free_blocks)
				continue;
			if (best < 0 || gd[g].bg_used_dirs_count < gd[best].bg_used_dirs_count)
				best = g;
		}
		if (best >= 0)
			return best;
	} else {
		if (gd[parent_group].bg_free_inodes_count && gd[parent_group].bg_free_blocks_count)
			return parent_group;
		for (u32 step = 1, g = parent_group; step < ngroups; step <<= 1) {
			g = (g + step) % ngroups;
			if (gd[g].bg_free_inodes_count && gd[g].bg_free_blocks_count)
				return g;
		}
	}
	for (u32 i = 0; i < ngroups; i++) {
		u32 g = (parent_group + i) % ngroups;

		if (gd[g].bg_free_inodes_count)
			return g;
	}
	return -1;
}

/* The group's superblock copy and descriptors, bitmaps, inode table. */
bool ext2_block_in_system_zone(const struct ext2_sb_info *sbi, u32 block, u32 count)
{
	u32 group = (block - sbi->s_first_data_block) / sbi->s_blocks_per_group;
	const struct ext2_group_desc *gd = &sbi->s_group_desc[group];
	u32 first = ext2_group_first_block(sbi, group), end = block + count;
	/* (blocks reserved for growing the descriptor table are marked in
	 * use by mke2fs: the bitmap keeps them) */
	u32 meta_end = first + (ext2_bg_has_super(sbi, group) ? 1 + sbi->s_gdb_count : 0);

	if (block < sbi->s_first_data_block || end > sbi->s_blocks_count || end < block)
		return true;
	return (block < meta_end && end > first) ||
	       (block <= gd->bg_block_bitmap && end > gd->bg_block_bitmap) ||
	       (block <= gd->bg_inode_bitmap && end > gd->bg_inode_bitmap) ||
	       (block < gd->bg_inode_table + sbi->s_itb_per_group && end > gd->bg_inode_table);
}
