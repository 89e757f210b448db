/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/io_uring.h - the ABI of io_uring_setup (425), io_uring_enter
 * (426) and io_uring_register (427), laid out as Linux 6.1's
 * include/uapi/linux/io_uring.h on x86-64, so that liburing programs run
 * unchanged.  fs/io_uring.c includes it; docs/aio.md ("io_uring") tells
 * the whole path.  Plain C types, as aio_abi.h, so that a libc may include
 * it too.
 *
 * Two rings shared with the kernel through mmap of the ring's descriptor:
 *
 *   submission queue (SQ): user space fills an SQE in the SQE array,
 *     writes its index into the SQ ring's array at tail, then moves tail
 *     on; the kernel consumes from head.
 *   completion queue (CQ): the kernel writes a CQE at tail and moves tail
 *     on; user space reads from head and moves head on.
 *
 * Each side writes only its own index (SQ tail, CQ head: user space; SQ
 * head, CQ tail: the kernel) and publishes it with a store-release after
 * the entries it covers; the other side reads it with a load-acquire.
 * Where each field lives in the mapping is not fixed by this header: the
 * kernel says it in io_uring_params' sq_off and cq_off.
 */
#ifndef _UAPI_LINUX_IO_URING_H
#define _UAPI_LINUX_IO_URING_H

/* One submission (64 bytes).  Only the members Spindle reads are named
 * singly; the unions keep Linux's layout for the rest. */
struct io_uring_sqe {
	unsigned char opcode;           /* IORING_OP_* */
	unsigned char flags;            /* IOSQE_* */
	unsigned short ioprio;
	int fd;
	union {
		unsigned long long off; /* file offset; -1: the file's position */
		unsigned long long addr2;
	};
	union {
		unsigned long long addr;        /* buffer, or iovec array */
		unsigned long long splice_off_in;
	};
	unsigned int len;               /* bytes, or iovec count */
	union {
		int rw_flags;           /* RWF_* (none supported) */
		unsigned int fsync_flags;       /* IORING_FSYNC_DATASYNC */
		unsigned int timeout_flags;     /* TIMEOUT, TIMEOUT_REMOVE: IORING_TIMEOUT_* */
		unsigned int cancel_flags;      /* ASYNC_CANCEL: IORING_ASYNC_CANCEL_* */
		unsigned int other_flags;       /* the other opcodes' (Linux names each) */
	};
	unsigned long long user_data;   /* handed back in the CQE */
	union {
		unsigned short buf_index;       /* READ_FIXED/WRITE_FIXED: which buffer */
		unsigned short buf_group;
	} __attribute__((packed));
	unsigned short personality;
	union {
		int splice_fd_in;
		unsigned int file_index;
	};
	unsigned long long addr3;
	unsigned long long __pad2[1];
};

/* sqe->flags */
#define IOSQE_FIXED_FILE        (1u << 0)       /* fd indexes the registered files */
#define IOSQE_IO_DRAIN          (1u << 1)       /* issue after everything before it */
#define IOSQE_IO_LINK           (1u << 2)       /* the next SQE waits for this one */
#define IOSQE_IO_HARDLINK       (1u << 3)       /* ... even if this one fails */
#define IOSQE_ASYNC             (1u << 4)       /* a hint: go asynchronous at once */
#define IOSQE_BUFFER_SELECT     (1u << 5)
#define IOSQE_CQE_SKIP_SUCCESS  (1u << 6)

