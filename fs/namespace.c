// SPDX-License-Identifier: MIT
/*
 * namespace.c - file system types, super_blocks and the mount table.
 *
 * A file system type ("ramfs", "proc", ...) knows how to make a
 * super_block; mounting one puts a vfsmount on a directory, and path
 * lookup (namei.c) steps from that directory to the mount's root each
 * time it meets it.  One tree of mounts for the whole system (Linux has
 * one per mount namespace).
 *
 *       root_mnt (ramfs, "/")
 *         |-- mounted on /proc: proc's super_block
 *         `-- mounted on /dev:  devtmpfs's super_block
 *
 * A mount is busy -- umount gives EBUSY -- while a path inside it is held
 * (an open file, a cwd: each holds a reference on the vfsmount) or another
 * mount sits on top of something in it.  All of this runs under vfs_lock.
 *
 * mount -o remount[,ro|,rw] DIR (MS_REMOUNT) changes the super_block of
 * the mount on DIR in place: going read-only is refused (EBUSY) while a
 * file of it is open for writing, as Linux; otherwise its files' dirty
 * pages are written back and the file system's remount_fs finishes the
 * change (ext2 writes its metadata and marks itself clean).
 *
 * An open for writing and a remount read-only must not both succeed.
 * Both sleep part-way (the open in its allocation, the remount in its
 * writeback), so "is it read-only?" in one and "any writers?" in the other
 * are not enough on their own: each could pass before the other acts.
 * Linux's answer, kept here: the writer count and a "remounting read-only"
 * flag (s_readonly_remount) change together under mount_lock.
 * mnt_want_write() counts a writer unless the fs is read-only or the flag
 * is up (EROFS); sb_prepare_remount_readonly() raises the flag unless
 * there is a writer (EBUSY).  Whichever comes first wins; the flag stays
 * up until SB_RDONLY is set or the remount has failed.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include <spindle/writeback.h>
#include <spindle/uaccess.h>
#include "internal.h"

static struct file_system_type *file_systems;
static LIST_HEAD(mount_list);
struct vfsmount *root_mnt;

int register_filesystem(struct file_system_type *fs)
{
	for (struct file_system_type *p = file_systems; p; p = p->next)
		if (strcmp(p->name, fs->name) == 0)
			return p == fs ? 0 : -EBUSY;
	fs->next = file_systems;
	file_systems = fs;
	return 0;
}

struct file_system_type *get_fs_type(const char *name)
{
	for (struct file_system_type *p = file_systems; p; p = p->next)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/*
 * Anonymous device numbers, Linux's get_anon_bdev()/free_anon_bdev(): the
 * st_dev of a file system without a disk (tmpfs, proc) is 0:n, n the
 * lowest minor free, from 1 to 2^20 - 1 (0:0 means "no device" to too
 * many programs).  Linux keeps them in an IDA; this is one in miniature:
 * a bitmap of all 2^20 minors cut in chunks of 4096 bits, a chunk
 * allocated the first time a number in it is wanted.  A number comes
 * back when its super_block is freed, so mounting and unmounting for ever
 * never runs out -- before, each mount took the next number, none came
 * back, and the 2^20th would have run into the major's bits.
 */
#define ANON_MINORS             (1u << MINORBITS)
#define ANON_CHUNK_BITS         4096u
#define ANON_LONG_BITS          (8 * (unsigned int)sizeof(long))
#define ANON_CHUNK_LONGS        (ANON_CHUNK_BITS / ANON_LONG_BITS)

static unsigned long *anon_dev_map[ANON_MINORS / ANON_CHUNK_BITS];
static DEFINE_SPINLOCK(anon_dev_lock);

/* The lowest clear bit of a chunk, or -1; under anon_dev_lock. */
static int anon_chunk_find(const unsigned long *bits)
{
	for (unsigned int w = 0; w < ANON_CHUNK_LONGS; w++)
		if (~bits[w])
			return (int)(w * ANON_LONG_BITS + (unsigned int)__builtin_ctzl(~bits[w]));
	return -1;
}

