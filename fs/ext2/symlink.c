// SPDX-License-Identifier: MIT
/*
 * symlink.c - symbolic links.  A target shorter than 60 bytes lives in
 * the inode itself, in the 60 bytes of i_block ("fast": no block read);
 * a longer one in the link's first data block ("slow").  The inode's
 * i_blocks tells them apart (ext2_inode_is_fast_symlink), and
 * ext2_check_inode already bounded i_size for each kind.
 *
 * A new link (ext2_write_link, for namei.c's symlink) is fast when the
 * target and its NUL fit in i_block, as Linux decides; a slow one's
 * block is written through the block device's cache, where the reader
 * above finds it.
 */
#include <spindle/string.h>
#include "ext2.h"

static int ext2_get_link(struct inode *inode, char *buf, int size)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	size_t len = min_t(u64, inode->i_size, (u64)size - 1);
	struct ext2_buf *bh;
	u32 pblock;
	int err;

	if (size <= 0)
		return -EINVAL;
	if (ei->i_fast_symlink) {
		memcpy(buf, ei->i_data, len); /* fast */
	} else {
		err = ext2_get_block(inode, 0, &pblock);
		if (err)
			return err;
		if (!pblock) {
			ext2_error(sbi, __func__, "symbolic link #%lu has no block", inode->i_ino);
			return -EUCLEAN;
		}
		bh = ext2_bread(inode->i_sb, pblock);
		if (IS_ERR(bh))
			return PTR_ERR(bh);
		memcpy(buf, bh->b_data, len);
		ext2_brelse(bh);
	}
	buf[len] = '\0';
	return (int)strlen(buf);
}

int ext2_write_link(struct inode *inode, const char *target, size_t len)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_buf *bh;

	if (len + 1 <= sizeof(ei->i_data)) {
		memset(ei->i_data, 0, sizeof(ei->i_data));
		memcpy(ei->i_data, target, len);
		ei->i_fast_symlink = true;
	} else {
		if (len + 1 > sbi->s_blocksize)
			return -ENAMETOOLONG;
		bh = ext2_new_data_block(inode, 0);
		if (IS_ERR(bh))
			return PTR_ERR(bh);
		memcpy(bh->b_data, target, len); /* the rest zeroed by getblk */
		ext2_mark_buffer_dirty(bh);
		ext2_brelse(bh);
		ei->i_fast_symlink = false;
	}
	inode->i_size = (loff_t)len;
	mark_inode_dirty(inode);
	return 0;
}

const struct inode_operations ext2_symlink_inode_operations = {
	.get_link = ext2_get_link,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
