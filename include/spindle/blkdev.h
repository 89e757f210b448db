/* SPDX-License-Identifier: MIT */
/*
 * blkdev.h - block devices: the interface in two halves.
 *
 *   ABOVE (filesystems, the page cache, the pattern verifier, user I/O):
 *     find a device by name (lookup_bdev), build bios (bio.h) and
 *     submit_bio() them; never call a driver directly.
 *
 *   BELOW (drivers: brd, null_blk, device-mapper, IDE, AHCI):
 *     q = blk_alloc_queue(my_make_request, my_data);
 *     disk = alloc_disk(); fill name, major, first_minor, capacity, queue;
 *     add_disk(disk);   -- partitions are scanned, the disk is live
 *     my_make_request(q, bio) is then called with each bio, already
 *     remapped from partition to whole disk and checked against the
 *     disk's size; it must eventually bio_endio() the bio, and may submit
 *     other bios with generic_make_request() (they are queued on
 *     current->bio_list and run after it returns: Linux commit 79bd99596b73).
 *
 * A gendisk is the disk; each partition, and the whole disk as partition
 * 0, is a struct block_device with its start and size (the article:
 * "a gendisk together with a partition number").
 */
#ifndef SPINDLE_BLKDEV_H
#define SPINDLE_BLKDEV_H

#include <spindle/blk_types.h>
#include <spindle/bio.h>
#include <spindle/list.h>
#include <spindle/spinlock.h>
#include <spindle/wait.h>
#include <spindle/threads.h>
#include <spindle/atomic.h>
#include <spindle/cache.h>

/*
 * x86-64's cache line.  Each CPU's counters are padded so that one CPU's
 * update does not pull a line that another CPU writes, or reads at every
 * I/O, from that CPU's cache -- wherever the array starts in its line:
 * its busy fields first, then at least a line of padding, and a line of
 * padding before the array, away from the fields every CPU reads
 * (tools/c2c.py counted the moves when the edges were shared).  Padded,
 * not aligned: a type that demands 64-byte alignment makes every struct
 * holding it demand it too, which the host's unit tests do not give.
 */
#define BLK_CACHELINE_BYTES L1_CACHE_BYTES

#define DISK_NAME_LEN   32
#define DISK_MAX_PARTS  64              /* partition numbers 0 (whole) .. 63 */


#define MINORBITS       20
#define MKDEV(ma, mi)   (((dev_t)(ma) << MINORBITS) | (mi))
#define MAJOR(dev)      ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev)      ((unsigned int)((dev) & ((1u << MINORBITS) - 1)))

struct request_queue;
typedef void (make_request_fn)(struct request_queue *q, struct bio *bio);

/*
 * What the device can take in one command.  The request layer splits and
 * merges so that every request it hands the driver stays inside these, so
 * a driver sets them honestly and never has to split a request itself.
 */
struct queue_limits {
	unsigned int logical_block_size;    /* bytes; 512 unless the device says */
	unsigned int max_sectors;           /* largest I/O, in 512-byte sectors */
	unsigned int max_segments;          /* bio_vec segments per request */
	unsigned int max_segment_size;      /* bytes in one segment */
	unsigned long seg_boundary_mask;    /* no segment crosses a (mask + 1)
					     * boundary: 0xffff for IDE's PRDs */
	unsigned int dma_alignment;         /* mask: buffers and lengths aligned
					     * to (mask + 1) for direct I/O */
	unsigned int max_discard_sectors;   /* 0: discard not supported */
	unsigned int discard_granularity;   /* bytes the device deallocates in */
	unsigned int max_write_zeroes_sectors; /* 0: REQ_OP_WRITE_ZEROES not supported */
};

struct elevator_queue;
struct mutex;
struct blk_mq_tag_set;
struct blk_mq_hw_ctx;
struct blk_mq_ctx;

