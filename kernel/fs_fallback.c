/*
 * fs_fallback.c - weak stand-ins for what fs/ provides (issue 7,
 * contracts 2-4), so that the process code builds and runs alone.  fs's
 * strong definitions replace every one of them when the two are linked
 * together; nothing here is used then.
 *
 * Until then: no files (filp_open says -ENOENT), and one special case so
 * that user programs can report -- write() to fd 1 or 2 goes to the
 * console.  Every other file system call is -ENOSYS.
 */
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/errno.h>
#include <spindle/printk.h>

struct file;

struct file * __weak filp_open(const char *path, int flags, umode_t mode)
{
	(void)path; (void)flags; (void)mode;
	return (struct file *)(long)-ENOENT;
}

ssize_t __weak kernel_read(struct file *f, void *buf, size_t count, loff_t *pos)
{
	(void)f; (void)buf; (void)count; (void)pos;
	return -EINVAL;
}

void __weak fput(struct file *f) { (void)f; }
int __weak copy_files(struct task_struct *child, struct task_struct *parent)
{
	(void)child; (void)parent;
	return 0;
}
void __weak exit_files(struct task_struct *t) { (void)t; }
void __weak files_close_on_exec(struct task_struct *t) { (void)t; }
int __weak init_task_files(struct task_struct *t) { (void)t; return 0; }
void __weak ksys_sync(void) { }

#define CONSOLE_CHUNK   256
#define CONSOLE_WRITE_MAX  (64 * 1024)  /* per call; the caller loops */

long __weak sys_write(unsigned int fd, const char __user *buf, size_t count)
{
	char chunk[CONSOLE_CHUNK];
	size_t done = 0;

	if (fd != 1 && fd != 2)
		return -EBADF;
	count = min_t(size_t, count, CONSOLE_WRITE_MAX);
	while (done < count) {
		size_t n = min_t(size_t, count - done, sizeof(chunk));

		if (copy_from_user(chunk, buf + done, n))
			return done ? (long)done : -EFAULT;
		printk("%.*s", (int)n, chunk);
		done += n;
	}
	return done;
}


long __weak sys_read(unsigned int fd, char __user *buf, size_t count)
{ (void)fd; (void)buf; (void)count; return -ENOSYS; }
long __weak sys_open(const char __user *filename, int flags, umode_t mode)
{ (void)filename; (void)flags; (void)mode; return -ENOSYS; }
long __weak sys_close(unsigned int fd) { (void)fd; return -ENOSYS; }
long __weak sys_stat(const char __user *filename, struct stat __user *statbuf)
{ (void)filename; (void)statbuf; return -ENOSYS; }
long __weak sys_fstat(unsigned int fd, struct stat __user *statbuf)
{ (void)fd; (void)statbuf; return -ENOSYS; }
long __weak sys_lstat(const char __user *filename, struct stat __user *statbuf)
{ (void)filename; (void)statbuf; return -ENOSYS; }
long __weak sys_lseek(unsigned int fd, off_t offset, unsigned int whence)
{ (void)fd; (void)offset; (void)whence; return -ENOSYS; }
long __weak sys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg)
{ (void)fd; (void)cmd; (void)arg; return -ENOSYS; }
long __weak sys_pread64(unsigned int fd, char __user *buf, size_t count, loff_t pos)
{ (void)fd; (void)buf; (void)count; (void)pos; return -ENOSYS; }
long __weak sys_pwrite64(unsigned int fd, const char __user *buf, size_t count, loff_t pos)
{ (void)fd; (void)buf; (void)count; (void)pos; return -ENOSYS; }
long __weak sys_pipe(int __user *fildes) { (void)fildes; return -ENOSYS; }
long __weak sys_dup(unsigned int fildes) { (void)fildes; return -ENOSYS; }
long __weak sys_dup2(unsigned int oldfd, unsigned int newfd)
{ (void)oldfd; (void)newfd; return -ENOSYS; }
long __weak sys_fsync(unsigned int fd) { (void)fd; return -ENOSYS; }
long __weak sys_fdatasync(unsigned int fd) { (void)fd; return -ENOSYS; }
long __weak sys_getcwd(char __user *buf, unsigned long size)
{ (void)buf; (void)size; return -ENOSYS; }
long __weak sys_chdir(const char __user *filename) { (void)filename; return -ENOSYS; }
long __weak sys_mkdir(const char __user *pathname, umode_t mode)
{ (void)pathname; (void)mode; return -ENOSYS; }
long __weak sys_rmdir(const char __user *pathname) { (void)pathname; return -ENOSYS; }
long __weak sys_unlink(const char __user *pathname) { (void)pathname; return -ENOSYS; }
long __weak sys_sync(void) { return -ENOSYS; }
long __weak sys_mount(char __user *dev_name, char __user *dir_name, char __user *type,
		      unsigned long flags, void __user *data)
{ (void)dev_name; (void)dir_name; (void)type; (void)flags; (void)data; return -ENOSYS; }
long __weak sys_umount2(char __user *name, int flags) { (void)name; (void)flags; return -ENOSYS; }
long __weak sys_getdents64(unsigned int fd, struct linux_dirent64 __user *dirent,
			   unsigned int count)
{ (void)fd; (void)dirent; (void)count; return -ENOSYS; }
long __weak sys_openat(int dfd, const char __user *filename, int flags, umode_t mode)
{ (void)dfd; (void)filename; (void)flags; (void)mode; return -ENOSYS; }
long __weak sys_pipe2(int __user *fildes, int flags) { (void)fildes; (void)flags; return -ENOSYS; }
