// SPDX-License-Identifier: MIT
/*
 * ata_piix.c - the classic IDE disk controller (Intel PIIX3 as QEMU
 * emulates it): disks hda..hdd, PIO and bus-master DMA.
 *
 * Where it sits: below the request layer (block/blk-mq.c).  Each disk
 * has its own request queue of depth 1; queue_rq() turns a request into
 * one ATA command, and the channel's interrupt completes it.  Above:
 * partitions, the page cache, the pattern verifier -- all through bios.
 * Beside it: the shared ATA layer (<spindle/ata.h>, libata-core.c, see
 * docs/ata.md), which reads IDENTIFY and builds every command's
 * taskfile, for the AHCI driver too.  This file keeps what is the
 * channel's: its registers and their timing, PIO data, the PRD table and
 * the bus master, the sharing of one channel by two devices, resets.
 *
 * Hardware (docs/ide.md has the register map): a PCI IDE function (class
 * 01:01) with two channels.  Each channel is a small "task file" of
 * registers and up to two devices, master (0) and slave (1), that SHARE
 * it: one command at a time per channel.  Compatibility mode puts the
 * channels at the ISA addresses (0x1F0/0x3F6 IRQ 14, 0x170/0x376 IRQ 15);
 * native mode (programming interface bits 0/2) at BARs 0-3 and the PCI
 * interrupt.  The bus-master registers (BAR4) drive DMA.
 *
 * A channel's state machine (chan->lock protects all of it):
 *
 *            queue_rq: ide_issue()              interrupt, last block / DMA done
 *   IDLE ------------------------------> BUSY ------------------------------> IDLE
 *    ^                                  |  ^ \  PIO: interrupt per DRQ block,
 *    |                                  |  |  \ data moved, stay BUSY
 *    |     error, device left BSY/DRQ   v  |   `--'
 *    +---------- ide_kickd resets <--- RESET <---- ops->timeout (kblockd) resets
 *                                                   itself and goes IDLE
 *
 *   While BUSY, queue_rq for the other device of the channel answers
 *   BLK_STS_RESOURCE and notes it in chan->waiting; when the channel goes
 *   IDLE, the kthread ide_kickd runs that device's queue (see
 *   ide_kick_channel() for why a thread, and why it is needed at all).
 *
 * Supported: ATA disks, LBA28 and LBA48, PIO (READ/WRITE SECTORS, and
 * READ/WRITE MULTIPLE after SET MULTIPLE MODE, with their EXT forms),
 * bus-master DMA (READ/WRITE DMA [EXT]), FLUSH CACHE [EXT], interrupt
 * completion for all of them, error decoding, soft reset, timeouts.
 * Not supported: ATAPI (recognised and skipped), CHS-only disks, SET
 * FEATURES transfer-mode programming (QEMU ignores timings; real
 * hardware needs the PIIX timing registers too), TRIM, more than one
 * controller, hot plug, power management.
 *
 * Limits: one command per channel; 256 sectors per command for LBA28-only
 * disks (the count register is 8 bits, 0 = 256), IDE_MAX_SECTORS
 * otherwise; segments bounded by the one-page PRD table.
 *
 * Boot options: ide.dma=0 (PIO only; default 1), ide.timeout=<seconds>
 * (default 30).  Locking: chan->lock, interrupts off, taken in queue_rq,
 * the interrupt handler, the timeout handler and ide_kickd; never held
 * while calling into the request layer's queue running (see
 * docs/locking.md for the block layer's own locks).
 */
#define pr_fmt(fmt) "ata: " fmt
#include <uapi/linux/hdreg.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/pci.h>
#include <spindle/irq.h>
#include <spindle/init.h>
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/sched.h>
#include <spindle/spinlock.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/wait.h>
#include <asm/io.h>
#include <spindle/ata.h>
#include "ata.h"

#define PCI_CLASS_STORAGE_IDE   0x0101          /* base 01, sub 01 */
#define PCI_IDE_PROGIF_PRI_NATIVE 0x01          /* primary channel in native mode */
#define PCI_IDE_PROGIF_SEC_NATIVE 0x04          /* secondary channel in native mode */
#define PCI_IDE_PROGIF_BUSMASTER 0x80           /* bus-master registers at BAR4 */

#define IDE_MAJOR_PRIMARY       3               /* hda, hdb (Linux's) */
#define IDE_MAJOR_SECONDARY     22              /* hdc, hdd */
#define IDE_MINORS              64              /* per disk, partitions included */

/* Compatibility-mode addresses (ATA-8 ATA/ATAPI host adapters standard). */
static const struct { u16 cmd, ctl; unsigned int irq; } ide_compat[2] = {
	{ 0x1f0, 0x3f6, 14 },
	{ 0x170, 0x376, 15 },
};

/* Tunables. */
#define IDE_MAX_SECTORS         2048            /* 1 MiB: a cap, see below */
#define IDE_MAX_SEGMENTS        (ATA_PRD_MAX / 2)  /* each segment <= 2 PRDs */
#define IDE_MAX_MULT            16              /* sectors per DRQ block */
#define IDE_NR_REQUESTS         32              /* per disk, for merging/sorting */
#define IDE_POLL_US             10              /* poll step */
#define IDE_SELECT_TIMEOUT_US   10000           /* device select: 10 ms */
#define IDE_MAX_STUCK           3               /* resets before a device is dead */
#define IDE_DRQ_TIMEOUT_US      100000          /* DRQ after a write command */
#define IDE_CMD_TIMEOUT_MS      2000            /* a polled command at probe */
#define IDE_RESET_TIMEOUT_MS    3000            /* BSY after SRST (spec: 31 s) */
#define IDE_DEFAULT_TIMEOUT_S   30              /* ide.timeout= default */
#define IDE_PROBE_ATAPI         1               /* ide_identify(): not a disk */

static unsigned int ide_use_dma = 1;            /* ide.dma= */
static unsigned int ide_timeout_s = IDE_DEFAULT_TIMEOUT_S;      /* ide.timeout= */

/* What the command in flight moves, and how. */
enum ide_proto {
	IDE_PROTO_NODATA,       /* FLUSH CACHE: one interrupt at the end */
	IDE_PROTO_PIO_IN,       /* an interrupt per DRQ block, then read it */
	IDE_PROTO_PIO_OUT,      /* write block 1 at once, then one per interrupt */
	IDE_PROTO_DMA,          /* the bus master moves it all; one interrupt */
};

struct ide_channel;

struct ide_device {
	struct ide_channel *chan;
	unsigned int unit;                      /* 0 master, 1 slave (= ata.devno) */
	char name[8];                           /* "hda" */
	struct ata_device ata;                  /* what IDENTIFY said; ata.multi_count
						 * is the sectors per DRQ block in
						 * use (1: SET MULTIPLE not used) */
	bool dma;                               /* use bus-master DMA */
	unsigned int stuck;                     /* resets in a row that did not
						 * make it answer a select */
	bool dead;                              /* gave up on it: I/O fails */
	struct blk_mq_tag_set tag_set;
	struct request_queue *q;
	struct gendisk *disk;
};

