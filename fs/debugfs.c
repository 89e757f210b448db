// SPDX-License-Identifier: MIT
/*
 * debugfs.c - debugfs ("debugfs", mounted by the user at
 * /sys/kernel/debug): here only what Linux's blktrace(8) reads,
 *
 *   /sys/kernel/debug/block/<disk>/trace<cpu>   the trace's records
 *   /sys/kernel/debug/block/<disk>/dropped      events lost (decimal)
 *
 * for each disk a BLKTRACESETUP ioctl set up (block/blk-trace.c), until
 * BLKTRACETEARDOWN.  Reading trace0 consumes: each read returns the
 * struct blk_io_trace records of the events no read has returned yet
 * (whole records, as many as fit; 0 when there are none -- it never
 * sleeps), and poll() says POLLIN while some are waiting.  That is how
 * Linux's relay channels behave, but Linux has one channel per CPU, each
 * with the events of its CPU; Spindle's ring is one for the disk, so
 * every record comes from trace0 and the other CPUs' files stay empty
 * (blkparse merges the files by time either way).
 *
 * statfs() says DEBUGFS_MAGIC: blktrace checks it before it starts.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/blktrace.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/err.h>
#include <spindle/printk.h>
#include "internal.h"

#define DEBUGFS_MAGIC   0x64626720

/* --- block/<disk>/trace<cpu> ----------------------------------------------------- */

static ssize_t trace_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct blk_trace *bt = f->f_inode->i_private;
	size_t want = min(iov_iter_count(to), (size_t)(64 * 1024));
	size_t n, copied;
	char *buf;

	if (!want)
		return 0;
	buf = kmalloc(want, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	n = blk_trace_consume(bt, buf, want);
	copied = n ? copy_to_iter(buf, n, to) : 0;
	kfree(buf);
	if (copied < n)
		return -EFAULT;         /* those records are gone, as Linux's relay read */
	*pos += copied;
	return copied;
}

/* Nothing to sleep for: blktrace polls with a timeout and reads again. */
static unsigned int trace_poll(struct file *f)
{
	return blk_trace_unread(f->f_inode->i_private) ? POLLIN | POLLRDNORM : 0;
}

static const struct file_operations trace_fops = {
	.read_iter = trace_read,
	.poll = trace_poll,
};

/* the other CPUs' files: always empty */
static ssize_t empty_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	(void)f; (void)to; (void)pos;
	return 0;
}

static unsigned int empty_poll(struct file *f)
{
	(void)f;
	return 0;
}

static const struct file_operations empty_fops = {
	.read_iter = empty_read,
	.poll = empty_poll,
};

static int dropped_show(struct inode *inode, char *buf, size_t size)
{
	struct blk_trace *bt = inode->i_private;

	return scnprintf(buf, size, "%u\n", READ_ONCE(bt->dropped));
}

static const struct pseudo_file dropped_file = { .show = dropped_show };

/* "trace<cpu>" -> cpu, or -1 */
static int trace_cpu(const char *name)
{
	unsigned int cpu = 0;

	if (strncmp(name, "trace", 5) != 0 || !name[5] || (name[5] == '0' && name[6]))
		return -1;
	for (name += 5; *name; name++) {
		if (*name < '0' || *name > '9' || cpu >= nr_cpu_ids)
			return -1;
		cpu = cpu * 10 + (unsigned int)(*name - '0');
	}
	return cpu < nr_cpu_ids ? (int)cpu : -1;
}

static struct dentry *disk_lookup(struct inode *dir, struct dentry *dentry)
{
	struct blk_trace *bt = dir->i_private;
	int cpu = trace_cpu(dentry->d_name);
	struct inode *inode;

	if (strcmp(dentry->d_name, "dropped") == 0) {
		inode = pseudo_new_file(dir->i_sb, 0444, &dropped_file, bt);
	} else if (cpu >= 0) {
		inode = new_inode(dir->i_sb);
		if (inode) {
			inode->i_mode = S_IFREG | 0400;
			inode->i_fop = cpu == 0 ? &trace_fops : &empty_fops;
			inode->i_private = bt;
		}
	} else {
		return NULL;
	}
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

/* trace0 .. trace<n-1>, then dropped */
static int disk_iterate(struct file *f, struct dir_context *ctx)
{
	char name[16];

	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)nr_cpu_ids) {
		int n = scnprintf(name, sizeof(name), "trace%u", (unsigned int)(ctx->pos - 2));

		if (!dir_emit(ctx, name, n, 100 + ctx->pos, DT_REG))
			return 0;
	}
	if (ctx->pos - 2 == (loff_t)nr_cpu_ids)
		dir_emit(ctx, "dropped", 7, 100 + ctx->pos, DT_REG);
	return 0;
}

static const struct inode_operations disk_dir_iops = { .lookup = disk_lookup };
static const struct file_operations disk_dir_fops = { .iterate = disk_iterate };

/* --- block/: one directory per set-up trace -------------------------------------- */

static struct dentry *block_lookup(struct inode *dir, struct dentry *dentry)
{
	struct blk_trace *bt = blk_trace_lookup(dentry->d_name);
	struct inode *inode;

	if (!bt)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &disk_dir_iops, &disk_dir_fops, bt);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int block_iterate(struct file *f, struct dir_context *ctx)
{
	char name[32];

	if (!dir_emit_dots(f, ctx))
		return 0;
	while (blk_trace_nth_name((unsigned int)(ctx->pos - 2), name))
		if (!dir_emit(ctx, name, strlen(name), 200 + ctx->pos, DT_DIR))
			break;
	return 0;
}

static const struct inode_operations block_dir_iops = { .lookup = block_lookup };
static const struct file_operations block_dir_fops = { .iterate = block_iterate };

/* --- the root -------------------------------------------------------------------- */

static struct dentry *debugfs_root_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode;

	if (strcmp(dentry->d_name, "block") != 0)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &block_dir_iops, &block_dir_fops, NULL);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int debugfs_root_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	if (ctx->pos == 2)
		dir_emit(ctx, "block", 5, 3, DT_DIR);
	return 0;
}

static const struct inode_operations debugfs_root_iops = { .lookup = debugfs_root_lookup };
static const struct file_operations debugfs_root_fops = { .iterate = debugfs_root_iterate };

static int debugfs_fill_super(struct super_block *sb)
{
	sb->s_magic = DEBUGFS_MAGIC;
	sb->s_flags |= SB_I_NOEXEC;
	sb->s_root = d_make_root(pseudo_new_dir(sb, &debugfs_root_iops, &debugfs_root_fops, NULL));
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *debugfs_mount(struct file_system_type *type, int flags,
				   const char *dev_name, void *data)
{
	(void)flags; (void)dev_name; (void)data;
	return mount_single(type, debugfs_fill_super);
}

static struct file_system_type debugfs_fs_type = {
	.name = "debugfs", .mount = debugfs_mount,
};

int init_debugfs(void)
{
	return register_filesystem(&debugfs_fs_type);
}
