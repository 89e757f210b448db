// SPDX-License-Identifier: MIT
/*
 * core.c - what any NVMe transport shares (Linux's drivers/nvme/host/
 * core.c): learning the controller (Identify Controller), asking for I/O
 * queues (Set Features, Number of Queues), finding the namespaces
 * (Identify, Active Namespace ID list, Identify Namespace) and giving
 * each a disk, turning a request into an NVM command, and turning a
 * completion's status into a blk_status_t with the log line Linux prints.
 *
 * Where it sits: called by the PCI transport (drivers/nvme/host/pci.c),
 * which owns the queues and runs the admin commands built here with
 * nvme_submit_sync_cmd().  Above the disks: the block layer, as for
 * every other driver.
 *
 * Names, as Linux's: the controller nvme<i>, namespace <nsid> of it the
 * disk nvme<i>n<nsid>, its partitions nvme<i>n<nsid>p<k> (block/genhd.c
 * adds the 'p' after a name ending in a digit).  Major 259, Linux's
 * "blkext", with 16 minors per disk.
 *
 * Everything here runs in task context at probe, except nvme_setup_cmd,
 * nvme_error_status and nvme_log_error, which do not sleep (queue_rq and
 * the interrupt handler call them).
 */
#define pr_fmt(fmt) "nvme: " fmt
#include <uapi/linux/hdreg.h>
#include <spindle/blkdev.h>
#include <spindle/blk_mq.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include "nvme.h"

#define NVME_MAJOR              259     /* BLOCK_EXT_MAJOR in Linux */
#define NVME_MINORS             16      /* nvme0n1, nvme0n1p1..p15 */

unsigned int nvme_io_timeout_s = NVME_IO_TIMEOUT_S;
static unsigned int nvme_nr_disks;      /* minors: disk i has 16 * i.. */

static int __init nvme_io_timeout_setup(const char *val)
{
	unsigned int s;

	if (kstrtouint(val, 0, &s) || !s)
		return -EINVAL;
	nvme_io_timeout_s = s;
	return 0;
}
__setup("nvme.io_timeout=", nvme_io_timeout_setup);

unsigned int nvme_max_retries = NVME_MAX_RETRIES;

static int __init nvme_max_retries_setup(const char *val)
{
	return kstrtouint(val, 0, &nvme_max_retries) ? -EINVAL : 0;
}
__setup("nvme.max_retries=", nvme_max_retries_setup);

/*
 * nvme.poll_queues=<n> (Linux's nvme module parameter poll_queues, 0 by
 * default): n more I/O queue pairs whose completion queues raise no
 * interrupt, for polled I/O (RWF_HIPRI, io_uring's IOPOLL).  At most
 * NVME_MAX_POLL_QUEUES; the controller may grant fewer (nvme_probe).
 */
unsigned int nvme_poll_queues;

static int __init nvme_poll_queues_setup(const char *val)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n > NVME_MAX_POLL_QUEUES)
		return -EINVAL;
	nvme_poll_queues = n;
	return 0;
}
__setup("nvme.poll_queues=", nvme_poll_queues_setup);

/*
 * nvme.io_queue_depth=<n> (Linux's nvme module parameter io_queue_depth):
 * entries in each I/O submission and completion queue, n - 1 commands
 * in flight per queue pair.  Linux takes 2 to 4095 and defaults to 1024;
 * here at most NVME_IO_QUEUE_ENTRIES, the default (nvme_queue.aborted has
 * a bit per command).  Small queues wrap often: lab 10 boots with 4.  The
 * controller's CAP.MQES may lower it (nvme_pci_enable).
 */
unsigned int nvme_io_queue_depth = NVME_IO_QUEUE_ENTRIES;

static int __init nvme_io_queue_depth_setup(const char *val)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < NVME_PCI_MIN_QUEUE_SIZE || n > NVME_IO_QUEUE_ENTRIES)
		return -EINVAL;
	nvme_io_queue_depth = n;
	return 0;
}
__setup("nvme.io_queue_depth=", nvme_io_queue_depth_setup);