struct ide_channel {
	unsigned int index;                     /* 0 primary, 1 secondary */
	u16 cmd_base;                           /* command block */
	u16 ctl_base;                           /* control block (alt status) */
	u16 bmdma_base;                         /* bus-master registers; 0: none */
	unsigned int irq;
	bool irq_shared;                        /* native mode: the PCI line */
	struct ide_device *devs[2];

	spinlock_t lock;                        /* everything below */
	bool busy;                              /* a command (or a reset) owns it */
	bool needs_reset;                       /* ide_kickd must reset it */
	int selected;                           /* unit in the device register, -1 */
	u8 waiting;                             /* bit u: unit u was told RESOURCE */
	int reserved;                           /* unit the channel is kept for, -1 */

	/* the command in flight */
	struct ide_device *active_dev;
	struct request *active_rq;
	enum ide_proto proto;
	u8 command;                             /* for the log lines */
	unsigned int left;                      /* PIO: sectors still to move */
	struct bio *pio_bio;                    /* PIO: where in the data we are */
	struct bvec_iter pio_iter;

	struct ata_prd *prd;                    /* the PRD table (one page) */
	phys_addr_t prd_dma;
};

static struct ide_channel ide_channels[2];
static struct task_struct *ide_kick_task;
static DECLARE_WAIT_QUEUE_HEAD(ide_kick_wq);

/* --- boot options ---------------------------------------------------------- */

static int __init ide_uint_param(const char *v, unsigned int *p, unsigned int max)
{
	unsigned long n = 0;

	if (!*v)
		return -EINVAL;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -EINVAL;
		n = n * 10 + (unsigned long)(*v - '0');
		if (n > max)
			return -EINVAL;
	}
	*p = (unsigned int)n;
	return 0;
}
static int __init ide_dma_setup(const char *v) { return ide_uint_param(v, &ide_use_dma, 1); }
__setup("ide.dma=", ide_dma_setup);
static int __init ide_timeout_setup(const char *v)
{
	unsigned int s;

	if (ide_uint_param(v, &s, 3600) || !s)
		return -EINVAL;
	ide_timeout_s = s;
	return 0;
}
__setup("ide.timeout=", ide_timeout_setup);

/* --- registers ----------------------------------------------------------- */

static inline u8 ide_read(struct ide_channel *c, unsigned int reg) { return inb(c->cmd_base + reg); }
static inline void ide_write(struct ide_channel *c, unsigned int reg, u8 v) { outb(c->cmd_base + reg, v); }
static inline u8 ide_altstatus(struct ide_channel *c) { return inb(c->ctl_base + ATA_REG_ALTSTATUS); }
static inline void ide_devctl(struct ide_channel *c, u8 v) { outb(c->ctl_base + ATA_REG_DEVCTL, v); }
static inline u8 ide_bm_read(struct ide_channel *c, unsigned int reg) { return inb(c->bmdma_base + reg); }
static inline void ide_bm_write(struct ide_channel *c, unsigned int reg, u8 v) { outb(c->bmdma_base + reg, v); }

/*
 * Clear status bits (write 1 to clear: ATA_DMA_INTR, ATA_DMA_ERR).  The
 * register's other writable bits -- "drive 0/1 DMA capable", set by the
 * BIOS -- are written back as they are (SFF-8038i), not zeroed.
 */
static inline void ide_bm_clear_status(struct ide_channel *c, u8 bits)
{
	u8 keep = ide_bm_read(c, ATA_DMA_STATUS) & ~(ATA_DMA_INTR | ATA_DMA_ERR);

	ide_bm_write(c, ATA_DMA_STATUS, keep | bits);
}

/*
 * ATA-8 ATA/ATAPI host adapters: after selecting a device or writing a
 * command, status is valid only 400 ns later.  Four reads of the
 * alternate status register take at least that long on ISA timing.
 */
static void ide_delay400(struct ide_channel *c)
{
	for (int i = 0; i < 4; i++)
		(void)ide_altstatus(c);
}

/*
 * Wait until (status & mask) == 0, polling alt status, at most timeout_us.
 * Returns the last status; the caller checks it.  0xff (a floating bus:
 * nobody drives the lines) ends the wait at once.  Does not sleep.
 */
static u8 ide_wait_clear(struct ide_channel *c, u8 mask, unsigned long timeout_us)
{
	u8 st;

	for (unsigned long t = 0;; t += IDE_POLL_US) {
		st = ide_altstatus(c);
		if (st == 0xff || !(st & mask) || t >= timeout_us)
			return st;
		udelay(IDE_POLL_US);
	}
}

/* The same, sleeping between polls (task context, long waits: reset). */
static u8 ide_wait_clear_sleep(struct ide_channel *c, u8 mask, unsigned int timeout_ms)
{
	u8 st;

	for (unsigned int t = 0;; t += 10) {
		st = ide_altstatus(c);
		if (st == 0xff || !(st & mask) || t >= timeout_ms)
			return st;
		msleep(10);
	}
}

/* Select unit (if it is not already) and wait for it to be idle.
 * Returns false if it stayed BSY or DRQ.  Caller holds chan->lock or owns
 * the channel (probe, reset). */
static bool ide_select(struct ide_channel *c, unsigned int unit)
{
	if (c->selected != (int)unit) {
		ide_write(c, ATA_REG_DEVICE, ATA_DEVICE_OBS | ATA_LBA | (unit ? ATA_DEV1 : 0));
		ide_delay400(c);
		c->selected = (int)unit;
	}
	return !(ide_wait_clear(c, ATA_BUSY | ATA_DRQ, IDE_SELECT_TIMEOUT_US) & (ATA_BUSY | ATA_DRQ));
}

/*
 * ide_tf_load - write a taskfile built by libata-core into the channel's
 * registers, all but the command.  An LBA48 taskfile writes the "previous"
 * (high-order, hob_*) bytes first, then the low bytes to the same
 * registers: on a parallel channel each register is a two-deep FIFO,
 * and the device takes the older byte as the high one.  Caller holds chan->lock or owns the channel.
 */
static void ide_tf_load(struct ide_channel *c, const struct ata_taskfile *tf)
{
	if (tf->flags & ATA_TFLAG_LBA48) {
		ide_write(c, ATA_REG_FEATURE, tf->hob_feature);
		ide_write(c, ATA_REG_NSECT, tf->hob_nsect);
		ide_write(c, ATA_REG_LBAL, tf->hob_lbal);
		ide_write(c, ATA_REG_LBAM, tf->hob_lbam);
		ide_write(c, ATA_REG_LBAH, tf->hob_lbah);
	}
	ide_write(c, ATA_REG_FEATURE, tf->feature);
	ide_write(c, ATA_REG_NSECT, tf->nsect);
	ide_write(c, ATA_REG_LBAL, tf->lbal);
	ide_write(c, ATA_REG_LBAM, tf->lbam);
	ide_write(c, ATA_REG_LBAH, tf->lbah);
	ide_write(c, ATA_REG_DEVICE, tf->device);
	c->selected = (tf->device & ATA_DEV1) ? 1 : 0;
}

