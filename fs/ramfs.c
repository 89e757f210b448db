/*
 * ramfs.c - a file system that lives entirely in memory: the root ("/",
 * type "rootfs"), and "ramfs"/"tmpfs" wherever user space mounts one.
 *
 * Directories are their dentries: there is no directory block to read,
 * the children on d_subdirs *are* the directory (pinned in the dcache
 * from creation to unlink, see dcache.c).  A regular file's data is an
 * array of pages indexed by (offset / PAGE_SIZE); a page that was never
 * written is a hole and reads as zeroes.  Nothing is ever written to a
 * disk, so fsync has nothing to do and the data is gone at power-off.
 *
 * Locking: namespace changes come in under vfs_lock; data under the
 * inode's i_mutex (reads too, so a read never sees a half-truncated file).
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "internal.h"

struct ramfs_file {
	struct page **pages;            /* [index]: the page, or NULL (a hole) */
	unsigned long nr_slots;         /* length of pages[] */
};

static const struct file_operations ramfs_file_operations;
static const struct file_operations ramfs_dir_operations;
static const struct inode_operations ramfs_file_inode_operations;

static struct ramfs_file *ramfs_data(struct inode *inode)
{
	return inode->i_private;
}

/* Free every page from index `from` on. */
static void ramfs_free_pages_from(struct ramfs_file *rf, unsigned long from)
{
	for (unsigned long i = from; i < rf->nr_slots; i++)
		if (rf->pages[i]) {
			__free_page(rf->pages[i]);
			rf->pages[i] = NULL;
		}
}

static void ramfs_evict_inode(struct inode *inode)
{
	struct ramfs_file *rf = ramfs_data(inode);

	if (S_ISREG(inode->i_mode) && rf) {
		ramfs_free_pages_from(rf, 0);
		kfree(rf->pages);
		kfree(rf);
	}
}

static const struct super_operations ramfs_super_ops = {
	.evict_inode = ramfs_evict_inode,
};

static struct inode *ramfs_get_inode(struct super_block *sb, umode_t mode, dev_t dev)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_mode = mode;
	switch (mode & S_IFMT) {
	case S_IFREG:
		inode->i_private = kzalloc(sizeof(struct ramfs_file), GFP_KERNEL);
		if (!inode->i_private) {
			iput(inode);
			return NULL;
		}
		inode->i_op = &ramfs_file_inode_operations;
		inode->i_fop = &ramfs_file_operations;
		break;
	case S_IFDIR:
		inode->i_op = &ramfs_dir_inode_operations;
		inode->i_fop = &ramfs_dir_operations;
		inode->i_nlink = 2;             /* its name and its "." */
		break;
	default:
		init_special_inode(inode, mode, dev);
		break;
	}
	return inode;
}

/* --- directories ----------------------------------------------------------- */

int ramfs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode = ramfs_get_inode(dir->i_sb, mode, dev);

	if (!inode)
		return -ENOSPC;
	d_instantiate(dentry, inode);
	d_pin(dentry);                  /* the name lives in the dcache now */
	dir->i_mtime_ns = fs_now_ns();
	return 0;
}

static int ramfs_create(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	return ramfs_mknod(dir, dentry, (mode & 07777) | S_IFREG, 0);
}

static int ramfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int err = ramfs_mknod(dir, dentry, (mode & 07777) | S_IFDIR, 0);

	if (!err)
		dir->i_nlink++;         /* the child's ".." */
	return err;
}

static bool ramfs_dir_empty(struct dentry *dentry)
{
	struct dentry *child = d_child_at(dentry, 0);

	if (child) {
		dput(child);
		return false;
	}
	return true;
}

static int ramfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!ramfs_dir_empty(dentry))
		return -ENOTEMPTY;
	dentry->d_inode->i_nlink = 0;
	dir->i_nlink--;
	dir->i_mtime_ns = fs_now_ns();
	return 0;                       /* the caller d_delete()s the name */
}

static int ramfs_unlink(struct inode *dir, struct dentry *dentry)
{
	dentry->d_inode->i_nlink = 0;   /* data freed with the last reference */
	dir->i_mtime_ns = fs_now_ns();
	return 0;
}

/* Every name is in the dcache: a miss means "no such file". */
static struct dentry *ramfs_lookup(struct inode *dir, struct dentry *dentry)
{
	(void)dir; (void)dentry;
	return NULL;
}

const struct inode_operations ramfs_dir_inode_operations = {
	.lookup = ramfs_lookup,
	.create = ramfs_create,
	.mkdir = ramfs_mkdir,
	.rmdir = ramfs_rmdir,
	.unlink = ramfs_unlink,
	.mknod = ramfs_mknod,
};

/* getdents: ".", "..", then the children in creation order. */
static int ramfs_iterate(struct file *f, struct dir_context *ctx)
{
	struct dentry *dir = f->f_path.dentry;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (;;) {
		/* positions are the children's d_seq + 2: stable, so an entry
		 * unlinked between two getdents calls shifts nothing */
		struct dentry *child = d_child_from(dir, (u64)(ctx->pos - 2));
		bool more;

		if (!child)
			return 0;
		ctx->pos = (loff_t)child->d_seq + 2;
		more = dir_emit(ctx, child->d_name, strlen(child->d_name),
				child->d_inode->i_ino, S_DT(child->d_inode->i_mode));
		dput(child);
		if (!more)
			return 0;
	}
}

static const struct file_operations ramfs_dir_operations = {
	.iterate = ramfs_iterate,
	.llseek = generic_file_llseek,
	.fsync = NULL,
};

/* --- regular files ----------------------------------------------------------- */

