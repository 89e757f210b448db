/* SPDX-License-Identifier: MIT */
/*
 * jbd2.h - the journal's on-disk format (Linux's jbd2, which ext3 and
 * ext4 share, and e2fsprogs reads and writes), and the interface of
 * fs/jbd2/ to the file system that owns the journal.
 *
 * Where it sits: below a journaling file system (ext3, served by
 * fs/ext2/), above the file system's own block access.  jbd2 never
 * touches a device itself: the file system gives it callbacks to read
 * and write a block of the journal (a logical block number, 0 = the
 * journal superblock: the file system maps it through the journal
 * inode, inode 8) and to write a block of the file system ("home").
 * So the same code runs in the kernel and in the host's unit tests.
 *
 * The log, as it lies in the journal's blocks 1 .. s_maxlen - 1 (block 0
 * is the superblock), a circle that starts at s_start with transaction
 * s_sequence:
 *
 *   [descriptor T] [data] [data] ... [commit T] [revoke T+1] [descriptor
 *   T+1] [data] ... [commit T+1] [no magic, or sequence != T+2: the end]
 *
 * Every metadata block (descriptor, commit, revoke) opens with a
 * journal_header_t; its h_sequence is the transaction's ID.  A
 * descriptor's tags name, in order, the home block of each data block
 * that follows it.  A transaction counts only once its commit block is
 * there: recovery (fs/jbd2/recovery.c) replays committed transactions
 * and stops at the first block that does not continue the log.
 *
 * All fields are big-endian (__be32 below: convert with be32_to_cpu).
 * Layouts follow Linux's include/linux/jbd2.h, with the offsets checked.
 */
#ifndef SPINDLE_JBD2_H
#define SPINDLE_JBD2_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/list.h>
#include <spindle/mutex.h>
#include <spindle/wait.h>

/* --- byte order ---------------------------------------------------------- */

/* Big-endian on-disk numbers; x86 is little-endian, so each is swapped. */
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;

static inline u16 be16_to_cpu(__be16 x) { return __builtin_bswap16(x); }
static inline u32 be32_to_cpu(__be32 x) { return __builtin_bswap32(x); }
static inline u64 be64_to_cpu(__be64 x) { return __builtin_bswap64(x); }
static inline __be16 cpu_to_be16(u16 x) { return __builtin_bswap16(x); }
static inline __be32 cpu_to_be32(u32 x) { return __builtin_bswap32(x); }
static inline __be64 cpu_to_be64(u64 x) { return __builtin_bswap64(x); }

/* --- on disk -------------------------------------------------------------- */

#define JBD2_MAGIC_NUMBER 0xc03b3998u /* h_magic of every metadata block */

/* h_blocktype */
#define JBD2_DESCRIPTOR_BLOCK 1 /* tags naming the data blocks after it */
#define JBD2_COMMIT_BLOCK 2	/* the transaction is complete */
#define JBD2_SUPERBLOCK_V1 3	/* block 0, without the feature fields */
#define JBD2_SUPERBLOCK_V2 4	/* block 0 */
#define JBD2_REVOKE_BLOCK 5	/* home blocks earlier copies of which must not be replayed */

typedef u32 tid_t; /* a transaction's ID; wraps: compare with tid_gt() */

typedef struct journal_header_s {
	__be32 h_magic;
	__be32 h_blocktype;
	__be32 h_sequence;
} journal_header_t;
_Static_assert(sizeof(journal_header_t) == 12, "journal_header_t");

/* Checksum types (commit blocks' h_chksum_type, the superblock's
 * s_checksum_type).  v1 used CRC32; v2 and v3 use CRC32C. */
#define JBD2_CRC32_CHKSUM 1
#define JBD2_MD5_CHKSUM 2
#define JBD2_SHA1_CHKSUM 3
#define JBD2_CRC32C_CHKSUM 4
#define JBD2_CRC32_CHKSUM_SIZE 4
#define JBD2_CHECKSUM_BYTES (32 / sizeof(u32))