/* An Identify string: ASCII, space padded, not terminated (§1.5). */
static void nvme_copy_id_string(char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	dst[len] = 0;
	while (len && (dst[len - 1] == ' ' || dst[len - 1] == 0))
		dst[--len] = 0;
}

static int nvme_identify(struct nvme_dev *dev, u32 nsid, u8 cns)
{
	struct nvme_command c;

	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	c.nsid = nsid;
	c.prp1 = dev->identify_dma;             /* 4 KiB, page aligned: PRP1 only */
	c.cdw10 = cns;
	memset(dev->identify, 0, NVME_IDENTIFY_DATA_SIZE);
	return nvme_submit_sync_cmd(dev, &c, NULL);
}

int nvme_init_identify(struct nvme_dev *dev)
{
	const struct nvme_id_ctrl *id = dev->identify;
	u32 max_bytes = NVME_MAX_XFER_BYTES;
	int err = nvme_identify(dev, 0, NVME_ID_CNS_CTRL);

	if (err) {
		pr_err("%s: Identify Controller failed (%d)\n", dev->name, err);
		return err < 0 ? err : -EIO;
	}
	nvme_copy_id_string(dev->serial, id->sn, sizeof(id->sn));
	nvme_copy_id_string(dev->model, id->mn, sizeof(id->mn));
	nvme_copy_id_string(dev->firmware_rev, id->fr, sizeof(id->fr));
	/* MDTS is in units of the minimum memory page size, 4 KiB here */
	if (id->mdts && id->mdts < 20 && (NVME_CTRL_PAGE_SIZE << id->mdts) < max_bytes)
		max_bytes = NVME_CTRL_PAGE_SIZE << id->mdts;
	dev->max_hw_sectors = max_bytes >> SECTOR_SHIFT;
	dev->nn = id->nn;
	dev->oncs = id->oncs;
	dev->vwc = id->vwc & NVME_CTRL_VWC_PRESENT;
	pr_info("%s: %s, serial %s, firmware %s, %u namespace(s), max transfer %u KiB, write cache %s\n",
		dev->name, dev->model, dev->serial, dev->firmware_rev, dev->nn,
		max_bytes >> 10, dev->vwc ? "on" : "off");
	if (dev->vwc && (dev->quirks & NVME_QUIRK_IGNORES_FUA))
		pr_info("%s: quirk: the controller ignores FUA; a FUA write is followed by a Flush\n",
			dev->name);
	pr_info("%s: Dataset Management %s, Write Zeroes %s (ONCS 0x%04x)\n", dev->name,
		dev->oncs & NVME_CTRL_ONCS_DSM ? "yes" : "no",
		dev->oncs & NVME_CTRL_ONCS_WRITE_ZEROES ? "yes" : "no", dev->oncs);
	return 0;
}

/*
 * /sys/class/nvme/nvme0/{model,serial,firmware_rev}: the Identify
 * Controller strings as Linux's nvme_sysfs_show_*() print them, the
 * padding spaces stripped, one newline.
 */
static int nvme_show_model(void *d, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", ((struct nvme_dev *)d)->model);
}

static int nvme_show_serial(void *d, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", ((struct nvme_dev *)d)->serial);
}

static int nvme_show_firmware_rev(void *d, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", ((struct nvme_dev *)d)->firmware_rev);
}

static const struct class_attr nvme_ctrl_attrs[] = {
	{ .name = "model", .show = nvme_show_model },
	{ .name = "serial", .show = nvme_show_serial },
	{ .name = "firmware_rev", .show = nvme_show_firmware_rev },
};

void nvme_sysfs_register(struct nvme_dev *dev)
{
	int err;

	dev->cdev.class_name = "nvme";
	strlcpy(dev->cdev.name, dev->name, sizeof(dev->cdev.name));
	dev->cdev.attrs = nvme_ctrl_attrs;
	dev->cdev.nr_attrs = ARRAY_SIZE(nvme_ctrl_attrs);
	dev->cdev.drvdata = dev;
	err = class_device_register(&dev->cdev);
	if (err)
		pr_warn("%s: not in /sys/class/nvme (%d)\n", dev->name, err);
}

