// SPDX-License-Identifier: MIT
/*
 * lib/string.c: the C library's memory and string routines, for a kernel
 * that has no C library, and Linux's number parsers kstrto*() and memparse().
 *
 * Interface: <spindle/string.h>; each function behaves as its C or Linux
 * namesake.  All are plain portable C: no allocation, no locks, never
 * sleep, callable from any context, including interrupt handlers.  The host
 * unit tests compile this very file (tests/unit/check_string.c).
 *
 * Rules a caller must not break: memcpy()'s buffers must not overlap (use
 * memmove()); strlcpy()/strlcat() take the size of the whole destination
 * buffer, not the room left in it.
 *
 * The compiler itself emits calls to memset/memcpy/memmove/memcmp (for
 * structure copies and initialisers), so these must exist even if no line
 * of the kernel names them, and their loops must not be recognised and
 * "optimised" back into a call to themselves: lib/ is built with
 * -fno-tree-loop-distribute-patterns for that reason.
 */
#include <spindle/string.h>
#include <spindle/errno.h>

/*
 * memset() and memcpy() move whole machine words where they can, because
 * clearing or copying a 4 KiB page byte by byte is eight times the work.
 * may_alias tells the compiler these word accesses may touch any object,
 * as char accesses may, so its aliasing rules cannot reorder them.
 */
typedef unsigned long __attribute__((may_alias)) word_t;
#define WORD_SIZE sizeof(word_t)
#define WORD_ALIGNED(p) (((uintptr_t)(p) & (WORD_SIZE - 1)) == 0)

#ifndef __HAVE_ARCH_MEMSET
void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;
	word_t pattern = (unsigned char)c * (~0UL / 0xff); /* c in every byte */

	/* Bytes up to a word boundary, then whole words, then the tail. */
	for (; n > 0 && !WORD_ALIGNED(p); n--)
		*p++ = (unsigned char)c;
	for (; n >= WORD_SIZE; n -= WORD_SIZE, p += WORD_SIZE)
		*(word_t *)p = pattern;
	for (; n > 0; n--)
		*p++ = (unsigned char)c;
	return s;
}
#endif

#ifndef __HAVE_ARCH_MEMCPY
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/*
	 * Words only when both pointers reach a word boundary together, i.e.
	 * are equally misaligned; otherwise every word access would straddle.
	 */
	if (((uintptr_t)d & (WORD_SIZE - 1)) == ((uintptr_t)s & (WORD_SIZE - 1))) {
		for (; n > 0 && !WORD_ALIGNED(d); n--)
			*d++ = *s++;
		for (; n >= WORD_SIZE; n -= WORD_SIZE, d += WORD_SIZE, s += WORD_SIZE)
			*(word_t *)d = *(const word_t *)s;
	}
	for (; n > 0; n--)
		*d++ = *s++;
	return dst;
}
#endif

/*
 * The buffers may overlap, so copy in the direction that reads every byte
 * before it is overwritten: forwards when the destination is below the
 * source, backwards when it is above.
 */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d < (uintptr_t)s) {
		while (n--)
			*d++ = *s++;
	} else if ((uintptr_t)d > (uintptr_t)s) {
		d += n;
		s += n;
		while (n--)
			*--d = *--s;
	}
	return dst;
}

/* Bytes compare as unsigned char, as C requires: 0x80 is above 0x7f. */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n > 0; n--, p++, q++) {
		if (*p != *q)
			return *p - *q;
	}
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n > 0; n--, p++) {
		if (*p == (unsigned char)c)
			return (void *)p;
	}
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

/* Never reads past s[max - 1]: s need not be terminated within max. */
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	while (*p && *p == *q) {
		p++;
		q++;
	}
	return *p - *q;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	for (; n > 0; n--, p++, q++) {
		if (*p != *q || *p == '\0')
			return *p - *q;
	}
	return 0;
}

/* The terminator counts as part of the string: strchr(s, '\0') finds it. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

/* The plain quadratic search: kernel strings are short. */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++) {
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	}
	return n == 0 ? (char *)haystack : NULL;
}

/*
 * Returning strlen(src) rather than what was copied lets the caller see
 * truncation as "ret >= size", the same test as for snprintf().
 */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	/* A dst with no NUL within size is treated as full, never overrun. */
	size_t dlen = strnlen(dst, size);

	if (dlen == size)
		return size + strlen(src);
	return dlen + strlcpy(dst + dlen, src, size - dlen);
}

