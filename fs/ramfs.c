// SPDX-License-Identifier: MIT
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
 * Limits, as Linux's tmpfs (mm/shmem.c): memory that a file system holds
 * is memory nobody else can have, so a program that fills it must get
 * ENOSPC long before fork() gets ENOMEM.  Each "tmpfs" and the "rootfs"
 * instance counts its pages -- file data and large page-index arrays
 * -- against `size=` (default: half of RAM) and its inodes
 * against `nr_inodes=` (default: half of RAM's page count).  Mount
 * options: size=<bytes>[k|m|g|t] or size=<n>% (of RAM), nr_inodes=<n>
 * [k|m|g], mode=<octal> (the root directory's); 0 means no limit; the
 * flag MS_RDONLY makes it read-only.
 * "ramfs" is Linux's ramfs: no limit, every option but mode= ignored.
 * Freeing -- truncate, unlink, the last close, exit -- allocates nothing.
 *
 * Locking: namespace changes come in under vfs_lock; the page array and
 * i_size under the inode's i_mutex, which no user copy holds while it
 * may fault (ramfs_read_iter says why);
 * the counters under the super_block's ramfs_sb_info lock.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/pagemap.h>
#include <spindle/mm_types.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include "internal.h"

struct ramfs_file {
	struct page **pages;            /* [index]: the page, or NULL (a hole) */
	unsigned long nr_slots;         /* length of pages[] */
};

/* One instance's limits and use (sb->s_fs_info). */
struct ramfs_sb_info {
	spinlock_t lock;
	bool limited;                   /* tmpfs and rootfs; not ramfs */
	unsigned long max_pages;        /* size= in pages; 0: no limit */
	unsigned long used_pages;       /* data pages + pages[] arrays */
	unsigned long max_inodes;       /* nr_inodes=; 0: no limit */
	unsigned long used_inodes;
	umode_t root_mode;
	bool dying;                     /* unmounted: free with the last inode */
};

static struct ramfs_sb_info *RAMFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* Take n pages (or one inode) from the instance's budget; false: full. */
static bool ramfs_charge(unsigned long *used, unsigned long max, unsigned long n,
			 struct ramfs_sb_info *sbi)
{
	bool ok;

	spin_lock(&sbi->lock);
	ok = !sbi->limited || !max || (*used <= max && n <= max - *used);
	if (ok)
		*used += n;
	spin_unlock(&sbi->lock);
	return ok;
}

static void ramfs_uncharge(unsigned long *used, unsigned long n, struct ramfs_sb_info *sbi)
{
	spin_lock(&sbi->lock);
	*used -= min(*used, n);
	spin_unlock(&sbi->lock);
}

static bool ramfs_charge_pages(struct super_block *sb, unsigned long n)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);

	return ramfs_charge(&sbi->used_pages, sbi->max_pages, n, sbi);
}

static void ramfs_uncharge_pages(struct super_block *sb, unsigned long n)
{
	ramfs_uncharge(&RAMFS_SB(sb)->used_pages, n, RAMFS_SB(sb));
}

/*
 * What a kmalloc of bytes for an inode's side data (a pages[] array, a
 * symbolic link's target) is charged, in pages: the whole pages kmalloc
 * takes for a large one.  A small one (a file up to 1 MiB, a target up
 * to 2 KiB) is a slab object like the inode itself, bounded with it by
 * nr_inodes -- charging it a page would halve the room for small files.
 */
static unsigned long ramfs_kmalloc_pages(size_t bytes)
{
	return bytes > KMALLOC_MAX_CACHE_SIZE ? DIV_ROUND_UP(bytes, PAGE_SIZE) : 0;
}

static unsigned long ramfs_slots_pages(unsigned long n)
{
	return ramfs_kmalloc_pages(n * sizeof(struct page *));
}

static const struct file_operations ramfs_file_operations;
static const struct file_operations ramfs_dir_operations;
static const struct inode_operations ramfs_file_inode_operations;
static const struct inode_operations ramfs_symlink_inode_operations;
static int ramfs_setsize(struct inode *inode, loff_t size);

static struct ramfs_file *ramfs_data(struct inode *inode)
{
	return inode->i_private;
}

