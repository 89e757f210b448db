/* SPDX-License-Identifier: MIT */
/*
 * sort.h - sort an array in place (heapsort: O(n log n), no recursion, no
 * extra memory -- usable anywhere in the kernel).  As Linux's sort():
 * cmp returns <0, 0 or >0; the order of equal elements is not kept.
 */
#ifndef SPINDLE_SORT_H
#define SPINDLE_SORT_H

#include <spindle/types.h>

typedef int (*cmp_func_t)(const void *a, const void *b);

void sort(void *base, size_t num, size_t size, cmp_func_t cmp);

#endif /* SPINDLE_SORT_H */
