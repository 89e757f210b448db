// SPDX-License-Identifier: MIT
/*
 * Unit tests for the shared ATA layer (drivers/ata/libata-core.c and the
 * IDENTIFY readers of include/spindle/ata.h): IDENTIFY blocks built here
 * word by word for the disks the two drivers meet -- LBA28 only, LBA48,
 * write cache supported or enabled, FLUSH CACHE EXT, NCQ depths, strings
 * padded every way; the taskfile of every READ/WRITE command form at the
 * sizes where the form changes (256 sectors, 2^28, 65536, 2^48); and the
 * status and error bytes decoded into words.
 *
 * Core: what a driver relies on every day.  Limits: the edges.
 */
#include <check.h>
#include <spindle/ata.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <uapi/linux/hdreg.h>

/* --- building IDENTIFY blocks ------------------------------------------- */

static u16 id[ATA_ID_WORDS];

/* Store str in an IDENTIFY string field the way ACS says devices do: two
 * characters a word, the first in the high byte; pad with pad_char, with
 * lead spaces in front (a right-justified serial). */
static void id_put_string(unsigned int word, unsigned int len, const char *str,
			  unsigned int lead, char pad_char)
{
	char field[64];
	size_t n = strlen(str);

	for (unsigned int i = 0; i < len; i++)
		field[i] = pad_char;
	for (unsigned int i = 0; i < lead && i < len; i++)
		field[i] = ' ';
	for (size_t i = 0; i < n && lead + i < len; i++)
		field[lead + i] = str[i];
	for (unsigned int i = 0; i < len / 2; i++)
		id[word + i] = (u16)((u8)field[2 * i] << 8 | (u8)field[2 * i + 1]);
}

/* A plain LBA28 ATA disk with DMA: what every disk has. */
static void id_lba28(u32 sectors)
{
	memset(id, 0, sizeof(id));
	id[ATA_ID_CONFIG] = 0x0040;                     /* fixed ATA device */
	id_put_string(ATA_ID_PROD, ATA_ID_PROD_LEN, "SPINDLE TEST DISK", 0, ' ');
	id_put_string(ATA_ID_SERNO, ATA_ID_SERNO_LEN, "SN-0042", 0, ' ');
	id_put_string(ATA_ID_FW_REV, ATA_ID_FW_REV_LEN, "1.0", 0, ' ');
	id[ATA_ID_CAPABILITY] = ATA_ID_CAP_LBA | ATA_ID_CAP_DMA;
	id[ATA_ID_MAX_MULTSECT] = 0x8010;               /* 16 sectors per block */
	id[ATA_ID_LBA_CAPACITY] = (u16)sectors;
	id[ATA_ID_LBA_CAPACITY + 1] = (u16)(sectors >> 16);
	id[ATA_ID_COMMAND_SET_2] = ATA_ID_VALID;        /* valid, nothing in it */
	id[ATA_ID_CFSSE] = ATA_ID_VALID;
	id[ATA_ID_CSF_DEFAULT] = ATA_ID_VALID;
}

/* ... plus LBA48 with capacity sectors, and FLUSH CACHE EXT. */
static void id_lba48(u64 sectors)
{
	id_lba28(0x0fffffff);                           /* 28-bit words saturate */
	id[ATA_ID_COMMAND_SET_2] |= ATA_ID_CS2_LBA48 | ATA_ID_CS2_FLUSH_EXT;
	id[ATA_ID_CFS_ENABLE_2] |= ATA_ID_CS2_LBA48 | ATA_ID_CS2_FLUSH_EXT;
	for (int i = 0; i < 4; i++)
		id[ATA_ID_LBA_CAPACITY_2 + i] = (u16)(sectors >> (16 * i));
}

static struct ata_device dev;

static void parse_ok(void)
{
	ck_assert_int_eq(ata_dev_parse_id(&dev, id), 0);
}

/* --- IDENTIFY: Core --------------------------------------------------------- */

