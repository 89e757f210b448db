/* SPDX-License-Identifier: MIT */
/*
 * ata.h - the ATA protocol, once, for both disk drivers; and the shared
 * core that reads it (drivers/ata/libata-core.c).
 *
 * Where it sits: under the two controller drivers, above nothing.  The
 * IDE driver (drivers/ata/ata_piix.c) writes a taskfile into the
 * registers of a PIIX channel; the AHCI driver (drivers/ahci/ahci.c)
 * packs the same taskfile into a Register Host-to-Device FIS.  What the
 * disk understands -- command codes, status and error bits, the words of
 * IDENTIFY DEVICE -- does not depend on which of the two carries it, so
 * it lives here and nowhere else.  docs/ata.md draws the split.
 *
 * Two halves, as Linux has include/linux/ata.h and include/linux/libata.h:
 *
 *   1. The protocol (ATA/ATAPI-8 ACS, "ACS" below): names with Linux's
 *      spelling, and inline readers of an IDENTIFY block (ata_id_*).
 *      Nothing here knows about ports, registers or FISes.
 *   2. The shared core: struct ata_device (one description of a disk,
 *      filled from IDENTIFY), struct ata_taskfile (one command, as the
 *      registers see it), and the functions that build and print them.
 *
 * The rule for a driver: never read id[] for a feature itself -- call
 * ata_dev_parse_id() and use the struct ata_device; never compose a
 * READ/WRITE command by hand -- call ata_build_rw_tf().  That is what
 * makes the two drivers read a disk the same way.
 *
 * Portable: compiled for the host too (tests/unit/check_ata.c).
 */
#ifndef SPINDLE_ATA_H
#define SPINDLE_ATA_H

#include <spindle/types.h>

struct hd_geometry;

/* ======================================================================
 * Part 1: the protocol
 * ====================================================================== */

/* --- Status register (ACS §6.2; the low byte of AHCI's PxTFD) ----------- */
#define ATA_BUSY                0x80    /* BSY: the other bits are not valid */
#define ATA_DRDY                0x40    /* device ready for commands */
#define ATA_DF                  0x20    /* device fault */
#define ATA_DSC                 0x10    /* seek complete (obsolete) */
#define ATA_DRQ                 0x08    /* data request: a PIO block is ready */
#define ATA_CORR                0x04    /* corrected data (obsolete) */
#define ATA_SENSE               0x02    /* sense data available (once IDX) */
#define ATA_ERR                 0x01    /* error: see the error register */

/* --- Error register (ACS §6.3; PxTFD bits 15:8) ------------------------- */
#define ATA_ICRC                0x80    /* interface CRC error */
#define ATA_UNC                 0x40    /* uncorrectable data */
#define ATA_MC                  0x20    /* media changed */
#define ATA_IDNF                0x10    /* ID not found: no such LBA */
#define ATA_MCR                 0x08    /* media change requested */
#define ATA_ABORTED             0x04    /* ABRT: command aborted */
#define ATA_TRK0NF              0x02    /* track 0 not found (obsolete) */
#define ATA_AMNF                0x01    /* address mark not found (obsolete) */

/* --- Device register ---------------------------------------------------- */
#define ATA_DEVICE_OBS          0xa0    /* bits 7 and 5: set, for old devices */
#define ATA_LBA                 0x40    /* the address is an LBA (not CHS) */
#define ATA_DEV1                0x10    /* device 1 (the slave) on a channel */
#define ATA_FPDMA_FUA           0x80    /* FPDMA QUEUED: bit 7 is FUA instead */

/* --- Device control register ------------------------------------------- */
#define ATA_HOB                 0x80    /* read back the high-order bytes */
#define ATA_SRST                0x04    /* software reset */
#define ATA_NIEN                0x02    /* 1: the device may not interrupt */

/* Signatures in LBA mid/high after a reset or EXECUTE DIAGNOSTIC (ACS §9.12). */
#define ATA_SIG_ATA             0x0000
#define ATA_SIG_ATAPI           0xeb14
#define ATA_SIG_SATA            0xc33c
#define ATA_SIG_SATAPI          0x9669

