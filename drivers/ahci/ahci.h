/* SPDX-License-Identifier: MIT */
/*
 * ahci.h - the AHCI host bus adapter as the driver sees it: its registers,
 * the memory structures it shares with the driver, the FIS that carries a
 * command, and the driver's own state (drivers/ahci/ahci.c).
 *
 * The ATA commands themselves, the status and error bits in PxTFD and the
 * IDENTIFY words are the ATA protocol, the same as on an IDE channel:
 * they are in <spindle/ata.h>, and the taskfile of each command is built
 * by drivers/ata/libata-core.c.  Only its packing into a FIS is AHCI's.
 *
 * Spec references are to "Serial ATA AHCI 1.3.1" (AHCI) and SATA 3.x
 * (FIS layouts).  docs/ahci.md draws the structures.
 *
 * The registers are reached through the ABAR (PCI BAR 5), mapped uncached:
 *
 *   ABAR + 0x000   generic host control (struct ahci_hba_regs)
 *   ABAR + 0x100   port 0 registers     (struct ahci_port_regs, 0x80 each)
 *   ABAR + 0x180   port 1 ...
 *
 * Register and descriptor structs are made of naturally aligned u32s, so
 * they need no __packed; the _Static_asserts hold them to the spec's
 * offsets.  Everything the HBA reads or writes in RAM -- the command list, the
 * received-FIS area, the command tables with their PRDTs -- comes from
 * dma_alloc_coherent(): physically contiguous, below 4 GiB, aligned.
 *
 * The last section is for tests (tests/kernel/ahci_test.c): counters that
 * show what the driver did (commands in flight at once, flushes issued).
 */
#ifndef DRIVERS_AHCI_AHCI_H
#define DRIVERS_AHCI_AHCI_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>
#include <spindle/wait.h>
#include <spindle/blk_mq.h>
#include <spindle/ata.h>

struct pci_dev;
struct gendisk;
struct request;
struct request_queue;

/* ---- Generic host control (AHCI §3.1) ------------------------------------ */

struct ahci_hba_regs {
	u32 cap;                /* 0x00 Host Capabilities */
	u32 ghc;                /* 0x04 Global Host Control */
	u32 is;                 /* 0x08 Interrupt Status: bit n = port n (RW1C) */
	u32 pi;                 /* 0x0c Ports Implemented */
	u32 vs;                 /* 0x10 Version */
	u32 ccc_ctl;            /* 0x14 Command Completion Coalescing Control */
	u32 ccc_ports;          /* 0x18 */
	u32 em_loc;             /* 0x1c Enclosure Management Location */
	u32 em_ctl;             /* 0x20 */
	u32 cap2;               /* 0x24 Host Capabilities Extended */
	u32 bohc;               /* 0x28 BIOS/OS Handoff Control and Status */
	u8  reserved[0xa0 - 0x2c];
	u8  vendor[0x100 - 0xa0];
};

/* CAP */
#define HOST_CAP_S64A           (1u << 31)  /* 64-bit addressing */
#define HOST_CAP_SNCQ           (1u << 30)  /* Native Command Queuing */
#define HOST_CAP_SSS            (1u << 27)  /* Staggered Spin-up */
#define HOST_CAP_SCLO           (1u << 24)  /* Command List Override */
#define HOST_CAP_ISS_SHIFT      20          /* Interface Speed Support, 4 bits */
#define HOST_CAP_NCS_SHIFT      8           /* Number of Command Slots - 1, 5 bits */
#define HOST_CAP_NP_MASK        0x1f        /* Number of Ports - 1 */
/* GHC */
#define HOST_CTL_AE             (1u << 31)  /* AHCI Enable */
#define HOST_CTL_IE             (1u << 1)   /* Interrupt Enable */
#define HOST_CTL_HR             (1u << 0)   /* HBA Reset: self-clearing */

/* ---- Port registers (AHCI §3.3) ------------------------------------------ */

