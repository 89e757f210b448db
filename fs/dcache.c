// SPDX-License-Identifier: MIT
/*
 * dcache.c - dentries: the names of the file tree, cached.
 *
 * A dentry is "this name in that directory": d_name, d_parent, and the
 * inode it names (or none: a negative dentry, which lookup uses while
 * deciding whether a name exists).  Path lookup (namei.c) walks dentries
 * from the root down, asking the directory's inode_operations->lookup()
 * only for names not yet in the cache.
 *
 * Two lifetimes, chosen by the super_block (SB_PINNED_DENTRIES):
 *   - ramfs keeps its whole tree here -- there is no disk to ask again --
 *     so its dentries hold a reference on themselves (d_pin) from creation
 *     until unlink/rmdir (d_delete);
 *   - generated file systems (devtmpfs, proc, sysfs) build a dentry at
 *     lookup time and free it when its last user lets go, so that a disk
 *     registered later or a task that exited is seen at the next lookup.
 *
 * A child holds a reference on its parent, so a directory lives while
 * anything below it does.  Counts and the child lists are under
 * dcache_lock (a spinlock: dput is called from any task context, also
 * with other locks held -- not from interrupts, it may free); structure
 * changes (create, delete, mount) happen under vfs_lock as well.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "internal.h"

DEFINE_SPINLOCK(dcache_lock);

struct dentry *d_alloc(struct dentry *parent, const char *name, int len)
{
	struct dentry *d;

	if (len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	memcpy(d->d_name, name, len);
	d->d_name[len] = '\0';
	d->d_count = 1;
	INIT_LIST_HEAD(&d->d_subdirs);
	INIT_LIST_HEAD(&d->d_child);
	if (parent) {
		spin_lock(&dcache_lock);

		parent->d_count++;              /* the child's reference */
		d->d_parent = parent;
		d->d_sb = parent->d_sb;
		d->d_seq = parent->d_next_seq++;
		list_add_tail(&d->d_child, &parent->d_subdirs);
		d->d_flags |= DCACHE_HASHED;
		spin_unlock(&dcache_lock);
	} else {
		d->d_parent = d;
	}
	return d;
}

struct dentry *d_make_root(struct inode *root_inode)
{
	struct dentry *d;

	if (!root_inode)
		return NULL;
	d = d_alloc(NULL, "/", 1);
	if (IS_ERR(d)) {
		iput(root_inode);
		return NULL;
	}
	d->d_sb = root_inode->i_sb;
	d->d_inode = root_inode;
	return d;
}

void d_instantiate(struct dentry *dentry, struct inode *inode)
{
	dentry->d_inode = inode;
}

void d_add(struct dentry *dentry, struct inode *inode)
{
	d_instantiate(dentry, inode);
}

void d_pin(struct dentry *dentry)
{
	spin_lock(&dcache_lock);

	if (!(dentry->d_flags & DCACHE_PINNED)) {
		dentry->d_flags |= DCACHE_PINNED;
		dentry->d_count++;
	}
	spin_unlock(&dcache_lock);
}

struct dentry *dget(struct dentry *dentry)
{

	if (!dentry)
		return NULL;
	spin_lock(&dcache_lock);
	dentry->d_count++;
	spin_unlock(&dcache_lock);
	return dentry;
}

/* Take a dentry off its parent's list: no lookup finds it any more. */
static void __d_unhash(struct dentry *dentry)
{
	assert_spin_locked(&dcache_lock);
	if (dentry->d_flags & DCACHE_HASHED) {
		list_del_init(&dentry->d_child);
		dentry->d_flags &= ~DCACHE_HASHED;
	}
}

/*
 * Drop a reference.  The last one frees the dentry and its inode
 * reference, and then drops the reference it held on its parent -- which
 * may free the parent too, so this loops upwards instead of recursing.
 */
void dput(struct dentry *dentry)
{
	while (dentry) {
		struct dentry *parent;
		spin_lock(&dcache_lock);

		if (dentry->d_count <= 0)
			panic("dput: dentry '%s' count %d", dentry->d_name, dentry->d_count);
		if (--dentry->d_count > 0) {
			spin_unlock(&dcache_lock);
			return;
		}
		__d_unhash(dentry);
		parent = dentry->d_parent == dentry ? NULL : dentry->d_parent;
		spin_unlock(&dcache_lock);

		if (dentry->d_inode)
			iput(dentry->d_inode);
		kfree(dentry);
		dentry = parent;
	}
}

