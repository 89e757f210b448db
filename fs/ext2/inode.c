// SPDX-License-Identifier: MIT
/*
 * inode.c - ext2 inodes in the VFS: ext2_iget() makes a struct inode from
 * an on-disk one, ext2_get_block() maps a file's block to the disk, and
 * read() of a regular file goes through both.
 *
 * The path of a read(fd, buf, 4096) at offset 70000 of a file on a 1 KiB
 * ext2 (docs/ext2.md draws it whole):
 *
 *   ext2_file_read_iter          for each file block the range covers:
 *     ext2_get_block_cached(68)  68 = 12 direct + 56: entry 56 of the
 *       ext2_get_branch            single indirect block, i_data[12]
 *         ext2_read_entry        ext2_bread(indirect) -> the entry, unless
 *                                this read() has it from block 67
 *     ext2_bread(pblock)         the data block (a hole: zeros, no I/O,
 *                                as far as the hole is known to go)
 *     copy_to_iter               to the user
 *
 * Inodes are not cached: each lookup reads the inode block again, and a
 * file opened twice has two struct inodes.  Harmless while nothing
 * writes; the write support will need Linux's inode hash (iget_locked).
 */
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include "ext2.h"

static int ext2_read_entry(void *ctx, int level, u32 block, u32 index, u32 *entry)
{
	struct ext2_map_cache *mc = ctx;
	struct ext2_buf **slot = &mc->bh[level - 1];

	if (!*slot || (*slot)->b_blocknr != block) {
		struct ext2_buf *bh = ext2_bread(mc->sb, block);

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		ext2_brelse(*slot);
		*slot = bh;
	}
	*entry = ((const u32 *)(*slot)->b_data)[index];
	return 0;
}

void ext2_map_cache_release(struct ext2_map_cache *mc)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mc->bh); i++) {
		ext2_brelse(mc->bh[i]);
		mc->bh[i] = NULL;
	}
}

int ext2_get_block_cached(struct inode *inode, u64 iblock, u32 *pblock, u64 *hole,
			  struct ext2_map_cache *mc)
{
	mc->sb = inode->i_sb;
	return ext2_get_branch(EXT2_SB(inode->i_sb), EXT2_I(inode)->i_data, inode->i_ino,
			       iblock, ext2_read_entry, mc, pblock, hole);
}

/*
 * The disk block holding block iblock of the file (0: a hole).  The one
 * function between a file's offsets and the disk: Linux's ext2_get_block
 * also allocates on a write, and the page cache's readpage calls it.
 */
int ext2_get_block(struct inode *inode, u64 iblock, u32 *pblock)
{
	struct ext2_map_cache mc = { 0 };
	int err = ext2_get_block_cached(inode, iblock, pblock, NULL, &mc);

	ext2_map_cache_release(&mc);
	return err;
}

static ssize_t ext2_file_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_map_cache mc = { 0 };
	ssize_t done = 0;
	int err = 0;

	while (iov_iter_count(to) && *pos < inode->i_size) {
		u64 iblock = (u64)*pos >> sbi->s_blocksize_bits;
		size_t off = *pos & (sbi->s_blocksize - 1);
		u64 n = min_t(u64, inode->i_size - *pos, iov_iter_count(to));
		size_t copied;
		u32 pblock;
		u64 hole;

		err = ext2_get_block_cached(inode, iblock, &pblock, &hole, &mc);
		if (err)
			break;
		if (!pblock) {
			/* the whole hole at once: a sparse file's empty gigabyte
			 * is one call, not a million */
			n = min_t(u64, n, (hole << sbi->s_blocksize_bits) - off);
			copied = iov_iter_zero(n, to);
		} else {
			struct ext2_buf *bh = ext2_bread(sb, pblock);

			n = min_t(u64, n, sbi->s_blocksize - off);
			if (IS_ERR(bh)) {
				err = PTR_ERR(bh);
				break;
			}
			copied = copy_to_iter((char *)bh->b_data + off, n, to);
			ext2_brelse(bh);
		}
		*pos += copied;
		done += copied;
		if (copied < n) {
			err = -EFAULT;
			break;
		}
	}
	ext2_map_cache_release(&mc);
	return done ? done : err;
}