struct ahci_port_regs {
	u32 clb;                /* 0x00 Command List Base (1 KiB aligned) */
	u32 clbu;               /* 0x04 ... upper 32 bits */
	u32 fb;                 /* 0x08 FIS Base (256-byte aligned) */
	u32 fbu;                /* 0x0c ... upper 32 bits */
	u32 is;                 /* 0x10 Interrupt Status (RW1C) */
	u32 ie;                 /* 0x14 Interrupt Enable */
	u32 cmd;                /* 0x18 Command and Status */
	u32 reserved0;          /* 0x1c */
	u32 tfd;                /* 0x20 Task File Data: error << 8 | status */
	u32 sig;                /* 0x24 Signature of the attached device */
	u32 ssts;               /* 0x28 SATA Status (SStatus) */
	u32 sctl;               /* 0x2c SATA Control (SControl) */
	u32 serr;               /* 0x30 SATA Error (SError, RW1C) */
	u32 sact;               /* 0x34 SATA Active: NCQ tags outstanding */
	u32 ci;                 /* 0x38 Command Issue: slots outstanding */
	u32 sntf;               /* 0x3c SATA Notification */
	u32 fbs;                /* 0x40 FIS-based Switching Control */
	u32 devslp;             /* 0x44 Device Sleep */
	u8  reserved1[0x70 - 0x48];
	u8  vendor[0x80 - 0x70];
};

_Static_assert(sizeof(struct ahci_hba_regs) == 0x100, "generic host control is 0x100 bytes");
_Static_assert(sizeof(struct ahci_port_regs) == 0x80, "port registers are 0x80 bytes");
_Static_assert(offsetof(struct ahci_port_regs, tfd) == 0x20, "PxTFD at 0x20");
_Static_assert(offsetof(struct ahci_port_regs, ci) == 0x38, "PxCI at 0x38");

#define AHCI_PORT_REGS_OFFSET   0x100
#define AHCI_MAX_PORTS          32
#define AHCI_MAX_SLOTS          32

/* PxIS and PxIE (AHCI §3.3.5, §3.3.6) */
#define PORT_IRQ_CPDS           (1u << 31)  /* Cold Port Detect */
#define PORT_IRQ_TFES           (1u << 30)  /* Task File Error: ERR in a status */
#define PORT_IRQ_HBFS           (1u << 29)  /* Host Bus Fatal Error */
#define PORT_IRQ_HBDS           (1u << 28)  /* Host Bus Data Error */
#define PORT_IRQ_IFS            (1u << 27)  /* Interface Fatal Error */
#define PORT_IRQ_INFS           (1u << 26)  /* Interface Non-fatal Error */
#define PORT_IRQ_OFS            (1u << 24)  /* Overflow: PRDT too short */
#define PORT_IRQ_IPMS           (1u << 23)  /* Incorrect Port Multiplier */
#define PORT_IRQ_PRCS           (1u << 22)  /* PhyRdy Change */
#define PORT_IRQ_DMPS           (1u << 7)   /* Device Mechanical Presence */
#define PORT_IRQ_PCS            (1u << 6)   /* Port Connect Change */
#define PORT_IRQ_DPS            (1u << 5)   /* Descriptor Processed */
#define PORT_IRQ_UFS            (1u << 4)   /* Unknown FIS */
#define PORT_IRQ_SDBS           (1u << 3)   /* Set Device Bits FIS: NCQ done */
#define PORT_IRQ_DSS            (1u << 2)   /* DMA Setup FIS */
#define PORT_IRQ_PSS            (1u << 1)   /* PIO Setup FIS */
#define PORT_IRQ_DHRS           (1u << 0)   /* Device to Host Register FIS */
/* What makes the driver stop the port and recover. */
#define PORT_IRQ_ERROR_MASK     (PORT_IRQ_TFES | PORT_IRQ_HBFS | PORT_IRQ_HBDS | \
				 PORT_IRQ_IFS | PORT_IRQ_INFS | PORT_IRQ_OFS)
/* What the driver asks to be interrupted for (no hot-plug: PCS/PRCS off). */
#define PORT_IRQ_ENABLE_MASK    (PORT_IRQ_ERROR_MASK | PORT_IRQ_UFS | \
				 PORT_IRQ_SDBS | PORT_IRQ_DSS | PORT_IRQ_PSS | \
				 PORT_IRQ_DHRS)

/* PxCMD (AHCI §3.3.7) */
#define PORT_CMD_ATAPI          (1u << 24)  /* device is ATAPI (LED/behaviour) */
#define PORT_CMD_CR             (1u << 15)  /* Command List Running */
#define PORT_CMD_FR             (1u << 14)  /* FIS Receive Running */
#define PORT_CMD_CCS_SHIFT      8           /* Current Command Slot, 5 bits */
#define PORT_CMD_FRE            (1u << 4)   /* FIS Receive Enable */
#define PORT_CMD_CLO            (1u << 3)   /* Command List Override */
#define PORT_CMD_POD            (1u << 2)   /* Power On Device */
#define PORT_CMD_SUD            (1u << 1)   /* Spin-Up Device */
#define PORT_CMD_ST             (1u << 0)   /* Start: process the command list */

