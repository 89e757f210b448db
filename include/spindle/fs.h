/* SPDX-License-Identifier: MIT */
/*
 * fs.h - the virtual file system (VFS): the objects every file system
 * shares, and the interface of the file layer to the rest of the kernel.
 *
 * Where it sits: system calls (read, open, mkdir ...) above; below, the
 * file systems (ramfs, devtmpfs, proc, sysfs, pipes) and the block-device
 * files, which turn reads and writes into bios for the block layer.
 *
 *   struct inode        one file: type and mode, size, device number, the
 *                       operations of its file system (i_op, i_fop) and the
 *                       file system's private data.
 *   struct dentry       one name: "usr" inside its parent directory, and
 *                       the inode it names.  Dentries form the tree path
 *                       lookup walks (the "dcache", fs/dcache.c).
 *   struct super_block  one mounted instance of a file system, with its
 *                       root dentry.
 *   struct vfsmount     one place a super_block is mounted (fs/namespace.c).
 *   struct path         (vfsmount, dentry): a name, unambiguous across mounts.
 *   struct file         one open(): the position, the flags, the ops.
 *                       Descriptors (fs/file.c) are indexes into a per-task
 *                       table of struct file pointers.
 *
 * Rules for callers:
 *   - objects are reference counted: dget/dput, mntget/mntput, get_file/
 *     fput.  Whoever keeps a pointer holds a reference.
 *   - path lookup, creation, removal and mounting run under vfs_lock (a
 *     mutex, fs/namei.c); reads and writes of open files do not take it.
 *   - a __user pointer is never dereferenced: iov_iter (uio.h) and the
 *     uaccess.h functions copy.
 *   - functions returning a pointer return ERR_PTR(-errno) on failure.
 */
#ifndef SPINDLE_FS_H
#define SPINDLE_FS_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/list.h>
#include <spindle/mutex.h>
#include <spindle/spinlock.h>
#include <spindle/refcount.h>
#include <spindle/wait.h>
#include <spindle/uio.h>
#include <spindle/err.h>
#include <spindle/errno.h>
#include <spindle/fcntl.h>
#include <spindle/stat.h>
#include <spindle/errseq.h>

struct task_struct;
struct block_device;
struct pipe_inode_info;
struct backing_dev_info;
struct address_space;
struct writeback_control;
struct page;
struct super_block;
struct vfsmount;
struct dentry;
struct inode;
struct file;

#define NAME_MAX        255             /* bytes in one path component */
#define PATH_MAX        4096            /* bytes in a path, with its NUL */
#define NR_OPEN_DEFAULT 64              /* descriptors per task (0..63) */

typedef unsigned int fmode_t;
#define FMODE_READ      0x1u
#define FMODE_WRITE     0x2u
#define FMODE_LSEEK     0x4u            /* lseek makes sense (not a pipe) */
#define FMODE_EXCL      0x8u            /* block device opened with O_EXCL */
#define FMODE_WRITER    0x10u           /* holds mnt_want_write(): no remount ro */

/* --- operations a file system supplies ----------------------------------- */

/*
 * getdents64 fills a buffer through this: iterate() calls dir_emit() for
 * each entry from ctx->pos on, advancing ctx->pos after each, and stops
 * when dir_emit() returns false (the caller's buffer is full).  pos is
 * the file system's own cookie (here: the index of the entry).
 */
struct dir_context;
typedef bool (*filldir_t)(struct dir_context *ctx, const char *name, int len,
			  loff_t pos, u64 ino, unsigned int d_type);
struct dir_context {
	filldir_t actor;
	loff_t pos;
};
static inline bool dir_emit(struct dir_context *ctx, const char *name, int len,
			    u64 ino, unsigned int d_type)
{
	return ctx->actor(ctx, name, len, ctx->pos, ino, d_type);
}

struct vm_area_struct;

