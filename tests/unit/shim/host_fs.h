/* SPDX-License-Identifier: MIT */
/* Host stand-ins for the file layer's tests (host_fs.c). */
#ifndef HOST_FS_H
#define HOST_FS_H

#include <stddef.h>

#define HOST_CONSOLE_BUF 8192
extern char host_console_buf[HOST_CONSOLE_BUF];
extern size_t host_console_len;
extern int host_serial_breaks;  /* breaks started on COM1 (TCSBRK 0) */
extern bool host_serial_in_break;

void host_vfs_init(void);

/* Direct I/O's pin_user_pages_fast() treats the page holding this
 * address as unmapped (0: none); see host_fs.c. */
extern unsigned long host_user_hole;

#endif
