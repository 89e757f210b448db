/* SPDX-License-Identifier: MIT */
/*
 * internal.h - declarations private to fs/ (not for the rest of the kernel).
 */
#ifndef FS_INTERNAL_H
#define FS_INTERNAL_H

#include <spindle/fs.h>

/*
 * The sys_* prototypes (include/spindle/syscalls.h, which the definitions
 * here must match) and signals.  Both headers use ABI type names the C library also
 * has, so the host unit tests get bare declarations instead.
 */
#ifndef SPINDLE_HOST
#include <spindle/syscalls.h>
#include <spindle/signal.h>
#else
bool signal_pending(struct task_struct *t);
bool fatal_signal_pending(struct task_struct *t);
int kill_pgrp(int pgrp, int sig);
#ifndef SIGHUP
#define SIGHUP 1
#endif
#ifndef SIGINT
#define SIGINT 2
#endif
#ifndef SIGQUIT
#define SIGQUIT 3
#endif
#ifndef SIGCONT
#define SIGCONT 18
#endif
#ifndef SIGTSTP
#define SIGTSTP 20
#endif
#ifndef SIGTTIN
#define SIGTTIN 21
#endif
#ifndef SIGTTOU
#define SIGTTOU 22
#endif
#ifndef SIGWINCH
#define SIGWINCH 28
#endif
bool is_ignored(int sig);
bool is_current_pgrp_orphaned(void);
#endif

#include <spindle/sched.h>

/* The bits umask(2) takes off a new file's or directory's mode. */
static inline unsigned int current_umask(void)
{
	return current ? current->umask : 0;
}

/* dcache.c: dentries and their counts are under this spinlock */
extern spinlock_t dcache_lock;

/* namespace.c */
struct vfsmount *lookup_mnt(const struct path *path);
struct vfsmount *mntget(struct vfsmount *mnt);
void mntput(struct vfsmount *mnt);
extern struct vfsmount *root_mnt;

/* namei.c: walk with vfs_lock already held */
int __path_lookupat(int dfd, const char *name, unsigned int flags,
		    struct path *path, const char **last, int *last_len);
/* The same walk from dir (a relative name) or the root (an absolute one):
 * a symbolic link's target read from the link's directory */
int __path_lookup_from(const struct path *dir, const char *name, unsigned int flags,
		       struct path *path, const char **last, int *last_len);
/* The child dentry `name` of parent, found or newly allocated -- maybe
 * negative (no such file yet: open's O_CREAT fills it); vfs_lock held. */
struct dentry *lookup_one(struct dentry *parent, const char *name, int len);

/* namei.c: the namespace changes behind link, symlink, rename (and the
 * initramfs's links); each takes vfs_lock */
int do_linkat(int olddfd, const char *oldname, int newdfd, const char *newname, bool follow);
int do_symlinkat(const char *target, int newdfd, const char *newname);
/* utimensat's work, and the initramfs's file times: name's mtime
 * (LOOKUP_NOFOLLOW: a symbolic link's own; NULL: only look name up) */
int do_set_mtime(int dfd, const char *name, unsigned int lookup_flags, const u64 *mtime_ns);
#define RENAME_NOREPLACE (1u << 0)      /* renameat2: EEXIST rather than replace */
#define RENAME_EXCHANGE (1u << 1)       /* not supported */
#define RENAME_WHITEOUT (1u << 2)       /* not supported */
int do_renameat2(int olddfd, const char *oldname, int newdfd, const char *newname,
		 unsigned int flags);

/* dcache.c: rename's dentry move, and the loop check before it */
void d_move(struct dentry *dentry, struct dentry *target);
bool is_subdir(struct dentry *d, struct dentry *ancestor);

/* open.c: chmod, chown, truncate, utimensat: check attr's values, then
 * the file system's setattr (or the VFS inode itself); vfs_lock not held */
int notify_change(struct dentry *dentry, struct iattr *attr);
/* notify_change() as a write to path's mount (mnt_want_write()) */
int notify_change_path(const struct path *path, struct iattr *attr);
/* open.c: the attribute calls on kernel names */
int ksys_fchmodat(int dfd, const char *name, umode_t mode);
int ksys_fchownat(int dfd, const char *name, u32 user, u32 group, int flag);
int ksys_fchown(unsigned int fd, u32 user, u32 group);
int ksys_truncate(const char *name, loff_t length);
/* The VFS inode's share of a setattr (Linux's setattr_copy): mode, owner,
 * times; not the size.  For a file system's setattr to finish with. */