void d_delete(struct dentry *dentry)
{
	bool pinned;
	spin_lock(&dcache_lock);

	__d_unhash(dentry);
	pinned = dentry->d_flags & DCACHE_PINNED;
	dentry->d_flags &= ~DCACHE_PINNED;
	spin_unlock(&dcache_lock);
	if (pinned)
		dput(dentry);
}

struct dentry *d_lookup(struct dentry *parent, const char *name, int len)
{
	struct dentry *d, *found = NULL;
	spin_lock(&dcache_lock);

	list_for_each_entry(d, &parent->d_subdirs, d_child)
		if (d->d_inode && (int)strlen(d->d_name) == len &&
		    memcmp(d->d_name, name, len) == 0) {
			d->d_count++;
			found = d;
			break;
		}
	spin_unlock(&dcache_lock);
	return found;
}

/* The first positive child whose d_seq is at least seq (a reference
 * taken), or NULL: children are listed in creation order. */
struct dentry *d_child_from(struct dentry *parent, u64 seq)
{
	struct dentry *d, *found = NULL;

	spin_lock(&dcache_lock);
	list_for_each_entry(d, &parent->d_subdirs, d_child)
		if (d->d_inode && d->d_seq >= seq) {
			d->d_count++;
			found = d;
			break;
		}
	spin_unlock(&dcache_lock);
	return found;
}

struct dentry *d_child_at(struct dentry *parent, loff_t n)
{
	struct dentry *d, *found = NULL;
	spin_lock(&dcache_lock);

	list_for_each_entry(d, &parent->d_subdirs, d_child)
		if (d->d_inode && n-- == 0) {
			d->d_count++;
			found = d;
			break;
		}
	spin_unlock(&dcache_lock);
	return found;
}

/*
 * getcwd: climb from the dentry to the root, writing names from the end
 * of buf backwards; at the root of a mount, continue from the dentry it
 * is mounted on.
 */
int d_path(const struct path *path, char *buf, int size)
{
	struct dentry *d = path->dentry;
	struct vfsmount *mnt = path->mnt;
	int end = size;

	if (size < 2)
		return -ENAMETOOLONG;
	buf[--end] = '\0';
	for (;;) {
		int len;

		if (d == mnt->mnt_root) {
			if (mnt->mnt_parent == mnt)
				break;
			d = mnt->mnt_mountpoint;
			mnt = mnt->mnt_parent;
			continue;
		}
		if (d->d_parent == d)
			break;
		len = strlen(d->d_name);
		if (end < len + 1)
			return -ENAMETOOLONG;
		end -= len;
		memcpy(buf + end, d->d_name, len);
		buf[--end] = '/';
		d = d->d_parent;
	}
	if (end == size - 1) {
		if (end < 1)
			return -ENAMETOOLONG;
		buf[--end] = '/';
	}
	memmove(buf, buf + end, size - end);
	return size - end - 1;
}

/*
 * rename: dentry takes target's name and place (Linux's d_move).  target
 * leaves the cache -- negative, or a name the rename just replaced, which
 * the caller d_delete()d -- and dentry moves to the end of its new
 * parent's children with a fresh d_seq, as a new name would.  Everything
 * below dentry comes with it.  vfs_lock held.
 */
void d_move(struct dentry *dentry, struct dentry *target)
{
	struct dentry *old_parent = dentry->d_parent, *new_parent = target->d_parent;

	spin_lock(&dcache_lock);
	__d_unhash(target);
	__d_unhash(dentry);
	if (new_parent != old_parent)
		new_parent->d_count++;          /* the moved child's reference */
	strlcpy(dentry->d_name, target->d_name, sizeof(dentry->d_name));
	dentry->d_parent = new_parent;
	dentry->d_seq = new_parent->d_next_seq++;
	list_add_tail(&dentry->d_child, &new_parent->d_subdirs);
	dentry->d_flags |= DCACHE_HASHED;
	spin_unlock(&dcache_lock);
	if (new_parent != old_parent)
		dput(old_parent);
}

/* Is d ancestor itself, or below it (through d_parent, one super_block)? */
bool is_subdir(struct dentry *d, struct dentry *ancestor)
{
	bool found = false;

	spin_lock(&dcache_lock);
	for (;;) {
		if (d == ancestor) {
			found = true;
			break;
		}
		if (d->d_parent == d)
			break;
		d = d->d_parent;
	}
	spin_unlock(&dcache_lock);
	return found;
}
