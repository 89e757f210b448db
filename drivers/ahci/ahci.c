// SPDX-License-Identifier: MIT
/*
 * ahci.c - the AHCI SATA driver: ICH9 AHCI as QEMU emulates it (q35's
 * 00:1f.2, or `-device ahci` on pc), disks sda, sdb, ... (major 8).
 *
 * Where it sits: below the request layer (block/blk-mq.c), which hands
 * ahci_queue_rq() one request at a time with a tag; the tag IS the HBA's
 * command slot.  Below us the HBA fetches the command from RAM, talks to the
 * disk in FISes, moves the data by DMA and raises an interrupt; the
 * handler completes the request with blk_mq_complete_request().
 * Beside it: the shared ATA layer (<spindle/ata.h>, drivers/ata/
 * libata-core.c, see docs/ata.md) reads IDENTIFY and builds the taskfile
 * of every command, as for the IDE driver; this file keeps what is the
 * HBA's: ports, the command list and tables, FISes, NCQ slots, recovery.
 *
 * One command's life (docs/ahci.md draws the memory):
 *
 *   ahci_queue_rq(rq)        slot = rq->tag
 *     ahci_rq_is_ncq()       queued (FPDMA QUEUED) or alone (DMA)?
 *     ahci_fill_prdt()       request segments -> PRD table of the slot
 *     ata_build_rw_tf()      the ATA command as a taskfile (libata-core:
 *                            the same as the IDE driver's)
 *     ahci_tf_to_fis()       taskfile -> the slot's command FIS
 *     ahci_fill_hdr()        command header: FIS length, PRD count, W bit
 *     ahci_issue()           NCQ: PxSACT |= bit, then PxCI |= bit
 *   ... the HBA runs it ...
 *   ahci_interrupt()         HBA IS says which port
 *     ahci_port_intr()       ack PxIS, then
 *       __ahci_port_done()   read PxCI/PxSACT: the issued slots that ended
 *       __ahci_complete_slots()  complete each of them
 *
 * Port state machine (per port):
 *
 *     RUNNING --error irq--> FROZEN (eh_pending: queue_rq says busy)
 *        ^                       | ahci_eh_thread
 *        |                       v
 *        +---- restarted --- RECOVERING (eh_active: stop, COMRESET if
 *                            stuck, find the failed command, fail it,
 *                            requeue the innocent ones, restart)
 *
 * Supported: ATA disks (LBA28 and LBA48), READ/WRITE DMA [EXT], NCQ
 * (READ/WRITE FPDMA QUEUED, up to 32 tags), FLUSH CACHE [EXT], DSM TRIM,
 * MSI or INTx, error recovery (NCQ error log, COMRESET), timeouts.
 * Not supported: ATAPI (the boot CD is recognised and skipped), port
 * multipliers, hot plug, power management, FUA (the block layer emulates
 * it with a flush).
 *
 * Limits and why: 128 PRD entries per command (max_segments; a table is
 * 2176 bytes, 68 KiB per port); 2048 sectors (1 MiB) per command -- the
 * EXT commands allow 65536 but larger requests only add latency (256 on
 * a disk without LBA48); TRIM payload
 * of one 512-byte block = 64 ranges of up to 65535 sectors.
 *
 * Boot options: ahci.timeout=<seconds> (default 30) before a command is
 * declared lost; pci=nomsi forces INTx.
 *
 * Locking (see docs/locking.md): port->lock (interrupts off) covers the
 * issued masks and slot_rq[]; it is taken by queue_rq, the interrupt
 * handler and recovery.  host->eh_mutex serialises recoveries (thread and
 * ops->timeout); recovery sleeps, so it never runs in the handler.
 */
#define pr_fmt(fmt) "ahci: " fmt
#include <uapi/linux/hdreg.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/bio.h>
#include <spindle/pci.h>
#include <spindle/irq.h>
#include <spindle/mm.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/sched.h>
#include <asm/io.h>
#include <spindle/ata.h>
#include "ahci.h"

#define SD_MAJOR                8
#define SD_MINORS               16          /* sda, sda1..sda15 */
#define AHCI_MAX_SECTORS        2048        /* per command: 1 MiB */
#define AHCI_DEFAULT_TIMEOUT_S  30          /* ahci.timeout= default */

/* Bounded waits, in milliseconds. */
#define AHCI_HR_TIMEOUT_MS      1000        /* GHC.HR self-clears (spec: 1 s) */
#define AHCI_ENGINE_TIMEOUT_MS  500         /* CR/FR stop (spec: 500 ms) */
#define AHCI_LINK_TIMEOUT_MS    1000        /* DET=3 after COMRESET */
#define AHCI_BUSY_TIMEOUT_MS    2000        /* BSY/DRQ to clear */
#define AHCI_POLL_CMD_TIMEOUT_MS 5000       /* a polled command (IDENTIFY) */
#define AHCI_DRAIN_TIMEOUT_MS   1000        /* NCQ: survivors of an error finish */
#define AHCI_DRAIN_QUIET_MS     50          /* ... nothing changed this long */
#define AHCI_COMRESET_HOLD_MS   2           /* spec: DET=1 for at least 1 ms */

static unsigned int ahci_timeout_s = AHCI_DEFAULT_TIMEOUT_S;
static unsigned int ahci_nr_disks;          /* sda = 0, sdb = 1, ... */

static int __init ahci_timeout_setup(const char *val)
{
	unsigned int s;

	if (kstrtouint(val, 0, &s) || !s)
		return -EINVAL;
	ahci_timeout_s = s;
	return 0;
}
__setup("ahci.timeout=", ahci_timeout_setup);

/* ---- small helpers -------------------------------------------------------- */

static inline u32 lower_32(u64 v) { return (u32)v; }
static inline u32 upper_32(u64 v) { return (u32)(v >> 32); }

/* Set bits in a slot mask (no libgcc popcount in the kernel). */
static inline int ahci_hweight(u32 m)
{
	int n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

/* Wait until (readl(reg) & mask) == want, at most timeout_ms; may sleep.
 * Returns 0 or -ETIMEDOUT. */
static int ahci_wait_reg(u32 *reg, u32 mask, u32 want, unsigned int timeout_ms)
{
	u64 end = jiffies + msecs_to_jiffies(timeout_ms);

	for (;;) {
		if ((readl(reg) & mask) == want)
			return 0;
		if (time_after(jiffies, end))
			return (readl(reg) & mask) == want ? 0 : -ETIMEDOUT;
		msleep(1);
	}
}

/* "TFES HBFS ..." for PxIS error bits. */
static void ahci_decode_irq(u32 is, char *buf, size_t size)
{
	static const struct { u32 bit; const char *name; } bits[] = {
		{ PORT_IRQ_TFES, "TFES" }, { PORT_IRQ_HBFS, "HBFS" },
		{ PORT_IRQ_HBDS, "HBDS" }, { PORT_IRQ_IFS, "IFS" },
		{ PORT_IRQ_INFS, "INFS" }, { PORT_IRQ_OFS, "OFS" },
		{ PORT_IRQ_UFS, "UFS" }, { PORT_IRQ_SDBS, "SDBS" },
		{ PORT_IRQ_DHRS, "DHRS" }, { PORT_IRQ_PSS, "PSS" },
	};
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(bits) && n < size; i++)
		if (is & bits[i].bit)
			n += snprintf(buf + n, size - n, "%s%s", n ? " " : "", bits[i].name);
	if (!n)
		snprintf(buf, size, "none");
}

/* ---- port engine control (AHCI §10.1.2, §10.3) ---------------------------- */

/*
 * ahci_stop_engine - stop command processing: clear ST, wait for CR to clear.
 * AHCI §10.3.1: software must not touch PxCLB or reissue commands until CR
 * reads 0; the HBA clears PxCI and PxSACT when ST goes from 1 to 0.  May
 * sleep.  Returns 0 or -ETIMEDOUT.
 */
static int ahci_stop_engine(struct ahci_port *port)
{
	u32 cmd = readl(&port->regs->cmd);

	if (!(cmd & (PORT_CMD_ST | PORT_CMD_CR)))
		return 0;
	writel(cmd & ~PORT_CMD_ST, &port->regs->cmd);
	return ahci_wait_reg(&port->regs->cmd, PORT_CMD_CR, 0, AHCI_ENGINE_TIMEOUT_MS);
}