/*
 * Free every page from index `from` on, giving them back to the budget.
 * A page a process maps keeps the PTE's reference: it is gone from the
 * file here and from the mappings when the caller unmaps them.  Each page
 * is taken out under its lock, which ramfs_fault() holds from finding
 * the page until its PTE is set: so no fault maps a page after this.
 */
static void ramfs_free_pages_from(struct inode *inode, unsigned long from)
{
	struct ramfs_file *rf = ramfs_data(inode);
	unsigned long freed = 0;

	for (unsigned long i = from; i < rf->nr_slots; i++) {
		struct page *page = rf->pages[i];

		if (!page)
			continue;
		lock_page(page);
		rf->pages[i] = NULL;
		unlock_page(page);
		put_page(page);
		freed++;
	}
	inode->i_blocks -= min(inode->i_blocks, freed * (PAGE_SIZE / 512));
	ramfs_uncharge_pages(inode->i_sb, freed);
}

/* Give the inode back; the last one of an unmounted instance frees it. */
static void ramfs_put_inode_count(struct super_block *sb)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);
	bool last;

	spin_lock(&sbi->lock);
	sbi->used_inodes -= min(sbi->used_inodes, 1ul);
	last = sbi->dying && !sbi->used_inodes;
	spin_unlock(&sbi->lock);
	if (last) {
		kfree(sbi);
		free_anon_super(sb);
	}
}

/* The last reference (an unlinked file's last close, or exit): free only. */
static void ramfs_evict_inode(struct inode *inode)
{
	struct ramfs_file *rf = ramfs_data(inode);

	if (S_ISREG(inode->i_mode) && rf) {
		ramfs_free_pages_from(inode, 0);
		ramfs_uncharge_pages(inode->i_sb, ramfs_slots_pages(rf->nr_slots));
		kfree(rf->pages);
		kfree(rf);
	} else if (S_ISLNK(inode->i_mode) && inode->i_private) {
		kfree(inode->i_private);        /* the target */
		ramfs_uncharge_pages(inode->i_sb, ramfs_kmalloc_pages(inode->i_size + 1));
	}
	ramfs_put_inode_count(inode->i_sb);     /* may free the super_block */
}

static int ramfs_show_options(struct super_block *sb, char *buf, size_t size);
static void ramfs_statfs(struct super_block *sb, struct statfs *buf);

static const struct super_operations ramfs_super_ops = {
	.evict_inode = ramfs_evict_inode,
	.show_options = ramfs_show_options,
	.statfs = ramfs_statfs,
};

/* A new inode; NULL when nr_inodes= is reached or memory is short. */
static struct inode *ramfs_get_inode(struct super_block *sb, umode_t mode, dev_t dev)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);
	struct inode *inode;

	if (!ramfs_charge(&sbi->used_inodes, sbi->max_inodes, 1, sbi))
		return NULL;
	inode = new_inode(sb);
	if (!inode) {
		ramfs_uncharge(&sbi->used_inodes, 1, sbi);
		return NULL;
	}
	inode->i_mode = mode;
	switch (mode & S_IFMT) {
	case S_IFREG:
		inode->i_private = kzalloc(sizeof(struct ramfs_file), GFP_KERNEL);
		if (!inode->i_private) {
			iput(inode);            /* evict gives the inode back */
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
	case S_IFLNK:
		inode->i_op = &ramfs_symlink_inode_operations; /* ramfs_symlink sets the target */
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

/* One name fewer; the data goes with the last reference (dcache.c). */
static int ramfs_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;

	if (inode->i_nlink)
		inode->i_nlink--;
	dir->i_mtime_ns = fs_now_ns();
	return 0;                       /* the caller d_delete()s the name */
}

/*
 * A hard link: another pinned dentry for the same inode, holding its own
 * inode reference (a dentry's iput is the one it drops), so the file
 * lives until its last name is gone and its last user has closed it.
 */
static int ramfs_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = igrab(old_dentry->d_inode);

	if (!inode)
		return -ENOENT;
	inode->i_nlink++;
	d_instantiate(dentry, inode);
	d_pin(dentry);
	dir->i_mtime_ns = fs_now_ns();
	return 0;
}

