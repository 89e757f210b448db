// SPDX-License-Identifier: MIT
/*
 * efi.c - the GUID Partition Table (UEFI 2.10 §5.2.3 and §5.3).
 *
 * Interface: efi_partition(state), called first by check_partition()
 * (check.c); returns 1 when the disk has a GPT it could use, 0 when it has
 * none (or both copies are damaged: the disk is then used whole), or the
 * read callback's -errno when neither copy could be read.  Layout: efi.h.
 * Portable; may sleep (it reads).  512-byte logical sectors only.
 *
 * The steps, which follow the spec's validity rules (§5.3.2):
 *   1. LBA 0 must be a protective MBR (or a hybrid one): an MBR entry of
 *      type 0xee starting at LBA 1 (§5.2.3).  Otherwise the disk is not
 *      ours and msdos.c gets it, as in Linux.
 *   2. The primary copy, header at LBA 1, is checked: signature, header
 *      size, header CRC32, MyLBA, the usable LBAs and the entry array's
 *      place and size (gpt_check_header()), then the CRC32 of the entry
 *      array.  No field is trusted before its CRC is.
 *   3. If it is bad, the backup copy, header at the last LBA, is checked
 *      the same way and used instead, with a warning.  If it is good, the
 *      backup header is still checked against it, so that a lost backup is
 *      reported while the primary can still repair it.  The backup is
 *      looked for at the last LBA, where §5.3.1 puts it, and not where the
 *      primary's AlternateLBA says: when the primary is the damaged copy,
 *      it cannot be trusted to say where its replacement is.
 *   4. The entries of the chosen copy become partitions: entry i is
 *      partition i + 1, an unused entry (type GUID all zero) leaves a gap,
 *      as in Linux and sfdisk.  An entry outside the usable LBAs, or
 *      overlapping an earlier one, is skipped with a warning; an entry
 *      beyond partition 63 is ignored (counted in one warning).
 *
 * The entry array is read one sector at a time into one buffer and never
 * held whole: the CRC is computed as it streams by, and the entries are
 * recorded in state->parts[] as they pass; if the CRC then fails, parts[]
 * is wiped.  So no allocation, and a header claiming a vast array costs
 * nothing but a refusal (GPT_MAX_ARRAY_BYTES).
 */
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/crc32.h>
#include "check.h"
#include "msdos.h"
#include "efi.h"

/*
 * Limits on what a header may ask for.  Every tool writes 128 entries of
 * 128 bytes (16 KiB, the spec's minimum array); these leave generous room
 * and still turn an absurd header (a billion entries) into a refusal
 * instead of hours of reading.
 */
#define GPT_MAX_ENTRY_SIZE   4096            /* bytes per entry */
#define GPT_MAX_ARRAY_BYTES  (1024 * 1024)   /* 8192 entries of 128 bytes */

/* One sector, seen as bytes (for reads and CRCs) or as a structure. */
union gpt_sector {
	u8 raw[PART_SECTOR_SIZE];
	struct msdos_mbr mbr;
	struct gpt_header hdr;
};

/* §5.2.3: a protective MBR has an entry of type 0xee starting at LBA 1.
 * A hybrid MBR has other entries besides; Linux accepts both.  The entry's
 * size (the disk's, or 0xffffffff) is not checked: tools disagree about
 * it after a disk is grown, and the GPT headers are checked far better. */
static bool gpt_pmbr_valid(const struct msdos_mbr *mbr)
{
	if (mbr->signature != MSDOS_MBR_SIGNATURE)
		return false;
	for (int i = 0; i < MSDOS_NR_PRIMARY; i++) {
		const struct msdos_partition *p = &mbr->part[i];

		if (p->sys_ind == EFI_PMBR_OSTYPE_EFI_GPT &&
		    p->start_sect == GPT_PRIMARY_HEADER_LBA)
			return true;
	}
	return false;
}

/* §5.3.2: the CRC32 of the header's first header_size bytes, computed
 * with the CRC field itself taken as zero. */
static u32 gpt_header_crc(const u8 *raw, u32 header_size)
{
	static const u8 zero[sizeof(u32)];
	size_t at = offsetof(struct gpt_header, header_crc32);
	u32 crc;

	crc = crc32_le(~0u, raw, at);
	crc = crc32_le(crc, zero, sizeof(zero));
	at += sizeof(zero);
	crc = crc32_le(crc, raw + at, header_size - at);
	return crc ^ ~0u;
}

static sector_t gpt_array_sectors(const struct gpt_header *h)
{
	u64 bytes = (u64)h->num_partition_entries * h->sizeof_partition_entry;

	return DIV_ROUND_UP(bytes, PART_SECTOR_SIZE);
}

/*
 * Check the header read from lba (s: the whole sector).  Returns NULL
 * if it is sane, else the reason, for the warning.  Order matters: nothing
 * beyond header_size is looked at before header_size is checked, and no
 * field is used before the CRC says the header is what was written.
 */
