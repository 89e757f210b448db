// SPDX-License-Identifier: MIT
/*
 * Unit tests for the partition-table parsers (block/partitions/: check.c,
 * msdos.c, efi.c), run over disk images in memory.
 *
 * The fake disk (struct mem_disk) serves reads from a byte image, fails
 * the sectors a case names (an unreadable sector), and counts any request
 * that is not wholly inside the image: the parsers must check every sector
 * number they take from the disk before they read it, so that count must
 * stay zero whatever the image holds.
 *
 * Core:
 *   image_core[]   valid images built here byte by byte (MBR with an
 *                  extended partition and its EBR chain, GPT, hybrids ...):
 *                  the return value, the label, each partition, and the
 *                  exact summary line, with no warning;
 *   oracle         images made by the host's sfdisk, compared with what
 *                  `sfdisk --json` says is on them: number, start, size,
 *                  type and GUID of every partition.  The images and the
 *                  expectations (plain text) are made by
 *                  tests/unit/partitions/make_images.sh, which unit.mk runs
 *                  first; their folder is PART_IMAGE_DIR (set by unit.mk;
 *                  the environment variable of that name overrides it).
 * Limits:
 *   image_limits[] malformed images, each a valid one with a few fields
 *                  poked (and its GPT CRCs recomputed where the case wants
 *                  the damage to get past them): the warning, and what is
 *                  still found;
 *   long_ebr_chain 70 logical partitions where 59 numbers exist;
 *   fuzz           thousands of random damages to valid images (bytes,
 *                  whole sectors, fields with CRCs made good again), from a
 *                  fixed seed: no crash, no read outside the disk, and a
 *                  result a caller can trust (check.h's rules).
 *
 * Also worth running once by hand after a change to the parsers, so that
 * a read past a sector buffer or an overflow is caught where it happens:
 *     make -f tests/unit/unit.mk BUILD=build/asan \
 *         UNIT_CC='gcc -fsanitize=address,undefined -fno-sanitize-recover=all' check
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/errno.h>
#include <spindle/crc32.h>
#include <spindle/printk.h>
#include "../../block/partitions/check.h"
#include "../../block/partitions/msdos.h"
#include "../../block/partitions/efi.h"

#define SECTOR 512

/* --- the fake disk --------------------------------------------------------- */

#define MAX_FAILS 2

struct mem_disk {
	u8 *data;
	sector_t sectors;               /* the image's size, and the disk's */
	int nfail;
	sector_t fail[MAX_FAILS];       /* reads touching these return -EIO */
	unsigned long reads;
	unsigned long bad_reads;        /* requests not inside the image */
};

static int mem_disk_read(void *ctx, sector_t sector, unsigned int count, void *buf)
{
	struct mem_disk *d = ctx;

	d->reads++;
	if (count == 0 || sector >= d->sectors || count > d->sectors - sector) {
		d->bad_reads++;
		return -EIO;
	}
	for (int i = 0; i < d->nfail; i++) {
		if (d->fail[i] >= sector && d->fail[i] - sector < count)
			return -EIO;
	}
	memcpy(buf, d->data + sector * SECTOR, (size_t)count * SECTOR);
	return 0;
}

static void mem_disk_alloc(struct mem_disk *d, sector_t sectors)
{
	memset(d, 0, sizeof(*d));
	d->sectors = sectors;
	d->data = calloc(sectors, SECTOR);
	ck_assert_ptr_nonnull(d->data);
}

/* The state check_partition() gets from block/partition.c, on this disk. */
static int run_check(struct parsed_partitions *st, struct mem_disk *d)
{
	memset(st, 0, sizeof(*st));
	st->name = "sda";
	st->capacity = d->sectors;
	st->read = mem_disk_read;
	st->ctx = d;
	host_printk_reset();
	return check_partition(st);
}

/* Is line a whole line of the captured printk output? */
static bool has_line(const char *out, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = out; (p = strstr(p, line)); p++) {
		if ((p == out || p[-1] == '\n') && p[len] == '\n')
			return true;
	}
	return false;
}

static int count_present(const struct parsed_partitions *st)
{
	int n = 0;

	for (int i = 0; i < DISK_MAX_PARTS; i++)
		n += st->parts[i].present;
	return n;
}

/* --- GUIDs as sfdisk prints them -------------------------------------------- */

/* UEFI 2.10 Appendix A: the first three groups are stored little-endian,
 * the last two as bytes; text shows them all big-endian. */
static const int guid_text_order[16] = {
	3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15,
};

