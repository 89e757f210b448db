// SPDX-License-Identifier: MIT
/*
 * Journal recovery (fs/jbd2/) on the host, over journals this test
 * writes block by block into memory, with the layout and checksums of
 * Linux's jbd2 as documented in include/spindle/jbd2.h: a journal of
 * NJ blocks of BS bytes, a "file system" of NFS blocks, and callbacks
 * that read and write them (counting home writes).
 *
 * Core: logs without checksums, with checksum v2 (16-bit tag checksums,
 * tags of 10 or 14 bytes) and v3 (with 64-bit block numbers) replay
 * their committed transactions in order; a revoke skips the copies of
 * its own (even in the same transaction) and earlier transactions but
 * not of later ones; an escaped
 * block gets its magic number back; a torn last transaction is not
 * replayed; a log that wraps round the end of the journal is followed;
 * afterwards the journal superblock says empty (s_start 0, s_sequence
 * one past the log's end, its checksum right); an empty log writes
 * nothing.
 *
 * Limits: a table of damage, each refused with its error code and its
 * "JBD2: ..." line, and not one home block written: a superblock with a
 * bad magic, block size, length, first block, log start, checksum or
 * features; a descriptor, data block or revoke block whose checksum or
 * bounds are wrong inside a committed transaction; a log longer than
 * the journal.  And a bad commit block, which is no error: the log ends
 * before it (j_failed_commit), the transactions before it replayed.
 * Then 64 random damages: never a crash, a write outside the file
 * system, or (with checksums) a block the log did not carry.
 */
#include <check.h>
#include <spindle/jbd2.h>
#include <spindle/crc32.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include "shim/host.h"
#include "shim/host_kernel.h"

#define BS 1024
#define NJ 32  /* journal blocks */
#define NFS 64 /* file-system blocks */

static u8 jblk[NJ][BS];
static u8 fsblk[NFS][BS];
static unsigned int home_writes;
static journal_t journal;

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
	home_writes++;
	return 0;
}

static int t_sync(journal_t *j)
{
	(void)j;
	return 0;
}

/* --- a journal writer, from the format ------------------------------------ */

