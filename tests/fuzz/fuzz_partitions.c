// SPDX-License-Identifier: MIT
/*
 * fuzz_partitions.c - the partition-table parsers (block/partitions/:
 * check.c, efi.c, msdos.c) fed arbitrary disks.
 *
 * The input is the disk: its bytes are sectors 0, 1, ... (a last partial
 * sector is padded with zeros), and the disk is exactly that long, so a
 * seed made by sfdisk on a small image file is an input as it stands.
 * check_partition() runs on it as blk_scan_partitions() would run it on a
 * real disk, and the result must keep every rule check.h promises a
 * caller, because partition.c builds block devices from it unchecked:
 *
 *   - the parser reads only sectors inside the disk (the read callback
 *     aborts otherwise; read_part_sector()'s WARN_ON fails fuzz_end());
 *   - the return value counts the present partitions, and no read failed;
 *   - every partition has a non-zero size, lies inside the disk, and does
 *     not cover sector 0 (the MBR, or the GPT's protective MBR);
 *   - GPT: no partition covers the primary header (LBA 1) or the backup
 *     header (the last LBA); MBR types are zero;
 *   - MBR: primaries are 1-4, logicals 5 and up, and exist only inside
 *     the one extended partition, after its first sector (its EBR);
 *   - no two partitions overlap, but for a logical inside its extended.
 */
#include <spindle/errno.h>
#include <spindle/printk.h>
#include "../../block/partitions/check.h"
#include "fuzz.h"

struct fuzz_disk {
	const u8 *data;
	size_t size;                    /* bytes of data; the disk is rounded up */
	sector_t sectors;
};

static int fuzz_disk_read(void *ctx, sector_t sector, unsigned int count, void *buf)
{
	const struct fuzz_disk *d = ctx;
	u8 *out = buf;

	FUZZ_ASSERT(count > 0 && sector < d->sectors && count <= d->sectors - sector);
	for (unsigned int i = 0; i < count; i++, out += PART_SECTOR_SIZE) {
		size_t at = (size_t)(sector + i) * PART_SECTOR_SIZE;
		size_t n = min(d->size - at, (size_t)PART_SECTOR_SIZE);

		memcpy(out, d->data + at, n);
		memset(out + n, 0, PART_SECTOR_SIZE - n);
	}
	return 0;
}

static bool covers(const struct parsed_partition *p, sector_t lba)
{
	return lba >= p->from && lba - p->from < p->size;
}

static bool overlap(const struct parsed_partition *a, const struct parsed_partition *b)
{
	return a->from < b->from + b->size && b->from < a->from + a->size;
}

static bool inside(const struct parsed_partition *in, const struct parsed_partition *out)
{
	return in->from >= out->from && in->size <= out->size - (in->from - out->from);
}

static void check_result(const struct parsed_partitions *s, int ret)
{
	bool gpt = strcmp(s->label, "gpt") == 0, dos = strcmp(s->label, "dos") == 0;
	const struct parsed_partition *ext = s->extended ? &s->parts[s->extended] : NULL;
	int present = 0;

	FUZZ_ASSERT(ret >= 0);                  /* this disk never fails a read */
	FUZZ_ASSERT(s->label[0] == '\0' || gpt || dos);
	FUZZ_ASSERT(!s->parts[0].present);
	if (ext) {
		FUZZ_ASSERT(dos && s->extended >= 1 && s->extended <= 4);
		FUZZ_ASSERT(ext->present && msdos_is_extended(ext->sys_ind));
	}
	for (int n = 1; n < DISK_MAX_PARTS; n++) {
		const struct parsed_partition *p = &s->parts[n];

		if (!p->present)
			continue;
		present++;
		FUZZ_ASSERT(gpt || dos);
		FUZZ_ASSERT(p->size > 0);
		FUZZ_ASSERT(part_inside_disk(s, p->from, p->size));
		FUZZ_ASSERT(!covers(p, 0));
		if (gpt) {
			FUZZ_ASSERT(!covers(p, 1) && !covers(p, s->capacity - 1));
			FUZZ_ASSERT(p->sys_ind == 0);
		}
		if (dos && n >= 5) {
			FUZZ_ASSERT(ext && inside(p, ext) && p->from > ext->from);
		}
		for (int m = 1; m < n; m++) {
			const struct parsed_partition *q = &s->parts[m];
			bool logical_in_ext = dos && n >= 5 && m == s->extended;

			if (q->present && !logical_in_ext)
				FUZZ_ASSERT(!overlap(p, q));
		}
	}
	FUZZ_ASSERT(ret == present);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	/* About 3.5 KiB, as partition.c allocates it: static, not on the stack. */
	static struct parsed_partitions state;
	struct fuzz_disk disk = {
		.data = data, .size = size,
		.sectors = DIV_ROUND_UP(size, PART_SECTOR_SIZE),
	};
	int ret;

	fuzz_begin();
	memset(&state, 0, sizeof(state));
	state.name = "fuzz";
	state.capacity = disk.sectors;
	state.read = fuzz_disk_read;
	state.ctx = &disk;
	ret = check_partition(&state);
	check_result(&state, ret);
	fuzz_end();
	return 0;
}
