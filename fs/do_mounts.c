// SPDX-License-Identifier: MIT
/*
 * do_mounts.c - the file layer at boot, and the root file system (as
 * Linux's init/do_mounts.c).  Kernel only: it reads the boot loader's
 * module list, the one thing in fs/ that knows about x86 boot.
 *
 *   core_initcall    register the file system types; mount ramfs as "/"
 *   subsys_initcall  unpack the initramfs module into "/", make the mount
 *                    points user init expects (/dev /proc /sys) if the
 *                    archive did not, and copy fw_cfg's opt/spindle/init.sh
 *                    to /etc/init.sh (docs/user.md)
 *
 * Nothing else is mounted: user init mounts proc, sysfs and devtmpfs.
 *
 * root=<device> (Linux's option; "sda1", "/dev/sda1" or "8:1") puts a disk
 * at the root instead, just before init starts (prepare_namespace, once
 * every driver has found its disks): the device is mounted on /root of
 * the initramfs as rootfstype= says (ext2 by default), read-only unless
 * "rw" is given (Linux's default too), then moved to "/", and init is the
 * disk's own /init or /sbin/init.  The initramfs stays underneath, out of
 * reach.  Unlike Linux, which mounts root= only when the initramfs has no
 * /init (Spindle's always has one), and which panics when it cannot: a
 * root= that does not mount is reported and boot goes on from the
 * initramfs.
 */
#include <spindle/fs.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/fw_cfg.h>
#include <spindle/blkdev.h>
#include <spindle/fcntl.h>
#include <asm/bootinfo.h>
#include "internal.h"

#define INIT_SH_MAX     (64 * 1024)     /* bytes of a scenario's init script */


static int __init vfs_init(void)
{
	int err;

	if (names_cache_init())
		panic("VFS: no memory for the path-name reserve");
	init_ramfs_fs();
	init_ext2_fs();
	init_devtmpfs();
	init_proc_fs();
	init_sysfs();
	init_debugfs();
	err = init_mount_tree();
	if (err)
		panic("VFS: cannot mount the root file system (%d)", err);
	pr_info("VFS: mounted root (rootfs filesystem)\n");
	return 0;
}
core_initcall(vfs_init);

/* The first module GRUB loaded, if it looks like a cpio archive. */
static void unpack_initramfs_module(void)
{
	for (int i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		size_t len = m->end - m->start;

		pr_info("initramfs: module %d '%s' at %#llx, %zu bytes\n", i, m->name,
			(unsigned long long)m->start, len);
		unpack_to_rootfs(__va(m->start), len);
	}
}

static void copy_init_script(void)
{
	char *buf = kmalloc(INIT_SH_MAX, GFP_KERNEL);
	struct file *f;
	long len;
	loff_t pos = 0;

	if (!buf)
		return;
	len = fw_cfg_read_file("opt/spindle/init.sh", buf, INIT_SH_MAX);
	if (len < 0)
		goto out;
	if (len > INIT_SH_MAX) {
		pr_warn("init.sh: %ld bytes, only %d copied\n", len, INIT_SH_MAX);
		len = INIT_SH_MAX;
	}
	do_mkdirat(AT_FDCWD, "/etc", 0755); /* EROFS on a read-only root: open says so */
	f = filp_open("/etc/init.sh", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (f == ERR_PTR(-EROFS)) {
		pr_warn("init.sh: read-only root: the disk's own /etc/init.sh is used\n");
		goto out;
	}
	if (IS_ERR(f)) {
		pr_err("init.sh: cannot create /etc/init.sh (%ld)\n", PTR_ERR(f));
		goto out;
	}
	if (kernel_write(f, buf, len, &pos) != len)
		pr_err("init.sh: short write to /etc/init.sh\n");
	else
		pr_info("init.sh: fw_cfg opt/spindle/init.sh -> /etc/init.sh (%ld bytes)\n", len);
	fput(f);
out:
	kfree(buf);
}

static int __init populate_rootfs(void)
{
	static const char *const dirs[] = { "/dev", "/proc", "/sys", "/etc", "/tmp" };

	unpack_initramfs_module();
	for (unsigned int i = 0; i < ARRAY_SIZE(dirs); i++)
		do_mkdirat(AT_FDCWD, dirs[i], 0755);
	copy_init_script();
	return 0;
}
subsys_initcall(populate_rootfs);

/* --- root= -------------------------------------------------------------------- */

static char root_device_name[64];
static char root_fs_type[16] = "ext2";
static unsigned long root_mountflags = MS_RDONLY;

static int root_dev_setup(const char *val)
{
	if (!*val || strlen(val) >= sizeof(root_device_name))
		return -EINVAL;
	strlcpy(root_device_name, val, sizeof(root_device_name));
	return 0;
}
__setup("root=", root_dev_setup);

static int rootfstype_setup(const char *val)
{
	if (!*val || strlen(val) >= sizeof(root_fs_type))
		return -EINVAL;
	strlcpy(root_fs_type, val, sizeof(root_fs_type));
	return 0;
}
__setup("rootfstype=", rootfstype_setup);

static int readonly_setup(const char *val)
{
	(void)val;
	root_mountflags |= MS_RDONLY;
	return 0;
}
__setup("ro", readonly_setup);

static int readwrite_setup(const char *val)
{
	(void)val;
	root_mountflags &= ~MS_RDONLY;
	return 0;
}
__setup("rw", readwrite_setup);

/* Mount root= on /root and make it "/": 0, or -errno (logged). */
static int mount_root(void)
{
	const char *name = root_device_name;
	struct block_device *bdev;
	int err;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	bdev = lookup_bdev(name);
	if (!bdev) {
		pr_err("VFS: Cannot open root device \"%s\": no such block device\n",
		       root_device_name);
		return -ENXIO;
	}
	/* a node for the mount to open, as Linux's create_dev("/dev/root") */
	err = do_mknodat(AT_FDCWD, "/dev/root", S_IFBLK | 0600, bdev->bd_dev);
	if (err && err != -EEXIST)
		goto fail;
	err = do_mkdirat(AT_FDCWD, "/root", 0700);
	if (err && err != -EEXIST)
		goto fail;
	err = do_mount("/dev/root", "/root", root_fs_type, root_mountflags, NULL);
	if (err)
		goto fail;
	err = mount_move_to_root("/root");
	if (err) {
		do_umount("/root", 0);
		goto fail;
	}
	pr_info("VFS: Mounted root (%s filesystem)%s on device %u:%u.\n", root_fs_type,
		root_mountflags & MS_RDONLY ? " readonly" : "", MAJOR(bdev->bd_dev),
		MINOR(bdev->bd_dev));
	return 0;
fail:
	pr_err("VFS: Cannot mount root device \"%s\" as %s (error %d): staying on the "
	       "initramfs\n",
	       root_device_name, root_fs_type, err);
	return err;
}

void prepare_namespace(void)
{
	if (!root_device_name[0])
		return;
	if (mount_root())
		return;
	/* the scenario's script goes to the disk's /etc, if it may be written */
	copy_init_script();
}
