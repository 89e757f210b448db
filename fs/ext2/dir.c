// SPDX-License-Identifier: MIT
/*
 * dir.c - ext2 directories: readdir (getdents64) and finding a name.
 *
 * A directory is a file whose blocks hold ext2_dir_entry_2 records, one
 * after the other, rec_len bytes each, tiling every block exactly; an
 * entry with inode 0 is free space (so is the slack at the end of an
 * entry's rec_len).  Each block is checked whole before any entry in it
 * is used (ext2_check_dir_block), so the loops here can trust rec_len.
 *
 * Positions (f_pos) are byte offsets in the directory, as Linux's: an
 * entry at byte o is reported with d_off o + 1, and a later call starts
 * at the first entry at or after its position -- which also makes a
 * position from lseek() safe, wherever it lands.
 */
#include <spindle/string.h>
#include "ext2.h"

/* Block n of directory dir, read and checked; ERR_PTR on failure. */
static struct ext2_buf *ext2_get_dir_block(struct inode *dir, u64 n)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct ext2_buf *bh;
	u32 pblock;
	int err = ext2_get_block(dir, n, &pblock);

	if (err)
		return ERR_PTR(err);
	if (!pblock) {
		ext2_error(sbi, __func__, "directory #%lu contains a hole at offset %llu",
			   dir->i_ino, (unsigned long long)(n << sbi->s_blocksize_bits));
		return ERR_PTR(-EUCLEAN);
	}
	bh = ext2_bread(dir->i_sb, pblock);
	if (IS_ERR(bh))
		return bh;
	err = ext2_check_dir_block(sbi, bh->b_data, dir->i_ino, n);
	if (err) {
		ext2_brelse(bh);
		return ERR_PTR(err);
	}
	return bh;
}

static int ext2_readdir(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);

	while (ctx->pos >= 0 && ctx->pos < inode->i_size) {
		u64 n = (u64)ctx->pos >> sbi->s_blocksize_bits;
		unsigned long from = ctx->pos & (sbi->s_blocksize - 1);
		struct ext2_buf *bh = ext2_get_dir_block(inode, n);

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		for (unsigned long o = 0; o < sbi->s_blocksize;) {
			const struct ext2_dir_entry_2 *de =
				(const void *)((char *)bh->b_data + o);

			if (o >= from && de->inode) {
				ctx->pos = (loff_t)(n << sbi->s_blocksize_bits) + o;
				if (!dir_emit(ctx, de->name, de->name_len, de->inode,
					      ext2_dtype(de))) {
					ext2_brelse(bh);
					return 0;
				}
			}
			o += de->rec_len;
		}
		ext2_brelse(bh);
		ctx->pos = (loff_t)(n + 1) << sbi->s_blocksize_bits;
	}
	return 0;
}

long ext2_inode_by_name(struct inode *dir, const char *name, int len)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits;

	for (u64 n = 0; n < nblocks; n++) {
		struct ext2_buf *bh = ext2_get_dir_block(dir, n);
		long ino = 0;

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		for (unsigned long o = 0; o < sbi->s_blocksize && !ino;) {
			const struct ext2_dir_entry_2 *de =
				(const void *)((char *)bh->b_data + o);

			if (de->inode && de->name_len == len && !memcmp(de->name, name, len))
				ino = de->inode;
			o += de->rec_len;
		}
		ext2_brelse(bh);
		if (ino)
			return ino;
	}
	return 0;
}

const struct file_operations ext2_dir_operations = {
	.llseek = generic_file_llseek,
	.iterate = ext2_readdir,
};
