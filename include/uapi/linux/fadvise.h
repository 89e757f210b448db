/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/fadvise.h - posix_fadvise(2)'s advice values, as Linux's on
 * x86-64 (system call 221, fadvise64).  The kernel side is
 * sys_fadvise64 in fs/filemap.c.
 */
#ifndef _UAPI_LINUX_FADVISE_H
#define _UAPI_LINUX_FADVISE_H

#define POSIX_FADV_NORMAL       0       /* no advice: the device's readahead */
#define POSIX_FADV_RANDOM       1       /* no readahead */
#define POSIX_FADV_SEQUENTIAL   2       /* twice the readahead */
#define POSIX_FADV_WILLNEED     3       /* read it now, without waiting */
#define POSIX_FADV_DONTNEED     4       /* write it back, drop it from the cache */
#define POSIX_FADV_NOREUSE      5       /* accepted, changes nothing */

#endif