/*
 * One queue per disk.  Each field says, in brackets, what keeps it safe:
 *   [init]  set while the driver makes the queue, before add_disk(); only
 *           read after that, without a lock
 *   [lock]  q->lock, taken with interrupts off (completions take it from
 *           kblockd, the timeout scan from its timer's work).  The
 *           requests, the tags and the dispatch lists are not here: each
 *           hardware queue has its own, under its own lock (struct
 *           blk_mq_hw_ctx)
 *   [lock*] written under q->lock; also read without it, with READ_ONCE,
 *           by a wait_event() condition or a polling loop that looks
 *           again after each wake-up
 *   [atomic] an atomic_t/atomic_long_t: changed where q->lock is not held
 *   [mq]    mq_queues_lock, the mutex of the list the timeout scan walks
 *   [once]  no lock: written with WRITE_ONCE, read once with READ_ONCE by
 *           each user, who copes with either value
 *   [own]   the object has its own lock (wait queues, the bio_set)
 *   [pcpu]  one copy per CPU, each changed only by its CPU with
 *           interrupts off, summed by whoever reads them
 */
struct request_queue {
	make_request_fn *make_request_fn;   /* [init] */
	void *queuedata;                    /* [init] the driver's */
	struct queue_limits limits;         /* [init] blk_queue_*() set them */
	bool dying;                         /* [lock*] blk_cleanup_queue(): refuse new I/O */
	/* [pcpu] bios inside make_request_fn, counted on the CPU each
	 * entered on (it may leave on another: only the sum means anything,
	 * blk_queue_usage()), as Linux's per-CPU q_usage_counter */
	char q_usage_pad[BLK_CACHELINE_BYTES];  /* CPU 0's n shares no line with
						 * the fields above */
	struct {
		long n;
		char pad[BLK_CACHELINE_BYTES - sizeof(long)];   /* a line each */
	} q_usage[NR_CPUS];
	int mq_freeze_depth;                /* [lock*] > 0: frozen, new bios wait */
	struct wait_queue_head mq_freeze_wq; /* [own] */
	spinlock_t lock;

	/* request-based queues only (block/blk-mq.c) */
	struct blk_mq_tag_set *tag_set;     /* [init] */
	struct elevator_queue *elevator;    /* [lock] a switch freezes the queue first */
	bool sched_none;                    /* [lock*] the elevator is "none": requests
					     * wait in the per-CPU software queues */
	unsigned int nr_hw_queues;          /* [init] */
	struct blk_mq_hw_ctx **queue_hw_ctx; /* [init] the hardware queues, each
					     * with its own lock (blk_mq.h) */
	struct blk_mq_ctx *queue_ctx;       /* [init] one per CPU (nr_cpu_ids) */
	unsigned int nr_requests;           /* [init] requests each hardware queue
					     * has (its pool: blk_mq.h) */
	struct bio_set bio_split;           /* [own] for blk_queue_split() */
	unsigned int rq_timeout;            /* [init] jiffies a request may take (30 s) */
	unsigned int rq_affinity;           /* [once] where completions run: 0 the
					     * interrupt's CPU, 1 the submitter's if
					     * they share no cache, 2 the submitter's
					     * (queue/rq_affinity, blk-mq.c) */

	/* volatile write cache (blk_queue_write_cache): flushes and FUA */
	bool write_cache;                   /* [init] the device has one: honour flushes */
	bool fua;                           /* [init] the device does FUA writes itself */
	bool nonrot;                        /* [init] no seek cost: RAM, flash (Linux's
					     * QUEUE_FLAG_NONROT; queue/rotational) */
	struct request *flush_rq;           /* [init] the one flush in flight (blk-flush.c);
					     * rebuilt under q->lock for each flush */
	struct list_head flush_pending;     /* [lock*] requests waiting for a flush */
	struct list_head flush_running;     /* [lock*] ... and those the running one serves */
	struct list_head all_queues;        /* [mq] every request-based queue (timeouts) */
	bool discard_warned;                /* no lock: said "discard not supported" once
					     * (a race at worst says it twice) */
	struct blk_trace *blk_trace;        /* [once] blktrace=: this queue's events */
};

