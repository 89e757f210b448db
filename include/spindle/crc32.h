/* SPDX-License-Identifier: MIT */
/*
 * CRC-32, the checksum of Ethernet (IEEE 802.3), zlib and GPT.
 *
 * Where it is used in the I/O path: the GPT parser (block/partitions/efi.c)
 * checks the CRC32 of each GPT header and partition entry array before it
 * trusts a single field (UEFI 2.10 §5.3.2); later, ext2 tools and network
 * code use the same function.  lib/crc32.c, portable, no allocation, no
 * locks, callable from any context.
 *
 * Interface:
 *   crc32_le(crc, p, len)  continue a CRC over len more bytes.  The CRC is
 *       "little-endian" (reflected): bit 0 of each byte is shifted in first,
 *       with the polynomial 0xEDB88320 (0x04C11DB7 bit-reversed).  It does
 *       no pre- or post-inversion, so a long buffer can be fed in pieces:
 *       crc32_le(crc32_le(c, a, n), b, m) == crc32_le(c, a followed by b, n + m).
 *   efi_crc32(p, len)  the CRC as GPT (and zlib) store it: start from all
 *       ones and invert the result.  efi_crc32("123456789", 9) == 0xCBF43926.
 *   __crc32c_le(crc, p, len)  the same walk with Castagnoli's polynomial
 *       (CRC-32C, 0x82F63B78 reflected), the checksum of iSCSI, ext4's
 *       metadata and the jbd2 journal (fs/jbd2/).  No inversion either:
 *       jbd2 chains it from a seed, as Linux's jbd2_chksum() does.
 *       __crc32c_le(~0, "123456789", 9) ^ ~0 == 0xE3069283 (RFC 3720 B.4
 *       lists more).
 */
#ifndef SPINDLE_CRC32_H
#define SPINDLE_CRC32_H

#include <spindle/types.h>

#define CRC32_POLY_LE 0xedb88320u

#define CRC32C_POLY_LE 0x82f63b78u

u32 crc32_le(u32 crc, const void *p, size_t len);
u32 __crc32c_le(u32 crc, const void *p, size_t len);

static inline u32 efi_crc32(const void *p, size_t len)
{
	return crc32_le(~0u, p, len) ^ ~0u;
}

#endif /* SPINDLE_CRC32_H */