/* The commit block.  With csum v2/v3, h_chksum[0] is the CRC32C of the
 * whole block (with h_chksum[0] taken as 0), seeded by the journal's
 * UUID.  h_commit_sec/nsec: when it was written (recovery uses it to
 * tell a stale block of an older log from a damaged one). */
struct commit_header {
	__be32 h_magic;
	__be32 h_blocktype;
	__be32 h_sequence;
	u8 h_chksum_type;
	u8 h_chksum_size;
	u8 h_padding[2];
	__be32 h_chksum[JBD2_CHECKSUM_BYTES];
	__be64 h_commit_sec;
	__be32 h_commit_nsec;
} __attribute__((packed));
_Static_assert(sizeof(struct commit_header) == 60, "commit_header");
_Static_assert(offsetof(struct commit_header, h_chksum) == 16, "h_chksum");
_Static_assert(offsetof(struct commit_header, h_commit_sec) == 48, "h_commit_sec");

/* A descriptor's tag with csum v3 (16 bytes whatever the features). */
typedef struct journal_block_tag3_s {
	__be32 t_blocknr;      /* the home block (low 32 bits) */
	__be32 t_flags;	       /* JBD2_FLAG_* */
	__be32 t_blocknr_high; /* bits 32..63 if INCOMPAT_64BIT */
	__be32 t_checksum;     /* CRC32C(seed, sequence, the logged block) */
} journal_block_tag3_t;
_Static_assert(sizeof(journal_block_tag3_t) == 16, "tag3");

/* A tag otherwise: 12 bytes with 64BIT, 8 without (t_blocknr_high
 * absent), and with csum v2 t_checksum holds the low 16 bits of the CRC. */
typedef struct journal_block_tag_s {
	__be32 t_blocknr;
	__be16 t_checksum;
	__be16 t_flags;
	__be32 t_blocknr_high;
} journal_block_tag_t;
_Static_assert(sizeof(journal_block_tag_t) == 12, "tag");

/* With csum v2/v3, the last 4 bytes of a descriptor or revoke block:
 * the CRC32C of the block (with this field taken as 0). */
struct jbd2_journal_block_tail {
	__be32 t_checksum;
};

/* A revoke block: the header, then r_count bytes in all (header
 * included) of block numbers, 8 bytes each with 64BIT, else 4. */
typedef struct jbd2_journal_revoke_header_s {
	journal_header_t r_header;
	__be32 r_count;
} jbd2_journal_revoke_header_t;
_Static_assert(sizeof(jbd2_journal_revoke_header_t) == 16, "revoke header");

/* t_flags */
#define JBD2_FLAG_ESCAPE 1    /* the block began with the magic: zeroed in the log */
#define JBD2_FLAG_SAME_UUID 2 /* no 16-byte UUID follows this tag */
#define JBD2_FLAG_DELETED 4   /* (unused by recovery) */
#define JBD2_FLAG_LAST_TAG 8  /* the descriptor's last tag */

#define JBD2_USERS_MAX 48
#define JBD2_USERS_SIZE (16 * JBD2_USERS_MAX)

/* The journal superblock, block 0 of the journal. */
typedef struct journal_superblock_s {
	journal_header_t s_header;
	/* static: the journal's geometry */
	__be32 s_blocksize; /* the file system's block size */
	__be32 s_maxlen;    /* blocks in the journal, the superblock's included */
	__be32 s_first;	    /* the log's first block (1) */
	/* dynamic: where the log starts */
	__be32 s_sequence; /* the first transaction expected in the log */
	__be32 s_start;	   /* its first block; 0: the log is empty (clean) */
	__be32 s_errno;	   /* an error the journal met (negative errno) */
	/* v2 only */
	__be32 s_feature_compat;
	__be32 s_feature_incompat;
	__be32 s_feature_ro_compat;
	u8 s_uuid[16]; /* seeds every checksum */
	__be32 s_nr_users;
	__be32 s_dynsuper;
	__be32 s_max_transaction;
	__be32 s_max_trans_data;
	u8 s_checksum_type; /* JBD2_CRC32C_CHKSUM with csum v2/v3 */
	u8 s_padding2[3];
	__be32 s_num_fc_blks; /* fast-commit blocks (not supported here) */
	__be32 s_head;
	u32 s_padding[40];
	__be32 s_checksum; /* CRC32C(~0, this block with s_checksum as 0) */
	u8 s_users[JBD2_USERS_SIZE];
} journal_superblock_t;
_Static_assert(offsetof(journal_superblock_t, s_feature_compat) == 0x24, "s_feature_compat");
_Static_assert(offsetof(journal_superblock_t, s_uuid) == 0x30, "s_uuid");
_Static_assert(offsetof(journal_superblock_t, s_checksum_type) == 0x50, "s_checksum_type");
_Static_assert(offsetof(journal_superblock_t, s_checksum) == 0xfc, "s_checksum");
_Static_assert(sizeof(journal_superblock_t) == 1024, "journal_superblock_t");