int get_anon_bdev(dev_t *p)
{
	unsigned long *spare = NULL;

	for (;;) {
		bool need_chunk = false;

		spin_lock(&anon_dev_lock);
		for (unsigned int c = 0; c < ARRAY_SIZE(anon_dev_map); c++) {
			unsigned long *bits = anon_dev_map[c];
			int b;

			if (!bits) {
				if (!spare) {
					need_chunk = true;
					break;
				}
				bits = anon_dev_map[c] = spare;
				spare = NULL;
				if (c == 0)
					bits[0] = 1;    /* minor 0 is never given */
			}
			b = anon_chunk_find(bits);
			if (b < 0)
				continue;
			bits[b / ANON_LONG_BITS] |= 1ul << (b % ANON_LONG_BITS);
			spin_unlock(&anon_dev_lock);
			kfree(spare);
			*p = MKDEV(0, c * ANON_CHUNK_BITS + (unsigned int)b);
			return 0;
		}
		spin_unlock(&anon_dev_lock);
		if (!need_chunk) {
			kfree(spare);
			return -EMFILE;         /* all 2^20 - 1 in use, as Linux */
		}
		/* allocated without the lock held, then the search again */
		spare = kzalloc(ANON_CHUNK_LONGS * sizeof(long), GFP_KERNEL);
		if (!spare)
			return -ENOMEM;
	}
}

void free_anon_bdev(dev_t dev)
{
	unsigned int minor = MINOR(dev), c = minor / ANON_CHUNK_BITS, b = minor % ANON_CHUNK_BITS;

	if (MAJOR(dev) != 0 || !minor)
		return;
	spin_lock(&anon_dev_lock);
	if (anon_dev_map[c])
		anon_dev_map[c][b / ANON_LONG_BITS] &= ~(1ul << (b % ANON_LONG_BITS));
	spin_unlock(&anon_dev_lock);
}

struct super_block *alloc_super(struct file_system_type *type)
{
	struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);

	if (sb)
		sb->s_type = type;
	return sb;
}

/* A super_block without a disk: its st_dev is an anonymous 0:n. */
struct super_block *sget_anon(struct file_system_type *type)
{
	struct super_block *sb = alloc_super(type);

	if (sb && get_anon_bdev(&sb->s_dev)) {
		kfree(sb);
		return NULL;
	}
	return sb;
}

/* The end of a super_block from sget_anon(): its number comes back. */
void free_anon_super(struct super_block *sb)
{
	free_anon_bdev(sb->s_dev);
	kfree(sb);
}

struct dentry *mount_single(struct file_system_type *type,
			    int (*fill_super)(struct super_block *sb))
{
	if (!type->single_sb) {
		struct super_block *sb = sget_anon(type);
		int err;

		if (!sb)
			return ERR_PTR(-ENOMEM);
		err = fill_super(sb);
		if (err) {
			free_anon_super(sb);
			return ERR_PTR(err);
		}
		type->single_sb = sb;
	}
	return dget(type->single_sb->s_root);
}

struct vfsmount *mntget(struct vfsmount *mnt)
{
	if (mnt) {
		spin_lock(&dcache_lock);
		mnt->mnt_count++;
		spin_unlock(&dcache_lock);
	}
	return mnt;
}

void mntput(struct vfsmount *mnt)
{
	if (!mnt)
		return;
	spin_lock(&dcache_lock);
	if (--mnt->mnt_count < 0)
		panic("mntput: mount of %s count below zero", mnt->mnt_sb->s_type->name);
	spin_unlock(&dcache_lock);
	/* a vfsmount is freed by umount itself, once its count says idle */
}

void path_get(const struct path *path)
{
	mntget(path->mnt);
	dget(path->dentry);
}

void path_put(const struct path *path)
{
	dput(path->dentry);
	mntput(path->mnt);
}

/* The mount on top of path, if path is a mount point (the last mounted). */
struct vfsmount *lookup_mnt(const struct path *path)
{
	struct vfsmount *m, *found = NULL;

	if (!path->dentry->d_mounted)
		return NULL;
	list_for_each_entry(m, &mount_list, mnt_list)
		if (m->mnt_parent == path->mnt && m->mnt_mountpoint == path->dentry)
			found = m;
	return found;
}

