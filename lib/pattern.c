// SPDX-License-Identifier: MIT
/*
 * pattern.c - the project's verification pattern (include/spindle/pattern.h):
 * word k of a device is splitmix64(seed + k), little-endian.
 * splitmix64 (Steele, Lea and Flood, 2014) is a tiny, well-mixed 64-bit
 * generator: every word differs, so a misplaced sector is caught too.
 */
#include <spindle/pattern.h>
#include <spindle/compiler.h>

u64 splitmix64(u64 x)
{
	u64 z = x + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void pattern_fill(void *buf, u64 dev_offset, size_t len, u64 seed)
{
	u64 *w = buf;                   /* x86 is little-endian: no swapping */
	u64 k = dev_offset / 8;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = splitmix64(seed + k + i);
}

s64 pattern_check(const void *buf, u64 dev_offset, size_t len, u64 seed)
{
	const u64 *w = buf;
	u64 k = dev_offset / 8;

	for (size_t i = 0; i < len / 8; i++) {
		u64 want = splitmix64(seed + k + i);

		if (w[i] != want) {
			/* find the first differing byte within the word */
			const u8 *got = (const u8 *)&w[i], *exp = (const u8 *)&want;
			int b = 0;

			while (got[b] == exp[b])
				b++;
			return (s64)(dev_offset + 8 * i + b);
		}
	}
	return -1;
}
