/* SPDX-License-Identifier: MIT */
/*
 * Compiler attributes and small generic macros (container_of, ARRAY_SIZE,
 * min/max, alignment helpers), named as in Linux so that code reads the same.
 */
#ifndef SPINDLE_COMPILER_H
#define SPINDLE_COMPILER_H

#include <spindle/types.h>

#define __packed        __attribute__((packed))
#define __weak          __attribute__((weak))
/* A pointer into user space: never dereference it, copy with uaccess.h. */
#define __user
#define __aligned(x)    __attribute__((aligned(x)))
#define __section(s)    __attribute__((section(s)))
#define __used          __attribute__((used))
#define __unused        __attribute__((unused))
#define __noreturn      __attribute__((noreturn))
#define __printf(a, b)  __attribute__((format(printf, a, b)))
#define __always_inline inline __attribute__((always_inline))
#define __noinline      __attribute__((noinline))

#define likely(x)       __builtin_expect(!!(x), 1)
#define unlikely(x)     __builtin_expect(!!(x), 0)

#define barrier()       __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)    (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))

/* From a pointer to a member, get back the structure that contains it. */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#define ALIGN(x, a)          (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)     ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)     (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d)   (((n) + (d) - 1) / (d))
#define is_power_of_2(n)     ((n) != 0 && (((n) & ((n) - 1)) == 0))

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(type, a, b) min((type)(a), (type)(b))
#define max_t(type, a, b) max((type)(a), (type)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)

#endif /* SPINDLE_COMPILER_H */
