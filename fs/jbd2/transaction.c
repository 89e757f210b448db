// SPDX-License-Identifier: MIT
/*
 * transaction.c - handles and the running transaction (Linux's
 * fs/jbd2/transaction.c, much reduced).  The file system brackets each
 * operation that changes metadata:
 *
 *   handle = jbd2_journal_start(journal, credits);  before its own locks
 *     ... change a metadata block in the cache ...
 *     jbd2_journal_dirty_metadata(journal, blocknr, data, ref)
 *     jbd2_journal_revoke(journal, freed_block)
 *     jbd2_journal_file_inode(journal, inode)      data written in place
 *   jbd2_journal_stop(handle);
 *
 * The names are Linux's.  What Linux's jbd2_journal_get_write_access()
 * does before a change (copying a block that the committing transaction
 * still needs: "frozen" data) is not needed here, because a commit is
 * stop-the-world, as in xv6's log.c: while one runs (j_committing),
 * jbd2_journal_start() waits, and the commit waits for the open handles
 * to stop (t_updates == 0) before it reads any block.  So the blocks a
 * commit copies into the log do not change under it.  The price: no
 * operation runs during the few writes of a commit.  While the commit
 * waits, a handle still open on that transaction goes on changing
 * blocks, and they join the transaction being committed, not the next
 * one (__jbd2_running(): the handle's h_transaction, as in Linux), so
 * that one operation never commits half in one transaction and half in
 * the next.
 *
 * A dirtied block is *not* handed to the disk's write-back: its home
 * must not see the change before the log does (write-ahead).  The
 * transaction keeps a reference to it (jh_private) so the cache keeps
 * it, and after the commit the file system lets it go home
 * (j_checkpoint_buffer).
 *
 * Locks: j_state_lock (a mutex) over the running transaction and the
 * counters; j_commit_mutex (commit.c) outside it.  Order: i_mutex ->
 * j_commit_mutex -> j_state_lock -> the file system's own locks.
 * jbd2_journal_start() may sleep; the others do not wait for a commit.
 */
#include <spindle/jbd2.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <spindle/err.h>

/* A transaction commits once it would need this share of the log, as
 * Linux's journal->j_max_transaction_buffers (a quarter). */
#define JBD2_MAX_TRANS_FRACTION 4

int jbd2_journal_init_write(journal_t *j)
{
	/* the revoke table from here on: the blocks in the live log */
	jbd2_journal_destroy_revoke(j);
	if (jbd2_journal_init_revoke(j, 256))
		return -ENOMEM;
	mutex_init(&j->j_commit_mutex);
	mutex_init(&j->j_state_lock);
	init_waitqueue_head(&j->j_wait);
	j->j_head = j->j_first;
	j->j_free = j->j_last - j->j_first;
	j->j_max_transaction_buffers = j->j_free / JBD2_MAX_TRANS_FRACTION;
	if (j->j_max_transaction_buffers < 8) {
		printk(KERN_ERR "JBD2: %s: journal of %u blocks too small to write to\n",
		       j->j_devname, j->j_free);
		return -EINVAL;
	}
	return 0;
}

static transaction_t *jbd2_get_transaction(journal_t *j)
{
	transaction_t *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	INIT_LIST_HEAD(&t->t_buffers);
	for (int i = 0; i < JBD2_TRANS_HASH; i++)
		INIT_LIST_HEAD(&t->t_hash[i]);
	j->j_running = t;
	return t;
}

/* Is there room for credits more blocks in the running transaction? */
static bool __jbd2_room(const journal_t *j, const transaction_t *t, int credits)
{
	return jbd2_transaction_log_blocks(j, t) + (u32)t->t_outstanding_credits + (u32)credits <=
	       j->j_max_transaction_buffers;
}

void jbd2_journal_abort(journal_t *j, int errno)
{
	mutex_lock(&j->j_state_lock);
	if (!j->j_errno) {
		j->j_errno = errno;
		printk(KERN_ERR "JBD2: %s: journal aborted (error %d): no more writes\n",
		       j->j_devname, errno);
	}
	mutex_unlock(&j->j_state_lock);
	wake_up(&j->j_wait);
}

handle_t *jbd2_journal_start(journal_t *j, int nblocks)
{
	handle_t *h = current->journal_info;
	transaction_t *t;

	if (h) {
		h->h_ref++;
		return h;
	}
	if (nblocks > (int)j->j_max_transaction_buffers)
		nblocks = (int)j->j_max_transaction_buffers;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&j->j_state_lock);
	for (;;) {
		if (j->j_errno) {
			mutex_unlock(&j->j_state_lock);
			kfree(h);
			return ERR_PTR(-EROFS);
		}
		if (j->j_committing) {
			mutex_unlock(&j->j_state_lock);
			wait_event(j->j_wait, !READ_ONCE(j->j_committing) || READ_ONCE(j->j_errno));
			mutex_lock(&j->j_state_lock);
			continue;
		}
		t = j->j_running ? j->j_running : jbd2_get_transaction(j);
		if (!t) {
			mutex_unlock(&j->j_state_lock);
			kfree(h);
			return ERR_PTR(-ENOMEM);
		}
		if (__jbd2_room(j, t, nblocks) || (!t->t_nr_buffers && !t->t_updates))
			break;
		/* full: commit it (this task holds no handle) and start anew */
		mutex_unlock(&j->j_state_lock);
		jbd2_journal_commit_transaction(j);
		mutex_lock(&j->j_state_lock);
	}
	t->t_updates++;
	t->t_outstanding_credits += nblocks;
	mutex_unlock(&j->j_state_lock);
	h->h_journal = j;
	h->h_transaction = t;
	h->h_ref = 1;
	h->h_credits = nblocks;
	current->journal_info = h;
	return h;
}

