// SPDX-License-Identifier: MIT
/*
 * pci.c - the NVMe PCI transport: QEMU's `-device nvme` (QEMU 7.2), one
 * controller per PCI function, disks nvme0n1, nvme0n2, ... (core.c).
 *
 * Where it sits: below the request layer (block/blk-mq.c), which hands
 * nvme_queue_rq() one request at a time with a tag; the tag (plus the
 * namespace's base) IS the command identifier the completion carries back.
 * Below us the controller fetches commands from a submission queue in RAM,
 * moves the data by DMA along the PRPs, writes a completion queue entry
 * and raises an interrupt; the handler completes the request
 * (blk_mq_complete_request_remote()) and, when it is to end on this CPU,
 * ends it itself.  core.c, beside us, builds the commands and
 * owns the namespaces; this file owns the queues and the registers.
 *
 * One command's life (docs/nvme.md draws a queue pair):
 *
 *   nvme_queue_rq(rq)         the queue pair of rq->mq_hctx (this CPU's),
 *                             cid = ns->cid_base + rq->tag
 *     nvme_setup_cmd()        core.c: Read/Write/Flush/Write Zeroes/DSM,
 *                             SLBA, NLB, FUA
 *     nvme_map_data()         request segments -> PRP1, PRP2 or a PRP list
 *                             (one segment: nvme_setup_prp_simple())
 *     nvme_sq_copy_cmd()      ring.c: copy to sq_cmds[sq_tail], tail++
 *     nvme_write_sq_db()      ring.c: wmb(), write the SQ tail doorbell --
 *                             for a batch's last request only (bd->last;
 *                             else nvme_commit_rqs(), if the batch stops)
 *   ... the controller fetches it, runs it, posts a CQE with our phase ...
 *   nvme_queue_irq()          the queue's own vector, on a CPU it serves
 *   (or, on a poll queue,
 *    nvme_poll()              its submitter, spinning in bio_poll())
 *     nvme_process_cq()       ring.c: while cqes[cq_head] has the
 *                             expected phase (dma_rmb() before the rest):
 *       nvme_handle_cqe()     rqs[cid] -> blk_mq_complete_request_remote():
 *                             to end here, onto the interrupt's batch;
 *                             else kblockd's (or, polled, the poller's)
 *                             head++ (phase flips at the wrap)
 *     CQ head doorbell        the controller may reuse those entries
 *     blk_mq_end_request_batch()  the batch ended, cq_lock dropped
 *
 * Controller states:
 *
 *   (firmware) --disable: CC.EN=0, wait CSTS.RDY=0--> DISABLED
 *   DISABLED --AQA/ASQ/ACQ, CC (EN=1), wait CSTS.RDY=1--> LIVE
 *   LIVE --a command times out--> Abort sent (LIVE); times out again -->
 *   RESETTING (queue_rq says busy; CC.EN=0, requests held are requeued,
 *        admin and I/O queues set up again) --> LIVE
 *   RESETTING --CSTS.CFS, all ones, RDY late, or nvme.max_retries resets
 *        without progress--> DEAD (disabled, every request in flight and
 *        every new one fails with an error)
 *
 * Supported: one admin queue and an I/O queue pair per CPU, or as many as
 * the controller grants (one per blk-mq hardware context, each with its
 * own locks), with MSI-X a vector per completion queue -- vector 0 the
 * admin queue's, vector i I/O queue i's, aimed at the CPUs that queue
 * serves (nvme_setup_io_queues) -- and with one vector only (MSI, or
 * INTx: pci=nomsi) one pair sharing vector 0 with the admin queue; PRPs with a PRP list page per command (a bounce
 * buffer for requests PRPs cannot describe), Read, Write (FUA), Flush,
 * Write Zeroes and Dataset Management (discard, one range a command) when
 * ONCS has them, several namespaces.
 * On a timeout, Abort, then a controller reset that requeues what was in
 * flight (nvme_timeout).
 * Poll queues (nvme.poll_queues=): more pairs after the default ones,
 * their CQs created with interrupts off (IEN=0), blk-mq's POLL hardware
 * contexts, reaped by their submitters through nvme_poll().
 * Not supported (yet): managed irq affinity, read queues, SGLs,
 * shutdown.
 *
 * Limits and why: 64-entry I/O queues, or fewer (nvme.io_queue_depth=):
 * 63 commands in flight, shared out between namespaces, so no SQ ever
 * overflows; 512 KiB per command
 * (MDTS if smaller), so a PRP list is one page and never chains; a
 * request whose segments leave a hole inside a memory page cannot be
 * described by PRPs (NVMe §4.3: every entry after the first starts a
 * page): it is copied through the queue's one bounce buffer, one such
 * request at a time (nvme_bounce_rq).
 *
 * Boot options: nvme.io_timeout=<seconds> (default 30);
 * nvme.io_queue_depth=<entries> (2 to 64, default 64);
 * nvme.max_retries=<n> (default 5); nvme.poll_queues=<n> (default 0);
 * fail_nvme_completion=; pci=nomsi.
 *
 * Locking (see docs/locking.md): per queue, sq_lock and cq_lock, both
 * with interrupts off, never nested, never two queues' at once; dev->admin_mutex serialises admin
 * commands and the failing of a controller (both may sleep).
 */
#define pr_fmt(fmt) "nvme: " fmt
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
#include <spindle/barrier.h>
#include <spindle/fault_inject.h>
#include <asm/io.h>
#include "nvme.h"

#define PCI_CLASS_STORAGE_EXPRESS 0x010802      /* NVM Express (prog-if 2) */

_Static_assert(NVME_IO_QUEUE_ENTRIES <= 64, "nvme_queue.aborted: one bit a command");

/*
 * fail_nvme_completion=<interval>,<probability>,<space>,<times>
 * (include/spindle/fault_inject.h): the driver ignores an I/O completion
 * queue entry as if it had never come -- a lost completion, for the
 * timeout, Abort and reset path (scenario nvme-reset).
 */
static DECLARE_FAULT_ATTR(fail_nvme_completion);

static int __init fail_nvme_completion_setup(const char *val)
{
	return setup_fault_attr(&fail_nvme_completion, val);
}
__setup("fail_nvme_completion=", fail_nvme_completion_setup);

static unsigned int nvme_nr_ctrls;              /* nvme0, nvme1, ... */

/* ---- registers ------------------------------------------------------------ */

static u64 nvme_read_cap(struct nvme_dev *dev)
{
	u32 lo = readl(&dev->bar->cap_lo);

	return (u64)readl(&dev->bar->cap_hi) << 32 | lo;
}

static void nvme_write_64(u32 *lo, u64 v)
{
	writel((u32)v, lo);                     /* NVMe §3.1: low half first */
	writel((u32)(v >> 32), lo + 1);
}

/*
 * nvme_wait_ready - wait for CSTS.RDY to follow CC.EN (NVMe §3.1.6,
 * §7.6.1): at most CAP.TO half-seconds (plus one, as Linux gives).  May
 * sleep.  A controller that reads all ones is gone; CFS with EN set means
 * it failed: neither is waited for.
 */
