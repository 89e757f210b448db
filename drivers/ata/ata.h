/* SPDX-License-Identifier: MIT */
/*
 * ata.h - the register interface of a classic IDE channel, and the parts
 * of the PIIX driver (ata_piix.c) that its tests reach.
 *
 * Only what is the channel's lives here: where the task-file registers
 * sit, the bus-master engine and its PRD table.  What goes INTO the
 * registers -- commands, status and error bits, device-register bits,
 * IDENTIFY words -- is the ATA protocol, shared with the AHCI driver, in
 * <spindle/ata.h>; the taskfile of a command comes from
 * drivers/ata/libata-core.c.
 *
 * Specs followed: ATA/ATAPI-6 "Task File" register block (§7 of ATA-6:
 * register offsets), and the "Programming Interface for Bus Master IDE
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
#include <spindle/ata.h>

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

/* For the ata ktests: the disk's controller channel irq. */
int ide_disk_irq(const char *name);
/* For the ata ktests: register IDE disk name's device again as new_name
 * (ide_register_disk()'s error paths, with a fault point armed). */
int ide_register_disk_again(const char *name, const char *new_name);

#endif /* DRIVERS_ATA_ATA_H */
