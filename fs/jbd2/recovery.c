// SPDX-License-Identifier: MIT
/*
 * recovery.c - replaying a journal after a crash, in Linux's three
 * passes over the log (the format: <spindle/jbd2.h>).
 *
 * Where it sits: jbd2_journal_load() (journal.c) calls
 * jbd2_journal_recover() at mount when the journal superblock's s_start
 * is not 0, before the file system reads any of its metadata.  Reads and
 * writes go through the journal's callbacks; nothing here knows a device.
 *
 *   PASS_SCAN    walk the log from s_start, transaction s_sequence, to
 *                the first block that does not continue it (no magic, or
 *                the wrong sequence): its end.  Only transactions whose
 *                commit block was found count.  Every checksum of those
 *                (descriptor, each logged block, revoke, commit) and
 *                every bound (a home block inside the file system, a
 *                revoke count inside its block, a log no longer than the
 *                journal) is checked here, so that a damaged log is
 *                refused before the first write.
 *   PASS_REVOKE  the revoke records of the committed transactions, into
 *                the revoke table (revoke.c).
 *   PASS_REPLAY  every logged block of the committed transactions to its
 *                home, in log order (a later copy overwrites an earlier
 *                one), except those a transaction at or after its own
 *                revoked.  A logged block that began with the magic
 *                number was stored with its first 4 bytes zeroed and the
 *                ESCAPE flag: they are put back.
 *
 * What is damage and what is the log's end, as Linux decides it: a torn
 * transaction (no commit block) is the end, silently.  A block with a
 * bad checksum inside a transaction whose commit block is good is
 * damage: recovery fails (-EUCLEAN) with one "JBD2: ..." line, nothing
 * written.  A bad checksum in the commit block itself ends the log
 * before that transaction (j_failed_commit; the file system marks itself
 * as having errors).  With checksums, a block left from an older pass
 * round the circle is told from damage by its commit time going back.
 *
 * Checksums (csum v2/v3, CRC32C seeded by the journal's UUID,
 * j_csum_seed): a descriptor or revoke block over the whole block with
 * its tail taken as 0; a commit block with h_chksum[0] as 0; a logged
 * block over its transaction's ID (big-endian) then its bytes as they lie
 * in the log, in the tag (v3: 32 bits; v2: the low 16).  Checksum v1
 * (COMPAT_CHECKSUM, CRC32 over a transaction) is not read: journal.c
 * refuses to recover such a log.
 *
 * One caller (the mount), no locks; may sleep.
 */
#include <spindle/jbd2.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>

enum passtype { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct recovery_info {
	tid_t start_transaction;
	tid_t end_transaction; /* the first ID not in the log */
	unsigned int nr_replays;
	unsigned int nr_revokes;
	unsigned int nr_revoke_hits;
};

/* One pass's walk along the log. */
struct pass_state {
	journal_t *journal;
	struct recovery_info *info;
	enum passtype pass;
	u8 *bh;	 /* the metadata block being read */
	u8 *obh; /* a logged data block */
	tid_t next_commit_ID;
	u32 next_log_block;
	u32 walked; /* blocks of the log taken so far */
	/* PASS_SCAN: what the current transaction's blocks showed before its
	 * commit block says whether it counts */
	bool need_check_commit_time; /* a descriptor or revoke block's checksum failed */
	char damage[112];	     /* the first damage met in it, for the log */
	u64 last_trans_commit_time;
};

/* The log's blocks form a circle [j_first, j_last). */
static u32 wrap(const journal_t *j, u32 block)
{
	return block >= j->j_last ? block - (j->j_last - j->j_first) : block;
}

static int jread(journal_t *j, u32 block, void *buf)
{
	int err;

	if (block >= j->j_total_len) {
		printk(KERN_ERR "JBD2: bad block at offset %u\n", block);
		return -EUCLEAN;
	}
	err = j->j_read_block(j, block, buf);
	if (err)
		printk(KERN_ERR "JBD2: IO error %d recovering block %u in log\n", err, block);
	return err;
}

/* The next block of the log, and a bound: a log longer than the journal
 * goes round the circle, which only damage can make it do. */
static int take_log_block(struct pass_state *ps, u32 *block)
{
	journal_t *j = ps->journal;

	if (++ps->walked > j->j_last - j->j_first) {
		printk(KERN_ERR "JBD2: the log runs past its %u blocks: corrupt journal\n",
		       j->j_last - j->j_first);
		return -EUCLEAN;
	}
	*block = ps->next_log_block;
	ps->next_log_block = wrap(j, ps->next_log_block + 1);
	return 0;
}

size_t journal_tag_bytes(const journal_t *j)
{
	size_t sz;

	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return sizeof(journal_block_tag3_t);
	sz = sizeof(journal_block_tag_t);
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V2))
		sz += sizeof(u16);
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_64BIT))
		return sz;
	return sz - sizeof(u32); /* no t_blocknr_high */
}