/* I/O statistics: Linux's /proc/diskstats fields (times in ms). */
enum stat_group { STAT_READ, STAT_WRITE, STAT_DISCARD, STAT_FLUSH, NR_STAT_GROUPS };

/*
 * A disk's (or partition's) counters on one CPU (Linux's struct
 * disk_stats, one per CPU in bdev->bd_stats).  Each CPU adds only to its
 * own, with interrupts off (blk-core.c); part_stat_read_all() sums every
 * CPU's into one of these.  An I/O may start on one CPU and end on
 * another, so one CPU's in_flight may go below zero: only the sum means
 * anything, as Linux's per-CPU in_flight for bio-based disks.
 */
struct disk_stats {
	u64 ios[NR_STAT_GROUPS];            /* completed */
	u64 merges[NR_STAT_GROUPS];         /* merged into another (request layer) */
	u64 sectors[NR_STAT_GROUPS];
	u64 nsecs[NR_STAT_GROUPS];          /* summed durations (time_in_queue
					     * is their sum, as Linux's) */
	u64 io_ticks_ms;                    /* time with anything in flight */
	long in_flight[2];                  /* started, not completed: reads
					     * (and flushes), writes (and discards) */
	u64 pad[13];                        /* to four whole cache lines, the
					     * last all padding */
};
_Static_assert(sizeof(struct disk_stats) % BLK_CACHELINE_BYTES == 0 &&
	       sizeof(struct disk_stats) - __builtin_offsetof(struct disk_stats, pad) >=
	       BLK_CACHELINE_BYTES,
	       "a CPU's disk_stats fill whole cache lines, the last all padding");

struct block_device;
/* Every CPU's counters of part, summed into *st (Linux's
 * part_stat_read_all; block/blk-core.c).  Any context; does not sleep. */
void part_stat_read_all(struct block_device *part, struct disk_stats *st);
/* The I/Os in flight on part in a sum from part_stat_read_all(). */
static inline unsigned long disk_stats_in_flight(const struct disk_stats *st)
{
	return (unsigned long)(st->in_flight[0] + st->in_flight[1]);
}
/* ... and its time_in_queue: every I/O's time summed, as Linux's
 * diskstats_show() reports it (the sum of the four nsecs) */
static inline u64 disk_stats_time_in_queue_ns(const struct disk_stats *st)
{
	return st->nsecs[STAT_READ] + st->nsecs[STAT_WRITE] +
	       st->nsecs[STAT_DISCARD] + st->nsecs[STAT_FLUSH];
}

struct inode;

struct block_device {
	struct gendisk *bd_disk;
	u8 bd_partno;                       /* 0: the whole disk */
	sector_t bd_start_sect;             /* where it starts on the disk */
	sector_t bd_nr_sectors;             /* its size */
	dev_t bd_dev;
	char bd_name[DISK_NAME_LEN + 4];    /* "sda", "sda1" */
	void *bd_holder;                    /* exclusive user (O_EXCL, mount) */
	struct inode *bd_inode;             /* its page cache's inode (fs/block_dev.c),
					     * from its first open */
	/* [pcpu] each CPU changes its own, with interrupts off; read
	 * with part_stat_read_all() (block/blk-core.c) */
	char bd_stats_pad[BLK_CACHELINE_BYTES]; /* CPU 0's away from bd_inode */
	struct disk_stats bd_stats[NR_CPUS];
	atomic_long_t bd_stamp;             /* [atomic] the ms io_ticks_ms was last
					     * brought up to (Linux's bd_stamp) */
};

struct hd_geometry;