static u32 features; /* incompat */
static u32 seed;     /* CRC32C(~0, uuid) */
static u32 wpos;     /* the next journal block to write */
static const u8 uuid[16] = { 0x3e, 0x7a, 0x4c, 0x1b, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static bool csum_v2or3(void)
{
	return features & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

static void put32(u8 *p, u32 v)
{
	__be32 b = cpu_to_be32(v);

	memcpy(p, &b, 4);
}

static u32 get32(const u8 *p)
{
	__be32 b;

	memcpy(&b, p, 4);
	return be32_to_cpu(b);
}

static void header(u8 *b, u32 type, u32 seq)
{
	memset(b, 0, BS);
	put32(b, JBD2_MAGIC_NUMBER);
	put32(b + 4, type);
	put32(b + 8, seq);
}

/* the CRC32C of a block with the 4 bytes at off taken as 0, stored there */
static void seal(u8 *b, size_t off)
{
	put32(b + off, 0);
	put32(b + off, __crc32c_le(seed, b, BS));
}

static void write_sb(u32 seq, u32 start)
{
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];

	memset(jblk[0], 0, BS);
	sb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	sb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	sb->s_blocksize = cpu_to_be32(BS);
	sb->s_maxlen = cpu_to_be32(NJ);
	sb->s_first = cpu_to_be32(1);
	sb->s_sequence = cpu_to_be32(seq);
	sb->s_start = cpu_to_be32(start);
	sb->s_feature_incompat = cpu_to_be32(features);
	memcpy(sb->s_uuid, uuid, 16);
	sb->s_nr_users = cpu_to_be32(1);
	if (csum_v2or3()) {
		sb->s_checksum_type = JBD2_CRC32C_CHKSUM;
		sb->s_checksum = cpu_to_be32(jbd2_superblock_csum(sb));
	}
}

static u32 next_block(void)
{
	u32 b = wpos;

	wpos = wpos + 1 >= NJ ? 1 : wpos + 1;
	return b;
}

static size_t tag_bytes(void)
{
	size_t sz = 12;

	if (features & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return 16;
	if (features & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		sz += 2;
	return features & JBD2_FEATURE_INCOMPAT_64BIT ? sz : sz - 4;
}

/* Home block n's content in a transaction: a recognisable pattern. */
static void fill(u8 *b, u64 home, u32 seq)
{
	for (int i = 0; i < BS; i++)
		b[i] = (u8)(home * 7 + seq * 13 + (u32)i);
}

/*
 * Transaction seq logging homes[0..n), each with the pattern fill()
 * makes (or, for escape_first, a block starting with the magic); commit
 * if commit.  Returns the journal block of the descriptor.
 */
static u32 write_transaction(u32 seq, const u64 *homes, int n, bool commit, bool escape_first)
{
	u32 desc = next_block();
	u8 *d = jblk[desc];
	u8 *tagp = d + 12;

	header(d, JBD2_DESCRIPTOR_BLOCK, seq);
	for (int i = 0; i < n; i++) {
		u8 *data = jblk[next_block()];
		u32 flags = (i ? JBD2_FLAG_SAME_UUID : 0) | (i == n - 1 ? JBD2_FLAG_LAST_TAG : 0);
		__be32 seqb = cpu_to_be32(seq);
		u32 c;

		fill(data, homes[i], seq);
		if (escape_first && i == 0) {
			put32(data, JBD2_MAGIC_NUMBER);
			memset(data, 0, 4); /* as it lies in the log */
			flags |= JBD2_FLAG_ESCAPE;
		}
		c = __crc32c_le(__crc32c_le(seed, &seqb, 4), data, BS);
		put32(tagp, (u32)homes[i]);
		if (features & JBD2_FEATURE_INCOMPAT_CSUM_V3) {
			put32(tagp + 4, flags);
			put32(tagp + 8, (u32)(homes[i] >> 32));
			put32(tagp + 12, c);
		} else {
			tagp[4] = (u8)(c >> 8) * !!(features & JBD2_FEATURE_INCOMPAT_CSUM_V2);
			tagp[5] = (u8)c * !!(features & JBD2_FEATURE_INCOMPAT_CSUM_V2);
			tagp[6] = (u8)(flags >> 8);
			tagp[7] = (u8)flags;
			if (features & JBD2_FEATURE_INCOMPAT_64BIT)
				put32(tagp + 8, (u32)(homes[i] >> 32));
		}
		tagp += tag_bytes();
		if (i == 0)
			memcpy(tagp, uuid, 16), tagp += 16;
	}
	if (csum_v2or3())
		seal(d, BS - 4);
	if (commit) {
		u8 *cb = jblk[next_block()];

		header(cb, JBD2_COMMIT_BLOCK, seq);
		put32(cb + 48 + 4, 1000 + seq); /* h_commit_sec's low half */
		if (csum_v2or3())
			seal(cb, 16);
	}
	return desc;
}

/* A revoke-only transaction revoking homes[0..n). */
static u32 write_revoke(u32 seq, const u64 *homes, int n)
{
	u32 rb = next_block();
	u8 *r = jblk[rb], *cb;
	size_t rec = features & JBD2_FEATURE_INCOMPAT_64BIT ? 8 : 4;

	header(r, JBD2_REVOKE_BLOCK, seq);
	for (int i = 0; i < n; i++) {
		if (rec == 8) {
			put32(r + 16 + i * 8, (u32)(homes[i] >> 32));
			put32(r + 20 + i * 8, (u32)homes[i]);
		} else {
			put32(r + 16 + i * 4, (u32)homes[i]);
		}
	}
	put32(r + 12, (u32)(16 + n * rec));
	if (csum_v2or3())
		seal(r, BS - 4);
	cb = jblk[next_block()];
	header(cb, JBD2_COMMIT_BLOCK, seq);
	put32(cb + 48 + 4, 1000 + seq);
	if (csum_v2or3())
		seal(cb, 16);
	return rb;
}

static void setup_journal(u32 incompat)
{
	memset(jblk, 0, sizeof(jblk));
	memset(fsblk, 0xee, sizeof(fsblk));
	home_writes = 0;
	features = incompat;
	seed = __crc32c_le(~0u, uuid, 16);
	wpos = 1;
	memset(&journal, 0, sizeof(journal));
	strlcpy(journal.j_devname, "test-8", sizeof(journal.j_devname));
	journal.j_blocksize = BS;
	journal.j_total_len = NJ;
	journal.j_fs_blocks = NFS;
	journal.j_read_block = t_read;
	journal.j_write_block = t_write;
	journal.j_write_home = t_write_home;
	journal.j_sync = t_sync;
	host_printk_reset();
}

static int load(void)
{
	int err = jbd2_journal_load(&journal);

	jbd2_journal_destroy(&journal);
	return err;
}

static void assert_home(u64 home, u32 seq)
{
	u8 want[BS];

	fill(want, home, seq);
	ck_assert_msg(!memcmp(fsblk[home], want, BS), "block %llu is not transaction %u's copy",
		      (unsigned long long)home, seq);
}

static void assert_untouched(u64 home)
{
	for (int i = 0; i < BS; i++)
		ck_assert_msg(fsblk[home][i] == 0xee, "block %llu written", (unsigned long long)home);
}

static void assert_empty_after(u32 next_seq)
{
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];

	ck_assert_uint_eq(be32_to_cpu(sb->s_start), 0);
	ck_assert_uint_eq(be32_to_cpu(sb->s_sequence), next_seq);
	if (csum_v2or3())
		ck_assert_uint_eq(be32_to_cpu(sb->s_checksum), jbd2_superblock_csum(sb));
}

/* --- Core ------------------------------------------------------------------- */

static const u32 feature_sets[] = {
	JBD2_FEATURE_INCOMPAT_REVOKE,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V2,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_64BIT,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3,
	JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_64BIT,
};

/* 5: 3, 4, 9.  6: 4 again, 10.  7: revokes 9 and 10.  8: 10 again, 11
 * (torn: no commit).  Expect 3 and 4 from 5 and 6, 9 untouched (revoked
 * in 7 after 5 logged it), 10 untouched (6's copy revoked by 7) ... and
 * then 8 is torn, so 10's later copy is not replayed either: only a
 * committed transaction after the revoke would bring it back (below). */
START_TEST(replay_in_order_with_revoke)
{
	static const u64 t5[] = { 3, 4, 9 }, t6[] = { 4, 10 }, r7[] = { 9, 10 }, t8[] = { 10, 11 };

	setup_journal(feature_sets[_i]);
	write_transaction(5, t5, 3, true, false);
	write_transaction(6, t6, 2, true, false);
	write_revoke(7, r7, 2);
	write_transaction(8, t8, 2, false, false);
	write_sb(5, 1);
	ck_assert_int_eq(load(), 0);
	assert_home(3, 5);
	assert_home(4, 6); /* the later copy wins */
	assert_untouched(9);
	assert_untouched(10);
	assert_untouched(11);
	ck_assert_uint_eq(home_writes, 3);
	ck_assert_uint_eq(journal.j_revoke_hits, 2);
	assert_empty_after(9);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "JBD2: recovery of test-8: transactions 5 to 7, 3 blocks replayed, 2 skipped as revoked (2 revoke records)"));
}
END_TEST