/*
 * A symbolic link: an inode whose i_private is the target text (its
 * length is i_size, as stat shows it).  The target is charged as a page
 * index is (ramfs_kmalloc_pages): a long one against size=, as Linux's
 * shmem puts a long target in a page of its own.
 */
static int ramfs_symlink(struct inode *dir, struct dentry *dentry, const char *target)
{
	size_t len = strlen(target);
	unsigned long cost = ramfs_kmalloc_pages(len + 1);
	struct inode *inode;
	char *copy;

	if (!ramfs_charge_pages(dir->i_sb, cost))
		return -ENOSPC;
	copy = kmalloc(len + 1, GFP_KERNEL);
	inode = copy ? ramfs_get_inode(dir->i_sb, S_IFLNK | 0777, 0) : NULL;
	if (!inode) {
		kfree(copy);
		ramfs_uncharge_pages(dir->i_sb, cost);
		return -ENOSPC;
	}
	memcpy(copy, target, len + 1);
	inode->i_private = copy;
	inode->i_size = len;
	d_instantiate(dentry, inode);
	d_pin(dentry);
	dir->i_mtime_ns = fs_now_ns();
	return 0;
}

static int ramfs_get_link(struct inode *inode, char *buf, int size)
{
	const char *target = inode->i_private;
	int len = (int)inode->i_size;

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, target, len + 1);
	return len;
}

/*
 * rename, as Linux's simple_rename: the VFS checked types, emptiness and
 * loops and moves the dentries after; here only the link counts.  A name
 * replaced loses its inode a link (a directory: both, its "." too); a
 * directory that changes parent takes its ".." from one to the other.
 */
static int ramfs_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
			struct dentry *new_dentry)
{
	struct inode *victim = new_dentry->d_inode;
	bool is_dir = S_ISDIR(old_dentry->d_inode->i_mode);
	u64 now = fs_now_ns();

	if (victim) {
		if (is_dir) {
			victim->i_nlink = 0;
			new_dir->i_nlink--;     /* the victim's ".." */
		} else if (victim->i_nlink) {
			victim->i_nlink--;
		}
	}
	if (is_dir && old_dir != new_dir) {
		old_dir->i_nlink--;
		new_dir->i_nlink++;
	}
	old_dir->i_mtime_ns = new_dir->i_mtime_ns = now;
	return 0;
}

/* chmod, chown, utimensat, truncate: all in the VFS inode (i_mutex held) */
static int ramfs_setattr(struct dentry *dentry, const struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;

	if (attr->ia_valid & ATTR_SIZE) {
		int err = S_ISREG(inode->i_mode) ? ramfs_setsize(inode, attr->ia_size) : -EINVAL;

		if (err)
			return err;
	}
	setattr_copy(inode, attr);
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
	.link = ramfs_link,
	.symlink = ramfs_symlink,
	.rename = ramfs_rename,
	.setattr = ramfs_setattr,
};