START_TEST(lba28_only_disk)
{
	id_lba28(1000000);
	/* FLUSH EXT claimed without LBA48: a 48-bit command, so not usable */
	id[ATA_ID_COMMAND_SET_2] |= ATA_ID_CS2_FLUSH_EXT;
	parse_ok();
	ck_assert(!dev.lba48);
	ck_assert_uint_eq(dev.n_sectors, 1000000);
	ck_assert_uint_eq(dev.max_sectors, 256);
	ck_assert(!dev.flush_ext);
	ck_assert(dev.dma);
	ck_assert(!dev.ncq);
	ck_assert_uint_eq(dev.queue_depth, 1);
	ck_assert_uint_eq(dev.max_multi, 16);
	ck_assert_str_eq(dev.model, "SPINDLE TEST DISK");
	ck_assert_str_eq(dev.serial, "SN-0042");
	ck_assert_str_eq(dev.fw_rev, "1.0");
}
END_TEST

START_TEST(lba48_disk)
{
	id_lba48(0x123456789ull);                       /* beyond 32 bits */
	parse_ok();
	ck_assert(dev.lba48);
	ck_assert_uint_eq(dev.n_sectors, 0x123456789ull);
	ck_assert_uint_eq(dev.max_sectors, 65536);
	ck_assert(dev.flush_ext);
}
END_TEST

START_TEST(lba48_without_flush_ext)
{
	id_lba48(1ull << 29);
	id[ATA_ID_COMMAND_SET_2] &= (u16)~ATA_ID_CS2_FLUSH_EXT;
	parse_ok();
	ck_assert(dev.lba48);
	ck_assert(!dev.flush_ext);
}
END_TEST

/* Supported (82) is not enabled (85): only an enabled cache needs flushes. */
START_TEST(write_cache_supported_vs_enabled)
{
	id_lba48(1 << 20);
	id[ATA_ID_COMMAND_SET_1] = ATA_ID_CS1_WCACHE;
	parse_ok();
	ck_assert(ata_id_has_wcache(id));
	ck_assert(!dev.wcache);                         /* turned off */

	id[ATA_ID_CFS_ENABLE_1] = ATA_ID_CS1_WCACHE;
	parse_ok();
	ck_assert(dev.wcache);

	id[ATA_ID_CSF_DEFAULT] = 0;                     /* word 87 not valid: 85 unknown */
	parse_ok();
	ck_assert(!dev.wcache);
}
END_TEST

START_TEST(ncq_depth)
{
	static const struct { u16 w75, w76; bool ncq; unsigned int depth; } cases[] = {
		{ 31, ATA_ID_SATA_NCQ | 0x0006, true, 32 },
		{ 0, ATA_ID_SATA_NCQ, true, 1 },
		{ 0x00e0 | 15, ATA_ID_SATA_NCQ, true, 16 },    /* reserved bits ignored */
		{ 31, 0x0006, false, 1 },                       /* SATA, no NCQ */
		{ 31, 0xffff, false, 1 },                       /* parallel device */
		{ 31, 0x0000, false, 1 },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		id_lba48(1 << 20);
		id[ATA_ID_QUEUE_DEPTH] = cases[i].w75;
		id[ATA_ID_SATA_CAPABILITY] = cases[i].w76;
		parse_ok();
		ck_assert_msg(dev.ncq == cases[i].ncq, "case %u", i);
		ck_assert_uint_eq(dev.queue_depth, cases[i].depth);
	}
}
END_TEST

START_TEST(trim_bit)
{
	id_lba48(1 << 20);
	parse_ok();
	ck_assert(!dev.trim);
	id[ATA_ID_DATA_SET_MGMT] = ATA_ID_DSM_TRIM;
	parse_ok();
	ck_assert(dev.trim);
}
END_TEST

/* word 217: only 1 means solid state; an rpm or 0 (not reported) is a
 * spinning disk, as Linux decides */
START_TEST(rotation_rate)
{
	static const struct { u16 word; bool nonrot; } cases[] = {
		{ 0, false }, { 1, true }, { 7200, false }, { 0xffff, false },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		id_lba48(1 << 20);
		id[ATA_ID_ROT_SPEED] = cases[i].word;
		parse_ok();
		ck_assert_msg(dev.nonrot == cases[i].nonrot, "word 217 = %#x", cases[i].word);
	}
}
END_TEST