int ext2_getattr(struct inode *inode, struct stat *st)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	st->st_uid = ei->i_uid;
	st->st_gid = ei->i_gid;
	st->st_atime = ei->i_atime_ns / NSEC_PER_SEC;
	st->st_ctime = ei->i_ctime_ns / NSEC_PER_SEC;
	st->st_atime_nsec = st->st_ctime_nsec = 0;
	st->st_blksize = EXT2_SB(inode->i_sb)->s_blocksize;
	return 0;
}

const struct file_operations ext2_file_operations = {
	.llseek = generic_file_llseek,
	.read_iter = ext2_file_read_iter,
};

const struct inode_operations ext2_file_inode_operations = {
	.getattr = ext2_getattr,
};

static const struct inode_operations ext2_special_inode_operations = {
	.getattr = ext2_getattr,
};

/* A device node's number: Linux's old (8:8 in i_block[0]) or new
 * (12:20 in i_block[1]) encoding. */
static dev_t ext2_decode_dev(const struct ext2_inode *raw)
{
	u32 d = raw->i_block[0];

	if (d)
		return MKDEV((d >> 8) & 0xff, d & 0xff);
	d = raw->i_block[1];
	return MKDEV((d & 0xfff00) >> 8, (d & 0xff) | ((d >> 12) & 0xfff00));
}

static void ext2_set_ops(struct inode *inode, const struct ext2_inode *raw)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &ext2_file_inode_operations;
		inode->i_fop = &ext2_file_operations;
		break;
	case S_IFDIR:
		inode->i_op = &ext2_dir_inode_operations;
		inode->i_fop = &ext2_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &ext2_symlink_inode_operations;
		break;
	default:
		inode->i_op = &ext2_special_inode_operations;
		init_special_inode(inode, inode->i_mode, ext2_decode_dev(raw));
	}
}

/* The on-disk inode ino, copied out and checked. */
static int ext2_get_inode(struct super_block *sb, unsigned long ino, struct ext2_inode *raw)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_buf *bh;
	unsigned int offset;
	u32 block;
	int err = ext2_inode_location(sbi, ino, &block, &offset);

	if (err)
		return err;
	bh = ext2_bread(sb, block);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(raw, (char *)bh->b_data + offset, sizeof(*raw));
	ext2_brelse(bh);
	return ext2_check_inode(sbi, raw, ino);
}

/*
 * The VFS inode of ino, or ERR_PTR: -EUCLEAN (damaged, logged), -ESTALE
 * (a deleted inode: the caller says who referenced it), -EIO, -ENOMEM.
 */
struct inode *ext2_iget(struct super_block *sb, unsigned long ino)
{
	struct ext2_inode_info *ei;
	struct ext2_inode raw;
	struct inode *inode;
	int err = ext2_get_inode(sb, ino, &raw);

	if (err)
		return ERR_PTR(err);
	ei = kzalloc(sizeof(*ei), GFP_KERNEL);
	inode = ei ? new_inode(sb) : NULL;
	if (!inode) {
		kfree(ei);
		return ERR_PTR(-ENOMEM);
	}
	inode->i_private = ei;
	inode->i_ino = ino;
	inode->i_mode = raw.i_mode;
	inode->i_nlink = raw.i_links_count;
	inode->i_size = (loff_t)ext2_inode_size(&raw);
	inode->i_blocks = raw.i_blocks;
	inode->i_mtime_ns = raw.i_mtime * NSEC_PER_SEC;
	memcpy(ei->i_data, raw.i_block, sizeof(ei->i_data));
	ei->i_flags = raw.i_flags;
	ei->i_file_acl = raw.i_file_acl;
	ei->i_uid = raw.i_uid | (u32)raw.i_uid_high << 16;
	ei->i_gid = raw.i_gid | (u32)raw.i_gid_high << 16;
	ei->i_atime_ns = raw.i_atime * NSEC_PER_SEC;
	ei->i_ctime_ns = raw.i_ctime * NSEC_PER_SEC;
	ei->i_fast_symlink = ext2_inode_is_fast_symlink(EXT2_SB(sb), &raw);
	ext2_set_ops(inode, &raw);
	return inode;
}