/* --- Commands (ACS §7) --------------------------------------------------- */
#define ATA_CMD_DSM             0x06    /* DATA SET MANAGEMENT */
#define  ATA_DSM_TRIM           0x01    /*   feature: TRIM */
#define ATA_CMD_PIO_READ        0x20    /* READ SECTORS */
#define ATA_CMD_PIO_READ_EXT    0x24    /* READ SECTORS EXT */
#define ATA_CMD_READ_EXT        0x25    /* READ DMA EXT */
#define ATA_CMD_READ_MULTI_EXT  0x29    /* READ MULTIPLE EXT */
#define ATA_CMD_READ_LOG_EXT    0x2f    /* READ LOG EXT */
#define  ATA_LOG_SATA_NCQ       0x10    /*   log: NCQ Command Error */
#define ATA_CMD_PIO_WRITE       0x30    /* WRITE SECTORS */
#define ATA_CMD_PIO_WRITE_EXT   0x34    /* WRITE SECTORS EXT */
#define ATA_CMD_WRITE_EXT       0x35    /* WRITE DMA EXT */
#define ATA_CMD_WRITE_MULTI_EXT 0x39    /* WRITE MULTIPLE EXT */
#define ATA_CMD_FPDMA_READ      0x60    /* READ FPDMA QUEUED (NCQ) */
#define ATA_CMD_FPDMA_WRITE     0x61    /* WRITE FPDMA QUEUED (NCQ) */
#define ATA_CMD_ID_ATAPI        0xa1    /* IDENTIFY PACKET DEVICE */
#define ATA_CMD_READ_MULTI      0xc4    /* READ MULTIPLE */
#define ATA_CMD_WRITE_MULTI     0xc5    /* WRITE MULTIPLE */
#define ATA_CMD_SET_MULTI       0xc6    /* SET MULTIPLE MODE */
#define ATA_CMD_READ            0xc8    /* READ DMA */
#define ATA_CMD_WRITE           0xca    /* WRITE DMA */
#define ATA_CMD_FLUSH           0xe7    /* FLUSH CACHE */
#define ATA_CMD_FLUSH_EXT       0xea    /* FLUSH CACHE EXT */
#define ATA_CMD_ID_ATA          0xec    /* IDENTIFY DEVICE */

/* DSM TRIM payload: 512-byte blocks of 8-byte ranges, LBA in bits 47:0
 * and the count in 63:48 (ACS §7.5.6.2). */
#define ATA_DSM_RANGE_MAX_SECTORS 0xffffu
#define ATA_DSM_RANGES_PER_BLOCK  64

/* Sector count fields: 8 bits for 28-bit commands, 16 for EXT and FPDMA,
 * with 0 meaning the largest count. */
#define ATA_MAX_SECTORS         256
#define ATA_MAX_SECTORS_LBA48   65536
#define ATA_MAX_TAG             31      /* NCQ tags 0..31: 5 bits */

/* --- IDENTIFY DEVICE words (ACS, IDENTIFY DEVICE data) --------------------- */
#define ATA_ID_WORDS            256
#define ATA_ID_CONFIG           0       /* bit 15: 1 = not an ATA device */
#define ATA_ID_SERNO            10      /* 10-19: serial number, 20 chars */
#define ATA_ID_FW_REV           23      /* 23-26: firmware revision, 8 chars */
#define ATA_ID_PROD             27      /* 27-46: model number, 40 chars */
#define ATA_ID_MAX_MULTSECT     47      /* 7:0 most sectors per DRQ block */
#define ATA_ID_CAPABILITY       49      /* bit 9 LBA, bit 8 DMA */
#define ATA_ID_FIELD_VALID      53      /* bit 2: word 88 is valid */
#define ATA_ID_MULTSECT         59      /* bit 8 valid, 7:0 current setting */
#define ATA_ID_LBA_CAPACITY     60      /* 60-61: sectors for 28-bit commands */
#define ATA_ID_MWDMA_MODES      63      /* 2:0 supported, 10:8 selected */
#define ATA_ID_QUEUE_DEPTH      75      /* 4:0 NCQ depth - 1 */
#define ATA_ID_SATA_CAPABILITY  76      /* bit 8 NCQ; 0 or 0xffff: not SATA */
#define ATA_ID_MAJOR_VER        80      /* bit n: ATA-n supported */
#define ATA_ID_COMMAND_SET_1    82      /* supported: bit 5 write cache */
#define ATA_ID_COMMAND_SET_2    83      /* supported: bit 10 LBA48, bit 13 FLUSH EXT */
#define ATA_ID_CFSSE            84      /* supported (extension) */
#define ATA_ID_CFS_ENABLE_1     85      /* enabled: bit 5 write cache */
#define ATA_ID_CFS_ENABLE_2     86      /* enabled: bit 10 LBA48, bit 13 FLUSH EXT */
#define ATA_ID_CSF_DEFAULT      87      /* enabled (extension) */
#define ATA_ID_UDMA_MODES       88      /* 6:0 supported, 14:8 selected */
#define ATA_ID_LBA_CAPACITY_2   100     /* 100-103: sectors for 48-bit commands */
#define ATA_ID_DATA_SET_MGMT    169     /* bit 0: DSM TRIM supported */
#define ATA_ID_ROT_SPEED        217     /* nominal media rotation rate: 1 = not rotating */