int jbd2_journal_stop(handle_t *h)
{
	journal_t *j;
	transaction_t *t;

	if (IS_ERR_OR_NULL(h))
		return h ? PTR_ERR(h) : 0;
	if (--h->h_ref > 0)
		return 0;
	j = h->h_journal;
	t = h->h_transaction;
	current->journal_info = NULL;
	mutex_lock(&j->j_state_lock);
	t->t_outstanding_credits -= h->h_credits;
	if (--t->t_updates == 0)
		wake_up(&j->j_wait); /* a commit waiting for the last handle */
	mutex_unlock(&j->j_state_lock);
	kfree(h);
	return j->j_errno;
}

static unsigned int jbd2_hash(u64 blocknr)
{
	return (unsigned int)(blocknr * 0x9e3779b97f4a7c15ull >> 58) & (JBD2_TRANS_HASH - 1);
}

static struct journal_head *__jbd2_find(transaction_t *t, u64 blocknr)
{
	struct journal_head *jh;

	list_for_each_entry(jh, &t->t_hash[jbd2_hash(blocknr)], jh_hash)
		if (jh->jh_blocknr == blocknr)
			return jh;
	return NULL;
}

/*
 * The transaction a change joins: the caller's handle's, as Linux's
 * handle->h_transaction -- even when that one has begun to commit
 * (j_running is then NULL, and the commit waits for the handle to stop):
 * an operation's changes commit together or not at all.  A change
 * outside any handle (an inode's times) joins the running transaction,
 * made if there is none.
 */
static transaction_t *__jbd2_running(journal_t *j)
{
	handle_t *h = current->journal_info;

	if (h && h->h_journal == j)
		return h->h_transaction;
	return j->j_running ? j->j_running : jbd2_get_transaction(j);
}

int jbd2_journal_dirty_metadata(journal_t *j, u64 blocknr, void *data, void *private)
{
	struct journal_head *jh = kzalloc(sizeof(*jh), GFP_KERNEL);
	transaction_t *t;
	int ret = 1;

	mutex_lock(&j->j_state_lock);
	t = __jbd2_running(j);
	if (!t || !jh) {
		mutex_unlock(&j->j_state_lock);
		kfree(jh);
		jbd2_journal_abort(j, -ENOMEM);
		return -ENOMEM;
	}
	if (__jbd2_find(t, blocknr)) {
		ret = 0;
	} else {
		jh->jh_blocknr = blocknr;
		jh->jh_data = data;
		jh->jh_private = private;
		list_add_tail(&jh->jh_list, &t->t_buffers);
		list_add(&jh->jh_hash, &t->t_hash[jbd2_hash(blocknr)]);
		t->t_nr_buffers++;
		jh = NULL;
	}
	mutex_unlock(&j->j_state_lock);
	kfree(jh);
	return ret;
}

/* Append v to a growing array of *nr elements of size sz. */
static int jbd2_array_add(void **array, unsigned int *nr, unsigned int *max, const void *v,
			  size_t sz)
{
	if (*nr == *max) {
		unsigned int n = *max ? *max * 2 : 16;
		void *bigger = kmalloc(n * sz, GFP_KERNEL);

		if (!bigger)
			return -ENOMEM;
		if (*array)
			memcpy(bigger, *array, *nr * sz);
		kfree(*array);
		*array = bigger;
		*max = n;
	}
	memcpy((char *)*array + *nr * sz, v, sz);
	(*nr)++;
	return 0;
}

/*
 * A freed block needs a revoke record only if a copy of it may be
 * replayed: logged by a transaction still in the log (the table of
 * logged blocks, emptied by each checkpoint) or by the running one.
 * Linux knows them by their buffers' journal state; deleting a large
 * file's data blocks, never logged, costs no log space either way.
 */
int jbd2_journal_revoke(journal_t *j, u64 blocknr)
{
	transaction_t *t;
	int err;

	mutex_lock(&j->j_state_lock);
	t = __jbd2_running(j);
	if (t && !__jbd2_find(t, blocknr) && !jbd2_journal_test_logged(j, blocknr)) {
		mutex_unlock(&j->j_state_lock);
		return 0;
	}
	err = t ? jbd2_array_add((void **)&t->t_revoked, &t->t_nr_revoked, &t->t_max_revoked,
				 &blocknr, sizeof(blocknr))
		: -ENOMEM;
	mutex_unlock(&j->j_state_lock);
	if (err)
		jbd2_journal_abort(j, err);
	return err;
}

int jbd2_journal_file_inode(journal_t *j, void *inode)
{
	transaction_t *t;
	int err = 1;

	mutex_lock(&j->j_state_lock);
	t = __jbd2_running(j);
	if (!t) {
		err = -ENOMEM;
	} else {
		for (unsigned int i = 0; i < t->t_nr_inodes; i++)
			if (t->t_inodes[i] == inode)
				err = 0;
		if (err == 1 && jbd2_array_add((void **)&t->t_inodes, &t->t_nr_inodes,
					       &t->t_max_inodes, &inode, sizeof(inode)))
			err = -ENOMEM;
	}
	mutex_unlock(&j->j_state_lock);
	if (err < 0)
		jbd2_journal_abort(j, err);
	return err;
}