/* PxSSTS (AHCI §3.3.10, SATA SStatus) */
#define PORT_SSTS_DET_MASK      0x00f       /* Device Detection */
#define  PORT_SSTS_DET_PRESENT  0x3         /*   device present, Phy up */
#define PORT_SSTS_SPD_SHIFT     4           /* Current Interface Speed */
#define PORT_SSTS_IPM_SHIFT     8           /* Interface Power Management */
#define  PORT_SSTS_IPM_ACTIVE   0x1         /*   active state */
/* PxSCTL (AHCI §3.3.11, SATA SControl) */
#define PORT_SCTL_DET_MASK      0x00f
#define  PORT_SCTL_DET_NONE     0x0         /* no action */
#define  PORT_SCTL_DET_COMRESET 0x1         /* hold COMRESET on the link */
#define PORT_SCTL_IPM_NONE      (0x3u << 8) /* no Partial/Slumber transitions */

/* PxSIG (AHCI §3.3.9): what the device put in its first D2H FIS */
#define SATA_SIG_ATA            0x00000101  /* a disk */
#define SATA_SIG_ATAPI          0xeb140101  /* a packet device (CD/DVD) */
#define SATA_SIG_SEMB           0xc33c0101  /* enclosure bridge */
#define SATA_SIG_PM             0x96690101  /* port multiplier */
#define SATA_SIG_NONE           0xffffffff  /* no D2H FIS received yet */

/* PxTFD (AHCI §3.3.8): the status byte in 7:0, the error byte in 15:8 --
 * ATA_BUSY, ATA_ERR, ATA_ABORTED ... of <spindle/ata.h>. */
#define PORT_TFDATA_ERR_SHIFT   8

/* ---- Memory shared with the HBA (AHCI §4.2) ------------------------------ */

/* One of 32 command headers in the command list (§4.2.2). */
struct ahci_cmd_hdr {
	u32 opts;               /* PRDTL << 16 | flags | CFL */
	u32 prdbc;              /* PRD Byte Count: bytes transferred (HBA writes) */
	u32 ctba;               /* Command Table Base (128-byte aligned) */
	u32 ctbau;
	u32 reserved[4];
};
_Static_assert(sizeof(struct ahci_cmd_hdr) == 32, "command header is 32 bytes");

#define AHCI_CMD_PRDTL_SHIFT    16          /* PRD entries in the table */
#define AHCI_CMD_CLR_BUSY       (1u << 10)  /* C: clear BSY on R_OK */
#define AHCI_CMD_RESET          (1u << 8)   /* R: part of a soft reset */
#define AHCI_CMD_PREFETCH       (1u << 7)   /* P: HBA may prefetch the PRDs */
#define AHCI_CMD_WRITE          (1u << 6)   /* W: data goes to the device */
#define AHCI_CMD_ATAPI          (1u << 5)   /* A: ATAPI packet in ACMD */
#define AHCI_CMD_CFL_MASK       0x1f        /* command FIS length, dwords */

/* One Physical Region Descriptor (§4.2.3.3): a piece of memory. */
struct ahci_prd {
	u32 dba;                /* Data Base Address; bit 0 must be 0 (word) */
	u32 dbau;               /* upper 32 bits */
	u32 reserved;
	u32 dbc;                /* bit 31: interrupt when done; 21:0 bytes - 1 */
};
_Static_assert(sizeof(struct ahci_prd) == 16, "PRD entry is 16 bytes");

#define AHCI_PRD_DBC_MASK       0x003fffff  /* 22 bits: byte count - 1 */
#define AHCI_PRD_MAX_BYTES      (4u << 20)  /* 4 MiB per entry */
#define AHCI_PRD_IRQ            (1u << 31)  /* I: interrupt when processed */

/*
 * The command table (§4.2.3): the command FIS, an ATAPI packet, then the
 * PRDT.  The driver sizes the PRDT to AHCI_MAX_PRD entries (the queue's
 * max_segments), so each table is 0x80 + 128 * 16 = 2176 bytes.
 */
