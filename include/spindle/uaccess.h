/* SPDX-License-Identifier: MIT */
/*
 * uaccess.h - moving data across the user/kernel boundary.
 *
 * A system call's pointer arguments come from user space: they may point
 * anywhere -- at nothing, at the kernel, at memory the process never
 * mapped.  The kernel never dereferences them directly; it copies through
 * these functions, which check that the range lies in user space and
 * recover from a page fault in the middle (the exception-fixup table of
 * the architecture code), so a bad pointer becomes -EFAULT for the
 * caller, never a kernel crash.  With SMAP the CPU itself refuses kernel
 * accesses to user pages outside these functions.
 *
 * As Linux: copy_to_user/copy_from_user return the number of bytes NOT
 * copied (0 on success); strncpy_from_user returns the string's length,
 * or -EFAULT, or count if no NUL was found within count bytes.
 */
#ifndef SPINDLE_UACCESS_H
#define SPINDLE_UACCESS_H

#include <spindle/types.h>
#include <spindle/compiler.h>

/* User space is the lower half: [0, USER_SPACE_END). */
#define USER_SPACE_END  0x0000800000000000ul

static inline bool access_ok(const void __user *p, unsigned long n)
{
	unsigned long a = (unsigned long)p;

	return a <= USER_SPACE_END && n <= USER_SPACE_END - a;
}

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long clear_user(void __user *to, unsigned long n);
long strncpy_from_user(char *dst, const char __user *src, long count);

#endif /* SPINDLE_UACCESS_H */
