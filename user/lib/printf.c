// SPDX-License-Identifier: MIT
/*
 * printf.c - sprintf and vsprintf; the formatter itself is the kernel's.
 *
 * Every printf-family function of this libc formats with lib/vsprintf.c,
 * the kernel's vsnprintf(), compiled into libc.a (user/user.mk): one
 * implementation of C99's conversions for the kernel's log and for user
 * programs, tested against glibc's printf twice -- on the host by
 * tests/unit/check_vsprintf.c, and here by tests/user/printf_table.c.
 * snprintf and vsnprintf come from it as they are; the FILE functions
 * (stdio.c) format into a buffer with it and write that.  Conversions:
 * %d %i %u %x %X %o %c %s %p %% with flags, width, precision and the
 * length modifiers hh h l ll z t j; no floating point (see stdio.h).
 */
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>

int vsprintf(char *buf, const char *fmt, va_list ap)
{
	return vsnprintf(buf, SIZE_MAX, fmt, ap);
}

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, SIZE_MAX, fmt, ap);
	va_end(ap);
	return n;
}
