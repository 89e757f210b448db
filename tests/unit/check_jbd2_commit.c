// SPDX-License-Identifier: MIT
/*
 * The journal's write side (fs/jbd2/transaction.c, commit.c) on the
 * host: handles and commits into a journal of NJ blocks in memory, then
 * a "crash" (the home blocks left as they were) and the mount's
 * recovery (fs/jbd2/recovery.c, which replays logs e2fsprogs wrote in
 * the ext3-replay scenario) over what the commits left.
 *
 * Core, for each feature set (none, 64-bit, checksum v2, v3):
 *  - a transaction's log, read back by this test's own reading of the
 *    format: the journal superblock's s_start and s_sequence, the
 *    descriptor's header, tags (home, flags: ESCAPE for a block that
 *    begins with the magic, LAST_TAG, SAME_UUID after the first) with
 *    the UUID after the first tag, the checksums (descriptor tail, each
 *    tag's, the commit block's: CRC32C from the UUID's seed, computed
 *    here), the copies, a revoke block, the commit block;
 *  - the order and flags of the writes: the commit block last, the only
 *    one with REQ_PREFLUSH | REQ_FUA (barrier=1); barrier=0 sends it
 *    plain;
 *  - a crash after the commit: recovery puts every block back, the
 *    escaped one with its magic, and skips the revoked one; a crash
 *    before the commit block: nothing replayed;
 *  - handles nest in one task; a block dirtied twice is logged once;
 *  - a free is revoked only when the log could replay the block.
 * WriteSequence, the commit's writes as a string of events (one
 * transaction with a file's ordered data): the data written (and
 * waited) before the commit block, the log blocks waited for before the
 * commit block, the commit block alone with REQ_PREFLUSH and REQ_FUA,
 * and waited for before any block goes home (labs/09-crash-consistency).
 * Limits: descriptor packing and the log's space accounting in numbers
 * worked out by hand; a log that fills is checkpointed (j_sync, the
 * superblock emptied) at the end of a commit, and later transactions
 * replay whole; a transaction larger than the journal, or than what the
 * log has left, is refused cleanly (-ENOSPC, the journal aborted, later
 * handles EROFS, nothing of it in the log or home).
 */
#include <check.h>
#include <spindle/jbd2.h>
#include <spindle/blk_types.h>
#include <spindle/crc32.h>
#include <spindle/errno.h>
#include <spindle/err.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include "shim/host.h"
#include "shim/host_kernel.h"

#define BS 1024
#define NJ 64  /* journal blocks: 63 of log, 15 a transaction */
#define NFS 128 /* file-system blocks */

static u8 jblk[NJ][BS];
static u8 fsblk[NFS][BS];	/* the disk's home blocks */
static u8 cache[NFS][BS];	/* the file system's cache of them */
static unsigned int flags_of[NJ]; /* op_flags of the last write of each journal block */
static int order[256], nwrites;	  /* journal blocks in the order written */
static bool drop_commit;		  /* the crash comes before the commit block lands */
static bool pending[NFS];		  /* committed, not yet home (until j_sync) */
/* The commit's calls in order, one letter each: S the journal superblock
 * written, D a file's data written and waited (j_write_inode_data), L a
 * log block, C the commit block, w a wait (j_wait_log), K a block handed
 * to the write-back (j_checkpoint_buffer). */
