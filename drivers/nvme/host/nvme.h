/* SPDX-License-Identifier: MIT */
/*
 * nvme.h - an NVMe controller as the driver sees it: its registers, the
 * commands and completions it exchanges with the host through queues in
 * RAM, the opcodes and status codes, and the driver's own state.
 *
 * Three files share it, as Linux's drivers/nvme/host/ shares its own:
 *   pci.c   the transport: BAR 0, the controller's enable and disable,
 *           the queues in memory, the interrupt, the PRPs that describe
 *           a request's data, blk-mq's queue_rq;
 *   ring.c  a queue pair's two rings: a command into the SQ and the tail
 *           doorbell, completions out of the CQ by phase tag and the head
 *           doorbell (apart, so that a host test can model the controller);
 *   core.c  what any NVMe transport would share: Identify, Set Features,
 *           the namespaces and their disks, a request turned into a
 *           command, a completion's status turned into a blk_status_t.
 *
 * Spec references are to "NVM Express Base Specification 1.4" (NVMe).
 * docs/nvme.md draws a queue pair and says what is built and what is not.
 *
 * The registers are reached through BAR 0, mapped uncached:
 *
 *   BAR0 + 0x0000  controller registers (struct nvme_bar)
 *   BAR0 + 0x1000  doorbells: SQ 0 tail, CQ 0 head, SQ 1 tail, CQ 1 head,
 *                  ... each (4 << CAP.DSTRD) bytes apart (NVMe §3.1.24)
 *
 * 64-bit registers are read and written as two 32-bit halves, low first:
 * NVMe §3.1 lets the host do so, and it keeps us to readl/writel.
 */
#ifndef DRIVERS_NVME_HOST_NVME_H
#define DRIVERS_NVME_HOST_NVME_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/cache.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>
#include <spindle/blk_mq.h>
#include <spindle/sysfs.h>

struct pci_dev;
struct gendisk;

/* ---- Controller registers (NVMe §3.1) ------------------------------------ */

struct nvme_bar {
	u32 cap_lo;             /* 0x00 Controller Capabilities, bits 31:0 (RO) */
	u32 cap_hi;             /* 0x04 ... bits 63:32 */
	u32 vs;                 /* 0x08 Version: major 31:16, minor 15:8 */
	u32 intms;              /* 0x0c Interrupt Mask Set (INTx only; RW1S) */
	u32 intmc;              /* 0x10 Interrupt Mask Clear (RW1C) */
	u32 cc;                 /* 0x14 Controller Configuration */
	u32 reserved0;          /* 0x18 */
	u32 csts;               /* 0x1c Controller Status (RO) */
	u32 nssr;               /* 0x20 NVM Subsystem Reset */
	u32 aqa;                /* 0x24 Admin Queue Attributes */
	u32 asq_lo;             /* 0x28 Admin Submission Queue Base Address */
	u32 asq_hi;             /* 0x2c */
	u32 acq_lo;             /* 0x30 Admin Completion Queue Base Address */
	u32 acq_hi;             /* 0x34 */
};
_Static_assert(offsetof(struct nvme_bar, cc) == 0x14, "NVMe §3.1: CC at 0x14");
_Static_assert(offsetof(struct nvme_bar, csts) == 0x1c, "NVMe §3.1: CSTS at 0x1c");
_Static_assert(offsetof(struct nvme_bar, asq_lo) == 0x28, "NVMe §3.1: ASQ at 0x28");
_Static_assert(sizeof(struct nvme_bar) == 0x38, "NVMe §3.1: CMBLOC follows at 0x38");

#define NVME_REG_DBS            0x1000  /* first doorbell (SQ 0 tail) */

