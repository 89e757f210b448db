/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/hdreg.h - HDIO_GETGEO, the one hdreg ioctl Spindle answers,
 * in Linux's number and layout (its include/uapi/linux/hdreg.h): the
 * BIOS-style geometry a disk driver makes up for its disk, which fdisk,
 * sfdisk -g and mke2fs ask for.  block/ioctl.c answers it; the C library
 * (user/include/sys/ioctl.h) may include it.
 */
#ifndef _UAPI_LINUX_HDREG_H
#define _UAPI_LINUX_HDREG_H

#define HDIO_GETGEO     0x0301          /* struct hd_geometry */

struct hd_geometry {
	unsigned char heads;
	unsigned char sectors;          /* per track */
	unsigned short cylinders;       /* truncated: a big disk's wraps */
	unsigned long start;            /* the partition's first sector */
};

#endif /* _UAPI_LINUX_HDREG_H */