static void guid_format(const u8 *g, char out[37])
{
	static const char hex[] = "0123456789ABCDEF";
	char *p = out;

	for (int i = 0; i < 16; i++) {
		u8 b = g[guid_text_order[i]];

		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[b >> 4];
		*p++ = hex[b & 0xf];
	}
	*p = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void guid_parse(const char *s, u8 *g)
{
	for (int i = 0; i < 16; i++) {
		if (*s == '-')
			s++;
		g[guid_text_order[i]] = (u8)(hex_digit(s[0]) << 4 | hex_digit(s[1]));
		s += 2;
	}
}

#define GUID_LINUX_FS "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
#define GUID_ESP      "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"

/* --- images built here ------------------------------------------------------ */

/*
 * The MBR image (4096 sectors):
 *     p1  0x83   64 + 512
 *     p2  0x05   1024 + 2048   extended; EBRs at 1024, 1536, 2048:
 *         p5  0x83   1056 + 256   (data at EBR + 32)
 *         p6  0x82   1568 + 256
 *         p7  0x83   2080 + 512
 *     p3  0x0c   3072 + 1024   up to the last sector
 */
#define MBR_DISK 4096
#define MBR_SUMMARY " sda: sda1 sda2 < sda5 sda6 sda7 > sda3"
#define MBR_P1 { 1, 64, 512 }
#define MBR_P2 { 2, 1024, 2048 }
#define MBR_P3 { 3, 3072, 1024 }
#define MBR_P5 { 5, 1056, 256 }
#define MBR_P6 { 6, 1568, 256 }
#define MBR_P7 { 7, 2080, 512 }

static void mbr_put(struct mem_disk *d, sector_t sect, int slot, u8 type,
		    u32 start, u32 size)
{
	struct msdos_mbr *m = (void *)(d->data + sect * SECTOR);
	struct msdos_partition *p = &m->part[slot - 1];

	p->sys_ind = type;
	p->start_sect = start;
	p->nr_sects = size;
	m->signature = MSDOS_MBR_SIGNATURE;
}

static void build_mbr(struct mem_disk *d)
{
	mbr_put(d, 0, 1, 0x83, 64, 512);
	mbr_put(d, 0, 2, MSDOS_EXTENDED_PARTITION, 1024, 2048);
	mbr_put(d, 0, 3, 0x0c, 3072, 1024);
	/* Data entries relative to their EBR; links relative to 1024. */
	mbr_put(d, 1024, 1, 0x83, 32, 256);
	mbr_put(d, 1024, 2, MSDOS_EXTENDED_PARTITION, 512, 512);
	mbr_put(d, 1536, 1, 0x82, 32, 256);
	mbr_put(d, 1536, 2, MSDOS_EXTENDED_PARTITION, 1024, 512);
	mbr_put(d, 2048, 1, 0x83, 32, 512);
}

/*
 * The GPT image (2048 sectors, 128 entries): protective MBR, header at 1,
 * entries at 2..33, usable 34..2014, backup entries at 2015..2046, backup
 * header at 2047.  Entry 1 is unused, so the numbers are 1, 3, 4:
 *     p1  Linux  128..511     p3  Linux   512..1023    p4  ESP  1024..last
 * With 256-byte entries the arrays take 64 sectors and p4 ends at 1982.
 */
#define GPT_DISK 2048
#define GPT_ENTRIES 128
#define GPT_BACKUP_ARRAY (GPT_DISK - 1 - 32)     /* with 128-byte entries */
#define GPT_SUMMARY " sda: sda1 sda3 sda4"
#define GPT_P1 { 1, 128, 384 }
#define GPT_P3 { 3, 512, 512 }
#define GPT_P4 { 4, 1024, 991 }

static struct gpt_header *gpt_hdr_at(struct mem_disk *d, sector_t lba)
{
	return (void *)(d->data + lba * SECTOR);
}

/* Make the CRCs of both copies right again (the arrays first: the
 * headers cover the array CRCs).  An array outside the image is left. */
static void gpt_seal(struct mem_disk *d)
{
	sector_t lbas[2] = { GPT_PRIMARY_HEADER_LBA, d->sectors - 1 };

	for (int i = 0; i < 2; i++) {
		struct gpt_header *h = gpt_hdr_at(d, lbas[i]);
		u64 bytes = (u64)h->num_partition_entries * h->sizeof_partition_entry;
		u64 elba = h->partition_entry_lba;
		u32 hsize = min(h->header_size, (u32)SECTOR);

		if (h->signature != GPT_HEADER_SIGNATURE)
			continue;
		if (elba < d->sectors && bytes <= (d->sectors - elba) * SECTOR)
			h->partition_entry_array_crc32 =
				efi_crc32(d->data + elba * SECTOR, bytes);
		h->header_crc32 = 0;
		h->header_crc32 = efi_crc32(h, hsize);
	}
}

static void build_gpt_entries(struct mem_disk *d, u32 esize)
{
	sector_t asect = GPT_ENTRIES * esize / SECTOR;
	sector_t arrays[2] = { 2, d->sectors - 1 - asect };
	u64 last_usable = d->sectors - 2 - asect;
	static const struct {
		int n;
		u64 first, last;        /* last 0: up to the last usable LBA */
		const char *type;
	} ents[] = {
		{ 1, 128, 511, GUID_LINUX_FS },
		{ 3, 512, 1023, GUID_LINUX_FS },
		{ 4, 1024, 0, GUID_ESP },
	};

	mbr_put(d, 0, 1, EFI_PMBR_OSTYPE_EFI_GPT, 1, (u32)(d->sectors - 1));
	for (int a = 0; a < 2; a++) {
		struct gpt_header *h = gpt_hdr_at(d, a == 0 ? 1 : d->sectors - 1);

		for (size_t i = 0; i < ARRAY_SIZE(ents); i++) {
			struct gpt_entry *e = (void *)(d->data + arrays[a] * SECTOR +
						       (ents[i].n - 1) * esize);

			guid_parse(ents[i].type, e->partition_type_guid.b);
			for (int k = 0; k < 16; k++)
				e->unique_partition_guid.b[k] = (u8)(ents[i].n * 16 + k);
			e->starting_lba = ents[i].first;
			e->ending_lba = ents[i].last ? ents[i].last : last_usable;
		}
		h->signature = GPT_HEADER_SIGNATURE;
		h->revision = GPT_HEADER_REVISION_V1;
		h->header_size = sizeof(struct gpt_header);
		h->my_lba = a == 0 ? 1 : d->sectors - 1;
		h->alternate_lba = a == 0 ? d->sectors - 1 : 1;
		h->first_usable_lba = 2 + asect;
		h->last_usable_lba = last_usable;
		h->partition_entry_lba = arrays[a];
		h->num_partition_entries = GPT_ENTRIES;
		h->sizeof_partition_entry = esize;
	}
	gpt_seal(d);
}

enum base { BLANK, MBR, GPT, GPT256 };

static void build_base(struct mem_disk *d, enum base base)
{
	mem_disk_alloc(d, base == MBR ? MBR_DISK : base == BLANK ? 64 : GPT_DISK);
	if (base == MBR)
		build_mbr(d);
	else if (base == GPT)
		build_gpt_entries(d, sizeof(struct gpt_entry));
	else if (base == GPT256)
		build_gpt_entries(d, 2 * sizeof(struct gpt_entry));
}

/* --- the image tables ---------------------------------------------------------- */

/*
 * A poke writes a little-endian value of width bytes: at a byte offset of
 * the disk, of the primary or backup GPT header, or of both GPT entry
 * arrays (so the two copies stay alike).
 */
enum where { DISK, PHDR, BHDR, ENTS };

struct poke {
	enum where where;
	u64 at;
	u8 width;                       /* 0: no poke */
	u64 val;
};

/* Byte offsets of fields, for pokes. */
#define MBR_E(sect, slot, field) \
	((sect) * SECTOR + offsetof(struct msdos_mbr, part) + \
	 ((slot) - 1) * sizeof(struct msdos_partition) + \
	 offsetof(struct msdos_partition, field))
#define SIG(sect) ((sect) * SECTOR + offsetof(struct msdos_mbr, signature))
#define HDR(field) offsetof(struct gpt_header, field)
#define ENT(i, field) ((i) * sizeof(struct gpt_entry) + offsetof(struct gpt_entry, field))

struct want_part {
	int n;                          /* 0 ends the list */
	sector_t from, size;
};

struct image_case {
	const char *name;
	enum base base;
	struct poke poke[4];
	bool seal;                      /* recompute both GPT copies' CRCs */
	sector_t capacity;              /* 0: all of it; less: a truncated disk */
	int nfail;
	s64 fail[MAX_FAILS];            /* unreadable sectors; < 0: from the end */
	int ret;                        /* of check_partition() */
	const char *label;
	const char *summary;            /* the " sda: ..." line, NULL: none */
	const char *warn[2];            /* substrings of the warnings; none:
					 * the summary must be all that is printed */
	struct want_part parts[8];
};

static void build_case(const struct image_case *c, struct mem_disk *d)
{
	build_base(d, c->base);
	for (int i = 0; i < 4; i++) {
		const struct poke *p = &c->poke[i];
		u64 at[2];
		int n = 1;

		if (!p->width)
			continue;
		switch (p->where) {
		case DISK: at[0] = p->at; break;
		case PHDR: at[0] = 1 * SECTOR + p->at; break;
		case BHDR: at[0] = (d->sectors - 1) * SECTOR + p->at; break;
		case ENTS:
			at[0] = 2 * SECTOR + p->at;
			at[1] = GPT_BACKUP_ARRAY * SECTOR + p->at;
			n = 2;
			break;
		}
		for (int k = 0; k < n; k++)
			memcpy(d->data + at[k], &p->val, p->width);
	}
	if (c->seal)
		gpt_seal(d);
	if (c->capacity)
		d->sectors = c->capacity;
	d->nfail = c->nfail;
	for (int i = 0; i < c->nfail; i++)
		d->fail[i] = c->fail[i] < 0 ? d->sectors + c->fail[i] : (sector_t)c->fail[i];
}

static const struct image_case image_core[] = {
	{ "mbr", MBR, .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "mbr, extended type 0x0f", MBR, { { DISK, MBR_E(0, 2, sys_ind), 1, 0x0f } },
	  .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "mbr, extended type 0x85, links 0x0f", MBR,
	  { { DISK, MBR_E(0, 2, sys_ind), 1, 0x85 },
	    { DISK, MBR_E(1024, 2, sys_ind), 1, 0x0f } },
	  .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "mbr, an EBR with no data entry takes no number", MBR,
	  { { DISK, MBR_E(1536, 1, sys_ind), 1, 0 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 > sda3",
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, { 6, 2080, 512 } } },
	{ "mbr, extended partition without logicals", MBR,
	  { { DISK, MBR_E(1024, 1, sys_ind), 1, 0 }, { DISK, MBR_E(1024, 2, sys_ind), 1, 0 } },
	  .ret = 3, .label = "dos", .summary = " sda: sda1 sda2 < > sda3",
	  .parts = { MBR_P1, MBR_P2, MBR_P3 } },
	{ "mbr, a used type of size 0 is unused", MBR, { { DISK, MBR_E(0, 3, nr_sects), 4, 0 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 sda7 >",
	  .parts = { MBR_P1, MBR_P2, MBR_P5, MBR_P6, MBR_P7 } },
	{ "empty dos table", BLANK, { { DISK, SIG(0), 2, MSDOS_MBR_SIGNATURE } },
	  .ret = 0, .label = "dos", .summary = " sda:" },
	{ "blank disk", BLANK, .ret = 0, .label = "", .summary = " sda: unknown partition table" },
	{ "boot sector, not a table", BLANK,
	  { { DISK, SIG(0), 2, MSDOS_MBR_SIGNATURE }, { DISK, MBR_E(0, 1, boot_ind), 1, 0x3c },
	    { DISK, MBR_E(0, 1, sys_ind), 1, 0x83 }, { DISK, MBR_E(0, 1, nr_sects), 4, 8 } },
	  .ret = 0, .label = "", .summary = " sda: unknown partition table" },
	{ "gpt", GPT, .ret = 3, .label = "gpt", .summary = GPT_SUMMARY,
	  .parts = { GPT_P1, GPT_P3, GPT_P4 } },
	{ "gpt, 256-byte entries", GPT256, .ret = 3, .label = "gpt", .summary = GPT_SUMMARY,
	  .parts = { GPT_P1, GPT_P3, { 4, 1024, 959 } } },
	{ "gpt, hybrid MBR", GPT,
	  { { DISK, MBR_E(0, 2, sys_ind), 1, 0x83 }, { DISK, MBR_E(0, 2, start_sect), 4, 128 },
	    { DISK, MBR_E(0, 2, nr_sects), 4, 384 } },
	  .ret = 3, .label = "gpt", .summary = GPT_SUMMARY,
	  .parts = { GPT_P1, GPT_P3, GPT_P4 } },
	{ "gpt, unused entry with garbage LBAs", GPT,
	  { { ENTS, ENT(1, starting_lba), 8, 5 }, { ENTS, ENT(1, ending_lba), 8, 3 } }, .seal = true,
	  .ret = 3, .label = "gpt", .summary = GPT_SUMMARY,
	  .parts = { GPT_P1, GPT_P3, GPT_P4 } },
	{ "gpt, no entries", GPT,
	  { { PHDR, HDR(num_partition_entries), 4, 0 }, { BHDR, HDR(num_partition_entries), 4, 0 } },
	  .seal = true, .ret = 0, .label = "gpt", .summary = " sda:" },
	{ "protective MBR not at LBA 1: not a GPT", GPT, { { DISK, MBR_E(0, 1, start_sect), 4, 2 } },
	  .ret = 0, .label = "", .summary = " sda: unknown partition table" },
	{ "GPT without an MBR signature: not a GPT", GPT, { { DISK, SIG(0), 2, 0 } },
	  .ret = 0, .label = "", .summary = " sda: unknown partition table" },
};

#define GPT_ALL .ret = 3, .label = "gpt", .summary = GPT_SUMMARY, \
	.parts = { GPT_P1, GPT_P3, GPT_P4 }
#define GPT_NONE .ret = 0, .label = "", .summary = " sda: unknown partition table"
#define BACKUP_USED "using the backup GPT"

static const struct image_case image_limits[] = {
	/* MBR primaries */
	{ "primary beyond the end", MBR, { { DISK, MBR_E(0, 3, nr_sects), 4, 2048 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 sda7 >",
	  .warn = { "sda: p3 start 3072 size 2048 extends beyond EOD, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P5, MBR_P6, MBR_P7 } },
	{ "primary starting past the end", MBR, { { DISK, MBR_E(0, 3, start_sect), 4, 5000 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 sda7 >",
	  .warn = { "sda: p3 start 5000 size 1024 extends beyond EOD, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P5, MBR_P6, MBR_P7 } },
	{ "primary over the MBR", MBR, { { DISK, MBR_E(0, 1, start_sect), 4, 0 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda2 < sda5 sda6 sda7 > sda3",
	  .warn = { "sda: p1 starts at sector 0, over the MBR, skipped" },
	  .parts = { MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "overlapping primaries", MBR, { { DISK, MBR_E(0, 3, start_sect), 4, 3000 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 sda7 >",
	  .warn = { "sda: p3 overlaps p2, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P5, MBR_P6, MBR_P7 } },
	{ "second extended partition", MBR, { { DISK, MBR_E(0, 3, sys_ind), 1, 0x05 } },
	  .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .warn = { "sda: p3: a second extended partition, not walked" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "truncated MBR disk", MBR, .capacity = 2048,
	  .ret = 1, .label = "dos", .summary = " sda: sda1",
	  .warn = { "sda: p2 start 1024 size 2048 extends beyond EOD, skipped",
		    "sda: p3 start 3072 size 1024 extends beyond EOD, skipped" },
	  .parts = { MBR_P1 } },
	/* the EBR chain */
	{ "EBR linking to itself", MBR,
	  { { DISK, MBR_E(2048, 2, sys_ind), 1, 0x05 }, { DISK, MBR_E(2048, 2, start_sect), 4, 1024 },
	    { DISK, MBR_E(2048, 2, nr_sects), 4, 512 } },
	  .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .warn = { "sda: p2: loop in the EBR chain at sector 2048, chain cut" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "EBR chain looping back to the first", MBR,
	  { { DISK, MBR_E(2048, 2, sys_ind), 1, 0x05 }, { DISK, MBR_E(2048, 2, start_sect), 4, 0 },
	    { DISK, MBR_E(2048, 2, nr_sects), 4, 512 } },
	  .ret = 6, .label = "dos", .summary = MBR_SUMMARY,
	  .warn = { "sda: p2: loop in the EBR chain at sector 1024, chain cut" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6, MBR_P7 } },
	{ "EBR outside the extended partition", MBR, { { DISK, MBR_E(1536, 2, start_sect), 4, 5000 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 > sda3",
	  .warn = { "sda: p2: EBR at sector 6024 is outside the extended partition, chain cut" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P6 } },
	{ "EBR without signature", MBR, { { DISK, SIG(1536), 2, 0 } },
	  .ret = 4, .label = "dos", .summary = " sda: sda1 sda2 < sda5 > sda3",
	  .warn = { "sda: p2: no EBR signature at sector 1536, chain cut" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5 } },
	{ "logical partition outside the extended one", MBR,
	  { { DISK, MBR_E(1536, 1, nr_sects), 4, 2000 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda7 > sda3",
	  .warn = { "sda: p6 start 1568 size 2000 is outside extended partition p2, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P7 } },
	{ "logical partition over its own EBR", MBR, { { DISK, MBR_E(1536, 1, start_sect), 4, 0 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda7 > sda3",
	  .warn = { "sda: p6 start 1536 size 256 is outside extended partition p2, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, MBR_P7 } },
	{ "overlapping logical partitions", MBR, { { DISK, MBR_E(1536, 1, nr_sects), 4, 600 } },
	  .ret = 5, .label = "dos", .summary = " sda: sda1 sda2 < sda5 sda6 > sda3",
	  .warn = { "sda: p7 overlaps p6, skipped" },
	  .parts = { MBR_P1, MBR_P2, MBR_P3, MBR_P5, { 6, 1568, 600 } } },
	{ "MBR unreadable", MBR, .nfail = 1, .fail = { 0 }, .ret = -EIO, .label = "" },
	{ "EBR unreadable", MBR, .nfail = 1, .fail = { 1536 }, .ret = -EIO, .label = "" },

	/* GPT: one copy damaged, the other used */
	{ "gpt, primary header CRC bad", GPT, { { PHDR, HDR(disk_guid), 1, 0x5a } }, GPT_ALL,
	  .warn = { "sda: GPT: primary GPT invalid: bad header CRC32", BACKUP_USED } },
	{ "gpt, primary array CRC bad", GPT, { { DISK, 2 * SECTOR + 40, 1, 0x77 } }, GPT_ALL,
	  .warn = { "sda: GPT: primary GPT invalid: bad entry array CRC32", BACKUP_USED } },
	{ "gpt, backup header CRC bad", GPT, { { BHDR, HDR(header_crc32), 4, 0x1234 } }, GPT_ALL,
	  .warn = { "sda: GPT: backup GPT header at LBA 2047: bad header CRC32; using the primary" } },
	{ "gpt, backup header differs", GPT, { { BHDR, HDR(last_usable_lba), 8, 2013 } },
	  .seal = true, GPT_ALL,
	  .warn = { "sda: GPT: backup GPT header at LBA 2047: does not match the primary; using the primary" } },
	{ "gpt, absurd entry count in the primary", GPT,
	  { { PHDR, HDR(num_partition_entries), 4, 1000000000 } }, .seal = true, GPT_ALL,
	  .warn = { "primary GPT invalid: absurd number of partition entries", BACKUP_USED } },
	{ "gpt, entry size 200", GPT, { { PHDR, HDR(sizeof_partition_entry), 4, 200 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: bad partition entry size", BACKUP_USED } },
	{ "gpt, entry size 64", GPT, { { PHDR, HDR(sizeof_partition_entry), 4, 64 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: bad partition entry size", BACKUP_USED } },
	{ "gpt, entry size 8192", GPT, { { PHDR, HDR(sizeof_partition_entry), 4, 8192 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: bad partition entry size", BACKUP_USED } },
	{ "gpt, header size 91", GPT, { { PHDR, HDR(header_size), 4, 91 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: bad header size", BACKUP_USED } },
	{ "gpt, header size 513", GPT, { { PHDR, HDR(header_size), 4, 513 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: bad header size", BACKUP_USED } },
	{ "gpt, wrong MyLBA", GPT, { { PHDR, HDR(my_lba), 8, 2 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: header not at its own MyLBA", BACKUP_USED } },
	{ "gpt, usable LBAs over the backup header", GPT, { { PHDR, HDR(last_usable_lba), 8, 2047 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: usable LBAs outside the disk", BACKUP_USED } },
	{ "gpt, usable LBAs over the primary header", GPT, { { PHDR, HDR(first_usable_lba), 8, 1 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: usable LBAs outside the disk", BACKUP_USED } },
	{ "gpt, first usable after last usable", GPT,
	  { { PHDR, HDR(first_usable_lba), 8, 2000 }, { PHDR, HDR(last_usable_lba), 8, 1000 } },
	  .seal = true, GPT_ALL, .warn = { "primary GPT invalid: first usable LBA after the last", BACKUP_USED } },
	{ "gpt, entry array over the partitions", GPT, { { PHDR, HDR(partition_entry_lba), 8, 40 } },
	  .seal = true, GPT_ALL,
	  .warn = { "primary GPT invalid: entry array overlaps the usable LBAs", BACKUP_USED } },
	{ "gpt, entry array past the end", GPT, { { PHDR, HDR(partition_entry_lba), 8, 2040 } },
	  .seal = true, GPT_ALL,
	  .warn = { "primary GPT invalid: entry array outside the disk or over a header", BACKUP_USED } },
	{ "gpt, entry array over the header", GPT, { { PHDR, HDR(partition_entry_lba), 8, 1 } },
	  .seal = true, GPT_ALL,
	  .warn = { "primary GPT invalid: entry array outside the disk or over a header", BACKUP_USED } },
	{ "gpt, primary unreadable", GPT, .nfail = 1, .fail = { 1 }, GPT_ALL,
	  .warn = { "sda: GPT: primary GPT invalid: read error", BACKUP_USED } },
	{ "gpt, primary array unreadable", GPT, .nfail = 1, .fail = { 5 }, GPT_ALL,
	  .warn = { "sda: GPT: primary GPT invalid: read error", BACKUP_USED } },
	{ "gpt, backup unreadable", GPT, .nfail = 1, .fail = { -1 }, GPT_ALL,
	  .warn = { "sda: GPT: backup GPT header at LBA 2047: read error; using the primary" } },

	/* GPT: no usable copy */
	{ "gpt, both header CRCs bad", GPT,
	  { { PHDR, HDR(header_crc32), 4, 0x1234 }, { BHDR, HDR(header_crc32), 4, 0x1234 } }, GPT_NONE,
	  .warn = { "sda: GPT: primary GPT invalid: bad header CRC32",
		    "sda: GPT: backup GPT invalid: bad header CRC32; no usable GPT" } },
	{ "gpt, absurd entry counts", GPT,
	  { { PHDR, HDR(num_partition_entries), 4, 1000000000 },
	    { BHDR, HDR(num_partition_entries), 4, 0xffffffff } }, .seal = true, GPT_NONE,
	  .warn = { "primary GPT invalid: absurd number of partition entries",
		    "backup GPT invalid: absurd number of partition entries" } },
	{ "truncated GPT disk", GPT, .capacity = 1024, GPT_NONE,
	  .warn = { "sda: GPT: primary GPT invalid: usable LBAs outside the disk",
		    "sda: GPT: backup GPT invalid: no GPT signature; no usable GPT" } },
	{ "gpt, LBA 0 unreadable", GPT, .nfail = 1, .fail = { 0 }, .ret = -EIO, .label = "" },
	{ "gpt, both copies unreadable", GPT, .nfail = 2, .fail = { 1, -1 }, .ret = -EIO, .label = "",
	  .warn = { "primary GPT invalid: read error", "backup GPT invalid: read error" } },
	{ "gpt, primary unreadable, backup bad", GPT, { { BHDR, HDR(header_crc32), 4, 1 } },
	  .nfail = 1, .fail = { 1 }, .ret = -EIO, .label = "",
	  .warn = { "primary GPT invalid: read error", "backup GPT invalid: bad header CRC32" } },

	/* GPT entries */
	{ "gpt, entry past the last usable LBA", GPT, { { ENTS, ENT(3, ending_lba), 8, 2030 } },
	  .seal = true, .ret = 2, .label = "gpt", .summary = " sda: sda1 sda3",
	  .warn = { "sda: GPT: p4 LBAs 1024-2030 outside usable 34-2014, skipped" },
	  .parts = { GPT_P1, GPT_P3 } },
	{ "gpt, entry before the first usable LBA", GPT, { { ENTS, ENT(0, starting_lba), 8, 20 } },
	  .seal = true, .ret = 2, .label = "gpt", .summary = " sda: sda3 sda4",
	  .warn = { "sda: GPT: p1 LBAs 20-511 outside usable 34-2014, skipped" },
	  .parts = { GPT_P3, GPT_P4 } },
	{ "gpt, entry ending before it starts", GPT, { { ENTS, ENT(0, ending_lba), 8, 10 } },
	  .seal = true, .ret = 2, .label = "gpt", .summary = " sda: sda3 sda4",
	  .warn = { "sda: GPT: p1 LBAs 128-10 outside usable 34-2014, skipped" },
	  .parts = { GPT_P3, GPT_P4 } },
	{ "gpt, entry one sector long ending before it starts", GPT,
	  { { ENTS, ENT(0, ending_lba), 8, 127 } },
	  .seal = true, .ret = 2, .label = "gpt", .summary = " sda: sda3 sda4",
	  .warn = { "sda: GPT: p1 LBAs 128-127 outside usable 34-2014, skipped" },
	  .parts = { GPT_P3, GPT_P4 } },
	{ "gpt, overlapping entries", GPT, { { ENTS, ENT(2, starting_lba), 8, 500 } },
	  .seal = true, .ret = 2, .label = "gpt", .summary = " sda: sda1 sda4",
	  .warn = { "sda: GPT: p3 overlaps p1, skipped" },
	  .parts = { GPT_P1, GPT_P4 } },
	{ "gpt, entry beyond p63", GPT, { { ENTS, ENT(99, partition_type_guid), 1, 0xaf } },
	  .seal = true, GPT_ALL, .warn = { "sda: GPT: 1 partitions beyond p63 ignored" } },
};

static void check_image_case(const struct image_case *c)
{
	struct mem_disk d;
	struct parsed_partitions st;
	int ret, want = 0;

	build_case(c, &d);
	ret = run_check(&st, &d);
	ck_assert_msg(ret == c->ret, "%s: returned %d, want %d; printed:\n%s",
		      c->name, ret, c->ret, host_printk_buf);
	ck_assert_msg(d.bad_reads == 0, "%s: %lu reads outside the disk",
		      c->name, d.bad_reads);
	ck_assert_msg(strstr(host_printk_buf, "WARNING") == NULL, "%s: %s",
		      c->name, host_printk_buf);
	ck_assert_msg(strcmp(st.label, c->label) == 0, "%s: label \"%s\", want \"%s\"",
		      c->name, st.label, c->label);

	for (const struct want_part *w = c->parts; w->n; w++, want++) {
		const struct parsed_partition *p = &st.parts[w->n];

		ck_assert_msg(p->present, "%s: p%d missing", c->name, w->n);
		ck_assert_msg(p->from == w->from && p->size == w->size,
			      "%s: p%d at %llu+%llu, want %llu+%llu", c->name, w->n,
			      (unsigned long long)p->from, (unsigned long long)p->size,
			      (unsigned long long)w->from, (unsigned long long)w->size);
	}
	ck_assert_msg(count_present(&st) == want, "%s: %d partitions, want %d",
		      c->name, count_present(&st), want);

	if (c->summary)
		ck_assert_msg(has_line(host_printk_buf, c->summary),
			      "%s: no line \"%s\" in:\n%s", c->name, c->summary, host_printk_buf);
	for (int i = 0; i < 2; i++) {
		if (c->warn[i])
			ck_assert_msg(strstr(host_printk_buf, c->warn[i]),
				      "%s: no \"%s\" in:\n%s", c->name, c->warn[i], host_printk_buf);
	}
	if (!c->warn[0]) {
		/* Nothing but the summary line (if any). */
		size_t len = c->summary ? strlen(c->summary) + 1 : 0;

		ck_assert_msg(host_printk_len == len, "%s: printed more than \"%s\":\n%s",
			      c->name, c->summary ? c->summary : "", host_printk_buf);
	}
	free(d.data);
}

static void setup(void)
{
	host_printk_quiet = true;
}

START_TEST(images_valid)
{
	check_image_case(&image_core[_i]);
}
END_TEST

START_TEST(images_malformed)
{
	check_image_case(&image_limits[_i]);
}
END_TEST

/* The GPT GUIDs reach parts[] in on-disk byte order; MBR types too. */
START_TEST(ids_copied)
{
	struct mem_disk d;
	struct parsed_partitions st;
	u8 linux_fs[16], esp[16];

	build_base(&d, GPT);
	ck_assert_int_eq(run_check(&st, &d), 3);
	guid_parse(GUID_LINUX_FS, linux_fs);
	guid_parse(GUID_ESP, esp);
	ck_assert_mem_eq(st.parts[1].type_guid, linux_fs, 16);
	ck_assert_mem_eq(st.parts[4].type_guid, esp, 16);
	for (int k = 0; k < 16; k++)
		ck_assert_uint_eq(st.parts[3].uuid[k], 3 * 16 + k);
	ck_assert_uint_eq(st.parts[3].sys_ind, 0);
	free(d.data);

	build_base(&d, MBR);
	ck_assert_int_eq(run_check(&st, &d), 6);
	ck_assert_uint_eq(st.parts[2].sys_ind, MSDOS_EXTENDED_PARTITION);
	ck_assert_uint_eq(st.parts[6].sys_ind, 0x82);
	ck_assert_int_eq(st.extended, 2);
	free(d.data);
}
END_TEST

/* A disk name ending in a digit gets a 'p' before the number, as Linux. */
START_TEST(summary_names)
{
	struct mem_disk d;
	struct parsed_partitions st;

	build_base(&d, GPT);
	memset(&st, 0, sizeof(st));
	st.name = "nvme0n1";
	st.capacity = d.sectors;
	st.read = mem_disk_read;
	st.ctx = &d;
	host_printk_reset();
	ck_assert_int_eq(check_partition(&st), 3);
	ck_assert_msg(has_line(host_printk_buf, " nvme0n1: nvme0n1p1 nvme0n1p3 nvme0n1p4"),
		      "%s", host_printk_buf);
	free(d.data);
}
END_TEST

/* --- the outside oracle: sfdisk ------------------------------------------------- */

#ifndef PART_IMAGE_DIR
#define PART_IMAGE_DIR "build/unit/partitions"
#endif

static const struct {
	const char *image;              /* <dir>/<image>.img and .expect */
	const char *warn;               /* a warning we must print, or NULL */
} oracle_cases[] = {
	{ "mbr", NULL },
	{ "mbr_ext85", NULL },
	{ "gpt", NULL },
	{ "gpt_small_table", NULL },
	{ "gpt_bad_header", BACKUP_USED },
	{ "gpt_bad_array", BACKUP_USED },
};

static const char *image_dir(void)
{
	const char *dir = getenv("PART_IMAGE_DIR");

	return dir ? dir : PART_IMAGE_DIR;
}

static FILE *open_made(const char *image, const char *ext, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s.%s", image_dir(), image, ext);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s: run make_images.sh (make check does)", path);
	return f;
}

static void load_image(const char *image, struct mem_disk *d)
{
	char path[512];
	FILE *f = open_made(image, "img", path, sizeof(path));
	long bytes;

	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	bytes = ftell(f);
	ck_assert_msg(bytes > 0 && bytes % SECTOR == 0, "%s: size %ld", path, bytes);
	rewind(f);
	mem_disk_alloc(d, (sector_t)bytes / SECTOR);
	ck_assert_uint_eq(fread(d->data, 1, bytes, f), (size_t)bytes);
	fclose(f);
}

START_TEST(sfdisk_oracle)
{
	const char *image = oracle_cases[_i].image;
	char path[512], line[256], label[16] = "";
	struct mem_disk d;
	struct parsed_partitions st;
	int ret, nexpected = 0;
	FILE *f;

	load_image(image, &d);
	ret = run_check(&st, &d);
	ck_assert_msg(d.bad_reads == 0, "%s: reads outside the disk", image);

	f = open_made(image, "expect", path, sizeof(path));
	while (fgets(line, sizeof(line), f)) {
		char type[40], uuid[40], got[37];
		unsigned long long start, size;
		int n;

		if (sscanf(line, "label %15s", label) == 1)
			continue;
		ck_assert_msg(sscanf(line, "part %d %llu %llu %39s %39s", &n, &start,
				     &size, type, uuid) == 5, "%s: bad line %s", path, line);
		ck_assert_msg(n > 0 && n < DISK_MAX_PARTS, "%s: %s", path, line);
		nexpected++;
		ck_assert_msg(st.parts[n].present, "%s: p%d missing; printed:\n%s",
			      image, n, host_printk_buf);
		ck_assert_msg(st.parts[n].from == start && st.parts[n].size == size,
			      "%s: p%d at %llu+%llu, sfdisk says %llu+%llu", image, n,
			      (unsigned long long)st.parts[n].from,
			      (unsigned long long)st.parts[n].size, start, size);
		if (strcmp(uuid, "-") == 0) {
			ck_assert_msg(st.parts[n].sys_ind == strtoul(type, NULL, 16),
				      "%s: p%d type %x, sfdisk says %s", image, n,
				      st.parts[n].sys_ind, type);
		} else {
			guid_format(st.parts[n].type_guid, got);
			ck_assert_msg(strcasecmp(got, type) == 0, "%s: p%d type %s, sfdisk says %s",
				      image, n, got, type);
			guid_format(st.parts[n].uuid, got);
			ck_assert_msg(strcasecmp(got, uuid) == 0, "%s: p%d uuid %s, sfdisk says %s",
				      image, n, got, uuid);
		}
	}
	fclose(f);

	ck_assert_msg(strcmp(st.label, label) == 0, "%s: label %s, sfdisk says %s",
		      image, st.label, label);
	ck_assert_int_eq(ret, nexpected);
	ck_assert_int_eq(count_present(&st), nexpected);
	if (oracle_cases[_i].warn)
		ck_assert_msg(strstr(host_printk_buf, oracle_cases[_i].warn),
			      "%s: no \"%s\" in:\n%s", image, oracle_cases[_i].warn, host_printk_buf);
	else
		ck_assert_msg(strstr(host_printk_buf, "GPT:") == NULL &&
			      strstr(host_printk_buf, "skipped") == NULL,
			      "%s: warned:\n%s", image, host_printk_buf);
	free(d.data);
}
END_TEST

/* --- Limits: a chain longer than the numbers ------------------------------------ */

#define CHAIN_EBRS 70
#define CHAIN_STEP 64                   /* sectors per EBR + its partition */

START_TEST(long_ebr_chain)
{
	struct mem_disk d;
	struct parsed_partitions st;
	int logicals = DISK_MAX_PARTS - MSDOS_FIRST_LOGICAL;

	mem_disk_alloc(&d, CHAIN_STEP * (CHAIN_EBRS + 1));
	mbr_put(&d, 0, 1, MSDOS_EXTENDED_PARTITION, CHAIN_STEP, CHAIN_STEP * CHAIN_EBRS);
	for (int i = 0; i < CHAIN_EBRS; i++) {
		sector_t ebr = CHAIN_STEP * (i + 1);

		mbr_put(&d, ebr, 1, 0x83, 1, CHAIN_STEP - 1);
		if (i + 1 < CHAIN_EBRS)
			mbr_put(&d, ebr, 2, MSDOS_EXTENDED_PARTITION,
				CHAIN_STEP * (i + 1), CHAIN_STEP);
	}
	ck_assert_int_eq(run_check(&st, &d), 1 + logicals);
	ck_assert_msg(strstr(host_printk_buf,
			     "sda: p1: more than 59 logical partitions, the rest ignored"),
		      "%s", host_printk_buf);
	for (int n = MSDOS_FIRST_LOGICAL; n < DISK_MAX_PARTS; n++) {
		ck_assert(st.parts[n].present);
		ck_assert_uint_eq(st.parts[n].from, CHAIN_STEP * (n - 4) + 1);
	}
	/* The MBR (read by efi.c, then msdos.c), the EBRs up to the last
	 * number, and no read for the EBRs after it. */
	ck_assert_uint_eq(d.reads, 2 + logicals);
	free(d.data);
}
END_TEST

/* --- Limits: fuzzing ---------------------------------------------------------------- */

/*
 * Each round damages a valid image a little, parses it, checks the result
 * and undoes the damage (only the sectors touched are restored, so a round
 * costs a parse, not a copy of the disk).  Three kinds of damage:
 *   BYTES    a few random bytes of the table's sectors;
 *   SECTORS  whole table sectors replaced: random bytes, zeros, or a copy
 *            of another table sector (an EBR copied elsewhere makes loops);
 *   FIELDS   one field of an MBR/EBR entry or a GPT header or entry set to
 *            a value near a limit, then (mostly) the GPT CRCs recomputed,
 *            so that the damage reaches the checks behind the CRCs.
 * The seed is fixed: a failure names its round, and happens again.
 */
#define FUZZ_ROUNDS 3000
enum fuzz_kind { BYTES, SECTORS, FIELDS, NR_FUZZ_KINDS };
#define MAX_TOUCHED 16

struct fuzz {
	struct mem_disk d;
	u8 *pristine;
	sector_t meta[80];              /* the sectors holding the table */
	int nmeta;
	sector_t touched[MAX_TOUCHED];
	int ntouched;
	u64 rng;
	bool gpt;
};

static u64 fuzz_rand(struct fuzz *f)
{
	/* splitmix64 (the project's verification pattern uses it too) */
	u64 z = (f->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64 fuzz_below(struct fuzz *f, u64 n)
{
	return fuzz_rand(f) % n;
}

static u8 *fuzz_touch(struct fuzz *f, sector_t s)
{
	if (f->ntouched < MAX_TOUCHED)
		f->touched[f->ntouched++] = s;
	return f->d.data + s * SECTOR;
}

static sector_t fuzz_meta(struct fuzz *f)
{
	return f->meta[fuzz_below(f, f->nmeta)];
}

/* A value near one of the limits the parsers check, or anything. */
static u64 fuzz_value(struct fuzz *f)
{
	u64 cap = f->d.sectors;
	const u64 interesting[] = {
		0, 1, 2, 3, 32, 33, 34, 63, 64, 127, 128, 129, 255, 256, 512,
		1024, 1536, 2048, cap - 2, cap - 1, cap, cap + 1,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
		1ull << 63, ~0ull - 1, ~0ull,
	};

	if (fuzz_below(f, 4) == 0)
		return fuzz_rand(f);
	return interesting[fuzz_below(f, ARRAY_SIZE(interesting))];
}

static void fuzz_poke(struct fuzz *f, sector_t s, size_t off, int width, u64 v)
{
	memcpy(fuzz_touch(f, s) + off, &v, width);
}

static void fuzz_fields(struct fuzz *f)
{
	static const u8 types[] = { 0, 0x05, 0x0f, 0x85, 0xee, 0x83, 0x80, 0xff };
	static const struct { u8 off, width; } hdr_fields[] = {
		{ HDR(signature), 8 }, { HDR(header_size), 4 }, { HDR(my_lba), 8 },
		{ HDR(alternate_lba), 8 }, { HDR(first_usable_lba), 8 },
		{ HDR(last_usable_lba), 8 }, { HDR(partition_entry_lba), 8 },
		{ HDR(num_partition_entries), 4 }, { HDR(sizeof_partition_entry), 4 },
	};
	u64 v = fuzz_value(f);

	if (!f->gpt || fuzz_below(f, 4) == 0) {
		/* an MBR or EBR entry (on a GPT disk: the protective MBR) */
		sector_t s = f->gpt ? 0 : fuzz_meta(f);
		int slot = 1 + (int)fuzz_below(f, MSDOS_NR_PRIMARY);

		switch (fuzz_below(f, 4)) {
		case 0:
			fuzz_poke(f, s, MBR_E(0, slot, sys_ind), 1, types[fuzz_below(f, sizeof(types))]);
			break;
		case 1: fuzz_poke(f, s, MBR_E(0, slot, start_sect), 4, v); break;
		case 2: fuzz_poke(f, s, MBR_E(0, slot, nr_sects), 4, v); break;
		default: fuzz_poke(f, s, MBR_E(0, slot, boot_ind), 1, fuzz_below(f, 2) ? 0x80 : v); break;
		}
		return;
	}
	if (fuzz_below(f, 2)) {
		/* a field of either header */
		sector_t s = fuzz_below(f, 2) ? 1 : f->d.sectors - 1;
		int i = (int)fuzz_below(f, ARRAY_SIZE(hdr_fields));

		fuzz_poke(f, s, hdr_fields[i].off, hdr_fields[i].width, v);
	} else {
		/* an entry of either array: LBAs, or a used/unused type */
		u64 index = fuzz_below(f, 8) ? fuzz_below(f, 4) : fuzz_below(f, GPT_ENTRIES);
		sector_t base = fuzz_below(f, 2) ? 2 : GPT_BACKUP_ARRAY;
		sector_t s = base + index * sizeof(struct gpt_entry) / SECTOR;
		size_t off = index * sizeof(struct gpt_entry) % SECTOR;

		switch (fuzz_below(f, 3)) {
		case 0: fuzz_poke(f, s, off + offsetof(struct gpt_entry, starting_lba), 8, v); break;
		case 1: fuzz_poke(f, s, off + offsetof(struct gpt_entry, ending_lba), 8, v); break;
		default: fuzz_poke(f, s, off, 1, fuzz_below(f, 2) ? 0 : v | 1); break;
		}
	}
	if (fuzz_below(f, 4)) {
		/* Recompute the CRCs: the headers and whatever array they name. */
		fuzz_touch(f, 1);
		fuzz_touch(f, f->d.sectors - 1);
		gpt_seal(&f->d);
	}
}

static void fuzz_damage(struct fuzz *f, enum fuzz_kind kind)
{
	int times = 1 + (int)fuzz_below(f, kind == BYTES ? 8 : 3);

	for (int t = 0; t < times; t++) {
		sector_t s = fuzz_meta(f);
		u8 *p;

		switch (kind) {
		case BYTES:
			/* In an MBR or EBR, mostly its entries and signature. */
			p = fuzz_touch(f, s);
			if ((!f->gpt || s == 0) && fuzz_below(f, 4))
				p[offsetof(struct msdos_mbr, part) + fuzz_below(f, 66)] = (u8)fuzz_rand(f);
			else
				p[fuzz_below(f, SECTOR)] = (u8)fuzz_rand(f);
			break;
		case SECTORS:
			p = fuzz_touch(f, s);
			switch (fuzz_below(f, 3)) {
			case 0:
				for (int i = 0; i < SECTOR; i++)
					p[i] = (u8)fuzz_rand(f);
				break;
			case 1: memset(p, 0, SECTOR); break;
			default: memcpy(p, f->pristine + fuzz_meta(f) * SECTOR, SECTOR); break;
			}
			break;
		case FIELDS:
			fuzz_fields(f);
			break;
		default:
			break;
		}
	}
}

/* What check.h promises a caller, whatever the disk held. */
static void fuzz_check(struct fuzz *f, const struct parsed_partitions *st, int ret,
		       int round)
{
	int present = count_present(st);

	ck_assert_msg(f->d.bad_reads == 0, "round %d: read outside the disk", round);
	ck_assert_msg(ret >= 0 && ret == present, "round %d: returned %d, %d present",
		      round, ret, present);
	ck_assert_msg(!st->parts[0].present, "round %d: partition 0", round);
	ck_assert_msg(ret == 0 || st->label[0], "round %d: partitions but no label", round);
	ck_assert_msg(strstr(host_printk_buf, "WARNING") == NULL, "round %d: %s",
		      round, host_printk_buf);
	/* Bounded work: a GPT is at most 2 headers and 2 arrays of 1 MiB. */
	ck_assert_msg(f->d.reads <= 3 + 2 * 2048 + 2, "round %d: %lu reads", round, f->d.reads);

	for (int n = 1; n < DISK_MAX_PARTS; n++) {
		const struct parsed_partition *p = &st->parts[n];

		if (!p->present)
			continue;
		ck_assert_msg(p->size > 0 && p->from < f->d.sectors &&
			      p->size <= f->d.sectors - p->from,
			      "round %d: p%d %llu+%llu outside the disk", round, n,
			      (unsigned long long)p->from, (unsigned long long)p->size);
		for (int m = 1; m < n; m++) {
			const struct parsed_partition *q = &st->parts[m];
			bool overlap = q->present && p->from < q->from + q->size &&
				       q->from < p->from + p->size;
			/* Only a logical partition inside its extended one. */
			bool nested = m == st->extended && n >= MSDOS_FIRST_LOGICAL &&
				      p->from >= q->from &&
				      p->from + p->size <= q->from + q->size;

			ck_assert_msg(!overlap || nested, "round %d: p%d overlaps p%d",
				      round, n, m);
		}
		if (st->extended && n >= MSDOS_FIRST_LOGICAL)
			ck_assert_msg(p->from > st->parts[st->extended].from,
				      "round %d: p%d not after its EBR", round, n);
	}
}

static void fuzz_run(enum base base, enum fuzz_kind kind, u64 seed)
{
	struct fuzz f = { .rng = seed, .gpt = base == GPT };
	struct parsed_partitions st;

	build_base(&f.d, base);
	f.pristine = malloc(f.d.sectors * SECTOR);
	ck_assert_ptr_nonnull(f.pristine);
	memcpy(f.pristine, f.d.data, f.d.sectors * SECTOR);
	if (base == MBR) {
		const sector_t ebrs[] = { 0, 1024, 1536, 2048 };

		for (size_t i = 0; i < ARRAY_SIZE(ebrs); i++)
			f.meta[f.nmeta++] = ebrs[i];
	} else {
		/* LBA 0, the primary header and array, the backup array and header */
		for (sector_t s = 0; s < 34; s++)
			f.meta[f.nmeta++] = s;
		for (sector_t s = GPT_BACKUP_ARRAY; s < GPT_DISK; s++)
			f.meta[f.nmeta++] = s;
	}

	for (int round = 0; round < FUZZ_ROUNDS; round++) {
		int ret;

		f.ntouched = 0;
		fuzz_damage(&f, kind);
		f.d.reads = 0;
		ret = run_check(&st, &f.d);
		fuzz_check(&f, &st, ret, round);
		for (int i = 0; i < f.ntouched; i++)
			memcpy(f.d.data + f.touched[i] * SECTOR,
			       f.pristine + f.touched[i] * SECTOR, SECTOR);
		/* The restore must be complete, or later rounds test less. */
		if (f.ntouched == MAX_TOUCHED)
			memcpy(f.d.data, f.pristine, f.d.sectors * SECTOR);
	}
	free(f.pristine);
	free(f.d.data);
}

START_TEST(fuzz)
{
	enum base base = _i / NR_FUZZ_KINDS ? GPT : MBR;
	enum fuzz_kind kind = _i % NR_FUZZ_KINDS;

	fuzz_run(base, kind, 0x5350494e444c45ull + _i);   /* "SPINDLE" */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Partitions");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, NULL);
	tcase_add_loop_test(core, images_valid, 0, ARRAY_SIZE(image_core));
	tcase_add_test(core, ids_copied);
	tcase_add_test(core, summary_names);
	tcase_add_loop_test(core, sfdisk_oracle, 0, ARRAY_SIZE(oracle_cases));
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, NULL);
	tcase_add_loop_test(limits, images_malformed, 0, ARRAY_SIZE(image_limits));
	tcase_add_test(limits, long_ebr_chain);
	tcase_add_loop_test(limits, fuzz, 0, 2 * NR_FUZZ_KINDS);
	/* The fuzz rounds take a second or two; much more under sanitizers. */
	tcase_set_timeout(limits, 120);
	suite_add_tcase(s, limits);
	return s;
}