/* CAP (64 bits; NVMe §3.1.1).  Fields as (cap >> shift) & mask. */
#define NVME_CAP_MQES(cap)      ((u32)((cap) & 0xffff))   /* Maximum Queue Entries Supported, 0's based */
#define NVME_CAP_CQR            (1ull << 16)              /* Contiguous Queues Required */
#define NVME_CAP_TIMEOUT(cap)   ((u32)(((cap) >> 24) & 0xff)) /* TO: CSTS.RDY change, 500 ms units */
#define NVME_CAP_STRIDE(cap)    ((u32)(((cap) >> 32) & 0xf))  /* DSTRD: doorbell stride 4 << n bytes */
#define NVME_CAP_CSS_NVM        (1ull << 37)              /* CSS bit 0: NVM command set */
#define NVME_CAP_MPSMIN(cap)    ((u32)(((cap) >> 48) & 0xf))  /* Memory Page Size Minimum: 4K << n */
#define NVME_CAP_MPSMAX(cap)    ((u32)(((cap) >> 52) & 0xf))  /* Memory Page Size Maximum */
#define NVME_CAP_TO_UNIT_MS     500                       /* CAP.TO counts half seconds */

/* CC (NVMe §3.1.5) */
#define NVME_CC_ENABLE          (1u << 0)       /* EN */
#define NVME_CC_CSS_NVM         (0u << 4)       /* CSS: NVM command set */
#define NVME_CC_MPS_SHIFT       7               /* MPS: memory page size 4K << n */
#define NVME_CC_AMS_RR          (0u << 11)      /* AMS: round robin arbitration */
#define NVME_CC_SHN_NONE        (0u << 14)      /* SHN: no shutdown notification */
#define NVME_CC_IOSQES_SHIFT    16              /* I/O SQ entry size, 2^n bytes */
#define NVME_CC_IOCQES_SHIFT    20              /* I/O CQ entry size, 2^n bytes */
#define NVME_NVM_IOSQES         6               /* 64-byte commands */
#define NVME_NVM_IOCQES         4               /* 16-byte completions */

/* CSTS (NVMe §3.1.6) */
#define NVME_CSTS_RDY           (1u << 0)       /* Ready: follows CC.EN */
#define NVME_CSTS_CFS           (1u << 1)       /* Controller Fatal Status */
#define NVME_CSTS_SHST_MASK     (3u << 2)       /* Shutdown Status */

/* AQA (NVMe §3.1.8): queue sizes, 0's based */
#define NVME_AQA_ASQS_SHIFT     0
#define NVME_AQA_ACQS_SHIFT     16

/* ---- Commands (NVMe §4.2) ------------------------------------------------ */

/*
 * A submission queue entry: 64 bytes.  Dword 0 holds the opcode, the
 * fused bits, PSDT (0: the data pointer is PRPs, §4.3) and the command
 * identifier the completion will carry back.  The data pointer is two
 * PRP entries (§4.3): prp1 the first page (with an offset), prp2 either
 * the second page or, for more than two pages, a PRP list's address.
 * cdw10..cdw15 are the command's own.
 */
struct nvme_command {
	u8  opcode;             /* 0x00 CDW0 7:0 */
	u8  flags;              /* 0x01 CDW0 15:8: FUSE 9:8, PSDT 15:14 */
	u16 command_id;         /* 0x02 CDW0 31:16: CID */
	u32 nsid;               /* 0x04 Namespace Identifier */
	u32 cdw2;               /* 0x08 */
	u32 cdw3;               /* 0x0c */
	u64 metadata;           /* 0x10 MPTR */
	u64 prp1;               /* 0x18 DPTR: PRP Entry 1 */
	u64 prp2;               /* 0x20 DPTR: PRP Entry 2 */
	u32 cdw10;              /* 0x28 */
	u32 cdw11;              /* 0x2c */
	u32 cdw12;              /* 0x30 */
	u32 cdw13;              /* 0x34 */
	u32 cdw14;              /* 0x38 */
	u32 cdw15;              /* 0x3c */
};
_Static_assert(offsetof(struct nvme_command, prp1) == 0x18, "NVMe §4.2: DPTR at 24");
_Static_assert(offsetof(struct nvme_command, cdw10) == 0x28, "NVMe §4.2: CDW10 at 40");
_Static_assert(sizeof(struct nvme_command) == 1u << NVME_NVM_IOSQES, "NVMe §4.2: 64 bytes");

