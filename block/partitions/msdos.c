// SPDX-License-Identifier: MIT
/*
 * msdos.c - the MBR ("DOS") partition table, with extended partitions.
 *
 * Interface: msdos_partition(state), called by check_partition() (check.c)
 * after efi.c has declined the disk; returns 1 when sector 0 holds an MBR
 * (even one without partitions), 0 when it does not, or the read
 * callback's -errno.  Layout: msdos.h.  Portable; may sleep (it reads).
 *
 * Numbering, as Linux and sfdisk do it: the four primary entries are
 * partitions 1-4 by their slot, whether or not the slots before them are
 * used; logical partitions are numbered from 5 in the order of the EBR
 * chain (not in the order of their start sectors).  An extended partition
 * is itself a primary partition and keeps its real size in parts[] (as
 * sfdisk shows it; Linux registers only its first 2 sectors: check.h).
 *
 * What is checked, and what happens (every case prints a warning naming
 * the disk; the rest of the table is still used):
 *   - a primary entry that starts at sector 0 (over the MBR itself) or
 *     runs past the end of the disk: the entry is skipped (Linux would
 *     truncate it; a partition that may not be whole is not worth a name);
 *   - a primary that overlaps an earlier one: the later entry is skipped;
 *   - a logical partition not inside its extended partition (after its
 *     EBR), or overlapping an earlier logical: skipped, its number kept
 *     free so that the partitions after it keep their names;
 *   - an EBR outside the extended partition, without the 0x55AA signature,
 *     or already visited (a loop in the chain): the walk stops there;
 *   - more EBRs than partition numbers: the walk stops (so a walk always
 *     ends, whatever the disk holds);
 *   - a second extended partition: kept as a primary, but not walked (as
 *     sfdisk; DOS never made more than one).
 * Not a table at all, no warning: no signature, or a boot indicator other
 * than 0 or 0x80 (a FAT boot sector also ends in 0x55AA, and its bytes at
 * the entries' places are rarely 0 or 0x80).
 */
#include <spindle/printk.h>
#include <spindle/string.h>
#include "check.h"
#include "msdos.h"

/* The EBRs a walk may visit: one per partition number is already more
 * than a sane chain needs, and is what bounds the walk (and the loop
 * check's memory). */
#define MSDOS_MAX_EBRS DISK_MAX_PARTS

/* One sector, seen as bytes (for the read) or as a table. */
union msdos_sector {
	u8 raw[PART_SECTOR_SIZE];
	struct msdos_mbr mbr;
};

static bool msdos_entry_used(const struct msdos_partition *p)
{
	return p->sys_ind != 0 && p->nr_sects != 0;
}

static bool msdos_is_table(const struct msdos_mbr *mbr)
{
	if (mbr->signature != MSDOS_MBR_SIGNATURE)
		return false;
	for (int i = 0; i < MSDOS_NR_PRIMARY; i++) {
		u8 boot = mbr->part[i].boot_ind;

		if (boot != 0 && boot != MSDOS_BOOT_ACTIVE)
			return false;
	}
	return true;
}

/*
 * Walk the chain of EBRs of extended partition ext, adding the logical
 * partitions from number 5.  buf is a free sector buffer.
 *
 * The loop is a linked-list walk whose "pointers" come from the disk, so
 * nothing about them can be trusted: each EBR must lie inside the extended
 * partition, must not have been visited before (else the chain is a loop
 * and the walk would never end), and there may be at most MSDOS_MAX_EBRS
 * of them.  Each EBR holds (normally in its first two entries) one data
 * entry, relative to the EBR, and one link entry, relative to the start of
 * the extended partition; further entries are ignored, as sfdisk does.
 */
static int msdos_parse_extended(struct parsed_partitions *state, int ext,
				union msdos_sector *buf)
{
	sector_t ext_start = state->parts[ext].from;
	sector_t ext_end = ext_start + state->parts[ext].size;
	sector_t visited[MSDOS_MAX_EBRS];
	sector_t ebr = ext_start;
	int nr_visited = 0, n = MSDOS_FIRST_LOGICAL;