/* io_uring_params.flags: io_uring_setup's options */
#define IORING_SETUP_IOPOLL     (1u << 0)       /* completions by polling the device */
#define IORING_SETUP_SQPOLL     (1u << 1)       /* a kernel thread consumes the SQ */
#define IORING_SETUP_SQ_AFF     (1u << 2)
#define IORING_SETUP_CQSIZE     (1u << 3)       /* cq_entries is given */
#define IORING_SETUP_CLAMP      (1u << 4)       /* too many entries: the maximum */
#define IORING_SETUP_ATTACH_WQ  (1u << 5)
#define IORING_SETUP_R_DISABLED (1u << 6)
#define IORING_SETUP_SUBMIT_ALL (1u << 7)       /* go on after an SQE that fails to start */
#define IORING_SETUP_COOP_TASKRUN (1u << 8)
#define IORING_SETUP_TASKRUN_FLAG (1u << 9)
#define IORING_SETUP_SQE128     (1u << 10)
#define IORING_SETUP_CQE32      (1u << 11)
#define IORING_SETUP_SINGLE_ISSUER (1u << 12)
#define IORING_SETUP_DEFER_TASKRUN (1u << 13)

/* sqe->opcode: Linux 6.1's numbers, every one, so that a probe can say
 * which Spindle has */
enum io_uring_op {
	IORING_OP_NOP,
	IORING_OP_READV,
	IORING_OP_WRITEV,
	IORING_OP_FSYNC,
	IORING_OP_READ_FIXED,
	IORING_OP_WRITE_FIXED,
	IORING_OP_POLL_ADD,
	IORING_OP_POLL_REMOVE,
	IORING_OP_SYNC_FILE_RANGE,
	IORING_OP_SENDMSG,
	IORING_OP_RECVMSG,
	IORING_OP_TIMEOUT,
	IORING_OP_TIMEOUT_REMOVE,
	IORING_OP_ACCEPT,
	IORING_OP_ASYNC_CANCEL,
	IORING_OP_LINK_TIMEOUT,
	IORING_OP_CONNECT,
	IORING_OP_FALLOCATE,
	IORING_OP_OPENAT,
	IORING_OP_CLOSE,
	IORING_OP_FILES_UPDATE,
	IORING_OP_STATX,
	IORING_OP_READ,
	IORING_OP_WRITE,
	IORING_OP_FADVISE,
	IORING_OP_MADVISE,
	IORING_OP_SEND,
	IORING_OP_RECV,
	IORING_OP_OPENAT2,
	IORING_OP_EPOLL_CTL,
	IORING_OP_SPLICE,
	IORING_OP_PROVIDE_BUFFERS,
	IORING_OP_REMOVE_BUFFERS,
	IORING_OP_TEE,
	IORING_OP_SHUTDOWN,
	IORING_OP_RENAMEAT,
	IORING_OP_UNLINKAT,
	IORING_OP_MKDIRAT,
	IORING_OP_SYMLINKAT,
	IORING_OP_LINKAT,
	IORING_OP_MSG_RING,
	IORING_OP_FSETXATTR,
	IORING_OP_SETXATTR,
	IORING_OP_FGETXATTR,
	IORING_OP_GETXATTR,
	IORING_OP_SOCKET,
	IORING_OP_URING_CMD,
	IORING_OP_SEND_ZC,
	IORING_OP_SENDMSG_ZC,

	IORING_OP_LAST,                 /* 49 in Linux 6.1 */
};

/* sqe->fsync_flags */
#define IORING_FSYNC_DATASYNC   (1u << 0)

/* sqe->timeout_flags: TIMEOUT's, and TIMEOUT_REMOVE's (UPDATE) */
#define IORING_TIMEOUT_ABS              (1u << 0)       /* addr: a time on the clock, not a delay */
#define IORING_TIMEOUT_UPDATE           (1u << 1)       /* TIMEOUT_REMOVE: re-arm, addr2 the time */
#define IORING_TIMEOUT_BOOTTIME         (1u << 2)       /* clock: CLOCK_BOOTTIME */
#define IORING_TIMEOUT_REALTIME         (1u << 3)       /* clock: CLOCK_REALTIME */
#define IORING_LINK_TIMEOUT_UPDATE      (1u << 4)
#define IORING_TIMEOUT_ETIME_SUCCESS    (1u << 5)       /* -ETIME does not fail a link */
#define IORING_TIMEOUT_CLOCK_MASK       (IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME)
#define IORING_TIMEOUT_UPDATE_MASK      (IORING_TIMEOUT_UPDATE | IORING_LINK_TIMEOUT_UPDATE)

