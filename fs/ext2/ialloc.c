// SPDX-License-Identifier: MIT
/*
 * ialloc.c - ext2's inodes: ext2_new_inode() takes a free inode for a
 * new name, ext2_free_inode() gives back one whose last link and last
 * reference are gone.
 *
 * Each group has an inode bitmap and a descriptor counting its free
 * inodes and its directories; both change together, under s_alloc_lock.
 * Where a new inode goes (check.c's ext2_find_inode_group, host-tested):
 * a directory in a group with more free inodes and blocks than the
 * average and the fewest directories (Linux's Orlov idea, simplified), so
 * that trees spread; a file in its directory's group, so that a
 * directory's files and their blocks stay together.
 */
#include <spindle/string.h>
#include <spindle/printk.h>
#include "ext2.h"

struct inode *ext2_new_inode(struct inode *dir, umode_t mode)
{
	struct super_block *sb = dir->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u32 ipg = sbi->s_inodes_per_group;
	struct ext2_buf *bh;
	unsigned long ino;
	long group, bit;
	int err;

	mutex_lock(&sbi->s_alloc_lock);
	group = ext2_find_inode_group(sbi, (u32)((dir->i_ino - 1) / ipg), S_ISDIR(mode));
	if (group < 0) {
		mutex_unlock(&sbi->s_alloc_lock);
		return ERR_PTR(-ENOSPC);
	}
	bh = ext2_bread(sb, sbi->s_group_desc[group].bg_inode_bitmap);
	if (IS_ERR(bh)) {
		mutex_unlock(&sbi->s_alloc_lock);
		return ERR_CAST(bh);
	}
	bit = ext2_bitmap_find(bh->b_data, ipg, 0);
	ino = (unsigned long)group * ipg + (unsigned long)bit + 1;
	if (bit < 0 || ino < sbi->s_first_ino || ino > sbi->s_inodes_count) {
		ext2_error(sbi, "ext2_new_inode", "group %ld: %u free inodes counted, bitmap says %s",
			   group, sbi->s_group_desc[group].bg_free_inodes_count,
			   bit < 0 ? "none" : "a reserved one");
		ext2_brelse(bh);
		mutex_unlock(&sbi->s_alloc_lock);
		return ERR_PTR(-EUCLEAN);
	}
	ext2_set_bit(bh->b_data, (u32)bit);
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	sbi->s_group_desc[group].bg_free_inodes_count--;
	if (S_ISDIR(mode))
		sbi->s_group_desc[group].bg_used_dirs_count++;
	err = ext2_group_desc_dirty(sb, (u32)group);
	mutex_unlock(&sbi->s_alloc_lock);
	if (err)
		return ERR_PTR(err);
	return ext2_iget_new(sb, ino, mode);
}

void ext2_free_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u32 ipg = sbi->s_inodes_per_group;
	u32 group = (u32)((inode->i_ino - 1) / ipg), bit = (u32)((inode->i_ino - 1) % ipg);
	struct ext2_buf *bh;

	if (inode->i_ino < sbi->s_first_ino || inode->i_ino > sbi->s_inodes_count) {
		ext2_error(sbi, "ext2_free_inode", "reserved or nonexistent inode %lu", inode->i_ino);
		return;
	}
	mutex_lock(&sbi->s_alloc_lock);
	bh = ext2_bread(sb, sbi->s_group_desc[group].bg_inode_bitmap);
	if (IS_ERR(bh)) {
		mutex_unlock(&sbi->s_alloc_lock);
		return; /* logged: the inode stays in use, lost rather than doubled */
	}
	if (!ext2_test_bit(bh->b_data, bit)) {
		ext2_error(sbi, "ext2_free_inode", "bit already cleared for inode %lu", inode->i_ino);
	} else {
		ext2_clear_bit(bh->b_data, bit);
		ext2_mark_buffer_dirty(bh);
		sbi->s_group_desc[group].bg_free_inodes_count++;
		if (S_ISDIR(inode->i_mode) && sbi->s_group_desc[group].bg_used_dirs_count)
			sbi->s_group_desc[group].bg_used_dirs_count--;
		ext2_group_desc_dirty(sb, group);
	}
	ext2_brelse(bh);
	mutex_unlock(&sbi->s_alloc_lock);
}