	for (;;) {
		const struct msdos_partition *data = NULL, *link = NULL;
		int err, other;

		if (ebr < ext_start || ebr >= ext_end) {
			pr_warn("%s: p%d: EBR at sector %llu is outside the extended partition, chain cut\n",
				state->name, ext, (unsigned long long)ebr);
			return 0;
		}
		for (int i = 0; i < nr_visited; i++) {
			if (visited[i] == ebr) {
				pr_warn("%s: p%d: loop in the EBR chain at sector %llu, chain cut\n",
					state->name, ext, (unsigned long long)ebr);
				return 0;
			}
		}
		if (nr_visited == MSDOS_MAX_EBRS || n == DISK_MAX_PARTS) {
			pr_warn("%s: p%d: more than %d logical partitions, the rest ignored\n",
				state->name, ext, DISK_MAX_PARTS - MSDOS_FIRST_LOGICAL);
			return 0;
		}
		visited[nr_visited++] = ebr;

		err = read_part_sector(state, ebr, buf);
		if (err)
			return err;
		if (buf->mbr.signature != MSDOS_MBR_SIGNATURE) {
			pr_warn("%s: p%d: no EBR signature at sector %llu, chain cut\n",
				state->name, ext, (unsigned long long)ebr);
			return 0;
		}
		for (int i = 0; i < MSDOS_NR_PRIMARY; i++) {
			const struct msdos_partition *p = &buf->mbr.part[i];

			if (!msdos_entry_used(p))
				continue;
			if (msdos_is_extended(p->sys_ind))
				link = link ? link : p;
			else
				data = data ? data : p;
		}

		if (data) {
			sector_t from = ebr + data->start_sect, size = data->nr_sects;

			/* Inside the container and after its own EBR. */
			if (from <= ebr || from >= ext_end || size > ext_end - from)
				pr_warn("%s: p%d start %llu size %llu is outside extended partition p%d, skipped\n",
					state->name, n, (unsigned long long)from,
					(unsigned long long)size, ext);
			else if ((other = part_overlaps(state, from, size,
							MSDOS_FIRST_LOGICAL, n - 1)))
				pr_warn("%s: p%d overlaps p%d, skipped\n",
					state->name, n, other);
			else {
				put_partition(state, n, from, size);
				state->parts[n].sys_ind = data->sys_ind;
			}
			n++;
		}
		if (!link)
			return 0;
		ebr = ext_start + link->start_sect;
	}
}

int msdos_partition(struct parsed_partitions *state)
{
	union msdos_sector buf;
	int err;

	if (state->capacity == 0)
		return 0;
	err = read_part_sector(state, 0, &buf);
	if (err)
		return err;
	if (!msdos_is_table(&buf.mbr))
		return 0;
	/*
	 * A protective or hybrid MBR belongs to a GPT, which efi.c has tried
	 * first (and warned about if it was damaged).  Reading the MBR
	 * entries of a hybrid disk instead would show a partial, stale view.
	 */
	for (int i = 0; i < MSDOS_NR_PRIMARY; i++) {
		if (buf.mbr.part[i].sys_ind == EFI_PMBR_OSTYPE_EFI_GPT)
			return 0;
	}
	strlcpy(state->label, "dos", sizeof(state->label));

	for (int n = 1; n <= MSDOS_NR_PRIMARY; n++) {
		const struct msdos_partition *p = &buf.mbr.part[n - 1];
		sector_t from = p->start_sect, size = p->nr_sects;
		int other;

		if (!msdos_entry_used(p))
			continue;
		if (from == 0) {
			pr_warn("%s: p%d starts at sector 0, over the MBR, skipped\n",
				state->name, n);
			continue;
		}
		if (!part_inside_disk(state, from, size)) {
			pr_warn("%s: p%d start %llu size %llu extends beyond EOD, skipped\n",
				state->name, n, (unsigned long long)from,
				(unsigned long long)size);
			continue;
		}
		other = part_overlaps(state, from, size, 1, n - 1);
		if (other) {
			pr_warn("%s: p%d overlaps p%d, skipped\n", state->name, n, other);
			continue;
		}
		put_partition(state, n, from, size);
		state->parts[n].sys_ind = p->sys_ind;
	}

	/* The logical partitions, after all primaries are known: buf is free. */
	for (int n = 1; n <= MSDOS_NR_PRIMARY; n++) {
		if (!state->parts[n].present || !msdos_is_extended(state->parts[n].sys_ind))
			continue;
		if (state->extended) {
			pr_warn("%s: p%d: a second extended partition, not walked\n",
				state->name, n);
			continue;
		}
		state->extended = n;
		err = msdos_parse_extended(state, n, &buf);
		if (err)
			return err;
	}
	return 1;
}
