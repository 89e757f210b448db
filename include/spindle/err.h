/* SPDX-License-Identifier: MIT */
/*
 * err.h - an error number carried inside a pointer.
 *
 * A function that returns an object or a reason for failing returns
 * ERR_PTR(-ENOENT) instead of NULL; the caller tests IS_ERR(p) and gets the
 * number back with PTR_ERR(p).  The last page of the address space
 * (-4095 .. -1) is never a valid kernel object, so no real pointer can be
 * mistaken for an error.  As Linux's include/linux/err.h.
 */
#ifndef SPINDLE_ERR_H
#define SPINDLE_ERR_H

#include <spindle/compiler.h>

#define MAX_ERRNO       4095

#define IS_ERR_VALUE(x) unlikely((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline void *ERR_CAST(const void *ptr) { return (void *)ptr; }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

#endif /* SPINDLE_ERR_H */