/*
 * Ask for *count I/O queue pairs (Set Features, Number of Queues, NVMe
 * §5.21.1.7); the controller answers with how many it allocated, both
 * counts 0's based.  *count becomes what we may use.
 */
int nvme_set_queue_count(struct nvme_dev *dev, unsigned int *count, unsigned int *nsqa,
			 unsigned int *ncqa)
{
	struct nvme_command c;
	u32 q = *count - 1, result = 0;
	int err;

	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_set_features;
	c.cdw10 = NVME_FEAT_NUM_QUEUES;
	c.cdw11 = q << 16 | q;
	err = nvme_submit_sync_cmd(dev, &c, &result);
	if (err) {
		pr_err("%s: Set Features (Number of Queues) failed (%d)\n", dev->name, err);
		return err < 0 ? err : -EIO;
	}
	*nsqa = (result & 0xffff) + 1;
	*ncqa = (result >> 16) + 1;
	*count = min(*count, min(*nsqa, *ncqa));
	return 0;
}

/* HDIO_GETGEO: 64 heads, 32 sectors, the cylinders of 1 MiB that fit,
 * as Linux's nvme_getgeo() (an NVMe drive has no geometry of its own) */
static void nvme_getgeo(struct gendisk *disk, struct hd_geometry *geo)
{
	geo->heads = 1 << 6;
	geo->sectors = 1 << 5;
	geo->cylinders = (unsigned short)(get_capacity(disk) >> 11);
}