static struct vfsmount *alloc_vfsmnt(struct dentry *root, const char *dev_name)
{
	static atomic_t last_mnt_id;
	struct vfsmount *mnt = kzalloc(sizeof(*mnt), GFP_KERNEL);

	if (!mnt)
		return NULL;
	mnt->mnt_id = atomic_inc_return(&last_mnt_id);
	mnt->mnt_root = root;
	mnt->mnt_sb = root->d_sb;
	mnt->mnt_count = 1;                     /* "is mounted" */
	mnt->mnt_parent = mnt;
	strlcpy(mnt->mnt_devname, dev_name ? dev_name : "none", sizeof(mnt->mnt_devname));
	root->d_sb->s_mounts++;
	return mnt;
}

int init_mount_tree(void)
{
	struct file_system_type *type = get_fs_type("rootfs");
	struct dentry *root;

	if (root_mnt)
		return 0;
	if (!type)
		return -ENODEV;
	root = type->mount(type, 0, "rootfs", NULL);
	if (IS_ERR(root))
		return PTR_ERR(root);
	root_mnt = alloc_vfsmnt(root, "rootfs");
	if (!root_mnt)
		return -ENOMEM;
	list_add_tail(&root_mnt->mnt_list, &mount_list);
	return 0;
}

void get_root_path(struct path *root)
{
	root->mnt = root_mnt;
	root->dentry = root_mnt->mnt_root;
	path_get(root);
}

/*
 * The writer count and s_readonly_remount of every super_block (the top
 * of this file says why one lock).  Linux's mount_lock guards these and
 * the mount hash too; here the mount table is under vfs_lock.  Linux
 * counts writers per mount, per CPU, and sums a super_block's mounts when
 * it remounts; one count per super_block is that sum.
 */
static DEFINE_SPINLOCK(mount_lock);

int mnt_want_write(struct vfsmount *mnt)
{
	struct super_block *sb = mnt->mnt_sb;
	int err = 0;

	spin_lock(&mount_lock);
	if (sb_rdonly(sb) || sb->s_readonly_remount)
		err = -EROFS;
	else
		sb->s_writers++;
	spin_unlock(&mount_lock);
	return err;
}

void mnt_drop_write(struct vfsmount *mnt)
{
	spin_lock(&mount_lock);
	mnt->mnt_sb->s_writers--;
	spin_unlock(&mount_lock);
}

/* EBUSY while sb has a writer; otherwise new writers get EROFS from now. */
static int sb_prepare_remount_readonly(struct super_block *sb)
{
	int err = 0;

	spin_lock(&mount_lock);
	if (sb->s_writers)
		err = -EBUSY;
	else
		sb->s_readonly_remount = true;
	spin_unlock(&mount_lock);
	return err;
}

/* The remount's end: read-only or not as it decided, and the flag down. */
static void sb_end_remount(struct super_block *sb, bool rdonly)
{
	spin_lock(&mount_lock);
	if (rdonly)
		sb->s_flags |= SB_RDONLY;
	else
		sb->s_flags &= ~SB_RDONLY;
	sb->s_readonly_remount = false;
	spin_unlock(&mount_lock);
}

/* MS_REMOUNT of the mount whose root path is; vfs_lock held. */
static int do_remount(struct path *path, unsigned long flags, void *data)
{
	struct super_block *sb = path->mnt->mnt_sb;
	bool to_ro = (flags & MS_RDONLY) && !sb_rdonly(sb);
	int err;

	if (path->dentry != path->mnt->mnt_root)
		return -EINVAL; /* not a mount point, as Linux */
	if (to_ro) {
		err = sb_prepare_remount_readonly(sb);
		if (err)
			return err;
		err = writeback_and_wait_all(sb);
		if (err)
			goto fail;
	}
	if (sb->s_op && sb->s_op->remount_fs) {
		err = sb->s_op->remount_fs(sb, &flags, data);
		if (err)
			goto fail;
	}
	sb_end_remount(sb, flags & MS_RDONLY);
	return 0;
fail:
	sb_end_remount(sb, sb_rdonly(sb)); /* as it was: writers may come again */
	return err;
}