#define ATA_ID_SERNO_LEN        20      /* characters */
#define ATA_ID_FW_REV_LEN       8
#define ATA_ID_PROD_LEN         40

/* Bits of the words above. */
#define ATA_ID_CONFIG_NOT_ATA   (1u << 15)
#define ATA_ID_CAP_LBA          (1u << 9)
#define ATA_ID_CAP_DMA          (1u << 8)
#define ATA_ID_FIELD_VALID_88   (1u << 2)
#define ATA_ID_SATA_NCQ         (1u << 8)
#define ATA_ID_QUEUE_DEPTH_MASK 0x1f
#define ATA_ID_CS1_WCACHE       (1u << 5)       /* words 82 and 85 */
#define ATA_ID_CS2_LBA48        (1u << 10)      /* words 83 and 86 */
#define ATA_ID_CS2_FLUSH_EXT    (1u << 13)      /* words 83 and 86 */
#define ATA_ID_DSM_TRIM         (1u << 0)
/* Words 83, 84 and 87 carry a signature in bits 15:14: 01 means "this
 * word is valid"; 00 or 11 is an old device that never filled it in. */
#define ATA_ID_VALID_MASK       0xc000u
#define ATA_ID_VALID            0x4000u

/*
 * Reading IDENTIFY: which words, and why.
 *
 * ACS keeps two copies of each feature bit: words 82-84 say what the
 * device SUPPORTS, words 85-87 what is ENABLED now.  For most features
 * the two differ only for features software can switch off:
 *
 *   write cache   supported 82 bit 5, enabled 85 bit 5.  SET FEATURES
 *                 turns it on and off, so only the enabled bit says
 *                 whether a write may sit in volatile memory -- which is
 *                 what decides whether the block layer must send
 *                 flushes.  Word 87's validity signature vouches for
 *                 85 (ACS; Linux's ata_id_wcache_enabled() does the same).
 *   LBA48         supported 83 bit 10.  No command turns 48-bit
 *                 addressing off (a Device Configuration Overlay that
 *                 removes it clears 83 as well), so 86 bit 10 only
 *                 repeats 83; ACS-2 on even names both "supported".  83
 *                 is read, with its validity signature, and the 48-bit
 *                 capacity must be non-zero -- Linux's ata_id_has_lba48().
 *   FLUSH EXT     supported 83 bit 13.  FLUSH CACHE EXT is a command,
 *                 not a feature one enables: 86 bit 13 again only copies
 *                 83.  Read 83, with its signature (ata_id_has_flush_ext()).
 */
static inline bool ata_id_word_valid(const u16 *id, unsigned int word)
{
	return (id[word] & ATA_ID_VALID_MASK) == ATA_ID_VALID;
}

/* Two or four words, least significant first. */
static inline u32 ata_id_u32(const u16 *id, unsigned int n)
{
	return (u32)id[n + 1] << 16 | id[n];
}

static inline u64 ata_id_u64(const u16 *id, unsigned int n)
{
	return (u64)id[n + 3] << 48 | (u64)id[n + 2] << 32 |
	       (u64)id[n + 1] << 16 | id[n];
}

static inline bool ata_id_is_ata(const u16 *id)
{
	return !(id[ATA_ID_CONFIG] & ATA_ID_CONFIG_NOT_ATA);
}

static inline bool ata_id_has_lba(const u16 *id)
{
	return id[ATA_ID_CAPABILITY] & ATA_ID_CAP_LBA;
}

static inline bool ata_id_has_dma(const u16 *id)
{
	return id[ATA_ID_CAPABILITY] & ATA_ID_CAP_DMA;
}

static inline bool ata_id_has_lba48(const u16 *id)
{
	return ata_id_word_valid(id, ATA_ID_COMMAND_SET_2) &&
	       (id[ATA_ID_COMMAND_SET_2] & ATA_ID_CS2_LBA48) &&
	       ata_id_u64(id, ATA_ID_LBA_CAPACITY_2) != 0;
}