/* sqe->cancel_flags: ASYNC_CANCEL's */
#define IORING_ASYNC_CANCEL_ALL         (1u << 0)       /* every match; res: how many */
#define IORING_ASYNC_CANCEL_FD          (1u << 1)       /* match by fd, not user_data */
#define IORING_ASYNC_CANCEL_ANY         (1u << 2)       /* match any request */
#define IORING_ASYNC_CANCEL_FD_FIXED    (1u << 3)       /* fd is a registered file's index */
/* TIMEOUT's time, at sqe->addr: a struct __kernel_timespec (Linux's
 * time_types.h; include/spindle/aio.h in the kernel) */

/* One completion (16 bytes). */
struct io_uring_cqe {
	unsigned long long user_data;   /* the SQE's */
	int res;                        /* bytes done, or -errno */
	unsigned int flags;             /* IORING_CQE_F_* (none set by Spindle) */
};

#define IORING_CQE_F_BUFFER     (1u << 0)
#define IORING_CQE_F_MORE       (1u << 1)
#define IORING_CQE_F_SOCK_NONEMPTY (1u << 2)
#define IORING_CQE_F_NOTIF      (1u << 3)

/* mmap offsets of the three regions of a ring's descriptor */
#define IORING_OFF_SQ_RING      0ull
#define IORING_OFF_CQ_RING      0x8000000ull
#define IORING_OFF_SQES         0x10000000ull

/* Where the SQ ring's fields are, in bytes from the start of its mapping. */
struct io_sqring_offsets {
	unsigned int head;
	unsigned int tail;
	unsigned int ring_mask;
	unsigned int ring_entries;
	unsigned int flags;             /* IORING_SQ_* */
	unsigned int dropped;           /* SQEs skipped for a bad index */
	unsigned int array;             /* the u32 indexes into the SQE array */
	unsigned int resv1;
	unsigned long long resv2;
};

/* sq ring flags */
#define IORING_SQ_NEED_WAKEUP   (1u << 0)       /* SQPOLL's thread sleeps */
#define IORING_SQ_CQ_OVERFLOW   (1u << 1)       /* CQEs wait in the overflow list */
#define IORING_SQ_TASKRUN       (1u << 2)

/* Where the CQ ring's fields are. */
struct io_cqring_offsets {
	unsigned int head;
	unsigned int tail;
	unsigned int ring_mask;
	unsigned int ring_entries;
	unsigned int overflow;          /* CQEs lost: the ring was full */
	unsigned int cqes;              /* the CQE array */
	unsigned int flags;
	unsigned int resv1;
	unsigned long long resv2;
};

#define IORING_CQ_EVENTFD_DISABLED (1u << 0)

/* io_uring_enter's flags */
#define IORING_ENTER_GETEVENTS  (1u << 0)       /* wait for min_complete CQEs */
#define IORING_ENTER_SQ_WAKEUP  (1u << 1)
#define IORING_ENTER_SQ_WAIT    (1u << 2)
#define IORING_ENTER_EXT_ARG    (1u << 3)
#define IORING_ENTER_REGISTERED_RING (1u << 4)

/* io_uring_enter's argument with IORING_ENTER_EXT_ARG (argsz its size):
 * the signal mask and a relative timeout for the wait */
struct io_uring_getevents_arg {
	unsigned long long sigmask;     /* a sigset_t *, or 0 */
	unsigned int sigmask_sz;
	unsigned int pad;               /* must be 0 */
	unsigned long long ts;          /* a struct __kernel_timespec *, or 0: no timeout */
};