#define AHCI_MAX_PRD            128
struct ahci_cmd_table {
	u8 cfis[64];            /* 0x00 command FIS (an H2D register FIS) */
	u8 acmd[16];            /* 0x40 ATAPI command */
	u8 reserved[48];        /* 0x50 */
	struct ahci_prd prdt[AHCI_MAX_PRD];     /* 0x80 */
};
_Static_assert(offsetof(struct ahci_cmd_table, prdt) == 0x80, "PRDT at 0x80");
_Static_assert(sizeof(struct ahci_cmd_table) % 128 == 0, "tables stay 128-byte aligned");

/* The received-FIS area (§4.2.1): where the HBA copies FISes from the device. */
struct ahci_rx_fis {
	u8 dsfis[0x1c];         /* 0x00 DMA Setup FIS */
	u8 pad0[4];
	u8 psfis[0x14];         /* 0x20 PIO Setup FIS */
	u8 pad1[0x0c];
	u8 rfis[0x14];          /* 0x40 D2H Register FIS */
	u8 pad2[4];
	u8 sdbfis[8];           /* 0x58 Set Device Bits FIS */
	u8 ufis[0x40];          /* 0x60 unknown FIS */
	u8 reserved[0x60];      /* 0xa0 */
} __packed;
_Static_assert(sizeof(struct ahci_rx_fis) == 256, "received-FIS area is 256 bytes");
_Static_assert(offsetof(struct ahci_rx_fis, sdbfis) == 0x58, "SDB FIS at 0x58");

/* Register FIS, host to device (SATA 3.x §10.5.5), 20 bytes = 5 dwords. */
struct fis_reg_h2d {
	u8 type;                /* FIS_TYPE_REG_H2D */
	u8 flags;               /* bit 7: C (this is a command); 3:0 PM port */
	u8 command;             /* ATA command */
	u8 featurel;            /* features 7:0 */
	u8 lba0, lba1, lba2;    /* LBA 23:0 */
	u8 device;              /* bit 6: LBA mode; NCQ: bit 7 FUA */
	u8 lba3, lba4, lba5;    /* LBA 47:24 */
	u8 featureh;            /* features 15:8 */
	u8 countl, counth;      /* sector count (NCQ: bits 7:3 = tag) */
	u8 icc;
	u8 control;
	u8 reserved[4];
} __packed;
_Static_assert(sizeof(struct fis_reg_h2d) == 20, "H2D register FIS is 20 bytes");

#define FIS_TYPE_REG_H2D        0x27
#define FIS_H2D_CMD             0x80        /* C bit */
#define FIS_H2D_DWORDS          (sizeof(struct fis_reg_h2d) / 4)

/* The DSM TRIM payload of one command: one 512-byte block of ranges. */
#define AHCI_DSM_BUF_BYTES      512

/* ---- The driver's state ----------------------------------------------- */

/* What the driver counts, per port; read by tests (ahci_disk_stats). */
struct ahci_port_stats {
	unsigned int max_inflight;      /* most slots outstanding at once */
	unsigned long ncq_cmds;         /* READ/WRITE FPDMA QUEUED issued */
	unsigned long dma_cmds;         /* READ/WRITE DMA [EXT] issued */
	unsigned long flushes;          /* FLUSH CACHE (EXT) issued */
	unsigned long trims;            /* DATA SET MANAGEMENT issued */
	unsigned long errors;           /* recoveries run (errors, timeouts) */
	unsigned long comresets;        /* COMRESETs sent */
	unsigned long requeued;         /* innocent commands given back */
};

struct ahci_host;

struct ahci_port {
	struct ahci_host *host;
	unsigned int port_no;
	struct ahci_port_regs *regs;        /* in the ABAR, uncached */

	/* DMA memory: command list + received FIS in one 4 KiB block, then
	 * the command tables (one per slot) and the DSM payloads */
	struct ahci_cmd_hdr *cmd_list;  /* 32 headers, 1 KiB aligned */
	struct ahci_rx_fis *rx_fis;     /* 256-byte aligned */
	phys_addr_t cmd_list_dma, rx_fis_dma;
	struct ahci_cmd_table *tables;  /* nr_slots of them, 128-byte aligned */
	phys_addr_t tables_dma;
	u8 *dsm_bufs;                   /* nr_slots x 512 bytes */
	phys_addr_t dsm_bufs_dma;
	u16 *identify;                  /* 512-byte buffer: IDENTIFY, logs */
	phys_addr_t identify_dma;