static inline bool ata_id_has_flush_ext(const u16 *id)
{
	return ata_id_word_valid(id, ATA_ID_COMMAND_SET_2) &&
	       (id[ATA_ID_COMMAND_SET_2] & ATA_ID_CS2_FLUSH_EXT);
}

static inline bool ata_id_has_wcache(const u16 *id)
{
	/* word 83's signature covers word 82 too (ACS) */
	return ata_id_word_valid(id, ATA_ID_COMMAND_SET_2) &&
	       (id[ATA_ID_COMMAND_SET_1] & ATA_ID_CS1_WCACHE);
}

static inline bool ata_id_wcache_enabled(const u16 *id)
{
	return ata_id_word_valid(id, ATA_ID_CSF_DEFAULT) &&
	       (id[ATA_ID_CFS_ENABLE_1] & ATA_ID_CS1_WCACHE);
}

/* Word 76 is 0 or 0xffff on a parallel device: no SATA features at all. */
static inline bool ata_id_is_sata(const u16 *id)
{
	return id[ATA_ID_SATA_CAPABILITY] != 0 && id[ATA_ID_SATA_CAPABILITY] != 0xffff;
}

static inline bool ata_id_has_ncq(const u16 *id)
{
	return ata_id_is_sata(id) && (id[ATA_ID_SATA_CAPABILITY] & ATA_ID_SATA_NCQ);
}

/* Commands the device accepts at once: 1..32 with NCQ, else 1. */
static inline unsigned int ata_id_queue_depth(const u16 *id)
{
	if (!ata_id_has_ncq(id))
		return 1;
	return (id[ATA_ID_QUEUE_DEPTH] & ATA_ID_QUEUE_DEPTH_MASK) + 1u;
}

static inline bool ata_id_has_trim(const u16 *id)
{
	return id[ATA_ID_DATA_SET_MGMT] & ATA_ID_DSM_TRIM;
}

/* ======================================================================
 * Part 2: the shared core (drivers/ata/libata-core.c)
 * ====================================================================== */

/*
 * One disk, as IDENTIFY DEVICE describes it: what it is and what it can
 * do.  Filled by ata_dev_parse_id(); the driver then sets devno, and
 * multi_count once SET MULTIPLE MODE has succeeded.  What the driver
 * chooses to use (DMA on this controller, NCQ on this HBA) stays in the
 * driver's own struct.
 */
struct ata_device {
	unsigned int devno;             /* 0, or 1 for the slave of an IDE channel */
	char model[ATA_ID_PROD_LEN + 1];
	char serial[ATA_ID_SERNO_LEN + 1];
	char fw_rev[ATA_ID_FW_REV_LEN + 1];
	u64 n_sectors;                  /* capacity, 512-byte sectors */
	unsigned int max_sectors;       /* per READ/WRITE command: 256 or 65536 */
	unsigned int queue_depth;       /* NCQ tags the device takes; 1 without */
	unsigned int max_multi;         /* most sectors per DRQ block (word 47) */
	unsigned int multi_count;       /* set by the driver: sectors per DRQ
					 * block in use; 0 or 1: one */
	bool lba48;                     /* 48-bit commands (else LBA28 only) */
	bool dma;                       /* DMA data transfer supported */
	bool wcache;                    /* volatile write cache enabled */
	bool flush_ext;                 /* FLUSH CACHE EXT supported */
	bool ncq;                       /* READ/WRITE FPDMA QUEUED supported */
	bool trim;                      /* DSM TRIM supported */
	bool nonrot;                    /* word 217 is 1: solid state, no seeks */
	u8 mwdma_mask, mwdma_on;        /* multiword DMA modes: supported, selected */
	u8 udma_mask, udma_on;          /* Ultra DMA modes (0 if word 88 invalid) */
};

/* How a command moves its data (Linux's ATA_PROT_*). */
enum ata_prot {
	ATA_PROT_NODATA,                /* none: FLUSH CACHE, SET MULTIPLE */
	ATA_PROT_PIO,                   /* through the data register, by DRQ block */
	ATA_PROT_DMA,                   /* by DMA, one interrupt at the end */
	ATA_PROT_NCQ,                   /* by DMA, queued: FPDMA QUEUED */
};

#define ATA_TFLAG_LBA48         (1u << 0)       /* write the hob_* bytes too */
#define ATA_TFLAG_WRITE         (1u << 1)       /* data goes to the device */