/*
 * Unlike strtok(), strsep() keeps its position in the caller's *s (so it is
 * reentrant) and returns empty tokens between adjacent delimiters.
 */
char *strsep(char **s, const char *delim)
{
	char *token = *s, *p;

	if (!token)
		return NULL;
	for (p = token; *p; p++) {
		if (strchr(delim, *p)) {
			*p = '\0';
			*s = p + 1;
			return token;
		}
	}
	*s = NULL;
	return token;
}

/* Number parsing ------------------------------------------------------- */

#define MAX_BASE 16

/* The value of digit c (0-9, a-f, A-F), or MAX_BASE if it is none. */
static unsigned int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return MAX_BASE;
}

/* Linux's hex_to_bin(): the value of a hex digit, or -1. */
int hex_to_bin(unsigned char ch)
{
	unsigned int v = digit_value((char)ch);

	return v < 16 ? (int)v : -1;
}

/*
 * Settle the base from the prefix, as Linux and C's strtoull() do: with
 * base 0, "0x" followed by a hex digit means hex, another leading 0 octal,
 * anything else decimal; with base 16 an "0x" is skipped.  Returns where the
 * digits start.
 */
static const char *parse_radix(const char *s, unsigned int *base)
{
	bool hex_prefix = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (*base == 0) {
		if (hex_prefix && digit_value(s[2]) < 16)
			*base = 16;
		else if (s[0] == '0')
			*base = 8;
		else
			*base = 10;
	}
	if (*base == 16 && hex_prefix)
		s += 2;
	return s;
}

/*
 * Accumulate the digits at *sp into *res, stopping at the first character
 * that is not a digit of @base, and leave *sp there.  Returns how many
 * digits were used.  *overflow tells whether the value went past 64 bits
 * (*res is then meaningless).
 */
static unsigned int parse_digits(const char **sp, unsigned int base,
				 unsigned long long *res, bool *overflow)
{
	const char *start = *sp, *s;
	unsigned long long v = 0;
	unsigned int d;

	*overflow = false;
	for (s = start; (d = digit_value(*s)) < base; s++) {
		/* v * base + d > max, asked without computing it */
		if (v > (~0ULL - d) / base)
			*overflow = true;
		v = v * base + d;
	}
	*res = v;
	*sp = s;
	return s - start;
}

/*
 * The common part of the kstrto*() family: an unsigned number, with no sign
 * and no whitespace, then at most one newline (so a line read from a file or
 * the command line parses as is).  *res is written only on success.
 */
static int parse_ull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	bool overflow;

	if (base == 1 || base > MAX_BASE)
		return -EINVAL;
	s = parse_radix(s, &base);
	if (parse_digits(&s, base, &v, &overflow) == 0)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	if (*s == '\n')
		s++;
	if (*s != '\0')
		return -EINVAL;
	*res = v;
	return 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	int err;

	if (s[0] == '-') {
		err = parse_ull(s + 1, base, &v);
		if (err)
			return err;
		/* The magnitude of the most negative value is one more than
		 * the largest positive value. */
		if (v > (unsigned long long)INT64_MAX + 1)
			return -ERANGE;
		*res = (long long)-v;
	} else {
		err = kstrtoull(s, base, &v);
		if (err)
			return err;
		if (v > INT64_MAX)
			return -ERANGE;
		*res = v;
	}
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (err)
		return err;
	if (v != (unsigned int)v)	/* did not survive the narrowing */
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	int err = kstrtoll(s, base, &v);

	if (err)
		return err;
	if (v != (int)v)
		return -ERANGE;
	*res = v;
	return 0;
}

/*
 * For boot options such as "mem=512M": a number in any C notation (base 0)
 * times the suffix's power of 1024.  As in Linux, there is no error return;
 * a string with no number gives 0 with *end == s, and a value too large
 * for 64 bits is not detected (use kstrtoull() where that matters).
 */
unsigned long long memparse(const char *s, char **end)
{
	const char *p;
	unsigned int base = 0, shift = 0;
	unsigned long long v;
	bool overflow;

	p = parse_radix(s, &base);
	if (parse_digits(&p, base, &v, &overflow) == 0) {
		if (end)
			*end = (char *)s;
		return 0;
	}
	switch (*p) {
	case 'T': case 't':
		shift = 40;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'K': case 'k':
		shift = 10;
		break;
	}
	if (shift) {
		v <<= shift;
		p++;
	}
	if (end)
		*end = (char *)p;
	return v;
}
