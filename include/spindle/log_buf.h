/* SPDX-License-Identifier: MIT */
/*
 * log_buf.h - the kernel log's ring of text (lib/log_buf.c), which
 * printk fills and syslog(2) reads (kernel/printk.c).
 *
 * The ring holds lines as syslog(2) returns them, "<6>[    1.234567] text\n",
 * in a fixed array.  Every byte written has a sequence number (a u64,
 * which does not wrap in practice); the ring keeps the bytes from
 * `first` to `next`.  When a write needs room, whole lines are dropped
 * from the front, so `first` is always at the start of a line and a
 * reader never sees the back half of a line.
 *
 * Interface: log_buf_write() appends, log_buf_copy() copies out bytes
 * from a sequence number, log_buf_tail() says where the last whole lines
 * that fit n bytes start (SYSLOG_ACTION_READ_ALL).  No locking here: the
 * caller serialises (printk_lock).
 */
#ifndef SPINDLE_LOG_BUF_H
#define SPINDLE_LOG_BUF_H

#include <spindle/types.h>

struct log_buf {
	char *text;             /* size bytes; byte s is text[s % size] */
	u32 size;
	u64 first;              /* oldest byte kept: the start of a line */
	u64 next;               /* where the next byte goes */
};

void log_buf_init(struct log_buf *lb, char *text, u32 size);
/* Append len bytes, dropping the oldest lines for room; of a write as
 * long as the ring, only its last size - 1 bytes are kept. */
void log_buf_write(struct log_buf *lb, const char *s, size_t len);
/* Copy up to n bytes from sequence number *seq (the oldest kept, if *seq
 * is older); returns how many, and moves *seq past them. */
size_t log_buf_copy(const struct log_buf *lb, u64 *seq, char *dst, size_t n);
/* Where the newest whole lines of at most n bytes, from `from` on, begin
 * (next, when not even the last line fits). */
u64 log_buf_tail(const struct log_buf *lb, u64 from, size_t n);

#endif
