/* SPDX-License-Identifier: MIT */
/*
 * Basic fixed-width types shared by every layer.
 *
 * The kernel is built freestanding, so only the compiler's own headers
 * (<stdint.h>, <stddef.h>, <stdbool.h>, <stdarg.h>) are available; the host
 * unit tests get the same types from the C library.  Short Linux-style
 * aliases (u8..u64, s8..s64) are provided because driver code copies field
 * widths straight out of hardware specifications.
 */
#ifndef SPINDLE_TYPES_H
#define SPINDLE_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t  u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t   s8;
typedef int16_t  s16;
typedef int32_t  s32;
typedef int64_t  s64;

typedef u64 phys_addr_t;   /* a physical (bus) address, e.g. for DMA */
typedef u64 sector_t;      /* a 512-byte sector number */

#ifndef SPINDLE_HOST
typedef long ssize_t;
typedef u32 dev_t;              /* major:minor of a device */
/* The system-call ABI's types, as x86-64 Linux defines them. */
typedef int pid_t;
typedef long off_t;
typedef long long loff_t;
typedef int clockid_t;
#else
#include <sys/types.h>
#endif
typedef unsigned short umode_t; /* a file's type and permission bits */
typedef unsigned long pgoff_t;  /* a page index inside a file or device */

#endif /* SPINDLE_TYPES_H */