static const struct inode_operations ramfs_symlink_inode_operations = {
	.get_link = ramfs_get_link,
	.setattr = ramfs_setattr,
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
		char name[NAME_MAX + 1];
		bool more;

		if (!child)
			return 0;
		/* a rename (d_move) may rewrite the name meanwhile: copy it
		 * whole under the lock the move holds */
		spin_lock(&dcache_lock);
		strlcpy(name, child->d_name, sizeof(name));
		ctx->pos = (loff_t)child->d_seq + 2;
		spin_unlock(&dcache_lock);
		more = dir_emit(ctx, name, strlen(name), child->d_inode->i_ino,
				S_DT(child->d_inode->i_mode));
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

/*
 * Make pages[] long enough for index; false when the budget or memory is
 * short.  The array is charged too: a sparse file with one page at 1 GiB
 * needs a 2 MiB array, and that memory is as gone as a data page.
 */
static bool ramfs_grow_slots(struct inode *inode, unsigned long index)
{
	struct ramfs_file *rf = ramfs_data(inode);
	unsigned long n = rf->nr_slots ? rf->nr_slots : 8, cost;
	struct page **p;

	if (index < rf->nr_slots)
		return true;
	while (n <= index) {
		if (n > ~0ul / 2 / sizeof(*p))
			return false;           /* no such array could exist */
		n *= 2;
	}
	cost = ramfs_slots_pages(n);
	if (!ramfs_charge_pages(inode->i_sb, cost))
		return false;
	p = kcalloc(n, sizeof(*p), GFP_KERNEL);
	if (!p) {
		ramfs_uncharge_pages(inode->i_sb, cost);
		return false;
	}
	if (rf->nr_slots)
		memcpy(p, rf->pages, rf->nr_slots * sizeof(*p));
	kfree(rf->pages);
	ramfs_uncharge_pages(inode->i_sb, ramfs_slots_pages(rf->nr_slots));
	rf->pages = p;
	rf->nr_slots = n;
	return true;
}

/* A zeroed page for index, within the budget; NULL: the "disk" is full. */
static struct page *ramfs_alloc_data_page(struct inode *inode)
{
	struct page *page;

	if (!ramfs_charge_pages(inode->i_sb, 1))
		return NULL;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		ramfs_uncharge_pages(inode->i_sb, 1);
	else
		inode->i_blocks += PAGE_SIZE / 512;     /* st_blocks */
	return page;
}

/*
 * The user's buffer may be a mapping of a tmpfs file -- this one or
 * another -- whose fault takes that file's i_mutex (ramfs_fault).  So no
 * copy to or from it faults while an i_mutex is held, or two processes
 * copying crosswise between two files would each wait for the other's.
 * A read takes a reference to the page under i_mutex and copies without
 * it (Linux's filemap_read holds no lock across the copy either; a read
 * racing a truncation returns what it found).  A write touches its
 * source first, without the lock, and copies under it with faults that
 * may not sleep (Linux's generic_perform_write and its atomic copy).
 */
static ssize_t ramfs_read_iter(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = ramfs_data(inode);
	ssize_t done = 0;

	while (iov_iter_count(to)) {
		unsigned long index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		struct page *page = NULL;
		size_t n, copied;

		mutex_lock(&inode->i_mutex);
		if (*pos >= inode->i_size) {
			mutex_unlock(&inode->i_mutex);
			break;
		}
		n = min_t(size_t, PAGE_SIZE - off, inode->i_size - *pos);
		if (index < rf->nr_slots && rf->pages[index]) {
			page = rf->pages[index];
			get_page(page);
		}
		mutex_unlock(&inode->i_mutex);

		n = min(n, iov_iter_count(to));
		copied = page ? copy_to_iter((char *)page_address(page) + off, n, to)
			      : iov_iter_zero(n, to);
		if (page)
			put_page(page);
		*pos += copied;
		done += copied;
		if (copied < n) {
			if (!done)
				done = -EFAULT;
			break;
		}
	}
	return done;
}

static ssize_t ramfs_write_iter(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	struct ramfs_file *rf = ramfs_data(inode);
	ssize_t done = 0;

again:
	if (fault_in_iov_iter_readable(from, iov_iter_count(from)) == iov_iter_count(from) &&
	    iov_iter_count(from))
		return -EFAULT;                 /* not one byte of the source is there */
	mutex_lock(&inode->i_mutex);
	if (f->f_flags & O_APPEND)
		*pos = inode->i_size;
	while (iov_iter_count(from)) {
		unsigned long index = *pos >> PAGE_SHIFT;
		size_t off = *pos & (PAGE_SIZE - 1);
		size_t n = min(PAGE_SIZE - off, iov_iter_count(from));
		size_t copied;

		if (!ramfs_grow_slots(inode, index))
			break;
		if (!rf->pages[index]) {
			rf->pages[index] = ramfs_alloc_data_page(inode);
			if (!rf->pages[index])
				break;
		}
		preempt_disable();              /* a fault here may not sleep */
		copied = copy_from_iter((char *)page_address(rf->pages[index]) + off, n, from);
		preempt_enable();
		*pos += copied;
		done += copied;
		if (*pos > inode->i_size)
			inode->i_size = *pos;
		if (copied < n) {
			/* A page of the source went away after it was touched
			 * (another thread unmapped it), or it is past the
			 * part that exists: a short write, or, if nothing was
			 * written yet, touch it again without the lock. */
			if (!done) {
				mutex_unlock(&inode->i_mutex);
				goto again;
			}
			goto out;
		}
	}
	if (!done && iov_iter_count(from))
		done = -ENOSPC;                 /* size= reached, or out of memory */
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
		ramfs_free_pages_from(inode, keep);
		/* ... and from every process that maps them: an access past
		 * the new end is SIGBUS, as on Linux */
		unmap_mapping_range(inode->i_mapping, keep);
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

/*
 * mmap: the PTE maps the file's own page (Linux's shmem_fault, without
 * swap).  A hole gets its page at the first fault, read or write, so
 * that every process mapping the file shares it from then on.  The page
 * is returned locked; truncation takes each page out under that lock and
 * then unmaps, so a page being mapped now is unmapped with the others.
 * Nothing is ever written back: no page_mkwrite, a shared write maps the
 * page writable at once.
 */
static int ramfs_fault(struct vm_fault *vmf)
{
	struct inode *inode = vmf->vma->vm_file->f_inode;
	struct ramfs_file *rf = ramfs_data(inode);
	struct page *page;
	int ret = VM_FAULT_OK;

	/* An atomic user copy may not take the inode's mutex -- a write's
	 * copy under i_mutex is one (ramfs_write_iter): it comes back
	 * short, and the write touches its source again without the lock.
	 * Nor may a fault of a task that holds this very mutex. */
	if (!vmf->may_sleep || __mutex_owner(&inode->i_mutex) == current)
		return VM_FAULT_RETRY;
	mutex_lock(&inode->i_mutex);
	if (vmf->pgoff >= DIV_ROUND_UP((unsigned long)inode->i_size, PAGE_SIZE)) {
		ret = VM_FAULT_SIGBUS;          /* past EOF, as Linux */
		goto out;
	}
	page = vmf->pgoff < rf->nr_slots ? rf->pages[vmf->pgoff] : NULL;
	if (!page) {
		if (!ramfs_grow_slots(inode, vmf->pgoff) ||
		    !(page = ramfs_alloc_data_page(inode))) {
			ret = VM_FAULT_OOM;     /* tmpfs's size= reached, too */
			goto out;
		}
		rf->pages[vmf->pgoff] = page;
	}
	lock_page(page);
	get_page(page);
	vmf->page = page;
	vmf->locked = true;
out:
	mutex_unlock(&inode->i_mutex);
	return ret;
}

static const struct vm_operations_struct ramfs_vm_ops = {
	.fault = ramfs_fault,
};

static int ramfs_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	vma->vm_ops = &ramfs_vm_ops;
	return 0;
}

static const struct file_operations ramfs_file_operations = {
	.llseek = generic_file_llseek,
	.read_iter = ramfs_read_iter,
	.write_iter = ramfs_write_iter,
	.mmap = ramfs_file_mmap,
	.fsync = ramfs_fsync,
};

static const struct inode_operations ramfs_file_inode_operations = {
	.setsize = ramfs_setsize,
	.setattr = ramfs_setattr,
};

/* --- the file system -------------------------------------------------------- */

static struct file_system_type rootfs_fs_type, ramfs_fs_type, tmpfs_fs_type;

/* tmpfs's defaults (shmem_default_max_blocks/inodes): half of RAM, and
 * a root of mode 1777; ramfs's and rootfs's are 0755, as Linux's.
 * (Spindle checks no permissions: the mode is what stat shows.) */
static void ramfs_default_limits(struct ramfs_sb_info *sbi, struct file_system_type *type)
{
	sbi->max_pages = totalram_pages() / 2;
	sbi->max_inodes = totalram_pages() / 2;
	sbi->root_mode = type == &tmpfs_fs_type ? 01777 : 0755;
}

/* One "key=value" of the mount data; -EINVAL with a log line if bad. */
static int ramfs_parse_one(struct ramfs_sb_info *sbi, const char *name, char *opt)
{
	char *val = strchr(opt, '=');
	unsigned long long v;
	char *rest;

	if (val)
		*val++ = '\0';
	if (strcmp(opt, "mode") == 0 && val) {
		unsigned int mode;

		if (kstrtouint(val, 8, &mode) || mode > 07777)
			goto bad_value;
		sbi->root_mode = mode;
		return 0;
	}
	if (!sbi->limited)
		return 0;       /* ramfs: "traditionally ignored all mount options" */
	if (strcmp(opt, "size") == 0 && val) {
		v = memparse(val, &rest);
		if (rest == val)
			goto bad_value;
		if (*rest == '%') {     /* a share of RAM in bytes, as shmem_parse_one */
			if (__builtin_mul_overflow(v, (unsigned long long)totalram_pages() * PAGE_SIZE,
						   &v))
				goto bad_value;
			v /= 100;
			rest++;
		}
		if (*rest)
			goto bad_value;
		sbi->max_pages = v / PAGE_SIZE + (v % PAGE_SIZE != 0);
		return 0;
	}
	if (strcmp(opt, "nr_inodes") == 0 && val) {
		v = memparse(val, &rest);
		if (rest == val || *rest)
			goto bad_value;
		sbi->max_inodes = v;
		return 0;
	}
	pr_warn("%s: unknown mount option '%s'\n", name, opt);
	return -EINVAL;
bad_value:
	pr_warn("%s: bad value '%s' for mount option '%s'\n", name, val ? val : "", opt);
	return -EINVAL;
}

/* "size=64m,mode=1777": every option, in order. */
static int ramfs_parse_options(struct ramfs_sb_info *sbi, const char *name, const char *data)
{
	char *copy, *p, *opt;
	int err = 0;

	if (!data || !*data)
		return 0;
	copy = kmalloc(strlen(data) + 1, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	strlcpy(copy, data, strlen(data) + 1);
	p = copy;
	while (!err && (opt = strsep(&p, ",")))
		if (*opt)
			err = ramfs_parse_one(sbi, name, opt);
	kfree(copy);
	return err;
}

/* The options part of a /proc/mounts line, after "rw". */
static int ramfs_show_options(struct super_block *sb, char *buf, size_t size)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);
	int n;

	if (!sbi->limited)
		return 0;
	/* Linux leaves out what is the default; Spindle always shows the
	 * limits, so a student sees what a full /tmp will stop at */
	n = scnprintf(buf, size, ",size=%luk,nr_inodes=%lu",
		      sbi->max_pages * (PAGE_SIZE / 1024), sbi->max_inodes);
	if (sbi->root_mode != 01777)
		n += scnprintf(buf + n, size - n, ",mode=%o", sbi->root_mode);
	/* inode numbers count up per super block in an unsigned long: 64
	 * bits, what Linux's tmpfs says with inode64 */
	n += scnprintf(buf + n, size - n, ",inode64");
	return n;
}

