// SPDX-License-Identifier: MIT
/*
 * Host versions of the kernel services portable code calls: printk() and
 * panic().  See host.h for how tests use them.  Formatting goes through
 * Spindle's own vsnprintf(), so messages look as they would in the kernel.
 */
#include <spindle/printk.h>
#include <spindle/string.h>

#define HOST_LINE_MAX 1024	/* bytes of one message; the rest is cut */

char host_printk_buf[HOST_PRINTK_BUF_SIZE];
size_t host_printk_len;
bool host_printk_quiet;

void host_printk_reset(void)
{
	host_printk_len = 0;
	host_printk_buf[0] = '\0';
}

int vprintk(const char *fmt, va_list ap)
{
	char line[HOST_LINE_MAX];
	size_t room = sizeof(host_printk_buf) - host_printk_len;
	int n;

	/* The host has no loglevel: drop the KERN_<level> marker. */
	if (fmt[0] == KERN_SOH[0] && fmt[1] != '\0')
		fmt += 2;
	n = vscnprintf(line, sizeof(line), fmt, ap);

	/* Append, always leaving the buffer a terminated string. */
	host_printk_len += strlcpy(host_printk_buf + host_printk_len, line, room);
	if (host_printk_len >= sizeof(host_printk_buf))
		host_printk_len = sizeof(host_printk_buf) - 1;

	if (!host_printk_quiet)
		fputs(line, stderr);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void panic(const char *fmt, ...)
{
	char msg[HOST_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!host_printk_quiet)
		fprintf(stderr, "PANIC: %s\n", msg);
	abort();
}
