// SPDX-License-Identifier: MIT
/*
 * ring.c - an NVMe queue pair's two rings: putting a command into the
 * submission queue (SQ) and taking completions out of the completion
 * queue (CQ).  The rest of the transport (pci.c) allocates the rings,
 * creates them on the controller and decides what goes in; this file is
 * only the protocol between host and controller on the two rings, which
 * is why it is apart: it touches nothing but the queue, two doorbells
 * and nvme_handle_cqe(), so the host Check suite tests/unit/check_nvme_ring.c
 * compiles it too, against a model of the controller that sees memory as
 * a device would (the doorbell write, the barriers) -- the ordering a
 * QEMU run can never show.
 *
 *   host                                    controller
 *   sq_cmds[sq_tail] = cmd       (for each command of a batch)
 *   sq_tail = (sq_tail + 1) % q_depth
 *   wmb()          the entries before ...
 *   SQ y Tail Doorbell = sq_tail  ------>   fetches sq_head .. sq_tail - 1
 *                                           runs them, then for each
 *                                   <-----  cqes[its tail] = {cid, status, P}
 *                                           (P inverted on every pass) + IRQ
 *   while cqes[cq_head].P == cq_phase:
 *       dma_rmb()  ... the tag before the rest of the entry
 *       copy it, cq_head++ (wrap: cq_phase ^= 1)
 *       nvme_handle_cqe()
 *   CQ y Head Doorbell = cq_head    ------>   those entries may be reused
 *
 * Doorbells (NVMe 1.4 §3.1.24, §3.1.25): SQ y Tail at BAR0 + 0x1000 +
 * (2y) * (4 << CAP.DSTRD), CQ y Head at (2y + 1) * (4 << CAP.DSTRD);
 * nvmeq->q_db is queue y's SQ tail doorbell, dev->db_stride the stride in
 * u32s, so the CQ head doorbell is q_db + db_stride.
 *
 * Locking: nvme_sq_copy_cmd() and nvme_write_sq_db() under sq_lock,
 * nvme_process_cq() takes cq_lock (interrupts off; any context),
 * nvme_cqe_pending() takes none.
 */
#include <spindle/types.h>
#include <spindle/string.h>
#include <spindle/compiler.h>
#include <spindle/barrier.h>
#include <spindle/spinlock.h>
#include <asm/io.h>
#include "nvme.h"

/*
 * Submission is two steps, as in Linux's pci.c: nvme_sq_copy_cmd() puts a
 * command in the SQ, nvme_write_sq_db() tells the controller of every
 * command put there so far.  Between the two the commands sit in memory
 * the controller does not read yet, so a batch needs one doorbell: the
 * block layer says which request is a batch's last (bd->last), and
 * nvme_queue_rq() rings for it alone -- one MMIO write, where each is a
 * VM exit under a hypervisor, for what may be dozens of commands.  Both
 * under sq_lock; neither sleeps.  The ring never overflows: blk-mq hands
 * out fewer tags than q_depth (nvme_scan_ns), and the admin queue has one
 * command at a time -- so, unlike Linux's nvme_write_sq_db(), no check
 * for a ring filling up with commands not yet rung for.
 */

/* nvme_sq_copy_cmd - copy @cmd into the SQ's tail slot; advance the tail. */
void nvme_sq_copy_cmd(struct nvme_queue *nvmeq, const struct nvme_command *cmd)
{
	assert_spin_locked(&nvmeq->sq_lock);
	/* LAB 10 BEGIN */
	memcpy(&nvmeq->sq_cmds[nvmeq->sq_tail], cmd, sizeof(*cmd));
	if (++nvmeq->sq_tail == nvmeq->q_depth)
		nvmeq->sq_tail = 0;
	/* LAB 10 END: (void)cmd; */
}

/*
 * nvme_write_sq_db - write the tail to the SQ tail doorbell.  The
 * controller may fetch the entries the moment it is written: their
 * copies must be visible to it by then (wmb(); smp_wmb() orders against
 * other CPUs only).
 */
void nvme_write_sq_db(struct nvme_queue *nvmeq)
{
	assert_spin_locked(&nvmeq->sq_lock);
	/* LAB 10 BEGIN */
	wmb();          /* the entries' stores before the doorbell's */
	writel(nvmeq->sq_tail, nvmeq->q_db);
	/* LAB 10 END */
}

/* One command, rung for at once: the admin queue's, and a test's. */
void __nvme_submit_cmd(struct nvme_queue *nvmeq, const struct nvme_command *cmd)
{
	nvme_sq_copy_cmd(nvmeq, cmd);
	nvme_write_sq_db(nvmeq);
}

/* A completion queue entry out of DMA memory into a plain one. */
static void nvme_copy_cqe(struct nvme_completion *to, const volatile struct nvme_completion *from)
{
	to->result = from->result;
	to->rsvd = from->rsvd;
	to->sq_head = from->sq_head;
	to->sq_id = from->sq_id;
	to->command_id = from->command_id;
	to->status = from->status;
}

/* Is the entry at cq_head new: does its Phase Tag equal cq_phase?  A look
 * without cq_lock is allowed: a stale answer only costs a round (Linux's
 * nvme_cqe_pending). */
bool nvme_cqe_pending(struct nvme_queue *nvmeq)
{
	volatile struct nvme_completion *v = &nvmeq->cqes[READ_ONCE(nvmeq->cq_head)];

	return (v->status & NVME_CQE_PHASE) == READ_ONCE(nvmeq->cq_phase);
}

/*
 * nvme_process_cq - consume every new completion queue entry, then tell
 * the controller with the CQ head doorbell.  Any context; takes cq_lock.
 * Returns the entries consumed.
 *
 * Why the phase tag: the host never learns the controller's CQ tail from
 * a register.  Instead each entry's Phase Tag is written inverted on
 * every pass through the queue (NVMe §4.6, "Completion Queue Entry"), so
 * the entry at cq_head is new exactly when its tag equals cq_phase -- the
 * value this pass writes.  At the wrap the host flips cq_phase: the old
 * entries, still holding the previous pass's tag, now read as old.  The
 * read barrier keeps the other fields' loads after the tag's: the tag
 * may be new while a load made before it saw the rest of an old entry.
 * The head doorbell is written once, after the batch: each write is an
 * MMIO store (slow), and it hands the slots back to the controller, which
 * may overwrite them at once -- never before they are read.
 */
unsigned int nvme_process_cq(struct nvme_queue *nvmeq)
{
	unsigned long flags;
	unsigned int found = 0;

	spin_lock_irqsave(&nvmeq->cq_lock, flags);
	/* LAB 10 BEGIN */
	while (nvme_cqe_pending(nvmeq)) {
		struct nvme_completion cqe;

		dma_rmb();      /* the Phase Tag's load before the other fields' */
		nvme_copy_cqe(&cqe, &nvmeq->cqes[nvmeq->cq_head]);
		if (++nvmeq->cq_head == nvmeq->q_depth) {
			nvmeq->cq_head = 0;
			nvmeq->cq_phase ^= 1;
		}
		nvme_handle_cqe(nvmeq, &cqe);
		found++;
	}
	if (found)
		writel(nvmeq->cq_head, nvmeq->q_db + nvmeq->dev->db_stride);
	/* LAB 10 END:
	 * (void)nvme_copy_cqe;
	 */
	nvmeq->completions += found;
	spin_unlock_irqrestore(&nvmeq->cq_lock, flags);
	return found;
}
