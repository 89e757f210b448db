// SPDX-License-Identifier: MIT
/*
 * libata-core.c - what both disk drivers share: reading IDENTIFY DEVICE
 * into a struct ata_device, building the taskfile of a command, and
 * decoding status and error bytes into words.
 *
 * Where it sits: called by the controller drivers -- drivers/ata/ata_piix.c
 * (IDE: it writes a taskfile into a channel's registers) and
 * drivers/ahci/ahci.c (AHCI: it packs one into a Register H2D FIS) --
 * and calls nothing but string formatting and printk.  No hardware, no
 * locks, no sleeping: but for ata_dev_print(), every function here is a
 * pure function of its arguments, which is why it also builds for the
 * host and is tested there (tests/unit/check_ata.c).  Linux keeps the
 * same pieces in drivers/ata/libata-core.c (ata_dev_configure,
 * ata_build_rw_tf, ata_id_c_string) and libata-eh.c (the error-bit
 * names).
 *
 * Interface: include/spindle/ata.h, part 2.  The one rule for a driver:
 * the taskfile is complete when ata_build_*_tf() returns -- write every
 * byte of it (flags say whether the hob_* bytes count), add nothing.
 */
#define pr_fmt(fmt) "ata: " fmt
#include <spindle/ata.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/compiler.h>
#include <uapi/linux/hdreg.h>

/* --- IDENTIFY ------------------------------------------------------------ */

/*
 * ACS §3.4.9: an ATA string is stored two characters per word, the first
 * in bits 15:8, and padded with spaces to the field's length.  Devices
 * disagree on where the padding goes (old serial numbers are right-
 * justified) and a few fill an unused field with NULs, so there is one
 * rule for every field: stop at the first NUL, then drop spaces at both
 * ends.  "  QM00001 " and "QM00001\0\0" both become "QM00001".
 */
void ata_id_c_string(const u16 *id, char *out, unsigned int word, unsigned int len)
{
	unsigned int n = 0, start = 0;

	for (unsigned int i = 0; i < len / 2; i++) {
		out[n++] = (char)(id[word + i] >> 8);
		out[n++] = (char)(id[word + i] & 0xff);
	}
	out[n] = '\0';
	n = strlen(out);
	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
	while (out[start] == ' ')
		start++;
	memmove(out, out + start, n - start + 1);
}

/* Highest set bit of a mode mask (mode 5 for 0x3f), -1 for none. */
static int ata_highest_mode(unsigned int mask)
{
	int mode = -1;

	for (; mask; mask >>= 1)
		mode++;
	return mode;
}

int ata_dev_parse_id(struct ata_device *dev, const u16 *id)
{
	memset(dev, 0, sizeof(*dev));
	if (!ata_id_is_ata(id))
		return -ENODEV;                 /* ATAPI, or garbage */
	ata_id_c_string(id, dev->model, ATA_ID_PROD, ATA_ID_PROD_LEN);
	ata_id_c_string(id, dev->serial, ATA_ID_SERNO, ATA_ID_SERNO_LEN);
	ata_id_c_string(id, dev->fw_rev, ATA_ID_FW_REV, ATA_ID_FW_REV_LEN);
	if (!ata_id_has_lba(id))
		return -EOPNOTSUPP;             /* CHS only: not worth a driver path */

	dev->lba48 = ata_id_has_lba48(id);
	if (dev->lba48) {
		dev->n_sectors = ata_id_u64(id, ATA_ID_LBA_CAPACITY_2);
		dev->max_sectors = ATA_MAX_SECTORS_LBA48;
	} else {
		dev->n_sectors = ata_id_u32(id, ATA_ID_LBA_CAPACITY);
		dev->max_sectors = ATA_MAX_SECTORS;
	}
	dev->dma = ata_id_has_dma(id);
	dev->wcache = ata_id_wcache_enabled(id);
	/* FLUSH CACHE EXT is a 48-bit command: only an LBA48 disk decodes it */
	dev->flush_ext = dev->lba48 && ata_id_has_flush_ext(id);
	dev->ncq = ata_id_has_ncq(id);
	dev->queue_depth = ata_id_queue_depth(id);
	dev->trim = ata_id_has_trim(id);
	/* ACS-2 word 217: 1 is "non-rotating media", 0401h-FFFEh the rpm,
	 * 0 not reported (QEMU's default: Linux then calls it rotational) */
	dev->nonrot = id[ATA_ID_ROT_SPEED] == 1;
	dev->max_multi = id[ATA_ID_MAX_MULTSECT] & 0xff;

	dev->mwdma_mask = id[ATA_ID_MWDMA_MODES] & 0x07;
	dev->mwdma_on = (id[ATA_ID_MWDMA_MODES] >> 8) & 0x07;
	if (id[ATA_ID_FIELD_VALID] & ATA_ID_FIELD_VALID_88) {
		dev->udma_mask = id[ATA_ID_UDMA_MODES] & 0x7f;
		dev->udma_on = (id[ATA_ID_UDMA_MODES] >> 8) & 0x7f;
	}
	return 0;
}

