// SPDX-License-Identifier: MIT
/*
 * file.c - descriptor tables: the small integers a process holds.
 *
 * current->files->fd[n] is the struct file behind descriptor n (at most
 * NR_OPEN_DEFAULT = 64 of them); the lowest free number is handed out
 * first, as POSIX requires (that is how "close(1); open(...)" redirects
 * stdout).  A bit per descriptor says O_CLOEXEC: exec closes it.
 *
 * What the process layer calls (kernel/fork.c, exit.c, exec.c):
 *   copy_files(child, parent, share_files, share_fs)
 *                               fork: a copy of the table (each file gets
 *                               one more reference) and of cwd/root; a
 *                               thread (CLONE_FILES, CLONE_FS): the
 *                               parent's own, one more user each
 *   exit_files(t)               exit: close everything, drop cwd/root
 *   files_close_on_exec(t)      exec: close the O_CLOEXEC ones
 *   init_task_files(t)          the first process: 0, 1, 2 on /dev/console,
 *                               cwd and root "/"
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include "internal.h"

static struct files_struct *alloc_files(void)
{
	struct files_struct *files = kzalloc(sizeof(*files), GFP_KERNEL);

	if (files) {
		spin_lock_init(&files->file_lock);
		files->count = 1;
	}
	return files;
}

/*
 * The file at fd in a table no other task shares (count 1), read without
 * its lock: count grows only by this task's own clone(CLONE_FILES), and
 * the table changes only by this task -- busy in the caller's system
 * call -- so if count is 1 now, it stays 1 until the call returns, and so
 * does fd[fd].  A slot reserved by an open still in progress holds an
 * error pointer: not a file yet (openat(fd, ...) naming it found one).
 */
static struct file *fd_unshared(struct files_struct *files, unsigned int fd)
{
	struct file *f = READ_ONCE(files->fd[fd]);

	return f && !IS_ERR(f) ? f : NULL;
}

struct file *fget(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *f = NULL;

	if (!files || fd >= NR_OPEN_DEFAULT)
		return NULL;
	/* unshared: no lock; the file's reference is still taken, as it
	 * outlives the call */
	if (READ_ONCE(files->count) == 1) {
		f = fd_unshared(files, fd);
		return f ? get_file(f) : NULL;
	}
	spin_lock(&files->file_lock);
	if (files->fd[fd] && !IS_ERR(files->fd[fd]))
		f = get_file(files->fd[fd]);
	spin_unlock(&files->file_lock);
	return f;
}

/*
 * The file at fd for the rest of a system call (Linux's fdget, its
 * __fget_light): when no other task shares the table (count 1), only the
 * caller could close fd or share the table meanwhile, and it is busy in
 * this system call -- so the table's own reference keeps the file, and
 * none is taken (no lock, no atomic).  A shared table: as fget.  The
 * caller must not close a descriptor, nor clone, before fdput().
 */
struct fd fdget(unsigned int fd)
{
	struct files_struct *files = current->files;

	if (!files || READ_ONCE(files->count) != 1)
		return (struct fd){ fget(fd), FDPUT_FPUT };
	if (fd >= NR_OPEN_DEFAULT)
		return (struct fd){ NULL, 0 };
	return (struct fd){ fd_unshared(files, fd), 0 };
}

/* The lowest free descriptor >= start; -EMFILE when the table is full. */
static int __alloc_fd(struct files_struct *files, unsigned int start, unsigned int flags)
{
	assert_spin_locked(&files->file_lock);
	for (unsigned int fd = start; fd < NR_OPEN_DEFAULT; fd++)
		if (!files->fd[fd]) {
			/* reserve it until fd_install: a placeholder nobody can use */
			files->fd[fd] = ERR_PTR(-EBADF);
			if (flags & O_CLOEXEC)
				files->close_on_exec |= 1ull << fd;
			else
				files->close_on_exec &= ~(1ull << fd);
			return fd;
		}
	return -EMFILE;
}

int get_unused_fd_flags(unsigned int flags)
{
	struct files_struct *files = current->files;
	int fd;

	if (!files)
		return -EMFILE;
	spin_lock(&files->file_lock);
	fd = __alloc_fd(files, 0, flags);
	spin_unlock(&files->file_lock);
	return fd;
}

static void put_unused_fd(unsigned int fd)
{
	struct files_struct *files = current->files;

	spin_lock(&files->file_lock);
	files->fd[fd] = NULL;
	spin_unlock(&files->file_lock);
}

void fd_install(unsigned int fd, struct file *f)
{
	struct files_struct *files = current->files;

	spin_lock(&files->file_lock);
	files->fd[fd] = f;
	spin_unlock(&files->file_lock);
}

/* Take fd out of the table; the caller fputs what comes back. */
static struct file *pick_file(struct files_struct *files, unsigned int fd)
{
	struct file *f = NULL;