/*
 * A completion queue entry: 16 bytes (§4.6).  The controller writes it
 * with the Phase Tag (bit 0 of status) inverted on each pass through the
 * queue: an entry is new while its phase equals the one the host expects.
 * status >> 1 is the Status Field (§4.6.1): SC 7:0, SCT 10:8, CRD 12:11,
 * More 13, DNR 14.
 */
struct nvme_completion {
	u32 result;             /* 0x00 DW0: command specific */
	u32 rsvd;               /* 0x04 DW1 */
	u16 sq_head;            /* 0x08 SQHD: how far the controller has read */
	u16 sq_id;              /* 0x0a SQID */
	u16 command_id;         /* 0x0c CID of the command that completed */
	u16 status;             /* 0x0e P (bit 0) and the Status Field */
};
_Static_assert(sizeof(struct nvme_completion) == 1u << NVME_NVM_IOCQES, "NVMe §4.6: 16 bytes");

#define NVME_CQE_PHASE          0x1             /* Phase Tag, in status */
#define NVME_SC_MASK            0xff            /* of status >> 1: Status Code */
#define NVME_SCT_SHIFT          8               /* Status Code Type, 3 bits */
#define NVME_SCT_MASK           0x7
#define NVME_STATUS_MORE        (1u << 13)      /* a log page has more */
#define NVME_STATUS_DNR         (1u << 14)      /* Do Not Retry */

/* Status codes as Linux names them: SCT << 8 | SC (NVMe §4.6.1.2) */
#define NVME_SC_SUCCESS         0x000
#define NVME_SC_INVALID_OPCODE  0x001
#define NVME_SC_INVALID_FIELD   0x002
#define NVME_SC_CMDID_CONFLICT  0x003
#define NVME_SC_DATA_XFER_ERROR 0x004
#define NVME_SC_INTERNAL        0x006
#define NVME_SC_ABORT_REQ       0x007
#define NVME_SC_INVALID_NS      0x00b
#define NVME_SC_LBA_RANGE       0x080
#define NVME_SC_CAP_EXCEEDED    0x081
#define NVME_SC_NS_NOT_READY    0x082
/* SCT 1: command specific (§4.6.1.2.2) */
#define NVME_SC_CQ_INVALID      0x100
#define NVME_SC_QID_INVALID     0x101
#define NVME_SC_QUEUE_SIZE      0x102
#define NVME_SC_READ_ONLY       0x182
/* SCT 2: media and data integrity errors (§4.6.1.2.3) */
#define NVME_SC_WRITE_FAULT     0x280
#define NVME_SC_READ_ERROR      0x281
#define NVME_SC_GUARD_CHECK     0x282
#define NVME_SC_COMPARE_FAILED  0x285
#define NVME_SC_ACCESS_DENIED   0x286
#define NVME_SC_UNWRITTEN_BLOCK 0x287

/* Admin opcodes (NVMe §5) */
enum nvme_admin_opcode {
	nvme_admin_delete_sq    = 0x00,
	nvme_admin_create_sq    = 0x01,
	nvme_admin_get_log_page = 0x02,
	nvme_admin_delete_cq    = 0x04,
	nvme_admin_create_cq    = 0x05,
	nvme_admin_identify     = 0x06,
	nvme_admin_abort_cmd    = 0x08,
	nvme_admin_set_features = 0x09,
	nvme_admin_get_features = 0x0a,
};

/* NVM command set I/O opcodes (NVM Command Set 1.0 §3; NVMe 1.4 §6) */
enum nvme_opcode {
	nvme_cmd_flush          = 0x00,
	nvme_cmd_write          = 0x01,
	nvme_cmd_read           = 0x02,
	nvme_cmd_write_zeroes   = 0x08,
	nvme_cmd_dsm            = 0x09,
};