/* Features.  COMPAT_CHECKSUM is checksum v1 (a CRC32 over each
 * transaction, in its commit block); CSUM_V2 and V3 are the CRC32C
 * checksums of every block, v3 with whole 32-bit tag checksums. */
#define JBD2_FEATURE_COMPAT_CHECKSUM 0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE 0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT 0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT 0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2 0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3 0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT 0x00000020

/* What this recovery reads (anything else: the journal is refused). */
#define JBD2_KNOWN_COMPAT_FEATURES 0
#define JBD2_KNOWN_ROCOMPAT_FEATURES 0
#define JBD2_KNOWN_INCOMPAT_FEATURES                                      \
	(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT |     \
	 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
	 JBD2_FEATURE_INCOMPAT_CSUM_V3)

/* a is after b, with IDs that wrap (Linux's tid_gt) */
static inline bool tid_gt(tid_t a, tid_t b)
{
	return (s32)(a - b) > 0;
}

static inline bool tid_geq(tid_t a, tid_t b)
{
	return (s32)(a - b) >= 0;
}

/* --- the interface for the file system ------------------------------------
 *
 * The file system fills in the first group of fields and calls
 * jbd2_journal_load(): the superblock is read and checked, a log left by
 * a crash is replayed (fs/jbd2/recovery.c) and the journal marked empty.
 * Then jbd2_journal_destroy().  No locks: one mount, one caller.  May
 * sleep (the callbacks read and write).
 */
struct jbd2_revoke_table_s;

typedef struct journal_s journal_t;

/*
 * Writing (fs/jbd2/transaction.c, commit.c).  A *handle* is one file
 * system operation (a create, a rename, a page of a write): every block
 * it changes joins the one *running transaction*, and a commit never
 * takes a transaction while a handle of it is open, so an operation is
 * in the log whole or not at all.  Handles nest in one task
 * (current->journal_info, as Linux): an inner start only counts.
 */
struct journal_head {		/* one metadata block of a transaction */
	struct list_head jh_list;	/* on t_buffers, in the order dirtied */
	struct list_head jh_hash;	/* on t_hash[], to find it again */
	u64 jh_blocknr;			/* its home */
	void *jh_data;			/* its bytes, in the file system's cache */
	void *jh_private;		/* the file system's (a page reference) */
};

#define JBD2_TRANS_HASH 64

typedef struct transaction_s {
	tid_t t_tid;			 /* given when its commit begins: IDs in the
					  * log must follow one another, and an
					  * empty transaction is never written */
	int t_updates;			 /* handles open */
	int t_outstanding_credits;	 /* blocks the open handles may still dirty */
	unsigned int t_nr_buffers;
	struct list_head t_buffers;	 /* struct journal_head */
	struct list_head t_hash[JBD2_TRANS_HASH];
	u64 *t_revoked;			 /* home blocks freed: not to be replayed */
	unsigned int t_nr_revoked, t_max_revoked;
	void **t_inodes;		 /* ordered mode: files whose data goes first */
	unsigned int t_nr_inodes, t_max_inodes;
	bool t_checkpointed;		 /* committed, its blocks handed to the
					  * file system's write-back (commit's (d)) */
} transaction_t;

