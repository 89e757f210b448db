// SPDX-License-Identifier: MIT
/*
 * initramfs.c - unpack a "newc" cpio archive into the root file system.
 *
 * GRUB loads build/initramfs.cpio next to the kernel (a multiboot2
 * module); at boot its bytes become the first files of "/" (fs/do_mounts.c
 * calls unpack_to_rootfs()).  The format, as `cpio -o -H newc` writes it,
 * is a sequence of entries, each starting on a 4-byte boundary:
 *
 *   offset  size  field (ASCII: 6-byte magic, then 13 fields of 8 hex digits)
 *        0     6  magic "070701" ("070702": the same with a checksum)
 *        6     8  ino        14  mode       22  uid      30  gid
 *       38     8  nlink      46  mtime      54  filesize
 *       62     8  devmajor   70  devminor   78  rdevmajor  86  rdevminor
 *       94     8  namesize (with its NUL)   102  check
 *      110        the name, NUL-terminated, padded so the data starts at 4n
 *                 the data (filesize bytes), padded to 4n
 *
 * and the entry named "TRAILER!!!" ends the archive.  Another archive
 * may follow, after zeroes up to a 4-byte boundary: as in Linux, the
 * buffer is a sequence of archives (that is how a boot loader adds early
 * files to an initramfs), unpacked in order, later files replacing
 * earlier ones of the same name.
 *
 * Each entry is checked completely -- magic, hex digits, the name's NUL,
 * name and data inside the archive -- before anything is made from it,
 * so a malformed archive leaves exactly the entries before the bad one
 * and one log line saying where and why.  Directories, regular files,
 * device nodes, FIFOs and symbolic links (the data is the target) are
 * made; sockets are skipped with a warning.
 *
 * Times: each entry's mtime becomes its file's (Spindle keeps no other),
 * as Linux's initramfs does, so `ls -l` shows when the build made a file.
 * A directory's time is set only once the archives are all unpacked:
 * making its entries would change it again (Linux's dir_utime()).
 *
 * Hard links: newc gives each name of a file with several its own entry,
 * all with the same ino and nlink > 1, and GNU cpio sends the data with
 * the last of them, the others empty.  The first name seen is made as a
 * file and remembered (struct cpio_link); each later one becomes a link
 * to it, and the entry that brings data writes it through its name into
 * the one file.  Inode numbers are an archive's own, so the list is
 * forgotten at each trailer.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include <spindle/time.h>
#include "internal.h"

#define pr_fmt_initramfs "initramfs: "

#define CPIO_HDR_LEN    110
#define CPIO_FIELDS     13
#define CPIO_TRAILER    "TRAILER!!!"

enum cpio_field {
	F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE,
	F_DEVMAJOR, F_DEVMINOR, F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK,
};

struct cpio_entry {
	unsigned long field[CPIO_FIELDS];
	const char *name;               /* NUL-terminated, inside the archive */
	const char *data;
	size_t next;                    /* offset of the following entry */
};

/* 8 hex digits -> *val; false if any is not a hex digit. */
static bool parse_hex8(const char *s, unsigned long *val)
{
	unsigned long v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = (v << 4) | d;
	}
	*val = v;
	return true;
}

/*
 * Check and decode the entry at offset off of buf[0..len).  Returns NULL
 * when it is well-formed, else the reason (for the log line).
 */
const char *cpio_parse_entry(const char *buf, size_t len, size_t off, struct cpio_entry *e)
{
	size_t name_end, data_off, data_end;

	memset(e, 0, sizeof(*e));
	if (len - off < CPIO_HDR_LEN)
		return "truncated header";
	if (memcmp(buf + off, "070701", 6) != 0 && memcmp(buf + off, "070702", 6) != 0)
		return "bad magic (not a newc cpio archive)";
	for (int i = 0; i < CPIO_FIELDS; i++)
		if (!parse_hex8(buf + off + 6 + 8 * i, &e->field[i]))
			return "bad hex digit in header";
	if (e->field[F_NAMESIZE] == 0 || e->field[F_NAMESIZE] > PATH_MAX)
		return "bad name size";
	name_end = off + CPIO_HDR_LEN + e->field[F_NAMESIZE];
	if (name_end > len)
		return "name beyond the end of the archive";
	if (buf[name_end - 1] != '\0' ||
	    memchr(buf + off + CPIO_HDR_LEN, '\0', e->field[F_NAMESIZE] - 1))
		return "name not NUL-terminated";
	if (S_ISLNK(e->field[F_MODE]) &&
	    (e->field[F_FILESIZE] == 0 || e->field[F_FILESIZE] >= PATH_MAX))
		return "bad symbolic link target size";
	data_off = ALIGN(name_end, 4);
	data_end = data_off + e->field[F_FILESIZE];
	if (data_off > len || e->field[F_FILESIZE] > len - data_off)
		return "data beyond the end of the archive";
	if (S_ISLNK(e->field[F_MODE]) && memchr(buf + data_off, '\0', e->field[F_FILESIZE]))
		return "NUL in a symbolic link target";
	e->name = buf + off + CPIO_HDR_LEN;
	e->data = buf + data_off;
	e->next = ALIGN(data_end, 4);
	return NULL;
}