struct file_operations {
	loff_t (*llseek)(struct file *f, loff_t offset, int whence);
	ssize_t (*read_iter)(struct file *f, struct iov_iter *to, loff_t *pos);
	ssize_t (*write_iter)(struct file *f, struct iov_iter *from, loff_t *pos);
	int (*iterate)(struct file *f, struct dir_context *ctx);
	long (*unlocked_ioctl)(struct file *f, unsigned int cmd, unsigned long arg);
	int (*fsync)(struct file *f, int datasync);
	int (*open)(struct inode *inode, struct file *f);
	int (*release)(struct inode *inode, struct file *f);
	/* Which of POLLIN, POLLOUT, POLLHUP hold now (does not sleep);
	 * NULL: always readable and writable (fs/select.c).  A file with
	 * one calls poll_notify() whenever the answer may have changed. */
	unsigned int (*poll)(struct file *f);
	/* mmap(2) of the file: check the VMA's flags, set vma->vm_ops (the
	 * fault handler; include/spindle/mm_types.h).  NULL: ENODEV. */
	int (*mmap)(struct file *f, struct vm_area_struct *vma);
	/* fallocate(2): mode's FALLOC_FL_* on [offset, offset + len), both
	 * checked by the VFS.  NULL: EOPNOTSUPP. */
	long (*fallocate)(struct file *f, int mode, loff_t offset, loff_t len);
};

/* poll's event bits (Linux's include/uapi/asm-generic/poll.h) */
#define POLLIN 0x0001
#define POLLPRI 0x0002
#define POLLOUT 0x0004
#define POLLERR 0x0008
#define POLLHUP 0x0010
#define POLLNVAL 0x0020
#define POLLRDNORM 0x0040
#define POLLWRNORM 0x0100
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
/* Wake every task in poll/select to look at its files again. */
void poll_notify(void);

struct iattr;
struct kiocb;

struct inode_operations {
	/* Fill in dentry (d_add) if dir has that name; leave it negative if
	 * not.  Return NULL, or ERR_PTR on a real error. */
	struct dentry *(*lookup)(struct inode *dir, struct dentry *dentry);
	int (*create)(struct inode *dir, struct dentry *dentry, umode_t mode);
	int (*mkdir)(struct inode *dir, struct dentry *dentry, umode_t mode);
	int (*rmdir)(struct inode *dir, struct dentry *dentry);
	int (*unlink)(struct inode *dir, struct dentry *dentry);
	int (*mknod)(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev);
	/* Change the size (O_TRUNC): regular files only. */
	int (*setsize)(struct inode *inode, loff_t size);
	/* A symbolic link's target into buf (size bytes, NUL-terminated):
	 * its length, or -errno.  Path lookup follows it; readlink shows it.
	 * (Linux's get_link returns a pointer; a copy is simpler here.) */
	int (*get_link)(struct inode *inode, char *buf, int size);
	/* stat: after the VFS filled st from the inode, what only the file
	 * system knows (owner and group, three separate times). */
	int (*getattr)(struct inode *inode, struct stat *st);
	/* A second name, dentry (negative) in dir, for old_dentry's inode
	 * (never a directory: the VFS refuses EPERM first). */
	int (*link)(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry);
	/* A symbolic link called dentry (negative) in dir, holding target. */
	int (*symlink)(struct inode *dir, struct dentry *dentry, const char *target);
	/* old_dentry of old_dir takes the name new_dentry in new_dir.  When
	 * new_dentry is positive its inode loses that name (the VFS checked
	 * first: same type family, an empty directory, no loop). */
	int (*rename)(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
		      struct dentry *new_dentry);
	/* chmod, chown, utimensat, truncate: the VFS checked attr; store it
	 * (the VFS inode too: setattr_copy) and write the inode.  Called by
	 * notify_change() with i_mutex held, without vfs_lock. */
	int (*setattr)(struct dentry *dentry, const struct iattr *attr);
};

/* What setattr changes (Linux's ATTR_* bits) and the new values. */
#define ATTR_MODE (1u << 0)
#define ATTR_UID (1u << 1)
#define ATTR_GID (1u << 2)
#define ATTR_SIZE (1u << 3)
#define ATTR_ATIME (1u << 4)
#define ATTR_MTIME (1u << 5)
#define ATTR_CTIME (1u << 6)

struct iattr {
	unsigned int ia_valid; /* ATTR_* */
	umode_t ia_mode;       /* permission bits; the type stays */
	u32 ia_uid, ia_gid;
	loff_t ia_size;
	u64 ia_atime_ns, ia_mtime_ns, ia_ctime_ns;
};