	if (fd >= NR_OPEN_DEFAULT)
		return NULL;
	spin_lock(&files->file_lock);
	f = files->fd[fd];
	if (IS_ERR(f))
		f = NULL;               /* being opened: not closable yet */
	if (f) {
		files->fd[fd] = NULL;
		files->close_on_exec &= ~(1ull << fd);
	}
	spin_unlock(&files->file_lock);
	return f;
}

int close_fd(unsigned int fd)
{
	struct file *f;

	if (!current->files)
		return -EBADF;
	f = pick_file(current->files, fd);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

long sys_close(unsigned int fd)
{
	return close_fd(fd);
}

long ksys_dup(unsigned int oldfd)
{
	struct file *f = fget(oldfd);
	int fd;

	if (!f)
		return -EBADF;
	fd = get_unused_fd_flags(0);
	if (fd < 0) {
		fput(f);
		return fd;
	}
	fd_install(fd, f);              /* the reference fget took */
	return fd;
}

long ksys_dup2(unsigned int oldfd, unsigned int newfd)
{
	struct files_struct *files = current->files;
	struct file *f, *old;

	if (newfd >= NR_OPEN_DEFAULT)
		return -EBADF;
	f = fget(oldfd);
	if (!f)
		return -EBADF;
	if (oldfd == newfd) {           /* POSIX: a no-op that checks oldfd */
		fput(f);
		return newfd;
	}
	spin_lock(&files->file_lock);
	old = files->fd[newfd];
	if (IS_ERR(old)) {              /* being opened by another thread */
		spin_unlock(&files->file_lock);
		fput(f);
		return -EBUSY;
	}
	files->fd[newfd] = f;
	files->close_on_exec &= ~(1ull << newfd);
	spin_unlock(&files->file_lock);
	fput(old);                      /* close what was there, silently */
	return newfd;
}

long sys_dup(unsigned int fildes) { return ksys_dup(fildes); }
long sys_dup2(unsigned int oldfd, unsigned int newfd) { return ksys_dup2(oldfd, newfd); }

/* dup3: dup2 with O_CLOEXEC for the new descriptor, and no same-fd no-op */
long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	long ret;

	if ((flags & ~O_CLOEXEC) || oldfd == newfd)
		return -EINVAL;
	ret = ksys_dup2(oldfd, newfd);
	if (ret >= 0 && (flags & O_CLOEXEC)) {
		spin_lock(&current->files->file_lock);
		current->files->close_on_exec |= 1ull << newfd;
		spin_unlock(&current->files->file_lock);
	}
	return ret;
}

/* fcntl's commands (Linux's include/uapi/asm-generic/fcntl.h) */
#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
/* what F_SETFL may change: Linux's SETFL_MASK but FASYNC (no SIGIO here) */
#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME)

/* the lowest free descriptor >= start, for f (which gains a reference) */
static long dupfd_from(struct file *f, unsigned long start, unsigned int flags)
{
	struct files_struct *files = current->files;
	int fd;

	if (start >= NR_OPEN_DEFAULT)
		return -EINVAL;
	spin_lock(&files->file_lock);
	fd = __alloc_fd(files, start, flags);
	spin_unlock(&files->file_lock);
	if (fd >= 0)
		fd_install(fd, get_file(f));
	return fd;
}

/*
 * F_SETFL, Linux's setfl(): the status flags of SETFL_MASK become arg's,
 * the others stay as open() set them.  O_DIRECT is refused (EINVAL) on a
 * file with no way round the cache, as open(O_DIRECT) is; a pipe takes it
 * and ignores it, as pipe2() does (Linux's packet mode is not here).
 * O_NOATIME changes nothing else: Spindle never updates atime on a read.
 * busybox dd clears O_DIRECT this way to read a file's unaligned tail.
 */
static long setfl(struct file *f, unsigned long arg)
{
	unsigned int old = READ_ONCE(f->f_flags), new;

	if (f->f_inode && S_ISFIFO(f->f_inode->i_mode))
		arg &= ~(unsigned long)O_DIRECT;
	else if ((arg & O_DIRECT) && !(f->f_mapping && f->f_mapping->a_ops &&
				       f->f_mapping->a_ops->direct_IO))
		return -EINVAL;
	/* two tasks sharing the file may set flags at once (Linux takes
	 * f_lock); nothing else writes f_flags after open, so one
	 * compare-and-swap keeps both from losing the other's bits */
	do
		new = (old & ~SETFL_MASK) | ((unsigned int)arg & SETFL_MASK);
	while (!__atomic_compare_exchange_n(&f->f_flags, &old, new, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return 0;
}

/*
 * fcntl: the descriptor's flag (close-on-exec), the file's status flags,
 * and duplicating onto the lowest free number from arg up (how a shell
 * saves a descriptor above the ones a script uses, e.g. 10).  Locks and
 * the rest: -EINVAL, as Linux for a command it does not know.
 */
long sys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg)
{
	struct files_struct *files = current->files;
	struct file *f = fget(fd);
	long ret = 0;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		ret = dupfd_from(f, arg, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
		break;
	case F_GETFD:
		ret = (files->close_on_exec >> fd) & 1 ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		spin_lock(&files->file_lock);
		if (arg & FD_CLOEXEC)
			files->close_on_exec |= 1ull << fd;
		else
			files->close_on_exec &= ~(1ull << fd);
		spin_unlock(&files->file_lock);
		break;
	case F_GETFL:
		ret = f->f_flags;
		break;
	case F_SETFL:
		ret = setfl(f, arg);
		break;
	default:
		ret = -EINVAL;
	}
	fput(f);
	return ret;
}

/* --- whole tables: fork, exit, exec --------------------------------------- */

struct files_struct *dup_fd(struct files_struct *old)
{
	struct files_struct *files = alloc_files();

	if (!files)
		return NULL;
	spin_lock(&old->file_lock);
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f = old->fd[fd];

		if (f && !IS_ERR(f))
			files->fd[fd] = get_file(f);
	}
	files->close_on_exec = old->close_on_exec;
	spin_unlock(&old->file_lock);
	return files;
}