/* Stop receiving FISes: clear FRE, wait for FR to clear.  May sleep. */
static int ahci_stop_fis_rx(struct ahci_port *port)
{
	u32 cmd = readl(&port->regs->cmd);

	if (!(cmd & (PORT_CMD_FRE | PORT_CMD_FR)))
		return 0;
	writel(cmd & ~PORT_CMD_FRE, &port->regs->cmd);
	return ahci_wait_reg(&port->regs->cmd, PORT_CMD_FR, 0, AHCI_ENGINE_TIMEOUT_MS);
}

/* Start processing the command list (AHCI §10.3.1: only with FRE set and
 * BSY/DRQ clear -- the callers check). */
static void ahci_start_engine(struct ahci_port *port)
{
	u32 cmd = readl(&port->regs->cmd);

	writel(cmd | PORT_CMD_ST, &port->regs->cmd);
	readl(&port->regs->cmd);        /* flush */
}

/* Clear the error and interrupt status a recovery or reset left behind. */
static void ahci_clear_port_status(struct ahci_port *port)
{
	writel(0xffffffff, &port->regs->serr);          /* RW1C */
	writel(0xffffffff, &port->regs->is);            /* RW1C */
	writel(1u << port->port_no, &port->host->hba->is);
}

/*
 * ahci_comreset - reset the link and the device: PxSCTL.DET = 1 (send
 * COMRESET) for at least 1 ms, then DET = 0, wait for the device to come
 * back (PxSSTS.DET = 3) and drop BSY (AHCI §10.4.2).  The engine must be
 * stopped.  The device forgets every outstanding command.  May sleep.
 */
static int ahci_comreset(struct ahci_port *port)
{
	u32 sctl;
	int err;

	port->stats.comresets++;
	sctl = readl(&port->regs->sctl) & ~PORT_SCTL_DET_MASK;
	writel(sctl | PORT_SCTL_IPM_NONE | PORT_SCTL_DET_COMRESET, &port->regs->sctl);
	readl(&port->regs->sctl);       /* flush */
	msleep(AHCI_COMRESET_HOLD_MS);
	writel(sctl | PORT_SCTL_IPM_NONE | PORT_SCTL_DET_NONE, &port->regs->sctl);
	err = ahci_wait_reg(&port->regs->ssts, PORT_SSTS_DET_MASK, PORT_SSTS_DET_PRESENT,
			    AHCI_LINK_TIMEOUT_MS);
	if (err) {
		pr_err("%s: port %u: COMRESET: link did not come back (SStatus 0x%x)\n",
		       port->name, port->port_no, readl(&port->regs->ssts));
		return err;
	}
	err = ahci_wait_reg(&port->regs->tfd, ATA_BUSY | ATA_DRQ, 0, AHCI_BUSY_TIMEOUT_MS);
	if (err)
		pr_err("%s: port %u: COMRESET: device stays busy (TFD 0x%x)\n",
		       port->name, port->port_no, readl(&port->regs->tfd));
	ahci_clear_port_status(port);
	return err;
}

/* ---- building a command ----------------------------------------------------- */

/* One PRD entry: @len bytes at @addr (AHCI §4.2.3.3: DBC holds len - 1;
 * the interrupt bit stays clear, the port interrupts once per command). */
static void ahci_set_prd(struct ahci_prd *e, phys_addr_t addr, u32 len)
{
	e->dba = lower_32(addr);
	e->dbau = upper_32(addr);
	e->reserved = 0;
	e->dbc = len - 1;
}

int ahci_fill_prdt(struct request *rq, struct ahci_prd *prdt, unsigned int max_entries)
{
	/* LAB 2 BEGIN */
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;
	int n = 0;
	phys_addr_t run_start = 0;      /* the entry being built ... */
	u32 run_len = 0;                /* ... and its length so far */

	rq_for_each_segment(bv, rq, bio, iter) {
		phys_addr_t addr = page_to_phys(bv.bv_page) + bv.bv_offset;
		u32 len = bv.bv_len;

		/* AHCI §4.2.3.3: DBA bit 0 is reserved and DBC must be odd
		 * (an even byte count): the HBA moves whole words. */
		if ((addr & 1) || (len & 1) || !len)
			return -EINVAL;
		/* Continue the current entry if this segment follows it in
		 * physical memory and the entry stays within 4 MiB.  Unlike
		 * the IDE bus master there is no 64 KiB rule, and DBAU makes
		 * the 4 GiB line nothing special either. */
		if (run_len && run_start + run_len == addr &&
		    run_len + len <= AHCI_PRD_MAX_BYTES) {
			run_len += len;
			continue;
		}
		if (run_len) {
			if ((unsigned int)n == max_entries)
				return -E2BIG;
			ahci_set_prd(&prdt[n++], run_start, run_len);
		}
		run_start = addr;
		run_len = len;
	}
	if (run_len) {
		if ((unsigned int)n == max_entries)
			return -E2BIG;
		ahci_set_prd(&prdt[n++], run_start, run_len);
	}
	return n;
	/* LAB 2 END:
	 * struct bvec_iter iter;		// for now: an entry per segment
	 * struct bio_vec bv;
	 * struct bio *bio;
	 * int n = 0;
	 *
	 * rq_for_each_segment(bv, rq, bio, iter) {
	 * 	if ((unsigned int)n == max_entries)
	 * 		return -E2BIG;
	 * 	ahci_set_prd(&prdt[n++], page_to_phys(bv.bv_page) + bv.bv_offset, bv.bv_len);
	 * }
	 * return n;
	 */
}

/*
 * ahci_tf_to_fis - pack a taskfile into the Register Host-to-Device FIS
 * of a command table (SATA 3.x §10.5.5; Linux's ata_tf_to_fis()).  On an
 * IDE channel the same bytes go to the registers one by one, the hob_*
 * ones first; here each has its own field, so an LBA28 taskfile simply
 * leaves the upper fields zero.  The C bit says "this FIS is a command".
 */
static void ahci_tf_to_fis(const struct ata_taskfile *tf, struct fis_reg_h2d *fis)
{
	memset(fis, 0, sizeof(*fis));
	fis->type = FIS_TYPE_REG_H2D;
	fis->flags = FIS_H2D_CMD;
	fis->command = tf->command;
	fis->featurel = tf->feature;
	fis->lba0 = tf->lbal;
	fis->lba1 = tf->lbam;
	fis->lba2 = tf->lbah;
	fis->device = tf->device;
	fis->countl = tf->nsect;
	if (tf->flags & ATA_TFLAG_LBA48) {
		fis->lba3 = tf->hob_lbal;
		fis->lba4 = tf->hob_lbam;
		fis->lba5 = tf->hob_lbah;
		fis->featureh = tf->hob_feature;
		fis->counth = tf->hob_nsect;
	}
}

/* The command header of @slot: FIS length, PRD count, direction, table. */
static void ahci_fill_hdr(struct ahci_port *port, unsigned int slot,
			  unsigned int nr_prd, bool write)
{
	struct ahci_cmd_hdr *hdr = &port->cmd_list[slot];
	phys_addr_t table = port->tables_dma + slot * sizeof(struct ahci_cmd_table);

	hdr->opts = (nr_prd << AHCI_CMD_PRDTL_SHIFT) | (write ? AHCI_CMD_WRITE : 0) |
		    FIS_H2D_DWORDS;
	hdr->prdbc = 0;
	hdr->ctba = lower_32(table);
	hdr->ctbau = upper_32(table);
}

/*
 * ahci_fill_dsm_ranges - the TRIM payload for [sector, sector + nr_sectors):
 * 8-byte entries of LBA (bits 47:0) and count (63:48, at most 65535), the
 * rest of the 512-byte block zero (ACS-3 §7.5.6.2).  Returns the entries
 * used, or -E2BIG if the range needs more than one block holds.
 */
static int ahci_fill_dsm_ranges(u64 *buf, u64 sector, u64 nr_sectors)
{
	int n = 0;

	memset(buf, 0, AHCI_DSM_BUF_BYTES);
	while (nr_sectors) {
		u64 count = min(nr_sectors, (u64)ATA_DSM_RANGE_MAX_SECTORS);

		if (n == ATA_DSM_RANGES_PER_BLOCK)
			return -E2BIG;
		buf[n++] = sector | (count << 48);
		sector += count;
		nr_sectors -= count;
	}
	return n;
}