/* --- the PRD table ---------------------------------------------------------- */

int ata_build_prd_table(struct request *rq, struct ata_prd *prd, unsigned int max)
{
	/* LAB 2 BEGIN */
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;
	unsigned int n = 0;

	rq_for_each_segment(bv, rq, bio, iter) {
		phys_addr_t addr = page_to_phys(bv.bv_page) + bv.bv_offset;
		u32 left = bv.bv_len;

		if (left & 1)
			return -EINVAL;         /* the engine moves 16-bit words */
		if (addr + left > 0x100000000ull)
			return -ERANGE;         /* 32-bit addresses only: use PIO */
		/*
		 * One entry per piece of the segment that stays inside one
		 * 64 KiB-aligned window: the engine's address counter carries
		 * only in its low 16 bits (SFF-8038i §2: "a region may not
		 * cross a 64K boundary").
		 */
		while (left) {
			u32 room = (u32)(ATA_PRD_BOUNDARY - (addr & (ATA_PRD_BOUNDARY - 1)));
			u32 len = min(left, room);

			if (n == max)
				return -E2BIG;
			prd[n].addr = (u32)addr;
			prd[n].flags_len = len & 0xffff;        /* 65536 is written as 0 */
			n++;
			addr += len;
			left -= len;
		}
	}
	if (!n)
		return -EINVAL;
	prd[n - 1].flags_len |= ATA_PRD_EOT;
	return (int)n;
	/* LAB 2 END: (void)rq; (void)prd; (void)max; return -ENOSYS; */
}

/* --- PIO data --------------------------------------------------------------- */

/* Move bytes between the data register and the request's pages, from
 * where the last block stopped.  Interrupt context or chan->lock held. */
static void ide_pio_data(struct ide_channel *c, unsigned int bytes, bool write)
{
	while (bytes) {
		struct bio_vec bv;
		unsigned int n;
		void *buf;

		if (!c->pio_iter.bi_size) {
			c->pio_bio = c->pio_bio->bi_next;
			c->pio_iter = c->pio_bio->bi_iter;
		}
		bv = bvec_iter_bvec(c->pio_bio->bi_io_vec, c->pio_iter);
		n = min(bv.bv_len, bytes);
		buf = (char *)page_address(bv.bv_page) + bv.bv_offset;
		if (write)
			outsw(c->cmd_base + ATA_REG_DATA, buf, n / 2);
		else
			insw(c->cmd_base + ATA_REG_DATA, buf, n / 2);
		bvec_iter_advance(c->pio_bio->bi_io_vec, &c->pio_iter, n);
		bytes -= n;
	}
}

/* The next DRQ block: all sectors left, at most one "multiple" block. */
static unsigned int ide_pio_block(struct ide_channel *c)
{
	return min(c->left, c->active_dev->ata.multi_count);
}

static void ide_pio_transfer_block(struct ide_channel *c, bool write)
{
	unsigned int n = ide_pio_block(c);

	ide_pio_data(c, n * SECTOR_SIZE, write);
	c->left -= n;
}

/* --- issuing a command ---------------------------------------------------- */

static void ide_end_command(struct ide_channel *c, blk_status_t status);
static void ide_command_failed(struct ide_channel *c, u8 status, const char *why);

/*
 * Choose the protocol for rq and build its taskfile: non-data for a
 * flush; for a read or write, bus-master DMA when the device does DMA and
 * the pages fit a PRD table, else PIO.  Sets chan->proto; *dma says
 * whether c->prd was filled.  Caller holds chan->lock.
 */
static blk_status_t ide_prep_tf(struct ide_channel *c, struct ide_device *d,
				struct request *rq, struct ata_taskfile *tf, bool *dma)
{
	u64 lba = blk_rq_pos(rq);
	unsigned int nsect = blk_rq_sectors(rq);
	bool write = rq_data_dir(rq) == WRITE;
	int err;

	*dma = false;
	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		c->proto = IDE_PROTO_NODATA;
		ata_build_flush_tf(tf, &d->ata);
		return BLK_STS_OK;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	if (d->dma) {
		int n = ata_build_prd_table(rq, c->prd, ATA_PRD_MAX);

		*dma = n > 0;
		if (n == -ERANGE)
			pr_info("%s: data above 4 GiB at LBA %llu: PIO for this request\n",
				d->name, (unsigned long long)lba);
		else if (n <= 0)
			/* the limits set in ide_register_disk() rule the
			 * other failures out: say so if one happens */
			pr_warn("%s: no PRD table for LBA %llu (%d): PIO for this request\n",
				d->name, (unsigned long long)lba, n);
	}
	if (*dma)
		c->proto = IDE_PROTO_DMA;
	else
		c->proto = write ? IDE_PROTO_PIO_OUT : IDE_PROTO_PIO_IN;
	/* LBA28 when the range fits it, else LBA48 (libata-core) */
	err = ata_build_rw_tf(tf, &d->ata, *dma ? ATA_PROT_DMA : ATA_PROT_PIO,
			      write, lba, nsect, 0);
	if (err) {
		/* the queue limits make this impossible: say so */
		pr_err("%s: no %s command for %u sectors at LBA %llu (%d)\n",
		       d->name, write ? "write" : "read", nsect,
		       (unsigned long long)lba, err);
		return BLK_STS_IOERR;
	}
	return BLK_STS_OK;
}

/*
 * The device did not answer device select: it is still busy from before.
 * Reset the channel (ide_kickd does it), then retry rq -- a few times; a
 * device that never answers again is given up, or the channel (and its
 * other disk) would wait forever.  Caller holds chan->lock.
 */
static blk_status_t ide_select_failed(struct ide_channel *c, struct ide_device *d)
{
	if (++d->stuck > IDE_MAX_STUCK) {
		pr_err("%s: no answer to select after %u resets: failing its I/O\n",
		       d->name, IDE_MAX_STUCK);
		d->dead = true;
		return BLK_STS_IOERR;
	}
	c->busy = true;
	c->needs_reset = true;
	c->waiting |= 1u << d->unit;
	wake_up(&ide_kick_wq);
	return BLK_STS_RESOURCE;
}

/* SFF-8038i §3: table address, direction, clear status, command, start. */
static void ide_start_dma(struct ide_channel *c, bool write)
{
	u8 dir = write ? 0 : ATA_DMA_WR;        /* WR: the controller writes memory */

	outl(c->bmdma_base + ATA_DMA_TABLE_OFS, (u32)c->prd_dma);
	ide_bm_write(c, ATA_DMA_CMD, dir);
	ide_bm_clear_status(c, ATA_DMA_INTR | ATA_DMA_ERR);
	ide_write(c, ATA_REG_CMD, c->command);
	ide_bm_write(c, ATA_DMA_CMD, dir | ATA_DMA_START);
}