/* A copy logged after the revoke is replayed. */
START_TEST(revoke_then_later_copy)
{
	static const u64 t1[] = { 20 }, r2[] = { 20 }, t3[] = { 20 };

	setup_journal(feature_sets[_i]);
	write_transaction(1, t1, 1, true, false);
	write_revoke(2, r2, 1);
	write_transaction(3, t3, 1, true, false);
	write_sb(1, 1);
	ck_assert_int_eq(load(), 0);
	assert_home(20, 3);
	ck_assert_uint_eq(home_writes, 1);
	assert_empty_after(5);
}
END_TEST

START_TEST(escape_restores_magic)
{
	static const u64 t1[] = { 7, 8 };
	u8 want[BS];

	setup_journal(feature_sets[_i]);
	write_transaction(1, t1, 2, true, true);
	write_sb(1, 1);
	ck_assert_int_eq(load(), 0);
	fill(want, 7, 1);
	put32(want, JBD2_MAGIC_NUMBER);
	ck_assert(!memcmp(fsblk[7], want, BS));
	assert_home(8, 1);
}
END_TEST

/* The log starts near the journal's end and goes round to block 1. */
START_TEST(log_wraps)
{
	static const u64 t1[] = { 1, 2, 3, 4 }, t2[] = { 5, 6 };

	setup_journal(feature_sets[_i]);
	wpos = NJ - 3;
	write_transaction(40, t1, 4, true, false); /* NJ-3 .. NJ-1, then 1, 2, 3 */
	write_transaction(41, t2, 2, true, false);
	write_sb(40, NJ - 3);
	ck_assert_int_eq(load(), 0);
	for (u64 b = 1; b <= 4; b++)
		assert_home(b, 40);
	assert_home(5, 41);
	assert_home(6, 41);
	assert_empty_after(43);
}
END_TEST