static char events[512];
static int nevents;
static unsigned int syncs, checkpointed;
static journal_t journal;
static u32 features, seed;
static const u8 uuid[16] = { 0x3e, 0x7a, 0x4c, 0x1b, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static const u32 feature_sets[] = {
	JBD2_FEATURE_INCOMPAT_REVOKE,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V2,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_64BIT,
};

static u32 get32(const u8 *p)
{
	__be32 b;

	memcpy(&b, p, 4);
	return be32_to_cpu(b);
}

static u16 get16(const u8 *p)
{
	__be16 b;

	memcpy(&b, p, 2);
	return be16_to_cpu(b);
}

/* --- the callbacks: a journal and a disk in memory --------------------------- */

static int t_read(journal_t *j, u32 nr, void *buf)
{
	ck_assert_uint_lt(nr, j->j_total_len);
	memcpy(buf, jblk[nr], BS);
	return 0;
}

static int t_write(journal_t *j, u32 nr, const void *buf)
{
	ck_assert_uint_lt(nr, j->j_total_len);
	memcpy(jblk[nr], buf, BS);
	return 0;
}

static int t_write_home(journal_t *j, u64 nr, const void *buf)
{
	(void)j;
	ck_assert_uint_lt(nr, NFS);
	memcpy(fsblk[nr], buf, BS);
	return 0;
}

/* The write-back of every committed block, then the cache flush. */
static int t_sync(journal_t *j)
{
	(void)j;
	for (int b = 0; b < NFS; b++)
		if (pending[b])
			memcpy(fsblk[b], cache[b], BS);
	memset(pending, 0, sizeof(pending));
	syncs++;
	return 0;
}

static void event(char e)
{
	ck_assert_int_lt(nevents, (int)sizeof(events) - 1);
	events[nevents++] = e;
	events[nevents] = '\0';
}

static int t_submit_log(journal_t *j, u32 nr, const void *buf, unsigned int op_flags)
{
	ck_assert_uint_lt(nr, j->j_total_len);
	ck_assert_int_lt(nwrites, (int)ARRAY_SIZE(order));
	order[nwrites++] = (int)nr;
	flags_of[nr] = op_flags;
	event(nr == 0 ? 'S' : get32((const u8 *)buf + 4) == JBD2_COMMIT_BLOCK &&
				       get32((const u8 *)buf) == JBD2_MAGIC_NUMBER ? 'C' : 'L');
	if (drop_commit && get32((const u8 *)buf) == JBD2_MAGIC_NUMBER &&
	    get32((const u8 *)buf + 4) == JBD2_COMMIT_BLOCK)
		return 0; /* lost in the crash */
	memcpy(jblk[nr], buf, BS);
	return 0;
}

static int t_wait_log(journal_t *j)
{
	(void)j;
	event('w');
	return 0;
}

static int t_write_inode_data(journal_t *j, void *inode)
{
	(void)j;
	(void)inode;
	event('D');
	return 0;
}

static void t_release_inode(journal_t *j, void *inode)
{
	(void)j;
	(void)inode;
}

/* Committed: the block may go home, which here it does at the next
 * j_sync only (the worst a crash can find: nothing written back). */
static void t_checkpoint_buffer(journal_t *j, struct journal_head *jh, bool committed)
{
	(void)j;
	if (committed) {
		event('K');
		pending[jh->jh_blocknr] = true;
		checkpointed++;
	}
}

static void write_sb(u32 seq)
{
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];

	memset(jblk[0], 0, BS);
	sb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	sb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	sb->s_blocksize = cpu_to_be32(BS);
	sb->s_maxlen = cpu_to_be32(NJ);
	sb->s_first = cpu_to_be32(1);
	sb->s_sequence = cpu_to_be32(seq);
	sb->s_feature_incompat = cpu_to_be32(features);
	memcpy(sb->s_uuid, uuid, 16);
	sb->s_nr_users = cpu_to_be32(1);
	if (features & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		sb->s_checksum_type = JBD2_CRC32C_CHKSUM;
		sb->s_checksum = cpu_to_be32(jbd2_superblock_csum(sb));
	}
}

/* A journal_t over the memory journal, loaded (recovery when the log is
 * not empty). */