void put_files_struct(struct files_struct *files)
{
	int left;

	/* the threads sharing the table exit on several CPUs at once */
	spin_lock(&files->file_lock);
	left = --files->count;
	spin_unlock(&files->file_lock);
	if (left > 0)
		return;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f = pick_file(files, fd);

		if (f)
			fput(f);
	}
	kfree(files);
}

static struct fs_struct *copy_fs_struct(const struct path *root, const struct path *pwd)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs), GFP_KERNEL);

	if (!fs)
		return NULL;
	fs->users = 1;
	fs->root = *root;
	fs->pwd = *pwd;
	path_get(&fs->root);
	path_get(&fs->pwd);
	return fs;
}

static void free_fs_struct(struct fs_struct *fs)
{
	int left;

	/* users: the threads sharing it (CLONE_FS), under the lock chdir
	 * changes the paths under */
	mutex_lock(&vfs_lock);
	left = --fs->users;
	mutex_unlock(&vfs_lock);
	if (left > 0)
		return;
	path_put(&fs->root);
	path_put(&fs->pwd);
	kfree(fs);
}

int copy_files(struct task_struct *child, struct task_struct *parent, bool share_files,
	       bool share_fs)
{
	struct path root, pwd;

	child->files = NULL;
	child->fs = NULL;
	if (share_files && parent->files) {
		spin_lock(&parent->files->file_lock);
		parent->files->count++;
		spin_unlock(&parent->files->file_lock);
		child->files = parent->files;
	} else if (parent->files) {
		child->files = dup_fd(parent->files);
		if (!child->files)
			return -ENOMEM;
	}
	if (parent->fs) {
		root = parent->fs->root;
		pwd = parent->fs->pwd;
	} else if (root_mnt) {
		root.mnt = pwd.mnt = root_mnt;
		root.dentry = pwd.dentry = root_mnt->mnt_root;
	} else {
		return 0;
	}
	if (share_fs && parent->fs) {
		mutex_lock(&vfs_lock);
		parent->fs->users++;
		mutex_unlock(&vfs_lock);
		child->fs = parent->fs;
		return 0;
	}
	child->fs = copy_fs_struct(&root, &pwd);
	if (!child->fs) {
		if (child->files)
			put_files_struct(child->files);
		child->files = NULL;
		return -ENOMEM;
	}
	return 0;
}

void exit_files(struct task_struct *t)
{
	struct files_struct *files;
	struct fs_struct *fs;

	/* under task_lock, as Linux's exit_files(): /proc/<pid>/fd and cwd
	 * read another task's tables */
	task_lock(t);
	files = t->files;
	fs = t->fs;
	t->files = NULL;
	t->fs = NULL;
	task_unlock(t);
	if (files)
		put_files_struct(files);
	if (fs)
		free_fs_struct(fs);
}

void files_close_on_exec(struct task_struct *t)
{
	struct files_struct *files = t->files;

	if (!files)
		return;
	for (int fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f;

		if (!(files->close_on_exec & (1ull << fd)))
			continue;
		f = pick_file(files, fd);
		if (f)
			fput(f);
	}
}

int init_task_files(struct task_struct *t)
{
	struct path root;
	struct file *con;

	if (!root_mnt)
		return -ENOENT;
	exit_files(t);
	t->files = alloc_files();
	if (!t->files)
		return -ENOMEM;
	get_root_path(&root);
	t->fs = copy_fs_struct(&root, &root);
	path_put(&root);
	if (!t->fs) {
		exit_files(t);
		return -ENOMEM;
	}
	/* stdin, stdout, stderr: the console, opened without a path (nothing
	 * is mounted on /dev yet when the first process starts) */
	con = tty_open_console();
	if (IS_ERR(con)) {
		exit_files(t);
		return PTR_ERR(con);
	}
	t->files->fd[0] = con;
	t->files->fd[1] = get_file(con);
	t->files->fd[2] = get_file(con);
	return 0;
}

/* kept for the syscall code: release a reserved but unused descriptor */
void fs_put_unused_fd(unsigned int fd) { put_unused_fd(fd); }