static int nvme_wait_ready(struct nvme_dev *dev, bool enabled)
{
	unsigned int ms = (NVME_CAP_TIMEOUT(dev->cap) + 1) * NVME_CAP_TO_UNIT_MS;
	u64 end = jiffies + msecs_to_jiffies(ms);
	u32 want = enabled ? NVME_CSTS_RDY : 0;

	for (;;) {
		u32 csts = readl(&dev->bar->csts);

		if (csts == ~0u) {
			pr_err("%s: reads all ones: the controller is gone\n", dev->name);
			return -ENODEV;
		}
		if (enabled && (csts & NVME_CSTS_CFS)) {
			pr_err("%s: controller fatal status (CSTS 0x%08x)\n", dev->name, csts);
			return -EIO;
		}
		if ((csts & NVME_CSTS_RDY) == want)
			return 0;
		if (time_after(jiffies, end)) {
			pr_err("%s: CSTS.RDY did not become %u within %u ms (CAP.TO)\n",
			       dev->name, enabled, ms);
			return -ETIMEDOUT;
		}
		msleep(1);
	}
}

/* Clear CC.EN: the controller drops every queue and command (§7.6.1). */
static int nvme_disable_ctrl(struct nvme_dev *dev)
{
	dev->ctrl_config &= ~NVME_CC_ENABLE;
	writel(dev->ctrl_config, &dev->bar->cc);
	return nvme_wait_ready(dev, false);
}

static int nvme_enable_ctrl(struct nvme_dev *dev)
{
	/* 4 KiB memory pages, the NVM command set, round robin, and the
	 * entry sizes of the I/O queues made later (§3.1.5, §7.6.1). */
	dev->ctrl_config = NVME_CC_CSS_NVM | 0u << NVME_CC_MPS_SHIFT |
			   NVME_CC_AMS_RR | NVME_CC_SHN_NONE |
			   NVME_NVM_IOSQES << NVME_CC_IOSQES_SHIFT |
			   NVME_NVM_IOCQES << NVME_CC_IOCQES_SHIFT | NVME_CC_ENABLE;
	writel(dev->ctrl_config, &dev->bar->cc);
	return nvme_wait_ready(dev, true);
}

/* ---- queues --------------------------------------------------------------- */

static int nvme_alloc_queue(struct nvme_dev *dev, struct nvme_queue *nvmeq,
			    u16 qid, u16 depth)
{
	nvmeq->dev = dev;
	nvmeq->qid = qid;
	nvmeq->q_depth = depth;
	spin_lock_init(&nvmeq->sq_lock);
	spin_lock_init(&nvmeq->cq_lock);
	/* queues are physically contiguous and page aligned (§4.1.1, PC=1) */
	nvmeq->sq_cmds = dma_alloc_coherent(depth * sizeof(struct nvme_command), 0,
					    &nvmeq->sq_dma);
	nvmeq->cqes = dma_alloc_coherent(depth * sizeof(struct nvme_completion), 0,
					 &nvmeq->cq_dma);
	if (!nvmeq->sq_cmds || !nvmeq->cqes)
		return -ENOMEM;
	/* doorbells: SQ y tail at 2y strides, CQ y head at 2y + 1 (§3.1.24) */
	nvmeq->q_db = (u32 *)((u8 *)dev->mmio + NVME_REG_DBS) + 2 * qid * dev->db_stride;
	nvmeq->sq_tail = 0;
	nvmeq->cq_head = 0;
	nvmeq->cq_phase = 1;    /* the controller's first pass writes P = 1 */
	return 0;
}

/* Per command identifier: the request it carries and a PRP list page. */
static int nvme_alloc_io_slots(struct nvme_queue *nvmeq)
{
	unsigned int n = nvmeq->q_depth;

	nvmeq->rqs = kzalloc(n * sizeof(*nvmeq->rqs), GFP_KERNEL);
	nvmeq->prp_lists = kzalloc(n * sizeof(*nvmeq->prp_lists), GFP_KERNEL);
	nvmeq->prp_dma = kzalloc(n * sizeof(*nvmeq->prp_dma), GFP_KERNEL);
	if (!nvmeq->rqs || !nvmeq->prp_lists || !nvmeq->prp_dma)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		nvmeq->prp_lists[i] = dma_alloc_coherent(NVME_CTRL_PAGE_SIZE, 0,
							 &nvmeq->prp_dma[i]);
		if (!nvmeq->prp_lists[i])
			return -ENOMEM;
	}
	/* Without it the driver still works; a request with a hole fails. */
	nvmeq->bounce = dma_alloc_coherent(NVME_MAX_XFER_BYTES, 0, &nvmeq->bounce_dma);
	if (!nvmeq->bounce)
		pr_warn("%s: no memory for a bounce buffer\n", nvmeq->dev->name);
	return 0;
}

static void nvme_free_queue(struct nvme_queue *nvmeq)
{
	if (nvmeq->prp_lists)
		for (unsigned int i = 0; i < nvmeq->q_depth; i++)
			if (nvmeq->prp_lists[i])
				dma_free_coherent(nvmeq->prp_lists[i], NVME_CTRL_PAGE_SIZE);
	if (nvmeq->bounce)
		dma_free_coherent(nvmeq->bounce, NVME_MAX_XFER_BYTES);
	kfree(nvmeq->prp_lists);
	kfree(nvmeq->prp_dma);
	kfree(nvmeq->rqs);
	if (nvmeq->sq_cmds)
		dma_free_coherent(nvmeq->sq_cmds, nvmeq->q_depth * sizeof(struct nvme_command));
	if (nvmeq->cqes)
		dma_free_coherent((void *)nvmeq->cqes,
				  nvmeq->q_depth * sizeof(struct nvme_completion));
	memset(nvmeq, 0, sizeof(*nvmeq));
}

/* __nvme_submit_cmd(), the SQ side of a queue pair: ring.c. */

/* ---- the bounce buffer ------------------------------------------------------ */

/* Copy between the request's segments and the bounce buffer. */
static void nvme_bounce_copy(struct nvme_queue *nvmeq, struct request *rq, bool to_bounce)
{
	u8 *b = nvmeq->bounce;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;

	rq_for_each_segment(bv, rq, bio, iter) {
		u8 *p = (u8 *)page_address(bv.bv_page) + bv.bv_offset;

		if (to_bounce)
			memcpy(b, p, bv.bv_len);
		else
			memcpy(p, b, bv.bv_len);
		b += bv.bv_len;
	}
}

/* A read's data goes back to its pages; the buffer is free again.  Called
 * by the completion under cq_lock (interrupt context: up to 512 KiB is
 * copied there, the price of a rare request). */
static void nvme_unbounce_rq(struct nvme_queue *nvmeq, struct request *rq, bool ok)
{
	if (ok && req_op(rq) == REQ_OP_READ)
		nvme_bounce_copy(nvmeq, rq, false);
	smp_wmb();              /* the copy before the buffer is seen free */
	WRITE_ONCE(nvmeq->bounce_rq, NULL);
}

/*
 * nvme_bounce_rq - describe rq's data by the bounce buffer instead: one
 * contiguous, page-aligned region, which PRPs always can.  Returns
 * BLK_STS_OK, BLK_STS_RESOURCE while another request holds the buffer
 * (the request layer retries after the next completion: that one's is
 * certain to come), or BLK_STS_IOERR without a buffer.
 */