START_TEST(empty_log_writes_nothing)
{
	static const u64 t1[] = { 1 };

	setup_journal(feature_sets[_i]);
	write_transaction(1, t1, 1, true, false); /* a log, but s_start 0 */
	write_sb(2, 0);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(home_writes, 0);
	assert_untouched(1);
}
END_TEST

/* needs_recovery clear (j_no_recovery): the log is left as it is. */
START_TEST(no_recovery_leaves_log)
{
	static const u64 t1[] = { 1 };

	setup_journal(feature_sets[_i]);
	write_transaction(1, t1, 1, true, false);
	write_sb(1, 1);
	journal.j_no_recovery = true;
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(home_writes, 0);
	ck_assert_uint_eq(get32(jblk[0] + 0x1c), 1); /* s_start */
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "Ignoring recovery information"));
}
END_TEST

/* A bad commit block ends the log before its transaction: no error. */
START_TEST(bad_commit_ends_log)
{
	static const u64 t1[] = { 1 }, t2[] = { 2 };
	u32 d2;

	setup_journal(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_CSUM_V3);
	write_transaction(1, t1, 1, true, false);
	d2 = write_transaction(2, t2, 1, true, false);
	jblk[d2 + 2][40] ^= 1; /* transaction 2's commit block */
	write_sb(1, 1);
	ck_assert_int_eq(load(), 0);
	assert_home(1, 1);
	assert_untouched(2);
	ck_assert_uint_eq(journal.j_failed_commit, 2);
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "commit block of transaction 2 has a bad checksum"));
}
END_TEST

/* A block logged and revoked in the same transaction is not replayed
 * (it was freed after being logged), as debugfs's journal_write -b X -r X
 * writes it. */
START_TEST(revoke_in_same_transaction)
{
	static const u64 t1[] = { 30, 31 }, r1[] = { 30 };

	setup_journal(feature_sets[_i]);
	write_transaction(1, t1, 2, false, false);
	write_revoke(1, r1, 1); /* and transaction 1's commit block */
	write_sb(1, 1);
	ck_assert_int_eq(load(), 0);
	assert_untouched(30);
	assert_home(31, 1);
	assert_empty_after(3);
}
END_TEST

/* --- Limits: damage refused, nothing written -------------------------------- */

enum damage {
	SB_MAGIC, SB_BLOCKSIZE, SB_TOO_LONG, SB_FIRST_ZERO, SB_START_OUTSIDE, SB_CSUM,
	SB_FAST_COMMIT, SB_V2_AND_V3, SB_V1_CSUM, DESC_CSUM, DATA_CSUM, TAG_OUTSIDE,
	REVOKE_COUNT, LOG_TOO_LONG,
};

