// SPDX-License-Identifier: MIT
/*
 * journal.c - loading a journal: its superblock (block 0 of the journal)
 * read and checked, a log left by a crash replayed (recovery.c), and the
 * journal marked empty again.  Linux's jbd2_journal_load.  Writing
 * transactions is transaction.c and commit.c.
 *
 * Interface (<spindle/jbd2.h>): the file system fills in a journal_t
 * (its geometry and the read/write callbacks: fs/ext2/journal.c for
 * ext3) and calls jbd2_journal_load(); then jbd2_journal_destroy().
 *
 * The order after a replay, so that a crash at any point of it leaves
 * either the log to replay again (replay writes the same bytes twice
 * harmlessly) or nothing to do:
 *   1. every replayed block durable (j_sync: written back, cache flushed);
 *   2. the journal superblock says "empty" (s_start = 0, s_sequence one
 *      past the log's last ID, its checksum again), written and synced;
 *   3. the file system clears its needs_recovery flag (the caller).
 *
 * A superblock this code does not understand or that contradicts itself
 * (a size the journal inode does not have, the log starting outside it,
 * a bad checksum, features it cannot read) refuses the load with a
 * "JBD2: ..." line: -EINVAL, or -EUCLEAN for damage.  Portable: the host
 * unit tests (tests/unit/check_jbd2.c) run it over journals in memory.
 */
#include <spindle/jbd2.h>
#include <spindle/crc32.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>

/* Buckets of the revoke table: a power of two, enough for a small log. */
#define JOURNAL_REVOKE_DEFAULT_HASH 256

u32 jbd2_chksum(u32 seed, const void *buf, size_t len)
{
	return __crc32c_le(seed, buf, len);
}

/* Over the 1024 bytes of the superblock with s_checksum taken as 0. */
u32 jbd2_superblock_csum(const journal_superblock_t *sb)
{
	static const u8 zero[4];
	const u8 *p = (const u8 *)sb;
	size_t off = offsetof(journal_superblock_t, s_checksum);
	u32 csum = jbd2_chksum(~0u, p, off);

	csum = jbd2_chksum(csum, zero, sizeof(zero));
	return jbd2_chksum(csum, p + off + 4, sizeof(*sb) - off - 4);
}

