/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/errno.h - error numbers, Linux's x86-64 values: the one
 * list the kernel (include/spindle/errno.h) and the C library
 * (user/include/errno.h) both include, so the numbers cannot drift.  A
 * system call that fails returns -errno; the library stores errno and
 * returns -1.  Kept to the numbers Spindle uses; Linux's own list is in
 * its include/uapi/asm-generic/errno-base.h and errno.h.
 */
#ifndef _UAPI_LINUX_ERRNO_H
#define _UAPI_LINUX_ERRNO_H

#define EPERM             1
#define ENOENT            2
#define ESRCH             3
#define EINTR             4
#define EIO               5
#define ENXIO             6
#define E2BIG             7
#define ENOEXEC           8
#define EBADF             9
#define ECHILD           10
#define EAGAIN           11
#define EWOULDBLOCK     EAGAIN
#define ENOMEM           12
#define EACCES           13
#define EFAULT           14
#define ENOTBLK          15
#define EBUSY            16
#define EEXIST           17
#define EXDEV            18
#define ENODEV           19
#define ENOTDIR          20
#define EISDIR           21
#define EINVAL           22
#define ENFILE           23
#define EMFILE           24
#define ENOTTY           25
#define ETXTBSY          26
#define EFBIG            27
#define ENOSPC           28
#define ESPIPE           29
#define EROFS            30
#define EMLINK           31
#define EPIPE            32
#define EDOM             33
#define ERANGE           34
#define EDEADLK          35
#define ENAMETOOLONG     36
#define ENOLCK           37
#define ENOSYS           38
#define ENOTEMPTY        39
#define ELOOP            40
#define EBADR            53              /* io_uring: a CQE was lost ("invalid request descriptor") */
#define ENODATA          61
#define ETIME            62
#define EOVERFLOW        75
#define ELIBBAD          80              /* a shared library (the ELF interpreter) is corrupt */
#define EILSEQ           84
#define EOPNOTSUPP       95
#define ETIMEDOUT       110
#define EALREADY        114             /* io_uring: too late to cancel, it is running */
#define ESTALE          116
#define EUCLEAN         117     /* "structure needs cleaning": a damaged file system (Linux's EFSCORRUPTED) */
#define EREMOTEIO       121
#define EDQUOT          122
#define ECANCELED       125

#endif /* _UAPI_LINUX_ERRNO_H */