/* Read and Write, CDW12 (NVMe §6.9, §6.15): NLB 15:0 (0's based) */
#define NVME_RW_FUA             (1u << 30)      /* Force Unit Access */
#define NVME_RW_LR              (1u << 31)      /* Limited Retry */

/* Dataset Management (NVMe §6.7): CDW10 NR 7:0 (ranges, 0's based),
 * CDW11 attributes; the ranges are a list in host memory at PRP1. */
#define NVME_DSMGMT_AD          (1u << 2)       /* Attribute - Deallocate */

struct nvme_dsm_range {                         /* NVMe §6.7, figure 364 */
	u32 cattr;              /* Context Attributes */
	u32 nlb;                /* Length in logical blocks (not 0's based) */
	u64 slba;               /* Starting LBA */
};
_Static_assert(sizeof(struct nvme_dsm_range) == 16, "NVMe §6.7: 16-byte ranges");

/* Create I/O Completion / Submission Queue (NVMe §5.3, §5.4) */
#define NVME_QUEUE_PHYS_CONTIG  (1u << 0)       /* PC: one contiguous buffer */
#define NVME_CQ_IRQ_ENABLED     (1u << 1)       /* IEN */
#define NVME_SQ_PRIO_MEDIUM     (2u << 1)       /* QPRIO (unused with RR) */

/* Identify, CDW10.CNS (NVMe §5.15.1) */
#define NVME_ID_CNS_NS          0x00
#define NVME_ID_CNS_CTRL        0x01
#define NVME_ID_CNS_NS_ACTIVE_LIST 0x02
#define NVME_IDENTIFY_DATA_SIZE 4096

/* Set Features: Feature Identifiers (NVMe §5.21.1) */
#define NVME_FEAT_NUM_QUEUES    0x07

/*
 * Identify Controller data (NVMe §5.15.2.2, figure 251), the fields the
 * driver reads; the rest of the 4 KiB is padding here.
 */
struct nvme_id_ctrl {
	u16 vid;                /* 0 PCI Vendor ID */
	u16 ssvid;              /* 2 */
	char sn[20];            /* 4 Serial Number, ASCII, space padded */
	char mn[40];            /* 24 Model Number */
	char fr[8];             /* 64 Firmware Revision */
	u8  rab;                /* 72 */
	u8  ieee[3];            /* 73 */
	u8  cmic;               /* 76 */
	u8  mdts;               /* 77 Maximum Data Transfer Size: 2^n min pages; 0 none */
	u16 cntlid;             /* 78 Controller ID */
	u32 ver;                /* 80 Version */
	u8  rsvd84[512 - 84];
	u8  sqes;               /* 512 SQ entry sizes: required 3:0, max 7:4 */
	u8  cqes;               /* 513 CQ entry sizes */
	u16 maxcmd;             /* 514 */
	u32 nn;                 /* 516 Number of Namespaces (highest NSID) */
	u16 oncs;               /* 520 Optional NVM Command Support */
	u16 fuses;              /* 522 */
	u8  fna;                /* 524 */
	u8  vwc;                /* 525 Volatile Write Cache: bit 0 present */
	u8  rsvd526[4096 - 526];
} __packed;
_Static_assert(offsetof(struct nvme_id_ctrl, mdts) == 77, "NVMe fig. 251: MDTS");
_Static_assert(offsetof(struct nvme_id_ctrl, nn) == 516, "NVMe fig. 251: NN");
_Static_assert(offsetof(struct nvme_id_ctrl, vwc) == 525, "NVMe fig. 251: VWC");
_Static_assert(sizeof(struct nvme_id_ctrl) == NVME_IDENTIFY_DATA_SIZE, "4 KiB");

#define NVME_CTRL_ONCS_WRITE_ZEROES (1u << 3)
#define NVME_CTRL_ONCS_DSM      (1u << 2)
#define NVME_CTRL_VWC_PRESENT   (1u << 0)