void setattr_copy(struct inode *inode, const struct iattr *attr);

/*
 * Linux's rw_verify_area: a position is a byte offset, never negative,
 * and the range [pos, pos + count) must be representable in a loff_t.
 * Without this check a position that arrived as a huge unsigned number
 * (an ELF's p_offset, a pread's offset) reaches the file system as a
 * negative loff_t, where "i_size - pos" overflows.  Spindle has no file
 * with unsigned offsets (Linux's /dev/mem), so both are EINVAL.  io_submit
 * and io_uring ask it too (fs/aio.c), before a request is queued: inline,
 * as it is on every read and write.
 */
static inline int rw_verify_area(loff_t pos, size_t count)
{
	loff_t end;

	if (pos < 0 || (ssize_t)count < 0)
		return -EINVAL;
	if (__builtin_add_overflow(pos, (loff_t)count, &end))
		return -EINVAL;
	return 0;
}
/* read_write.c: the read or write of read(2) and write(2), at the file's
 * position, which it moves (io_uring's offset -1 too).  May sleep. */
ssize_t rw_at_fpos(struct file *f, struct iov_iter *it, bool write);

/* readdir.c */
bool dir_emit_dots(struct file *f, struct dir_context *ctx);

/* file.c */
void fs_put_unused_fd(unsigned int fd);
struct files_struct *dup_fd(struct files_struct *old);
void put_files_struct(struct files_struct *files);

/* fs_struct of a task, or a shared one for kernel threads */
void current_root_pwd(struct path *root, struct path *pwd);

/*
 * namei.c: a path name copied in from user space into a PATH_MAX buffer
 * (Linux's getname/putname; an ERR_PTR for EFAULT, ENAMETOOLONG, or
 * ENOENT for "").  A task holds at most one at a time (see getname).
 */
char *getname(const char __user *uname);
void putname(char *name);

/*
 * WITH_NAME(uname, kname, call): copy the user's path uname in as the
 * kernel string kname, evaluate call (which uses kname), free the copy.
 * The copy's own errors are the result when it fails.  The getname/
 * putname pair of every path system call, written once:
 *
 *      return WITH_NAME(pathname, kname, do_rmdir(AT_FDCWD, kname));
 */
#define WITH_NAME(uname, kname, call) ({                    \
	char *kname = getname(uname);                       \
	long __r = IS_ERR(kname) ? PTR_ERR(kname) : (call); \
	if (!IS_ERR(kname))                                 \
		putname(kname);                             \
	__r;                                                \
})

/* namespace.c: a small string argument copied in with kmalloc (Linux's
 * strndup_user); NULL for a NULL pointer */
char *copy_mount_string(const char __user *s);

/* stat.c: is the user's path ""?  1, 0 or -EFAULT (AT_EMPTY_PATH) */
int empty_path(const char __user *filename);

/*
 * Waits that a signal should interrupt (a pipe, the console): true when
 * current has a signal to act on (signal_pending(), kernel/signal.c); the
 * wait then ends with -EINTR (Linux: -ERESTARTSYS and a restart).
 */
bool fs_signal_pending(void);
/* A sigset_t at umask (sigsetsize bytes) as the signal mask for a wait,
 * the caller's back after the handler of the signal that ends it; NULL:
 * none.  0, -EINVAL (a size that is not sigset_t's) or -EFAULT
 * (fs/select.c: ppoll, pselect6, io_uring_enter). */
int set_user_sigmask(const void __user *umask, size_t sigsetsize);

/* ramfs.c: the generic in-memory file system, also used for the root */
int ramfs_fill_super(struct super_block *sb);
extern const struct inode_operations ramfs_dir_inode_operations;
int ramfs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev);