START_TEST(not_a_disk)
{
	id_lba28(1000);
	id[ATA_ID_CONFIG] = 0x85c0;                     /* ATAPI CD-ROM */
	ck_assert_int_eq(ata_dev_parse_id(&dev, id), -ENODEV);

	id_lba28(1000);
	id[ATA_ID_CAPABILITY] = ATA_ID_CAP_DMA;         /* CHS only */
	ck_assert_int_eq(ata_dev_parse_id(&dev, id), -EOPNOTSUPP);
	ck_assert_str_eq(dev.model, "SPINDLE TEST DISK");       /* for the message */
}
END_TEST

/* One rule for every string field: cut at a NUL, trim spaces both ends. */
START_TEST(strings_padding)
{
	static const struct { const char *text; unsigned int lead; char pad; const char *want; } cases[] = {
		{ "QM00001", 0, ' ', "QM00001" },
		{ "QM00001", 13, ' ', "QM00001" },              /* right-justified */
		{ "QM00001", 3, ' ', "QM00001" },
		{ "QM00001", 0, '\0', "QM00001" },              /* NUL-filled */
		{ "A B  C", 1, ' ', "A B  C" },                 /* inner spaces stay */
		{ "", 0, ' ', "" },
		{ "", 0, '\0', "" },
		{ "12345678901234567890", 0, ' ', "12345678901234567890" },  /* full */
	};
	char out[ATA_ID_SERNO_LEN + 1];

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(id, 0, sizeof(id));
		id_put_string(ATA_ID_SERNO, ATA_ID_SERNO_LEN, cases[i].text, cases[i].lead,
			      cases[i].pad);
		memset(out, 'x', sizeof(out));
		ata_id_c_string(id, out, ATA_ID_SERNO, ATA_ID_SERNO_LEN);
		ck_assert_msg(!strcmp(out, cases[i].want), "case %u: \"%s\"", i, out);
	}
}
END_TEST

/* The byte order inside a word, spelt out: "QEMU" is 0x5145 0x4d55. */
START_TEST(strings_byte_order)
{
	char out[ATA_ID_PROD_LEN + 1];

	memset(id, 0, sizeof(id));
	for (int i = 0; i < ATA_ID_PROD_LEN / 2; i++)
		id[ATA_ID_PROD + i] = 0x2020;
	id[ATA_ID_PROD] = 0x5145;
	id[ATA_ID_PROD + 1] = 0x4d55;
	ata_id_c_string(id, out, ATA_ID_PROD, ATA_ID_PROD_LEN);
	ck_assert_str_eq(out, "QEMU");
	/* a full 40-character model, no padding at all */
	for (int i = 0; i < ATA_ID_PROD_LEN / 2; i++)
		id[ATA_ID_PROD + i] = 0x4142;
	ata_id_c_string(id, out, ATA_ID_PROD, ATA_ID_PROD_LEN);
	ck_assert_uint_eq(strlen(out), 40);
	ck_assert(out[0] == 'A' && out[1] == 'B' && out[39] == 'B');
}
END_TEST

START_TEST(describe_line)
{
	char buf[256];

	id_lba48(131072);
	id[ATA_ID_COMMAND_SET_1] = ATA_ID_CS1_WCACHE;
	id[ATA_ID_CFS_ENABLE_1] = ATA_ID_CS1_WCACHE;
	id[ATA_ID_DATA_SET_MGMT] = ATA_ID_DSM_TRIM;
	id[ATA_ID_QUEUE_DEPTH] = 31;
	id[ATA_ID_SATA_CAPABILITY] = ATA_ID_SATA_NCQ;
	parse_ok();
	ata_dev_describe(&dev, buf, sizeof(buf));
	ck_assert_str_eq(buf, "SPINDLE TEST DISK, serial SN-0042, firmware 1.0, "
			 "131072 sectors (64 MiB), LBA48, write cache on, FLUSH EXT, TRIM, "
			 "NCQ depth 32");

	id_lba28(2048);
	parse_ok();
	ata_dev_describe(&dev, buf, sizeof(buf));
	ck_assert_str_eq(buf, "SPINDLE TEST DISK, serial SN-0042, firmware 1.0, "
			 "2048 sectors (1 MiB), LBA28, write cache off, FLUSH, no TRIM, no NCQ");

	/* the same text through printk, under the "ata: " prefix */
	host_printk_quiet = true;
	host_printk_reset();
	ata_dev_print("hda", &dev);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "ata: hda: SPINDLE TEST DISK, serial SN-0042"));
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "LBA28, write cache off, FLUSH, no TRIM, no NCQ\n"));
}
END_TEST

