/* SPDX-License-Identifier: MIT */
/* limits.h - ranges of the integer types on x86-64 (LP64). */
#ifndef _LIMITS_H
#define _LIMITS_H

#define CHAR_BIT   8
#define SCHAR_MIN  (-128)
#define SCHAR_MAX  127
#define UCHAR_MAX  255
#define CHAR_MIN   SCHAR_MIN
#define CHAR_MAX   SCHAR_MAX
#define SHRT_MIN   (-32768)
#define SHRT_MAX   32767
#define USHRT_MAX  65535
#define INT_MIN    (-INT_MAX - 1)
#define INT_MAX    2147483647
#define UINT_MAX   4294967295U
#define LONG_MAX   9223372036854775807L
#define LONG_MIN   (-LONG_MAX - 1L)
#define ULONG_MAX  18446744073709551615UL
#define LLONG_MAX  LONG_MAX
#define LLONG_MIN  LONG_MIN
#define ULLONG_MAX ULONG_MAX
#define SSIZE_MAX  LONG_MAX

#define PATH_MAX   4096   /* Linux's limit on a path name, NUL included */
#define NAME_MAX   255

#endif
