/* SPDX-License-Identifier: MIT */
/* sys/mman.h - mmap(9) and munmap(11), anonymous memory for malloc. */
#ifndef _SYS_MMAN_H
#define _SYS_MMAN_H

#include <sys/types.h>

#include <asm/mman.h> /* PROT_*, MAP_*: include/uapi/asm/mman.h */

#define MAP_ANON      MAP_ANONYMOUS
#define MAP_FAILED    ((void *)-1)

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);

#endif
