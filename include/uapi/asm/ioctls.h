/* SPDX-License-Identifier: MIT */
/*
 * uapi/asm/ioctls.h - the terminal and descriptor ioctls, Linux's x86-64
 * numbers (its include/uapi/asm-generic/ioctls.h): the one list the
 * console tty (fs/tty.c), fs/ioctl.c and the C library
 * (user/include/sys/ioctl.h) include.
 */
#ifndef _UAPI_ASM_IOCTLS_H
#define _UAPI_ASM_IOCTLS_H

#define TCGETS          0x5401
#define TCSETS          0x5402
#define TCSETSW         0x5403
#define TCSETSF         0x5404
#define TIOCSCTTY 0x540E
#define TIOCGPGRP       0x540F
#define TIOCSPGRP       0x5410
#define TIOCGWINSZ      0x5413
#define FIONREAD 0x541B			/* bytes ready to read */
#define FIONCLEX        0x5450          /* clear close-on-exec */
#define FIOCLEX         0x5451          /* set close-on-exec */

#endif /* _UAPI_ASM_IOCTLS_H */
