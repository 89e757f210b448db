// SPDX-License-Identifier: MIT
/*
 * balloc.c - ext2's blocks: ext2_new_blocks() takes a run of free blocks
 * as near a goal as the disk allows, ext2_free_blocks() gives blocks back.
 *
 * Each group has a block bitmap (one bit a block, set: in use) and a
 * descriptor counting its free blocks; statfs adds the descriptors up and
 * the superblock's count is that sum, updated with each change
 * (ext2_update_super).  Every change to a bitmap changes its descriptor's count in
 * the same step, under s_alloc_lock, so e2fsck finds them agreeing.
 *
 * The goal (the caller's: a file's previous block + 1) keeps a file
 * contiguous: its block if free, else the next free one after it in its
 * group, else the first group on with room.  The searches themselves are
 * portable (check.c) and tested on the host.
 *
 * Damage is not spread: a bitmap that says "free" for a bitmap, an inode
 * table or a superblock copy is reported (ext2_error) and nothing is
 * allocated; freeing a block whose bit is already clear is reported
 * ("bit already cleared") and that block left alone.  The file's i_blocks
 * (512-byte units) follows what it is given and gives back.
 */
#include <spindle/string.h>
#include <spindle/printk.h>
#include "ext2.h"

/* Group g's descriptor (sbi->s_group_desc[g], the copy in memory) into
 * its block of the descriptor table, and the superblock's totals with
 * it (s_alloc_lock held). */
int ext2_group_desc_dirty(struct super_block *sb, u32 group)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u32 per = sbi->s_desc_per_block;
	struct ext2_buf *bh = ext2_bread(sb, sbi->s_first_data_block + 1 + group / per);

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy((struct ext2_group_desc *)bh->b_data + group % per, &sbi->s_group_desc[group],
	       sizeof(struct ext2_group_desc));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	return ext2_update_super(sb);
}

static u32 ext2_inode_group(struct inode *inode)
{
	return (u32)((inode->i_ino - 1) / EXT2_SB(inode->i_sb)->s_inodes_per_group);
}

/* Up to want free blocks of group g, from bit start on; the first's
 * number, 0 if the group has none after all, or -errno. */
static long ext2_take_in_group(struct super_block *sb, u32 g, u32 start, unsigned long *count)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_group_desc *gd = &sbi->s_group_desc[g];
	u32 nbits = ext2_group_nr_blocks(sbi, g), first = ext2_group_first_block(sbi, g);
	struct ext2_buf *bh = ext2_bread(sb, gd->bg_block_bitmap);
	long bit;
	u32 n;

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	bit = ext2_bitmap_find(bh->b_data, nbits, start);
	if (bit < 0) {
		ext2_error(sbi, "ext2_new_blocks", "group %u: %u free blocks counted, none in its bitmap",
			   g, gd->bg_free_blocks_count);
		ext2_brelse(bh);
		return 0;
	}
	n = ext2_bitmap_run(bh->b_data, nbits, (u32)bit, (u32)min_t(unsigned long, *count, nbits));
	if (ext2_block_in_system_zone(sbi, first + (u32)bit, n)) {
		ext2_error(sbi, "ext2_new_blocks",
			   "Allocating block in system zone - blocks from %u, length %u",
			   first + (u32)bit, n);
		ext2_brelse(bh);
		return -EUCLEAN;
	}
	for (u32 i = 0; i < n; i++)
		ext2_set_bit(bh->b_data, (u32)bit + i);
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	gd->bg_free_blocks_count -= min_t(u32, n, gd->bg_free_blocks_count);
	*count = n;
	return first + (u32)bit;
}

long ext2_new_blocks(struct inode *inode, u32 goal, unsigned long *count)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u32 goal_group;
	long ret = -ENOSPC;

	if (!*count)
		*count = 1;
	if (goal < sbi->s_first_data_block || goal >= sbi->s_blocks_count)
		goal = ext2_group_first_block(sbi, ext2_inode_group(inode) % sbi->s_groups_count);
	goal_group = (goal - sbi->s_first_data_block) / sbi->s_blocks_per_group;
	mutex_lock(&sbi->s_alloc_lock);
	for (u32 i = 0; i < sbi->s_groups_count; i++) {
		u32 g = (goal_group + i) % sbi->s_groups_count;
		u32 start = i ? 0 : goal - ext2_group_first_block(sbi, g);

		if (!sbi->s_group_desc[g].bg_free_blocks_count)
			continue;
		ret = ext2_take_in_group(sb, g, start, count);
		if (ret == 0) {
			ret = -ENOSPC;
			continue;
		}
		if (ret > 0) {
			inode->i_blocks += (u64)*count << (sbi->s_blocksize_bits - 9);
			ext2_group_desc_dirty(sb, g);
		}
		break;
	}
	mutex_unlock(&sbi->s_alloc_lock);
	return ret;
}

void ext2_free_blocks(struct inode *inode, u32 block, unsigned long count)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);

	if (!count)
		return;
	if (block < sbi->s_first_data_block || block + count > sbi->s_blocks_count ||
	    block + count < block || ext2_block_in_system_zone(sbi, block, count)) {
		ext2_error(sbi, "ext2_free_blocks", "Freeing blocks not in datazone - block = %u, count = %lu",
			   block, count);
		return;
	}
	/* ext3: a copy of these blocks in the log must not be replayed
	 * over what they hold next (a revoke record) */
	ext2_journal_revoke(sb, block, count);
	mutex_lock(&sbi->s_alloc_lock);
	while (count) {
		u32 g = (block - sbi->s_first_data_block) / sbi->s_blocks_per_group;
		u32 bit = block - ext2_group_first_block(sbi, g);
		u32 n = (u32)min_t(unsigned long, count, ext2_group_nr_blocks(sbi, g) - bit);
		struct ext2_buf *bh = ext2_bread(sb, sbi->s_group_desc[g].bg_block_bitmap);
		u32 freed = 0;

		if (IS_ERR(bh))
			break; /* logged; the blocks stay in use: lost, not doubled */
		for (u32 i = 0; i < n; i++) {
			if (!ext2_test_bit(bh->b_data, bit + i)) {
				ext2_error(sbi, "ext2_free_blocks", "bit already cleared for block %u",
					   block + i);
				continue;
			}
			ext2_clear_bit(bh->b_data, bit + i);
			freed++;
		}
		ext2_mark_buffer_dirty(bh);
		ext2_brelse(bh);
		sbi->s_group_desc[g].bg_free_blocks_count += freed;
		ext2_group_desc_dirty(sb, g);
		inode->i_blocks -= min_t(u64, inode->i_blocks, (u64)freed << (sbi->s_blocksize_bits - 9));
		block += n;
		count -= n;
	}
	mutex_unlock(&sbi->s_alloc_lock);
}
