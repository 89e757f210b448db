// SPDX-License-Identifier: MIT
/*
 * revoke.c - the revoke table of journal recovery: which home blocks a
 * transaction revoked, and the latest transaction that did.
 *
 * Why revoke exists: a block can be journaled as metadata (say a
 * directory block), then freed and reused for file data that is written
 * in place, outside the journal.  Replaying the old logged copy would
 * put the directory's bytes over the file's.  So when a block is freed,
 * the transaction freeing it writes a revoke record; recovery's second
 * pass (PASS_REVOKE, recovery.c) collects them here, and its third pass
 * skips every logged copy of a block from a transaction no later than
 * the last one that revoked it (jbd2_journal_test_revoke).
 *
 * Interface (<spindle/jbd2.h>): init, set (keeps the latest sequence),
 * test, clear, destroy.  Records are kmalloc'd, one per revoked block:
 * at most one per 4 bytes of the log, so bounded by the journal's size.
 * One caller at a time (recovery, at mount): no lock.  May sleep.
 */
#include <spindle/jbd2.h>
#include <spindle/list.h>
#include <spindle/mm.h>
#include <spindle/errno.h>

struct jbd2_revoke_record_s {
	struct list_head hash;
	tid_t sequence; /* the latest transaction that revoked it */
	u64 blocknr;
};

struct jbd2_revoke_table_s {
	unsigned int hash_size; /* a power of two */
	unsigned int hash_shift;
	struct list_head *hash_table;
};

/* Linux's hash of a block number: multiplicative, the top bits kept. */
static unsigned int hash(const struct jbd2_revoke_table_s *table, u64 block)
{
	return (unsigned int)((block * 0x9e37fffffffc0001ull) >> (64 - table->hash_shift));
}

int jbd2_journal_init_revoke(journal_t *journal, unsigned int hash_size)
{
	struct jbd2_revoke_table_s *table;
	unsigned int shift = 0;

	if (!hash_size || (hash_size & (hash_size - 1)))
		return -EINVAL;
	while ((1u << shift) < hash_size)
		shift++;
	table = kzalloc(sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table->hash_table = kmalloc(hash_size * sizeof(struct list_head), GFP_KERNEL);
	if (!table->hash_table) {
		kfree(table);
		return -ENOMEM;
	}
	table->hash_size = hash_size;
	table->hash_shift = shift ? shift : 1;
	for (unsigned int i = 0; i < hash_size; i++)
		INIT_LIST_HEAD(&table->hash_table[i]);
	journal->j_revoke = table;
	return 0;
}

static struct jbd2_revoke_record_s *find_revoke_record(journal_t *journal, u64 blocknr)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;
	struct list_head *head = &table->hash_table[hash(table, blocknr) & (table->hash_size - 1)];
	struct jbd2_revoke_record_s *record;

	list_for_each_entry(record, head, hash)
		if (record->blocknr == blocknr)
			return record;
	return NULL;
}

/* Block blocknr revoked by transaction sequence: recorded, or the
 * record's sequence moved up if this one is later. */
int jbd2_journal_set_revoke(journal_t *journal, u64 blocknr, tid_t sequence)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;
	struct jbd2_revoke_record_s *record = find_revoke_record(journal, blocknr);

	if (record) {
		if (tid_gt(sequence, record->sequence))
			record->sequence = sequence;
		return 0;
	}
	record = kmalloc(sizeof(*record), GFP_KERNEL);
	if (!record)
		return -ENOMEM;
	record->blocknr = blocknr;
	record->sequence = sequence;
	list_add(&record->hash,
		 &table->hash_table[hash(table, blocknr) & (table->hash_size - 1)]);
	return 0;
}

/* Is the copy of blocknr logged in transaction sequence revoked?  Yes if
 * a transaction at or after it revoked the block (a revoke in the same
 * transaction counts: the block was freed after being logged). */
bool jbd2_journal_test_revoke(journal_t *journal, u64 blocknr, tid_t sequence)
{
	struct jbd2_revoke_record_s *record = find_revoke_record(journal, blocknr);

	return record && !tid_gt(sequence, record->sequence);
}

/* Is there a record of blocknr at all?  (Writing: was it logged since
 * the last checkpoint; transaction.c.) */
bool jbd2_journal_test_logged(journal_t *journal, u64 blocknr)
{
	return journal->j_revoke && find_revoke_record(journal, blocknr);
}

void jbd2_journal_clear_revoke(journal_t *journal)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;

	if (!table)
		return;
	for (unsigned int i = 0; i < table->hash_size; i++) {
		struct list_head *head = &table->hash_table[i];

		while (!list_empty(head)) {
			struct jbd2_revoke_record_s *record =
				list_first_entry(head, struct jbd2_revoke_record_s, hash);

			list_del(&record->hash);
			kfree(record);
		}
	}
}

void jbd2_journal_destroy_revoke(journal_t *journal)
{
	if (!journal->j_revoke)
		return;
	jbd2_journal_clear_revoke(journal);
	kfree(journal->j_revoke->hash_table);
	kfree(journal->j_revoke);
	journal->j_revoke = NULL;
}
