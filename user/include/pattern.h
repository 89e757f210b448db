/* SPDX-License-Identifier: MIT */
/*
 * pattern.h - the project's verification pattern, for user programs
 * (Spindle's own header, not a C library one): the 8-byte little-endian
 * word at byte offset 8*k of a device is splitmix64(seed + k), k counted
 * from the device's start -- the same words as the kernel's lib/pattern.c
 * and the host's tools/pattern-check.py, so any of the three can check
 * what another wrote.
 */
#ifndef _PATTERN_H
#define _PATTERN_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

static inline uint64_t splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Fill buf, which holds the device's bytes [dev_offset, dev_offset + len);
 * dev_offset and len are multiples of 8 (buf need not be aligned). */
static inline void pattern_fill(void *buf, uint64_t dev_offset, size_t len, uint64_t seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = splitmix64(seed + (dev_offset + i) / 8);

		memcpy(p + i, &w, 8);
	}
}

#endif /* _PATTERN_H */
