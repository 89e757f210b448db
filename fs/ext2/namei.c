// SPDX-License-Identifier: MIT
/*
 * namei.c - the directory inode's operations: lookup, and the changes of
 * the name space -- create, mknod, mkdir, unlink, rmdir, link, symlink,
 * rename -- and setattr (chmod, chown, utimensat, truncate) for every
 * kind of ext2 inode.
 *
 * Each change is a few steps on two kinds of object, as Linux's
 * fs/ext2/namei.c: directory entries (dir.c: ext2_add_link,
 * ext2_delete_entry, ext2_set_link) and inodes, whose link count
 * (i_nlink) says how many entries name them -- a file one per name, a
 * directory two plus one per subdirectory (its name in the parent, its
 * own ".", each child's "..").  The VFS checked everything a user can get
 * wrong before calling (names that exist or not, types, permissions,
 * loops) and holds vfs_lock, so these run one at a time.
 *
 * Order, as Linux's: a name is added only once its inode is complete in
 * the cache, and an inode's count drops only after its name is gone, so
 * that nothing in memory ever names a freed inode.  The disk gets the
 * dirty blocks in whatever order write-back takes them and ext2 has no
 * journal, so a crash part-way can leave any of the steps on it: a
 * count off by one, an inode with no name, a name of a half-made inode
 * -- what e2fsck -fy repairs ("Inode N ref count is 2, should be 1",
 * "Unattached inode").  rename's steps are in docs/ext2.md.
 */
#include <spindle/string.h>
#include <spindle/jbd2.h>
#include <spindle/err.h>
#include "ext2.h"

/* Linux's EXT2_LINK_MAX: more names (or subdirectories) than this is
 * EMLINK, as e2fsck and other implementations expect. */
#define EXT2_LINK_MAX 32000

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

/* The inode changed (a link more or less, a new name): its ctime. */
static void ext2_inode_changed(struct inode *inode)
{
	EXT2_I(inode)->i_ctime_ns = fs_now_ns();
	mark_inode_dirty(inode);
}

static void ext2_inc_count(struct inode *inode)
{
	inode->i_nlink++;
	ext2_inode_changed(inode);
}

static void ext2_dec_count(struct inode *inode)
{
	if (inode->i_nlink)
		inode->i_nlink--;
	ext2_inode_changed(inode);
}

/*
 * A new inode's name in dir.  On failure the inode loses its only link
 * and our reference: its last iput frees it on the disk again.
 */
static int ext2_add_nondir(struct inode *dir, struct dentry *dentry, struct inode *inode)
{
	int err = ext2_add_link(dir, dentry->d_name, (int)strlen(dentry->d_name), inode);

	if (err) {
		ext2_dec_count(inode);
		iput(inode);
		return err;
	}
	d_instantiate(dentry, inode);
	return 0;
}

static int ext2_create(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode = ext2_new_inode(dir, (mode & 07777) | S_IFREG);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	return ext2_add_nondir(dir, dentry, inode);
}

static int ext2_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode = ext2_new_inode(dir, mode);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		/* i_rdev: ext2_write_inode keeps it in i_block, as Linux */
		init_special_inode(inode, mode, dev);
		mark_inode_dirty(inode);
	}
	return ext2_add_nondir(dir, dentry, inode);
}

static int ext2_symlink(struct inode *dir, struct dentry *dentry, const char *target)
{
	size_t len = strlen(target);
	struct inode *inode;
	int err;

	/* the target and its NUL in one block at most, as Linux */
	if (len + 1 > EXT2_SB(dir->i_sb)->s_blocksize)
		return -ENAMETOOLONG;
	inode = ext2_new_inode(dir, S_IFLNK | 0777);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	err = ext2_write_link(inode, target, len);
	if (err) {
		ext2_dec_count(inode);
		iput(inode);
		return err;
	}
	return ext2_add_nondir(dir, dentry, inode);
}

