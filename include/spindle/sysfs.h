/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - device classes in sysfs: /sys/class/<class>/<device>/<attr>,
 * as Linux's class devices (e.g. /sys/class/nvme/nvme0/model).
 *
 * A driver fills a struct class_device (static or allocated: it must live
 * as long as the kernel, for a class device is never removed) and calls
 * class_device_register().  fs/sysfs.c then shows a directory
 * /sys/class/<class_name>/<name> whose read-only files are the attrs;
 * reading one calls show(drvdata, buf, size), which returns the text's
 * length (with its newline, as Linux's) or -errno.  show() runs in task
 * context and may sleep.  (The disks' /sys/block is the block layer's:
 * include/spindle/blkdev.h.)
 */
#ifndef SPINDLE_SYSFS_H
#define SPINDLE_SYSFS_H

#include <spindle/types.h>
#include <spindle/list.h>

struct class_attr {
	const char *name;
	int (*show)(void *drvdata, char *buf, size_t size);
};

struct class_device {
	const char *class_name;         /* "nvme": the directory under /sys/class */
	char name[16];                  /* "nvme0" */
	const struct class_attr *attrs;
	unsigned int nr_attrs;
	void *drvdata;                  /* handed to each show() */
	struct list_head list;          /* fs/sysfs.c's, under its class_lock */
};

/* Show dev under /sys/class; 0, or -EEXIST for a name its class has. */
int class_device_register(struct class_device *dev);

#endif /* SPINDLE_SYSFS_H */