/* Register namespace @nsid as a disk; @depth tags from CID @cid_base. */
static int nvme_alloc_ns(struct nvme_dev *dev, u32 nsid, u16 cid_base, unsigned int depth)
{
	const struct nvme_id_ns *id = dev->identify;
	struct request_queue *q;
	struct nvme_ns *ns;
	int err = nvme_identify(dev, nsid, NVME_ID_CNS_NS);
	unsigned int ds;

	if (err) {
		pr_err("%s: Identify Namespace %u failed (%d)\n", dev->name, nsid, err);
		return err < 0 ? err : -EIO;
	}
	if (!id->nsze)
		return -ENODEV;                 /* not active */
	ds = id->lbaf[id->flbas & NVME_NS_FLBAS_LBA_MASK].ds;
	if (ds < SECTOR_SHIFT || ds > 12 || id->lbaf[id->flbas & NVME_NS_FLBAS_LBA_MASK].ms) {
		pr_err("%s: namespace %u: LBA format 2^%u bytes with %u bytes of metadata: not supported\n",
		       dev->name, nsid, ds, id->lbaf[id->flbas & NVME_NS_FLBAS_LBA_MASK].ms);
		return -EOPNOTSUPP;
	}
	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	ns->dev = dev;
	ns->nsid = nsid;
	ns->lba_shift = ds;
	ns->nsze = id->nsze;
	ns->cid_base = cid_base;
	snprintf(ns->name, sizeof(ns->name), "%sn%u", dev->name, nsid);

	ns->tag_set.ops = &nvme_mq_ops;
	ns->tag_set.queue_depth = depth;
	ns->tag_set.nr_hw_queues = dev->nr_io_queues;   /* hctx n: I/O queue n + 1 */
	ns->tag_set.driver_data = ns;
	if (dev->io_queues[HCTX_TYPE_POLL]) {
		/* Linux's nvme_pci_map_queues: the default queues, then the poll
		 * ones, each map spread over the CPUs on its own */
		struct blk_mq_queue_map *map = ns->tag_set.map;

		ns->tag_set.nr_maps = HCTX_MAX_TYPES;
		map[HCTX_TYPE_DEFAULT].nr_queues = dev->io_queues[HCTX_TYPE_DEFAULT];
		map[HCTX_TYPE_READ].queue_offset = dev->io_queues[HCTX_TYPE_DEFAULT];
		map[HCTX_TYPE_POLL].nr_queues = dev->io_queues[HCTX_TYPE_POLL];
		map[HCTX_TYPE_POLL].queue_offset = dev->io_queues[HCTX_TYPE_DEFAULT];
	}
	q = blk_mq_init_queue(&ns->tag_set);
	ns->disk = alloc_disk(NVME_MINORS);
	if (!q || !ns->disk) {
		pr_err("%s: no memory for its queue and disk: not registered\n", ns->name);
		blk_mq_destroy_queue(q);
		put_disk(ns->disk);
		kfree(ns);
		return -ENOMEM;
	}
	blk_queue_logical_block_size(q, 1u << ds);
	blk_queue_max_hw_sectors(q, dev->max_hw_sectors);
	/* a PRP entry per page, plus one for a first page entered off its start */
	blk_queue_max_segments(q, dev->max_hw_sectors / (NVME_CTRL_PAGE_SIZE >> SECTOR_SHIFT) + 1);
	blk_queue_dma_alignment(q, 3);          /* §4.3: PRP entries are dword aligned */
	/* FUA with the write cache, as Linux's nvme_set_queue_limits(); a
	 * controller that drops the bit gets blk-flush's Flush after it */
	blk_queue_write_cache(q, dev->vwc, !(dev->quirks & NVME_QUIRK_IGNORES_FUA));
	/*
	 * Deallocate (discard) with one range a request: the range's NLB is
	 * 32 bits, and so is a request's byte count.  Write Zeroes moves no
	 * data, but Linux caps it at the transfer limit when the controller
	 * names none (WZSL, NVMe 2.0), and its NLB is 16 bits.
	 */
	if (dev->oncs & NVME_CTRL_ONCS_DSM) {
		blk_queue_max_discard_sectors(q, (0xffffffffu >> SECTOR_SHIFT) &
					      ~((1u << (ds - SECTOR_SHIFT)) - 1));
		q->limits.discard_granularity = 1u << ds;
	}
	if (dev->oncs & NVME_CTRL_ONCS_WRITE_ZEROES)
		blk_queue_max_write_zeroes_sectors(q, min(dev->max_hw_sectors,
							  0x10000u << (ds - SECTOR_SHIFT)));
	blk_queue_rq_timeout(q, nvme_io_timeout_s * HZ);

	strlcpy(ns->disk->disk_name, ns->name, sizeof(ns->disk->disk_name));
	ns->disk->major = NVME_MAJOR;
	ns->disk->first_minor = nvme_nr_disks * NVME_MINORS;
	ns->disk->queue = q;
	q->nonrot = true;                       /* as Linux's NVMe: flash */
	ns->disk->private_data = ns;
	set_capacity(ns->disk, ns->nsze << (ds - SECTOR_SHIFT));
	ns->disk->getgeo = nvme_getgeo;
	pr_info("%s: namespace %u, %llu blocks of %u bytes, queue depth %u\n",
		ns->name, nsid, (unsigned long long)ns->nsze, 1u << ds, depth);
	err = add_disk(ns->disk);               /* reads the partition table */
	if (err) {
		pr_err("%s: add_disk failed (%d)\n", ns->name, err);
		put_disk(ns->disk);
		blk_mq_destroy_queue(q);
		kfree(ns);
		return err;
	}
	nvme_nr_disks++;
	dev->ns[dev->nr_ns++] = ns;
	return 0;
}

/*
 * nvme_scan_ns - a disk for each active namespace, at most NVME_MAX_NS.
 * The Active Namespace ID list (CNS 02h, NVMe 1.1) names them; a
 * controller without it gets namespaces 1..NN tried one by one.  The I/O
 * queue's command identifiers are shared out evenly, so that the queue
 * never holds more than it has room for.
 */
