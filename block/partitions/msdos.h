/* SPDX-License-Identifier: MIT */
/*
 * msdos.h - the on-disk layout of an MBR ("DOS") partition table.
 *
 * Sector 0 of the disk is the Master Boot Record: boot code, then four
 * 16-byte partition entries at byte 446, then the bytes 0x55 0xAA.  A
 * "primary" entry gives a partition's first sector and length (32-bit LBA;
 * the CHS fields are relics of disks addressed by cylinder/head/sector and
 * are ignored, as Linux ignores them).  One primary may be an "extended"
 * partition (check.h: msdos_is_extended()): a container whose first sector
 * is an Extended Boot Record with the same layout, in which
 *     an entry of a data type   = a logical partition, its start relative
 *                                 to this EBR;
 *     an entry of extended type = the link to the next EBR, its start
 *                                 relative to the start of the container.
 * So the logical partitions form a singly linked list on disk.
 *
 * Used by msdos.c (the table), efi.c (the protective MBR in front of a
 * GPT) and the unit tests (to build images).  All fields little-endian,
 * as on the x86 this runs on.
 */
#ifndef BLOCK_PARTITIONS_MSDOS_H
#define BLOCK_PARTITIONS_MSDOS_H

#include <spindle/types.h>
#include <spindle/compiler.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the partition parsers read little-endian fields directly"
#endif

#define MSDOS_MBR_SIGNATURE   0xaa55    /* bytes 0x55, 0xaa at offset 510 */
#define MSDOS_NR_PRIMARY      4         /* entries in an MBR (and an EBR) */
#define MSDOS_FIRST_LOGICAL   5         /* partition number of the first logical */
#define EFI_PMBR_OSTYPE_EFI_GPT 0xee    /* "GPT protective": see efi.c */

/* boot_ind: 0x80 marks the partition the BIOS boots; anything but 0 or
 * 0x80 means the sector is not a partition table (e.g. a FAT boot sector). */
#define MSDOS_BOOT_ACTIVE     0x80

struct msdos_partition {
	u8 boot_ind;            /* 0 or MSDOS_BOOT_ACTIVE */
	u8 head;                /* CHS of the first sector (ignored) */
	u8 sector;
	u8 cyl;
	u8 sys_ind;             /* partition type; 0 = unused entry */
	u8 end_head;            /* CHS of the last sector (ignored) */
	u8 end_sector;
	u8 end_cyl;
	u32 start_sect;         /* first sector, relative: see the top */
	u32 nr_sects;           /* length in sectors; 0 = unused entry */
} __packed;

struct msdos_mbr {
	u8 boot_code[440];
	u32 disk_signature;     /* the disk's id (sfdisk's "label-id") */
	u16 reserved;
	struct msdos_partition part[MSDOS_NR_PRIMARY];
	u16 signature;          /* MSDOS_MBR_SIGNATURE */
} __packed;

_Static_assert(sizeof(struct msdos_partition) == 16, "MBR entry is 16 bytes");
_Static_assert(offsetof(struct msdos_partition, start_sect) == 8, "start_sect");
_Static_assert(offsetof(struct msdos_mbr, disk_signature) == 0x1b8, "disk signature");
_Static_assert(offsetof(struct msdos_mbr, part) == 0x1be, "entries at 446");
_Static_assert(offsetof(struct msdos_mbr, signature) == 0x1fe, "0x55aa at 510");
_Static_assert(sizeof(struct msdos_mbr) == 512, "an MBR is one sector");

#endif /* BLOCK_PARTITIONS_MSDOS_H */
