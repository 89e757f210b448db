// SPDX-License-Identifier: MIT
/*
 * lib/crc32.c - CRC-32 (IEEE 802.3, reflected), for GPT and anyone else.
 *
 * Interface: <spindle/crc32.h>.  Portable: the host unit tests compile this
 * file (tests/unit/check_crc32.c checks it against the bit-at-a-time
 * definition and the standard check value).
 *
 * The definition, one bit at a time: for each byte, crc ^= byte; then eight
 * times, shift crc right by one and, if the bit shifted out was 1, xor in
 * the polynomial.  Those eight steps depend only on the low 8 bits of crc
 * at the start, which is what lets tables do several steps at once.  A
 * 256-entry table does a byte per lookup; here a 16-entry table does four
 * bits (a nibble) per lookup: two lookups a byte, a 64-byte table a student
 * can check by hand.  Entry i is the definition's four steps applied to
 * crc = i; e.g. entry 8 (binary 1000) shifts three zeros out, then a one:
 * 0xedb88320, the polynomial itself.
 */
#include <spindle/crc32.h>

static const u32 crc32_nibble_table[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

u32 crc32_le(u32 crc, const void *p, size_t len)
{
	const u8 *s = p;

	while (len--) {
		crc ^= *s++;
		/* Low nibble first: the CRC is reflected, bit 0 goes out first. */
		crc = (crc >> 4) ^ crc32_nibble_table[crc & 0xf];
		crc = (crc >> 4) ^ crc32_nibble_table[crc & 0xf];
	}
	return crc;
}