/* Is rq one of the suspects to retry without NCQ?  Caller holds port->lock. */
static int ahci_retry_index(struct ahci_port *port, struct request *rq)
{
	for (unsigned int i = 0; i < port->nr_retry; i++)
		if (port->retry_rqs[i] == rq)
			return (int)i;
	return -1;
}

/*
 * Does this request go to the device as an NCQ command?  Only reads and
 * writes have queued forms; a port whose disk or HBA cannot queue
 * (port->ncq) sends everything as before NCQ; and a suspect of an NCQ
 * error is retried alone, non-queued (ahci_port_recover()).  A false
 * here is always safe: queue_rq then sends the request alone.
 */
static bool ahci_rq_is_ncq(struct ahci_port *port, struct request *rq)
{
	/* LAB 7 BEGIN */
	enum req_opf op = req_op(rq);

	return port->ncq && ahci_retry_index(port, rq) < 0 &&
	       (op == REQ_OP_READ || op == REQ_OP_WRITE);
	/* LAB 7 END: (void)port; (void)rq; return false; */
}

/*
 * ahci_build_trim - slot rq->tag as DATA SET MANAGEMENT / TRIM (ACS §7.5):
 * the ranges go in the slot's 512-byte payload, which the HBA sends as
 * the command's data; the taskfile has feature TRIM, count = payload
 * blocks, and is a 48-bit command whose LBA field is unused.  Returns
 * BLK_STS_OK, or the status to fail rq with.
 */
static blk_status_t ahci_build_trim(struct ahci_port *port, struct request *rq)
{
	unsigned int slot = rq->tag;
	struct ahci_cmd_table *t = &port->tables[slot];
	u8 *buf = port->dsm_bufs + slot * AHCI_DSM_BUF_BYTES;
	phys_addr_t buf_dma = port->dsm_bufs_dma + slot * AHCI_DSM_BUF_BYTES;
	struct ata_taskfile tf;

	if (!port->ata.trim)
		return BLK_STS_NOTSUPP;
	if (ahci_fill_dsm_ranges((u64 *)buf, blk_rq_pos(rq), blk_rq_sectors(rq)) < 0) {
		pr_err("%s: discard of %u sectors at %llu is larger than one TRIM payload\n",
		       port->name, blk_rq_sectors(rq), (unsigned long long)blk_rq_pos(rq));
		return BLK_STS_IOERR;
	}
	ahci_set_prd(&t->prdt[0], buf_dma, AHCI_DSM_BUF_BYTES);
	ata_tf_init(&tf, &port->ata);
	tf.protocol = ATA_PROT_DMA;
	tf.flags |= ATA_TFLAG_LBA48 | ATA_TFLAG_WRITE;
	tf.command = ATA_CMD_DSM;
	tf.feature = ATA_DSM_TRIM;
	tf.nsect = 1;
	tf.device |= ATA_LBA;
	ahci_tf_to_fis(&tf, (struct fis_reg_h2d *)t->cfis);
	ahci_fill_hdr(port, slot, 1, true);
	return BLK_STS_OK;
}

/*
 * ahci_build_cmd - fill slot rq->tag's command table and header for rq.
 * Returns BLK_STS_OK, or the status to fail rq with.  Does not touch the
 * HBA's registers; the slot is ours (the request layer owns the tag).
 */
static blk_status_t ahci_build_cmd(struct ahci_port *port, struct request *rq, bool ncq)
{
	unsigned int slot = rq->tag;
	struct ahci_cmd_table *t = &port->tables[slot];
	struct fis_reg_h2d *fis = (struct fis_reg_h2d *)t->cfis;
	u64 lba = blk_rq_pos(rq);
	unsigned int sectors = blk_rq_sectors(rq);
	bool write = rq_data_dir(rq) == WRITE;
	struct ata_taskfile tf;
	int n, err;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		n = ahci_fill_prdt(rq, t->prdt, AHCI_MAX_PRD);
		/* an HBA without 64-bit addressing (CAP.S64A clear) ignores
		 * DBAU: a buffer above 4 GiB would be written elsewhere */
		if (n > 0 && !(port->host->cap & HOST_CAP_S64A))
			for (int i = 0; i < n; i++)
				if (t->prdt[i].dbau) {
					n = -ERANGE;
					break;
				}
		if (n <= 0 || sectors == 0 || sectors > AHCI_MAX_SECTORS) {
			pr_err("%s: cannot map request at %llu (%u sectors): %d\n",
			       port->name, (unsigned long long)lba, sectors, n);
			return BLK_STS_IOERR;
		}
		/* NCQ: the slot is the tag the device answers with; non-queued,
		 * the tag means nothing to the disk */
		err = ata_build_rw_tf(&tf, &port->ata, ncq ? ATA_PROT_NCQ : ATA_PROT_DMA,
				      write, lba, sectors, slot);
		if (err) {
			pr_err("%s: no %s command for %u sectors at %llu (%d)\n", port->name,
			       ncq ? "NCQ" : "DMA", sectors, (unsigned long long)lba, err);
			return BLK_STS_IOERR;
		}
		ahci_tf_to_fis(&tf, fis);
		ahci_fill_hdr(port, slot, n, write);
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		ata_build_flush_tf(&tf, &port->ata);
		ahci_tf_to_fis(&tf, fis);
		ahci_fill_hdr(port, slot, 0, false);
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
		return ahci_build_trim(port, rq);
	case REQ_OP_WRITE_ZEROES:               /* never sent: no limit set */
		break;
	}
	return BLK_STS_NOTSUPP;
}

/*
 * ahci_issue - hand slot @slot to the HBA.  Caller holds port->lock.
 *
 * NCQ (AHCI §5.3.2, SATA §13.6): the tag in the FIS is the slot number.
 * Set the slot's bit in PxSACT *before* its bit in PxCI: the device may
 * finish the command (a Set Device Bits FIS clearing the PxSACT bit) as
 * soon as the HBA has sent it, and a PxSACT bit set after that would say
 * "outstanding" forever.  Non-NCQ commands use PxCI alone.
 */
static void ahci_issue(struct ahci_port *port, unsigned int slot, bool ncq)
{
	u32 bit = 1u << slot;
	unsigned int inflight;

	assert_spin_locked(&port->lock);
	port->issued |= bit;
	if (ncq) {
		port->ncq_issued |= bit;
		writel(bit, &port->regs->sact);
	}
	writel(bit, &port->regs->ci);
	inflight = ahci_hweight(port->issued);
	if (inflight > port->stats.max_inflight)
		port->stats.max_inflight = inflight;
}

/*
 * ahci_queue_rq - the request layer's entry point.  Does not sleep.
 *
 * Why NCQ and non-NCQ commands never mix: a device executing queued
 * commands treats any non-queued command (FLUSH CACHE EXT, DATA SET
 * MANAGEMENT, READ DMA EXT) as a protocol error and aborts everything
 * outstanding (SATA §13.6.3).  So a non-NCQ command waits until no NCQ
 * command is active, and NCQ commands wait while a non-NCQ one is: we
 * answer BLK_STS_RESOURCE and the request layer retries after the next
 * completion -- certain, since something is outstanding; and if that
 * completion lands while the refused request is still being parked, the
 * request layer notices (restart_seq) and retries at once.  After a
 * recovery, which may complete nothing, ahci_restart_queue() does it.
 */
static blk_status_t ahci_queue_rq(struct request_queue *q, const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct ahci_port *port = q->queuedata;
	unsigned int slot = rq->tag;
	unsigned long flags;
	blk_status_t sts;
	bool ncq;

	if (req_op(rq) == REQ_OP_DISCARD && !port->ata.trim)
		return BLK_STS_NOTSUPP;
	if (slot >= port->host->nr_slots)
		return BLK_STS_IOERR;

	if (READ_ONCE(port->dead))
		return BLK_STS_IOERR;           /* recovery gave the device up */
	spin_lock_irqsave(&port->lock, flags);
	ncq = ahci_rq_is_ncq(port, rq);
	if (port->eh_active || port->eh_pending ||
	    (ncq && (port->issued & ~port->ncq_issued)) ||     /* non-NCQ running */
	    (!ncq && port->issued)) {                           /* anything running */
		spin_unlock_irqrestore(&port->lock, flags);
		return BLK_STS_RESOURCE;
	}
	sts = ahci_build_cmd(port, rq, ncq);
	if (sts != BLK_STS_OK) {
		spin_unlock_irqrestore(&port->lock, flags);
		return sts;
	}
	blk_mq_start_request(rq);
	port->slot_rq[slot] = rq;
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:   port->stats.flushes++; break;
	case REQ_OP_DISCARD: port->stats.trims++; break;
	default:
		if (ncq)
			port->stats.ncq_cmds++;
		else
			port->stats.dma_cmds++;
		if (!ncq) {
			int i = ahci_retry_index(port, rq);

			if (i >= 0)     /* a suspect goes alone: take it off the list */
				port->retry_rqs[i] = port->retry_rqs[--port->nr_retry];
		}
	}
	ahci_issue(port, slot, ncq);
	spin_unlock_irqrestore(&port->lock, flags);
	return BLK_STS_OK;
}

