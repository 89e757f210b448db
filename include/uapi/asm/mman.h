/* SPDX-License-Identifier: MIT */
/*
 * uapi/asm/mman.h - mmap(2)'s protections and flags that Spindle knows,
 * Linux's x86-64 values (Linux's asm-generic/mman-common.h): the one list
 * the kernel (kernel/mm/mmap.c) and the C library (user/include/sys/mman.h)
 * both include.
 */
#ifndef _UAPI_ASM_MMAN_H
#define _UAPI_ASM_MMAN_H

#define PROT_NONE       0x0
#define PROT_READ       0x1
#define PROT_WRITE      0x2
#define PROT_EXEC       0x4

#define MAP_SHARED      0x01
#define MAP_PRIVATE     0x02
#define MAP_FIXED       0x10
#define MAP_ANONYMOUS   0x20

#define MS_ASYNC        1               /* msync: leave it to the flusher */
#define MS_INVALIDATE   2
#define MS_SYNC         4               /* msync: write and wait */

#define MADV_WILLNEED   3               /* madvise: read it in now */
#define MADV_DONTNEED   4               /* madvise: drop the pages */

#endif /* _UAPI_ASM_MMAN_H */