/* A tag's fields; tags may sit at any byte, hence the copies. */
static u32 tag_flags(const journal_t *j, const u8 *tagp)
{
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		journal_block_tag3_t t3;

		memcpy(&t3, tagp, sizeof(t3));
		return be32_to_cpu(t3.t_flags);
	}
	__be16 flags;

	memcpy(&flags, tagp + offsetof(journal_block_tag_t, t_flags), sizeof(flags));
	return be16_to_cpu(flags);
}

static u64 read_tag_block(const journal_t *j, const u8 *tagp)
{
	__be32 lo, hi;
	u64 block;

	memcpy(&lo, tagp, sizeof(lo));
	block = be32_to_cpu(lo);
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_64BIT)) {
		memcpy(&hi, tagp + offsetof(journal_block_tag_t, t_blocknr_high), sizeof(hi));
		block |= (u64)be32_to_cpu(hi) << 32;
	}
	return block;
}

/* A block whose checksum sits in a 32-bit field at csum_off: computed
 * over the whole block with that field as 0. */
static bool block_csum_ok(const journal_t *j, u8 *buf, size_t csum_off)
{
	__be32 provided;
	u32 calculated;

	memcpy(&provided, buf + csum_off, sizeof(provided));
	memset(buf + csum_off, 0, sizeof(provided));
	calculated = jbd2_chksum(j->j_csum_seed, buf, j->j_blocksize);
	memcpy(buf + csum_off, &provided, sizeof(provided));
	return provided == cpu_to_be32(calculated);
}

static bool descriptor_block_csum_verify(const journal_t *j, u8 *buf)
{
	return !jbd2_journal_has_csum_v2or3(j) ||
	       block_csum_ok(j, buf, j->j_blocksize - sizeof(struct jbd2_journal_block_tail));
}

static bool commit_block_csum_verify(const journal_t *j, u8 *buf)
{
	return !jbd2_journal_has_csum_v2or3(j) ||
	       block_csum_ok(j, buf, offsetof(struct commit_header, h_chksum));
}

static bool block_tag_csum_verify(const journal_t *j, const u8 *tagp, const void *buf,
				  tid_t sequence)
{
	__be32 seq = cpu_to_be32(sequence);
	u32 csum32;

	if (!jbd2_journal_has_csum_v2or3(j))
		return true;
	csum32 = jbd2_chksum(j->j_csum_seed, &seq, sizeof(seq));
	csum32 = jbd2_chksum(csum32, buf, j->j_blocksize);
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		journal_block_tag3_t t3;

		memcpy(&t3, tagp, sizeof(t3));
		return t3.t_checksum == cpu_to_be32(csum32);
	}
	__be16 c16;

	memcpy(&c16, tagp + offsetof(journal_block_tag_t, t_checksum), sizeof(c16));
	return c16 == cpu_to_be16((u16)csum32);
}

#define note_damage(ps, ...)                                                    \
	do {                                                                    \
		if (!(ps)->damage[0])                                           \
			snprintf((ps)->damage, sizeof((ps)->damage), __VA_ARGS__); \
	} while (0)

/*
 * One logged block (tag at tagp, in the log at io_block).  PASS_SCAN
 * checks it; PASS_REPLAY writes it home unless revoked.
 */
static int do_one_tag(struct pass_state *ps, const u8 *tagp, u32 io_block)
{
	journal_t *j = ps->journal;
	u64 blocknr = read_tag_block(j, tagp);
	int err;

	if (ps->pass == PASS_REVOKE || (ps->pass == PASS_SCAN && ps->need_check_commit_time))
		return 0; /* a damaged descriptor's tags mean nothing */
	if (blocknr >= j->j_fs_blocks) {
		note_damage(ps, "transaction %u logs block %llu, outside the file system (%llu blocks)",
			    ps->next_commit_ID, (unsigned long long)blocknr,
			    (unsigned long long)j->j_fs_blocks);
		return ps->pass == PASS_SCAN ? 0 : -EUCLEAN;
	}
	if (ps->pass == PASS_REPLAY && jbd2_journal_test_revoke(j, blocknr, ps->next_commit_ID)) {
		ps->info->nr_revoke_hits++;
		return 0;
	}
	if (ps->pass == PASS_SCAN && !jbd2_journal_has_csum_v2or3(j))
		return 0; /* nothing to check in the block itself */
	err = jread(j, io_block, ps->obh);
	if (err)
		return err;
	if (!block_tag_csum_verify(j, tagp, ps->obh, ps->next_commit_ID)) {
		note_damage(ps, "Invalid checksum recovering data block %llu in log",
			    (unsigned long long)blocknr);
		return ps->pass == PASS_SCAN ? 0 : -EUCLEAN;
	}
	if (ps->pass == PASS_SCAN)
		return 0;
	if (tag_flags(j, tagp) & JBD2_FLAG_ESCAPE) {
		__be32 magic = cpu_to_be32(JBD2_MAGIC_NUMBER);

		memcpy(ps->obh, &magic, sizeof(magic));
	}
	err = j->j_write_home(j, blocknr, ps->obh);
	if (err) {
		printk(KERN_ERR "JBD2: IO error %d writing block %llu home\n", err,
		       (unsigned long long)blocknr);
		return err;
	}
	ps->info->nr_replays++;
	return 0;
}