/* ---- completion ----------------------------------------------------------- */

/* Complete the slots in @done with @status; caller holds port->lock. */
static void __ahci_complete_slots(struct ahci_port *port, u32 done, blk_status_t status)
{
	assert_spin_locked(&port->lock);
	while (done) {
		unsigned int slot = __builtin_ctz(done);
		struct request *rq = port->slot_rq[slot];

		done &= done - 1;
		port->issued &= ~(1u << slot);
		port->ncq_issued &= ~(1u << slot);
		port->slot_rq[slot] = NULL;
		if (rq)
			blk_mq_complete_request(rq, status);
	}
}

/*
 * __ahci_port_done - which issued slots has the port finished, and is
 * there an error for the recovery thread (*error; *tfd is PxTFD, for its
 * report)?  Caller holds port->lock and has acknowledged PxIS.
 *
 *   NCQ:     the device clears a tag's PxSACT bit with a Set Device Bits
 *            FIS when that command ends well (AHCI 1.3.1 §3.3.13); PxCI bits
 *            clear as soon as the HBA has sent a command, long before.
 *   non-NCQ: the HBA clears the slot's PxCI bit when the command ends.
 */
static u32 __ahci_port_done(struct ahci_port *port, u32 status, u32 *tfd, bool *error)
{
	/* LAB 7 BEGIN */
	u32 ci = readl(&port->regs->ci);
	u32 sact = readl(&port->regs->sact);
	u32 serr;

	*tfd = readl(&port->regs->tfd);
	serr = readl(&port->regs->serr);
	/*
	 * An error?  Real HBAs say so with TFES (and halt).  QEMU's emulation
	 * has changed over versions: the QEMU 7.2 here (Debian 12) raises TFES
	 * (with SDBS) for a failed NCQ read, error byte 0x04 ABRT, and keeps
	 * executing the other queued commands -- their Set Device Bits FISes
	 * may rewrite PxTFD's status byte before we look.  Older upstream code
	 * (hw/ide/ahci.c ncq_err()) raised only SDBS, put ERR in PxTFD and set
	 * bit <tag> in PxSERR.  Both leave the failed tag's PxSACT bit set.  So
	 * for NCQ any ERR in PxTFD or a non-zero PxSERR also means "recover".
	 */
	*error = status & PORT_IRQ_ERROR_MASK;
	if (port->ncq_issued && ((*tfd & ATA_ERR) || serr))
		*error = true;
	/* Completions that arrived before the error are real: for NCQ, tags
	 * whose PxSACT bit the device cleared finished well. */
	if (port->ncq_issued)
		return port->ncq_issued & ~sact;
	/* A non-NCQ command that ended with an error also clears PxCI (in
	 * QEMU), so with an error -- this one, or one an earlier interrupt
	 * saw and the recovery thread has not taken over yet -- it is left
	 * for the recovery to judge. */
	if (*error || port->eh_pending)
		return 0;
	return port->issued & ~ci;
	/* LAB 7 END:
	 * *tfd = readl(&port->regs->tfd);
	 * *error = status & PORT_IRQ_ERROR_MASK;
	 * return *error || port->eh_pending ? 0 : port->issued & ~readl(&port->regs->ci);
	 */
}

/*
 * ahci_port_intr - one port's share of an interrupt.  Interrupt context.
 *
 * The order matters: acknowledge PxIS first, *then* read PxCI/PxSACT.  A
 * command that finishes after our read of PxCI sets PxIS again, so a new
 * interrupt follows and we find it then; had we read PxCI first and
 * acknowledged after, a completion in between would be acknowledged but
 * never seen -- a lost interrupt and a request that hangs.
 */
static void ahci_port_intr(struct ahci_port *port)
{
	u32 status, tfd, done;
	bool error;

	status = readl(&port->regs->is);
	writel(status, &port->regs->is);                /* RW1C: ack first */

	spin_lock(&port->lock);
	if (port->eh_active) {
		/* recovery polls the port itself */
		spin_unlock(&port->lock);
		return;
	}
	done = __ahci_port_done(port, status, &tfd, &error);
	__ahci_complete_slots(port, done, BLK_STS_OK);

	if (error && !port->eh_pending) {
		port->eh_pending = true;
		port->eh_irq_status = status;
		port->eh_tfd = tfd;
		wake_up(&port->host->eh_wait);
	}
	spin_unlock(&port->lock);
}

/*
 * ahci_interrupt - the HBA's interrupt.  HBA IS has a bit per port with
 * something to say; each port is served (its PxIS acknowledged inside),
 * then the HBA IS bits are cleared -- after the ports, or a level-
 * triggered INTx would fire again for the same port bits (AHCI §10.7.2).
 */
static irqreturn_t ahci_interrupt(int irq, void *dev_id)
{
	struct ahci_host *host = dev_id;
	u32 is = readl(&host->hba->is);

	(void)irq;
	if (!is)
		return IRQ_NONE;                /* a shared INTx line: not us */
	for (u32 pending = is; pending; pending &= pending - 1) {
		unsigned int p = __builtin_ctz(pending);

		/* only ports with a disk have PxIE set, so only they appear */
		if (p < AHCI_MAX_PORTS && host->ports[p])
			ahci_port_intr(host->ports[p]);
	}
	writel(is, &host->hba->is);
	return IRQ_HANDLED;
}

/* ---- polled commands (probe and recovery) --------------------------------- */

/*
 * ahci_exec_polled - run one non-NCQ PIO data-in command in slot 0 and
 * poll for its end; for IDENTIFY at probe time and READ LOG EXT during
 * recovery, when nothing else is outstanding on the port.  The interrupt
 * handler leaves the port alone meanwhile (eh_active).  May sleep.
 * Returns 0, -EIO (the device reported an error) or -ETIMEDOUT.
 */
static int ahci_exec_polled(struct ahci_port *port, const struct ata_taskfile *tf,
			    phys_addr_t buf_dma, unsigned int len)
{
	struct ahci_cmd_table *t = &port->tables[0];
	u64 end = jiffies + msecs_to_jiffies(AHCI_POLL_CMD_TIMEOUT_MS);
	u32 tfd;

	ahci_tf_to_fis(tf, (struct fis_reg_h2d *)t->cfis);
	ahci_set_prd(&t->prdt[0], buf_dma, len);
	ahci_fill_hdr(port, 0, 1, false);
	writel(0xffffffff, &port->regs->is);
	writel(1u, &port->regs->ci);
	for (;;) {
		tfd = readl(&port->regs->tfd);
		/* QEMU clears PxCI and sets ERR on failure; real HBAs stop with
		 * PxCI still set and TFES: ERR without BSY covers both. */
		if ((tfd & ATA_ERR) && !(tfd & ATA_BUSY))
			return -EIO;
		if (!(readl(&port->regs->ci) & 1u) && !(tfd & (ATA_BUSY | ATA_DRQ)))
			return 0;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		msleep(1);
	}
}

/* ---- error recovery ------------------------------------------------------- */

/*
 * ahci_eh_drain - after an NCQ error, let the commands that are still
 * running end.  A real device aborts all of them at once (and the HBA
 * halts); QEMU's keeps executing the others and reports each success with
 * a Set Device Bits FIS.  Complete those as they come, until PxSACT has not
 * changed for AHCI_DRAIN_QUIET_MS (at most AHCI_DRAIN_TIMEOUT_MS).
 * Task context; the handler is out of the way (eh_active).
 */