/*
 * PIO out: the device asks for the first block with DRQ and no interrupt
 * (ATA-8 ACS PIO data-out protocol); each later block, and the end, is
 * announced by an interrupt.  A device that never asks fails the command.
 */
static void ide_start_pio_out(struct ide_channel *c)
{
	u8 st;

	ide_delay400(c);
	st = ide_wait_clear(c, ATA_BUSY, IDE_DRQ_TIMEOUT_US);
	if ((st & (ATA_BUSY | ATA_ERR | ATA_DF)) || !(st & ATA_DRQ)) {
		/* read status: acknowledge whatever interrupt it raised */
		ide_command_failed(c, ide_read(c, ATA_REG_STATUS), "no DRQ for data");
		return;
	}
	ide_pio_transfer_block(c, true);
}

/*
 * ide_issue - start rq on the (idle) channel.  Caller holds chan->lock and
 * has checked !chan->busy.  Does not sleep, but may busy-wait with
 * interrupts off: a healthy device answers device select and the DRQ
 * before PIO-out data within microseconds; a slow or sick one holds the
 * CPU up to IDE_SELECT_TIMEOUT_US + IDE_DRQ_TIMEOUT_US (110 ms) -- the
 * price of keeping the issue path this simple.
 */
static blk_status_t ide_issue(struct ide_channel *c, struct ide_device *d, struct request *rq)
{
	struct ata_taskfile tf;
	blk_status_t ret;
	bool dma;

	assert_spin_locked(&c->lock);
	ret = ide_prep_tf(c, d, rq, &tf, &dma);
	if (ret != BLK_STS_OK)
		return ret;
	if (d->dead)
		return BLK_STS_IOERR;
	if (!ide_select(c, d->unit))
		return ide_select_failed(c, d);
	d->stuck = 0;

	blk_mq_start_request(rq);
	c->busy = true;
	c->active_dev = d;
	c->active_rq = rq;
	c->left = blk_rq_sectors(rq);
	c->pio_bio = rq->bio;
	if (rq->bio)
		c->pio_iter = rq->bio->bi_iter;

	c->command = tf.command;
	ide_tf_load(c, &tf);
	if (dma) {
		ide_start_dma(c, rq_data_dir(rq) == WRITE);
		return BLK_STS_OK;
	}
	ide_write(c, ATA_REG_CMD, c->command);
	if (c->proto == IDE_PROTO_PIO_OUT)
		ide_start_pio_out(c);   /* on failure rq is started, and completed */
	return BLK_STS_OK;
}

/*
 * queue_rq: one request, one ATA command.  Called without locks, must not
 * sleep.  The other device of the channel may own the channel: then
 * BLK_STS_RESOURCE, and chan->waiting remembers to restart this queue.
 */
