/* SPDX-License-Identifier: MIT */
/*
 * Memory and string routines (lib/string.c), the C library subset the
 * kernel needs.  Portable: the host unit tests compile the same file.
 */
#ifndef SPINDLE_STRING_H
#define SPINDLE_STRING_H

#include <spindle/types.h>

/* In the kernel, memcpy and memset are the CPU's string instructions
 * (kernel/arch/x86/memcpy.S); the C versions serve the host builds and
 * the user library (user/user.mk builds this file with SPINDLE_USER). */
#if !defined(SPINDLE_HOST) && !defined(SPINDLE_USER)
#define __HAVE_ARCH_MEMCPY
#define __HAVE_ARCH_MEMSET
#endif
void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
/* Copy at most size-1 characters and always terminate; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
/* Append within size bytes in total; returns the length it tried to make. */
size_t strlcat(char *dst, const char *src, size_t size);
/* Split *s at the first of delim, as BSD/Linux strsep(). */
char *strsep(char **s, const char *delim);

/*
 * Parse an unsigned or signed integer, as Linux's kstrtoull(): the whole
 * string must be a number (one trailing newline allowed); base 0 accepts
 * 0x (hex) and 0 (octal) prefixes.  Returns 0, -EINVAL or -ERANGE.
 */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
/* the value of one hex digit (0-9, a-f, A-F), or -1 */
int hex_to_bin(unsigned char ch);
int kstrtoint(const char *s, unsigned int base, int *res);
/*
 * Parse a size with an optional K/M/G/T suffix (powers of 1024), as
 * Linux's memparse(); *end is set after the last character used.
 */
unsigned long long memparse(const char *s, char **end);

#endif /* SPINDLE_STRING_H */
