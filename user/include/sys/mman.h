/* SPDX-License-Identifier: MIT */
/* sys/mman.h - mmap(9), munmap(11), mprotect(10), msync(26), madvise(28). */
#ifndef _SYS_MMAN_H
#define _SYS_MMAN_H

#include <sys/types.h>

#include <asm/mman.h> /* PROT_*, MAP_*: include/uapi/asm/mman.h */

#define MAP_ANON      MAP_ANONYMOUS
#define MAP_FAILED    ((void *)-1)

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
int msync(void *addr, size_t len, int flags);
int madvise(void *addr, size_t len, int advice);

#endif