static blk_status_t nvme_bounce_rq(struct nvme_queue *nvmeq, struct request *rq,
				   u16 cid, struct nvme_command *cmd)
{
	unsigned int len = blk_rq_bytes(rq), n;
	unsigned long flags;

	if (!nvmeq->bounce || len > NVME_MAX_XFER_BYTES)
		return BLK_STS_IOERR;
	spin_lock_irqsave(&nvmeq->sq_lock, flags);
	if (nvmeq->bounce_rq) {
		spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
		return BLK_STS_RESOURCE;
	}
	nvmeq->bounce_rq = rq;
	nvmeq->bounced++;
	spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
	if (req_op(rq) == REQ_OP_WRITE)
		nvme_bounce_copy(nvmeq, rq, true);
	n = (len + NVME_CTRL_PAGE_SIZE - 1) / NVME_CTRL_PAGE_SIZE;
	cmd->prp1 = nvmeq->bounce_dma;
	for (unsigned int i = 1; i < n; i++)
		nvmeq->prp_lists[cid][i - 1] = nvmeq->bounce_dma + i * NVME_CTRL_PAGE_SIZE;
	if (n == 2)
		cmd->prp2 = nvmeq->bounce_dma + NVME_CTRL_PAGE_SIZE;
	else if (n > 2)
		cmd->prp2 = nvmeq->prp_dma[cid];
	return BLK_STS_OK;
}

/* ---- completions ---------------------------------------------------------- */

/*
 * The requests this CPU's NVMe interrupt handler will end itself (Linux's
 * DEFINE_IO_COMP_BATCH in nvme_irq()), NULL outside the handler.  A
 * request that is to end on the interrupt's CPU -- the submitter's, as a
 * queue pair per CPU makes it -- is ended in the interrupt, as Linux's
 * nvme_pci_complete_batch() does, instead of by this CPU's kblockd: a
 * synchronous read's task is then woken by the interrupt itself, with
 * no kernel thread run in between (docs/nvme.md, "One read's
 * instructions").  They are ended after the CQ walk, outside cq_lock:
 * ending one runs the hardware queue, whose nvme_queue_rq() takes
 * sq_lock, and the two are never nested.  The list is per CPU because
 * nvme_process_cq() (ring.c, the queue-pair lab's) hands each entry to
 * nvme_handle_cqe() with no room for it; the handler runs with
 * interrupts off, so nothing else on this CPU sees it meanwhile.
 */
static DEFINE_PER_CPU(struct list_head *, nvme_irq_batch);
/* nvme_poll()'s batch, the same way, while it reaps with preemption off */
static DEFINE_PER_CPU(struct io_comp_batch *, nvme_poll_batch);

/* Walk nvmeq's CQ for its interrupt, then end what is to end here. */
static unsigned int nvme_irq_process_cq(struct nvme_queue *nvmeq)
{
	LIST_HEAD(batch);
	unsigned int found;

	this_cpu_write(nvme_irq_batch, &batch);
	found = nvme_process_cq(nvmeq);
	this_cpu_write(nvme_irq_batch, NULL);
	if (!list_empty(&batch))
		blk_mq_end_request_batch(&batch);
	return found;
}

/*
 * nvme_handle_cqe - one completion, copied out of the CQ by
 * nvme_process_cq() (ring.c) under cq_lock: the admin command's answer, or
 * the end of the I/O request its command identifier names.
 */
void nvme_handle_cqe(struct nvme_queue *nvmeq, const struct nvme_completion *cqe)
{
	u16 cid = cqe->command_id;
	u16 status = cqe->status >> 1;
	struct list_head *batch;
	struct request *rq;

	if (nvmeq->qid == 0) {
		/* the one synchronous admin command (admin_mutex) */
		if (cid != READ_ONCE(nvmeq->admin_cid)) {
			pr_warn("%s: late admin completion, id %u: ignored\n",
				nvmeq->dev->name, cid);
			return;
		}
		nvmeq->admin_cqe = *cqe;
		smp_wmb();      /* the entry before the flag (nvme_submit_sync_cmd) */
		WRITE_ONCE(nvmeq->admin_done, true);
		return;
	}
	if (cid >= nvmeq->q_depth || !(rq = nvmeq->rqs[cid])) {
		pr_warn("%s: invalid id %u completed on queue %u\n",
			nvmeq->dev->name, cid, nvmeq->qid);
		return;
	}
	if (should_fail(&fail_nvme_completion, 1)) {
		pr_warn("%s: completion of I/O %u QID %u dropped (fail_nvme_completion)\n",
			nvmeq->dev->name, cid, nvmeq->qid);
		return;
	}
	nvmeq->rqs[cid] = NULL;
	nvmeq->aborted &= ~(1ull << cid);
	/* the controller works: written only when it changes, or every
	 * completion on every CPU would write this line of the device's */
	if (READ_ONCE(nvmeq->dev->resets_in_row))
		WRITE_ONCE(nvmeq->dev->resets_in_row, 0);
	if (rq == nvmeq->bounce_rq)
		nvme_unbounce_rq(nvmeq, rq, !status);
	if ((status & 0x7ff) == NVME_SC_ABORT_REQ && !(status & NVME_STATUS_DNR)) {
		/* our Abort took it (a late command): it may run again */
		blk_mq_requeue_request(rq);
		return;
	}
	if (status)
		nvme_log_error(rq->q->queuedata, rq, status);
	if ((rq->cmd_flags & REQ_POLLED) &&
	    blk_mq_add_to_batch(rq, this_cpu_read(nvme_poll_batch), nvme_error_status(status)))
		return;         /* our poller's: blk_mq_poll() ends it */
	batch = this_cpu_read(nvme_irq_batch);
	if (!batch)     /* a poll, the timeout handler, a reset: not our interrupt */
		blk_mq_complete_request(rq, nvme_error_status(status));
	else if (!blk_mq_complete_request_remote(rq, nvme_error_status(status)))
		list_add_tail(&rq->queuelist, batch);   /* nvme_complete_batch() ends it */
}

/* nvme_process_cq(), the CQ side (phase tags, the head doorbell): ring.c. */

/*
 * nvme_irq - vector 0: the admin queue's, and I/O queue 1's too when the
 * controller has one vector only (INTx, MSI, pci=nomsi).  Interrupt
 * context, any CPU.  With INTx the line is level triggered and may be
 * shared: it stays up while a CQ holds entries past its head doorbell,
 * so a completion posted after our look raises it again.  MSI-X and MSI
 * are edges: the controller sends a new message for entries posted after
 * the last one, and we consume everything present each time.
 */
static irqreturn_t nvme_irq(int irq, void *dev_id)
{
	struct nvme_dev *dev = dev_id;
	unsigned int found = 0;

	(void)irq;
	found += nvme_process_cq(&dev->adminq);
	if (dev->nr_vecs == 1 && READ_ONCE(dev->nr_io_queues))
		found += nvme_irq_process_cq(&dev->ioqs[0]);
	return found ? IRQ_HANDLED : IRQ_NONE;
}