/*
 * Controller quirks (Linux's enum nvme_quirks, set from the PCI IDs at
 * probe).  IGNORES_FUA is Spindle's own: the controller completes a Write
 * with FUA set before the data is durable -- QEMU 7.2's (1b36:0010)
 * reports a volatile write cache but never hands the bit on to its block
 * backend -- so the queue says "no FUA" and blk-flush sends a Flush after
 * such a write.
 */
#define NVME_QUIRK_IGNORES_FUA  (1u << 0)

/* One LBA Format (NVMe §5.15.2.1, figure 249) */
struct nvme_lbaf {
	u16 ms;                 /* Metadata Size per LBA */
	u8  ds;                 /* LBA Data Size: 2^n bytes (9 = 512) */
	u8  rp;                 /* Relative Performance */
};

/* Identify Namespace data (NVMe §5.15.2.1, figure 249), the fields used */
struct nvme_id_ns {
	u64 nsze;               /* 0 Namespace Size, in logical blocks */
	u64 ncap;               /* 8 Namespace Capacity */
	u64 nuse;               /* 16 Namespace Utilization */
	u8  nsfeat;             /* 24 */
	u8  nlbaf;              /* 25 Number of LBA Formats, 0's based */
	u8  flbas;              /* 26 Formatted LBA Size: 3:0 the format in use */
	u8  mc;                 /* 27 */
	u8  rsvd28[128 - 28];
	struct nvme_lbaf lbaf[16];      /* 128 LBA Format 0..15 */
	u8  rsvd192[4096 - 192];
} __packed;
_Static_assert(offsetof(struct nvme_id_ns, flbas) == 26, "NVMe fig. 249: FLBAS");
_Static_assert(offsetof(struct nvme_id_ns, lbaf) == 128, "NVMe fig. 249: LBAF0");
_Static_assert(sizeof(struct nvme_id_ns) == NVME_IDENTIFY_DATA_SIZE, "4 KiB");

#define NVME_NS_FLBAS_LBA_MASK  0xf

/* ---- The driver's state (pci.c and core.c) ------------------------------- */

/* Queue sizes and limits, and why. */
#define NVME_AQ_DEPTH           32      /* admin queue entries: one command
					 * at a time is all probe needs */
#define NVME_IO_QUEUE_ENTRIES   64      /* I/O SQ/CQ entries, the default and
					 * the most of nvme.io_queue_depth=:
					 * tags + 1, since a full queue keeps
					 * one slot empty (head == tail means
					 * empty, §4.1.1) */