static const struct {
	const char *name;
	enum damage what;
	bool csum;
	int err;
	const char *line;
} damages[] = {
	{ "superblock magic", SB_MAGIC, false, -EINVAL, "JBD2: no valid journal superblock found" },
	{ "block size", SB_BLOCKSIZE, false, -EINVAL, "JBD2: no valid journal superblock found" },
	{ "longer than the inode", SB_TOO_LONG, false, -EINVAL, "JBD2: journal file too short" },
	{ "first block 0", SB_FIRST_ZERO, false, -EINVAL, "JBD2: Invalid start block of journal: 0" },
	{ "start outside", SB_START_OUTSIDE, false, -EUCLEAN, "JBD2: log start 99 outside the log" },
	{ "superblock checksum", SB_CSUM, true, -EUCLEAN, "JBD2: journal checksum error" },
	{ "fast commit", SB_FAST_COMMIT, false, -EINVAL, "JBD2: Unrecognised features on journal" },
	{ "v2 and v3", SB_V2_AND_V3, true, -EINVAL, "JBD2: Can't enable checksumming v2 and v3" },
	{ "checksum v1", SB_V1_CSUM, false, -EINVAL, "journal checksum v1" },
	{ "descriptor checksum", DESC_CSUM, true, -EUCLEAN, "JBD2: Invalid checksum found in transaction 2" },
	{ "data checksum", DATA_CSUM, true, -EUCLEAN, "JBD2: Invalid checksum recovering data block 12 in log" },
	{ "tag outside", TAG_OUTSIDE, false, -EUCLEAN, "JBD2: transaction 2 logs block 4108, outside the file system (64 blocks)" },
	{ "revoke count", REVOKE_COUNT, true, -EUCLEAN, "JBD2: revoke block of transaction 3: r_count 5000 outside the block" },
	{ "log too long", LOG_TOO_LONG, false, -EUCLEAN, "JBD2: the log runs past its 31 blocks" },
};

START_TEST(damage_refused)
{
	static const u64 t1[] = { 10, 11 }, t2[] = { 12, 13 }, r3[] = { 10 };
	u32 incompat = JBD2_FEATURE_INCOMPAT_REVOKE |
		       (damages[_i].csum ? JBD2_FEATURE_INCOMPAT_CSUM_V3 : 0);
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];
	u32 d2, r3b;

	setup_journal(incompat);
	write_transaction(1, t1, 2, true, false);
	d2 = write_transaction(2, t2, 2, true, false);
	r3b = write_revoke(3, r3, 1);
	write_sb(1, 1);
	switch (damages[_i].what) {
	case SB_MAGIC: sb->s_header.h_magic ^= 1; break;
	case SB_BLOCKSIZE: sb->s_blocksize = cpu_to_be32(4096); break;
	case SB_TOO_LONG: sb->s_maxlen = cpu_to_be32(NJ + 1); break;
	case SB_FIRST_ZERO: sb->s_first = 0; break;
	case SB_START_OUTSIDE: sb->s_start = cpu_to_be32(99); break;
	case SB_CSUM: sb->s_max_transaction ^= 1; break;
	case SB_FAST_COMMIT:
		sb->s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
		break;
	case SB_V2_AND_V3:
		sb->s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
		sb->s_checksum = cpu_to_be32(jbd2_superblock_csum(sb));
		break;
	case SB_V1_CSUM: sb->s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM); break;
	case DESC_CSUM: jblk[d2][20] ^= 0x80; break; /* a tag's t_blocknr_high */
	case DATA_CSUM: jblk[d2 + 1][100] ^= 1; break;
	case TAG_OUTSIDE: jblk[d2][12 + 2] = 0x10; break; /* block 12 -> 0x1000 + 12 */
	case REVOKE_COUNT:
		put32(jblk[r3b] + 12, 5000);
		seal(jblk[r3b], BS - 4);
		break;
	case LOG_TOO_LONG:
		/* a descriptor of 99 tags in a journal of 31 blocks */
		header(jblk[1], JBD2_DESCRIPTOR_BLOCK, 1);
		for (int i = 0; i < 99; i++) {
			u8 *t = jblk[1] + 12 + i * 8;

			if (t + 8 > jblk[1] + BS)
				break;
			put32(t, 1);
			t[7] = JBD2_FLAG_SAME_UUID;
		}
		break;
	}
	if (damages[_i].what == TAG_OUTSIDE)
		ck_assert_uint_eq(get32(jblk[d2] + 12), 4096 + 12);
	ck_assert_int_eq(load(), damages[_i].err);
	ck_assert_msg(strstr(host_printk_buf, damages[_i].line), "%s: no line \"%s\" in:\n%s",
		      damages[_i].name, damages[_i].line, host_printk_buf);
	ck_assert_uint_eq(home_writes, 0);
}
END_TEST