/* statfs: tmpfs's figures (shmem_statfs); ramfs's are all 0 (no limit) */
static void ramfs_statfs(struct super_block *sb, struct statfs *buf)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);

	if (!sbi->limited)
		return;
	spin_lock(&sbi->lock);
	if (sbi->max_pages) {
		buf->f_blocks = sbi->max_pages;
		buf->f_bfree = buf->f_bavail = sbi->max_pages - min(sbi->used_pages, sbi->max_pages);
	}
	if (sbi->max_inodes) {
		buf->f_files = sbi->max_inodes;
		buf->f_ffree = sbi->max_inodes - min(sbi->used_inodes, sbi->max_inodes);
	}
	spin_unlock(&sbi->lock);
}

int ramfs_fill_super(struct super_block *sb)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);
	struct inode *root;

	sb->s_op = &ramfs_super_ops;
	/* rootfs with tmpfs's limits is Linux's tmpfs-backed rootfs */
	sb->s_magic = sbi->limited ? TMPFS_MAGIC : RAMFS_MAGIC;
	sb->s_flags |= SB_PINNED_DENTRIES;
	root = ramfs_get_inode(sb, S_IFDIR | sbi->root_mode, 0);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *ramfs_mount(struct file_system_type *type, int flags,
				  const char *dev_name, void *data)
{
	struct super_block *sb;
	struct ramfs_sb_info *sbi;
	int err;

	(void)dev_name;
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&sbi->lock);
	sbi->limited = type != &ramfs_fs_type;
	ramfs_default_limits(sbi, type);
	err = ramfs_parse_options(sbi, type->name, data);
	if (err)
		goto fail;
	err = -ENOMEM;
	sb = sget_anon(type);
	if (!sb)
		goto fail;
	sb->s_fs_info = sbi;
	err = ramfs_fill_super(sb);
	if (err) {
		free_anon_super(sb);
		goto fail;
	}
	/* mount -o ro: an empty tree nothing may change, as Linux's tmpfs
	 * allows (the VFS answers EROFS) */
	if (flags & MS_RDONLY)
		sb->s_flags |= SB_RDONLY;
	return dget(sb->s_root);