int ata_dev_describe(const struct ata_device *dev, char *buf, size_t size)
{
	int n;

	n = scnprintf(buf, size, "%s, serial %s, firmware %s, %llu sectors (%llu MiB), %s",
		      dev->model[0] ? dev->model : "?", dev->serial[0] ? dev->serial : "?",
		      dev->fw_rev[0] ? dev->fw_rev : "?",
		      (unsigned long long)dev->n_sectors,
		      (unsigned long long)(dev->n_sectors >> 11),
		      dev->lba48 ? "LBA48" : "LBA28");
	n += scnprintf(buf + n, size - (size_t)n, ", write cache %s, %s, %s",
		       dev->wcache ? "on" : "off",
		       dev->flush_ext ? "FLUSH EXT" : "FLUSH",
		       dev->trim ? "TRIM" : "no TRIM");
	if (dev->ncq)
		n += scnprintf(buf + n, size - (size_t)n, ", NCQ depth %u", dev->queue_depth);
	else
		n += scnprintf(buf + n, size - (size_t)n, ", no NCQ");
	return n;
}

void ata_dev_print(const char *name, const struct ata_device *dev)
{
	char desc[192];

	ata_dev_describe(dev, desc, sizeof(desc));
	pr_info("%s: %s\n", name, desc);
}

int ata_dev_modes(const struct ata_device *dev, char *buf, size_t size)
{
	int mw = ata_highest_mode(dev->mwdma_mask), udma = ata_highest_mode(dev->udma_mask);
	int mw_on = ata_highest_mode(dev->mwdma_on), udma_on = ata_highest_mode(dev->udma_on);
	int n = 0;

	if (mw < 0 && udma < 0)
		return scnprintf(buf, size, "no DMA modes");
	if (mw >= 0)
		n += scnprintf(buf + n, size - (size_t)n, "MWDMA%d ", mw);
	if (udma >= 0)
		n += scnprintf(buf + n, size - (size_t)n, "UDMA%d ", udma);
	if (udma_on >= 0)
		n += scnprintf(buf + n, size - (size_t)n, "(UDMA%d selected)", udma_on);
	else if (mw_on >= 0)
		n += scnprintf(buf + n, size - (size_t)n, "(MWDMA%d selected)", mw_on);
	else
		n += scnprintf(buf + n, size - (size_t)n, "(none selected)");
	return n;
}

/* --- taskfiles ------------------------------------------------------------ */

void ata_tf_init(struct ata_taskfile *tf, const struct ata_device *dev)
{
	memset(tf, 0, sizeof(*tf));
	tf->device = ATA_DEVICE_OBS | (dev->devno ? ATA_DEV1 : 0);
}

/*
 * The 28-bit commands address LBA 0 .. 2^28 - 2 -- words 60-61 never
 * report more than 0x0fffffff sectors, so 0x0fffffff itself is never a
 * sector -- and count 1 .. 256 (count 0 means 256).  Linux's lba_28_ok()
 * draws the same line.
 */
static bool ata_lba28_ok(u64 block, unsigned int n_block)
{
	return block + n_block < (1ull << 28) && n_block <= ATA_MAX_SECTORS;
}

static bool ata_lba48_ok(u64 block, unsigned int n_block)
{
	return block + n_block <= (1ull << 48) && n_block <= ATA_MAX_SECTORS_LBA48;
}