struct super_operations {
	/* The last reference to inode is gone: free what the fs attached. */
	void (*evict_inode)(struct inode *inode);
	/* Mount options for /proc/mounts, each ",key=value"; chars written. */
	int (*show_options)(struct super_block *sb, char *buf, size_t size);
	/* Fill in the sizes of a statfs the VFS has prefilled (type, names). */
	void (*statfs)(struct super_block *sb, struct statfs *buf);
	/* The VFS changed what the file system keeps in its inode (i_size,
	 * i_mtime_ns, i_nlink, i_mode): store it (mark_inode_dirty). */
	void (*dirty_inode)(struct inode *inode);
	/* mount -o remount: *flags the new MS_RDONLY, data the options text;
	 * the VFS has written the files' dirty pages back and refused ro
	 * while files are open for writing.  NULL: only SB_RDONLY changes. */
	int (*remount_fs)(struct super_block *sb, unsigned long *flags, char *data);
	/* syncfs(2), after the files' pages: the fs's own metadata to the
	 * disk (waited for when wait), Linux's name. */
	int (*sync_fs)(struct super_block *sb, int wait);
};

/*
 * How a file's pages meet the disk (Linux's address_space_operations).
 * The page cache (fs/filemap.c) calls these; a file system usually fills
 * them with the mpage_* helpers and its own get_block (pagemap.h).
 *   readpage     read one locked, not-uptodate page; unlock it when done
 *                (SetPageUptodate first if the read worked).  Need not wait.
 *   readpages    the same for nr pages in index order (readahead): as few
 *                bios as the disk layout allows.  Optional.
 *   writepages   write the mapping's dirty pages (wbc says which, and
 *                whether to wait), sorted by block under one plug.
 *   set_page_dirty  mark the page dirty and the mapping with it.  Optional
 *                (NULL: __set_page_dirty_nobuffers).
 *   direct_IO    O_DIRECT: it moves between the disk and the caller's
 *                pages, no cache (fs/direct-io.c's generic_direct_IO).
 *                iocb NULL: synchronous, *pos moves on; otherwise async
 *                (io_submit), from *pos == iocb->ki_pos: -EIOCBQUEUED or
 *                the result now.  Optional: without it open(O_DIRECT)
 *                fails with EINVAL, as Linux's.
 */
struct address_space_operations {
	int (*readpage)(struct file *f, struct page *page);
	int (*readpages)(struct address_space *mapping, struct page **pages, unsigned int nr);
	int (*writepages)(struct address_space *mapping, struct writeback_control *wbc);
	ssize_t (*direct_IO)(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
			     struct kiocb *iocb);
	bool (*set_page_dirty)(struct page *page);
};

/*
 * The cached pages of one inode: a file's data, or a whole block device
 * (its bdev inode).  Pages are found by (mapping, index) in the page
 * hash (fs/filemap.c explains it); i_pages lists them all, for write-back
 * and truncation.  Everything but a_ops and host is under
 * page_cache_lock.
 */
struct address_space {
	struct inode *host;
	struct list_head i_pages;       /* every cached page (page->i_list) */
	unsigned long nrpages;
	unsigned long nrdirty;          /* PageDirty pages */
	unsigned long nrwriteback;      /* PageWriteback pages */
	const struct address_space_operations *a_ops;
	errseq_t wb_err;                /* write-back errors, for fsync (errseq.h) */
	struct backing_dev_info *bdi;   /* its disk's flusher; NULL: none (ramfs) */
	struct block_device *bdev;      /* the device get_block's sectors are on */
	u64 dirtied_when;               /* ns: when its first dirty page was dirtied */
	struct list_head i_wb_list;     /* on bdi->b_dirty while it has dirty pages */
	unsigned int i_blkbits;         /* log2 of its block size (get_block's unit) */
	struct list_head i_mmap;        /* VMAs mapping it (vma->shared), under i_mmap_lock */
};

/* Per open file: where its reader is, for readahead (mm-style, filemap.c). */
struct file_ra_state {
	pgoff_t start;                  /* the current window: first page ... */
	unsigned long size;             /* ... and pages in it */
	unsigned long async_size;       /* read the next window on touching page
					 * start + size - async_size */
	pgoff_t prev_index;             /* the last page read; ~0: none yet */
	unsigned long ra_pages;         /* posix_fadvise's limit: 0, the device's
					 * read_ahead_kb; RA_PAGES_NONE, none */
};
#define RA_PAGES_NONE   (~0UL)          /* POSIX_FADV_RANDOM */