/* libfs-like helpers for the generated files of proc and sysfs (pseudo.c) */
struct pseudo_file {
	/* Fill buf with the whole text; return its length or -errno. */
	int (*show)(struct inode *inode, char *buf, size_t size);
	/* A write of buf (len bytes, NUL-terminated copy); 0 or -errno. */
	int (*store)(struct inode *inode, const char *buf, size_t len);
	size_t size_hint;               /* buffer for show(): 0 = one page */
	/* or, when files of one pseudo_file differ, the inode's (sysfs) */
	size_t (*size_hint_of)(struct inode *inode);
};
extern const struct file_operations pseudo_file_fops;
/* An inode for a generated file; i_private = priv, pf in a side field. */
struct inode *pseudo_new_file(struct super_block *sb, umode_t mode,
			      const struct pseudo_file *pf, void *priv);
struct inode *pseudo_new_dir(struct super_block *sb,
			     const struct inode_operations *iop,
			     const struct file_operations *fop, void *priv);

/* boot (do_mounts.c calls them; host tests too) */
int init_ramfs_fs(void);
int names_cache_init(void);    /* namei.c: the path-name buffers' reserve */
struct pipe_inode_info;
void free_pipe_info(struct pipe_inode_info *pipe);     /* pipe.c */
int fifo_open(struct inode *inode, struct file *f);    /* pipe.c: a FIFO's open */
int init_devtmpfs(void);
int init_proc_fs(void);
int init_sysfs(void);
int init_debugfs(void);
int init_ext2_fs(void); /* ext2/super.c */
/* namespace.c: the mount on dir becomes "/" (root=) */
int mount_move_to_root(const char *dir);
/* initramfs.c: unpack a newc cpio archive into "/"; 0 or -EINVAL/-errno */
int unpack_to_rootfs(const char *buf, size_t len);

/*
 * direct-io.c: O_DIRECT for block devices and files.  map says where the
 * bytes from pos on (len of them, len > 0) live: *sector on the device and
 * *mapped bytes contiguous there (1..len), or *sector == SECTOR_HOLE for
 * *mapped bytes of a hole (read as zeros); write: allocate, never a hole.
 * 0 or -errno.
 */
typedef int (*dio_map_t)(struct inode *inode, loff_t pos, size_t len, bool write,
			 sector_t *sector, size_t *mapped);
/* Offset, length and buffer address all multiples of lbs (Linux's rule). */
bool blkdev_dio_aligned(unsigned int lbs, loff_t pos, size_t count, unsigned long addr);
/*
 * One direct read or write of inode (whose i_mapping caches the same
 * bytes) on bdev, from *pos, no further than limit (a short transfer;
 * a write starting there: -ENOSPC).  The caller checked the alignment.
 * iocb NULL: synchronous, and *pos moves on.  Otherwise asynchronous,
 * from *pos == iocb->ki_pos: -EIOCBQUEUED once a bio is on its way (the
 * result comes through iocb->ki_complete), or the result itself when
 * nothing was sent.
 */
struct kiocb;
/* The set async dios come from, with their first bio; a core_initcall
 * (host tests call it in their setup, after bioset_init(&fs_bio_set)). */
int dio_init(void);
ssize_t generic_direct_IO(struct inode *inode, struct block_device *bdev, struct iov_iter *it,
			  loff_t *pos, bool write, struct kiocb *iocb, dio_map_t map, loff_t limit);

/* block_dev.c */
/* An empty REQ_PREFLUSH write: the device's volatile cache to the media. */
int blkdev_issue_flush(struct block_device *bdev);

/* filemap.c: the page cache's one lock (pagemap.h) */
extern spinlock_t page_cache_lock;

/* proc.c: the texts, for tests */
int proc_meminfo_show(char *buf, size_t size);
int proc_vmstat_show(char *buf, size_t size);
int proc_pid_stat_format(struct task_struct *p, char *buf, size_t size);
/* one line of /proc/<pid>/maps, Linux's layout: the name at column 73 */
#define PROC_MAPS_NAME_COL 74           /* 1-based: after 72 columns and a space */
struct proc_maps_entry {
	unsigned long start, end, flags;        /* flags: VM_READ ... VM_SHARED */
	u64 offset;                             /* in the file */
	dev_t dev;
	unsigned long ino;
	const char *name;                       /* a path, "[heap]", or NULL */
};
int proc_maps_line(char *buf, size_t size, const struct proc_maps_entry *e);

/* tty.c */
struct tty_struct;
struct tty_struct *tty_console(void);
void n_tty_receive_char(struct tty_struct *tty, char c);

struct inode;
int blkdev_open_inode(struct inode *inode, struct file *f);

#endif /* FS_INTERNAL_H */
