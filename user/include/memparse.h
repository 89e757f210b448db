/* SPDX-License-Identifier: MIT */
/*
 * memparse.h - sizes such as "512", "0x200", "4K", "1M", "2G" or "1T"
 * (Spindle's own header, not a C library one): the kernel's memparse()
 * from lib/string.c, linked into the user library, so that a size means
 * the same on a program's command line as in a boot option ("mem=512M").
 * The suffixes are powers of 1024.  dd is the exception: it reads GNU
 * dd's syntax, where kB is 1000 and 2x512 a product.
 */
#ifndef _MEMPARSE_H
#define _MEMPARSE_H

#include <stdint.h>

unsigned long long memparse(const char *s, char **end);

/* The whole of s as a size in *out: 0, or -1 (nothing set) when s is
 * not a number with at most one suffix. */
static inline int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = memparse(s, &end);

	if (end == s || *end)
		return -1;
	*out = v;
	return 0;
}

#endif