static void ahci_eh_drain(struct ahci_port *port)
{
	u64 end = jiffies + msecs_to_jiffies(AHCI_DRAIN_TIMEOUT_MS);
	u64 quiet_since = jiffies;
	u32 last = readl(&port->regs->sact);
	unsigned long flags;

	while (!time_after(jiffies, end)) {
		u32 sact = readl(&port->regs->sact);

		if (sact != last) {
			last = sact;
			quiet_since = jiffies;
		}
		spin_lock_irqsave(&port->lock, flags);
		__ahci_complete_slots(port, port->ncq_issued & ~sact, BLK_STS_OK);
		spin_unlock_irqrestore(&port->lock, flags);
		if (!port->ncq_issued ||
		    time_after(jiffies, quiet_since + msecs_to_jiffies(AHCI_DRAIN_QUIET_MS)))
			return;
		msleep(2);
	}
}

/*
 * ahci_read_ncq_log - READ LOG EXT, page 10h (ACS-3 §9.13, NCQ Command
 * Error log): byte 0 bit 7 (NQ) says the failed command was non-queued,
 * bits 4:0 name the failed tag.  Reading it also takes the device out of
 * its error state.  Returns the tag, or -1 if the log is not there --
 * QEMU aborts READ LOG EXT (it does not implement it).
 */
static int ahci_read_ncq_log(struct ahci_port *port)
{
	const u8 *log = (const u8 *)port->identify;
	struct ata_taskfile tf;
	int err;

	/* READ LOG EXT: log address in LBA 7:0, page count in COUNT 15:0 */
	ata_tf_init(&tf, &port->ata);
	tf.protocol = ATA_PROT_PIO;
	tf.flags |= ATA_TFLAG_LBA48;
	tf.command = ATA_CMD_READ_LOG_EXT;
	tf.lbal = ATA_LOG_SATA_NCQ;
	tf.nsect = 1;
	err = ahci_exec_polled(port, &tf, port->identify_dma, 512);
	if (err)
		return -1;
	if (log[0] & 0x80)              /* NQ: not a queued command */
		return -1;
	return log[0] & 0x1f;
}

/*
 * ahci_restart_queue - dispatch again after a recovery.  While the port
 * was frozen, queue_rq answered BLK_STS_RESOURCE, and the request layer
 * then waits for a completion before it calls queue_rq again.  A recovery
 * that completed nothing (an error with no command outstanding) produces
 * no such completion, so say so: blk_mq_restart_hw_queue() (Linux runs the
 * hardware queues after blk_mq_unquiesce_queue() for the same reason).
 */
static void ahci_restart_queue(struct request_queue *q)
{
	blk_mq_restart_hw_queue(q);
}

enum ahci_eh_reason { AHCI_EH_ERROR, AHCI_EH_TIMEOUT };

/* One line that says what went wrong, decoded. */
static void ahci_eh_report(struct ahci_port *port, enum ahci_eh_reason why,
			   u32 irq_status, u32 tfd, u32 serr, u32 outstanding, bool ncq)
{
	char st[48], errs[64], irqs[64];

	ata_decode_status(st, sizeof(st), (u8)tfd);
	ata_decode_error(errs, sizeof(errs), (u8)(tfd >> PORT_TFDATA_ERR_SHIFT));
	ahci_decode_irq(irq_status, irqs, sizeof(irqs));
	if (why == AHCI_EH_TIMEOUT)
		pr_err("%s: port %u: command timeout: status %s error %s SError 0x%08x, %s slots 0x%08x outstanding\n",
		       port->name, port->port_no, st, errs, serr,
		       ncq ? "NCQ" : "non-NCQ", outstanding);
	else
		pr_err("%s: port %u: task file error: status %s error %s PxIS %s SError 0x%08x, %s slots 0x%08x outstanding\n",
		       port->name, port->port_no, st, errs, irqs,
		       serr, ncq ? "NCQ" : "non-NCQ", outstanding);
}

/*
 * What recovery needs to know, gathered as it goes: why it runs, which
 * commands the port held, which of them failed, and whether it reset.
 */
struct ahci_eh_ctx {
	enum ahci_eh_reason why;
	int timed_out_slot;             /* the late command's slot, or -1 */
	u32 outstanding;                /* slots issued when recovery began */
	u32 failed;                     /* the culprits among them */
	bool ncq;                       /* outstanding commands were queued */
	bool reset;                     /* a COMRESET was (to be) sent */
	struct request *rqs[AHCI_MAX_SLOTS];
};

/* Step 1: from now on queue_rq says busy and the handler only acks. */
static void ahci_eh_freeze(struct ahci_port *port, u32 *irq_status, u32 *tfd)
{
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	port->eh_active = true;
	*irq_status = port->eh_irq_status;
	*tfd = port->eh_pending ? port->eh_tfd : readl(&port->regs->tfd);
	spin_unlock_irqrestore(&port->lock, flags);
	port->stats.errors++;
}

/* Step 3: which slots the port holds, and one decoded line about them. */
static void ahci_eh_snapshot(struct ahci_port *port, struct ahci_eh_ctx *eh,
			     u32 irq_status, u32 tfd)
{
	u32 serr = readl(&port->regs->serr);
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	eh->outstanding = port->issued;
	eh->ncq = port->ncq_issued != 0;
	spin_unlock_irqrestore(&port->lock, flags);
	ahci_eh_report(port, eh->why, irq_status, tfd, serr, eh->outstanding, eh->ncq);
}

/*
 * Step 4: stop the engine; COMRESET if it will not stop, the device is
 * still busy, PxSACT/PxCI did not clear with ST (QEMU keeps them; the spec
 * says stopping clears them), or for a timeout (eh->reset already set).
 */
static void ahci_eh_stop(struct ahci_port *port, struct ahci_eh_ctx *eh)
{
	if (ahci_stop_engine(port)) {
		pr_err("%s: port %u: engine did not stop (PxCMD 0x%08x)\n",
		       port->name, port->port_no, readl(&port->regs->cmd));
		eh->reset = true;
	}
	if (readl(&port->regs->tfd) & (ATA_BUSY | ATA_DRQ))
		eh->reset = true;
	if (readl(&port->regs->sact) || readl(&port->regs->ci))
		eh->reset = true;               /* QEMU: ST=0 clears neither */
	if (eh->reset) {
		pr_warn("%s: port %u: COMRESET (TFD 0x%04x SActive 0x%08x CI 0x%08x)\n",
			port->name, port->port_no, readl(&port->regs->tfd) & 0xffff,
			readl(&port->regs->sact), readl(&port->regs->ci));
		ahci_comreset(port);
	}
}

/* Step 5: clear PxSERR/PxIS and start again, or give up a stuck device. */
static void ahci_eh_restart(struct ahci_port *port)
{
	ahci_clear_port_status(port);
	if (!(readl(&port->regs->tfd) & (ATA_BUSY | ATA_DRQ))) {
		ahci_start_engine(port);
		return;
	}
	/* no use requeueing into a stopped port: give the disk up */
	pr_err("%s: port %u: device still busy after reset: port stopped, failing its I/O\n",
	       port->name, port->port_no);
	port->dead = true;
}

/*
 * Step 6: which outstanding commands failed.  An empty answer for an NCQ
 * error means nobody could be named: every command becomes a suspect.
 */
static u32 ahci_eh_find_failed(struct ahci_port *port, const struct ahci_eh_ctx *eh)
{
	int tag;

	if (port->dead)
		return eh->outstanding;         /* everyone: nothing will run */
	if (eh->why == AHCI_EH_TIMEOUT)
		return (1u << eh->timed_out_slot) & eh->outstanding;
	if (!eh->ncq || ahci_hweight(eh->outstanding) == 1)
		return eh->outstanding;         /* the single outstanding command */

	tag = ahci_read_ncq_log(port);
	if (tag >= 0 && (eh->outstanding & (1u << tag))) {
		pr_err("%s: port %u: NCQ error log: tag %d failed\n",
		       port->name, port->port_no, tag);
		return 1u << tag;
	}
	pr_warn("%s: port %u: no NCQ error log (READ LOG EXT failed): retrying %d commands one at a time without NCQ\n",
		port->name, port->port_no, ahci_hweight(eh->outstanding));
	/* the READ LOG EXT attempt may have left an error behind */
	ahci_clear_port_status(port);
	return 0;
}