static const char *gpt_check_header(const struct parsed_partitions *state,
				    const union gpt_sector *s, sector_t lba)
{
	const struct gpt_header *h = &s->hdr;
	u32 esize = h->sizeof_partition_entry;
	u64 first = h->first_usable_lba, last = h->last_usable_lba;
	u64 elba = h->partition_entry_lba, nsect;

	if (h->signature != GPT_HEADER_SIGNATURE)
		return "no GPT signature";
	/* At least the defined fields, at most one sector (§5.3.2). */
	if (h->header_size < sizeof(struct gpt_header) ||
	    h->header_size > PART_SECTOR_SIZE)
		return "bad header size";
	if (gpt_header_crc(s->raw, h->header_size) != h->header_crc32)
		return "bad header CRC32";
	if (h->my_lba != lba)
		return "header not at its own MyLBA";
	if (first > last)
		return "first usable LBA after the last";
	/* Partitions may not cover LBA 0, LBA 1, or the backup header. */
	if (first < 2 || last >= state->capacity - 1)
		return "usable LBAs outside the disk";
	/* §5.3.2: SizeOfPartitionEntry is 128 * 2^n. */
	if (esize < sizeof(struct gpt_entry) || !is_power_of_2(esize) ||
	    esize > GPT_MAX_ENTRY_SIZE)
		return "bad partition entry size";
	if ((u64)h->num_partition_entries * esize > GPT_MAX_ARRAY_BYTES)
		return "absurd number of partition entries";
	/* The array lies between the headers and not over the partitions. */
	nsect = gpt_array_sectors(h);
	if (elba < 2 || nsect > state->capacity - 1 || elba > state->capacity - 1 - nsect)
		return "entry array outside the disk or over a header";
	if (elba + nsect > first && elba <= last)
		return "entry array overlaps the usable LBAs";
	return NULL;
}

/*
 * Read one GPT header from lba into *hdr (buf: a scratch sector).
 * Returns 0, -EINVAL with *why set if it is not a sane header, or the
 * read error.
 */
static int gpt_read_header(struct parsed_partitions *state, sector_t lba,
			   union gpt_sector *buf, struct gpt_header *hdr,
			   const char **why)
{
	int err = read_part_sector(state, lba, buf);

	if (err) {
		*why = "read error";
		return err;
	}
	*why = gpt_check_header(state, buf, lba);
	if (*why)
		return -EINVAL;
	*hdr = buf->hdr;
	return 0;
}

static bool guid_is_zero(const efi_guid_t *g)
{
	for (size_t i = 0; i < sizeof(g->b); i++) {
		if (g->b[i])
			return false;
	}
	return true;
}

/* Note entry index of the array in parts[], unchecked for now.  An entry
 * whose ending_lba is below its starting_lba gets a "size" that wrapped
 * around; gpt_check_entries() rejects it with the rest. */
static void gpt_note_entry(struct parsed_partitions *state, u64 index,
			   const struct gpt_entry *e, u32 *beyond)
{
	struct parsed_partition *p;

	if (guid_is_zero(&e->partition_type_guid))
		return;                 /* unused: a gap in the numbering */
	if (index + 1 >= DISK_MAX_PARTS) {
		(*beyond)++;
		return;
	}
	p = &state->parts[index + 1];
	p->from = e->starting_lba;
	p->size = e->ending_lba - e->starting_lba + 1;
	p->present = true;
	memcpy(p->type_guid, e->partition_type_guid.b, sizeof(p->type_guid));
	memcpy(p->uuid, e->unique_partition_guid.b, sizeof(p->uuid));
}

/*
 * Stream the entry array of header h through buf, computing its CRC32 and
 * noting its entries in parts[].  Returns 0, -EINVAL (*why set) when the
 * CRC does not match -- parts[] is then wiped -- or the read error.
 *
 * Entries are 128 * 2^n bytes and sectors 512, so an entry either packs a
 * sector with others (n <= 2) or starts at a sector boundary; either way
 * the 128 defined bytes of an entry never straddle two sectors.  The inner
 * loop visits the entries that start in the sector at hand.
 */
static int gpt_read_entries(struct parsed_partitions *state,
			    const struct gpt_header *h, union gpt_sector *buf,
			    u32 *beyond, const char **why)
{
	u64 bytes = (u64)h->num_partition_entries * h->sizeof_partition_entry;
	u32 esize = h->sizeof_partition_entry;
	u32 crc = ~0u;

	memset(state->parts, 0, sizeof(state->parts));
	*beyond = 0;
	for (u64 pos = 0; pos < bytes; pos += PART_SECTOR_SIZE) {
		u32 len = min(bytes - pos, (u64)PART_SECTOR_SIZE);
		int err = read_part_sector(state,
				h->partition_entry_lba + pos / PART_SECTOR_SIZE, buf);

		if (err) {
			*why = "read error";
			return err;
		}
		crc = crc32_le(crc, buf->raw, len);
		for (u64 at = ALIGN(pos, (u64)esize); at < pos + len; at += esize) {
			struct gpt_entry e;

			memcpy(&e, buf->raw + (at - pos), sizeof(e));
			gpt_note_entry(state, at / esize, &e, beyond);
		}
	}
	if ((crc ^ ~0u) != h->partition_entry_array_crc32) {
		memset(state->parts, 0, sizeof(state->parts));
		*why = "bad entry array CRC32";
		return -EINVAL;
	}
	return 0;
}