static int open_journal(void)
{
	memset(&journal, 0, sizeof(journal));
	strlcpy(journal.j_devname, "test-8", sizeof(journal.j_devname));
	journal.j_blocksize = BS;
	journal.j_total_len = NJ;
	journal.j_fs_blocks = NFS;
	journal.j_read_block = t_read;
	journal.j_write_block = t_write;
	journal.j_write_home = t_write_home;
	journal.j_sync = t_sync;
	journal.j_submit_log = t_submit_log;
	journal.j_wait_log = t_wait_log;
	journal.j_checkpoint_buffer = t_checkpoint_buffer;
	journal.j_write_inode_data = t_write_inode_data;
	journal.j_release_inode = t_release_inode;
	journal.j_barrier = true;
	return jbd2_journal_load(&journal);
}

/* A fresh journal (sequence 1, empty) ready to write. */
static void setup_writer(u32 incompat)
{
	features = incompat;
	seed = __crc32c_le(~0u, uuid, 16);
	memset(jblk, 0, sizeof(jblk));
	memset(fsblk, 0xee, sizeof(fsblk));
	memset(flags_of, 0, sizeof(flags_of));
	nwrites = 0;
	nevents = 0;
	events[0] = '\0';
	drop_commit = false;
	syncs = checkpointed = 0;
	memset(pending, 0, sizeof(pending));
	write_sb(1);
	ck_assert_int_eq(open_journal(), 0);
	journal.j_transaction_sequence = journal.j_tail_sequence;
	ck_assert_int_eq(jbd2_journal_init_write(&journal), 0);
	host_printk_reset();
}

/* The crash: the home blocks back to what they were (the write-back
 * never happened), then a mount's recovery. */
static int crash_and_recover(void)
{
	int err;

	jbd2_journal_destroy(&journal);
	memset(fsblk, 0xee, sizeof(fsblk));
	memset(pending, 0, sizeof(pending));
	err = open_journal();
	jbd2_journal_destroy(&journal);
	return err;
}

static void change(u64 home, u8 v)
{
	memset(cache[home], v, BS);
	ck_assert_int_ge(jbd2_journal_dirty_metadata(&journal, home, cache[home], NULL), 0);
}