/*
 * Step 7a: take the outstanding commands back from the port and unfreeze
 * *before* completing or requeueing them: each completion runs the queue
 * again, and that run must find the port open.  Without a culprit, every
 * NCQ command in flight is a suspect, to be sent again alone.
 */
static void ahci_eh_take_back(struct ahci_port *port, struct ahci_eh_ctx *eh)
{
	bool suspects = !eh->failed && eh->ncq && eh->why != AHCI_EH_TIMEOUT;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (suspects)
		port->nr_retry = 0;
	for (u32 m = eh->outstanding; m; m &= m - 1) {
		unsigned int slot = __builtin_ctz(m);

		eh->rqs[slot] = port->slot_rq[slot];
		port->slot_rq[slot] = NULL;
		if (suspects && eh->rqs[slot])
			port->retry_rqs[port->nr_retry++] = eh->rqs[slot];
	}
	port->issued = port->ncq_issued = 0;
	port->eh_pending = false;
	port->eh_irq_status = 0;
	port->eh_active = false;
	spin_unlock_irqrestore(&port->lock, flags);
}

/* Step 7b: fail the culprits, give the others back, run the queue. */
static void ahci_eh_finish(struct ahci_port *port, const struct ahci_eh_ctx *eh)
{
	blk_status_t status = eh->why == AHCI_EH_TIMEOUT ? BLK_STS_TIMEOUT : BLK_STS_IOERR;

	for (u32 m = eh->outstanding; m; m &= m - 1) {
		unsigned int slot = __builtin_ctz(m);
		struct request *rq = eh->rqs[slot];

		if (!rq)
			continue;
		if (eh->failed & (1u << slot)) {
			pr_err("%s: port %u: slot %u: sector %llu, %u sectors: failed\n",
			       port->name, port->port_no, slot,
			       (unsigned long long)blk_rq_pos(rq), blk_rq_sectors(rq));
			blk_mq_complete_request(rq, status);
		} else {
			port->stats.requeued++;
			blk_mq_requeue_request(rq);
		}
	}
	pr_info("%s: port %u: recovered: %d failed, %d requeued%s\n", port->name,
		port->port_no, ahci_hweight(eh->failed),
		ahci_hweight(eh->outstanding & ~eh->failed),
		eh->reset ? " (after COMRESET)" : "");
	ahci_restart_queue(port->disk->queue);
}

/*
 * ahci_port_recover - the one recovery path, for errors and timeouts.
 * Task context, host->eh_mutex held.  @timed_out_slot: the slot whose
 * command timed out, or -1 for an error the interrupt handler saw.
 *
 *   1. freeze: eh_active -- queue_rq says busy, the handler only acks
 *   2. NCQ error: let the commands still running finish (ahci_eh_drain)
 *   3. read PxTFD/PxSERR, log one decoded line
 *   4. stop the engine (clear ST, wait CR); COMRESET if the device is
 *      still busy (BSY/DRQ), if the engine will not stop, for a timeout,
 *      or if PxSACT/PxCI did not clear with ST (QEMU keeps them; the spec
 *      says stopping clears them)
 *   5. clear PxSERR/PxIS, start the engine again
 *   6. decide which command failed:
 *        non-NCQ: the single outstanding command
 *        NCQ:     the NCQ error log names the tag; without a log (QEMU),
 *                 a lone outstanding command is the culprit, else every
 *                 outstanding command is requeued and remembered as a
 *                 suspect (port->retry_rqs): each suspect is sent again
 *                 alone, without NCQ, so the device names the bad one by
 *                 failing it alone
 *        timeout: the timed-out command
 *   7. fail it (BLK_STS_IOERR, or BLK_STS_TIMEOUT), requeue the others
 *      with blk_mq_requeue_request(), unfreeze.
 */
static void ahci_port_recover(struct ahci_port *port, int timed_out_slot)
{
	struct ahci_eh_ctx eh = {
		.why = timed_out_slot >= 0 ? AHCI_EH_TIMEOUT : AHCI_EH_ERROR,
		.timed_out_slot = timed_out_slot,
		.reset = timed_out_slot >= 0,
	};
	u32 irq_status, tfd;

	assert_mutex_held(&port->host->eh_mutex);
	might_sleep();

	ahci_eh_freeze(port, &irq_status, &tfd);                /* 1 */
	if (eh.why == AHCI_EH_ERROR && port->ncq_issued)        /* 2 */
		ahci_eh_drain(port);
	ahci_eh_snapshot(port, &eh, irq_status, tfd);           /* 3 */
	ahci_eh_stop(port, &eh);                                /* 4 */
	ahci_eh_restart(port);                                  /* 5 */
	eh.failed = ahci_eh_find_failed(port, &eh);             /* 6 */
	ahci_eh_take_back(port, &eh);                           /* 7 */
	ahci_eh_finish(port, &eh);
}

/* The recovery thread: one per HBA, woken by the interrupt handler. */
static int ahci_eh_thread(void *data)
{
	struct ahci_host *host = data;

	for (;;) {
		wait_event_interruptible(host->eh_wait, ({
			bool any = false;

			for (unsigned int p = 0; p < AHCI_MAX_PORTS; p++)
				if (host->ports[p] && READ_ONCE(host->ports[p]->eh_pending))
					any = true;
			any;
		}));
		mutex_lock(&host->eh_mutex);
		for (unsigned int p = 0; p < AHCI_MAX_PORTS; p++) {
			struct ahci_port *port = host->ports[p];

			if (port && READ_ONCE(port->eh_pending))
				ahci_port_recover(port, -1);
		}
		mutex_unlock(&host->eh_mutex);
	}
	return 0;
}

/*
 * ahci_timeout - ops->timeout: rq has been outstanding longer than
 * ahci.timeout seconds.  kblockd, task context: recover as for an error,
 * with rq as the culprit.
 */
static enum blk_eh_timer_return ahci_timeout(struct request *rq)
{
	struct ahci_port *port = rq->q->queuedata;
	struct ahci_host *host = port->host;
	unsigned long flags;
	bool ours;
	int slot;

	mutex_lock(&host->eh_mutex);
	spin_lock_irqsave(&port->lock, flags);
	slot = rq->tag;
	ours = slot >= 0 && slot < AHCI_MAX_SLOTS && port->slot_rq[slot] == rq;
	spin_unlock_irqrestore(&port->lock, flags);
	if (ours) {
		pr_err("%s: port %u: slot %d (sector %llu) timed out after %u s\n",
		       port->name, port->port_no, slot,
		       (unsigned long long)blk_rq_pos(rq), ahci_timeout_s);
		ahci_port_recover(port, slot);
	}
	mutex_unlock(&host->eh_mutex);
	return BLK_EH_DONE;             /* completed (or requeued) by now */
}

static const struct blk_mq_ops ahci_mq_ops = {
	.queue_rq = ahci_queue_rq,
	.timeout = ahci_timeout,
};

/* ---- probing: ports, devices, disks ---------------------------------------- */

/* Allocate a port's DMA memory and point the HBA at it (engine stopped). */
static int ahci_port_alloc(struct ahci_port *port)
{
	unsigned int nr_slots = port->host->nr_slots;
	size_t tables = nr_slots * sizeof(struct ahci_cmd_table);
	u8 *base;
	phys_addr_t dma;

	/* command list (1 KiB, 1 KiB aligned) + received FIS (256-byte aligned)
	 * share one 4 KiB block: list at 0, FIS at 0x400, IDENTIFY/log at 0x800 */
	base = dma_alloc_coherent(PAGE_SIZE, 1024, &dma);
	if (!base)
		return -ENOMEM;
	port->cmd_list = (struct ahci_cmd_hdr *)base;
	port->cmd_list_dma = dma;
	port->rx_fis = (struct ahci_rx_fis *)(base + 0x400);
	port->rx_fis_dma = dma + 0x400;
	port->identify = (u16 *)(base + 0x800);
	port->identify_dma = dma + 0x800;

	/* command tables (128-byte aligned), then the TRIM payloads */
	base = dma_alloc_coherent(tables + nr_slots * AHCI_DSM_BUF_BYTES, 128, &dma);
	if (!base) {
		dma_free_coherent(port->cmd_list, PAGE_SIZE);
		return -ENOMEM;
	}
	port->tables = (struct ahci_cmd_table *)base;
	port->tables_dma = dma;
	port->dsm_bufs = base + tables;
	port->dsm_bufs_dma = dma + tables;

	writel(lower_32(port->cmd_list_dma), &port->regs->clb);
	writel(upper_32(port->cmd_list_dma), &port->regs->clbu);
	writel(lower_32(port->rx_fis_dma), &port->regs->fb);
	writel(upper_32(port->rx_fis_dma), &port->regs->fbu);
	return 0;
}