START_TEST(transfer_modes)
{
	char buf[64];

	id_lba28(1000);
	id[ATA_ID_MWDMA_MODES] = 0x0007;                /* MWDMA0-2, none selected */
	id[ATA_ID_FIELD_VALID] = ATA_ID_FIELD_VALID_88;
	id[ATA_ID_UDMA_MODES] = 0x203f;                 /* UDMA0-5, UDMA5 selected */
	parse_ok();
	ata_dev_modes(&dev, buf, sizeof(buf));
	ck_assert_str_eq(buf, "MWDMA2 UDMA5 (UDMA5 selected)");

	id[ATA_ID_FIELD_VALID] = 0;                     /* word 88 not valid */
	id[ATA_ID_MWDMA_MODES] = 0x0407;                /* MWDMA2 selected */
	parse_ok();
	ata_dev_modes(&dev, buf, sizeof(buf));
	ck_assert_str_eq(buf, "MWDMA2 (MWDMA2 selected)");

	id[ATA_ID_MWDMA_MODES] = 0;
	parse_ok();
	ata_dev_modes(&dev, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no DMA modes");
}
END_TEST

/* --- IDENTIFY: Limits ---------------------------------------------------------- */

/* LBA48 is believed only with word 83's signature and a 48-bit capacity. */
START_TEST(lba48_needs_valid_word_and_capacity)
{
	id_lba48(1ull << 30);
	id[ATA_ID_COMMAND_SET_2] |= 0xc000;             /* signature 11: invalid */
	parse_ok();
	ck_assert(!dev.lba48);
	ck_assert(!dev.flush_ext);
	ck_assert_uint_eq(dev.n_sectors, 0x0fffffff);   /* from words 60-61 */

	id_lba48(0);                                    /* bit set, no capacity */
	parse_ok();
	ck_assert(!dev.lba48);
	ck_assert_uint_eq(dev.n_sectors, 0x0fffffff);

	id_lba48(0xffffffffffffull);                    /* the largest 48-bit disk */
	parse_ok();
	ck_assert(dev.lba48);
	ck_assert_uint_eq(dev.n_sectors, 0xffffffffffffull);
}
END_TEST

/* --- taskfiles ----------------------------------------------------------------- */

struct tf_case {
	const char *what;
	bool lba48_dev, ncq_dev, dma_dev;
	unsigned int devno, multi;
	enum ata_prot prot;
	bool write;
	u64 block;
	unsigned int n_block, tag;
	int err;
	/* the taskfile wanted (when err == 0) */
	u8 command, feature, hob_feature, nsect, hob_nsect;
	u8 lbal, lbam, lbah, hob_lbal, hob_lbam, hob_lbah, device;
	bool lba48;
};

static const struct tf_case rw_cases[] = {
	{ "PIO read, LBA28", false, false, true, 0, 1, ATA_PROT_PIO, false,
	  0x0abcdef1, 8, 0, 0, ATA_CMD_PIO_READ, 0, 0, 8, 0,
	  0xf1, 0xde, 0xbc, 0, 0, 0, 0xea, false },
	{ "PIO write, LBA28, slave", false, false, true, 1, 1, ATA_PROT_PIO, true,
	  0x0abcdef1, 1, 0, 0, ATA_CMD_PIO_WRITE, 0, 0, 1, 0,
	  0xf1, 0xde, 0xbc, 0, 0, 0, 0xfa, false },
	{ "PIO read multiple", false, false, true, 0, 16, ATA_PROT_PIO, false,
	  100, 32, 0, 0, ATA_CMD_READ_MULTI, 0, 0, 32, 0,
	  100, 0, 0, 0, 0, 0, 0xe0, false },
	{ "PIO write multiple", false, false, true, 0, 16, ATA_PROT_PIO, true,
	  100, 32, 0, 0, ATA_CMD_WRITE_MULTI, 0, 0, 32, 0,
	  100, 0, 0, 0, 0, 0, 0xe0, false },
	{ "PIO read EXT", true, false, true, 0, 1, ATA_PROT_PIO, false,
	  0x123456789abcull, 8, 0, 0, ATA_CMD_PIO_READ_EXT, 0, 0, 8, 0,
	  0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0xe0, true },
	{ "PIO write EXT", true, false, true, 0, 1, ATA_PROT_PIO, true,
	  0x123456789abcull, 8, 0, 0, ATA_CMD_PIO_WRITE_EXT, 0, 0, 8, 0,
	  0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0xe0, true },
	{ "PIO read multiple EXT", true, false, true, 0, 16, ATA_PROT_PIO, false,
	  1ull << 28, 8, 0, 0, ATA_CMD_READ_MULTI_EXT, 0, 0, 8, 0,
	  0, 0, 0, 0x10, 0, 0, 0xe0, true },
	{ "PIO write multiple EXT", true, false, true, 0, 16, ATA_PROT_PIO, true,
	  1ull << 28, 8, 0, 0, ATA_CMD_WRITE_MULTI_EXT, 0, 0, 8, 0,
	  0, 0, 0, 0x10, 0, 0, 0xe0, true },
	{ "DMA read, LBA28", true, false, true, 0, 1, ATA_PROT_DMA, false,
	  0x00123456, 8, 0, 0, ATA_CMD_READ, 0, 0, 8, 0,
	  0x56, 0x34, 0x12, 0, 0, 0, 0xe0, false },
	{ "DMA write, LBA28", true, false, true, 0, 1, ATA_PROT_DMA, true,
	  0x00123456, 8, 0, 0, ATA_CMD_WRITE, 0, 0, 8, 0,
	  0x56, 0x34, 0x12, 0, 0, 0, 0xe0, false },
	{ "DMA read EXT", true, false, true, 0, 1, ATA_PROT_DMA, false,
	  0x123456789abcull, 0x1234, 0, 0, ATA_CMD_READ_EXT, 0, 0, 0x34, 0x12,
	  0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0xe0, true },
	{ "DMA write EXT, slave", true, false, true, 1, 1, ATA_PROT_DMA, true,
	  0x123456789abcull, 0x1234, 0, 0, ATA_CMD_WRITE_EXT, 0, 0, 0x34, 0x12,
	  0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0xf0, true },
	{ .what = "no sectors", .lba48_dev = true, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = false, .block = 0, .n_block = 0, .tag = 0, .err = -EINVAL },
	{ .what = "DMA on a PIO-only disk", .lba48_dev = true, .ncq_dev = false, .dma_dev = false, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = false, .block = 0, .n_block = 8, .tag = 0, .err = -EOPNOTSUPP },
	{ .what = "NCQ on a disk without it", .lba48_dev = true, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_NCQ, .write = false, .block = 0, .n_block = 8, .tag = 0, .err = -EOPNOTSUPP },
	{ .what = "not a data protocol", .lba48_dev = true, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_NODATA, .write = false, .block = 0, .n_block = 8, .tag = 0, .err = -EINVAL },
};

/* Where one form ends and the next begins. */
static const struct tf_case limit_cases[] = {
	{ "256 sectors: the most LBA28 counts, written as 0", false, false, true, 0, 1,
	  ATA_PROT_DMA, false, 0, 256, 0, 0, ATA_CMD_READ, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, 0xe0, false },
	{ "257 sectors: LBA48 on an LBA48 disk", true, false, true, 0, 1,
	  ATA_PROT_DMA, false, 0, 257, 0, 0, ATA_CMD_READ_EXT, 0, 0, 0x01, 0x01,
	  0, 0, 0, 0, 0, 0, 0xe0, true },
	{ .what = "257 sectors on an LBA28 disk", .lba48_dev = false, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = false, .block = 0, .n_block = 257, .tag = 0, .err = -ERANGE },
	{ "last LBA28 sector: 2^28 - 2", false, false, true, 0, 1,
	  ATA_PROT_DMA, true, 0x0ffffffe, 1, 0, 0, ATA_CMD_WRITE, 0, 0, 1, 0,
	  0xfe, 0xff, 0xff, 0, 0, 0, 0xef, false },
	{ "2^28 - 1 needs LBA48", true, false, true, 0, 1,
	  ATA_PROT_DMA, true, 0x0fffffff, 1, 0, 0, ATA_CMD_WRITE_EXT, 0, 0, 1, 0,
	  0xff, 0xff, 0xff, 0x0f, 0, 0, 0xe0, true },
	{ .what = "2^28 - 1 on an LBA28 disk", .lba48_dev = false, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = true, .block = 0x0fffffff, .n_block = 1, .tag = 0, .err = -ERANGE },
	{ "a range that crosses 2^28", true, false, true, 0, 1,
	  ATA_PROT_PIO, false, 0x0ffffff0, 32, 0, 0, ATA_CMD_PIO_READ_EXT, 0, 0, 32, 0,
	  0xf0, 0xff, 0xff, 0x0f, 0, 0, 0xe0, true },
	{ "65536 sectors: the most LBA48 counts, written as 0", true, false, true, 0, 1,
	  ATA_PROT_DMA, false, 0, 65536, 0, 0, ATA_CMD_READ_EXT, 0, 0, 0, 0,
	  0, 0, 0, 0, 0, 0, 0xe0, true },
	{ .what = "65537 sectors", .lba48_dev = true, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = false, .block = 0, .n_block = 65537, .tag = 0, .err = -ERANGE },
	{ "last LBA48 sector", true, false, true, 0, 1,
	  ATA_PROT_DMA, false, 0xffffffffffffull, 1, 0, 0, ATA_CMD_READ_EXT, 0, 0, 1, 0,
	  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe0, true },
	{ .what = "past 48 bits", .lba48_dev = true, .ncq_dev = false, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_DMA, .write = false, .block = 0xffffffffffffull, .n_block = 2, .tag = 0, .err = -ERANGE },
};

/* READ/WRITE FPDMA QUEUED: count in FEATURE, tag in COUNT 7:3. */
static const struct tf_case fpdma_cases[] = {
	{ "NCQ read, tag 5", true, true, true, 0, 1, ATA_PROT_NCQ, false,
	  0x123456789abcull, 8, 5, 0, ATA_CMD_FPDMA_READ, 8, 0, 5 << 3, 0,
	  0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, ATA_LBA, true },
	{ "NCQ write, tag 0, low LBA: still 48-bit", true, true, true, 0, 1,
	  ATA_PROT_NCQ, true, 8, 0x0123, 0, 0, ATA_CMD_FPDMA_WRITE, 0x23, 0x01, 0, 0,
	  8, 0, 0, 0, 0, 0, ATA_LBA, true },
	{ "NCQ write, tag 31, 65536 sectors", true, true, true, 0, 1,
	  ATA_PROT_NCQ, true, 1ull << 40, 65536, 31, 0, ATA_CMD_FPDMA_WRITE, 0, 0, 0xf8, 0,
	  0, 0, 0, 0, 0, 0x01, ATA_LBA, true },
	{ .what = "NCQ tag 32", .lba48_dev = true, .ncq_dev = true, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_NCQ, .write = false, .block = 0, .n_block = 8, .tag = 32, .err = -EINVAL },
	{ .what = "NCQ, 65537 sectors", .lba48_dev = true, .ncq_dev = true, .dma_dev = true, .devno = 0, .multi = 1,
	  .prot = ATA_PROT_NCQ, .write = false, .block = 0, .n_block = 65537, .tag = 0, .err = -ERANGE },
};

static void run_tf_case(const struct tf_case *tc)
{
	struct ata_device d;
	struct ata_taskfile tf;
	int err;

	memset(&d, 0, sizeof(d));
	d.lba48 = tc->lba48_dev;
	d.ncq = tc->ncq_dev;
	d.dma = tc->dma_dev;
	d.devno = tc->devno;
	d.multi_count = tc->multi;
	d.max_sectors = tc->lba48_dev ? 65536 : 256;
	memset(&tf, 0x5a, sizeof(tf));                  /* nothing left from before */
	err = ata_build_rw_tf(&tf, &d, tc->prot, tc->write, tc->block, tc->n_block, tc->tag);
	ck_assert_msg(err == tc->err, "%s: returned %d, want %d", tc->what, err, tc->err);
	if (err)
		return;
	ck_assert_msg(tf.command == tc->command, "%s: command 0x%02x", tc->what, tf.command);
	ck_assert_msg(tf.protocol == tc->prot, "%s: protocol", tc->what);
	ck_assert_msg(tf.feature == tc->feature && tf.hob_feature == tc->hob_feature,
		      "%s: feature %02x/%02x", tc->what, tf.hob_feature, tf.feature);
	ck_assert_msg(tf.nsect == tc->nsect && tf.hob_nsect == tc->hob_nsect,
		      "%s: count %02x/%02x", tc->what, tf.hob_nsect, tf.nsect);
	ck_assert_msg(tf.lbal == tc->lbal && tf.lbam == tc->lbam && tf.lbah == tc->lbah,
		      "%s: LBA 23:0 %02x %02x %02x", tc->what, tf.lbah, tf.lbam, tf.lbal);
	ck_assert_msg(tf.device == tc->device, "%s: device 0x%02x", tc->what, tf.device);
	ck_assert_msg(!!(tf.flags & ATA_TFLAG_LBA48) == tc->lba48, "%s: LBA48 flag", tc->what);
	ck_assert_msg(!!(tf.flags & ATA_TFLAG_WRITE) == tc->write, "%s: write flag", tc->what);
	if (tc->lba48)
		ck_assert_msg(tf.hob_lbal == tc->hob_lbal && tf.hob_lbam == tc->hob_lbam &&
			      tf.hob_lbah == tc->hob_lbah, "%s: LBA 47:24 %02x %02x %02x",
			      tc->what, tf.hob_lbah, tf.hob_lbam, tf.hob_lbal);
	ck_assert_msg(ata_tf_read_block(&tf) == tc->block, "%s: read back", tc->what);
}

START_TEST(rw_taskfile)
{
	run_tf_case(&rw_cases[_i]);
}
END_TEST

START_TEST(rw_taskfile_limits)
{
	run_tf_case(&limit_cases[_i]);
}
END_TEST

START_TEST(fpdma_taskfile)
{
	for (unsigned int i = 0; i < sizeof(fpdma_cases) / sizeof(fpdma_cases[0]); i++)
		run_tf_case(&fpdma_cases[i]);
}
END_TEST

START_TEST(flush_taskfile)
{
	struct ata_device d;
	struct ata_taskfile tf;

	memset(&d, 0, sizeof(d));
	d.flush_ext = true;
	ata_build_flush_tf(&tf, &d);
	ck_assert_uint_eq(tf.command, ATA_CMD_FLUSH_EXT);
	ck_assert_int_eq(tf.protocol, ATA_PROT_NODATA);
	ck_assert_uint_eq(tf.device, ATA_DEVICE_OBS);
	ck_assert_uint_eq(tf.flags & ATA_TFLAG_WRITE, 0);

	d.flush_ext = false;
	d.devno = 1;
	ata_build_flush_tf(&tf, &d);
	ck_assert_uint_eq(tf.command, ATA_CMD_FLUSH);
	ck_assert_uint_eq(tf.device, ATA_DEVICE_OBS | ATA_DEV1);
}
END_TEST

/* --- decoding -------------------------------------------------------------------- */

START_TEST(decode_status_and_error)
{
	char buf[96];

	ata_decode_status(buf, sizeof(buf), 0x50);
	ck_assert_str_eq(buf, "0x50 { DRDY DSC }");
	ata_decode_status(buf, sizeof(buf), ATA_DRDY | ATA_ERR);
	ck_assert_str_eq(buf, "0x41 { DRDY ERR }");
	ata_decode_status(buf, sizeof(buf), 0xff);
	ck_assert_str_eq(buf, "0xff { BSY DRDY DF DSC DRQ CORR SENSE ERR }");
	ata_decode_status(buf, sizeof(buf), 0);
	ck_assert_str_eq(buf, "0x00 { }");

	ata_decode_error(buf, sizeof(buf), ATA_ABORTED);
	ck_assert_str_eq(buf, "0x04 { ABRT }");
	ata_decode_error(buf, sizeof(buf), ATA_ICRC | ATA_ABORTED);
	ck_assert_str_eq(buf, "0x84 { ICRC ABRT }");
	ata_decode_error(buf, sizeof(buf), ATA_UNC | ATA_IDNF | ATA_AMNF);
	ck_assert_str_eq(buf, "0x51 { UNC IDNF AMNF }");
	ata_decode_error(buf, sizeof(buf), 0xff);
	ck_assert_str_eq(buf, "0xff { ICRC UNC MC IDNF MCR ABRT TRK0NF AMNF }");
}
END_TEST

START_TEST(decode_small_buffer)
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	ata_decode_error(buf, 10, 0xff);
	ck_assert_str_eq(buf, "0xff { IC");
	ck_assert_int_eq(buf[10], 'x');                 /* nothing past the size */
}
END_TEST