static size_t tag_bytes(void)
{
	if (features & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return 16;
	return (features & JBD2_FEATURE_INCOMPAT_64BIT ? 12 : 8) +
	       (features & JBD2_FEATURE_INCOMPAT_CSUM_V2 ? 2 : 0);
}

static bool csum(void)
{
	return features & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

/* the CRC32C of block b with its 4 bytes at off taken as 0 */
static u32 crc_without(const u8 *b, size_t off)
{
	u8 copy[BS];

	memcpy(copy, b, BS);
	memset(copy + off, 0, 4);
	return __crc32c_le(seed, copy, BS);
}

/* --- Core ----------------------------------------------------------------------- */

/* Transaction 1: block 3 (dirtied twice), block 5 beginning with the
 * magic, block 7; block 9 changed, then freed (revoked in the same
 * transaction: logged, never replayed). */
static void one_transaction(void)
{
	handle_t *h = jbd2_journal_start(&journal, 8), *inner;

	ck_assert(!IS_ERR(h));
	change(3, 0x33);
	inner = jbd2_journal_start(&journal, 4);
	ck_assert_ptr_eq(inner, h); /* nested in the same task */
	change(5, 0x55);
	cache[5][0] = 0xc0, cache[5][1] = 0x3b, cache[5][2] = 0x39, cache[5][3] = 0x98;
	ck_assert_int_eq(jbd2_journal_stop(inner), 0);
	ck_assert_int_eq(jbd2_journal_dirty_metadata(&journal, 3, cache[3], NULL), 0); /* already in */
	change(7, 0x77);
	change(9, 0x99);
	ck_assert_int_eq(jbd2_journal_revoke(&journal, 9), 0);
	ck_assert_uint_eq(journal.j_running->t_nr_revoked, 1);
	ck_assert_int_eq(journal.j_running->t_updates, 1);
	ck_assert_int_eq(jbd2_journal_stop(h), 0);
	ck_assert_int_eq(journal.j_running->t_updates, 0);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
}

START_TEST(commit_layout)
{
	static const u64 homes[] = { 3, 5, 7, 9 };
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];
	const u8 *d = jblk[1], *c;
	size_t tb;

	setup_writer(feature_sets[_i]);
	tb = tag_bytes();
	one_transaction();
	/* the superblock points at the log: start 1, transaction 1 */
	ck_assert_uint_eq(be32_to_cpu(sb->s_start), 1);
	ck_assert_uint_eq(be32_to_cpu(sb->s_sequence), 1);
	if (csum())
		ck_assert_uint_eq(be32_to_cpu(sb->s_checksum), jbd2_superblock_csum(sb));
	/* block 1: the descriptor */
	ck_assert_uint_eq(get32(d), JBD2_MAGIC_NUMBER);
	ck_assert_uint_eq(get32(d + 4), JBD2_DESCRIPTOR_BLOCK);
	ck_assert_uint_eq(get32(d + 8), 1);
	ck_assert(!memcmp(d + 12 + tb, uuid, 16)); /* after the first tag */
	for (unsigned int i = 0; i < 4; i++) {
		const u8 *tag = d + 12 + i * tb + (i ? 16 : 0);
		const u8 *copy = jblk[2 + i];
		bool v3 = features & JBD2_FEATURE_INCOMPAT_CSUM_V3;
		u32 flags = v3 ? get32(tag + 4) : get16(tag + 6);
		u32 want = (i ? JBD2_FLAG_SAME_UUID : 0) | (i == 3 ? JBD2_FLAG_LAST_TAG : 0) |
			   (i == 1 ? JBD2_FLAG_ESCAPE : 0);
		__be32 seq = cpu_to_be32(1);
		u32 crc = __crc32c_le(__crc32c_le(seed, &seq, 4), copy, BS);
		u8 expect[BS];

		ck_assert_uint_eq(get32(tag), homes[i]);
		ck_assert_uint_eq(flags, want);
		if (v3)
			ck_assert_uint_eq(get32(tag + 12), crc);
		else if (csum())
			ck_assert_uint_eq(get16(tag + 4), crc & 0xffff);
		memcpy(expect, cache[homes[i]], BS);
		if (i == 1)
			memset(expect, 0, 4); /* escaped */
		ck_assert(!memcmp(copy, expect, BS));
	}
	if (csum())
		ck_assert_uint_eq(get32(d + BS - 4), crc_without(d, BS - 4));
	/* block 6: the revoke block, one record */
	ck_assert_uint_eq(get32(jblk[6] + 4), JBD2_REVOKE_BLOCK);
	if (features & JBD2_FEATURE_INCOMPAT_64BIT) {
		ck_assert_uint_eq(get32(jblk[6] + 12), 16 + 8);
		ck_assert_uint_eq(get32(jblk[6] + 20), 9);
	} else {
		ck_assert_uint_eq(get32(jblk[6] + 12), 16 + 4);
		ck_assert_uint_eq(get32(jblk[6] + 16), 9);
	}
	if (csum())
		ck_assert_uint_eq(get32(jblk[6] + BS - 4), crc_without(jblk[6], BS - 4));
	/* block 7: the commit block, written last, alone with PREFLUSH | FUA */
	c = jblk[7];
	ck_assert_uint_eq(get32(c + 4), JBD2_COMMIT_BLOCK);
	ck_assert_uint_eq(get32(c + 8), 1);
	if (csum())
		ck_assert_uint_eq(get32(c + 16), crc_without(c, 16));
	ck_assert_int_eq(order[nwrites - 1], 7);
	ck_assert_uint_eq(flags_of[7] & (REQ_PREFLUSH | REQ_FUA), REQ_PREFLUSH | REQ_FUA);
	for (unsigned int b = 1; b < 7; b++)
		ck_assert_uint_eq(flags_of[b] & (REQ_PREFLUSH | REQ_FUA), 0);
	ck_assert_uint_eq(checkpointed, 4);
	ck_assert_uint_eq(journal.j_transaction_sequence, 2);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(crash_after_commit_replays)
{
	setup_writer(feature_sets[_i]);
	one_transaction();
	ck_assert_int_eq(crash_and_recover(), 0);
	ck_assert(!memcmp(fsblk[3], cache[3], BS));
	ck_assert(!memcmp(fsblk[5], cache[5], BS)); /* the magic back */
	ck_assert(!memcmp(fsblk[7], cache[7], BS));
	ck_assert_uint_eq(fsblk[9][0], 0xee);	     /* logged, but revoked: not replayed */
	ck_assert_uint_eq(journal.j_replayed, 3);
}
END_TEST

START_TEST(crash_before_commit_block)
{
	setup_writer(feature_sets[_i]);
	drop_commit = true;
	one_transaction();
	ck_assert_int_eq(crash_and_recover(), 0);
	for (int b = 0; b < NFS; b++)
		ck_assert_uint_eq(fsblk[b][0], 0xee);
	ck_assert_uint_eq(journal.j_replayed, 0);
}
END_TEST

START_TEST(nobarrier_plain_commit)
{
	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	journal.j_barrier = false;
	one_transaction();
	ck_assert_uint_eq(flags_of[7] & (REQ_PREFLUSH | REQ_FUA), 0);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(empty_commit_writes_nothing)
{
	handle_t *h;

	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	h = jbd2_journal_start(&journal, 4);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	ck_assert_int_eq(nwrites, 0);
	ck_assert_uint_eq(journal.j_transaction_sequence, 1); /* no ID spent */
	jbd2_journal_destroy(&journal);
}
END_TEST

/* A free is revoked only if the log could replay the block: logged by a
 * transaction still in the log, not a block never logged, nor one whose
 * log a checkpoint emptied.  And a crash then replays T1 but not its
 * revoked block. */
START_TEST(revoke_only_what_the_log_holds)
{
	handle_t *h;

	setup_writer(feature_sets[_i]);
	h = jbd2_journal_start(&journal, 4);
	change(20, 0x20);
	change(21, 0x21);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	h = jbd2_journal_start(&journal, 4);
	ck_assert_int_eq(jbd2_journal_revoke(&journal, 20), 0); /* logged in 1 */
	ck_assert_int_eq(jbd2_journal_revoke(&journal, 30), 0); /* never logged */
	ck_assert_uint_eq(journal.j_running->t_nr_revoked, 1);
	ck_assert_uint_eq(journal.j_running->t_revoked[0], 20);
	change(22, 0x22);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	ck_assert_int_eq(crash_and_recover(), 0);
	ck_assert_uint_eq(fsblk[20][0], 0xee);
	ck_assert_uint_eq(fsblk[21][0], 0x21);
	ck_assert_uint_eq(fsblk[22][0], 0x22);
	/* again, with a checkpoint between: nothing left to revoke */
	setup_writer(feature_sets[_i]);
	h = jbd2_journal_start(&journal, 4);
	change(20, 0x20);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	ck_assert_int_eq(jbd2_journal_checkpoint(&journal), 0);
	h = jbd2_journal_start(&journal, 4);
	ck_assert_int_eq(jbd2_journal_revoke(&journal, 20), 0);
	ck_assert_uint_eq(journal.j_running->t_nr_revoked, 0);
	jbd2_journal_stop(h);
	jbd2_journal_destroy(&journal);
}
END_TEST

/* --- WriteSequence ---------------------------------------------------------- */

static int file_a, file_b; /* two files whose data the transaction orders */

/* One transaction with two files' data; returns the events string of its
 * commit alone (the superblock write included). */
static const char *sequenced_commit(void)
{
	handle_t *h;

	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	h = jbd2_journal_start(&journal, 8);
	ck_assert(!IS_ERR(h));
	change(3, 0x33);
	change(7, 0x77);
	ck_assert_int_eq(jbd2_journal_file_inode(&journal, &file_a), 1);
	ck_assert_int_eq(jbd2_journal_file_inode(&journal, &file_b), 1);
	ck_assert_int_eq(jbd2_journal_stop(h), 0);
	nevents = 0;
	events[0] = '\0';
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	ck_assert_msg(strchr(events, 'C'), "commit: %s: no commit block written", events);
	return events;
}

START_TEST(ordered_data_before_commit_block)
{
	const char *ev = sequenced_commit();
	const char *last_d = strrchr(ev, 'D'), *c = strchr(ev, 'C');

	ck_assert_msg(last_d && strchr(ev, 'D') != last_d,
		      "commit: %s: both files' data (D) must be written", ev);
	/* before or after the log blocks: both are waited for before C */
	ck_assert_msg(last_d < c,
		      "commit: %s: a file's data (D) after the commit block (C): ordered mode writes the data first",
		      ev);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(log_blocks_waited_before_commit_block)
{
	const char *ev = sequenced_commit();
	const char *c = strchr(ev, 'C'), *last_l = NULL, *p;

	for (p = ev; p < c; p++)
		if (*p == 'L')
			last_l = p;
	ck_assert_msg(last_l, "commit: %s: no log block (L) before the commit block (C)", ev);
	ck_assert_msg(memchr(last_l, 'w', (size_t)(c - last_l)),
		      "commit: %s: no wait (w) between the last log block (L) and the commit block (C)", ev);
	ck_assert_msg(!strchr(c + 1, 'L'), "commit: %s: a log block (L) after the commit block (C)", ev);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(commit_block_preflush)
{
	const char *ev = sequenced_commit();

	ck_assert_msg(flags_of[order[nwrites - 1]] & REQ_PREFLUSH,
		      "commit: %s: the commit block's flags %#x lack REQ_PREFLUSH (%#x)", ev,
		      flags_of[order[nwrites - 1]], REQ_PREFLUSH);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(commit_block_fua)
{
	const char *ev = sequenced_commit();

	ck_assert_msg(flags_of[order[nwrites - 1]] & REQ_FUA,
		      "commit: %s: the commit block's flags %#x lack REQ_FUA (%#x)", ev,
		      flags_of[order[nwrites - 1]], REQ_FUA);
	jbd2_journal_destroy(&journal);
}
END_TEST

START_TEST(commit_waited_before_checkpoint)
{
	const char *ev = sequenced_commit();
	const char *c = strchr(ev, 'C'), *k = strchr(ev, 'K');

	ck_assert_msg(k, "commit: %s: no block handed to the write-back (K)", ev);
	ck_assert_msg(c < k && memchr(c, 'w', (size_t)(k - c)),
		      "commit: %s: a block goes home (K) before the commit block (C) was waited for (w)", ev);
	ck_assert_msg(!strchr(k, 'D') && !strchr(k, 'L'),
		      "commit: %s: a write after the checkpoint (K)", ev);
	jbd2_journal_destroy(&journal);
}
END_TEST

/* --- Limits ---------------------------------------------------------------------- */

START_TEST(packing_in_numbers)
{
	transaction_t t = { .t_nr_buffers = 125, .t_nr_revoked = 300 };

	/* 1 KiB, no checksums, 32-bit: tags of 8 bytes after a 12-byte
	 * header and one 16-byte UUID: (1024 - 28) / 8 = 124; revoke records
	 * of 4 bytes after 16: (1024 - 16) / 4 = 252 */
	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	ck_assert_uint_eq(jbd2_tags_per_descriptor(&journal), 124);
	ck_assert_uint_eq(jbd2_revokes_per_block(&journal), 252);
	/* 2 descriptors + 125 copies + 2 revoke blocks + the commit */
	ck_assert_uint_eq(jbd2_transaction_log_blocks(&journal, &t), 130);
	/* the space: 31 log blocks, a transaction commits at a quarter */
	ck_assert_uint_eq(journal.j_free, NJ - 1);
	ck_assert_uint_eq(journal.j_max_transaction_buffers, (NJ - 1) / 4);
	jbd2_journal_destroy(&journal);
	/* v3, 64-bit: 16-byte tags and a 4-byte tail: (1024 - 32) / 16 = 62;
	 * 8-byte records: (1024 - 20) / 8 = 125 */
	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3 |
		     JBD2_FEATURE_INCOMPAT_64BIT);
	ck_assert_uint_eq(jbd2_tags_per_descriptor(&journal), 62);
	ck_assert_uint_eq(jbd2_revokes_per_block(&journal), 125);
	ck_assert_uint_eq(jbd2_transaction_log_blocks(&journal, &t), 3 + 125 + 3 + 1);
	jbd2_journal_destroy(&journal);
}
END_TEST

/* Twenty transactions of 3 blocks (5 log blocks each) in a log of 63:
 * the log fills and is checkpointed; a crash then replays what the log
 * still holds, and the homes hold the rest: every block's last value. */
START_TEST(full_log_checkpoints)
{
	u8 last[NFS];

	setup_writer(feature_sets[_i]);
	memset(last, 0xee, sizeof(last));
	for (int n = 0; n < 20; n++) {
		handle_t *h = jbd2_journal_start(&journal, 3);

		for (int k = 0; k < 3; k++) {
			u64 b = 10 + (u64)((n + k) % 8);

			change(b, (u8)(n * 3 + k + 1));
			last[b] = (u8)(n * 3 + k + 1);
		}
		jbd2_journal_stop(h);
		ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	}
	ck_assert_uint_ge(syncs, 1);
	ck_assert_uint_ge(journal.j_stats_checkpoints, 1);
	ck_assert_uint_eq(journal.j_transaction_sequence, 21);
	/* the crash keeps the homes as the checkpoints left them; what was
	 * committed after the last one is only in the log */
	memset(pending, 0, sizeof(pending));
	jbd2_journal_destroy(&journal);
	ck_assert_int_eq(open_journal(), 0);
	jbd2_journal_destroy(&journal);
	for (u64 b = 10; b < 18; b++)
		ck_assert_uint_eq(fsblk[b][0], last[b]);
}
END_TEST

START_TEST(transaction_larger_than_journal)
{
	handle_t *h;

	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	h = jbd2_journal_start(&journal, 4);
	for (u64 b = 0; b < 80; b++) /* far past its credits: 80 blocks > 63 */
		change(b, 1);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), -ENOSPC);
	ck_assert(strstr(host_printk_buf,
			 "JBD2: test-8: transaction 1 needs 82 log blocks, the journal has 63 (63 free)"));
	ck_assert(strstr(host_printk_buf, "journal aborted"));
	ck_assert_int_eq(nwrites, 0);
	ck_assert_uint_eq(checkpointed, 0); /* nothing goes home */
	h = jbd2_journal_start(&journal, 1);
	ck_assert(IS_ERR(h) && PTR_ERR(h) == -EROFS);
	jbd2_journal_destroy(&journal);
}
END_TEST

/* A transaction that fits in the journal but not in what a full log has
 * left (its handle went past its credits) is refused too: a checkpoint
 * in the middle of its commit would send its own blocks home before its
 * commit block.  The log before it still replays whole. */
START_TEST(past_credits_not_checkpointed_mid_commit)
{
	handle_t *h;

	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	/* 9 transactions of 3 blocks, 5 log blocks each: 45 of 63 used, 18
	 * free -- more than a transaction may take (15), so no checkpoint */
	for (int n = 0; n < 9; n++) {
		h = jbd2_journal_start(&journal, 3);
		for (int k = 0; k < 3; k++)
			change(10 + (u64)k, (u8)(n + 1));
		jbd2_journal_stop(h);
		ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	}
	ck_assert_uint_eq(journal.j_free, 18);
	ck_assert_uint_eq(syncs, 0);
	h = jbd2_journal_start(&journal, 4);
	for (u64 b = 40; b < 70; b++) /* 30 blocks: 32 log blocks > 18 */
		change(b, 0x77);
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), -ENOSPC);
	ck_assert(strstr(host_printk_buf, "needs 32 log blocks, the journal has 63 (18 free)"));
	ck_assert_uint_eq(syncs, 0); /* nothing went home */
	ck_assert_int_eq(crash_and_recover(), 0);
	for (u64 b = 10; b < 13; b++)
		ck_assert_uint_eq(fsblk[b][0], 9);
	for (u64 b = 40; b < 70; b++)
		ck_assert_uint_eq(fsblk[b][0], 0xee);
}
END_TEST

/*
 * An operation's changes commit together: a handle that is still open
 * when a commit begins (on another CPU: the commit has set j_running to
 * NULL and waits for the handle to stop) puts its next changes in its own
 * transaction, not in a new one -- else the commit would take half of a
 * mkdir (the new inode allocated, its directory entry not) and a crash
 * after it leave a file system e2fsck must fix.  The block changed after
 * the commit began is in that transaction's log, and no new transaction
 * was made.
 */
START_TEST(handle_changes_stay_in_its_transaction)
{
	transaction_t *t;
	handle_t *h;

	setup_writer(JBD2_FEATURE_INCOMPAT_REVOKE);
	h = jbd2_journal_start(&journal, 4);
	change(10, 0x11);
	t = journal.j_running;
	ck_assert_ptr_eq(h->h_transaction, t);
	/* what jbd2_journal_commit_transaction() does first */
	journal.j_committing = true;
	journal.j_running = NULL;
	change(11, 0x22);
	ck_assert_msg(journal.j_running == NULL, "a change under a handle of the committing "
		      "transaction started a new one: the operation is split in two");
	ck_assert_uint_eq(t->t_nr_buffers, 2);
	journal.j_running = t;          /* the commit proper, from the start */
	journal.j_committing = false;
	jbd2_journal_stop(h);
	ck_assert_int_eq(jbd2_journal_commit_transaction(&journal), 0);
	ck_assert_int_eq(crash_and_recover(), 0);
	ck_assert_uint_eq(fsblk[10][0], 0x11);
	ck_assert_uint_eq(fsblk[11][0], 0x22);
}
END_TEST

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(256 * PAGE_SIZE);
}