/*
 * nvme_queue_irq - an I/O queue's own MSI-X vector: it reaps its own CQ
 * only, on the CPU its affinity names -- one the queue serves -- so a
 * completion runs where its request was made, and two queues' interrupts
 * share no lock.
 */
static irqreturn_t nvme_queue_irq(int irq, void *data)
{
	(void)irq;
	return nvme_irq_process_cq(data) ? IRQ_HANDLED : IRQ_NONE;
}

/*
 * nvme_poll - blk-mq's poll op for a poll queue (Linux's nvme_poll): the
 * submitter, spinning in bio_poll(), reaps the CQ itself, under cq_lock
 * as the interrupt would -- there is no interrupt: the CQ was created
 * with IEN=0.  Several CPUs may poll one queue; cq_lock makes one of
 * them consume each entry.  Task context, does not sleep.
 */
static int nvme_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct nvme_ns *ns = hctx->queue->queuedata;
	struct nvme_queue *nvmeq = &ns->dev->ioqs[hctx->queue_num];
	unsigned int found;

	if (!nvmeq->polled || !nvme_cqe_pending(nvmeq))
		return 0;
	/* nvme_handle_cqe() finds iob by this CPU: stay on it */
	preempt_disable();
	this_cpu_write(nvme_poll_batch, iob);
	found = nvme_process_cq(nvmeq);
	this_cpu_write(nvme_poll_batch, NULL);
	preempt_enable();
	return (int)found;
}

/* ---- admin commands --------------------------------------------------------- */

int nvme_submit_sync_cmd(struct nvme_dev *dev, struct nvme_command *cmd, u32 *result)
{
	struct nvme_queue *aq = &dev->adminq;
	u64 end = jiffies + msecs_to_jiffies(NVME_ADMIN_TIMEOUT_MS);
	unsigned long flags;
	int ret;

	mutex_lock(&dev->admin_mutex);
	if (READ_ONCE(dev->dead)) {
		mutex_unlock(&dev->admin_mutex);
		return -ENODEV;
	}
	WRITE_ONCE(aq->admin_done, false);
	cmd->command_id = ++aq->admin_cid;      /* under admin_mutex */
	spin_lock_irqsave(&aq->sq_lock, flags);
	__nvme_submit_cmd(aq, cmd);
	spin_unlock_irqrestore(&aq->sq_lock, flags);
	/* The interrupt may consume the completion first; polling here as
	 * well lets probe run before (or without) a working interrupt. */
	while (!READ_ONCE(aq->admin_done)) {
		if (nvme_process_cq(aq))
			continue;
		if (time_after(jiffies, end)) {
			pr_err("%s: admin command 0x%02x timed out after %u ms\n",
			       dev->name, cmd->opcode, NVME_ADMIN_TIMEOUT_MS);
			mutex_unlock(&dev->admin_mutex);
			return -ETIMEDOUT;
		}
		msleep(1);
	}
	smp_rmb();      /* admin_cqe was written before admin_done */
	if (result)
		*result = aq->admin_cqe.result;
	ret = aq->admin_cqe.status >> 1 & 0x7ff;        /* SCT and SC */
	mutex_unlock(&dev->admin_mutex);
	return ret;
}

/*
 * Ask the controller for I/O CQ then SQ q->qid, on memory already
 * allocated, the CQ's interrupts on q->cq_vector (NVMe §5.3, §5.4): at
 * probe and after a reset.
 */
static int nvme_create_io_sq_cq(struct nvme_dev *dev, struct nvme_queue *q)
{
	struct nvme_command c;
	int err;

	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_create_cq;
	c.prp1 = q->cq_dma;
	c.cdw10 = (u32)(q->q_depth - 1) << 16 | q->qid;
	/* a poll queue's CQ raises no interrupt: IEN=0 (and IV 0, unused) */
	c.cdw11 = (u32)q->cq_vector << 16 | (q->polled ? 0 : NVME_CQ_IRQ_ENABLED) |
		  NVME_QUEUE_PHYS_CONTIG;
	err = nvme_submit_sync_cmd(dev, &c, NULL);
	if (err) {
		pr_err("%s: Create I/O Completion Queue %u failed (%d)\n", dev->name, q->qid, err);
		return err < 0 ? err : -EIO;
	}
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_create_sq;
	c.prp1 = q->sq_dma;
	c.cdw10 = (u32)(q->q_depth - 1) << 16 | q->qid;
	c.cdw11 = (u32)q->qid << 16 | NVME_SQ_PRIO_MEDIUM | NVME_QUEUE_PHYS_CONTIG;
	err = nvme_submit_sync_cmd(dev, &c, NULL);
	if (err) {
		pr_err("%s: Create I/O Submission Queue %u failed (%d)\n", dev->name, q->qid, err);
		return err < 0 ? err : -EIO;
	}
	return 0;
}

/* Every I/O queue pair, in QID order (a CQ before the SQ that names it). */
static int nvme_create_io_sq_cqs(struct nvme_dev *dev)
{
	for (unsigned int i = 0; i < dev->nr_io_queues; i++) {
		int err = nvme_create_io_sq_cq(dev, &dev->ioqs[i]);

		if (err)
			return err;
	}
	return 0;
}

/* ---- I/O ------------------------------------------------------------------ */

/*
 * nvme_map_data - describe rq's data with PRPs (NVMe §4.3).  Returns 0,
 * -EAGAIN when the segments leave a hole inside a page (the caller then
 * bounces the request), or -EINVAL for a segment that is not dword aligned.
 *
 * The rule: PRP1 points at the first byte (any dword offset in a page);
 * every later entry points at the start of a page, and the data runs on
 * to the end of each page but the last.  So a segment may begin off a
 * page boundary only if it continues the previous one in memory, and a
 * segment that stops short of its page's end must be the last.  The loop
 * walks the segments keeping `covered`, the end of the last page that
 * already has an entry: a segment that continues the one before needs
 * entries only for the pages past it.  One or two entries go in PRP1
 * and PRP2; more go into this command's PRP list page and PRP2 points
 * at that list.
 */
/*
 * nvme_setup_prp_simple - the common request first, as Linux's function of
 * that name: one segment, dword aligned, that ends within the page after
 * its first.  PRP1 is its address and PRP2, if it crosses into the next
 * page, that page: what the walk below would find, without the walk (the
 * iterator's advance alone cost some 60 instructions a 4 KiB read).
 * False: not that simple, walk.
 */
static bool nvme_setup_prp_simple(struct request *rq, struct nvme_command *cmd)
{
	const phys_addr_t page_mask = NVME_CTRL_PAGE_SIZE - 1;
	struct bio_vec bv;
	phys_addr_t addr;

	if (rq->nr_phys_segments != 1 || !rq->bio)
		return false;
	bv = bvec_iter_bvec(rq->bio->bi_io_vec, rq->bio->bi_iter);
	addr = page_to_phys(bv.bv_page) + bv.bv_offset;
	if (bv.bv_len != blk_rq_bytes(rq) || !bv.bv_len || (addr & 3) ||
	    (addr & page_mask) + bv.bv_len > 2 * NVME_CTRL_PAGE_SIZE)
		return false;
	cmd->prp1 = addr;
	if ((addr & page_mask) + bv.bv_len > NVME_CTRL_PAGE_SIZE)
		cmd->prp2 = (addr & ~page_mask) + NVME_CTRL_PAGE_SIZE;
	return true;
}