/* The six LBA bytes and the two count bytes of an EXT command. */
static void ata_tf_set_lba48(struct ata_taskfile *tf, u64 block)
{
	tf->flags |= ATA_TFLAG_LBA48;
	tf->hob_lbah = (u8)(block >> 40);
	tf->hob_lbam = (u8)(block >> 32);
	tf->hob_lbal = (u8)(block >> 24);
	tf->lbah = (u8)(block >> 16);
	tf->lbam = (u8)(block >> 8);
	tf->lbal = (u8)block;
}

u64 ata_tf_read_block(const struct ata_taskfile *tf)
{
	u64 block = (u64)tf->lbah << 16 | (u64)tf->lbam << 8 | tf->lbal;

	if (tf->flags & ATA_TFLAG_LBA48)
		return block | (u64)tf->hob_lbah << 40 | (u64)tf->hob_lbam << 32 |
		       (u64)tf->hob_lbal << 24;
	return block | (u64)(tf->device & 0x0f) << 24;
}

/*
 * ata_build_fpdma_tf - READ or WRITE FPDMA QUEUED (the NCQ commands).
 * The queued commands move the fields round (SATA 3.x §13.6.4.1; ACS,
 * READ FPDMA QUEUED): the sector count goes in FEATURE 15:0, and COUNT
 * 7:3 carries the tag -- the command slot, which is how the device's Set
 * Device Bits FIS later names the command that finished.  COUNT 15:8 is
 * the priority (0: normal).  The address is always 48 bits; DEVICE has
 * the LBA bit and nothing else (bit 7 would ask for FUA).
 */
static int ata_build_fpdma_tf(struct ata_taskfile *tf, bool write, u64 block,
			      unsigned int n_block, unsigned int tag)
{
	/* LAB 7 BEGIN */
	tf->protocol = ATA_PROT_NCQ;
	tf->command = write ? ATA_CMD_FPDMA_WRITE : ATA_CMD_FPDMA_READ;
	ata_tf_set_lba48(tf, block);
	tf->hob_feature = (u8)(n_block >> 8);   /* 65536 is written as 0 */
	tf->feature = (u8)n_block;
	tf->nsect = (u8)(tag << 3);
	tf->hob_nsect = 0;
	tf->device = ATA_LBA;
	return 0;
	/* LAB 7 END: (void)tf; (void)write; (void)block; (void)n_block; (void)tag; return -ENOSYS; */
}

/*
 * The READ/WRITE command for a transfer kind and address size (ACS §7):
 * [kind][lba48][write], kind 0 = PIO by sector, 1 = PIO MULTIPLE, 2 = DMA.
 */
static const u8 ata_rw_cmds[3][2][2] = {
	{ { ATA_CMD_PIO_READ, ATA_CMD_PIO_WRITE },
	  { ATA_CMD_PIO_READ_EXT, ATA_CMD_PIO_WRITE_EXT } },
	{ { ATA_CMD_READ_MULTI, ATA_CMD_WRITE_MULTI },
	  { ATA_CMD_READ_MULTI_EXT, ATA_CMD_WRITE_MULTI_EXT } },
	{ { ATA_CMD_READ, ATA_CMD_WRITE },
	  { ATA_CMD_READ_EXT, ATA_CMD_WRITE_EXT } },
};

int ata_build_rw_tf(struct ata_taskfile *tf, const struct ata_device *dev,
		    enum ata_prot prot, bool write, u64 block, unsigned int n_block,
		    unsigned int tag)
{
	unsigned int kind;
	bool lba48;

	ata_tf_init(tf, dev);
	if (write)
		tf->flags |= ATA_TFLAG_WRITE;
	if (!n_block)
		return -EINVAL;

	if (prot == ATA_PROT_NCQ) {
		if (!dev->ncq)
			return -EOPNOTSUPP;
		if (tag > ATA_MAX_TAG)
			return -EINVAL;
		if (!ata_lba48_ok(block, n_block))
			return -ERANGE;
		return ata_build_fpdma_tf(tf, write, block, n_block, tag);
	}

	if (ata_lba28_ok(block, n_block))
		lba48 = false;
	else if (dev->lba48 && ata_lba48_ok(block, n_block))
		lba48 = true;
	else
		return -ERANGE;

	switch (prot) {
	case ATA_PROT_PIO:
		kind = dev->multi_count > 1 ? 1 : 0;
		break;
	case ATA_PROT_DMA:
		if (!dev->dma)
			return -EOPNOTSUPP;
		kind = 2;
		break;
	default:
		return -EINVAL;
	}
	tf->protocol = prot;
	tf->command = ata_rw_cmds[kind][lba48][write];
	tf->device |= ATA_LBA;
	if (lba48) {
		ata_tf_set_lba48(tf, block);
		tf->hob_nsect = (u8)(n_block >> 8);     /* 65536 is written as 0 */
		tf->nsect = (u8)n_block;
	} else {
		/* LBA 27:24 live in the low nibble of the device register */
		tf->device |= (u8)((block >> 24) & 0x0f);
		tf->lbah = (u8)(block >> 16);
		tf->lbam = (u8)(block >> 8);
		tf->lbal = (u8)block;
		tf->nsect = (u8)n_block;                /* 256 is written as 0 */
	}
	return 0;
}