/* A descriptor block: its tags, each for the next block of the log. */
static int do_descriptor(struct pass_state *ps)
{
	journal_t *j = ps->journal;
	size_t tag_bytes = journal_tag_bytes(j);
	size_t size = j->j_blocksize;
	const u8 *tagp = ps->bh + sizeof(journal_header_t);
	int err;

	if (jbd2_journal_has_csum_v2or3(j))
		size -= sizeof(struct jbd2_journal_block_tail);
	if (ps->pass == PASS_SCAN && !descriptor_block_csum_verify(j, ps->bh))
		ps->need_check_commit_time = true; /* damage, or a stale block */
	while ((size_t)(tagp - ps->bh) + tag_bytes <= size) {
		u32 flags = tag_flags(j, tagp);
		u32 io_block;

		err = take_log_block(ps, &io_block);
		if (!err)
			err = do_one_tag(ps, tagp, io_block);
		if (err)
			return err;
		tagp += tag_bytes;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			tagp += 16; /* the UUID, written after a tag that lacks the flag */
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

/* A revoke block: checked (PASS_SCAN), its records into the table
 * (PASS_REVOKE). */
static int do_revoke(struct pass_state *ps)
{
	journal_t *j = ps->journal;
	const jbd2_journal_revoke_header_t *header = (const void *)ps->bh;
	size_t record_len = jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t csum_size = jbd2_journal_has_csum_v2or3(j) ? sizeof(struct jbd2_journal_block_tail) : 0;
	u32 rcount = be32_to_cpu(header->r_count);
	int err;

	if (ps->pass == PASS_SCAN) {
		if (!descriptor_block_csum_verify(j, ps->bh))
			ps->need_check_commit_time = true;
		else if (rcount < sizeof(*header) || rcount > j->j_blocksize - csum_size)
			note_damage(ps, "revoke block of transaction %u: r_count %u outside the block",
				    ps->next_commit_ID, rcount);
		return 0;
	}
	if (ps->pass != PASS_REVOKE)
		return 0;
	if (rcount < sizeof(*header) || rcount > j->j_blocksize - csum_size)
		return -EUCLEAN; /* the scan saw it: cannot happen */
	for (size_t offset = sizeof(*header); offset + record_len <= rcount; offset += record_len) {
		u64 blocknr;

		if (record_len == 4) {
			__be32 b;

			memcpy(&b, ps->bh + offset, sizeof(b));
			blocknr = be32_to_cpu(b);
		} else {
			__be64 b;

			memcpy(&b, ps->bh + offset, sizeof(b));
			blocknr = be64_to_cpu(b);
		}
		err = jbd2_journal_set_revoke(j, blocknr, ps->next_commit_ID);
		if (err)
			return err;
		ps->info->nr_revokes++;
	}
	return 0;
}

/*
 * A commit block.  In PASS_SCAN it decides: 1 the transaction counts,
 * 0 the log ends before it, -EUCLEAN the journal is damaged.
 */
static int scan_commit(struct pass_state *ps)
{
	journal_t *j = ps->journal;
	const struct commit_header *cbh = (const void *)ps->bh;
	u64 commit_time = be64_to_cpu(cbh->h_commit_sec);
	bool older = commit_time < ps->last_trans_commit_time;

	if (!commit_block_csum_verify(j, ps->bh)) {
		if (older)
			return 0; /* a stale block from an older round of the log */
		printk(KERN_ERR "JBD2: commit block of transaction %u has a bad checksum: the log ends before it\n",
		       ps->next_commit_ID);
		j->j_failed_commit = ps->next_commit_ID;
		return 0;
	}
	if (ps->need_check_commit_time) {
		if (older)
			return 0; /* stale: the log ended before it */
		printk(KERN_ERR "JBD2: Invalid checksum found in transaction %u\n",
		       ps->next_commit_ID);
		return -EUCLEAN;
	}
	if (ps->damage[0]) {
		printk(KERN_ERR "JBD2: %s\n", ps->damage);
		return -EUCLEAN;
	}
	ps->last_trans_commit_time = commit_time;
	return 1;
}

/* What one block of the log is: 1 go on, 0 the log ends here, or -errno. */
static int do_log_block(struct pass_state *ps)
{
	const journal_header_t *hdr = (const void *)ps->bh;
	int err;

	if (be32_to_cpu(hdr->h_magic) != JBD2_MAGIC_NUMBER ||
	    be32_to_cpu(hdr->h_sequence) != ps->next_commit_ID)
		return 0;
	switch (be32_to_cpu(hdr->h_blocktype)) {
	case JBD2_DESCRIPTOR_BLOCK:
		err = do_descriptor(ps);
		return err ? err : 1;
	case JBD2_REVOKE_BLOCK:
		err = do_revoke(ps);
		return err ? err : 1;
	case JBD2_COMMIT_BLOCK:
		if (ps->pass == PASS_SCAN) {
			err = scan_commit(ps);
			if (err <= 0)
				return err;
		}
		ps->next_commit_ID++;
		ps->need_check_commit_time = false;
		ps->damage[0] = '\0';
		return 1;
	default:
		return 0; /* not a block of a log: its end */
	}
}

static int do_one_pass(journal_t *journal, struct recovery_info *info, enum passtype pass,
		       u8 *bh, u8 *obh)
{
	struct pass_state ps = {
		.journal = journal,
		.info = info,
		.pass = pass,
		.bh = bh,
		.obh = obh,
		.next_commit_ID = journal->j_tail_sequence,
		.next_log_block = journal->j_tail,
	};
	int err;

	if (pass == PASS_SCAN)
		info->start_transaction = ps.next_commit_ID;
	for (;;) {
		u32 block;

		if (pass != PASS_SCAN && tid_geq(ps.next_commit_ID, info->end_transaction))
			break;
		err = take_log_block(&ps, &block);
		if (!err)
			err = jread(journal, block, bh);
		if (!err)
			err = do_log_block(&ps);
		if (err < 0)
			return err;
		if (err == 0)
			break;
	}
	if (pass == PASS_SCAN) {
		info->end_transaction = ps.next_commit_ID;
	} else if (info->end_transaction != ps.next_commit_ID) {
		printk(KERN_ERR "JBD2: recovery pass %d ended at transaction %u, expected %u\n",
		       pass, ps.next_commit_ID, info->end_transaction);
		return -EIO;
	}
	return 0;
}

/*
 * The three passes, then the next transaction ID to use
 * (j_transaction_sequence: one past the log's end, as Linux skips one).
 */
int jbd2_journal_recover(journal_t *journal)
{
	struct recovery_info info = { 0 };
	u8 *bh, *obh;
	int err;

	if (!journal->j_tail) {
		journal->j_transaction_sequence = journal->j_tail_sequence + 1;
		return 0; /* the log is empty */
	}
	bh = kmalloc(journal->j_blocksize, GFP_KERNEL);
	obh = kmalloc(journal->j_blocksize, GFP_KERNEL);
	err = bh && obh ? 0 : -ENOMEM;
	if (!err)
		err = do_one_pass(journal, &info, PASS_SCAN, bh, obh);
	if (!err)
		err = do_one_pass(journal, &info, PASS_REVOKE, bh, obh);
	if (!err)
		err = do_one_pass(journal, &info, PASS_REPLAY, bh, obh);
	kfree(bh);
	kfree(obh);
	jbd2_journal_clear_revoke(journal);
	journal->j_replayed = info.nr_replays;
	journal->j_revoke_hits = info.nr_revoke_hits;
	if (err)
		return err;
	if (info.end_transaction == info.start_transaction)
		printk(KERN_INFO "JBD2: recovery of %s: no committed transaction in the log\n",
		       journal->j_devname);
	else
		printk(KERN_INFO "JBD2: recovery of %s: transactions %u to %u, %u blocks replayed, %u skipped as revoked (%u revoke records)\n",
		       journal->j_devname, info.start_transaction, info.end_transaction - 1,
		       info.nr_replays, info.nr_revoke_hits, info.nr_revokes);
	journal->j_transaction_sequence = ++info.end_transaction;
	return 0;
}
