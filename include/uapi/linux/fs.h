/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/fs.h - the block-device ioctls, Linux's numbers (its
 * include/uapi/linux/fs.h: _IO(0x12, n), and _IOR(0x12, 114, size_t) for
 * BLKGETSIZE64): the one list fs/block_dev.c and the C library
 * (user/include/sys/ioctl.h) both include; and preadv2's RWF_* flags
 * (fs/read_write.c, user/include/sys/uio.h).
 */
#ifndef _UAPI_LINUX_FS_H
#define _UAPI_LINUX_FS_H

#define BLKRRPART       0x125f          /* re-read the partition table */
#define BLKGETSIZE      0x1260          /* size in 512-byte sectors (unsigned long) */
#define BLKFLSBUF       0x1261          /* write back and drop the device's cache */
#define BLKSSZGET       0x1268          /* logical block size (int) */
#define BLKGETSIZE64    0x80081272      /* size in bytes (u64) */
#define BLKDISCARD      0x1277          /* discard u64 range[2] = {start, len} bytes */
#define BLKZEROOUT      0x127f          /* write zeroes over u64 range[2] */
#define BLKIOMIN        0x1278          /* minimum I/O size in bytes (unsigned int) */
#define BLKIOOPT        0x1279          /* optimal I/O size in bytes, 0: none (unsigned int) */
#define BLKALIGNOFF     0x127a          /* alignment offset in bytes (int) */
#define BLKPBSZGET      0x127b          /* physical block size in bytes (unsigned int) */

/* preadv2/pwritev2's flags (Linux's rwf_t, RWF_*) */
#define RWF_HIPRI       0x00000001      /* high priority: poll for the completion */
#define RWF_DSYNC       0x00000002      /* per-write O_DSYNC */
#define RWF_SYNC        0x00000004      /* per-write O_SYNC */
#define RWF_NOWAIT      0x00000008      /* do not wait for data not there at once */
#define RWF_APPEND      0x00000010      /* per-write O_APPEND */
#define RWF_SUPPORTED   (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

#endif /* _UAPI_LINUX_FS_H */