int do_mount(const char *dev_name, const char *dir_name, const char *type_name,
	     unsigned long flags, void *data)
{
	struct file_system_type *type;
	struct vfsmount *mnt;
	struct dentry *root;
	struct path path;
	int err;

	if (flags & MS_REMOUNT) { /* source and type are not used */
		mutex_lock(&vfs_lock);
		err = __path_lookupat(AT_FDCWD, dir_name, 0, &path, NULL, NULL);
		if (!err) {
			err = do_remount(&path, flags, data);
			path_put(&path);
		}
		mutex_unlock(&vfs_lock);
		return err;
	}
	if (!type_name)
		return -EINVAL;
	mutex_lock(&vfs_lock);
	type = get_fs_type(type_name);
	err = -ENODEV;
	if (!type)
		goto out;
	err = __path_lookupat(AT_FDCWD, dir_name, LOOKUP_DIRECTORY, &path, NULL, NULL);
	if (err)
		goto out;
	root = type->mount(type, (int)flags, dev_name, data);    /* data: options text */
	if (IS_ERR(root)) {
		err = PTR_ERR(root);
		goto out_path;
	}
	err = -ENOMEM;
	mnt = alloc_vfsmnt(root, dev_name);
	if (!mnt) {
		dput(root);
		goto out_path;
	}
	/* The mount keeps what it sits on: parent mount and mount point. */
	mnt->mnt_parent = mntget(path.mnt);
	mnt->mnt_mountpoint = dget(path.dentry);
	path.dentry->d_mounted++;
	list_add_tail(&mnt->mnt_list, &mount_list);
	err = 0;
out_path:
	path_put(&path);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/*
 * The mount on dir becomes the root of the tree: Linux's early
 * "mount --move /root /" (init/do_mounts.c), for root=.  The old root
 * (rootfs, the initramfs) stays mounted underneath, out of reach: as on
 * Linux, /proc/mounts and mountinfo no longer list it (mnt_reachable).
 * Before any process has a root of its own: tasks made after take the
 * new one (init_task_files).
 */
int mount_move_to_root(const char *dir)
{
	struct vfsmount *mnt;
	struct path path;
	int err;

	mutex_lock(&vfs_lock);
	err = __path_lookupat(AT_FDCWD, dir, LOOKUP_DIRECTORY, &path, NULL, NULL);
	if (err)
		goto out;
	mnt = path.mnt;
	err = -EINVAL; /* not the root of a mount, or already the root */
	if (path.dentry == mnt->mnt_root && mnt->mnt_parent != mnt) {
		mnt->mnt_mountpoint->d_mounted--;
		dput(mnt->mnt_mountpoint);
		mntput(mnt->mnt_parent);
		mnt->mnt_parent = mnt;
		mnt->mnt_mountpoint = NULL;
		root_mnt = mnt;
		err = 0;
	}
	path_put(&path);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

static bool mnt_has_children(struct vfsmount *mnt)
{
	struct vfsmount *m;

	list_for_each_entry(m, &mount_list, mnt_list)
		if (m != mnt && m->mnt_parent == mnt)
			return true;
	return false;
}

int do_umount(const char *name, int flags)
{
	struct super_block *sb;
	struct vfsmount *mnt;
	struct path path;
	int err;

	if (flags & ~(MNT_FORCE | MNT_DETACH))
		return -EINVAL;
	mutex_lock(&vfs_lock);
	err = __path_lookupat(AT_FDCWD, name, 0, &path, NULL, NULL);
	if (err)
		goto out;
	mnt = path.mnt;
	err = -EINVAL;                          /* not the root of a mount */
	if (path.dentry != mnt->mnt_root)
		goto out_path;
	err = -EBUSY;
	/* busy: the root, a mount on top, or a user besides "mounted" + us */
	if (mnt == root_mnt || mnt_has_children(mnt) || mnt->mnt_count > 2)
		goto out_path;
	path_put(&path);

	list_del(&mnt->mnt_list);
	mnt->mnt_mountpoint->d_mounted--;
	dput(mnt->mnt_mountpoint);
	mntput(mnt->mnt_parent);
	sb = mnt->mnt_sb;
	dput(mnt->mnt_root);
	kfree(mnt);
	if (--sb->s_mounts == 0 && sb->s_type->kill_sb)
		sb->s_type->kill_sb(sb);
	err = 0;
	goto out;
out_path:
	path_put(&path);
out:
	mutex_unlock(&vfs_lock);
	return err;
}

/* sync(2)'s last step, as Linux's iterate_supers(sync_fs_one_sb): each
 * read-write file system's sync_fs (ext3 commits its journal there).
 * Under vfs_lock, so no umount frees one meanwhile: a sync_fs may
 * sleep, and must not take vfs_lock. */
void sync_filesystems(void)
{
	struct vfsmount *m;

	mutex_lock(&vfs_lock);
	list_for_each_entry(m, &mount_list, mnt_list) {
		struct super_block *sb = m->mnt_sb;

		if (!sb_rdonly(sb) && sb->s_op && sb->s_op->sync_fs)
			sb->s_op->sync_fs(sb, 1);
	}
	mutex_unlock(&vfs_lock);
}

/*
 * Whether the reader sees mount m in /proc/mounts and mountinfo: Linux
 * lists only the mounts whose path it can write from the reader's root
 * (seq_path_root() in show_vfsmnt and show_mountinfo), so rootfs, left
 * underneath by mount_move_to_root(), is not there once the real root
 * is mounted over it -- findmnt shows one "/".  m is reachable when
 * climbing its parents meets the mount of the reader's root.  Spindle
 * has no chroot(2): every root is the root of a mount, so comparing
 * the mounts is the whole test.  vfs_lock held.
 */
static bool mnt_reachable(struct vfsmount *m)
{
	struct path root, pwd;

	current_root_pwd(&root, &pwd);
	for (;;) {
		if (m == root.mnt)
			return true;
		if (m->mnt_parent == m)
			return false;   /* the top of another tree */
		m = m->mnt_parent;
	}
}

/*
 * The per-mount options, in Linux's form (show_mnt_opts()): "rw" or "ro",
 * then the mount's atime flag.  Linux's default is relatime; Spindle
 * never updates an access time on a read (fs/file.c), which is Linux's
 * noatime, so that is what it says.
 */
#define MNT_ATIME_OPTS ",noatime"

int show_mounts(char *buf, size_t size)
{
	struct vfsmount *m;
	char *where = kmalloc(PATH_MAX, GFP_KERNEL);
	int n = 0;

	if (!where)
		return -ENOMEM;
	mutex_lock(&vfs_lock);
	list_for_each_entry(m, &mount_list, mnt_list) {
		struct path p = { m, m->mnt_root };

		if (!mnt_reachable(m))
			continue;

		if (d_path(&p, where, PATH_MAX) < 0)
			strlcpy(where, "?", PATH_MAX);
		n += scnprintf(buf + n, size - n, "%s %s %s %s" MNT_ATIME_OPTS,
			       m->mnt_devname, where, m->mnt_sb->s_type->name,
			       sb_rdonly(m->mnt_sb) ? "ro" : "rw");
		if (m->mnt_sb->s_op && m->mnt_sb->s_op->show_options)
			n += m->mnt_sb->s_op->show_options(m->mnt_sb, buf + n, size - n);
		n += scnprintf(buf + n, size - n, " 0 0\n");
	}
	mutex_unlock(&vfs_lock);
	kfree(where);
	return n;
}

/*
 * /proc/<pid>/mountinfo (Linux's show_mountinfo(), proc(5)): mount id,
 * parent's id (its own for the root), st_dev of the file system, the
 * root of the mount in it, the mount point, per-mount options, no
 * optional fields, "-", type, source, the file system's options.
 * findmnt and lsblk read this file, not /proc/mounts.
 */
int show_mountinfo(char *buf, size_t size)
{
	struct vfsmount *m;
	char *where = kmalloc(PATH_MAX, GFP_KERNEL);
	int n = 0;

	if (!where)
		return -ENOMEM;
	mutex_lock(&vfs_lock);
	list_for_each_entry(m, &mount_list, mnt_list) {
		struct path p = { m, m->mnt_root };
		const char *rw = sb_rdonly(m->mnt_sb) ? "ro" : "rw";

		if (!mnt_reachable(m))
			continue;
		if (d_path(&p, where, PATH_MAX) < 0)
			strlcpy(where, "?", PATH_MAX);
		n += scnprintf(buf + n, size - n, "%d %d %u:%u / %s %s" MNT_ATIME_OPTS " - %s %s %s",
			       m->mnt_id, m->mnt_parent->mnt_id, MAJOR(m->mnt_sb->s_dev),
			       MINOR(m->mnt_sb->s_dev), where, rw, m->mnt_sb->s_type->name,
			       m->mnt_devname, rw);
		if (m->mnt_sb->s_op && m->mnt_sb->s_op->show_options)
			n += m->mnt_sb->s_op->show_options(m->mnt_sb, buf + n, size - n);
		n += scnprintf(buf + n, size - n, "\n");
	}
	mutex_unlock(&vfs_lock);
	kfree(where);
	return n;
}

/* /proc/filesystems: each type, "nodev" before those without a disk */
int show_filesystems(char *buf, size_t size)
{
	int n = 0;

	/* registered at boot, never unregistered: no lock needed to walk */
	for (struct file_system_type *p = file_systems; p; p = p->next)
		n += scnprintf(buf + n, size - n, "%s\t%s\n",
			       p->fs_flags & FS_REQUIRES_DEV ? "" : "nodev", p->name);
	return n;
}

/* --- mount(2) and umount2(2) ---------------------------------------------- */

/*
 * The copy of a small string argument (a mount type, a device name), as
 * Linux's strndup_user: plain kmalloc, not the names reserve -- mount
 * needs three strings at once, and two mounts each holding part of the
 * reserve while waiting for the rest would wait forever.  Every caller
 * of getname() holds one name at a time.
 */
char *copy_mount_string(const char __user *s)
{
	char *k;
	long n;

	if (!s)
		return NULL;
	k = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	n = strncpy_from_user(k, s, PATH_MAX);
	if (n < 0 || n == PATH_MAX) {
		kfree(k);
		return ERR_PTR(n < 0 ? -EFAULT : -ENAMETOOLONG);
	}
	return k;
}

/*
 * mount(2)'s data: for every Spindle file system a text of options
 * ("size=64m,mode=1777"), at most a page as in Linux's
 * copy_mount_options; NULL when there is none.
 */
static char *copy_mount_options(const void __user *data)
{
	char *k;
	long n;

	if (!data)
		return NULL;
	k = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	n = strncpy_from_user(k, data, PAGE_SIZE);
	if (n < 0 || n == PAGE_SIZE) {
		kfree(k);
		return ERR_PTR(n < 0 ? -EFAULT : -EINVAL);
	}
	return k;
}

long sys_mount(char __user *dev_name, char __user *dir_name, char __user *type,
	       unsigned long flags, void __user *data)
{
	char *dev = NULL, *dir = NULL, *t = NULL, *opts = NULL;
	long err;

	dev = copy_mount_string(dev_name); /* NULL: "none", fine for virtual ones */
	if (IS_ERR(dev))
		return PTR_ERR(dev); /* a bad pointer is EFAULT, as Linux */
	t = copy_mount_string(type);
	if (IS_ERR(t) || (!t && !(flags & MS_REMOUNT))) { /* remount: no type needed */
		err = t ? PTR_ERR(t) : -EINVAL;
		t = NULL;
		goto out;
	}
	dir = getname(dir_name);
	if (IS_ERR(dir)) {
		err = PTR_ERR(dir);
		dir = NULL;
		goto out;
	}
	opts = copy_mount_options(data);
	if (IS_ERR(opts)) {
		err = PTR_ERR(opts);
		opts = NULL;
		goto out;
	}
	err = do_mount(dev, dir, t, flags, opts);
out:
	kfree(dev);
	putname(dir);
	kfree(t);
	kfree(opts);
	return err;
}

long sys_umount2(char __user *name, int flags)
{
	return WITH_NAME(name, kname, do_umount(kname, flags));
}