typedef struct jbd2_journal_handle {
	journal_t *h_journal;
	transaction_t *h_transaction;
	int h_ref;			/* nested starts in the same task */
	int h_credits;
} handle_t;

struct journal_s {
	/* the file system's, before jbd2_journal_load() */
	char j_devname[32];	  /* for messages: "sda1-8", the device and inode */
	unsigned int j_blocksize; /* the file system's block size */
	u32 j_total_len;	  /* blocks of the journal inode */
	u64 j_fs_blocks;	  /* blocks of the file system: a home block is below */
	/* block blocknr (0 .. j_total_len - 1) of the journal into buf
	 * (j_blocksize bytes), or out of it; 0 or -errno */
	int (*j_read_block)(journal_t *j, u32 blocknr, void *buf);
	int (*j_write_block)(journal_t *j, u32 blocknr, const void *buf);
	/* block blocknr of the file system from buf (replay); 0 or -errno */
	int (*j_write_home)(journal_t *j, u64 blocknr, const void *buf);
	/* everything written so far durable (written back, cache flushed) */
	int (*j_sync)(journal_t *j);
	void *j_private;
	/* a log is there but the file system says it needs no recovery
	 * (needs_recovery clear): leave it alone, as Linux's journal_wipe
	 * does read-only */
	bool j_no_recovery;

	/* from the superblock (journal.c) */
	journal_superblock_t *j_superblock; /* a copy of block 0 */
	int j_format_version;		    /* 1 or 2 */
	u32 j_first, j_last;		    /* the log's blocks: [j_first, j_last) */
	tid_t j_tail_sequence;		    /* s_sequence */
	u32 j_tail;			    /* s_start */
	u32 j_csum_seed;		    /* CRC32C(~0, s_uuid) */

	/* recovery's results (recovery.c) */
	tid_t j_transaction_sequence; /* the next free ID after the log */
	tid_t j_failed_commit;	      /* a commit block with a bad checksum, or 0 */
	unsigned int j_replayed;      /* home blocks written */
	unsigned int j_revoke_hits;   /* logged blocks skipped as revoked */
	struct jbd2_revoke_table_s *j_revoke;

	/* --- writing: the file system's part, before jbd2_journal_init_write() */
	/* block blocknr of the journal from buf, REQ_* flags (REQ_PREFLUSH,
	 * REQ_FUA) on the request; may return before the write is done,
	 * but buf is the caller's again at once (copied or written) */
	int (*j_submit_log)(journal_t *j, u32 blocknr, const void *buf, unsigned int op_flags);
	/* every j_submit_log so far done: 0 or the first error */
	int (*j_wait_log)(journal_t *j);
	/* ordered mode: inode's dirty file data written and waited for */
	int (*j_write_inode_data)(journal_t *j, void *inode);
	void (*j_release_inode)(journal_t *j, void *inode);
	/* the block is committed (or the journal aborted): it may go home
	 * now (mark it dirty), and jh_private is let go */
	void (*j_checkpoint_buffer)(journal_t *j, struct journal_head *jh, bool committed);
	bool j_barrier;			/* barrier=1: the commit block with PREFLUSH | FUA */
	unsigned long j_commit_interval; /* jiffies between timed commits */

	/* --- writing: jbd2's (transaction.c, commit.c) */
	struct mutex j_commit_mutex;	/* one commit or checkpoint at a time */
	struct mutex j_state_lock;	/* the fields below */
	struct wait_queue_head j_wait; /* t_updates reaching 0, a commit ending */
	transaction_t *j_running;
	bool j_committing;		/* handles wait to start */
	int j_errno;			/* aborted: every start fails with it */
	u32 j_head;			/* the next log block to write */
	u32 j_free;			/* log blocks from j_head to j_last */
	unsigned int j_max_transaction_buffers; /* a transaction commits at this size */
	u64 j_commit_time;		/* jiffies of the last commit */
	unsigned long j_stats_commits, j_stats_checkpoints, j_stats_blocks;
};