/*
 * One command as the device's registers see it (Linux's struct
 * ata_taskfile).  An LBA48 command has two bytes per register: the
 * "high-order bytes" (hob_*) are written first, then the low ones -- on a
 * parallel channel each register is a two-deep FIFO; in a FIS they are
 * separate fields.  Plain bytes, no FIS layout, no port numbers.
 */
struct ata_taskfile {
	unsigned int flags;             /* ATA_TFLAG_* */
	enum ata_prot protocol;
	u8 command;
	u8 feature, hob_feature;
	u8 nsect, hob_nsect;            /* FPDMA: nsect 7:3 is the tag */
	u8 lbal, lbam, lbah;            /* LBA 7:0, 15:8, 23:16 */
	u8 hob_lbal, hob_lbam, hob_lbah;        /* LBA 31:24, 39:32, 47:40 */
	u8 device;                      /* LBA28: 27:24 in bits 3:0 */
};

/* Copy an IDENTIFY string (two characters per word, the first in the high
 * byte) into out[len + 1]: stop at a NUL, drop the space padding at both
 * ends.  len is the field's length in characters (even). */
void ata_id_c_string(const u16 *id, char *out, unsigned int word, unsigned int len);

/* Fill dev from IDENTIFY DEVICE data.  Returns 0, -ENODEV if id[] is not
 * an ATA disk's, -EOPNOTSUPP if it has no LBA (CHS only).  Does not sleep. */
int ata_dev_parse_id(struct ata_device *dev, const u16 *id);

/* "QEMU HARDDISK, serial QM00001, firmware 2.5+, 131072 sectors (64 MiB),
 * LBA48, write cache on, FLUSH EXT, TRIM, NCQ depth 32": what the device
 * is, the same text from either driver.  Returns the length written. */
int ata_dev_describe(const struct ata_device *dev, char *buf, size_t size);
/* pr_info "ata: <name>: <description>" (both drivers call it at probe). */
void ata_dev_print(const char *name, const struct ata_device *dev);
/* "MWDMA2 UDMA5 (UDMA5 selected)": the transfer modes, for IDE's log. */
int ata_dev_modes(const struct ata_device *dev, char *buf, size_t size);

/* HDIO_GETGEO's geometry of a capacity-sector disk, as Linux's libata
 * makes it up for every ATA disk (ata_std_bios_param): 255 heads, 63
 * sectors a track, the cylinders that fit (their 16 bits wrap, as the
 * field's do).  Whatever the drive's IDENTIFY says. */
void ata_std_bios_param(u64 capacity, struct hd_geometry *geo);

/* A taskfile with nothing but the device register set (for devno). */
void ata_tf_init(struct ata_taskfile *tf, const struct ata_device *dev);

/*
 * ata_build_rw_tf - the taskfile of a read or write of n_block sectors at
 * block.  prot: ATA_PROT_PIO (READ/WRITE SECTORS, or MULTIPLE when
 * dev->multi_count > 1), ATA_PROT_DMA (READ/WRITE DMA), ATA_PROT_NCQ
 * (READ/WRITE FPDMA QUEUED with tag).  The 28-bit form is used whenever
 * the range fits it, the EXT form otherwise.  Returns 0, or
 *   -EINVAL      n_block is 0, or a tag above 31;
 *   -ERANGE      the range needs 48 bits and the disk has only 28, or it
 *                does not fit in one command even with 48;
 *   -EOPNOTSUPP  NCQ on a device without it, or DMA on a PIO-only one.
 */
int ata_build_rw_tf(struct ata_taskfile *tf, const struct ata_device *dev,
		    enum ata_prot prot, bool write, u64 block, unsigned int n_block,
		    unsigned int tag);
/* FLUSH CACHE EXT if the disk has it, else FLUSH CACHE. */
void ata_build_flush_tf(struct ata_taskfile *tf, const struct ata_device *dev);
/* The LBA a taskfile addresses (what ata_build_rw_tf() was given). */
u64 ata_tf_read_block(const struct ata_taskfile *tf);

/* "0x51 { DRDY ERR }", "0x04 { ABRT }": a status or error byte decoded,
 * bit names highest first. */
void ata_decode_status(char *buf, size_t size, u8 status);
void ata_decode_error(char *buf, size_t size, u8 error);
/* The command's name for log lines: "READ DMA EXT" for 0x25, "command"
 * for one the drivers never send. */
const char *ata_get_cmd_name(u8 command);

#endif /* SPINDLE_ATA_H */