int nvme_map_data(struct nvme_queue *nvmeq, struct request *rq, u16 cid,
		  struct nvme_command *cmd)
{
	const phys_addr_t page_mask = NVME_CTRL_PAGE_SIZE - 1;
	u64 *list = nvmeq->prp_lists[cid];
	unsigned int n = 0, max = NVME_CTRL_PAGE_SIZE / sizeof(u64) + 1;
	phys_addr_t next = 0, covered = 0;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *bio;

	if (nvme_setup_prp_simple(rq, cmd))
		return 0;
	rq_for_each_segment(bv, rq, bio, iter) {
		phys_addr_t addr = page_to_phys(bv.bv_page) + bv.bv_offset;
		phys_addr_t end = addr + bv.bv_len;

		if ((addr & 3) || !bv.bv_len)
			return -EINVAL;                 /* §4.3: dword aligned */
		if (n == 0) {
			cmd->prp1 = addr;
			n = 1;
			covered = (addr & ~page_mask) + NVME_CTRL_PAGE_SIZE;
		} else if (addr != next) {
			if ((next & page_mask) || (addr & page_mask))
				return -EAGAIN;         /* a hole inside a page */
			covered = addr;
		}
		for (; covered < end; covered += NVME_CTRL_PAGE_SIZE) {
			if (n == max)
				return -EINVAL;
			list[n++ - 1] = covered;        /* entry n, in list[n-1] */
		}
		next = end;
	}
	if (n == 2)
		cmd->prp2 = list[0];
	else if (n > 2)
		cmd->prp2 = nvmeq->prp_dma[cid];
	return 0;
}

static blk_status_t nvme_queue_rq(struct request_queue *q, const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct nvme_ns *ns = q->queuedata;
	struct nvme_dev *dev = ns->dev;
	/* hardware context n is I/O queue n + 1: this CPU's queue pair */
	struct nvme_queue *nvmeq = &dev->ioqs[rq->mq_hctx->queue_num];
	struct nvme_command cmd;
	unsigned long flags;
	blk_status_t sts;
	u16 cid;

	if ((unsigned int)rq->tag >= ns->tag_set.queue_depth)
		return BLK_STS_IOERR;
	cid = ns->cid_base + rq->tag;
	/* a discard's range goes in this command's PRP list page, unused
	 * by a command that moves no data */
	sts = nvme_setup_cmd(ns, rq, &cmd, (struct nvme_dsm_range *)nvmeq->prp_lists[cid]);
	if (sts != BLK_STS_OK)
		return sts;
	if (req_op(rq) == REQ_OP_DISCARD)
		cmd.prp1 = nvmeq->prp_dma[cid];
	if (req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE) {
		int err = nvme_map_data(nvmeq, rq, cid, &cmd);

		if (err == -EAGAIN)
			sts = nvme_bounce_rq(nvmeq, rq, cid, &cmd);
		else if (err)
			sts = BLK_STS_IOERR;
		if (sts == BLK_STS_IOERR)
			pr_err("%s: request at sector %llu (%u bytes) cannot be described by PRPs\n",
			       ns->name, (unsigned long long)blk_rq_pos(rq), blk_rq_bytes(rq));
		if (sts != BLK_STS_OK)
			return sts;
	}
	cmd.command_id = cid;

	spin_lock_irqsave(&nvmeq->sq_lock, flags);
	if (READ_ONCE(dev->dead) || READ_ONCE(dev->resetting)) {
		/* nvme_quiesce() waits for us to leave: no command enters a
		 * ring once it returns */
		if (nvmeq->bounce_rq == rq)
			nvmeq->bounce_rq = NULL;
		spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
		/* after a reset nvme_restart_queues() runs the queues again */
		return dev->dead ? BLK_STS_IOERR : BLK_STS_RESOURCE;
	}
	blk_mq_start_request(rq);
	nvmeq->rqs[cid] = rq;                   /* before the doorbell: the CQE may follow at once */
	nvme_sq_copy_cmd(nvmeq, &cmd);
	if (bd->last)                           /* else the batch's last rings for it */
		nvme_write_sq_db(nvmeq);
	spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
	return BLK_STS_OK;
}

/*
 * A batch ended on a request that did not go (blk_mq_plug_issue_direct):
 * the ones before it, sent with bd->last false, are in the SQ, not yet
 * rung for (Linux's nvme_commit_rqs).
 */
static void nvme_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct nvme_ns *ns = hctx->queue->queuedata;
	struct nvme_dev *dev = ns->dev;
	struct nvme_queue *nvmeq = &dev->ioqs[hctx->queue_num];
	unsigned long flags;

	spin_lock_irqsave(&nvmeq->sq_lock, flags);
	/* not to a controller being reset or given up: the reset requeues
	 * what rqs[] holds and sets the SQ up empty (nvme_reset_ctrl) */
	if (!READ_ONCE(dev->dead) && !READ_ONCE(dev->resetting))
		nvme_write_sq_db(nvmeq);
	spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
}

/* Run every namespace's queue: requests told "busy" during a reset go now. */
static void nvme_restart_queues(struct nvme_dev *dev)
{
	for (unsigned int i = 0; i < dev->nr_ns; i++)
		blk_mq_restart_hw_queue(dev->ns[i]->disk->queue);
}

/*
 * nvme_quiesce - after dev->resetting or dev->dead was set: wait until no
 * nvme_queue_rq() is between its look at them and its doorbell.  Each
 * looks under its own queue's sq_lock, so taking and dropping every
 * queue's lock in turn is enough (Linux's blk_mq_quiesce_queue waits for
 * the dispatchers the same way).  Nothing shared enters queue_rq's path.
 */
static void nvme_quiesce(struct nvme_dev *dev)
{
	unsigned long flags;

	for (unsigned int i = 0; i < dev->nr_io_queues; i++) {
		spin_lock_irqsave(&dev->ioqs[i].sq_lock, flags);
		spin_unlock_irqrestore(&dev->ioqs[i].sq_lock, flags);
	}
}

/*
 * nvme_dev_fail - give the controller up: no new command reaches it, it is
 * disabled (which drops every queue and command, §7.6.1), and every
 * request it still held fails.  Under admin_mutex; may sleep.  The completions it posted
 * before the disable are consumed first: those requests ended well.
 */
static void nvme_dev_fail(struct nvme_dev *dev, const char *why)
{
	unsigned long flags;
	unsigned int failed = 0;

	assert_mutex_held(&dev->admin_mutex);   /* one caller at a time */
	if (dev->dead)
		return;
	WRITE_ONCE(dev->dead, true);
	WRITE_ONCE(dev->resetting, false);
	nvme_quiesce(dev);

	pr_err("%s: %s: disabling the controller, failing its I/O\n", dev->name, why);
	nvme_disable_ctrl(dev);
	for (unsigned int i = 0; i < dev->nr_io_queues; i++) {
		struct nvme_queue *q = &dev->ioqs[i];

		nvme_process_cq(q);
		spin_lock_irqsave(&q->cq_lock, flags);
		for (unsigned int cid = 0; cid < q->q_depth; cid++) {
			struct request *rq = q->rqs[cid];

			if (!rq)
				continue;
			q->rqs[cid] = NULL;
			if (blk_mq_complete_request(rq, BLK_STS_IOERR))
				failed++;
		}
		q->aborted = 0;
		WRITE_ONCE(q->bounce_rq, NULL);
		spin_unlock_irqrestore(&q->cq_lock, flags);
	}
	pr_err("%s: %u request(s) failed\n", dev->name, failed);
	nvme_restart_queues(dev);       /* what waited for a reset now fails */
}

