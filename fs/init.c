// SPDX-License-Identifier: MIT
/*
 * init.c - the file layer at boot (kernel only: it reads the boot
 * loader's module list, the one thing in fs/ that knows about x86 boot).
 *
 *   core_initcall    register the file system types; mount ramfs as "/"
 *   subsys_initcall  unpack the initramfs module into "/", make the mount
 *                    points user init expects (/dev /proc /sys) if the
 *                    archive did not, and copy fw_cfg's opt/spindle/init.sh
 *                    to /etc/init.sh (docs/user.md)
 *
 * Nothing else is mounted: user init mounts proc, sysfs and devtmpfs.
 */
#include <spindle/fs.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/fw_cfg.h>
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
	do_mkdirat(AT_FDCWD, "/etc", 0755);
	f = filp_open("/etc/init.sh", O_WRONLY | O_CREAT | O_TRUNC, 0755);
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
