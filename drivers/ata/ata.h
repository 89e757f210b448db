/*
 * ata.h - the ATA register interface of a classic IDE channel, and the
 * parts of the PIIX driver (ata_piix.c) that its tests reach.
 *
 * Specs followed: ATA/ATAPI-8 ACS (commands, IDENTIFY DEVICE words),
 * ATA/ATAPI-6 ATA-2 "Task File" register block (§7 of ATA-6: register
 * offsets and bits), and the "Programming Interface for Bus Master IDE
 * Controller" rev 1.0 (SFF-8038i: bus-master registers and the PRD table).
 *
 * A channel has two register blocks in I/O space (compatibility mode:
 * primary 0x1F0 + 0x3F6, secondary 0x170 + 0x376) and, on a bus-master
 * capable controller, eight bus-master registers at BAR4 (+8 for the
 * secondary).  Offsets below are from each block's base: no raw port
 * numbers in the driver.
 */
#ifndef DRIVERS_ATA_ATA_H
#define DRIVERS_ATA_ATA_H

#include <spindle/types.h>
#include <spindle/compiler.h>

struct request;

/* --- command block registers (offset from cmd_base) ---------------------- */
#define ATA_REG_DATA            0       /* 16-bit PIO data */
#define ATA_REG_ERR             1       /* read: error */
#define ATA_REG_FEATURE         1       /* write: features */
#define ATA_REG_NSECT           2       /* sector count */
#define ATA_REG_LBAL            3       /* LBA 7:0   (HOB: 31:24) */
#define ATA_REG_LBAM            4       /* LBA 15:8  (HOB: 39:32) */
#define ATA_REG_LBAH            5       /* LBA 23:16 (HOB: 47:40) */
#define ATA_REG_DEVICE          6       /* device/head: DEV bit, LBA bit, LBA 27:24 */
#define ATA_REG_STATUS          7       /* read: status (reading it acks INTRQ) */
#define ATA_REG_CMD             7       /* write: command */

/* --- control block register (offset from ctl_base) ----------------------- */
#define ATA_REG_ALTSTATUS       0       /* read: status without acking INTRQ */
#define ATA_REG_DEVCTL          0       /* write: device control */

/* status register bits */
#define ATA_BSY                 0x80    /* busy: other bits are not valid */
#define ATA_DRDY                0x40    /* device ready */
#define ATA_DF                  0x20    /* device fault */
#define ATA_DSC                 0x10    /* (obsolete) seek complete */
#define ATA_DRQ                 0x08    /* data request: PIO data port ready */
#define ATA_CORR                0x04    /* (obsolete) corrected data */
#define ATA_IDX                 0x02    /* (obsolete) index */
#define ATA_ERR                 0x01    /* error: see the error register */

/* error register bits */
#define ATA_ICRC                0x80    /* interface CRC error */
#define ATA_UNC                 0x40    /* uncorrectable data */
#define ATA_MC                  0x20    /* media changed */
#define ATA_IDNF                0x10    /* ID (sector) not found */
#define ATA_MCR                 0x08    /* media change requested */
#define ATA_ABORTED             0x04    /* command aborted (ABRT) */
#define ATA_TRK0NF              0x02    /* track 0 not found (obsolete) */
#define ATA_AMNF                0x01    /* address mark not found (obsolete) */

/* device register bits */
#define ATA_DEVICE_OBS          0xa0    /* bits 7 and 5: set, for old devices */
#define ATA_LBA                 0x40    /* the address is an LBA */
#define ATA_DEV1                0x10    /* select device 1 (the slave) */

/* device control register bits */
#define ATA_HOB                 0x80    /* read back the "previous" LBA48 bytes */
#define ATA_SRST                0x04    /* software reset of both devices */
#define ATA_NIEN                0x02    /* 1: the device may not interrupt */

/* Signatures left in LBA mid/high after reset (ATA-8 ACS §9.12). */
#define ATA_SIG_ATA             0x0000
#define ATA_SIG_ATAPI           0xeb14
#define ATA_SIG_SATA            0xc33c
#define ATA_SIG_SATAPI          0x9669

/* --- commands (ATA-8 ACS) -------------------------------------------------- */
#define ATA_CMD_READ_PIO        0x20    /* READ SECTORS */
#define ATA_CMD_READ_PIO_EXT    0x24
#define ATA_CMD_READ_DMA_EXT    0x25
#define ATA_CMD_READ_MULTI_EXT  0x29
#define ATA_CMD_WRITE_PIO       0x30    /* WRITE SECTORS */
#define ATA_CMD_WRITE_PIO_EXT   0x34
#define ATA_CMD_WRITE_DMA_EXT   0x35
#define ATA_CMD_WRITE_MULTI_EXT 0x39
#define ATA_CMD_PACKET_ID       0xa1    /* IDENTIFY PACKET DEVICE */
#define ATA_CMD_READ_MULTI      0xc4
#define ATA_CMD_WRITE_MULTI     0xc5
#define ATA_CMD_SET_MULTI       0xc6    /* SET MULTIPLE MODE */
#define ATA_CMD_READ_DMA        0xc8
#define ATA_CMD_WRITE_DMA       0xca
#define ATA_CMD_FLUSH           0xe7    /* FLUSH CACHE */
#define ATA_CMD_ID_ATA          0xec    /* IDENTIFY DEVICE */
#define ATA_CMD_FLUSH_EXT       0xea