START_TEST(command_names)
{
	ck_assert_str_eq(ata_get_cmd_name(ATA_CMD_READ_EXT), "READ DMA EXT");
	ck_assert_str_eq(ata_get_cmd_name(ATA_CMD_FPDMA_WRITE), "WRITE FPDMA QUEUED");
	ck_assert_str_eq(ata_get_cmd_name(ATA_CMD_FLUSH_EXT), "FLUSH CACHE EXT");
	ck_assert_str_eq(ata_get_cmd_name(ATA_CMD_READ_MULTI), "READ MULTIPLE");
	ck_assert_str_eq(ata_get_cmd_name(0x00), "command");
}
END_TEST

/*
 * HDIO_GETGEO's geometry: 255 heads and 63 sectors whatever the disk, as
 * Linux 6.1's libata answers on the same QEMU disks (tools/tools-linux.py
 * compares sfdisk -g's line); the cylinders' 16 bits wrap.
 */
START_TEST(bios_param)
{
	struct hd_geometry geo = { 0 };

	ata_std_bios_param(32768, &geo);        /* 16 MiB: 2 whole cylinders */
	ck_assert_uint_eq(geo.heads, 255);
	ck_assert_uint_eq(geo.sectors, 63);
	ck_assert_uint_eq(geo.cylinders, 2);
	ata_std_bios_param(255 * 63 * 65537ull, &geo);
	ck_assert_uint_eq(geo.cylinders, 1);
	ck_assert_uint_eq(geo.start, 0);        /* the block layer's, not libata's */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ATA");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, lba28_only_disk);
	tcase_add_test(core, lba48_disk);
	tcase_add_test(core, lba48_without_flush_ext);
	tcase_add_test(core, write_cache_supported_vs_enabled);
	tcase_add_test(core, ncq_depth);
	tcase_add_test(core, trim_bit);
	tcase_add_test(core, rotation_rate);
	tcase_add_test(core, not_a_disk);
	tcase_add_test(core, strings_padding);
	tcase_add_test(core, strings_byte_order);
	tcase_add_test(core, describe_line);
	tcase_add_test(core, transfer_modes);
	tcase_add_loop_test(core, rw_taskfile, 0, sizeof(rw_cases) / sizeof(rw_cases[0]));
	tcase_add_test(core, fpdma_taskfile);
	tcase_add_test(core, flush_taskfile);
	tcase_add_test(core, decode_status_and_error);
	tcase_add_test(core, command_names);
	tcase_add_test(core, bios_param);
	suite_add_tcase(s, core);

	tcase_add_test(limits, lba48_needs_valid_word_and_capacity);
	tcase_add_loop_test(limits, rw_taskfile_limits, 0,
			    sizeof(limit_cases) / sizeof(limit_cases[0]));
	tcase_add_test(limits, decode_small_buffer);
	suite_add_tcase(s, limits);
	return s;
}
