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
#define TCSBRK          0x5409          /* arg 0: send a break; else tcdrain() */
#define TCXONC          0x540A          /* tcflow(): TCOOFF TCOON TCIOFF TCION */
#define TCFLSH          0x540B          /* tcflush(): TCIFLUSH TCOFLUSH TCIOFLUSH */
#define TIOCSCTTY 0x540E
#define TIOCGPGRP       0x540F
#define TIOCSPGRP       0x5410
#define TIOCGWINSZ      0x5413
#define TIOCSWINSZ      0x5414
#define FIONREAD 0x541B			/* bytes ready to read */
#define TCSBRKP         0x5425          /* tcsendbreak(): arg tenths of a second */
#define FIONCLEX        0x5450          /* clear close-on-exec */
#define FIOCLEX         0x5451          /* set close-on-exec */

/* TCXONC's and TCFLSH's arguments (Linux's include/uapi/asm-generic/termbits.h) */
#define TCOOFF          0               /* stop output */
#define TCOON           1               /* restart it */
#define TCIOFF          2               /* send the STOP character */
#define TCION           3               /* send the START character */
#define TCIFLUSH        0               /* drop unread input */
#define TCOFLUSH        1               /* drop unsent output */
#define TCIOFLUSH       2               /* both */

#endif /* _UAPI_ASM_IOCTLS_H */