fail:
	kfree(sbi);
	return ERR_PTR(err);
}

/*
 * Forget every name below root, deepest first.  A loop, not recursion:
 * chdir and mkdir make trees of any depth (only one path is limited to
 * PATH_MAX), and a recursion thousands deep would overrun the kernel
 * stack.  Walk down the first children to a leaf, delete it, step back
 * up to its parent and go on; each child holds its parent, so the
 * parent stays while we stand on the child.
 */
static void ramfs_delete_tree(struct dentry *root)
{
	struct dentry *cur = dget(root), *next;

	for (;;) {
		next = d_child_at(cur, 0);
		if (next) {                     /* down */
			dput(cur);
			cur = next;
			continue;
		}
		if (cur == root)
			break;
		next = dget(cur->d_parent);     /* up, deleting the leaf */
		d_delete(cur);
		dput(cur);
		cur = next;
	}
	dput(cur);
}

/*
 * The last umount: everything in it goes.  umount refused while a file
 * or a cwd was inside, so normally every inode is evicted here; the
 * super_block and its counters go with the last of them, now or when
 * whatever still holds one lets go (repeated mount/umount leaks nothing).
 */
static void ramfs_kill_sb(struct super_block *sb)
{
	struct ramfs_sb_info *sbi = RAMFS_SB(sb);
	bool last;

	ramfs_delete_tree(sb->s_root);
	dput(sb->s_root);
	spin_lock(&sbi->lock);
	sbi->dying = true;
	last = !sbi->used_inodes;
	spin_unlock(&sbi->lock);
	if (last) {
		kfree(sbi);
		free_anon_super(sb);
	}
}

