/* SPDX-License-Identifier: MIT */
/*
 * pattern.h - the project's verification pattern (lib/pattern.c).
 *
 * The 8-byte little-endian word at byte offset 8*k of a device, for seed
 * s, is splitmix64(s + k), k counted from the start of the device named.
 * Guest and host compute the same words, so a host script can check the
 * raw disk image the guest wrote -- an outside oracle.
 */
#ifndef SPINDLE_PATTERN_H
#define SPINDLE_PATTERN_H

#include <spindle/types.h>

u64 splitmix64(u64 x);
/* Fill buf, which holds the device's bytes [dev_offset, dev_offset+len);
 * dev_offset and len are multiples of 8. */
void pattern_fill(void *buf, u64 dev_offset, size_t len, u64 seed);
/* The device offset of the first byte that differs, or -1 if none. */
s64 pattern_check(const void *buf, u64 dev_offset, size_t len, u64 seed);

#endif /* SPINDLE_PATTERN_H */