/* The checks Linux's journal_get_superblock makes, and the log's start. */
static int journal_check_superblock(journal_t *j)
{
	journal_superblock_t *sb = j->j_superblock;
	u32 maxlen = be32_to_cpu(sb->s_maxlen), first = be32_to_cpu(sb->s_first);
	u32 start = be32_to_cpu(sb->s_start);

	if (be32_to_cpu(sb->s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    be32_to_cpu(sb->s_blocksize) != j->j_blocksize) {
		printk(KERN_WARNING "JBD2: no valid journal superblock found\n");
		return -EINVAL;
	}
	switch (be32_to_cpu(sb->s_header.h_blocktype)) {
	case JBD2_SUPERBLOCK_V1:
		j->j_format_version = 1;
		break;
	case JBD2_SUPERBLOCK_V2:
		j->j_format_version = 2;
		break;
	default:
		printk(KERN_WARNING "JBD2: unrecognised superblock format ID\n");
		return -EINVAL;
	}
	if (maxlen > j->j_total_len) {
		printk(KERN_WARNING "JBD2: journal file too short\n");
		return -EINVAL;
	}
	if (maxlen < j->j_total_len)
		j->j_total_len = maxlen;
	if (first == 0 || first >= j->j_total_len) {
		printk(KERN_WARNING "JBD2: Invalid start block of journal: %u\n", first);
		return -EINVAL;
	}
	if (start && (start < first || start >= maxlen)) {
		printk(KERN_WARNING "JBD2: log start %u outside the log (blocks %u to %u)\n", start,
		       first, maxlen - 1);
		return -EUCLEAN;
	}
	j->j_first = first;
	j->j_last = maxlen;
	j->j_tail = start;
	j->j_tail_sequence = be32_to_cpu(sb->s_sequence);
	return 0;
}

/* Version 2's features and checksums. */
static int journal_check_features(journal_t *j)
{
	journal_superblock_t *sb = j->j_superblock;

	if (j->j_format_version < 2)
		return 0;
	if (jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V2) &&
	    jbd2_has_feature(j, JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		printk(KERN_ERR "JBD2: Can't enable checksumming v2 and v3 at the same time!\n");
		return -EINVAL;
	}
	if (jbd2_journal_has_csum_v2or3(j) &&
	    (be32_to_cpu(sb->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM)) {
		printk(KERN_ERR "JBD2: Can't enable checksumming v1 and v2/3 at the same time!\n");
		return -EINVAL;
	}
	if ((be32_to_cpu(sb->s_feature_ro_compat) & ~JBD2_KNOWN_ROCOMPAT_FEATURES) ||
	    (be32_to_cpu(sb->s_feature_incompat) & ~JBD2_KNOWN_INCOMPAT_FEATURES)) {
		printk(KERN_WARNING "JBD2: Unrecognised features on journal\n");
		return -EINVAL;
	}
	if (!jbd2_journal_has_csum_v2or3(j))
		return 0;
	if (sb->s_checksum_type != JBD2_CRC32C_CHKSUM) {
		printk(KERN_ERR "JBD2: Unknown checksum type\n");
		return -EINVAL;
	}
	if (jbd2_superblock_csum(sb) != be32_to_cpu(sb->s_checksum)) {
		printk(KERN_ERR "JBD2: journal checksum error\n");
		return -EUCLEAN;
	}
	j->j_csum_seed = jbd2_chksum(~0u, sb->s_uuid, sizeof(sb->s_uuid));
	return 0;
}

/* Steps 1 and 2 above: the replay durable, then the log empty. */
static int journal_mark_empty(journal_t *j)
{
	journal_superblock_t *sb = j->j_superblock;
	int err = j->j_sync(j);

	if (err)
		return err;
	sb->s_sequence = cpu_to_be32(j->j_transaction_sequence);
	sb->s_start = 0;
	if (jbd2_journal_has_csum_v2or3(j))
		sb->s_checksum = cpu_to_be32(jbd2_superblock_csum(sb));
	err = j->j_write_block(j, 0, sb);
	if (!err)
		err = j->j_sync(j);
	if (!err) {
		j->j_tail = 0;
		j->j_tail_sequence = j->j_transaction_sequence;
	}
	return err;
}

int jbd2_journal_load(journal_t *j)
{
	int err;

	if (j->j_blocksize < sizeof(journal_superblock_t) || j->j_total_len < 2) {
		printk(KERN_ERR "JBD2: journal of %u blocks of %u bytes: too small\n",
		       j->j_total_len, j->j_blocksize);
		return -EINVAL;
	}
	/* the whole block 0: the superblock is its first 1024 bytes */
	j->j_superblock = kmalloc(j->j_blocksize, GFP_KERNEL);
	if (!j->j_superblock)
		return -ENOMEM;
	err = j->j_read_block(j, 0, j->j_superblock);
	if (err) {
		printk(KERN_ERR "JBD2: IO error reading journal superblock\n");
		return err;
	}
	err = journal_check_superblock(j);
	if (!err)
		err = journal_check_features(j);
	if (err || !j->j_tail)
		return err; /* refused, or nothing to replay */
	if (j->j_no_recovery) {
		printk(KERN_WARNING "JBD2: Ignoring recovery information on journal\n");
		return 0;
	}
	if (j->j_format_version >= 2 &&
	    (be32_to_cpu(j->j_superblock->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM)) {
		printk(KERN_ERR "JBD2: %s: journal checksum v1 (journal_checksum) is not read by this recovery: run e2fsck\n",
		       j->j_devname);
		return -EINVAL;
	}
	err = jbd2_journal_init_revoke(j, JOURNAL_REVOKE_DEFAULT_HASH);
	if (!err)
		err = jbd2_journal_recover(j);
	if (!err)
		err = journal_mark_empty(j);
	return err;
}

void jbd2_journal_destroy(journal_t *j)
{
	jbd2_journal_destroy_revoke(j);
	kfree(j->j_superblock);
	j->j_superblock = NULL;
}