/* "./etc/x" and "/etc/x" -> "/etc/x"; "." and "" -> NULL (the root). */
static bool cpio_path(const char *name, char *path, size_t size)
{
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	while (name[0] == '/')
		name++;
	if (!name[0] || (name[0] == '.' && !name[1]))
		return false;
	return snprintf(path, size, "/%s", name) < (int)size;
}

/* flags: O_CREAT for a new name; without, the data of a hard link just made */
static int cpio_write_file(const char *path, int flags, umode_t mode, const char *data,
			   size_t size)
{
	struct file *f = filp_open(path, O_WRONLY | O_TRUNC | flags, mode & 07777);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = size ? kernel_write(f, data, size, &pos) : 0;
	fput(f);
	if (n < 0)
		return n;
	return (size_t)n == size ? 0 : -ENOSPC;
}

/* A file name of this archive that later entries link to. */
struct cpio_link {
	struct cpio_link *next;
	unsigned long ino, devmajor, devminor;  /* which file, in the archive */
	char path[];
};

static struct cpio_link *cpio_find_link(struct cpio_link *l, const struct cpio_entry *e)
{
	for (; l; l = l->next)
		if (l->ino == e->field[F_INO] && l->devmajor == e->field[F_DEVMAJOR] &&
		    l->devminor == e->field[F_DEVMINOR])
			return l;
	return NULL;
}

static int cpio_remember_link(struct cpio_link **links, const struct cpio_entry *e,
			      const char *path)
{
	size_t len = strlen(path) + 1;
	struct cpio_link *l = kmalloc(sizeof(*l) + len, GFP_KERNEL);

	if (!l)
		return -ENOMEM;
	l->ino = e->field[F_INO];
	l->devmajor = e->field[F_DEVMAJOR];
	l->devminor = e->field[F_DEVMINOR];
	memcpy(l->path, path, len);
	l->next = *links;
	*links = l;
	return 0;
}

static void cpio_forget_links(struct cpio_link **links)
{
	while (*links) {
		struct cpio_link *l = *links;

		*links = l->next;
		kfree(l);
	}
}

/* A directory whose mtime is set at the end (see the top of the file). */
struct cpio_dir {
	struct cpio_dir *next;
	u64 mtime_ns;
	char path[];
};

static void cpio_remember_dir(struct cpio_dir **dirs, const char *path, u64 mtime_ns)
{
	size_t len = strlen(path) + 1;
	struct cpio_dir *d = kmalloc(sizeof(*d) + len, GFP_KERNEL);

	if (!d)
		return;                         /* it keeps the unpack's time: harmless */
	d->mtime_ns = mtime_ns;
	memcpy(d->path, path, len);
	d->next = *dirs;
	*dirs = d;
}

static void cpio_set_dir_times(struct cpio_dir **dirs)
{
	while (*dirs) {
		struct cpio_dir *d = *dirs;

		do_set_mtime(AT_FDCWD, d->path, 0, &d->mtime_ns);
		*dirs = d->next;
		kfree(d);
	}
}

/* A name replaced by a link: whatever an earlier archive left there goes. */
static int cpio_clear(const char *path)
{
	int err = do_unlinkat(AT_FDCWD, path);

	return err == -ENOENT ? 0 : err;
}

/* A regular file with nlink > 1: the first name, or a link to it. */
static int cpio_make_hardlink(const struct cpio_entry *e, const char *path,
			      struct cpio_link **links)
{
	struct cpio_link *l = cpio_find_link(*links, e);
	size_t size = e->field[F_FILESIZE];
	int err;

	if (!l) {
		err = cpio_write_file(path, O_CREAT, e->field[F_MODE], e->data, size);
		return err ? err : cpio_remember_link(links, e, path);
	}
	if (strcmp(l->path, path) == 0)         /* the same name again: a new file */
		return cpio_write_file(path, O_CREAT, e->field[F_MODE], e->data, size);
	err = cpio_clear(path);
	if (!err)
		err = do_linkat(AT_FDCWD, l->path, AT_FDCWD, path, false);
	if (err)
		return err;
	return size ? cpio_write_file(path, 0, e->field[F_MODE], e->data, size) : 0;
}