/* Empty rings, as after allocation: the controller starts both at 0, and
 * its first pass writes phase 1 -- so old entries must not read as new. */
static void nvme_reset_queue(struct nvme_queue *nvmeq)
{
	unsigned long flags;

	spin_lock_irqsave(&nvmeq->sq_lock, flags);
	nvmeq->sq_tail = 0;
	spin_unlock_irqrestore(&nvmeq->sq_lock, flags);
	spin_lock_irqsave(&nvmeq->cq_lock, flags);      /* the interrupt may look */
	memset((void *)nvmeq->cqes, 0, nvmeq->q_depth * sizeof(struct nvme_completion));
	nvmeq->cq_head = 0;
	nvmeq->cq_phase = 1;
	spin_unlock_irqrestore(&nvmeq->cq_lock, flags);
}

/* The admin queue's registers, then CC.EN=1 and wait for CSTS.RDY. */
static int nvme_configure_admin_queue(struct nvme_dev *dev)
{
	struct nvme_queue *aq = &dev->adminq;

	writel((NVME_AQ_DEPTH - 1) << NVME_AQA_ACQS_SHIFT |
	       (NVME_AQ_DEPTH - 1) << NVME_AQA_ASQS_SHIFT, &dev->bar->aqa);
	nvme_write_64(&dev->bar->asq_lo, aq->sq_dma);
	nvme_write_64(&dev->bar->acq_lo, aq->cq_dma);
	return nvme_enable_ctrl(dev);
}

/*
 * nvme_reset_ctrl - disable the controller and bring it back, giving the
 * request layer back every request it held (Linux's nvme_dev_disable,
 * then nvme_reset_work).  Task context (kblockd's timeout handler, the
 * only caller: so one reset at a time); may sleep.
 *
 *   1. resetting: queue_rq answers "busy" -- no command enters the rings;
 *   2. CC.EN=0, wait for CSTS.RDY=0: the controller forgets every queue
 *      and command (§7.6.1; §7.3.2 controller reset);
 *   3. completions posted before the disable end their requests as usual;
 *      every other request still held, on any queue pair, is requeued (blk_mq_requeue_request):
 *      the block layer sends it again, first in line, with the data it
 *      had -- a write written twice writes the same data;
 *   4. empty rings, the admin queue, CC.EN=1; Create every I/O CQ and SQ
 *      pair again, each CQ on its own vector as before (the Number of
 *      Queues feature survives resets, §5.21.1.7);
 *   5. resetting ends and the queues run.
 * A controller that does not come back (CSTS.CFS, all ones, RDY late), or
 * nvme.max_retries resets in a row with no I/O completing in between, is
 * failed instead (nvme_dev_fail): its I/O ends with errors.
 */
static void nvme_reset_ctrl(struct nvme_dev *dev)
{
	unsigned int requeued = 0;
	unsigned long flags;
	int err;

	/* resets_in_row: kblockd counts up, a completion (any CPU) zeroes it */
	if (READ_ONCE(dev->resets_in_row) >= nvme_max_retries) {
		mutex_lock(&dev->admin_mutex);
		nvme_dev_fail(dev, "no progress after nvme.max_retries controller resets");
		mutex_unlock(&dev->admin_mutex);
		return;
	}
	WRITE_ONCE(dev->resets_in_row, READ_ONCE(dev->resets_in_row) + 1);
	if (READ_ONCE(dev->dead))       /* only this thread fails it */
		return;
	WRITE_ONCE(dev->resetting, true);
	nvme_quiesce(dev);

	err = nvme_disable_ctrl(dev);
	nvme_process_cq(&dev->adminq);
	for (unsigned int i = 0; i < dev->nr_io_queues; i++) {
		struct nvme_queue *q = &dev->ioqs[i];

		nvme_process_cq(q);
		spin_lock_irqsave(&q->cq_lock, flags);
		for (unsigned int cid = 0; cid < q->q_depth; cid++) {
			struct request *rq = q->rqs[cid];

			if (!rq)
				continue;
			q->rqs[cid] = NULL;
			if (rq == q->bounce_rq)
				WRITE_ONCE(q->bounce_rq, NULL); /* the write copies in again */
			blk_mq_requeue_request(rq);
			requeued++;
		}
		q->aborted = 0;
		spin_unlock_irqrestore(&q->cq_lock, flags);
	}

	if (!err) {
		nvme_reset_queue(&dev->adminq);
		for (unsigned int i = 0; i < dev->nr_io_queues; i++)
			nvme_reset_queue(&dev->ioqs[i]);
		err = nvme_configure_admin_queue(dev);
	}
	if (!err)
		err = nvme_create_io_sq_cqs(dev);
	if (err) {
		char why[48];

		snprintf(why, sizeof(why), "reset failed (%d)", err);
		mutex_lock(&dev->admin_mutex);
		nvme_dev_fail(dev, why);
		mutex_unlock(&dev->admin_mutex);
		return;
	}
	pr_warn("%s: controller reset, %u request(s) requeued\n", dev->name, requeued);
	WRITE_ONCE(dev->resetting, false);
	nvme_restart_queues(dev);
}

/*
 * nvme_timeout - a command outlived nvme.io_timeout (Linux's nvme_timeout).
 * Task context (kblockd), may sleep.  In order:
 *   - a controller that reads all ones or reports CSTS.CFS is reset at once;
 *   - a completion that reached the CQ without its interrupt is not late;
 *   - the first time: an Abort admin command for it (NVMe §5.1), and the
 *     timer runs again.  An aborted command completes with status
 *     "Command Abort Requested" and is requeued (nvme_handle_cqe); a
 *     controller may also decline (DW0 bit 0 set: QEMU always does);
 *   - the second time, or when the Abort itself fails: reset the
 *     controller (nvme_reset_ctrl), which requeues rq with the rest.
 */
static enum blk_eh_timer_return nvme_timeout(struct request *rq)
{
	struct nvme_ns *ns = rq->q->queuedata;
	struct nvme_dev *dev = ns->dev;
	struct nvme_queue *nvmeq = &dev->ioqs[rq->mq_hctx->queue_num];
	u16 cid = ns->cid_base + rq->tag;
	u32 csts = readl(&dev->bar->csts);
	struct nvme_command c;
	unsigned long flags;
	bool aborted;
	u32 result = 0;
	int err;