/* Read and check one whole copy (header at lba, then its array). */
static int gpt_read_copy(struct parsed_partitions *state, sector_t lba,
			 union gpt_sector *buf, struct gpt_header *hdr,
			 u32 *beyond, const char **why)
{
	int err = gpt_read_header(state, lba, buf, hdr, why);

	return err ? err : gpt_read_entries(state, hdr, buf, beyond, why);
}

/*
 * The entries of a copy that passed its CRC: skip those outside the usable
 * LBAs or overlapping an earlier one.  The range test is written without
 * ending_lba: size - 1 wraps to a huge number for size 0, and the size of
 * an entry that ends before it starts wrapped already, so both fail it.
 */
static void gpt_check_entries(struct parsed_partitions *state,
			      const struct gpt_header *h)
{
	u64 first = h->first_usable_lba, last = h->last_usable_lba;

	for (int n = 1; n < DISK_MAX_PARTS; n++) {
		struct parsed_partition *p = &state->parts[n];
		int other;

		if (!p->present)
			continue;
		if (p->from < first || p->from > last || p->size - 1 > last - p->from) {
			pr_warn("%s: GPT: p%d LBAs %llu-%llu outside usable %llu-%llu, skipped\n",
				state->name, n, (unsigned long long)p->from,
				(unsigned long long)(p->from + p->size - 1),
				(unsigned long long)first, (unsigned long long)last);
			p->present = false;
		} else if ((other = part_overlaps(state, p->from, p->size, 1, n - 1))) {
			pr_warn("%s: GPT: p%d overlaps p%d, skipped\n",
				state->name, n, other);
			p->present = false;
		}
	}
}

/* A good primary: does the backup header at the last LBA still match it?
 * Only its header is read; a bad or different one is reported (the user
 * can still restore it from the primary), and the primary is used. */
static void gpt_check_backup(struct parsed_partitions *state,
			     const struct gpt_header *primary,
			     union gpt_sector *buf)
{
	struct gpt_header backup;
	const char *why;

	if (gpt_read_header(state, state->capacity - 1, buf, &backup, &why) == 0) {
		if (backup.first_usable_lba == primary->first_usable_lba &&
		    backup.last_usable_lba == primary->last_usable_lba &&
		    backup.num_partition_entries == primary->num_partition_entries &&
		    backup.sizeof_partition_entry == primary->sizeof_partition_entry &&
		    backup.partition_entry_array_crc32 == primary->partition_entry_array_crc32)
			return;
		why = "does not match the primary";
	}
	pr_warn("%s: GPT: backup GPT header at LBA %llu: %s; using the primary\n",
		state->name, (unsigned long long)(state->capacity - 1), why);
}

int efi_partition(struct parsed_partitions *state)
{
	union gpt_sector buf;
	struct gpt_header hdr;
	const char *why;
	u32 beyond;
	int err, primary_err;

	/* LBA 0, LBA 1 and a distinct last LBA at least. */
	if (state->capacity < 3)
		return 0;
	err = read_part_sector(state, 0, &buf);
	if (err)
		return err;
	if (!gpt_pmbr_valid(&buf.mbr))
		return 0;

	primary_err = gpt_read_copy(state, GPT_PRIMARY_HEADER_LBA, &buf, &hdr,
				    &beyond, &why);
	if (primary_err == 0) {
		gpt_check_backup(state, &hdr, &buf);
	} else {
		pr_warn("%s: GPT: primary GPT invalid: %s\n", state->name, why);
		err = gpt_read_copy(state, state->capacity - 1, &buf, &hdr,
				    &beyond, &why);
		if (err) {
			pr_warn("%s: GPT: backup GPT invalid: %s; no usable GPT\n",
				state->name, why);
			/* Report a read error (of either copy) over bad data: with
			 * the disk readable, one of them might have been fine. */
			if (err != -EINVAL)
				return err;
			return primary_err != -EINVAL ? primary_err : 0;
		}
		pr_warn("%s: GPT: using the backup GPT at LBA %llu\n",
			state->name, (unsigned long long)(state->capacity - 1));
	}
	gpt_check_entries(state, &hdr);
	if (beyond)
		pr_warn("%s: GPT: %u partitions beyond p%d ignored\n",
			state->name, beyond, DISK_MAX_PARTS - 1);
	strlcpy(state->label, "gpt", sizeof(state->label));
	return 1;
}