static blk_status_t ide_queue_rq(struct request_queue *q, const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct ide_device *d = q->queuedata;
	struct ide_channel *c = d->chan;
	unsigned long flags;
	blk_status_t ret;

	spin_lock_irqsave(&c->lock, flags);
	if (c->busy || (c->reserved >= 0 && c->reserved != (int)d->unit)) {
		c->waiting |= 1u << d->unit;
		spin_unlock_irqrestore(&c->lock, flags);
		return BLK_STS_RESOURCE;
	}
	c->reserved = -1;
	ret = ide_issue(c, d, rq);
	if (ret != BLK_STS_RESOURCE)
		c->waiting &= ~(1u << d->unit);
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/* --- completion ------------------------------------------------------------ */

/*
 * The command in flight is over (interrupt handler, or issue path on an
 * early failure).  Caller holds chan->lock.  The channel goes idle unless
 * it needs a reset first; if the sibling device is waiting for it, the
 * channel is kept for the sibling and ide_kickd is woken to restart its
 * queue.
 */
static void ide_end_command(struct ide_channel *c, blk_status_t status)
{
	struct request *rq = c->active_rq;
	struct ide_device *d = c->active_dev;

	assert_spin_locked(&c->lock);
	c->active_rq = NULL;
	c->active_dev = NULL;
	if (!c->needs_reset) {
		c->busy = false;
		if (c->waiting & (1u << (d->unit ^ 1)))
			c->reserved = (int)(d->unit ^ 1);       /* take turns */
	}
	if (c->waiting || c->needs_reset)
		wake_up(&ide_kick_wq);
	blk_mq_complete_request(rq, status);
}

/*
 * The one error path: log the decoded status and error registers, note a
 * reset if the device is left BSY or DRQ, fail the request with
 * BLK_STS_IOERR.  Caller holds chan->lock; status was read already.
 */
static void ide_command_failed(struct ide_channel *c, u8 status, const char *why)
{
	struct request *rq = c->active_rq;
	char sbuf[64], ebuf[64];
	u8 error = ide_read(c, ATA_REG_ERR);

	ata_decode_status(sbuf, sizeof(sbuf), status);
	ata_decode_error(ebuf, sizeof(ebuf), error);
	pr_err("%s: %s failed at LBA %llu%s%s: status %s error %s\n",
	       c->active_dev->name, ata_get_cmd_name(c->command),
	       (unsigned long long)blk_rq_pos(rq), why ? ": " : "", why ? why : "",
	       sbuf, ebuf);
	if (status & (ATA_BUSY | ATA_DRQ))
		c->needs_reset = true;
	ide_end_command(c, BLK_STS_IOERR);
}

/* Stop the bus master and clear its status.  Returns the status it had. */
static u8 ide_bmdma_stop(struct ide_channel *c)
{
	u8 bmst;

	if (!c->bmdma_base)
		return 0;
	bmst = ide_bm_read(c, ATA_DMA_STATUS);
	ide_bm_write(c, ATA_DMA_CMD, ide_bm_read(c, ATA_DMA_CMD) & ~ATA_DMA_START);
	ide_bm_clear_status(c, ATA_DMA_INTR | ATA_DMA_ERR);    /* write 1 to clear */
	return bmst;
}

/*
 * Is this interrupt for the command in flight?  Returns the device's
 * status (reading it acknowledges the interrupt), or -1 with *ret set:
 * the other channel's on a shared line, a late one with nothing in
 * flight (after a reset or timeout), or the device still busy.  Caller
 * holds chan->lock.
 */
static int ide_irq_status(struct ide_channel *c, irqreturn_t *ret)
{
	u8 status;

	*ret = IRQ_NONE;
	if (c->bmdma_base && c->irq_shared && !(ide_bm_read(c, ATA_DMA_STATUS) & ATA_DMA_INTR))
		return -1;                      /* the other channel's, on a shared line */
	if (!c->active_rq) {
		(void)ide_read(c, ATA_REG_STATUS);
		if (c->bmdma_base)
			ide_bm_clear_status(c, ATA_DMA_INTR);
		if (!c->irq_shared)
			*ret = IRQ_HANDLED;
		return -1;
	}
	status = ide_read(c, ATA_REG_STATUS);
	if (status & ATA_BUSY)
		return -1;                      /* not from our device (yet) */
	return status;
}

/* A DMA command is over: stop the bus master and judge both statuses. */
static void ide_intr_dma(struct ide_channel *c, u8 status)
{
	u8 bmst = ide_bmdma_stop(c);

	if ((status & (ATA_ERR | ATA_DF)) || (bmst & ATA_DMA_ERR))
		ide_command_failed(c, status, (bmst & ATA_DMA_ERR) ? "bus master error" : NULL);
	else if (status & ATA_DRQ)
		ide_command_failed(c, status, "DRQ after DMA");
	else
		ide_end_command(c, BLK_STS_OK);
}

/*
 * Move the command in flight on by one interrupt.  PIO in: a block is
 * ready: read it; after the last one the command is over.  PIO out: the
 * block we wrote was taken: write the next, or, when none is left, the
 * command is over.  DMA and non-data: the command is over.
 */
static void ide_intr_advance(struct ide_channel *c, u8 status)
{
	if (c->proto == IDE_PROTO_DMA) {
		ide_intr_dma(c, status);
		return;
	}
	if (c->bmdma_base)
		ide_bm_clear_status(c, ATA_DMA_INTR);
	if (status & (ATA_ERR | ATA_DF)) {
		ide_command_failed(c, status, NULL);
		return;
	}
	switch (c->proto) {
	case IDE_PROTO_NODATA:
		ide_end_command(c, BLK_STS_OK);
		break;
	case IDE_PROTO_PIO_IN:
		if (!(status & ATA_DRQ)) {
			ide_command_failed(c, status, "no DRQ for data");
			break;
		}
		ide_pio_transfer_block(c, false);
		if (!c->left)
			ide_end_command(c, BLK_STS_OK);
		break;
	case IDE_PROTO_PIO_OUT:
		if (!c->left)
			ide_end_command(c, BLK_STS_OK);
		else if (!(status & ATA_DRQ))
			ide_command_failed(c, status, "no DRQ for data");
		else
			ide_pio_transfer_block(c, true);
		break;
	case IDE_PROTO_DMA:
		break;                          /* handled above */
	}
}

/*
 * The channel's interrupt.  Reading the STATUS register (not alt status)
 * is what tells the device its interrupt was seen (it drops INTRQ).
 */
static irqreturn_t ide_interrupt(int irq, void *dev_id)
{
	struct ide_channel *c = dev_id;
	unsigned long flags;
	irqreturn_t ret;
	int status;

	(void)irq;
	spin_lock_irqsave(&c->lock, flags);
	status = ide_irq_status(c, &ret);
	if (status >= 0) {
		ide_intr_advance(c, (u8)status);
		ret = IRQ_HANDLED;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/* --- reset ----------------------------------------------------------------- */

static int ide_set_multiple(struct ide_channel *c, struct ide_device *d);

/*
 * ide_reset_channel - software reset of both devices (ATA-8 ATA/ATAPI
 * host adapters: SRST in device control for >= 5 us, then wait for BSY
 * to clear), bounded.  Task context: sleeps.  The caller owns the channel
 * (chan->busy set, nothing in flight).  Multiple mode is set again.
 */
static void ide_reset_channel(struct ide_channel *c)
{
	u8 st;

	if (c->bmdma_base)
		(void)ide_bmdma_stop(c);
	ide_devctl(c, ATA_SRST | ATA_NIEN);
	udelay(10);
	ide_devctl(c, ATA_NIEN);
	msleep(2);
	st = ide_wait_clear_sleep(c, ATA_BUSY, IDE_RESET_TIMEOUT_MS);
	c->selected = -1;
	if (st & ATA_BUSY)
		pr_err("ide%u: still busy %u ms after reset (status 0x%02x)\n",
		       c->index, IDE_RESET_TIMEOUT_MS, st);
	for (unsigned int u = 0; u < 2; u++)
		if (c->devs[u] && c->devs[u]->ata.multi_count > 1 &&
		    ide_set_multiple(c, c->devs[u])) {
			/* refused after the reset: READ/WRITE MULTIPLE would be
			 * aborted from now on, so one sector per interrupt */
			pr_warn("%s: SET MULTIPLE refused after reset: PIO one sector at a time\n",
				c->devs[u]->name);
			c->devs[u]->ata.multi_count = 1;
		}
	(void)ide_read(c, ATA_REG_STATUS);              /* drop any INTRQ */
	ide_devctl(c, 0);                               /* nIEN clear: interrupts on */
	pr_info("ide%u: channel reset\n", c->index);
}

/* The channel was owned for a reset (or by a timed-out command): free it,
 * keeping it for a waiting device, and let ide_kickd restart queues. */
static void ide_release_channel(struct ide_channel *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->needs_reset = false;
	c->busy = false;
	c->reserved = -1;
	spin_unlock_irqrestore(&c->lock, flags);
	wake_up(&ide_kick_wq);
}

/*
 * ops->timeout: rq has not completed in q->rq_timeout (kblockd, task
 * context).  If the interrupt handler has not finished it meanwhile, stop
 * the engine, reset the channel, and fail rq with BLK_STS_TIMEOUT.  Other
 * requests then go on as usual.
 */
static enum blk_eh_timer_return ide_timeout(struct request *rq)
{
	struct ide_device *d = rq->q->queuedata;
	struct ide_channel *c = d->chan;
	char sbuf[64];
	unsigned long flags;
	u8 command, st;

	spin_lock_irqsave(&c->lock, flags);
	if (c->active_rq != rq) {
		spin_unlock_irqrestore(&c->lock, flags);
		return BLK_EH_DONE;             /* the interrupt completed it */
	}
	c->active_rq = NULL;                    /* a late interrupt is now spurious */
	c->active_dev = NULL;
	command = c->command;
	st = ide_altstatus(c);
	if (c->bmdma_base)
		(void)ide_bmdma_stop(c);
	spin_unlock_irqrestore(&c->lock, flags);

	ata_decode_status(sbuf, sizeof(sbuf), st);
	pr_err("%s: %s timed out at LBA %llu (status %s): resetting ide%u\n",
	       d->name, ata_get_cmd_name(command), (unsigned long long)blk_rq_pos(rq),
	       sbuf, c->index);
	ide_reset_channel(c);
	blk_mq_complete_request(rq, BLK_STS_TIMEOUT);
	ide_release_channel(c);
	return BLK_EH_DONE;
}

/* --- restarting the sibling's queue ------------------------------------------ */

/*
 * Why this exists.  Master and slave have separate request queues but
 * share one channel.  When queue_rq() of one meets the channel busy with
 * the other, it answers BLK_STS_RESOURCE; the request layer then parks
 * the request on hctx->dispatch and retries it only when a request of THAT
 * queue completes -- but nothing of that queue is in flight, the other
 * device's command is.  So when the channel frees, the driver says
 * blk_mq_restart_hw_queue() for the waiting device's queue.  That call
 * also covers the race where queue_rq() has answered RESOURCE and the
 * request layer is about to park the request: it retries at once.
 *
 * ide_kickd, a kernel thread, does this (and the resets, which sleep):
 * the interrupt handler notes the channel free and wakes it.  While a
 * sibling waits, a freed channel is reserved for it (chan->reserved), so
 * two busy disks take turns instead of one starving the other; the
 * thread runs the queue itself so that it can see whether the sibling
 * sent anything, and drop the reservation if not.
 */
static void ide_kick_channel(struct ide_channel *c)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct ide_device *d;
		struct request_queue *q;
		unsigned long flags;
		unsigned int unit;

		spin_lock_irqsave(&c->lock, flags);
		unit = c->reserved >= 0 ? (unsigned int)c->reserved : i;
		d = c->devs[unit];
		if (c->busy || !(c->waiting & (1u << unit)) || !d) {
			spin_unlock_irqrestore(&c->lock, flags);
			continue;
		}
		c->waiting &= ~(1u << unit);
		spin_unlock_irqrestore(&c->lock, flags);

		q = d->q;
		blk_mq_restart_hw_queue(q);     /* a request being parked now is retried */
		blk_mq_run_hw_queues(q);

		spin_lock_irqsave(&c->lock, flags);
		if (c->reserved == (int)unit)
			c->reserved = -1;       /* it had nothing to send after all */
		spin_unlock_irqrestore(&c->lock, flags);
	}
}

static bool ide_kick_pending(void)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct ide_channel *c = &ide_channels[i];

		if (c->needs_reset || (!c->busy && c->waiting))
			return true;
	}
	return false;
}

