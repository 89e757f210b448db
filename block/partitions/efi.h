/* SPDX-License-Identifier: MIT */
/*
 * efi.h - the on-disk layout of a GUID Partition Table (UEFI 2.10 §5.3).
 *
 *   LBA 0            protective MBR: one entry of type 0xee from LBA 1 over
 *                    the disk, so that MBR-only tools see a full disk of an
 *                    unknown type instead of free space (§5.2.3)
 *   LBA 1            primary GPT header (struct gpt_header)
 *   LBA 2 ...        primary partition entry array (struct gpt_entry[])
 *   first_usable_lba ... last_usable_lba: the partitions
 *   ...              backup partition entry array
 *   last LBA         backup GPT header
 *
 * Each header carries a CRC32 of itself and of its entry array, so a
 * damaged copy is detected and the other one used.  Used by efi.c and the
 * unit tests.  All fields little-endian, as on the x86 this runs on.
 */
#ifndef BLOCK_PARTITIONS_EFI_H
#define BLOCK_PARTITIONS_EFI_H

#include <spindle/types.h>
#include <spindle/compiler.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the partition parsers read little-endian fields directly"
#endif

#define GPT_HEADER_SIGNATURE    0x5452415020494645ull   /* "EFI PART" */
#define GPT_HEADER_REVISION_V1  0x00010000u             /* 1.0 */
#define GPT_PRIMARY_HEADER_LBA  1

/* A GUID as 16 bytes, in the on-disk (mixed-endian) order. */
typedef struct {
	u8 b[16];
} efi_guid_t;

struct gpt_header {
	u64 signature;                  /* GPT_HEADER_SIGNATURE */
	u32 revision;
	u32 header_size;                /* bytes covered by header_crc32 */
	u32 header_crc32;               /* computed with this field zero */
	u32 reserved1;
	u64 my_lba;                     /* where this copy is */
	u64 alternate_lba;              /* where the other copy is */
	u64 first_usable_lba;           /* partitions lie in first..last, */
	u64 last_usable_lba;            /* inclusive */
	efi_guid_t disk_guid;
	u64 partition_entry_lba;        /* this copy's entry array */
	u32 num_partition_entries;
	u32 sizeof_partition_entry;     /* 128 * 2^n bytes */
	u32 partition_entry_array_crc32;
	/* the rest of the sector is reserved (zero) */
} __packed;

#define GPT_PART_NAME_LEN 36            /* UTF-16LE code units */

struct gpt_entry {
	efi_guid_t partition_type_guid; /* all zero: unused entry */
	efi_guid_t unique_partition_guid;
	u64 starting_lba;
	u64 ending_lba;                 /* inclusive */
	u64 attributes;
	u16 partition_name[GPT_PART_NAME_LEN];
} __packed;

/* Offsets and sizes from UEFI 2.10 Table 5-5 and Table 5-6. */
_Static_assert(offsetof(struct gpt_header, header_crc32) == 16, "header CRC");
_Static_assert(offsetof(struct gpt_header, my_lba) == 24, "MyLBA");
_Static_assert(offsetof(struct gpt_header, disk_guid) == 56, "DiskGUID");
_Static_assert(offsetof(struct gpt_header, partition_entry_lba) == 72, "entry LBA");
_Static_assert(offsetof(struct gpt_header, partition_entry_array_crc32) == 88, "array CRC");
_Static_assert(sizeof(struct gpt_header) == 92, "the defined header is 92 bytes");
_Static_assert(offsetof(struct gpt_entry, starting_lba) == 32, "StartingLBA");
_Static_assert(offsetof(struct gpt_entry, attributes) == 48, "Attributes");
_Static_assert(offsetof(struct gpt_entry, partition_name) == 56, "PartitionName");
_Static_assert(sizeof(struct gpt_entry) == 128, "the defined entry is 128 bytes");

#endif /* BLOCK_PARTITIONS_EFI_H */