static int cpio_make_symlink(const struct cpio_entry *e, const char *path)
{
	size_t len = e->field[F_FILESIZE];     /* checked: 1 .. PATH_MAX - 1, no NUL */
	char *target = kmalloc(len + 1, GFP_KERNEL);
	int err;

	if (!target)
		return -ENOMEM;
	memcpy(target, e->data, len);
	target[len] = '\0';
	err = cpio_clear(path);
	if (!err)
		err = do_symlinkat(target, AT_FDCWD, path);
	kfree(target);
	return err;
}

/* Make what one (checked) entry describes. */
static int cpio_make(const struct cpio_entry *e, const char *path, struct cpio_link **links)
{
	umode_t mode = e->field[F_MODE];
	dev_t rdev = MKDEV(e->field[F_RDEVMAJOR], e->field[F_RDEVMINOR]);
	int err;

	switch (mode & S_IFMT) {
	case S_IFDIR:
		err = do_mkdirat(AT_FDCWD, path, mode & 07777);
		return err == -EEXIST ? 0 : err;
	case S_IFREG:
		if (e->field[F_NLINK] > 1)
			return cpio_make_hardlink(e, path, links);
		return cpio_write_file(path, O_CREAT, mode, e->data, e->field[F_FILESIZE]);
	case S_IFLNK:
		return cpio_make_symlink(e, path);
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
		err = do_mknodat(AT_FDCWD, path, mode, rdev);
		return err == -EEXIST ? 0 : err;
	default:
		pr_warn(pr_fmt_initramfs "%s: file type %o not supported, skipped\n",
			path, mode & S_IFMT);
		return 0;
	}
}

int unpack_to_rootfs(const char *buf, size_t len)
{
	/*
	 * Zeroed whole: written in part for each of the archive's hundreds
	 * of entries, a page that still held the firmware's translated code
	 * would send every one of those stores down QEMU's slow path
	 * (notdirty-q35.scn counted 4,560 on it, in one kernel's layout).
	 */
	char *path = kzalloc(PATH_MAX + 1, GFP_KERNEL);
	struct cpio_link *links = NULL;
	struct cpio_dir *dirs = NULL;
	size_t off = 0;
	unsigned int files = 0, archives = 0;
	bool in_archive = false;
	const char *why;
	int err = 0;

	if (!path)
		return -ENOMEM;
	for (;;) {
		struct cpio_entry e;

		if (!in_archive) {
			/* tools pad archives with zeroes after the trailer,
			 * and concatenated archives are padded to 4 bytes */
			while (off < len && buf[off] == '\0')
				off++;
			if (off >= len && archives)
				break;                  /* the last archive ended */
			if (archives && off % 4) {
				why = "archive not on a 4-byte boundary";
				goto bad;
			}
		}
		if (off >= len) {
			why = "no TRAILER!!! entry";
			goto bad;
		}
		why = cpio_parse_entry(buf, len, off, &e);
		if (why)
			goto bad;
		in_archive = true;
		if (strcmp(e.name, CPIO_TRAILER) == 0) {
			archives++;
			in_archive = false;
			cpio_forget_links(&links);
			off = e.next;
			continue;
		}
		if (cpio_path(e.name, path, PATH_MAX + 1)) {
			u64 mtime_ns = (u64)e.field[F_MTIME] * NSEC_PER_SEC;

			err = cpio_make(&e, path, &links);
			if (err) {
				pr_err(pr_fmt_initramfs "cannot make %s: error %d; unpacking stopped\n",
				       path, err);
				goto out;
			}
			if (S_ISDIR(e.field[F_MODE]))
				cpio_remember_dir(&dirs, path, mtime_ns);
			else
				do_set_mtime(AT_FDCWD, path, LOOKUP_NOFOLLOW, &mtime_ns);
			files++;
		}
		off = e.next;
	}
	pr_info(pr_fmt_initramfs "unpacked %u entries from %u archive%s (%zu bytes)\n",
		files, archives, archives == 1 ? "" : "s", len);
	goto out;
bad:
	pr_err(pr_fmt_initramfs "rejected: %s at offset %zu (%u entries unpacked before it)\n",
	       why, off, files);
	err = -EINVAL;
out:
	cpio_set_dir_times(&dirs);
	cpio_forget_links(&links);
	kfree(path);
	return err;
}