/* --- the objects ---------------------------------------------------------- */

struct inode {
	umode_t i_mode;
	unsigned int i_nlink;
	unsigned long i_ino;
	loff_t i_size;
	u64 i_blocks;                   /* 512-byte units held (st_blocks): ramfs's pages */
	dev_t i_rdev;                   /* device nodes: what they open */
	u64 i_mtime_ns;                 /* last change of data (also atime/ctime) */
	u32 i_uid, i_gid;               /* the owner (chown); ext2 keeps its own */
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop;
	struct mutex i_mutex;           /* serialises writers of the data */
	int i_count;                    /* references (dentries, mostly) */
	struct pipe_inode_info *i_pipe; /* a FIFO's buffer */
	void *i_private;                /* the file system's */
	const void *i_fop_data;         /* generated files: how to make the text */
	const void *i_fop_arg;          /* ... and an argument for it (sysfs: a
					 * tunable's name) */
	struct address_space *i_mapping;        /* its cached pages: &i_data, or
						 * the bdev inode's for a device node */
	struct address_space i_data;
};

/* d_flags */
#define DCACHE_PINNED   0x1u    /* holds a reference on itself: the name lives
				 * in the dcache only (ramfs), until d_delete */
#define DCACHE_HASHED   0x2u    /* on its parent's d_subdirs: findable */

