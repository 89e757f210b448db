/* SPDX-License-Identifier: MIT */
/* sys/ioctl.h - ioctl(16) and the request numbers these programs use (Linux's). */
#ifndef _SYS_IOCTL_H
#define _SYS_IOCTL_H

#define TCGETS        0x5401
#define TIOCGPGRP     0x540F
#define TIOCSPGRP     0x5410
#define TIOCGWINSZ    0x5413
#define BLKGETSIZE    0x1260        /* size in 512-byte sectors (unsigned long) */
#define BLKFLSBUF     0x1261
#define BLKSSZGET     0x1268        /* logical block size (int) */
#define BLKGETSIZE64  0x80081272    /* size in bytes (u64) */

int ioctl(int fd, unsigned long request, ...);

#endif