/* Make pages[] long enough for index; false when memory is short. */
static bool ramfs_grow_slots(struct ramfs_file *rf, unsigned long index)
{
	unsigned long n = rf->nr_slots ? rf->nr_slots : 8;
	struct page **p;

	if (index < rf->nr_slots)
		return true;
	while (n <= index)
		n *= 2;
	p = kcalloc(n, sizeof(*p), GFP_KERNEL);
	if (!p)
		return false;
	if (rf->nr_slots)
		memcpy(p, rf->pages, rf->nr_slots * sizeof(*p));
	kfree(rf->pages);
	rf->pages = p;
	rf->nr_slots = n;
	return true;
}

static ssize_t ramfs_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = ramfs_data(inode);
	ssize_t done = 0;

	mutex_lock(&inode->i_mutex);
	while (iov_iter_count(to) && *pos < inode->i_size) {
		unsigned long index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - off, inode->i_size - *pos);
		struct page *page = index < rf->nr_slots ? rf->pages[index] : NULL;
		size_t copied;

		n = min(n, iov_iter_count(to));
		copied = page ? copy_to_iter((char *)page_address(page) + off, n, to)
			      : iov_iter_zero(n, to);
		*pos += copied;
		done += copied;
		if (copied < n) {
			if (!done)
				done = -EFAULT;
			break;
		}
	}
	mutex_unlock(&inode->i_mutex);
	return done;
}

static ssize_t ramfs_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = ramfs_data(inode);
	ssize_t done = 0;

	mutex_lock(&inode->i_mutex);
	if (f->f_flags & O_APPEND)
		*pos = inode->i_size;
	while (iov_iter_count(from)) {
		unsigned long index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min(PAGE_SIZE - off, iov_iter_count(from));
		size_t copied;

		if (!ramfs_grow_slots(rf, index))
			break;
		if (!rf->pages[index]) {
			rf->pages[index] = alloc_page(GFP_KERNEL | __GFP_ZERO);
			if (!rf->pages[index])
				break;
		}
		copied = copy_from_iter((char *)page_address(rf->pages[index]) + off, n, from);
		*pos += copied;
		done += copied;
		if (*pos > inode->i_size)
			inode->i_size = *pos;
		if (copied < n) {
			if (!done)
				done = -EFAULT;
			goto out;
		}
	}
	if (!done && iov_iter_count(from))
		done = -ENOSPC;                 /* out of memory: the "disk" is full */
out:
	if (done > 0)
		inode->i_mtime_ns = fs_now_ns();
	mutex_unlock(&inode->i_mutex);
	return done;
}

/* O_TRUNC (to 0) or growing with a hole; i_mutex held. */
static int ramfs_setsize(struct inode *inode, loff_t size)
{
	struct ramfs_file *rf = ramfs_data(inode);
	unsigned long keep = DIV_ROUND_UP((unsigned long)size, PAGE_SIZE);

	if (size < inode->i_size) {
		ramfs_free_pages_from(rf, keep);
		/* zero the tail of the last page kept: a later grow must read 0 */
		if ((size & (PAGE_SIZE - 1)) && keep - 1 < rf->nr_slots && rf->pages[keep - 1])
			memset((char *)page_address(rf->pages[keep - 1]) + (size & (PAGE_SIZE - 1)),
			       0, PAGE_SIZE - (size & (PAGE_SIZE - 1)));
	}
	inode->i_size = size;
	inode->i_mtime_ns = fs_now_ns();
	return 0;
}

static int ramfs_fsync(struct file *f, int datasync)
{
	(void)f; (void)datasync;
	return 0;                       /* memory is where it lives already */
}

static const struct file_operations ramfs_file_operations = {
	.llseek = generic_file_llseek,
	.read_iter = ramfs_read_iter,
	.write_iter = ramfs_write_iter,
	.fsync = ramfs_fsync,
};

static const struct inode_operations ramfs_file_inode_operations = {
	.setsize = ramfs_setsize,
};

/* --- the file system -------------------------------------------------------- */

int ramfs_fill_super(struct super_block *sb)
{
	struct inode *root;

	sb->s_op = &ramfs_super_ops;
	sb->s_flags |= SB_PINNED_DENTRIES;
	root = ramfs_get_inode(sb, S_IFDIR | 0755, 0);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *ramfs_mount(struct file_system_type *type, int flags,
				  const char *dev_name, void *data)
{
	struct super_block *sb = sget_anon(type);
	int err;

	(void)flags; (void)dev_name; (void)data;
	if (!sb)
		return ERR_PTR(-ENOMEM);
	err = ramfs_fill_super(sb);
	if (err) {
		kfree(sb);
		return ERR_PTR(err);
	}
	return dget(sb->s_root);
}

/* Forget every name below dentry, deepest first. */
static void ramfs_delete_tree(struct dentry *dentry)
{
	struct dentry *child;

	while ((child = d_child_at(dentry, 0))) {
		ramfs_delete_tree(child);
		d_delete(child);
		dput(child);
	}
}

/* The last umount: everything in it goes (open files keep their inode). */
static void ramfs_kill_sb(struct super_block *sb)
{
	ramfs_delete_tree(sb->s_root);
	dput(sb->s_root);
	/* the super_block stays allocated: open files may still point at it */
}

static struct file_system_type rootfs_fs_type = {
	.name = "rootfs", .mount = ramfs_mount,
};
static struct file_system_type ramfs_fs_type = {
	.name = "ramfs", .mount = ramfs_mount, .kill_sb = ramfs_kill_sb,
};
static struct file_system_type tmpfs_fs_type = {
	.name = "tmpfs", .mount = ramfs_mount, .kill_sb = ramfs_kill_sb,
};

int init_ramfs_fs(void)
{
	register_filesystem(&rootfs_fs_type);
	register_filesystem(&ramfs_fs_type);
	register_filesystem(&tmpfs_fs_type);
	return 0;
}