static int ide_kickd(void *unused)
{
	(void)unused;
	for (;;) {
		wait_event_interruptible(ide_kick_wq, ide_kick_pending());
		for (unsigned int i = 0; i < 2; i++) {
			struct ide_channel *c = &ide_channels[i];

			if (c->needs_reset && !c->active_rq) {
				ide_reset_channel(c);
				ide_release_channel(c);
			}
			ide_kick_channel(c);
		}
	}
	return 0;
}

/* --- probing --------------------------------------------------------------- */

/* A polled non-data command at probe/reset time (nIEN set by the caller). */
static u8 ide_exec_polled(struct ide_channel *c, unsigned int unit, u8 cmd, u8 nsect)
{
	if (!ide_select(c, unit))
		return ide_altstatus(c);
	ide_write(c, ATA_REG_NSECT, nsect);
	ide_write(c, ATA_REG_CMD, cmd);
	ide_delay400(c);
	return ide_wait_clear(c, ATA_BUSY, IDE_CMD_TIMEOUT_MS * 1000ul);
}

static int ide_set_multiple(struct ide_channel *c, struct ide_device *d)
{
	u8 st;

	ide_devctl(c, ATA_NIEN);
	st = ide_exec_polled(c, d->unit, ATA_CMD_SET_MULTI, (u8)d->ata.multi_count);
	(void)ide_read(c, ATA_REG_STATUS);
	return (st & (ATA_BUSY | ATA_ERR | ATA_DF)) ? -EIO : 0;
}

/*
 * Select unit at probe time, and make sure the select was taken.  A
 * device ignores register writes while it is busy (ATA: no write to the
 * Device register with BSY set), and right after the channel's soft
 * reset the busy one may be the unit selected before it -- which, if it
 * is absent, reads as status 0, so a wait for BSY cannot see the reset
 * still running.  (QEMU finishes a soft reset later, in its main loop.)
 *
 * So the select is written until the Device register reads back exactly
 * what was written.  Only the same value proves it: the DEV bit alone
 * does not, because QEMU's reset sets the Device register of BOTH units
 * to 0xa0 (DEV = 0) and leaves the selected unit as it was -- so when
 * the reset ends between our ignored write and the read-back, an absent
 * slave still selected reads "master".  The value written has LBA set,
 * which the reset never leaves there.  The loop also ends when nobody
 * latches the register (an empty channel reads 0, a floating one 0xff),
 * or after IDE_CMD_TIMEOUT_MS.
 */
static void ide_probe_select(struct ide_channel *c, unsigned int unit)
{
	u8 want = ATA_DEVICE_OBS | ATA_LBA | (unit ? ATA_DEV1 : 0);

	for (unsigned long t = 0;; t += IDE_POLL_US) {
		u8 dev;

		ide_write(c, ATA_REG_DEVICE, want);
		ide_delay400(c);
		dev = ide_read(c, ATA_REG_DEVICE);
		if (dev == want || !(dev & ATA_DEVICE_OBS) || dev == 0xff ||
		    t >= IDE_CMD_TIMEOUT_MS * 1000ul)
			break;
		udelay(IDE_POLL_US);
	}
	c->selected = (int)unit;
}

/*
 * Probe one position: select, look for a device, tell ATA from ATAPI by
 * the signature, IDENTIFY.  Returns 0 with id[] filled for an ATA disk,
 * -ENODEV for nothing there, IDE_PROBE_ATAPI for ATAPI.  Every wait bounded.
 */
static int ide_identify(struct ide_channel *c, unsigned int unit, u16 *id)
{
	u8 st;
	u16 sig;

	ide_probe_select(c, unit);
	st = ide_altstatus(c);
	if (st == 0xff)
		return -ENODEV;         /* floating bus: nobody drives the lines */
	st = ide_wait_clear(c, ATA_BUSY, IDE_CMD_TIMEOUT_MS * 1000ul);
	if (st & ATA_BUSY)
		return -ENODEV;
	/* ATAPI devices leave status 0 after reset; look at the signature first */
	sig = (u16)(ide_read(c, ATA_REG_LBAM) | (ide_read(c, ATA_REG_LBAH) << 8));
	if (sig == ATA_SIG_ATAPI || sig == ATA_SIG_SATAPI)
		return IDE_PROBE_ATAPI;
	if (st == 0 || (sig != ATA_SIG_ATA && sig != ATA_SIG_SATA))
		return -ENODEV;         /* an ATA disk shows DRDY; nobody here */
	/* register test: a real device keeps what we write to sector count */
	ide_write(c, ATA_REG_NSECT, 0x55);
	ide_write(c, ATA_REG_LBAL, 0xaa);
	if (ide_read(c, ATA_REG_NSECT) != 0x55 || ide_read(c, ATA_REG_LBAL) != 0xaa)
		return -ENODEV;

	ide_write(c, ATA_REG_CMD, ATA_CMD_ID_ATA);
	ide_delay400(c);
	st = ide_altstatus(c);
	if (st == 0)
		return -ENODEV;
	st = ide_wait_clear(c, ATA_BUSY, IDE_CMD_TIMEOUT_MS * 1000ul);
	(void)ide_read(c, ATA_REG_STATUS);
	if (st & (ATA_BUSY | ATA_ERR | ATA_DF) || !(st & ATA_DRQ)) {
		/* aborted: an empty position (QEMU) or an ATAPI device */
		sig = (u16)(ide_read(c, ATA_REG_LBAM) | (ide_read(c, ATA_REG_LBAH) << 8));
		return (sig == ATA_SIG_ATAPI || sig == ATA_SIG_SATAPI) ? IDE_PROBE_ATAPI : -ENODEV;
	}
	insw(c->cmd_base + ATA_REG_DATA, id, ATA_ID_WORDS);
	if (!ata_id_is_ata(id))
		return IDE_PROBE_ATAPI;
	return 0;
}

