// SPDX-License-Identifier: MIT
/*
 * printf_table.c - the printf test: one source built twice, with Spindle's
 * libc (build/user/tests/printf_table) and with the host's glibc
 * (build/user/printf_glibc).  tests/user/run.sh compares the two outputs
 * byte for byte: glibc is the oracle.  Each line prints one format with
 * its arguments between bars, then snprintf's return value and what a
 * small buffer kept (truncation).
 */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#define T(...) do {                                                     \
		char small[8];                                          \
		int n;                                                  \
		printf("|");                                            \
		printf(__VA_ARGS__);                                    \
		n = snprintf(small, sizeof(small), __VA_ARGS__);        \
		printf("| %d [%s]\n", n, small);                        \
	} while (0)

int main(void)
{
	T("%d %i %u", 42, -42, 42u);
	T("%d", -2147483647 - 1);
	T("%u", 4294967295u);
	T("%x %X %o", 0xbeefu, 0xbeefu, 0755u);
	T("%#x %#X %#o %#x %#o", 255u, 255u, 8u, 0u, 0u);
	T("%5d|%-5d|%05d|%+d|% d|%+5d", 42, 42, 42, 42, 42, -42);
	T("%.3d|%8.3d|%-8.3d|%08.3d|%.0d|%.0d", 7, 7, 7, 7, 0, 1);
	T("%ld %lld %lu %llx", -1234567890123L, -9223372036854775807LL - 1,
	  18446744073709551615UL, 0x123456789abcdefULL);
	T("%zu %zd %jd %td", (size_t)123456789012, (ptrdiff_t)-5, (intmax_t)77, (ptrdiff_t)3);
	T("%hd %hu %hhd %hhu %hx", (short)-3, (unsigned short)65535, (signed char)-1,
	  (unsigned char)255, (unsigned short)0xabcd);
	T("%s|%10s|%-10s|%.2s|%10.3s|", "spindle", "disk", "disk", "abcdef", "abcdef");
	T("%c%c%c|%3c|%-3c|", 'a', 'b', 'c', 'x', 'y');
	T("%%|100%%");
	T("%p %p", (void *)0x1000, (void *)0);
	T("%*d|%-*d|%.*d|%*.*s|", 6, 1, 6, 2, 4, 3, 5, 2, "xyz");
	T("%*d|", -6, 9);
	T("%08x|%-08x|%#010x|%#-10x|", 0xabu, 0xabu, 0xabu, 0xabu);
	T("%s", "");
	T("no conversions at all, longer than the buffer");
	T("%llu bytes (%s, %s) copied", 16777216ULL, "17 MB", "16 MiB");
	return 0;
}
