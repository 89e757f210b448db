// SPDX-License-Identifier: MIT
/*
 * anon_inodes.c - files with no place in any file system (Linux's
 * fs/anon_inodes.c): a timerfd is one.  The file has an inode of its own,
 * with no file type and no super_block, and a dentry that no directory
 * holds, named "anon_inode:<name>" -- what readlink of /proc/<pid>/fd/N
 * shows, as on Linux.  Everything the file does is its file_operations';
 * its state hangs on f->private_data.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>

struct file *anon_inode_getfile(const char *name, const struct file_operations *fops,
				void *priv, unsigned int flags)
{
	static atomic_long_t anon_ino;
	struct inode *inode = kzalloc(sizeof(*inode), GFP_KERNEL);
	char dname[NAME_MAX + 1];
	struct file *f;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode_init_always(inode);
	inode->i_mode = 0600;           /* no file type, as Linux's */
	inode->i_ino = (unsigned long)atomic_long_inc_return(&anon_ino);
	snprintf(dname, sizeof(dname), "anon_inode:%s", name);
	f = alloc_file_pseudo(inode, dname, flags, fops);
	if (!IS_ERR(f))
		f->private_data = priv;
	return f;
}