void ata_build_flush_tf(struct ata_taskfile *tf, const struct ata_device *dev)
{
	ata_tf_init(tf, dev);
	tf->protocol = ATA_PROT_NODATA;
	tf->command = dev->flush_ext ? ATA_CMD_FLUSH_EXT : ATA_CMD_FLUSH;
}

/* --- decoding, for log lines ---------------------------------------------- */

/* "0x51 { DRDY ERR }": names[bit] for each set bit, highest first. */
static void ata_decode_bits(char *buf, size_t size, u8 v, const char *const names[8])
{
	size_t n;

	n = (size_t)scnprintf(buf, size, "0x%02x {", v);
	for (int bit = 7; bit >= 0; bit--)
		if (v & (1u << bit))
			n += (size_t)scnprintf(buf + n, size - n, " %s", names[bit]);
	scnprintf(buf + n, size - n, " }");
}

void ata_decode_status(char *buf, size_t size, u8 status)
{
	static const char *const names[8] = {
		"ERR", "SENSE", "CORR", "DRQ", "DSC", "DF", "DRDY", "BSY",
	};

	ata_decode_bits(buf, size, status, names);
}

void ata_decode_error(char *buf, size_t size, u8 error)
{
	static const char *const names[8] = {
		"AMNF", "TRK0NF", "ABRT", "MCR", "IDNF", "MC", "UNC", "ICRC",
	};

	ata_decode_bits(buf, size, error, names);
}

void ata_std_bios_param(u64 capacity, struct hd_geometry *geo)
{
	geo->heads = 255;
	geo->sectors = 63;
	geo->cylinders = (unsigned short)(capacity / (255 * 63));
}

const char *ata_get_cmd_name(u8 command)
{
	switch (command) {
	case ATA_CMD_DSM:               return "DATA SET MANAGEMENT";
	case ATA_CMD_PIO_READ:          return "READ SECTORS";
	case ATA_CMD_PIO_READ_EXT:      return "READ SECTORS EXT";
	case ATA_CMD_READ_EXT:          return "READ DMA EXT";
	case ATA_CMD_READ_MULTI_EXT:    return "READ MULTIPLE EXT";
	case ATA_CMD_READ_LOG_EXT:      return "READ LOG EXT";
	case ATA_CMD_PIO_WRITE:         return "WRITE SECTORS";
	case ATA_CMD_PIO_WRITE_EXT:     return "WRITE SECTORS EXT";
	case ATA_CMD_WRITE_EXT:         return "WRITE DMA EXT";
	case ATA_CMD_WRITE_MULTI_EXT:   return "WRITE MULTIPLE EXT";
	case ATA_CMD_FPDMA_READ:        return "READ FPDMA QUEUED";
	case ATA_CMD_FPDMA_WRITE:       return "WRITE FPDMA QUEUED";
	case ATA_CMD_ID_ATAPI:          return "IDENTIFY PACKET DEVICE";
	case ATA_CMD_READ_MULTI:        return "READ MULTIPLE";
	case ATA_CMD_WRITE_MULTI:       return "WRITE MULTIPLE";
	case ATA_CMD_SET_MULTI:         return "SET MULTIPLE MODE";
	case ATA_CMD_READ:              return "READ DMA";
	case ATA_CMD_WRITE:             return "WRITE DMA";
	case ATA_CMD_FLUSH:             return "FLUSH CACHE";
	case ATA_CMD_FLUSH_EXT:         return "FLUSH CACHE EXT";
	case ATA_CMD_ID_ATA:            return "IDENTIFY DEVICE";
	default:                        return "command";
	}
}