/*
 * Random damage: 1 to 4 bytes of the log flipped, 64 times.  Whatever
 * recovery decides, it neither crashes nor writes outside the file
 * system (t_write_home asserts it); with checksum v3 every block it
 * does write holds one of the copies the log really carried, and a
 * refusal writes nothing.
 */
START_TEST(random_damage_never_garbage)
{
	static const u64 t1[] = { 10, 11 }, t2[] = { 12, 13 }, r3[] = { 10 };
	bool csum = _i & 1;
	u64 rng = 0x9e3779b97f4a7c15ull * (u64)(_i + 1);
	u32 end;
	int err;

	setup_journal(JBD2_FEATURE_INCOMPAT_REVOKE |
		      (csum ? JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_64BIT : 0));
	write_transaction(1, t1, 2, true, false);
	write_transaction(2, t2, 2, true, false);
	write_revoke(3, r3, 1);
	end = wpos;
	write_sb(1, 1);
	for (int n = 1 + (int)(_i % 4); n > 0; n--) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		jblk[1 + rng % (end - 1)][(rng >> 8) % BS] ^= (u8)(1u << ((rng >> 20) % 8));
	}
	err = load();
	ck_assert_msg(err == 0 || err == -EUCLEAN || err == -EINVAL || err == -EIO,
		      "load() = %d", err);
	if (!csum)
		return;
	if (err)
		ck_assert_uint_eq(home_writes, 0);
	for (u64 b = 0; b < NFS; b++) {
		u8 want1[BS], want2[BS];

		if (fsblk[b][0] == 0xee && fsblk[b][BS - 1] == 0xee) {
			assert_untouched(b);
			continue;
		}
		fill(want1, b, 1);
		fill(want2, b, 2);
		/* 10 too: a damaged transaction 3 takes its revoke away */
		ck_assert_msg(((b == 10 || b == 11) && !memcmp(fsblk[b], want1, BS)) ||
				      ((b == 12 || b == 13) && !memcmp(fsblk[b], want2, BS)),
			      "seed %d: block %llu holds what no transaction logged", _i,
			      (unsigned long long)b);
	}
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
	Suite *s = suite_create("jbd2");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");
	int nsets = (int)ARRAY_SIZE(feature_sets);

	tcase_add_unchecked_fixture(core, setup, teardown);
	tcase_add_loop_test(core, replay_in_order_with_revoke, 0, nsets);
	tcase_add_loop_test(core, revoke_then_later_copy, 0, nsets);
	tcase_add_loop_test(core, escape_restores_magic, 0, nsets);
	tcase_add_loop_test(core, log_wraps, 0, nsets);
	tcase_add_loop_test(core, empty_log_writes_nothing, 0, nsets);
	tcase_add_loop_test(core, no_recovery_leaves_log, 0, nsets);
	tcase_add_test(core, bad_commit_ends_log);
	tcase_add_loop_test(core, revoke_in_same_transaction, 0, nsets);
	suite_add_tcase(s, core);

	tcase_add_unchecked_fixture(limits, setup, teardown);
	tcase_add_loop_test(limits, damage_refused, 0, ARRAY_SIZE(damages));
	tcase_add_loop_test(limits, random_damage_never_garbage, 0, 64);
	suite_add_tcase(s, limits);
	return s;
}
