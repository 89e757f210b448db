// SPDX-License-Identifier: MIT
/*
 * string.c - the rest of <string.h>.  The functions the kernel has too
 * (memcpy, memmove, memset, memcmp, memchr, strlen, strnlen, strcmp,
 * strncmp, strchr, strrchr, strstr, strsep) are the kernel's own
 * lib/string.c, built into the user library with the user flags
 * (user/user.mk): one copy of each.  These are the ones the kernel does not
 * need, as plain loops written for reading rather than speed.
 */
#include <string.h>
#include <stdlib.h>

/* copies correctly when the areas overlap: backwards if dst is above src */

int strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = (unsigned char)*a, y = (unsigned char)*b;

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y || !x)
			return x - y;
	}
}

char *strcpy(char *dst, const char *src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

/* C's strncpy: pads with NULs, and does NOT terminate a string that fills n */
char *strncpy(char *dst, const char *src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = '\0';
	return dst;
}

char *strcat(char *dst, const char *src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

char *strncat(char *dst, const char *src, size_t n)
{
	char *d = dst + strlen(dst);

	while (n-- && *src)
		*d++ = *src++;
	*d = '\0';
	return dst;
}

char *strdup(const char *s)
{
	return strndup(s, strlen(s));
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

char *strpbrk(const char *s, const char *accept)
{
	s += strcspn(s, accept);
	return *s ? (char *)s : NULL;
}

/* split *sp at the first delimiter: return the token, advance *sp past it */

char *strtok(char *s, const char *delim)
{
	static char *next;
	char *tok;

	if (s)
		next = s;
	if (!next)
		return NULL;
	next += strspn(next, delim);
	if (!*next) {
		next = NULL;
		return NULL;
	}
	tok = next;
	next += strcspn(next, delim);
	if (*next)
		*next++ = '\0';
	else
		next = NULL;
	return tok;
}