struct gendisk {
	char disk_name[DISK_NAME_LEN];
	int major;
	int first_minor;
	int minors;                         /* 1: no partitions allowed */
	sector_t capacity;                  /* in 512-byte sectors */
	struct request_queue *queue;
	void *private_data;                 /* the driver's */
	/* device/model's text, as Linux's driver for the same disk shows it
	 * (sd: the 16 characters of the SCSI product, padded; the old IDE
	 * driver: the whole ATA model); "" for a disk without a device */
	char model[41];
	struct block_device *part[DISK_MAX_PARTS];  /* [0]: whole disk */
	/* HDIO_GETGEO's heads, sectors and cylinders, as the driver makes
	 * them up (Linux's block_device_operations.getgeo); NULL: the ioctl
	 * is -ENOTTY, as for Linux's brd and null_blk */
	void (*getgeo)(struct gendisk *disk, struct hd_geometry *geo);
	struct list_head list;              /* all disks, in registration order */
	bool registered;
};

/* --- for drivers (below) ---------------------------------------------- */

struct request_queue *blk_alloc_queue(make_request_fn *fn, void *queuedata);
/* Mark the queue dying: new bios fail with BLK_STS_IOERR (the else-branch
 * of generic_make_request's loop), then wait for the bios already inside
 * to leave.  May sleep. */
void blk_cleanup_queue(struct request_queue *q);
void blk_queue_logical_block_size(struct request_queue *q, unsigned int size);
void blk_queue_max_hw_sectors(struct request_queue *q, unsigned int sectors);
void blk_queue_max_segments(struct request_queue *q, unsigned int max_segments);
void blk_queue_max_segment_size(struct request_queue *q, unsigned int bytes);
void blk_queue_segment_boundary(struct request_queue *q, unsigned long mask);
void blk_queue_dma_alignment(struct request_queue *q, unsigned int mask);
void blk_queue_max_discard_sectors(struct request_queue *q, unsigned int sectors);
void blk_queue_max_write_zeroes_sectors(struct request_queue *q, unsigned int sectors);
/* The device has a volatile write cache (wc) and can do FUA writes (fua).
 * Without wc, flushes complete at once and FUA is dropped; with wc but no
 * fua, the request layer follows each FUA write with a cache flush. */
void blk_queue_write_cache(struct request_queue *q, bool wc, bool fua);
/* How long a request may be in the driver's hands before ops->timeout. */
void blk_queue_rq_timeout(struct request_queue *q, unsigned int timeout_jiffies);

struct gendisk *alloc_disk(int minors);
/* Register the disk and its partitions; returns 0 or -errno. */
int add_disk(struct gendisk *disk);
void del_gendisk(struct gendisk *disk);
void put_disk(struct gendisk *disk);
static inline sector_t get_capacity(const struct gendisk *d) { return d->capacity; }
static inline void set_capacity(struct gendisk *disk, sector_t sectors) { disk->capacity = sectors; }

/* --- for users (above) -------------------------------------------------- */

/* "sda1", "ram0", or "<major>:<minor>" ("8:1"): the block_device, or NULL. */
struct block_device *lookup_bdev(const char *name);
static inline sector_t bdev_nr_sectors(const struct block_device *b) { return b->bd_nr_sectors; }
/* Bytes in the smallest unit the device can address: 512 unless it says. */
static inline unsigned int bdev_logical_block_size(const struct block_device *b)
{
	const struct request_queue *q = b->bd_disk->queue;

	return q && q->limits.logical_block_size ? q->limits.logical_block_size : 512;
}

void submit_bio(struct bio *bio);
void generic_make_request(struct bio *bio);
/*
 * bio_poll - look once for the completion of a REQ_POLLED bio (Linux
 * 6.1's bio_poll): its queue's driver reaps the poll queue the bio went
 * to, and the requests found are ended here.  Returns how many ended --
 * 0 when nothing was there yet, or the bio cannot be polled (REQ_POLLED
 * was cleared on the way down, or no request was made for it yet).  A
 * submitter that set REQ_POLLED calls it in a loop until its bio has
 * ended, with cond_resched() between rounds; once REQ_POLLED is gone
 * from bi_opf it sleeps instead (the interrupt completes the bio).  The
 * caller holds a reference to the bio (bio_get).  Task context.
 * This is the entry point io_uring's IORING_SETUP_IOPOLL polls through.
 */