static int ext2_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = old_dentry->d_inode;
	int err;

	if (inode->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	ext2_inc_count(inode);
	igrab(inode); /* the new dentry's reference */
	err = ext2_add_nondir(dir, dentry, inode);
	return err;
}

static int ext2_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode;
	int err;

	if (dir->i_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	/* the child's ".." first, as Linux: no moment in memory where the
	 * parent counts fewer links than it has */
	ext2_inc_count(dir);
	inode = ext2_new_inode(dir, (mode & 07777) | S_IFDIR);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out_dir;
	}
	ext2_inc_count(inode); /* its "." */
	err = ext2_make_empty(inode, dir);
	if (err)
		goto out_fail;
	err = ext2_add_link(dir, dentry->d_name, (int)strlen(dentry->d_name), inode);
	if (err)
		goto out_fail;
	d_instantiate(dentry, inode);
	return 0;

out_fail:
	inode->i_nlink = 0;
	mark_inode_dirty(inode);
	iput(inode);
out_dir:
	ext2_dec_count(dir);
	return err;
}

static int ext2_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	int err = ext2_delete_entry(dir, dentry->d_name, (int)strlen(dentry->d_name));

	if (err)
		return err;
	ext2_dec_count(inode);
	return 0;
}

static int ext2_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	int err;

	if (!ext2_empty_dir(inode))
		return -ENOTEMPTY;
	err = ext2_unlink(dir, dentry);
	if (err)
		return err;
	ext2_dec_count(inode); /* its "." */
	ext2_dec_count(dir);   /* its ".." */
	return 0;
}

/*
 * Linux's ext2_rename, in the order that keeps every name findable:
 *   1. the new name points at the inode (an existing entry repointed,
 *      its old inode losing that link; or a new entry added)
 *   2. the old name goes
 *   3. a directory moved to another parent: its ".." repointed, the old
 *      parent loses a link (the new one gained it in 1)
 * Between 1 and 2 the inode has two names and one link too few counted;
 * e2fsck fixes the count (docs/ext2.md).
 */
static int ext2_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
		       struct dentry *new_dentry)
{
	struct inode *old_inode = old_dentry->d_inode;
	struct inode *new_inode = new_dentry->d_inode;
	const char *new_name = new_dentry->d_name, *old_name = old_dentry->d_name;
	bool is_dir = S_ISDIR(old_inode->i_mode);
	int err;

	if (new_inode == old_inode)
		return 0; /* two names of one file: POSIX says do nothing */
	if (new_inode) {
		if (is_dir && !ext2_empty_dir(new_inode))
			return -ENOTEMPTY;
		err = ext2_set_link(new_dir, new_name, (int)strlen(new_name), old_inode);
		if (err)
			return err;
		if (is_dir)
			ext2_dec_count(new_inode); /* its "." */
		ext2_dec_count(new_inode);
	} else {
		if (is_dir && old_dir != new_dir && new_dir->i_nlink >= EXT2_LINK_MAX)
			return -EMLINK;
		err = ext2_add_link(new_dir, new_name, (int)strlen(new_name), old_inode);
		if (err)
			return err;
		if (is_dir && old_dir != new_dir)
			ext2_inc_count(new_dir);
	}
	/* Linux: a rename changes the inode's ctime (tools like backup
	 * programs look at it) */
	ext2_inode_changed(old_inode);
	err = ext2_delete_entry(old_dir, old_name, (int)strlen(old_name));
	if (err)
		return err;
	if (is_dir && old_dir != new_dir) {
		err = ext2_set_link(old_inode, "..", 2, new_dir);
		if (err)
			return err;
		ext2_dec_count(old_dir);
	} else if (is_dir && new_inode) {
		/* over an empty directory in the same parent: the parent lost
		 * the victim's ".." */
		ext2_dec_count(old_dir);
	}
	return 0;
}