static void teardown(void)
{
	host_mm_exit();
}

Suite *unit_suite(void)
{
	Suite *s = suite_create("jbd2_commit");
	TCase *core = tcase_create("Core");
	TCase *seq = tcase_create("WriteSequence");
	TCase *limits = tcase_create("Limits");
	int nsets = (int)ARRAY_SIZE(feature_sets);

	tcase_add_unchecked_fixture(core, setup, teardown);
	tcase_add_loop_test(core, commit_layout, 0, nsets);
	tcase_add_loop_test(core, crash_after_commit_replays, 0, nsets);
	tcase_add_loop_test(core, crash_before_commit_block, 0, nsets);
	tcase_add_loop_test(core, revoke_only_what_the_log_holds, 0, nsets);
	tcase_add_test(core, nobarrier_plain_commit);
	tcase_add_test(core, empty_commit_writes_nothing);
	suite_add_tcase(s, core);

	tcase_add_unchecked_fixture(seq, setup, teardown);
	tcase_add_test(seq, ordered_data_before_commit_block);
	tcase_add_test(seq, log_blocks_waited_before_commit_block);
	tcase_add_test(seq, commit_block_preflush);
	tcase_add_test(seq, commit_block_fua);
	tcase_add_test(seq, commit_waited_before_checkpoint);
	suite_add_tcase(s, seq);

	tcase_add_unchecked_fixture(limits, setup, teardown);
	tcase_add_test(limits, packing_in_numbers);
	tcase_add_loop_test(limits, full_log_checkpoints, 0, nsets);
	tcase_add_test(limits, transaction_larger_than_journal);
	tcase_add_test(limits, past_credits_not_checkpointed_mid_commit);
	tcase_add_test(limits, handle_changes_stay_in_its_transaction);
	suite_add_tcase(s, limits);
	return s;
}