	if (READ_ONCE(dev->dead))
		return BLK_EH_DONE;             /* nvme_dev_fail ended it */
	if (csts == ~0u || (csts & NVME_CSTS_CFS)) {
		pr_warn("%s: controller is down; will reset: CSTS=0x%x\n", dev->name, csts);
		nvme_reset_ctrl(dev);
		return BLK_EH_DONE;
	}
	nvme_process_cq(nvmeq);
	if (READ_ONCE(rq->state) != MQ_RQ_IN_FLIGHT) {
		pr_warn("%s: I/O %u QID %u timeout, completion polled\n", dev->name, cid, nvmeq->qid);
		return BLK_EH_DONE;
	}
	spin_lock_irqsave(&nvmeq->cq_lock, flags);
	aborted = nvmeq->aborted & (1ull << cid);
	nvmeq->aborted |= 1ull << cid;
	spin_unlock_irqrestore(&nvmeq->cq_lock, flags);
	if (aborted) {
		pr_warn("%s: I/O %u QID %u timeout, reset controller\n", dev->name, cid, nvmeq->qid);
		nvme_reset_ctrl(dev);
		return BLK_EH_DONE;
	}
	pr_warn("%s: I/O %u QID %u timeout, aborting\n", dev->name, cid, nvmeq->qid);
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_abort_cmd;
	c.cdw10 = (u32)cid << 16 | nvmeq->qid;  /* CID 31:16, SQID 15:0 */
	err = nvme_submit_sync_cmd(dev, &c, &result);
	pr_warn("%s: Abort status: 0x%x%s\n", dev->name, err < 0 ? 0xffff : err,
		!err && (result & 1) ? ", command not aborted" : "");
	if (err) {
		pr_warn("%s: I/O %u QID %u timeout, reset controller\n", dev->name, cid, nvmeq->qid);
		nvme_reset_ctrl(dev);
		return BLK_EH_DONE;
	}
	return BLK_EH_RESET_TIMER;
}

const struct blk_mq_ops nvme_mq_ops = {
	.queue_rq = nvme_queue_rq,
	.commit_rqs = nvme_commit_rqs,
	.timeout = nvme_timeout,
	.poll = nvme_poll,
};

/* ---- probing ------------------------------------------------------------------ */

/*
 * Vector 0, for the admin queue at probe: MSI-X, MSI or INTx, whichever
 * the device and pci=nomsi allow.  Named nvme0q0 in /proc/interrupts.
 */
static int nvme_setup_admin_irq(struct nvme_dev *dev, unsigned int min_vecs,
				unsigned int max_vecs, unsigned int flags)
{
	int nvec, err;

	nvec = pci_alloc_irq_vectors(dev->pdev, min_vecs, max_vecs, flags);
	if (nvec < 0)
		return nvec;
	dev->nr_vecs = (unsigned int)nvec;
	dev->msi = dev->pdev->msi_enabled || dev->pdev->msix_enabled;
	dev->irq = pci_irq_vector(dev->pdev, 0);
	snprintf(dev->adminq.irqname, sizeof(dev->adminq.irqname), "%sq0", dev->name);
	err = (int)dev->irq <= 0 ? -ENODEV :
		request_irq(dev->irq, nvme_irq, dev->msi ? 0 : IRQF_SHARED,
			    dev->adminq.irqname, dev);
	if (err) {
		pci_free_irq_vectors(dev->pdev);
		dev->nr_vecs = 0;
	}
	return err;
}

static void nvme_free_irqs(struct nvme_dev *dev)
{
	if (!dev->nr_vecs)
		return;
	for (unsigned int i = 0; i < dev->nr_io_queues; i++)
		if (dev->ioqs[i].cq_vector)
			free_irq((unsigned int)pci_irq_vector(dev->pdev, dev->ioqs[i].cq_vector),
				 &dev->ioqs[i]);
	free_irq(dev->irq, dev);
	pci_free_irq_vectors(dev->pdev);
	dev->nr_vecs = 0;
}

/*
 * nvme_setup_io_queues - the I/O queue pairs and their vectors (Linux's
 * nvme_setup_io_queues).  Set Features granted nr_default + nr_poll
 * pairs.  Only the default ones need a vector: with MSI-X, vector 0
 * stays the admin queue's and default pair i (QID i) gets vector i, so
 * we ask for nr_default + 1 vectors and keep as many default pairs as
 * vectors came beyond the first.  Each default pair's vector is aimed at
 * the CPUs blk-mq maps to its hardware context (blk_mq_map_queues: the
 * same map every namespace's tag set gets), so its completions run on a
 * CPU it serves.  With one vector only (INTx, MSI, pci=nomsi, or MSI-X
 * short of two): one default pair, sharing vector 0 with the admin
 * queue, as before.  The poll pairs come after the default ones (QIDs
 * nr_default + 1 ...) with no vector at all: their CQs are created with
 * interrupts off, and bio_poll() reaps them.
 */
static int nvme_setup_io_queues(struct nvme_dev *dev, unsigned int nr, unsigned int nr_poll,
				unsigned int nsqa, unsigned int ncqa)
{
	struct blk_mq_queue_map map = { .nr_queues = 0 };
	int err;

	if (dev->pdev->msix_enabled) {
		/* again, with one vector per queue -- one default pair too:
		 * on vector 0 each of its interrupts would walk the admin CQ
		 * as well -- so release the probe's one */
		free_irq(dev->irq, dev);
		pci_free_irq_vectors(dev->pdev);
		dev->nr_vecs = 0;
		err = nvme_setup_admin_irq(dev, 2, nr + 1, PCI_IRQ_MSIX);
		if (err)
			err = nvme_setup_admin_irq(dev, 1, 1, PCI_IRQ_ALL_TYPES);
		if (err)
			return err;
	}
	nr = dev->nr_vecs > 1 ? min(nr, dev->nr_vecs - 1) : 1;
	dev->ioqs = kzalloc((nr + nr_poll) * sizeof(*dev->ioqs), GFP_KERNEL);
	if (!dev->ioqs)
		return -ENOMEM;
	dev->io_queues[HCTX_TYPE_DEFAULT] = nr;
	dev->io_queues[HCTX_TYPE_POLL] = nr_poll;
	pr_info("%s: %u/0/%u default/read/poll queues (controller allows %u SQ, %u CQ)\n",
		dev->name, nr, nr_poll, nsqa, ncqa);
	map.nr_queues = nr;
	blk_mq_map_queues(&map);
	for (unsigned int i = 0; i < nr + nr_poll; i++) {
		struct nvme_queue *q = &dev->ioqs[i];
		struct cpumask cpus = { 0 };
		int irq;

		err = nvme_alloc_queue(dev, q, (u16)(i + 1), dev->q_depth);
		if (!err)
			err = nvme_alloc_io_slots(q);
		if (err)
			return err;
		q->polled = i >= nr;
		/* nvme_irq (a shared vector 0, any CPU) and nvme_free_irqs()
		 * look at it: the queue is whole before it counts */
		smp_wmb();
		WRITE_ONCE(dev->nr_io_queues, i + 1);
		if (dev->nr_vecs == 1 || q->polled)
			continue;               /* vector 0, nvme_irq; or none */
		q->cq_vector = (u16)(i + 1);
		snprintf(q->irqname, sizeof(q->irqname), "%sq%u", dev->name, q->qid);
		irq = pci_irq_vector(dev->pdev, q->cq_vector);
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (map.mq_map[cpu] == i)
				cpumask_set_cpu(cpu, &cpus);
		err = irq < 0 ? irq : irq_set_affinity((unsigned int)irq, &cpus);
		if (!err)
			err = request_irq((unsigned int)irq, nvme_queue_irq, 0, q->irqname, q);
		if (err) {
			q->cq_vector = 0;       /* nothing for nvme_free_irqs() */
			return err;
		}
	}
	pr_info("%s: %u I/O queue pair(s), %u interrupt vector(s)\n",
		dev->name, nr + nr_poll, dev->nr_vecs);
	return nvme_create_io_sq_cqs(dev);
}