static void ahci_port_free(struct ahci_port *port)
{
	size_t tables = port->host->nr_slots * sizeof(struct ahci_cmd_table);

	dma_free_coherent(port->tables, tables + port->host->nr_slots * AHCI_DSM_BUF_BYTES);
	dma_free_coherent(port->cmd_list, PAGE_SIZE);
}

/*
 * ahci_port_start - bring one implemented port up (AHCI §10.1.2):
 * stop it, give it memory, clear PxSERR and PxIS, enable FRE (the device's
 * first D2H FIS arrives and fills PxSIG), then -- for a disk -- ST.
 * Returns the signature, SATA_SIG_NONE for an empty port, or -errno.
 */
static long ahci_port_start(struct ahci_port *port)
{
	u32 ssts, sig;
	int err;

	if (ahci_stop_engine(port) || ahci_stop_fis_rx(port)) {
		pr_err("%s: port %u: does not stop (PxCMD 0x%08x): skipped\n",
		       pci_name(port->host->pdev), port->port_no, readl(&port->regs->cmd));
		return -EIO;
	}
	ssts = readl(&port->regs->ssts);
	if ((ssts & PORT_SSTS_DET_MASK) != PORT_SSTS_DET_PRESENT ||
	    ((ssts >> PORT_SSTS_IPM_SHIFT) & 0xf) != PORT_SSTS_IPM_ACTIVE)
		return SATA_SIG_NONE;

	err = ahci_port_alloc(port);
	if (err)
		return err;
	ahci_clear_port_status(port);
	writel(readl(&port->regs->cmd) | PORT_CMD_FRE | PORT_CMD_POD | PORT_CMD_SUD,
	       &port->regs->cmd);
	/* The signature is valid once the device's D2H FIS has arrived and
	 * BSY is clear. */
	err = ahci_wait_reg(&port->regs->tfd, ATA_BUSY | ATA_DRQ, 0, AHCI_BUSY_TIMEOUT_MS);
	sig = readl(&port->regs->sig);
	if (err || sig == SATA_SIG_NONE) {
		pr_err("%s: port %u: device does not answer (TFD 0x%x SIG 0x%08x): skipped\n",
		       pci_name(port->host->pdev), port->port_no,
		       readl(&port->regs->tfd), sig);
		ahci_stop_fis_rx(port);
		ahci_port_free(port);
		return -EIO;
	}
	if (sig != SATA_SIG_ATA) {
		ahci_stop_fis_rx(port);
		ahci_port_free(port);
		return sig;
	}
	ahci_clear_port_status(port);
	writel(PORT_IRQ_ENABLE_MASK, &port->regs->ie);
	ahci_start_engine(port);
	return sig;
}

/*
 * ahci_identify - IDENTIFY DEVICE, read by libata-core into port->ata as
 * for an IDE disk, and what this driver makes of it: NCQ if both the disk
 * (word 76) and the HBA (CAP.SNCQ) can, with as many tags as both take.
 * Logs the description every ATA disk gets, then this port's choices.
 */
static int ahci_identify(struct ahci_port *port)
{
	const u16 *id = port->identify;
	struct ata_taskfile tf;
	int err;

	spin_lock_irq(&port->lock);
	port->eh_active = true;         /* the handler leaves the port to us */
	spin_unlock_irq(&port->lock);
	ata_tf_init(&tf, &port->ata);
	tf.protocol = ATA_PROT_PIO;
	tf.command = ATA_CMD_ID_ATA;
	err = ahci_exec_polled(port, &tf, port->identify_dma, 512);
	ahci_clear_port_status(port);
	spin_lock_irq(&port->lock);
	port->eh_active = false;
	spin_unlock_irq(&port->lock);
	if (err) {
		pr_err("%s: port %u: IDENTIFY DEVICE failed (%d, TFD 0x%x)\n",
		       pci_name(port->host->pdev), port->port_no, err,
		       readl(&port->regs->tfd));
		return err;
	}
	err = ata_dev_parse_id(&port->ata, id);
	if (err) {
		pr_err("%s: port %u: %s: not supported (%d)\n", pci_name(port->host->pdev),
		       port->port_no, err == -EOPNOTSUPP ? "disk without LBA" : "not an ATA disk",
		       err);
		return err;
	}
	port->ncq = port->ata.ncq && (port->host->cap & HOST_CAP_SNCQ) &&
		    port->ata.queue_depth > 1;
	port->tag_set.queue_depth = port->ncq ?
		min(port->ata.queue_depth, port->host->nr_slots) : 1;

	ata_dev_print(port->name, &port->ata);
	pr_info("%s: port %u, queue depth %u%s, TRIM %s\n", port->name, port->port_no,
		port->tag_set.queue_depth, port->ncq ? " (NCQ)" : "",
		port->ata.trim ? "used" : "not supported");
	return 0;
}

/* HDIO_GETGEO: libata's made-up geometry, as for every ATA disk */
static void ahci_getgeo(struct gendisk *disk, struct hd_geometry *geo)
{
	ata_std_bios_param(get_capacity(disk), geo);
}

/* Register the port's disk as sd<letter>: queue, limits, gendisk. */
static int ahci_add_disk(struct ahci_port *port)
{
	unsigned int index = ahci_nr_disks;
	struct request_queue *q;
	struct gendisk *disk;
	int err;

	port->tag_set.ops = &ahci_mq_ops;
	port->tag_set.driver_data = port;
	q = blk_mq_init_queue(&port->tag_set);
	disk = alloc_disk(SD_MINORS);
	if (!q || !disk) {
		pr_err("%s: no memory for its queue and disk: not registered\n", port->name);
		blk_mq_destroy_queue(q);
		put_disk(disk);
		return -ENOMEM;
	}
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	q->nonrot = port->ata.nonrot;
	blk_queue_max_hw_sectors(q, min(port->ata.max_sectors, (unsigned int)AHCI_MAX_SECTORS));
	blk_queue_max_segments(q, AHCI_MAX_PRD);
	blk_queue_max_segment_size(q, AHCI_PRD_MAX_BYTES);
	blk_queue_dma_alignment(q, 1);          /* words (PRD bit 0 reserved) */
	blk_queue_max_discard_sectors(q, port->ata.trim ?
				      ATA_DSM_RANGE_MAX_SECTORS * ATA_DSM_RANGES_PER_BLOCK : 0);
	blk_queue_write_cache(q, port->ata.wcache, false);
	blk_queue_rq_timeout(q, ahci_timeout_s * HZ);

	memcpy(disk->disk_name, port->name, sizeof(port->name));
	disk->major = SD_MAJOR;
	disk->first_minor = index * SD_MINORS;
	disk->queue = q;
	disk->private_data = port;
	/* libata's INQUIRY product is the model's first 16 characters */
	snprintf(disk->model, sizeof(disk->model), "%-16.16s", port->ata.model);
	set_capacity(disk, port->ata.n_sectors);
	disk->getgeo = ahci_getgeo;
	port->disk = disk;
	err = add_disk(disk);                   /* reads the partition table */
	if (err) {
		pr_err("%s: add_disk failed (%d)\n", port->name, err);
		put_disk(disk);
		blk_mq_destroy_queue(q);
		port->disk = NULL;
		return err;
	}
	ahci_nr_disks++;
	return 0;
}

/* Reset the HBA and read what it can do (AHCI §10.4.3). */
static int ahci_reset_hba(struct ahci_host *host)
{
	struct ahci_hba_regs *hba = host->hba;
	int err;

	/* AE first: on an HBA that also does legacy IDE, HR is only defined
	 * in AHCI mode (CAP.SAM=0 on ICH9 under QEMU: AE is fixed to 1). */
	writel(readl(&hba->ghc) | HOST_CTL_AE, &hba->ghc);
	writel(readl(&hba->ghc) | HOST_CTL_HR, &hba->ghc);
	err = ahci_wait_reg(&hba->ghc, HOST_CTL_HR, 0, AHCI_HR_TIMEOUT_MS);
	if (err) {
		pr_err("%s: HBA reset did not finish (GHC 0x%08x)\n",
		       pci_name(host->pdev), readl(&hba->ghc));
		return err;
	}
	/* the reset cleared AE: set it again */
	writel(readl(&hba->ghc) | HOST_CTL_AE, &hba->ghc);
	host->cap = readl(&hba->cap);
	host->nr_ports = (host->cap & HOST_CAP_NP_MASK) + 1;
	host->nr_slots = ((host->cap >> HOST_CAP_NCS_SHIFT) & 0x1f) + 1;
	host->ports_impl = readl(&hba->pi);
	return 0;
}

