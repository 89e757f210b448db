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
 *
 * CRC-32C is the same walk with another polynomial, so another table of
 * 16, built the same way from 0x82f63b78 (entry 8 is it again).
 */
#include <spindle/crc32.h>

static const u32 crc32_nibble_table[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

static const u32 crc32c_nibble_table[16] = {
	0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1,
	0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
	0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
	0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

static u32 crc32_nibbles(const u32 table[16], u32 crc, const u8 *s, size_t len)
{
	while (len--) {
		crc ^= *s++;
		/* Low nibble first: the CRC is reflected, bit 0 goes out first. */
		crc = (crc >> 4) ^ table[crc & 0xf];
		crc = (crc >> 4) ^ table[crc & 0xf];
	}
	return crc;
}

u32 crc32_le(u32 crc, const void *p, size_t len)
{
	return crc32_nibbles(crc32_nibble_table, crc, p, len);
}

u32 __crc32c_le(u32 crc, const void *p, size_t len)
{
	return crc32_nibbles(crc32c_nibble_table, crc, p, len);
}
