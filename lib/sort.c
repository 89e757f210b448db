// SPDX-License-Identifier: MIT
/*
 * sort.c - heapsort.
 *
 * The array is first arranged as a max-heap (every element at least as
 * large as its two children at 2i+1 and 2i+2), then the largest -- the
 * root -- is swapped to the end, the heap shrinks by one, and the new root
 * sinks to its place.  Each sink is O(log n), so the whole sort is
 * O(n log n) with no memory beyond the array.
 */
#include <spindle/sort.h>

static void swap_bytes(u8 *a, u8 *b, size_t size)
{
	while (size--) {
		u8 t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* Let element i sink until it is no smaller than its children (heap of n). */
static void sift_down(u8 *base, size_t i, size_t n, size_t size, cmp_func_t cmp)
{
	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			return;
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;                        /* the larger child */
		if (cmp(base + i * size, base + child * size) >= 0)
			return;
		swap_bytes(base + i * size, base + child * size, size);
		i = child;
	}
}

void sort(void *base, size_t num, size_t size, cmp_func_t cmp)
{
	u8 *b = base;

	if (num < 2)
		return;
	for (size_t i = num / 2; i-- > 0; )
		sift_down(b, i, num, size, cmp);
	for (size_t end = num - 1; end > 0; end--) {
		swap_bytes(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}