static const char *const ide_position[4] = {
	"primary master", "primary slave", "secondary master", "secondary slave",
};

/*
 * Fill d from IDENTIFY data (libata-core reads it, as for an AHCI disk)
 * and log it: the description every ATA disk gets, then what is this
 * channel's -- position, transfer modes, DMA or PIO.  -EOPNOTSUPP for a
 * disk without LBA.
 */
static int ide_parse_identify(struct ide_device *d, const u16 *id)
{
	struct ide_channel *c = d->chan;
	char modes[64];
	int err;

	err = ata_dev_parse_id(&d->ata, id);
	if (err == -EOPNOTSUPP)
		pr_warn("%s: %s: no LBA (CHS only): not supported\n", d->name, d->ata.model);
	if (err)
		return err;
	d->ata.devno = d->unit;
	d->dma = ide_use_dma && c->bmdma_base && d->ata.dma;
	d->ata.multi_count = min(d->ata.max_multi, (unsigned int)IDE_MAX_MULT);
	if (d->ata.multi_count < 2)
		d->ata.multi_count = 1;

	ata_dev_modes(&d->ata, modes, sizeof(modes));
	ata_dev_print(d->name, &d->ata);
	pr_info("%s: on %s, %s, %u sectors per PIO block; I/O by %s\n", d->name,
		ide_position[c->index * 2 + d->unit], modes, d->ata.multi_count,
		d->dma ? "DMA" : "PIO");
	return 0;
}

static const struct blk_mq_ops ide_mq_ops = {
	.queue_rq = ide_queue_rq,
	.timeout = ide_timeout,
};

static void ide_getgeo(struct gendisk *disk, struct hd_geometry *geo)
{
	ata_std_bios_param(get_capacity(disk), geo);
}

/* The request queue, limits and gendisk for a probed disk. */
static int ide_register_disk(struct ide_device *d)
{
	struct request_queue *q;
	struct gendisk *disk;
	int err;

	d->tag_set.ops = &ide_mq_ops;
	d->tag_set.queue_depth = 1;             /* one command per channel anyway */
	d->tag_set.nr_requests = IDE_NR_REQUESTS;
	d->tag_set.driver_data = d;
	q = blk_mq_init_queue(&d->tag_set);
	disk = alloc_disk(IDE_MINORS);
	if (!q || !disk) {
		pr_err("%s: no memory for its queue and disk: not registered\n", d->name);
		/* nothing registered yet: give both back (the queue would
		 * stay on the timeout scan otherwise), as ahci_add_disk does */
		blk_mq_destroy_queue(q);
		put_disk(disk);
		return -ENOMEM;
	}
	d->q = q;
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	q->nonrot = d->ata.nonrot;
	/*
	 * LBA28 counts at most 256 sectors.  LBA48 could do 65536; 1 MiB is
	 * a cap that keeps a PIO command (which holds the channel for every
	 * block) bounded and fits the PRD table: with the segment boundary
	 * below, no segment crosses 64 KiB, so each is one PRD (the builder
	 * still splits one that would, for other callers).
	 */
	blk_queue_max_hw_sectors(q, min(d->ata.max_sectors, (unsigned int)IDE_MAX_SECTORS));
	blk_queue_max_segments(q, IDE_MAX_SEGMENTS);
	blk_queue_max_segment_size(q, (unsigned int)ATA_PRD_BOUNDARY);
	blk_queue_segment_boundary(q, ATA_PRD_BOUNDARY - 1);
	/* SFF-8038i: PRD regions are word-aligned with even counts; the
	 * Linux SFF drivers ask 4-byte alignment of the PIIX: so do we. */
	blk_queue_dma_alignment(q, 3);
	blk_queue_write_cache(q, d->ata.wcache, false); /* FUA: emulated above */
	blk_queue_rq_timeout(q, ide_timeout_s * HZ);

	snprintf(disk->disk_name, sizeof(disk->disk_name), "%s", d->name);
	snprintf(disk->model, sizeof(disk->model), "%s", d->ata.model);
	disk->major = d->chan->index ? IDE_MAJOR_SECONDARY : IDE_MAJOR_PRIMARY;
	disk->first_minor = (int)d->unit * IDE_MINORS;
	disk->queue = q;
	disk->private_data = d;
	set_capacity(disk, d->ata.n_sectors);
	/* HDIO_GETGEO: what Linux 6.1 answers for the same disk, through
	 * libata (it has no other IDE driver), not the drive's own CHS */
	disk->getgeo = ide_getgeo;
	d->disk = disk;
	err = add_disk(disk);
	if (err) {
		pr_err("%s: add_disk failed (%d)\n", d->name, err);
		put_disk(disk);
		blk_mq_destroy_queue(q);
		d->disk = NULL;
		d->q = NULL;
	}
	return err;
}

/* Reset the channel and look at both positions (interrupts masked: nIEN). */
static void ide_probe_channel(struct ide_channel *c)
{
	u16 *id = kmalloc(ATA_ID_WORDS * sizeof(u16), GFP_KERNEL);
	u8 st;

	if (!id)
		return;
	c->selected = -1;
	st = ide_altstatus(c);
	if (st == 0xff) {
		pr_info("ide%u: floating bus (status 0xff): no devices\n", c->index);
		goto out;
	}
	/* Select the master before the reset, as Linux's ata_sff_softreset()
	 * does: the wait below polls the selected unit, and an absent slave
	 * left selected by the firmware reads status 0 while the reset runs. */
	ide_probe_select(c, 0);
	ide_devctl(c, ATA_SRST | ATA_NIEN);
	udelay(10);
	ide_devctl(c, ATA_NIEN);
	mdelay(2);
	st = ide_wait_clear(c, ATA_BUSY, IDE_RESET_TIMEOUT_MS * 1000ul);
	if (st & ATA_BUSY) {
		pr_warn("ide%u: busy after reset (status 0x%02x): ignored\n", c->index, st);
		goto out;
	}
	for (unsigned int unit = 0; unit < 2; unit++) {
		const char *pos = ide_position[c->index * 2 + unit];
		struct ide_device *d;
		int err = ide_identify(c, unit, id);

		if (err == IDE_PROBE_ATAPI) {
			pr_info("hd%c: ATAPI device on %s: not a disk, skipped\n",
				'a' + c->index * 2 + unit, pos);
			continue;
		}
		if (err)
			continue;
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			break;
		d->chan = c;
		d->unit = unit;
		snprintf(d->name, sizeof(d->name), "hd%c", 'a' + c->index * 2 + unit);
		if (ide_parse_identify(d, id)) {
			kfree(d);
			continue;
		}
		if (d->ata.multi_count > 1 && ide_set_multiple(c, d)) {
			pr_warn("%s: SET MULTIPLE MODE %u refused: one sector per block\n",
				d->name, d->ata.multi_count);
			d->ata.multi_count = 1;
		}
		c->devs[unit] = d;
	}
out:
	kfree(id);
}

