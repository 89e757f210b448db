/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/magic.h - statfs(2)'s f_type of each file system Spindle has,
 * Linux's magic numbers: the one list the kernel (include/spindle/stat.h)
 * and the C library (user/include/sys/statfs.h) both include.
 */
#ifndef _UAPI_LINUX_MAGIC_H
#define _UAPI_LINUX_MAGIC_H

#define RAMFS_MAGIC             0x858458f6
#define TMPFS_MAGIC             0x01021994
#define PROC_SUPER_MAGIC        0x9fa0
#define SYSFS_MAGIC             0x62656572
#define PIPEFS_MAGIC            0x50495045
#define EXT2_SUPER_MAGIC        0xEF53

#endif /* _UAPI_LINUX_MAGIC_H */