	/* the disk */
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	char name[8];                   /* "sda": for messages */
	struct ata_device ata;          /* what IDENTIFY said (libata-core) */
	bool ncq;                       /* issue READ/WRITE as FPDMA QUEUED:
					 * the disk and the HBA both can */

	/*
	 * What is outstanding, protected by lock (taken with interrupts off:
	 * the interrupt handler completes from here).  Bit n = slot n.
	 *   issued     every slot handed to the HBA and not completed yet
	 *   ncq_issued the subset issued as NCQ commands (then PxSACT is the
	 *              completion register; otherwise PxCI)
	 * NCQ and non-NCQ commands are never outstanding together.
	 */
	spinlock_t lock;
	u32 issued;
	u32 ncq_issued;
	struct request *slot_rq[AHCI_MAX_SLOTS];
	bool eh_active;                 /* recovery owns the port: issue nothing,
					 * the interrupt handler only acknowledges */
	bool eh_pending;                /* an error waits for the recovery thread */
	bool dead;                      /* recovery could not revive the device:
					 * every request fails from now on */
	u32 eh_irq_status;              /* PxIS bits that raised it */
	u32 eh_tfd;                     /* PxTFD when it was raised */
	/* after an NCQ error without a log: the requests that were in
	 * flight, to be sent again one at a time without NCQ, so that the
	 * one that fails again is known (ahci_rq_is_ncq) */
	struct request *retry_rqs[AHCI_MAX_SLOTS];
	unsigned int nr_retry;
	struct ahci_port_stats stats;
};

struct ahci_host {
	struct pci_dev *pdev;
	void *mmio;                     /* the ABAR, mapped uncached */
	struct ahci_hba_regs *hba;
	u32 cap;
	unsigned int nr_ports;          /* CAP.NP + 1 */
	unsigned int nr_slots;          /* CAP.NCS + 1 */
	u32 ports_impl;                 /* PI */
	int irq;
	bool msi;
	struct ahci_port *ports[AHCI_MAX_PORTS];  /* NULL: no such port (PI bit clear) */

	/* recovery: one thread per host, woken by the interrupt handler */
	struct task_struct *eh_thread;
	struct wait_queue_head eh_wait;
	struct mutex eh_mutex;          /* one recovery at a time (thread or timeout) */
};

/* ---- For tests --------------------------------------------------------- */

/*
 * ahci_fill_prdt - describe a request's data to the HBA as a PRD table.
 * Builds one entry per physically contiguous run of the request's segments
 * (in order), each at most AHCI_PRD_MAX_BYTES.  Returns the number of
 * entries written (0 for a request without data), -EINVAL if a segment's
 * address or length is odd (AHCI wants words), or -E2BIG if more than
 * @max_entries would be needed.  Touches nothing but @prdt.
 */
int ahci_fill_prdt(struct request *rq, struct ahci_prd *prdt, unsigned int max_entries);

/* The counters of the AHCI disk @disk, or NULL if it is not one. */
struct ahci_port_stats *ahci_disk_stats(struct gendisk *disk);

/*
 * For tests: hold (mask the port's interrupts) or let go the completions
 * of AHCI disk @disk.  While held, the HBA goes on running commands and
 * records their ends in PxIS, but nothing is reaped, so a test can issue a
 * batch and find all of it outstanding at once however fast the host
 * completes it; letting go raises the interrupt for what ended meanwhile.
 * Held too long, a command meets the driver's timeout.  -ENODEV if @disk
 * is not an AHCI disk.  Task context; does not sleep.
 */
int ahci_hold_completions(struct gendisk *disk, bool hold);

/*
 * For tests: what __ahci_port_done() answers for a port whose registers
 * are @regs -- ordinary memory the test filled with PxCI, PxSACT, PxTFD
 * and PxSERR values -- with the issued masks of @in.  A state a real
 * device shows only by chance of timing (a slot the HBA has sent, PxCI
 * clear, that the disk still runs, PxSACT set) is then there every run.
 * -ENOMEM, else 0.  Task context.
 */
struct ahci_port_done_args {
	u32 issued, ncq_issued;         /* the port's masks */
	bool eh_pending;
	u32 status;                     /* PxIS as acknowledged */
};

struct ahci_port_done_result {
	u32 done;                       /* the slots it says ended */
	u32 tfd;
	bool error;
};

int ahci_port_done_on(struct ahci_port_regs *regs, const struct ahci_port_done_args *in,
		      struct ahci_port_done_result *out);

#endif /* DRIVERS_AHCI_AHCI_H */