/* rootfs: Linux's is tmpfs when it has tmpfs, with tmpfs's limits */
static struct file_system_type rootfs_fs_type = {
	.name = "rootfs", .mount = ramfs_mount,
};
static struct file_system_type ramfs_fs_type = {
	.name = "ramfs", .mount = ramfs_mount, .kill_sb = ramfs_kill_sb,
};
static struct file_system_type tmpfs_fs_type = {
	.name = "tmpfs", .mount = ramfs_mount, .kill_sb = ramfs_kill_sb,
};

/* --- memory with no name: shared anonymous mappings, System V shm ----------- */

/* The kernel's own instance, mounted nowhere (Linux's shm_mnt): no
 * size= limit, as Linux's kernel mount of shmem. */
static struct super_block *shm_sb;

/*
 * A file of size bytes that no directory names (Linux's
 * shmem_file_setup): what mmap(MAP_SHARED | MAP_ANONYMOUS) maps, so that
 * fork's child and the parent share the pages, and what a System V
 * shared memory segment is.  Its pages live as long as some mapping or
 * file reference does.
 */
struct file *shmem_file_setup(const char *name, loff_t size)
{
	struct inode *inode;

	if (size < 0)
		return ERR_PTR(-EINVAL);
	inode = ramfs_get_inode(shm_sb, S_IFREG | 0777, 0);
	if (!inode)
		return ERR_PTR(-ENOSPC);
	inode->i_size = size;
	inode->i_nlink = 0;             /* in no directory */
	return alloc_file_pseudo(inode, name, O_RDWR, &ramfs_file_operations);
}

int init_ramfs_fs(void)
{
	struct dentry *root;

	register_filesystem(&rootfs_fs_type);
	register_filesystem(&ramfs_fs_type);
	register_filesystem(&tmpfs_fs_type);
	root = ramfs_mount(&ramfs_fs_type, 0, "shm", NULL);
	if (IS_ERR(root))
		return PTR_ERR(root);
	shm_sb = root->d_sb;            /* root stays referenced: never unmounted */
	return 0;
}