/* Map BAR 0, check CAP, disable, set the admin queue and its vector up,
 * enable. */
static int nvme_pci_enable(struct nvme_dev *dev)
{
	struct nvme_queue *aq = &dev->adminq;
	u32 vs;
	int err;

	dev->cap = nvme_read_cap(dev);
	if (readl(&dev->bar->csts) == ~0u) {
		pr_err("%s: registers read all ones\n", dev->name);
		return -ENODEV;
	}
	if (!(dev->cap & NVME_CAP_CSS_NVM) || NVME_CAP_MPSMIN(dev->cap) > 0) {
		pr_err("%s: no NVM command set or no 4 KiB pages (CAP 0x%016llx)\n",
		       dev->name, (unsigned long long)dev->cap);
		return -ENODEV;
	}
	/* as Linux: the smaller of nvme.io_queue_depth and CAP.MQES + 1
	 * (MQES is 0's based and at least 1: two entries at least) */
	dev->q_depth = (u16)min(NVME_CAP_MQES(dev->cap) + 1, nvme_io_queue_depth);
	dev->db_stride = 1u << NVME_CAP_STRIDE(dev->cap);
	dev->ctrl_config = readl(&dev->bar->cc);
	err = nvme_disable_ctrl(dev);
	if (err)
		return err;
	err = nvme_alloc_queue(dev, aq, 0, NVME_AQ_DEPTH);
	if (err)
		return err;
	vs = readl(&dev->bar->vs);
	pr_info("%s: %s: NVMe %u.%u, CAP.MQES %u, CAP.TO %u ms, doorbell stride %u bytes, "
		"I/O queues of %u entries\n",
		dev->name, pci_name(dev->pdev), vs >> 16, (vs >> 8) & 0xff,
		NVME_CAP_MQES(dev->cap) + 1,
		NVME_CAP_TIMEOUT(dev->cap) * NVME_CAP_TO_UNIT_MS, 4 * dev->db_stride,
		dev->q_depth);
	/*
	 * The vector before CC.EN, as Linux orders it: a controller may bind
	 * the admin CQ's interrupt when it is enabled -- QEMU's does, and
	 * sends no MSI-X message for a CQ created while MSI-X was off.
	 */
	err = nvme_setup_admin_irq(dev, 1, 1, PCI_IRQ_ALL_TYPES);
	if (err) {
		pr_err("%s: no interrupt: %d\n", dev->name, err);
		return err;
	}
	pr_info("%s: irq %u (%s)\n", dev->name, dev->irq,
		dev->pdev->msix_enabled ? "MSI-X" : dev->pdev->msi_enabled ? "MSI" : "INTx");
	return nvme_configure_admin_queue(dev);
}

/*
 * The controllers that need a quirk, by PCI IDs (Linux's nvme_id_table
 * driver_data).  QEMU's emulated controller, Red Hat's 1b36:0010, drops
 * a Write's FUA bit: hw/nvme/ctrl.c's nvme_blk_write() passes no
 * BDRV_REQ_FUA to the backend, whatever CDW12 says.
 */
static const struct {
	u16 vendor, device;
	unsigned int quirks;
} nvme_quirk_ids[] = {
	{ 0x1b36, 0x0010, NVME_QUIRK_IGNORES_FUA },
};

static unsigned int nvme_pci_quirks(const struct pci_dev *pdev)
{
	for (size_t i = 0; i < ARRAY_SIZE(nvme_quirk_ids); i++)
		if (nvme_quirk_ids[i].vendor == pdev->vendor &&
		    nvme_quirk_ids[i].device == pdev->device)
			return nvme_quirk_ids[i].quirks;
	return 0;
}

static int nvme_probe(struct pci_dev *pdev)
{
	struct nvme_dev *dev;
	unsigned int nr_default = min(num_online_cpus(), (unsigned int)NVME_MAX_IO_QUEUES);
	unsigned int nr_io_queues = nr_default + nvme_poll_queues, nr_poll, nsqa = 0, ncqa = 0;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->pdev = pdev;
	dev->quirks = nvme_pci_quirks(pdev);
	dev->instance = nvme_nr_ctrls;
	snprintf(dev->name, sizeof(dev->name), "nvme%d", dev->instance);
	mutex_init(&dev->admin_mutex);

	err = pci_enable_device(pdev);
	if (err)
		goto fail;
	pci_set_master(pdev);
	dev->mmio = pci_iomap(pdev, 0, 0);
	if (!dev->mmio) {
		pr_err("%s: cannot map BAR 0\n", pci_name(pdev));
		err = -ENOMEM;
		goto fail;
	}
	dev->bar = dev->mmio;
	dev->identify = dma_alloc_coherent(NVME_IDENTIFY_DATA_SIZE, 0, &dev->identify_dma);
	if (!dev->identify) {
		err = -ENOMEM;
		goto fail_unmap;
	}
	err = nvme_pci_enable(dev);
	if (!err)
		err = nvme_init_identify(dev);
	if (!err)
		err = nvme_set_queue_count(dev, &nr_io_queues, &nsqa, &ncqa);
	if (!err) {
		/*
		 * Granted fewer than asked: the poll queues give way first,
		 * and at least one default queue stays (Linux's
		 * nvme_setup_io_queues: poll_queues = min(poll, granted - 1)).
		 */
		nr_poll = min(nvme_poll_queues, nr_io_queues - 1);
		nr_default = nr_io_queues - nr_poll;
		err = nvme_setup_io_queues(dev, nr_default, nr_poll, nsqa, ncqa);
	}
	if (err)
		goto fail_irq;
	nvme_nr_ctrls++;
	nvme_sysfs_register(dev);       /* the controller stays: never removed */
	nvme_scan_ns(dev);
	return 0;

fail_irq:
	nvme_disable_ctrl(dev);         /* no interrupt, no DMA after the frees */
	nvme_free_irqs(dev);            /* none held: nothing */
	for (unsigned int i = 0; i < dev->nr_io_queues; i++)
		nvme_free_queue(&dev->ioqs[i]);
	kfree(dev->ioqs);
	nvme_free_queue(&dev->adminq);
	dma_free_coherent(dev->identify, NVME_IDENTIFY_DATA_SIZE);
fail_unmap:
	pci_iounmap(pdev, dev->mmio);
fail:
	kfree(dev);
	return err;
}

static int __init nvme_init(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_class(PCI_CLASS_STORAGE_EXPRESS, pdev)) != NULL) {
		int err = nvme_probe(pdev);

		if (err)
			pr_err("%s: not used: %d\n", pci_name(pdev), err);
	}
	return 0;
}
device_initcall(nvme_init);
