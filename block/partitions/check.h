/* SPDX-License-Identifier: MIT */
/*
 * check.h - finding a disk's partitions: the interface of block/partitions/.
 *
 * Where this sits in the I/O path: when a driver registers a disk,
 * add_disk() -> blk_scan_partitions() (block/partition.c) fills a struct
 * parsed_partitions and calls check_partition().  The parsers read the
 * table through state->read (which partition.c turns into bios on the
 * whole disk) and fill state->parts[]; partition.c then creates one
 * block_device per present entry, so that later I/O to "sda5" is remapped
 * by its start.  Nothing here knows about bios, queues or drivers, which is
 * why the same files also run in the host unit tests
 * (tests/unit/check_partitions.c) against a disk image in memory.
 *
 * Interface (above: block/partition.c):
 *     state = kzalloc(sizeof(*state));       about 3.5 KiB: not on a stack
 *     state->name, ->capacity, ->read, ->ctx = ...;
 *     n = check_partition(state);
 *     n > 0:   parts[1..DISK_MAX_PARTS-1] with .present set are the
 *              partitions, numbered as Linux and sfdisk number them;
 *     n == 0:  no table, or a table rejected as malformed (a warning was
 *              printed): use the disk as a whole;
 *     n < 0:   the read callback failed (-EIO ...): the disk could not be
 *              read where the table lives.  Nothing is printed for this:
 *              the caller reports it.
 *
 * Rules the parsers keep, so that a caller may trust parts[]: every present
 * partition lies inside the disk and has a non-zero size; partitions do not
 * overlap, except the logical partitions (5..) of an MBR, which lie inside
 * their extended partition.  Bad on-disk data is never a panic: it is a
 * warning and a skipped entry, or a rejected table.
 *
 * Below (the parsers, msdos.c and efi.c): read sectors only through
 * read_part_sector(), record a partition only through put_partition().
 * May sleep (the read callback does).
 */
#ifndef BLOCK_PARTITIONS_CHECK_H
#define BLOCK_PARTITIONS_CHECK_H

#include <spindle/types.h>

#define DISK_MAX_PARTS 64          /* partition numbers 1..63 (as blkdev.h) */
#define PART_SECTOR_SIZE 512       /* the parsers handle 512-byte sectors only */

struct parsed_partition {
	sector_t from, size;       /* in 512-byte sectors */
	u8 sys_ind;                /* MBR partition type (0x83 ...); 0 for GPT */
	bool present;
	/*
	 * GPT only: the partition type and the partition's own GUID, in the
	 * on-disk byte order (UEFI 2.10 Appendix A: the first three fields
	 * little-endian, the last two as bytes).  All zero for MBR.
	 */
	u8 type_guid[16];
	u8 uuid[16];
};

struct parsed_partitions {
	const char *name;               /* disk name for messages, e.g. "sda" */
	sector_t capacity;              /* disk size in 512-byte sectors */
	/* read count 512-byte sectors starting at sector into buf: 0 or -EIO */
	int (*read)(void *ctx, sector_t sector, unsigned int count, void *buf);
	void *ctx;
	struct parsed_partition parts[DISK_MAX_PARTS];  /* index = partition number (0 unused) */
	char label[8];                  /* "dos", "gpt" or "" -- as sfdisk's "label" */
	/*
	 * Set by msdos.c: the number (1..4) of the extended partition whose
	 * logical partitions follow it, or 0.  Only for the summary line, which
	 * shows them inside it: " sda1 sda2 < sda5 sda6 > sda3".
	 */
	int extended;
};

/*
 * Find and parse the table.  Returns the number of partitions found (0: no
 * table or a table rejected as malformed -- the disk stays usable as a
 * whole), or -EIO when the disk could not be read.  Prints Linux-style
 * lines: " sda: sda1 sda2 < sda5 sda6 >" and a warning for each rejected
 * table or entry.
 */
int check_partition(struct parsed_partitions *state);

/*
 * The MBR types of an extended partition: DOS's, Windows 95's "LBA" one and
 * Linux's.  Linux registers an extended partition with a size of 2 sectors
 * (just its EBR, so nothing can write over the logical partitions through
 * it), and /proc/partitions shows it as 1 block; parts[] keeps its real
 * size, as sfdisk reports it.  A caller that wants Linux's view tests this.
 */
#define MSDOS_EXTENDED_PARTITION   0x05
#define WIN98_EXTENDED_PARTITION   0x0f
#define LINUX_EXTENDED_PARTITION   0x85
#define MSDOS_EXTENDED_LINUX_SIZE  2        /* sectors Linux shows, see above */

static inline bool msdos_is_extended(u8 sys_ind)
{
	return sys_ind == MSDOS_EXTENDED_PARTITION ||
	       sys_ind == WIN98_EXTENDED_PARTITION ||
	       sys_ind == LINUX_EXTENDED_PARTITION;
}

/* --- for the parsers ----------------------------------------------------- */

/* The parsers, tried in this order: each returns 1 when the table was its
 * own (even if it holds no partition), 0 when it was not or was rejected,
 * or a negative errno from the read callback. */
int efi_partition(struct parsed_partitions *state);
int msdos_partition(struct parsed_partitions *state);

/* Read one 512-byte sector into buf (512 bytes); 0 or the callback's -errno.
 * The caller has already checked that sector lies inside the disk. */
int read_part_sector(struct parsed_partitions *state, sector_t sector, void *buf);

/* Does [from, from + size) fit inside the disk?  (Written so that it cannot
 * overflow, whatever garbage the table holds.) */
static inline bool part_inside_disk(const struct parsed_partitions *state,
				    sector_t from, sector_t size)
{
	return from < state->capacity && size <= state->capacity - from;
}

/* The number of a present partition among first..last that overlaps
 * [from, from + size), or 0 if none does. */
int part_overlaps(const struct parsed_partitions *state, sector_t from,
		  sector_t size, int first, int last);

/* Record partition partno (1..DISK_MAX_PARTS-1). */
void put_partition(struct parsed_partitions *state, int partno, sector_t from,
		   sector_t size);

#endif /* BLOCK_PARTITIONS_CHECK_H */
