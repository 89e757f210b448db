// SPDX-License-Identifier: MIT
/*
 * ioctl.c - ioctl(2): the commands every descriptor understands, then
 * the file's own (block devices: BLK..., the console: TC... and TIOC...).
 */
#include <spindle/fs.h>
#include <spindle/sched.h>
#include <uapi/asm/ioctls.h>
#include "internal.h"

long ksys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	if (cmd == FIOCLEX || cmd == FIONCLEX) {
		struct files_struct *files = current->files;

		spin_lock(&files->file_lock);
		if (cmd == FIOCLEX)
			files->close_on_exec |= 1ull << fd;
		else
			files->close_on_exec &= ~(1ull << fd);
		spin_unlock(&files->file_lock);
		ret = 0;
	} else if (f->f_op && f->f_op->unlocked_ioctl) {
		ret = f->f_op->unlocked_ioctl(f, cmd, arg);
	} else {
		ret = -ENOTTY;                  /* "inappropriate ioctl for device" */
	}
	fput(f);
	return ret;
}

long sys_ioctl(unsigned int fd, unsigned int cmd, unsigned long arg)
{
	return ksys_ioctl(fd, cmd, arg);
}