void nvme_scan_ns(struct nvme_dev *dev)
{
	u32 nsids[NVME_MAX_NS];
	unsigned int n = 0, depth;
	int err = nvme_identify(dev, 0, NVME_ID_CNS_NS_ACTIVE_LIST);

	if (!err) {
		const u32 *list = dev->identify;

		for (unsigned int i = 0; i < 1024 && list[i] && n < NVME_MAX_NS; i++)
			nsids[n++] = list[i];
	} else {
		for (u32 nsid = 1; nsid <= dev->nn && n < NVME_MAX_NS; nsid++)
			nsids[n++] = nsid;
	}
	if (!n) {
		pr_info("%s: no active namespace\n", dev->name);
		return;
	}
	if (n > dev->q_depth - 1u) {
		pr_warn("%s: %u namespaces, queues of %u entries: only the first %u get a disk\n",
			dev->name, n, dev->q_depth, dev->q_depth - 1u);
		n = dev->q_depth - 1u;
	}
	depth = (dev->q_depth - 1u) / n;
	for (unsigned int i = 0; i < n; i++) {
		err = nvme_alloc_ns(dev, nsids[i], (u16)(i * depth), depth);
		if (err && err != -ENODEV)
			pr_err("%s: namespace %u: not used (%d)\n", dev->name, nsids[i], err);
	}
}

/* ---- commands and their status ------------------------------------------ */

/*
 * nvme_setup_cmd - the NVM command for rq (NVM Command Set §3.2, NVMe 1.4
 * §6.7 Dataset Management, §6.8 Flush, §6.9 Read, §6.15 Write, §6.16
 * Write Zeroes).  Does not sleep.  The data pointer of a Read or Write is
 * filled by the transport; a discard's one range is written to @range, a
 * page of DMA memory the transport gives and points PRP1 at.
 */
blk_status_t nvme_setup_cmd(struct nvme_ns *ns, struct request *rq, struct nvme_command *cmd,
			    struct nvme_dsm_range *range)
{
	u64 slba = blk_rq_pos(rq) >> (ns->lba_shift - SECTOR_SHIFT);
	unsigned int blocks = blk_rq_bytes(rq) >> ns->lba_shift;