/* Claim the interrupt, open the channel to interrupts, register disks. */
static void ide_start_channel(struct ide_channel *c)
{
	int err;

	if (!c->devs[0] && !c->devs[1])
		return;
	c->prd = dma_alloc_coherent(ATA_PRD_TABLE_BYTES, ATA_PRD_TABLE_BYTES, &c->prd_dma);
	if (!c->prd) {
		pr_warn("ide%u: no memory for the PRD table: PIO\n", c->index);
		for (unsigned int u = 0; u < 2; u++)
			if (c->devs[u])
				c->devs[u]->dma = false;
	}
	if (c->irq_shared)
		irq_set_level_triggered(c->irq, true);
	err = request_irq(c->irq, ide_interrupt, c->irq_shared ? IRQF_SHARED : 0,
			  c->index ? "ide1" : "ide0", c);
	if (err) {
		pr_err("ide%u: irq %u: %d: channel not used\n", c->index, c->irq, err);
		return;
	}
	if (c->bmdma_base)
		ide_bm_clear_status(c, ATA_DMA_INTR | ATA_DMA_ERR);
	(void)ide_read(c, ATA_REG_STATUS);
	ide_devctl(c, 0);                       /* nIEN clear: the device may interrupt */
	for (unsigned int u = 0; u < 2; u++)
		if (c->devs[u] && ide_register_disk(c->devs[u])) {
			kfree(c->devs[u]);      /* its queue and disk are gone too */
			c->devs[u] = NULL;
		}
}

static int ide_init_controller(struct pci_dev *pdev)
{
	u8 progif = (u8)(pdev->class & 0xff);
	u16 bm = 0;

	if (pci_enable_device(pdev))
		return -EIO;
	if ((progif & PCI_IDE_PROGIF_BUSMASTER) &&
	    (pci_resource_flags(pdev, 4) & IORESOURCE_IO) && pci_resource_len(pdev, 4) >= 16) {
		bm = (u16)pci_resource_start(pdev, 4);
		pci_set_master(pdev);
	}
	pr_info("%s: IDE controller, programming interface 0x%02x, bus master %s\n",
		pci_name(pdev), progif, bm ? "at BAR4" : "none");

	for (unsigned int i = 0; i < 2; i++) {
		struct ide_channel *c = &ide_channels[i];
		bool native = progif & (i ? PCI_IDE_PROGIF_SEC_NATIVE : PCI_IDE_PROGIF_PRI_NATIVE);

		c->index = i;
		spin_lock_init(&c->lock);
		c->reserved = -1;
		c->selected = -1;
		if (native) {
			/* BAR 2i: command block; BAR 2i+1: control block, alt status at +2 */
			c->cmd_base = (u16)pci_resource_start(pdev, 2 * i);
			c->ctl_base = (u16)pci_resource_start(pdev, 2 * i + 1) + 2;
			c->irq = pdev->irq;
			c->irq_shared = true;
			if (!c->cmd_base || !c->irq) {
				pr_warn("ide%u: native mode without BARs or irq: skipped\n", i);
				continue;
			}
		} else {
			c->cmd_base = ide_compat[i].cmd;
			c->ctl_base = ide_compat[i].ctl;
			c->irq = ide_compat[i].irq;
		}
		c->bmdma_base = bm ? (u16)(bm + i * ATA_BMDMA_CHANNEL_STRIDE) : 0;
		pr_info("ide%u: %s mode, command block 0x%x, control 0x%x, bus master 0x%x, irq %u\n",
			i, native ? "native" : "compatibility", c->cmd_base, c->ctl_base,
			c->bmdma_base, c->irq);
		ide_probe_channel(c);
	}
	ide_kick_task = kthread_run(ide_kickd, NULL, "ide_kickd");
	if (!ide_kick_task)
		return -ENOMEM;
	for (unsigned int i = 0; i < 2; i++)
		if (ide_channels[i].cmd_base)
			ide_start_channel(&ide_channels[i]);
	return 0;
}

static int __init ide_init(void)
{
	struct pci_dev *pdev;

	list_for_each_entry(pdev, &pci_devices, global_list) {
		if ((pdev->class >> 8) != PCI_CLASS_STORAGE_IDE)
			continue;
		if (ide_channels[0].cmd_base || ide_channels[1].cmd_base) {
			pr_info("%s: second IDE controller: not supported, ignored\n",
				pci_name(pdev));
			continue;
		}
		ide_init_controller(pdev);
	}
	return 0;
}
device_initcall(ide_init);

/* --- for the ata ktests ---------------------------------------------------- */

static struct ide_device *ide_find(const char *name)
{
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int u = 0; u < 2; u++) {
			struct ide_device *d = ide_channels[i].devs[u];

			if (d && !strcmp(d->name, name))
				return d;
		}
	return NULL;
}

int ide_disk_irq(const char *name)
{
	struct ide_device *d = ide_find(name);

	return d ? (int)d->chan->irq : -ENODEV;
}

/*
 * For the ata ktests: run ide_register_disk() again for the device behind
 * IDE disk name, under another name, as probing would.  The test arms a
 * fault point first (fail_alloc_disk, fail_add_disk), so the registration
 * fails and its unwinding is what runs.  Returns what ide_register_disk()
 * returned; on success the second disk stays registered (Spindle removes
 * no IDE disk), which only a broken fault point lets happen.
 */
int ide_register_disk_again(const char *name, const char *new_name)
{
	struct ide_device *src = ide_find(name), *d;
	int err;

	if (!src)
		return -ENODEV;
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	*d = *src;
	strlcpy(d->name, new_name, sizeof(d->name));
	memset(&d->tag_set, 0, sizeof(d->tag_set));
	d->q = NULL;
	d->disk = NULL;
	err = ide_register_disk(d);
	if (err)
		kfree(d);
	return err;
}