int bio_poll(struct bio *bio, unsigned int flags);

/* Every registered disk, in registration order (genhd.c).  Hold
 * disk_list_lock (a mutex) to walk it or a disk's part[] array. */
extern struct list_head disk_list;
extern struct mutex disk_list_lock;
/* Forget a disk's partitions (before a rescan: BLKRRPART).  The caller
 * makes sure none is open or claimed.  May sleep. */
void blk_drop_partitions(struct gendisk *disk);
/* Read the partition table again and register what it holds. */
void blk_scan_partitions(struct gendisk *disk);

/*
 * Exclusive claims (Linux's bd_holder; fs/block_dev.c): open(O_EXCL) and
 * device-mapper's legs.  bd_claim() fails with -EBUSY while another holder
 * has the device, its whole disk or one of its partitions; the same holder
 * may claim again.  bd_release() gives a claim back.  May sleep.
 */
int bd_claim(struct block_device *bdev, void *holder);
void bd_release(struct block_device *bdev, void *holder);
/*
 * A kernel user of the device's page cache (a mounted file system's
 * metadata): blkdev_get() makes bdev->bd_inode if needed and counts an
 * opener, so that the inode lives until blkdev_put(), which writes back
 * at the last opener as a close does.  0 or -ENOMEM.
 */
int blkdev_get(struct block_device *bdev);
void blkdev_put(struct block_device *bdev);
/*
 * The device's page cache (fs/block_dev.c), for BLKFLSBUF and BLKRRPART
 * (block/ioctl.c).  sync_blockdev() writes back every dirty page and
 * waits: 0 or the write-back's error; invalidate_bdev() forgets the clean
 * ones.  Both need the device open (its bd_inode).
 * bdev_rescan_lock() takes the lock of openers and holders (Linux's
 * disk->open_mutex) for a rescan of whole's partitions, or fails with
 * -EBUSY, unlocked, while another holder than holder has claimed the disk
 * or a partition is open or claimed; under it
 * bdev_drop_partition_caches() writes back and frees each partition's
 * cache and inode, and bdev_rescan_unlock() ends it.  All may sleep.
 */
int sync_blockdev(struct block_device *bdev);
void invalidate_bdev(struct block_device *bdev);
int bdev_rescan_lock(struct block_device *whole, void *holder);
void bdev_drop_partition_caches(struct gendisk *disk);
void bdev_rescan_unlock(void);

/*
 * The block layer's files and ioctls: what users see of it.  block/ owns
 * every text and every result; fs/ only builds the directories and hands
 * the calls on (docs/block.md, "The front door").  All may sleep.
 *
 *   /sys/block/<disk>/..., <part>/..., queue/...   blk_*_attr_group
 *   /sys/block/<disk>/queue/iosched/<tunable>      blk_iosched_*
 *                                                  (block/blk-sysfs.c)
 *   /proc/partitions, /proc/diskstats              blk_show_partitions,
 *                                                  blk_show_diskstats
 *                                                  (block/genhd.c)
 *   ioctl() on a block-device file                 blkdev_ioctl
 *                                                  (block/ioctl.c)
 */
struct blk_attr {
	const char *name;
	/* 0444, or 0644 if written; 0555 and no show(): a directory, whose
	 * entries sysfs knows */
	umode_t mode;
	/* the whole text into buf (at most size bytes): its length or -errno */
	int (*show)(struct block_device *bdev, char *buf, size_t size);
	/* what a write() gave: len bytes and a NUL after them; 0 or -errno */
	int (*store)(struct block_device *bdev, const char *buf, size_t len);
	size_t size_hint; /* the largest text, if over a page */
};
struct blk_attr_group { /* Linux's attribute_group */
	const struct blk_attr *attrs;
	unsigned int count;
};
/* /sys/block/<disk>/ (its directory "queue"), /sys/block/<disk>/<part>/,
 * /sys/block/<disk>/queue/ (its directory "iosched"); bdev is the
 * directory's: the whole disk, or the partition */