static int ahci_setup_irq(struct ahci_host *host)
{
	int nvec, err;

	nvec = pci_alloc_irq_vectors(host->pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_LEGACY);
	if (nvec < 0)
		return nvec;
	host->msi = host->pdev->msi_enabled;
	host->irq = pci_irq_vector(host->pdev, 0);
	if (host->irq <= 0) {
		pci_free_irq_vectors(host->pdev);
		return -ENODEV;
	}
	/* INTx may be shared with other devices; an MSI vector is ours. */
	err = request_irq(host->irq, ahci_interrupt, host->msi ? 0 : IRQF_SHARED,
			  "ahci", host);
	if (err)
		pci_free_irq_vectors(host->pdev);
	return err;
}

static void ahci_log_host(struct ahci_host *host)
{
	static const char *const speeds[] = { "?", "1.5", "3", "6" };
	u32 vs = readl(&host->hba->vs);
	unsigned int iss = (host->cap >> HOST_CAP_ISS_SHIFT) & 0xf;

	pr_info("%s: AHCI %x.%x%x, %u slots, %u ports (PI 0x%x), %s Gbps, %s%s, ABAR %#llx (%llu KiB), irq %d (%s)\n",
		pci_name(host->pdev), vs >> 16, (vs >> 8) & 0xff, vs & 0xff,
		host->nr_slots, host->nr_ports, host->ports_impl,
		speeds[iss < 4 ? iss : 0],
		host->cap & HOST_CAP_SNCQ ? "NCQ" : "no NCQ",
		host->cap & HOST_CAP_S64A ? ", 64-bit" : ", 32-bit only",
		(unsigned long long)pci_resource_start(host->pdev, 5),
		(unsigned long long)pci_resource_len(host->pdev, 5) >> 10,
		host->irq, host->msi ? "MSI" : "INTx");
}

/* Bring up every implemented port; register the disks in port order. */
static void ahci_probe_ports(struct ahci_host *host)
{
	char empty[64];
	size_t n = 0;

	empty[0] = 0;
	for (unsigned int p = 0; p < host->nr_ports && p < AHCI_MAX_PORTS; p++) {
		struct ahci_port *port;
		long sig;

		if (!(host->ports_impl & (1u << p)))
			continue;
		port = kzalloc(sizeof(*port), GFP_KERNEL);
		if (!port)
			return;
		port->host = host;
		port->port_no = p;
		port->regs = (struct ahci_port_regs *)((u8 *)host->mmio +
				AHCI_PORT_REGS_OFFSET + p * sizeof(struct ahci_port_regs));
		spin_lock_init(&port->lock);
		snprintf(port->name, sizeof(port->name), "sd%c", 'a' + (ahci_nr_disks % 26));

		sig = ahci_port_start(port);
		if (sig != SATA_SIG_ATA) {
			if (sig == SATA_SIG_NONE)
				n += snprintf(empty + n, sizeof(empty) - n, " %u", p);
			else if (sig == SATA_SIG_ATAPI)
				pr_info("%s: port %u: ATAPI device (CD/DVD, signature 0x%08lx): not supported, skipped\n",
					pci_name(host->pdev), p, (unsigned long)sig);
			else if (sig > 0)
				pr_info("%s: port %u: unsupported device (signature 0x%08lx): skipped\n",
					pci_name(host->pdev), p, (unsigned long)sig);
			kfree(port);
			continue;
		}
		host->ports[p] = port;
		if (ahci_identify(port) || ahci_add_disk(port)) {
			ahci_stop_engine(port);
			ahci_stop_fis_rx(port);
			writel(0, &port->regs->ie);
			host->ports[p] = NULL;
			ahci_port_free(port);
			kfree(port);
		}
	}
	if (n)
		pr_info("%s: no device on port(s)%s\n", pci_name(host->pdev), empty);
}

static int ahci_init_one(struct pci_dev *pdev)
{
	struct ahci_host *host;
	int err;

	host = kzalloc(sizeof(*host), GFP_KERNEL);
	if (!host)
		return -ENOMEM;
	host->pdev = pdev;
	init_waitqueue_head(&host->eh_wait);
	mutex_init(&host->eh_mutex);

	err = pci_enable_device(pdev);          /* memory space decoding */
	if (err)
		goto fail;
	pci_set_master(pdev);                   /* the HBA fetches and DMAs */
	host->mmio = pci_iomap(pdev, 5, 0);     /* ABAR, uncached */
	if (!host->mmio) {
		pr_err("%s: cannot map ABAR (BAR 5)\n", pci_name(pdev));
		err = -ENOMEM;
		goto fail;
	}
	host->hba = host->mmio;
	err = ahci_reset_hba(host);
	if (err)
		goto fail_unmap;
	err = ahci_setup_irq(host);
	if (err) {
		pr_err("%s: no interrupt: %d\n", pci_name(pdev), err);
		goto fail_unmap;
	}
	ahci_log_host(host);
	host->eh_thread = kthread_run(ahci_eh_thread, host, "ahci_eh");
	if (!host->eh_thread) {
		err = -ENOMEM;
		goto fail_irq;
	}
	/* interrupts on before the ports: IDENTIFY is polled, but add_disk()
	 * reads the partition table through the interrupt path */
	writel(readl(&host->hba->ghc) | HOST_CTL_IE, &host->hba->ghc);
	ahci_probe_ports(host);
	return 0;

fail_irq:
	free_irq(host->irq, host);
	pci_free_irq_vectors(pdev);
fail_unmap:
	pci_iounmap(pdev, host->mmio);
fail:
	kfree(host);
	return err;
}

static int __init ahci_init(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_class(PCI_CLASS_STORAGE_SATA_AHCI, pdev)) != NULL) {
		int err = ahci_init_one(pdev);

		if (err)
			pr_err("%s: not used: %d\n", pci_name(pdev), err);
	}
	return 0;
}
device_initcall(ahci_init);

/* ---- for tests -------------------------------------------------------------- */

struct ahci_port_stats *ahci_disk_stats(struct gendisk *disk)
{
	struct ahci_port *port;

	if (!disk || disk->major != SD_MAJOR || !disk->queue ||
	    !disk->queue->tag_set || disk->queue->tag_set->ops != &ahci_mq_ops)
		return NULL;
	port = disk->private_data;
	return &port->stats;
}

int ahci_hold_completions(struct gendisk *disk, bool hold)
{
	struct ahci_port *port;
	unsigned long flags;

	if (!ahci_disk_stats(disk))
		return -ENODEV;
	port = disk->private_data;
	spin_lock_irqsave(&port->lock, flags);
	/* AHCI 1.3.1 §3.3.5-6: a PxIS bit interrupts only while its PxIE bit
	 * is set; setting PxIE again with PxIS bits pending interrupts then */
	writel(hold ? 0 : PORT_IRQ_ENABLE_MASK, &port->regs->ie);
	readl(&port->regs->ie);                 /* flush */
	spin_unlock_irqrestore(&port->lock, flags);
	return 0;
}

int ahci_port_done_on(struct ahci_port_regs *regs, const struct ahci_port_done_args *in,
		      struct ahci_port_done_result *out)
{
	struct ahci_port *port = kzalloc(sizeof(*port), GFP_KERNEL);
	unsigned long flags;

	if (!port)
		return -ENOMEM;
	spin_lock_init(&port->lock);
	port->regs = regs;
	strlcpy(port->name, "test", sizeof(port->name));
	port->issued = in->issued;
	port->ncq_issued = in->ncq_issued;
	port->eh_pending = in->eh_pending;
	spin_lock_irqsave(&port->lock, flags);
	out->error = false;
	out->done = __ahci_port_done(port, in->status, &out->tfd, &out->error);
	spin_unlock_irqrestore(&port->lock, flags);
	kfree(port);
	return 0;
}
