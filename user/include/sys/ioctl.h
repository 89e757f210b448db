/* SPDX-License-Identifier: MIT */
/* sys/ioctl.h - ioctl(16) and the request numbers these programs use (Linux's). */
#ifndef _SYS_IOCTL_H
#define _SYS_IOCTL_H

#include <asm/ioctls.h> /* TCGETS, TIOC*, FIOCLEX: include/uapi/asm/ioctls.h */
#include <linux/fs.h>	/* BLK*: include/uapi/linux/fs.h */

int ioctl(int fd, unsigned long request, ...);

#endif
