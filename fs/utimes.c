// SPDX-License-Identifier: MIT
/*
 * utimes.c - utimensat(2) (touch), and the initramfs's file times.
 */
#include <spindle/fs.h>
#include <spindle/uaccess.h>
#include "internal.h"

/*
 * utimensat: set a file's modification time (touch).  Spindle keeps one
 * time per inode, the mtime, which stat reports for all three: the second
 * of the two times (mtime) is the one set; UTIME_NOW is now, UTIME_OMIT
 * leaves it.  A NULL path is the descriptor itself (futimens), and
 * AT_SYMLINK_NOFOLLOW sets a symbolic link's own time (touch -h).
 */
#define UTIME_NOW ((1l << 30) - 1l)
#define UTIME_OMIT ((1l << 30) - 2l)

static int set_mtime(const struct path *path, u64 mtime_ns)
{
	struct iattr attr = { .ia_valid = ATTR_MTIME, .ia_mtime_ns = mtime_ns };

	return notify_change_path(path, &attr); /* EROFS on a read-only mount */
}

int do_set_mtime(int dfd, const char *name, unsigned int lookup_flags, const u64 *mtime_ns)
{
	struct path p;
	int err = kern_path_at(dfd, name, lookup_flags, &p);

	if (err)
		return err;
	if (mtime_ns)
		err = set_mtime(&p, *mtime_ns);
	path_put(&p);
	return err;
}

/* utimensat's times[1] as nanoseconds in *ns: 1, 0 (UTIME_OMIT: none)
 * or -EINVAL */
static int utime_to_ns(const struct timespec *t, u64 *ns)
{
	if (t->tv_nsec == UTIME_OMIT)
		return 0;
	if (t->tv_nsec == UTIME_NOW)
		*ns = fs_now_ns();
	else if (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000)
		return -EINVAL;
	else
		*ns = (u64)t->tv_sec * 1000000000ull + t->tv_nsec;
	return 1;
}

long sys_utimensat(int dfd, const char __user *filename, const struct timespec __user *utimes,
		   int flags)
{
	struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	unsigned int lookup = (flags & AT_SYMLINK_NOFOLLOW) ? LOOKUP_NOFOLLOW : 0;
	u64 ns = 0;
	int set;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes && copy_from_user(t, utimes, sizeof(t)))
		return -EFAULT;
	if (t[0].tv_nsec == UTIME_OMIT && t[1].tv_nsec == UTIME_OMIT)
		return 0; /* as Linux: not even the name is looked up */
	set = utime_to_ns(&t[1], &ns);
	if (set < 0)
		return set;
	if (!filename) {
		struct file *f = fget(dfd);
		int err;

		if (!f)
			return -EBADF;
		err = set ? set_mtime(&f->f_path, ns) : 0;
		fput(f);
		return err;
	}
	return WITH_NAME(filename, kname, do_set_mtime(dfd, kname, lookup, set ? &ns : NULL));
}