/* --- IDENTIFY DEVICE words (ATA-8 ACS §7.16, table 26) --------------------- */
#define ATA_ID_WORDS            256
#define ATA_ID_CONFIG           0       /* bit 15: 0 = ATA device */
#define ATA_ID_SERNO            10      /* 20 ASCII chars, bytes swapped */
#define ATA_ID_SERNO_LEN        20
#define ATA_ID_PROD             27      /* model: 40 ASCII chars */
#define ATA_ID_PROD_LEN         40
#define ATA_ID_MAX_MULTSECT     47      /* 7:0 most sectors per DRQ block */
#define ATA_ID_CAPABILITY       49      /* bit 9 LBA, bit 8 DMA */
#define ATA_ID_FIELD_VALID      53      /* bit 2: word 88 valid */
#define ATA_ID_MULTSECT         59      /* bit 8 valid, 7:0 current setting */
#define ATA_ID_LBA_CAPACITY     60      /* 60-61: LBA28 user sectors */
#define ATA_ID_MWDMA_MODES      63      /* 2:0 supported, 10:8 selected */
#define ATA_ID_COMMAND_SET_1    82      /* bit 5: write cache supported */
#define ATA_ID_COMMAND_SET_2    83      /* bit 10 LBA48, bit 13 FLUSH CACHE EXT */
#define ATA_ID_CFS_ENABLE_1     85      /* bit 5: write cache enabled */
#define ATA_ID_CFS_ENABLE_2     86      /* bit 10 LBA48 enabled, bit 13 FLUSH EXT */
#define ATA_ID_UDMA_MODES       88      /* 6:0 supported, 14:8 selected */
#define ATA_ID_LBA_CAPACITY_2   100     /* 100-103: LBA48 user sectors */

/* --- bus-master IDE registers (SFF-8038i; offset from the channel's) ------ */
#define ATA_DMA_CMD             0       /* 8 bits */
#define ATA_DMA_STATUS          2       /* 8 bits */
#define ATA_DMA_TABLE_OFS       4       /* 32 bits: PRD table physical address */
#define ATA_BMDMA_CHANNEL_STRIDE 8      /* secondary channel's registers */

#define ATA_DMA_START           0x01    /* command: start/stop bus master */
#define ATA_DMA_WR              0x08    /* command: 1 = bus master WRITES memory
					 * (device to memory: an ATA READ) */
#define ATA_DMA_ACTIVE          0x01    /* status: transfer in progress */
#define ATA_DMA_ERR             0x02    /* status: error (write 1 to clear) */
#define ATA_DMA_INTR            0x04    /* status: INTRQ seen (write 1 to clear) */
#define ATA_DMA_DRV0_CAP        0x20    /* status: firmware set device 0 for DMA */
#define ATA_DMA_DRV1_CAP        0x40
#define ATA_DMA_SIMPLEX         0x80    /* status: one channel at a time only */

/*
 * One Physical Region Descriptor (SFF-8038i §2): the bus-master engine
 * walks a table of these.  A region is physically contiguous, below
 * 4 GiB, must not cross a 64 KiB boundary, and its byte count is even;
 * a count of 0 means 64 KiB.  The last entry has ATA_PRD_EOT set.
 */
struct ata_prd {
	u32 addr;                       /* physical address of the region */
	u32 flags_len;                  /* 15:0 byte count (0 = 65536), 31: EOT */
} __packed;
_Static_assert(sizeof(struct ata_prd) == 8, "a PRD entry is 8 bytes");

#define ATA_PRD_EOT             0x80000000u
#define ATA_PRD_BOUNDARY        0x10000ul       /* no region crosses 64 KiB */
#define ATA_PRD_TABLE_BYTES     4096            /* one page: never crosses 64 KiB */
#define ATA_PRD_MAX             (ATA_PRD_TABLE_BYTES / sizeof(struct ata_prd))

/*
 * ata_build_prd_table - describe rq's data to the bus-master engine.
 * Fills prd[0..n-1] from every segment of rq, in order, splitting a
 * segment wherever it would cross a 64 KiB boundary, and sets EOT on
 * the last entry.  Returns n (>= 1), or:
 *   -ERANGE  some data lies at or above 4 GiB (the engine has 32-bit
 *            addresses): the caller falls back to PIO for this request;
 *   -E2BIG   more than max entries would be needed;
 *   -EINVAL  no data, or a segment of odd length.
 * Does not sleep, touches nothing but prd[].
 */
int ata_build_prd_table(struct request *rq, struct ata_prd *prd, unsigned int max);

/* "status 0x51 { DRDY ERR }": decode into buf (for the error log line). */
void ata_decode_status(char *buf, size_t size, u8 status);
void ata_decode_error(char *buf, size_t size, u8 error);

/* For the ata ktests: is ide.dma on, and the disk's controller channel irq. */
bool ide_disk_uses_dma(const char *name);
int ide_disk_irq(const char *name);

#endif /* DRIVERS_ATA_ATA_H */