/* io_uring_setup's argument: in, the options; out, the ring's shape. */
struct io_uring_params {
	unsigned int sq_entries;
	unsigned int cq_entries;
	unsigned int flags;             /* IORING_SETUP_* */
	unsigned int sq_thread_cpu;
	unsigned int sq_thread_idle;
	unsigned int features;          /* out: IORING_FEAT_* */
	unsigned int wq_fd;
	unsigned int resv[3];           /* must be 0 */
	struct io_sqring_offsets sq_off;
	struct io_cqring_offsets cq_off;
};

/* io_uring_params.features: what the kernel does */
#define IORING_FEAT_SINGLE_MMAP         (1u << 0)       /* one mmap serves both rings */
#define IORING_FEAT_NODROP              (1u << 1)
#define IORING_FEAT_SUBMIT_STABLE       (1u << 2)       /* the SQE's data is read at submission */
#define IORING_FEAT_RW_CUR_POS          (1u << 3)       /* off -1: the file's position */
#define IORING_FEAT_CUR_PERSONALITY     (1u << 4)
#define IORING_FEAT_FAST_POLL           (1u << 5)
#define IORING_FEAT_POLL_32BITS         (1u << 6)
#define IORING_FEAT_SQPOLL_NONFIXED     (1u << 7)
#define IORING_FEAT_EXT_ARG             (1u << 8)
#define IORING_FEAT_NATIVE_WORKERS      (1u << 9)
#define IORING_FEAT_RSRC_TAGS           (1u << 10)
#define IORING_FEAT_CQE_SKIP            (1u << 11)
#define IORING_FEAT_LINKED_FILE         (1u << 12)

/* io_uring_register's opcodes (Linux 6.1's numbers) */
enum {
	IORING_REGISTER_BUFFERS = 0,
	IORING_UNREGISTER_BUFFERS = 1,
	IORING_REGISTER_FILES = 2,
	IORING_UNREGISTER_FILES = 3,
	IORING_REGISTER_EVENTFD = 4,
	IORING_UNREGISTER_EVENTFD = 5,
	IORING_REGISTER_FILES_UPDATE = 6,
	IORING_REGISTER_EVENTFD_ASYNC = 7,
	IORING_REGISTER_PROBE = 8,
	IORING_REGISTER_PERSONALITY = 9,
	IORING_UNREGISTER_PERSONALITY = 10,
	IORING_REGISTER_RESTRICTIONS = 11,
	IORING_REGISTER_ENABLE_RINGS = 12,
	IORING_REGISTER_FILES2 = 13,
	IORING_REGISTER_FILES_UPDATE2 = 14,
	IORING_REGISTER_BUFFERS2 = 15,
	IORING_REGISTER_BUFFERS_UPDATE = 16,
	IORING_REGISTER_IOWQ_AFF = 17,
	IORING_UNREGISTER_IOWQ_AFF = 18,
	IORING_REGISTER_IOWQ_MAX_WORKERS = 19,
	IORING_REGISTER_RING_FDS = 20,
	IORING_UNREGISTER_RING_FDS = 21,
	IORING_REGISTER_PBUF_RING = 22,
	IORING_UNREGISTER_PBUF_RING = 23,
	IORING_REGISTER_SYNC_CANCEL = 24,
	IORING_REGISTER_FILE_ALLOC_RANGE = 25,

	IORING_REGISTER_LAST
};

/* IORING_REGISTER_PROBE: which opcodes the kernel has */
#define IO_URING_OP_SUPPORTED   (1u << 0)

struct io_uring_probe_op {
	unsigned char op;
	unsigned char resv;
	unsigned short flags;           /* IO_URING_OP_SUPPORTED */
	unsigned int resv2;
};

struct io_uring_probe {
	unsigned char last_op;          /* the highest opcode the kernel knows */
	unsigned char ops_len;          /* entries filled in ops[] */
	unsigned short resv;
	unsigned int resv2[3];
	struct io_uring_probe_op ops[];
};

#endif /* _UAPI_LINUX_IO_URING_H */