struct dentry {
	char d_name[NAME_MAX + 1];
	struct inode *d_inode;          /* NULL: a negative dentry ("no such") */
	struct dentry *d_parent;        /* the root of a super_block: itself */
	struct list_head d_child;       /* on the parent's d_subdirs */
	struct list_head d_subdirs;
	struct super_block *d_sb;
	int d_count;
	unsigned int d_flags;
	int d_mounted;                  /* mounts on top of this dentry */
	u64 d_seq;                      /* its place among its siblings: never
					 * reused, so getdents resumes right even
					 * after an unlink between two calls */
	u64 d_next_seq;                 /* for the next child */
	void *d_fsdata;                 /* the file system's */
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file_system_type {
	const char *name;
	/* Make (or find) a super_block; return its root, referenced. */
	struct dentry *(*mount)(struct file_system_type *fs_type, int flags,
				const char *dev_name, void *data);
	/* The last mount went away. */
	void (*kill_sb)(struct super_block *sb);
	struct file_system_type *next;
	struct super_block *single_sb;  /* mount_single(): the one instance */
	int fs_flags;                   /* FS_REQUIRES_DEV */
};
#define FS_REQUIRES_DEV 1               /* mounts a block device (/proc/filesystems) */

/* s_flags */
#define SB_PINNED_DENTRIES 0x1u /* names exist only in the dcache (ramfs) */
#define SB_I_NOEXEC     0x2u    /* nothing in it is a program (proc, sysfs), as Linux */
#define SB_RDONLY       0x4u    /* mounted read-only: changes get EROFS */

struct super_block {
	struct file_system_type *s_type;
	const struct super_operations *s_op;
	struct dentry *s_root;
	dev_t s_dev;                    /* an anonymous device number, 0:n */
	unsigned int s_flags;
	unsigned long s_magic;          /* statfs's f_type (Linux's magic.h) */
	unsigned long s_next_ino;
	int s_mounts;                   /* vfsmounts of this super_block */
	int s_writers;                  /* mnt_want_write() holders (namespace.c) */
	bool s_readonly_remount;        /* remount ro under way: new writers get EROFS */
	void *s_fs_info;
};

static inline bool sb_rdonly(const struct super_block *sb)
{
	return sb && (sb->s_flags & SB_RDONLY);
}

struct vfsmount {
	struct dentry *mnt_root;
	struct super_block *mnt_sb;
	struct vfsmount *mnt_parent;    /* the root mount: itself */
	struct dentry *mnt_mountpoint;  /* in mnt_parent */
	struct list_head mnt_list;      /* every mount, in mount order */
	int mnt_count;                  /* 1 while mounted + one per user */
	char mnt_devname[32];           /* mount(2)'s source, for /proc/mounts */
	int mnt_id;                     /* /proc/<pid>/mountinfo's: from 1, never reused */
};

struct file {
	struct path f_path;
	struct inode *f_inode;
	const struct file_operations *f_op;
	unsigned int f_flags;           /* O_* as open(2) got them */
	fmode_t f_mode;
	loff_t f_pos;
	struct mutex f_pos_lock;        /* read/write/lseek of a shared file */
	refcount_t f_count;             /* descriptors and kernel users (an
					 * atomic count, no lock: every CPU's
					 * system calls take and drop it) */
	void *private_data;             /* the file system's or the driver's */
	struct address_space *f_mapping;        /* the pages it reads and writes */
	errseq_t f_wb_err;              /* f_mapping->wb_err when last reported */
	struct file_ra_state f_ra;      /* its readahead window */
	unsigned int f_pipe;            /* a FIFO reader opened with no writer: w_counter then */
};

/* Per task: the descriptor table and the cwd/root. */
struct files_struct {
	spinlock_t file_lock;
	int count;                      /* tasks sharing it (CLONE_FILES); under file_lock */
	struct file *fd[NR_OPEN_DEFAULT];
	u64 close_on_exec;              /* bit n: O_CLOEXEC on fd n */
};

struct fs_struct {
	int users;                      /* tasks sharing it (CLONE_FS); under vfs_lock */
	struct path root, pwd;
};

/* --- inodes and dentries (fs/inode.c, fs/dcache.c) ------------------------ */

void inode_init_always(struct inode *inode);
struct inode *new_inode(struct super_block *sb);
void iput(struct inode *inode);
struct inode *igrab(struct inode *inode);
/* A device node or FIFO: point i_fop at what opening it needs. */
void init_special_inode(struct inode *inode, umode_t mode, dev_t rdev);
u64 fs_now_ns(void);
/* Tell the inode's file system that the VFS changed it (super_operations'
 * dirty_inode); nothing for one that keeps inodes only in memory. */
void mark_inode_dirty(struct inode *inode);

struct dentry *d_alloc(struct dentry *parent, const char *name, int len);
struct dentry *d_make_root(struct inode *root_inode);
void d_instantiate(struct dentry *dentry, struct inode *inode);
void d_add(struct dentry *dentry, struct inode *inode);
/* ramfs: keep this name alive in the dcache until d_delete(). */
void d_pin(struct dentry *dentry);
/* The name is gone (unlink/rmdir): unhash it, drop the pin. */
void d_delete(struct dentry *dentry);
struct dentry *dget(struct dentry *dentry);
void dput(struct dentry *dentry);
/* The hashed child of parent called name, referenced; or NULL. */
struct dentry *d_lookup(struct dentry *parent, const char *name, int len);
/* The child at index n of parent's cached children. */
struct dentry *d_child_at(struct dentry *parent, loff_t n);
/* The first child placed at or after seq (d_seq: ramfs readdir). */
struct dentry *d_child_from(struct dentry *parent, u64 seq);
/* Write the absolute name of path into buf (getcwd); returns the length
 * or -ENAMETOOLONG. */
int d_path(const struct path *path, char *buf, int size);

void path_get(const struct path *path);
void path_put(const struct path *path);

/* --- path lookup and the namespace (fs/namei.c, fs/namespace.c) ----------- */

extern struct mutex vfs_lock;

#define LOOKUP_DIRECTORY 0x1u   /* the last component must be a directory */
#define LOOKUP_PARENT    0x2u   /* stop at the parent of the last component */
#define LOOKUP_NOFOLLOW  0x4u   /* a symbolic link as the last component is the
				 * result, not followed (lstat, readlink); Linux
				 * says it the other way round, LOOKUP_FOLLOW */
#define MAXSYMLINKS      40     /* links followed in one walk before ELOOP */

/* Resolve name (absolute, or relative to dfd / the cwd).  On success
 * *path holds references.  Takes vfs_lock. */
int kern_path(const char *name, unsigned int flags, struct path *path);
int kern_path_at(int dfd, const char *name, unsigned int flags, struct path *path);

int do_mkdirat(int dfd, const char *name, umode_t mode);
int do_rmdir(int dfd, const char *name);
int do_unlinkat(int dfd, const char *name);
int do_mknodat(int dfd, const char *name, umode_t mode, dev_t dev);
int do_mount(const char *dev_name, const char *dir_name, const char *type,
	     unsigned long flags, void *data);
int do_umount(const char *name, int flags);
int do_chdir(const char *name);

int register_filesystem(struct file_system_type *fs);
struct file_system_type *get_fs_type(const char *name);
/* A super_block of type, zeroed, no device number yet (Linux's alloc_super). */
struct super_block *alloc_super(struct file_system_type *type);
/* One without a disk: alloc_super() and an anonymous device number 0:n
 * (get_anon_bdev), which free_anon_super() gives back with the memory. */
struct super_block *sget_anon(struct file_system_type *type);
void free_anon_super(struct super_block *sb);
int get_anon_bdev(dev_t *p);
void free_anon_bdev(dev_t dev);
/* A file system that has one super_block however often it is mounted
 * (proc, sysfs, devtmpfs): fill_super runs the first time. */
struct dentry *mount_single(struct file_system_type *type,
			    int (*fill_super)(struct super_block *sb));
/* A file on a nameless inode of no file system, "anon_inode:<name>" in
 * /proc/<pid>/fd (fs/anon_inodes.c; Linux's anon_inode_getfile): a
 * timerfd's.  priv becomes f->private_data. */
struct file *anon_inode_getfile(const char *name, const struct file_operations *fops,
				void *priv, unsigned int flags);

/* A file of size bytes in no directory, for shared anonymous memory and
 * System V shm (fs/ramfs.c; Linux's shmem_file_setup). */
struct file *shmem_file_setup(const char *name, loff_t size);

/* Mount the root file system (ramfs) at boot. */
int init_mount_tree(void);
/* The namespace's root, referenced (for kernel threads without fs). */
void get_root_path(struct path *root);
/* Each mount as "devname mountpoint type rw 0 0\n" (/proc/mounts). */
int show_mounts(char *buf, size_t size);
/* /proc/<pid>/mountinfo and /proc/filesystems, Linux's layouts */
int show_mountinfo(char *buf, size_t size);
int show_filesystems(char *buf, size_t size);

/* --- open files (fs/open.c, fs/file_table.c, fs/read_write.c) ------------- */

struct file *alloc_file(const struct path *path, unsigned int flags,
			const struct file_operations *fop);
struct file *alloc_file_pseudo(struct inode *inode, const char *name, unsigned int flags,
			       const struct file_operations *fop);
/*
 * f_count is an atomic reference count, as Linux's (atomic_long_t there):
 * it was one spinlock for every file's count, which every CPU's read,
 * write and io_submit took twice (fget, fput) -- a lock shared by all
 * CPUs on every I/O (docs/locking.md, "lock_stat").  A caller may take a
 * reference only while it holds one already or the descriptor table that
 * holds one is locked, so the count is never raised from 0.  Inline, as
 * Linux's: it is one atomic increment, on every I/O's path.
 */
static inline struct file *get_file(struct file *f)
{
	refcount_inc(&f->f_count);
	return f;
}
void fput(struct file *f);
/* Open by kernel path (exec, init): ERR_PTR(-errno) on failure. */
struct file *filp_open(const char *kpath, int flags, umode_t mode);
struct file *file_open_at(int dfd, const char *kpath, int flags, umode_t mode);
struct file *dentry_open(const struct path *path, int flags);
/* A writer of mnt's file system (namespace.c, Linux's names): 0, or EROFS
 * if it is read-only or being remounted read-only; mnt_drop_write ends it. */
int mnt_want_write(struct vfsmount *mnt);
void mnt_drop_write(struct vfsmount *mnt);

ssize_t vfs_read(struct file *f, struct iov_iter *to, loff_t *pos);
ssize_t vfs_write(struct file *f, struct iov_iter *from, loff_t *pos);
/* Kernel reads and writes into kernel buffers (exec, the init script). */
ssize_t kernel_read(struct file *f, void *buf, size_t count, loff_t *pos);
ssize_t kernel_write(struct file *f, const void *buf, size_t count, loff_t *pos);
loff_t vfs_llseek(struct file *f, loff_t offset, int whence);
#define MAX_LFS_FILESIZE ((loff_t)(~0ull >> 1))     /* the largest loff_t */
loff_t vfs_setpos(struct file *f, loff_t base, loff_t offset, loff_t maxsize);
loff_t generic_file_llseek(struct file *f, loff_t offset, int whence);
loff_t no_llseek(struct file *f, loff_t offset, int whence);
int vfs_fsync(struct file *f, int datasync);
int vfs_getattr(struct inode *inode, struct stat *st);
int vfs_statfs(struct super_block *sb, struct statfs *buf);
int vfs_iterate(struct file *f, struct dir_context *ctx);

/* --- descriptors (fs/file.c) ---------------------------------------------- */

struct file *fget(unsigned int fd);     /* referenced, or NULL */
/*
 * fdget/fdput: a descriptor's file for the length of one system call
 * (Linux's __fget_light).  When no other task shares the table, nobody
 * but the caller could close the descriptor meanwhile, so the file is
 * lent without a reference (flags 0) and fdput does nothing.  The caller
 * must fdput before returning to user space, and must neither close the
 * descriptor nor clone the task in between.  .file NULL: EBADF.
 */
struct fd {
	struct file *file;
	unsigned int flags;
};
#define FDPUT_FPUT      1u      /* a reference was taken: fdput drops it */
struct fd fdget(unsigned int fd);
static inline void fdput(struct fd f)
{
	if (f.flags & FDPUT_FPUT)
		fput(f.file);
}
int get_unused_fd_flags(unsigned int flags);
void fd_install(unsigned int fd, struct file *f);
int close_fd(unsigned int fd);
int copy_files(struct task_struct *child, struct task_struct *parent, bool share_files,
	       bool share_fs);
void exit_files(struct task_struct *t);
void files_close_on_exec(struct task_struct *t);
int init_task_files(struct task_struct *t);
/* root=: the disk mounted and made "/" before init starts (fs/do_mounts.c). */
void prepare_namespace(void);

/* --- the kernel-side system calls that take kernel pointers --------------- */

long ksys_read(unsigned int fd, struct iov_iter *to);
long ksys_write(unsigned int fd, struct iov_iter *from);
long ksys_pread(unsigned int fd, struct iov_iter *to, loff_t pos);
long ksys_pwrite(unsigned int fd, struct iov_iter *from, loff_t pos);
long ksys_open(int dfd, const char *name, int flags, umode_t mode);
long ksys_lseek(unsigned int fd, off_t offset, unsigned int whence);
long ksys_dup(unsigned int fd);
long ksys_dup2(unsigned int oldfd, unsigned int newfd);
long ksys_fsync(unsigned int fd, int datasync);
long ksys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg);
long ksys_stat(const char *name, struct stat *st);
long ksys_fstat(unsigned int fd, struct stat *st);
long ksys_lstat(const char *name, struct stat *st);
long ksys_statfs(const char *name, struct statfs *buf);
/* readlink(2) into a kernel buffer: the target's length (not terminated,
 * cut to size), EINVAL if name is not a symbolic link. */