	/* every field the command does not use is 0; written as a compound
	 * literal, the compiler zeroes the 64 bytes with eight stores, where
	 * memset() is a call and a byte-counted string store (as Linux's
	 * nvme_setup_rw() writes each field instead) */
	*cmd = (struct nvme_command){ .nsid = ns->nsid };
	if (req_op(rq) == REQ_OP_FLUSH) {
		cmd->opcode = nvme_cmd_flush;
		return BLK_STS_OK;
	}
	if (!blocks || (blk_rq_bytes(rq) & ((1u << ns->lba_shift) - 1)))
		return BLK_STS_IOERR;
	switch (req_op(rq)) {
	case REQ_OP_DISCARD:
		/* one range, deallocated: afterwards it reads as DLFEAT says */
		range->cattr = 0;
		range->nlb = blocks;
		range->slba = slba;
		cmd->opcode = nvme_cmd_dsm;
		cmd->cdw10 = 0;                 /* NR: one range, 0's based */
		cmd->cdw11 = NVME_DSMGMT_AD;
		return BLK_STS_OK;
	case REQ_OP_WRITE_ZEROES:
		cmd->opcode = nvme_cmd_write_zeroes;
		break;
	case REQ_OP_WRITE:
		cmd->opcode = nvme_cmd_write;
		if (rq->cmd_flags & REQ_FUA)
			cmd->cdw12 |= NVME_RW_FUA;
		break;
	case REQ_OP_READ:
		cmd->opcode = nvme_cmd_read;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	if (blocks > 0x10000)
		return BLK_STS_IOERR;
	cmd->cdw10 = (u32)slba;
	cmd->cdw11 = (u32)(slba >> 32);
	cmd->cdw12 |= blocks - 1;               /* NLB is 0's based */
	return BLK_STS_OK;
}

/*
 * The NVMe status (SCT << 8 | SC) as a blk_status_t, as Linux's
 * nvme_error_status() sorts them.  Linux has finer codes for some
 * (BLK_STS_MEDIUM, _TARGET, _PROTECTION); Spindle's nearest is named.
 */
blk_status_t nvme_error_status(u16 status)
{
	switch (status & 0x7ff) {
	case NVME_SC_SUCCESS:
		return BLK_STS_OK;
	case NVME_SC_CAP_EXCEEDED:
		return BLK_STS_NOSPC;
	case NVME_SC_INVALID_OPCODE:
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_INVALID_NS:
		return BLK_STS_NOTSUPP;
	case NVME_SC_LBA_RANGE:                 /* Linux: BLK_STS_TARGET */
	case NVME_SC_NS_NOT_READY:
	case NVME_SC_WRITE_FAULT:               /* Linux: BLK_STS_MEDIUM */
	case NVME_SC_READ_ERROR:
	case NVME_SC_UNWRITTEN_BLOCK:
	case NVME_SC_ACCESS_DENIED:
	case NVME_SC_READ_ONLY:
	case NVME_SC_COMPARE_FAILED:
	default:
		return BLK_STS_IOERR;
	}
}

static const char *nvme_status_str(u16 status)
{
	switch (status & 0x7ff) {
	case NVME_SC_INVALID_OPCODE:    return "Invalid Command Opcode";
	case NVME_SC_INVALID_FIELD:     return "Invalid Field in Command";
	case NVME_SC_CMDID_CONFLICT:    return "Command ID Conflict";
	case NVME_SC_DATA_XFER_ERROR:   return "Data Transfer Error";
	case NVME_SC_INTERNAL:          return "Internal Error";
	case NVME_SC_ABORT_REQ:         return "Command Abort Requested";
	case NVME_SC_INVALID_NS:        return "Invalid Namespace or Format";
	case NVME_SC_LBA_RANGE:         return "LBA Out of Range";
	case NVME_SC_CAP_EXCEEDED:      return "Capacity Exceeded";
	case NVME_SC_NS_NOT_READY:      return "Namespace Not Ready";
	case NVME_SC_READ_ONLY:         return "Attempted Write to Read Only Range";
	case NVME_SC_WRITE_FAULT:       return "Write Fault";
	case NVME_SC_READ_ERROR:        return "Unrecovered Read Error";
	case NVME_SC_GUARD_CHECK:       return "End-to-end Guard Check Error";
	case NVME_SC_COMPARE_FAILED:    return "Compare Failure";
	case NVME_SC_ACCESS_DENIED:     return "Access Denied";
	case NVME_SC_UNWRITTEN_BLOCK:   return "Deallocated or Unwritten Logical Block";
	default:                        return "Unknown";
	}
}

/*
 * The line Linux's nvme_log_error() prints for a failed I/O command, e.g.
 *   nvme0n1: Read(0x2) @ LBA 2048, 8 blocks, Unrecovered Read Error (sct 0x2 / sc 0x81) DNR
 * Does not sleep (the interrupt handler calls it); rate limited.
 */
void nvme_log_error(struct nvme_ns *ns, struct request *rq, u16 status)
{
	static const char *const ops[] = {
		[nvme_cmd_flush] = "Flush", [nvme_cmd_write] = "Write", [nvme_cmd_read] = "Read",
		[nvme_cmd_write_zeroes] = "Write Zeroes", [nvme_cmd_dsm] = "Dataset Management",
	};
	u8 opcode = req_op(rq) == REQ_OP_FLUSH ? nvme_cmd_flush :
		    req_op(rq) == REQ_OP_WRITE ? nvme_cmd_write :
		    req_op(rq) == REQ_OP_DISCARD ? nvme_cmd_dsm :
		    req_op(rq) == REQ_OP_WRITE_ZEROES ? nvme_cmd_write_zeroes : nvme_cmd_read;

	printk_ratelimited(KERN_ERR "%s: %s(0x%x) @ LBA %llu, %u blocks, %s (sct 0x%x / sc 0x%x)%s%s\n",
			   ns->name, ops[opcode], opcode,
			   (unsigned long long)(blk_rq_pos(rq) >> (ns->lba_shift - SECTOR_SHIFT)),
			   blk_rq_bytes(rq) >> ns->lba_shift, nvme_status_str(status),
			   (status >> NVME_SCT_SHIFT) & NVME_SCT_MASK, status & NVME_SC_MASK,
			   status & NVME_STATUS_MORE ? " MORE" : "",
			   status & NVME_STATUS_DNR ? " DNR" : "");
}
