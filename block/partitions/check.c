// SPDX-License-Identifier: MIT
/*
 * check.c - check_partition(): which table does this disk have, and the
 * helpers every parser shares.
 *
 * Interface: check.h.  Called once per disk by blk_scan_partitions()
 * (block/partition.c); below it are the parsers efi.c and msdos.c, and
 * below them only state->read.  Portable (also built into the host unit
 * tests).  May sleep: the read callback waits for its bio.
 *
 * The parsers are tried in Linux's order, GPT first, then MBR.  The order
 * matters because a GPT disk also carries a valid MBR (the protective one):
 * efi.c accepts a disk only when its MBR is protective, and msdos.c steps
 * aside for such a disk, so each disk is claimed by at most one of them.
 */
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include "check.h"

/* A summary line: " sda:" and up to 63 " sda63" and the " <" " >". */
#define PART_SUMMARY_LEN 512

static int (*const check_part[])(struct parsed_partitions *) = {
	efi_partition,
	msdos_partition,
};

int read_part_sector(struct parsed_partitions *state, sector_t sector, void *buf)
{
	/* Parsers check every sector number they take from the disk before
	 * they read it, so this is their bug, not bad data: say so loudly. */
	if (WARN_ON(sector >= state->capacity))
		return -EIO;
	return state->read(state->ctx, sector, 1, buf);
}

void put_partition(struct parsed_partitions *state, int partno, sector_t from,
		   sector_t size)
{
	struct parsed_partition *p = &state->parts[partno];

	BUG_ON(partno < 1 || partno >= DISK_MAX_PARTS);
	p->from = from;
	p->size = size;
	p->present = true;
}

int part_overlaps(const struct parsed_partitions *state, sector_t from,
		  sector_t size, int first, int last)
{
	for (int n = first; n <= last && n < DISK_MAX_PARTS; n++) {
		const struct parsed_partition *p = &state->parts[n];

		/* Two ranges overlap when each starts before the other ends. */
		if (p->present && from < p->from + p->size && p->from < from + size)
			return n;
	}
	return 0;
}

/*
 * Partition n's name as Linux makes it: the disk name and the number, with
 * a 'p' between when the disk name ends in a digit ("nvme0n1p1", "ram0p1"),
 * so that the number stays readable.
 */
static size_t part_name(char *buf, size_t size, const char *disk, int partno)
{
	size_t len = strlen(disk);
	bool digit = len > 0 && disk[len - 1] >= '0' && disk[len - 1] <= '9';

	return scnprintf(buf, size, " %s%s%d", disk, digit ? "p" : "", partno);
}

/*
 * Linux's summary line: " sda: sda1 sda2 < sda5 sda6 > sda3".  Logical
 * partitions are shown inside their extended partition, right after it,
 * because that is where they live on the disk.
 */
static void print_summary(const struct parsed_partitions *state)
{
	char line[PART_SUMMARY_LEN];
	size_t len = scnprintf(line, sizeof(line), " %s:", state->name);
	int first_logical = state->extended ? 5 : DISK_MAX_PARTS;

	for (int n = 1; n < first_logical; n++) {
		if (!state->parts[n].present)
			continue;
		len += part_name(line + len, sizeof(line) - len, state->name, n);
		if (n != state->extended)
			continue;
		len += scnprintf(line + len, sizeof(line) - len, " <");
		for (int l = first_logical; l < DISK_MAX_PARTS; l++) {
			if (state->parts[l].present)
				len += part_name(line + len, sizeof(line) - len,
						 state->name, l);
		}
		len += scnprintf(line + len, sizeof(line) - len, " >");
	}
	pr_info("%s\n", line);
}

int check_partition(struct parsed_partitions *state)
{
	int res = 0, found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(check_part) && res == 0; i++) {
		memset(state->parts, 0, sizeof(state->parts));
		state->label[0] = '\0';
		state->extended = 0;
		res = check_part[i](state);
	}
	if (res < 0) {
		/* A read failed: whatever was parsed so far is not the table. */
		memset(state->parts, 0, sizeof(state->parts));
		state->label[0] = '\0';
		return res;
	}
	if (res == 0) {
		pr_info(" %s: unknown partition table\n", state->name);
		return 0;
	}
	for (int n = 1; n < DISK_MAX_PARTS; n++)
		found += state->parts[n].present;
	print_summary(state);
	return found;
}