static inline bool jbd2_has_feature(const journal_t *j, u32 incompat)
{
	return j->j_format_version >= 2 &&
	       (be32_to_cpu(j->j_superblock->s_feature_incompat) & incompat);
}

static inline bool jbd2_journal_has_csum_v2or3(const journal_t *j)
{
	return jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

/* journal.c */
int jbd2_journal_load(journal_t *journal);
void jbd2_journal_destroy(journal_t *journal);
/* a checksum as jbd2 computes them: CRC32C from seed over len bytes */
u32 jbd2_chksum(u32 seed, const void *buf, size_t len);
u32 jbd2_superblock_csum(const journal_superblock_t *sb);

/* recovery.c: replay the log (s_start != 0).  0 or -errno, logged. */
int jbd2_journal_recover(journal_t *journal);
/* The bytes of one tag in a descriptor block. */
size_t journal_tag_bytes(const journal_t *journal);

/* revoke.c: the revoke table, (home block -> the latest transaction that
 * revoked it), built by recovery's second pass */
int jbd2_journal_init_revoke(journal_t *journal, unsigned int hash_size);
void jbd2_journal_destroy_revoke(journal_t *journal);
int jbd2_journal_set_revoke(journal_t *journal, u64 blocknr, tid_t sequence);
bool jbd2_journal_test_revoke(journal_t *journal, u64 blocknr, tid_t sequence);
void jbd2_journal_clear_revoke(journal_t *journal);
/* Writing reuses the table: home block -> the last transaction that
 * logged it, since the last checkpoint (the blocks the log could still
 * replay, so the only ones a free must revoke). */
bool jbd2_journal_test_logged(journal_t *journal, u64 blocknr);

/* transaction.c: handles.  jbd2_journal_start() may sleep (a commit in
 * progress, a full transaction): call it before taking the file
 * system's locks.  ERR_PTR(-EROFS) once the journal is aborted. */
int jbd2_journal_init_write(journal_t *journal);
handle_t *jbd2_journal_start(journal_t *journal, int nblocks);
int jbd2_journal_stop(handle_t *handle);
/* The block at data (home blocknr) was changed: it joins the running
 * transaction.  1: it is new there, private is kept until the commit
 * (j_checkpoint_buffer); 0: it was there already, private is not kept. */
int jbd2_journal_dirty_metadata(journal_t *journal, u64 blocknr, void *data, void *private);
/* A home block was freed: an earlier logged copy must not be replayed
 * over what the block holds next. */
int jbd2_journal_revoke(journal_t *journal, u64 blocknr);
/* ordered mode: inode's data goes to the disk before this transaction
 * commits; 1: added (the caller's reference is kept), 0: already there */
int jbd2_journal_file_inode(journal_t *journal, void *inode);
void jbd2_journal_abort(journal_t *journal, int errno);

/* commit.c */
/* The running transaction, if any, to the log and committed; then the
 * caller's changes so far survive a crash.  Must not hold a handle. */
int jbd2_journal_commit_transaction(journal_t *journal);
/* Everything committed written home, the log emptied (s_start = 0). */
int jbd2_journal_checkpoint(journal_t *journal);
/* The last step of an aborted journal: the running transaction freed,
 * its blocks never written (no handle may be open). */
void jbd2_journal_drop_running(journal_t *journal);
/* Log blocks transaction t needs: descriptors, copies, revokes, commit. */
u32 jbd2_transaction_log_blocks(const journal_t *journal, const transaction_t *t);
/* Descriptor packing: tags per descriptor block, revoke records per block. */
unsigned int jbd2_tags_per_descriptor(const journal_t *journal);
unsigned int jbd2_revokes_per_block(const journal_t *journal);
/* Fill tag i of a descriptor at desc (for the logged block at data), and
 * finish a descriptor or revoke block (its checksum tail). */
void jbd2_descriptor_tag(const journal_t *journal, u8 *desc, unsigned int i, u64 blocknr,
			 const void *data, u32 flags, tid_t tid);
void jbd2_block_tail_csum(const journal_t *journal, u8 *block);

#endif /* SPINDLE_JBD2_H */