static int __ext2_setattr(struct dentry *dentry, const struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	struct ext2_inode_info *ei = EXT2_I(inode);
	int err;

	if ((attr->ia_valid & ATTR_SIZE) && attr->ia_size != inode->i_size) {
		if (!S_ISREG(inode->i_mode))
			return -EINVAL;
		err = ext2_setsize(inode, attr->ia_size);
		if (err)
			return err;
	}
	/* the owner in both copies: ext2's (written to the disk, stat's)
	 * and the VFS inode's (setattr_copy's share) */
	if (attr->ia_valid & ATTR_UID)
		ei->i_uid = inode->i_uid = attr->ia_uid;
	if (attr->ia_valid & ATTR_GID)
		ei->i_gid = inode->i_gid = attr->ia_gid;
	if (attr->ia_valid & ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (attr->ia_mode & 07777);
	if (attr->ia_valid & ATTR_ATIME)
		ei->i_atime_ns = attr->ia_atime_ns;
	if (attr->ia_valid & ATTR_MTIME)
		inode->i_mtime_ns = attr->ia_mtime_ns;
	/* any change of the inode is one of its ctime */
	ei->i_ctime_ns = attr->ia_valid & ATTR_CTIME ? attr->ia_ctime_ns : fs_now_ns();
	mark_inode_dirty(inode);
	return 0;
}

/*
 * ext3: each operation is one journal handle, so that its changes (the
 * directory block, the inode, the bitmaps) commit together or not at
 * all.  The VFS holds the directories' i_mutex already: i_mutex comes
 * before the handle, as in Linux.  On ext2 the handle is NULL.
 */
#define EXT2_JOURNALED(name, sb, credits, call)                  \
	{                                                         \
		handle_t *h = ext2_journal_start(sb, credits);    \
		int err, e;                                       \
		if (IS_ERR(h))                                    \
			return PTR_ERR(h);                        \
		err = call;                                       \
		e = ext2_journal_stop(h);                         \
		return err ?: e;                                  \
	}

static int ext3_create(struct inode *dir, struct dentry *dentry, umode_t mode)
	EXT2_JOURNALED(create, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_create(dir, dentry, mode))
static int ext3_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
	EXT2_JOURNALED(mkdir, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_mkdir(dir, dentry, mode))
static int ext3_rmdir(struct inode *dir, struct dentry *dentry)
	EXT2_JOURNALED(rmdir, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_rmdir(dir, dentry))
static int ext3_unlink(struct inode *dir, struct dentry *dentry)
	EXT2_JOURNALED(unlink, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_unlink(dir, dentry))
static int ext3_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
	EXT2_JOURNALED(mknod, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_mknod(dir, dentry, mode, dev))
static int ext3_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
	EXT2_JOURNALED(link, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_link(old_dentry, dir, dentry))
static int ext3_symlink(struct inode *dir, struct dentry *dentry, const char *target)
	EXT2_JOURNALED(symlink, dir->i_sb, EXT2_NAMEI_TRANS_BLOCKS, ext2_symlink(dir, dentry, target))
static int ext3_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
		       struct dentry *new_dentry)
	EXT2_JOURNALED(rename, old_dir->i_sb, 2 * EXT2_NAMEI_TRANS_BLOCKS,
		       ext2_rename(old_dir, old_dentry, new_dir, new_dentry))
int ext2_setattr(struct dentry *dentry, const struct iattr *attr)
	EXT2_JOURNALED(setattr, dentry->d_inode->i_sb, EXT2_TRUNCATE_TRANS_BLOCKS,
		       __ext2_setattr(dentry, attr))

const struct inode_operations ext2_dir_inode_operations = {
	.lookup = ext2_lookup,
	.create = ext3_create,
	.mkdir = ext3_mkdir,
	.rmdir = ext3_rmdir,
	.unlink = ext3_unlink,
	.mknod = ext3_mknod,
	.link = ext3_link,
	.symlink = ext3_symlink,
	.rename = ext3_rename,
	.setattr = ext2_setattr,
	.getattr = ext2_getattr,
};