long ksys_readlinkat(int dfd, const char *name, char *buf, int size);
long ksys_fstatfs(unsigned int fd, struct statfs *buf);
long ksys_pipe2(int fds[2], int flags);
long ksys_getdents64(unsigned int fd, void *buf, unsigned int count);
int ksys_getcwd(char *buf, unsigned long size);
void ksys_sync(void);
long ksys_syncfs(unsigned int fd);

/* --- pipes (fs/pipe.c) ---------------------------------------------------- */

int create_pipe_files(struct file **res, int flags);

/* --- block-device files (fs/block_dev.c) ---------------------------------- */

extern const struct file_operations def_blk_fops;
/* Write back every dirty cached block-device page and flush each
 * device's cache (sync(2)); the first error. */
int sync_blockdevs(void);
/* sync(2): every read-write file system's sync_fs (fs/namespace.c) */
void sync_filesystems(void);
/* fsync's answer: the first write-back error of f's mapping since f last
 * asked (or was opened), once; 0 otherwise (errseq.h). */
int file_check_and_advance_wb_err(struct file *f);

/* --- character devices (fs/char_dev.c): major/minor -> file operations ---- */

#define MEM_MAJOR       1       /* /dev/null 1:3, /dev/zero 1:5 */
#define TTYAUX_MAJOR    5       /* /dev/console 5:1 */
const struct file_operations *chrdev_fops(dev_t dev);
extern const struct file_operations tty_fops;
/* The console tty's file, for init_task_files (fs/tty.c). */
struct file *tty_open_console(void);
/* A session leader exits: hang up the console if its session holds it
 * (fs/tty.c, from exit_process). */
void disassociate_ctty(struct task_struct *leader);

#endif /* SPINDLE_FS_H */
