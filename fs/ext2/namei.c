// SPDX-License-Identifier: MIT
/*
 * namei.c - the directory inode's operations: lookup() for now (the
 * creating and removing ones come with write support; until then the VFS
 * answers EROFS before calling any).
 */
#include <spindle/string.h>
#include "ext2.h"

static struct dentry *ext2_lookup(struct inode *dir, struct dentry *dentry)
{
	int len = (int)strlen(dentry->d_name);
	long ino = ext2_inode_by_name(dir, dentry->d_name, len);
	struct inode *inode;

	if (ino < 0)
		return ERR_PTR(ino);
	if (!ino)
		return NULL; /* negative: no such name */
	inode = ext2_iget(dir->i_sb, ino);
	if (inode == ERR_PTR(-ESTALE)) {
		/* an entry naming a freed inode: the directory is damaged */
		ext2_error(EXT2_SB(dir->i_sb), __func__, "deleted inode referenced: %lu",
			   (unsigned long)ino);
		return ERR_PTR(-EIO);
	}
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	d_add(dentry, inode);
	return NULL;
}

const struct inode_operations ext2_dir_inode_operations = {
	.lookup = ext2_lookup,
	.getattr = ext2_getattr,
};
