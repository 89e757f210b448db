// SPDX-License-Identifier: MIT
/*
 * log_buf.c - the kernel log's ring of text (include/spindle/log_buf.h).
 * Linux keeps records with a descriptor each (kernel/printk/
 * printk_ringbuffer.c) and formats them when read; Spindle keeps the
 * text already formatted for syslog(2), which is all its readers want.
 */
#include <spindle/log_buf.h>
#include <spindle/string.h>

void log_buf_init(struct log_buf *lb, char *text, u32 size)
{
	lb->text = text;
	lb->size = size;
	lb->first = lb->next = 0;
}

/* Drop the oldest line (up to and with its '\n'; all, if it has none). */
static void log_buf_drop_line(struct log_buf *lb)
{
	while (lb->first < lb->next) {
		char c = lb->text[lb->first % lb->size];

		lb->first++;
		if (c == '\n')
			return;
	}
}

void log_buf_write(struct log_buf *lb, const char *s, size_t len)
{
	if (len >= lb->size) {          /* only its end fits: keep that */
		s += len - (lb->size - 1);
		len = lb->size - 1;
	}
	while (lb->next + len - lb->first > lb->size)
		log_buf_drop_line(lb);
	for (size_t i = 0; i < len; i++)
		lb->text[(lb->next + i) % lb->size] = s[i];
	lb->next += len;
}

size_t log_buf_copy(const struct log_buf *lb, u64 *seq, char *dst, size_t n)
{
	u64 s = *seq < lb->first ? lb->first : *seq;
	size_t done = 0;

	while (done < n && s < lb->next)
		dst[done++] = lb->text[s++ % lb->size];
	*seq = s;
	return done;
}

/*
 * Linux's syslog_print_all() skips whole records from the oldest until
 * the rest fits the reader's buffer; here: from the first line start at
 * or after (next - n).
 */
u64 log_buf_tail(const struct log_buf *lb, u64 from, size_t n)
{
	u64 s = from < lb->first ? lb->first : from;

	if (lb->next - s <= n)
		return s;
	s = lb->next - n;
	/* s is inside a line unless the byte before it ends one */
	while (s < lb->next && lb->text[(s - 1) % lb->size] != '\n')
		s++;
	return s;
}
