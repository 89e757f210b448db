/* SPDX-License-Identifier: MIT */
/* stdio_impl.h - the FILE structure (private to stdio.c). */
#ifndef USER_LIB_STDIO_IMPL_H
#define USER_LIB_STDIO_IMPL_H

#include <stddef.h>
#include <stdarg.h>

enum buf_mode { BUF_NONE, BUF_LINE, BUF_FULL };

struct _FILE {
	int fd;
	int mode;                       /* enum buf_mode, for output */
	int eof, error;
	int readable, writable;
	int rpos, rlen;                 /* unread input is buf[rpos..rlen) */
	int wlen;                       /* pending output is buf[0..wlen) */
	int buf_decided;                /* mode chosen (at the first write) */
	struct _FILE *next;             /* every open FILE, for exit's flush */
	char buf[4096];
};

#endif