extern const struct blk_attr_group blk_disk_attr_group, blk_part_attr_group,
	blk_queue_attr_group;
/* /sys/block/<disk>/device/, for a disk whose driver gave it a model */
extern const struct blk_attr_group blk_device_attr_group;
/* The current elevator's tunables: the i-th one's name and mode, or NULL
 * past the last (none for a bio-based queue).  The name is the elevator's
 * static string, valid after a switch; a file of a switched-away elevator
 * fails its show/store as elv_attr_show/store say. */
const char *blk_iosched_attr(struct block_device *bdev, unsigned int i, umode_t *mode);
int blk_iosched_show(struct block_device *bdev, const char *name, char *buf, size_t size);
int blk_iosched_store(struct block_device *bdev, const char *name, const char *buf, size_t len);
/* /sys/block/<disk>/mq/<n>/: hardware queue n of a request-based disk
 * (NULL past the last, and for a bio-based disk), the i-th name of the
 * files each has (NULL past the last), and what one says. */
struct blk_mq_hw_ctx *blk_mq_sysfs_hctx(struct block_device *bdev, unsigned int n);
const char *blk_mq_hctx_attr(unsigned int i);
int blk_mq_hctx_show(struct blk_mq_hw_ctx *hctx, const char *name, char *buf, size_t size);
/* /proc/vmstat's counters the block layer keeps (submit_bio, blk-core.c).
 * Each CPU adds to its own copy (Linux's per-CPU vm_event_states): one
 * counter that the submitters of every CPU add to would be a cache line
 * they all write at every I/O.  A reader sums the copies. */
struct vm_events {
	u64 pgpgin;  /* KiB read from block devices */
	u64 pgpgout; /* KiB written */
};
void all_vm_events(struct vm_events *sum);
/* /proc/partitions and /proc/diskstats in Linux's formats: the length */
int blk_show_partitions(char *buf, size_t size);
int blk_show_diskstats(char *buf, size_t size);
/*
 * An ioctl() on an open block-device file (Linux's blkdev_ioctl):
 * BLKGETSIZE, BLKGETSIZE64, BLKSSZGET, BLKFLSBUF, BLKRRPART.  holder is
 * the opener (the struct file), for BLKRRPART's check of an O_EXCL claim;
 * arg a user pointer.  -ENOTTY for any other cmd.
 */
long blkdev_ioctl(struct block_device *bdev, void *holder, unsigned int cmd,
		  unsigned long arg);
/* Discard (REQ_OP_DISCARD) or zero (REQ_OP_WRITE_ZEROES) bytes [start,
 * start + len) of bdev, after writing back and dropping its cache, as
 * BLKDISCARD and BLKZEROOUT do (block/ioctl.c).  -EOPNOTSUPP if the
 * device has no such operation; -EINVAL for a range not in whole logical
 * blocks or not inside the device. */
int blkdev_issue_range(struct block_device *bdev, unsigned int op, u64 start, u64 len);

/*
 * Boot option bio_order=fifo|depth (block/blk-core.c): how
 * generic_make_request() orders bios queued by a make_request_fn.
 * depth (default): lower devices first, then the same device, then what
 * was waiting -- Linux since 4.11 (Linux commit 79bd99596b73).  fifo: strictly in
 * submission order, as before 4.11; deadlocks stacks that split.
 */
enum bio_order { BIO_ORDER_DEPTH, BIO_ORDER_FIFO };
extern enum bio_order bio_order;

#endif /* SPINDLE_BLKDEV_H */