#define NVME_PCI_MIN_QUEUE_SIZE 2       /* nvme.io_queue_depth= at least
					 * (Linux's): one command in flight */
#define NVME_MAX_NS             4       /* namespaces given a disk */
#define NVME_MAX_IO_QUEUES      NR_CPUS /* one I/O queue pair per CPU at most,
					 * as Linux asks */
#define NVME_MAX_POLL_QUEUES    NR_CPUS /* nvme.poll_queues= at most: one a
					 * CPU is all a CPU's poller can use */
#define NVME_CTRL_PAGE_SIZE     4096u   /* CC.MPS = 0: memory pages of 4 KiB */
#define NVME_MAX_XFER_BYTES     (512u * 1024)   /* per command: a PRP list of
					 * 128 entries fits one page with no
					 * chaining; QEMU's MDTS is 512 KiB too */
#define NVME_ADMIN_TIMEOUT_MS   10000   /* an admin command at probe */
#define NVME_IO_TIMEOUT_S       30      /* nvme.io_timeout= default (Linux's) */
#define NVME_MAX_RETRIES        5       /* nvme.max_retries= default: controller
					 * resets with no progress before the
					 * driver gives up (Linux's nvme_core.max_retries) */

struct nvme_dev;

/*
 * One queue pair: a submission queue the host writes and the controller
 * reads, and the completion queue the controller writes back.
 *
 * Locking (docs/locking.md): sq_lock (interrupts off) covers sq_tail,
 * the SQ entries and rqs[]; queue_rq takes it.  cq_lock (interrupts off)
 * covers cq_head and cq_phase; the interrupt handler takes it, on any
 * CPU, and so does a task polling the admin queue.  Neither is taken
 * inside the other.  Each I/O queue pair has its own two locks: CPUs
 * sending to different queues share none on the way to the device.
 */
struct nvme_queue {
	struct nvme_dev *dev;
	spinlock_t sq_lock;
	spinlock_t cq_lock;
	struct nvme_command *sq_cmds;   /* q_depth entries, DMA */
	phys_addr_t sq_dma;
	volatile struct nvme_completion *cqes;  /* q_depth entries, DMA */
	phys_addr_t cq_dma;
	u32 *q_db;                      /* SQ tail doorbell; CQ head is + stride */
	u16 q_depth;
	u16 qid;
	u16 sq_tail;
	u16 cq_head;
	u8 cq_phase;                    /* the phase a new entry has */
	u16 cq_vector;                  /* the interrupt vector its CQ raises (IV) */
	bool polled;                    /* a poll queue: its CQ raises no interrupt
					 * (IEN=0), its submitters reap it (nvme_poll) */
	char irqname[16];               /* "nvme0q1": its /proc/interrupts row,
					 * when the vector is its own */
	/* The admin queue: one synchronous command at a time (admin_mutex). */
	bool admin_done;
	u16 admin_cid;                  /* the command waited for: a late
					 * answer to a timed-out one is not it */
	struct nvme_completion admin_cqe;
	/* I/O queue: the request of each command identifier, and its PRP list. */
	struct request **rqs;
	u64 aborted;                    /* bit cid: an Abort was sent for it
					 * (nvme_timeout); under cq_lock */
	u64 **prp_lists;                /* one page of PRP entries per CID */
	phys_addr_t *prp_dma;
	/* One bounce buffer for requests PRPs cannot describe (pci.c,
	 * nvme_bounce_rq): claimed under sq_lock, given back by the
	 * completion under cq_lock; NULL when free. */
	struct request *bounce_rq;
	void *bounce;                   /* NVME_MAX_XFER_BYTES, contiguous */
	phys_addr_t bounce_dma;
	unsigned long bounced;          /* requests that went through it */
	unsigned long completions;      /* CQEs consumed (for the log) */
} ____cacheline_aligned_in_smp;         /* dev->ioqs[] is one per CPU: no queue
					 * shares a cache line with the next */

/* One namespace: a disk. */
struct nvme_ns {
	struct nvme_dev *dev;
	u32 nsid;
	unsigned int lba_shift;         /* log2 of the LBA size */
	u64 nsze;                       /* blocks */
	u16 cid_base;                   /* this namespace's command identifiers:
					 * cid_base + rq->tag */
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	char name[16];                  /* "nvme0n1" */
};

struct nvme_dev {
	struct pci_dev *pdev;
	struct nvme_bar *bar;
	void *mmio;                     /* BAR 0 */
	int instance;                   /* the 0 of nvme0 */
	char name[8];                   /* "nvme0" */
	u64 cap;
	u32 db_stride;                  /* in u32s: 1 << CAP.DSTRD */
	u16 q_depth;                    /* I/O queue entries: nvme.io_queue_depth=,
					 * at most CAP.MQES + 1 */
	u32 ctrl_config;                /* CC as written */
	unsigned int irq;               /* vector 0's: the admin queue's (and
					 * I/O queue 1's when it is the only one) */
	unsigned int nr_vecs;           /* interrupt vectors held */
	bool msi;
	bool dead;                      /* failed: every request gets an error */
	bool resetting;                 /* queue_rq waits (BLK_STS_RESOURCE);
					 * both written, then every I/O queue's
					 * sq_lock taken and dropped (nvme_quiesce) */
	unsigned int resets_in_row;     /* resets with no I/O completed since */
	struct nvme_queue adminq;
	/* I/O queue pairs: ioqs[i] is QID i + 1 and blk-mq's hardware context
	 * i of every namespace.  The first io_queues[HCTX_TYPE_DEFAULT] use
	 * interrupt vector i + 1 (vector 0 when there is only one vector);
	 * the io_queues[HCTX_TYPE_POLL] after them use none (Linux's
	 * layout: default, read, poll) */
	struct nvme_queue *ioqs;
	unsigned int nr_io_queues;
	unsigned int io_queues[HCTX_MAX_TYPES];
	struct mutex admin_mutex;       /* one admin command at a time */
	void *identify;                 /* a 4 KiB DMA buffer for Identify */
	phys_addr_t identify_dma;
	/* from Identify Controller */
	char serial[21], model[41], firmware_rev[9];
	u32 max_hw_sectors;
	u32 nn;
	u16 oncs;
	bool vwc;
	unsigned int quirks;            /* NVME_QUIRK_*, from the PCI IDs */
	unsigned int nr_ns;
	struct nvme_ns *ns[NVME_MAX_NS];
	struct class_device cdev;       /* /sys/class/nvme/nvme0 */
};

/* ---- pci.c for core.c --------------------------------------------------- */

/*
 * Run one admin command and wait for it (task context; may sleep).
 * Returns 0, the NVMe status (SCT << 8 | SC, > 0), or -errno: -ETIMEDOUT,
 * -ENODEV for a dead controller.  *result gets the completion's DW0.
 */
int nvme_submit_sync_cmd(struct nvme_dev *dev, struct nvme_command *cmd,
			 u32 *result);
extern const struct blk_mq_ops nvme_mq_ops;
/* For ring.c: one completion, copied out of the CQ, handled (under
 * cq_lock; does not sleep). */
void nvme_handle_cqe(struct nvme_queue *nvmeq, const struct nvme_completion *cqe);

/* ---- ring.c: a queue pair's two rings (pci.c calls them) ---------------- */

/* Copy @cmd into the SQ tail slot; tell the controller of the commands
 * copied so far (the SQ tail doorbell); both.  Under sq_lock; do not
 * sleep. */
void nvme_sq_copy_cmd(struct nvme_queue *nvmeq, const struct nvme_command *cmd);
void nvme_write_sq_db(struct nvme_queue *nvmeq);
void __nvme_submit_cmd(struct nvme_queue *nvmeq, const struct nvme_command *cmd);
/* Consume every new CQ entry (nvme_handle_cqe() each), then ring the CQ
 * head doorbell once.  Takes cq_lock; any context.  The entries consumed. */
unsigned int nvme_process_cq(struct nvme_queue *nvmeq);
/* Does the entry at cq_head carry the expected Phase Tag?  No lock. */
bool nvme_cqe_pending(struct nvme_queue *nvmeq);
/*
 * rq's data as PRP1, PRP2 and, past two pages, the PRP list of @cid
 * (nvmeq->prp_lists[cid]).  0, -EAGAIN for a hole inside a page (PRPs
 * cannot say it: bounce), -EINVAL for a segment not dword aligned.  Does
 * not sleep, touches nothing but *cmd and the list (tests call it on
 * made-up requests).
 */
int nvme_map_data(struct nvme_queue *nvmeq, struct request *rq, u16 cid,
		  struct nvme_command *cmd);

/* ---- core.c for pci.c --------------------------------------------------- */

int nvme_init_identify(struct nvme_dev *dev);
int nvme_set_queue_count(struct nvme_dev *dev, unsigned int *count, unsigned int *nsqa,
			 unsigned int *ncqa);
void nvme_scan_ns(struct nvme_dev *dev);
void nvme_sysfs_register(struct nvme_dev *dev);
blk_status_t nvme_setup_cmd(struct nvme_ns *ns, struct request *rq,
			    struct nvme_command *cmd, struct nvme_dsm_range *range);
blk_status_t nvme_error_status(u16 status);
void nvme_log_error(struct nvme_ns *ns, struct request *rq, u16 status);
extern unsigned int nvme_io_timeout_s;
extern unsigned int nvme_max_retries;
extern unsigned int nvme_poll_queues;
extern unsigned int nvme_io_queue_depth;

#endif /* DRIVERS_NVME_HOST_NVME_H */
