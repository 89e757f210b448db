// SPDX-License-Identifier: MIT
/*
 * futex.c - futex(2): waiting on a word of user memory (Linux's
 * kernel/futex/, much reduced; include/spindle/futex.h).
 *
 * A waiter says "sleep while *uaddr == val"; a waker changes the word in
 * user space and says "wake up to n of those sleeping on uaddr".  The
 * kernel keeps no state per futex: only a queue entry (struct futex_q, on
 * the waiter's stack) per sleeping thread, in one of FUTEX_HASH_SIZE
 * buckets chosen by the futex's key.  The key says which word it is:
 *
 *   private (FUTEX_PRIVATE_FLAG, or any mapping but a shared file one)
 *       (mm, address): the threads of one process agree on both
 *   shared, in a MAP_SHARED mapping of a file -- shared anonymous
 *   memory and System V shm are files too (shmem_file_setup)
 *       (inode, byte offset in the file): processes that map the same
 *       file at different addresses agree on these
 *
 * (A private mapping shared by fork is copied at once, so no other
 * process sees the word anyway.)
 *
 * The one race that matters: a waker changes the word and calls
 * FUTEX_WAKE between the waiter's test of the value and its sleep.  So
 * the waiter tests the value and queues itself under the bucket's lock,
 * which the waker takes to look for waiters (Linux's futex_wait_setup()):
 * either the waiter's test sees the new value (-EAGAIN), or the waker
 * finds it queued.  The value is read under a spinlock, where a page
 * fault may not sleep: so the page is found (faulted in, pinned) first,
 * and the word read through the kernel's direct map of it.
 *
 * A waiter is woken by FUTEX_WAKE (0), a signal (-EINTR: Linux restarts
 * the call when no handler runs; glibc loops either way) or its timeout
 * (-ETIMEDOUT): relative on CLOCK_MONOTONIC for FUTEX_WAIT, absolute for
 * FUTEX_WAIT_BITSET, on CLOCK_REALTIME with FUTEX_CLOCK_REALTIME.  The
 * bitsets let a waker pick waiters; FUTEX_WAIT/WAKE use all bits.
 *
 * Two words at once (Linux 6.1's semantics; neither looks at bitsets):
 *
 *   FUTEX_REQUEUE      wake up to val waiters on uaddr, and move up to
 *                      val2 (the timeout argument, as a number) of the
 *                      others to uaddr2's queue, without waking them:
 *                      a condition variable's broadcast moves its
 *                      sleepers onto the mutex instead of waking them
 *                      all to fight for it.  Returns woken + moved.
 *   FUTEX_CMP_REQUEUE  the same, if *uaddr still holds val3 (else
 *                      -EAGAIN, nothing done): the test and the move
 *                      under both buckets' locks, as a wait's test.
 *   FUTEX_WAKE_OP      change *uaddr2 atomically by the op encoded in
 *                      val3, wake up to val waiters on uaddr, and, if
 *                      the old *uaddr2 passed the encoded comparison,
 *                      up to val2 on uaddr2 (futex_wake_op() below).
 *
 * A moved waiter's futex_q changes bucket: q->hb names the one whose
 * lock guards it now, and a waiter locks "its" bucket by reading q->hb,
 * locking it and checking that q->hb did not change meanwhile
 * (futex_q_lock(), Linux's lock_ptr).  The PI operations are not
 * implemented (-ENOSYS).
 *
 * Locking: a bucket's lock is a leaf but for the wake-ups done under it
 * (pi_lock, a run queue's lock).  Two buckets are locked lower address
 * first (double_lock_hb()), so two requeues between the same two words
 * in opposite directions cannot deadlock.  No user copy or fault happens
 * under a bucket's lock: the words read or changed there are in pages
 * pinned beforehand, reached through the kernel's direct map.
 */
#include <spindle/futex.h>
#include <spindle/sched.h>
#include <spindle/mm_types.h>
#include <spindle/fs.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/signal.h>
#include <spindle/mm.h>
#include <spindle/lockdep.h>
#include <spindle/ratelimit.h>
#include <spindle/printk.h>

#define FUTEX_HASH_BITS 8
#define FUTEX_HASH_SIZE (1u << FUTEX_HASH_BITS)

/* Which word: (mm, address) or (inode, offset); see above. */
struct futex_key {
	const void *ptr;
	unsigned long word;
};

struct futex_hash_bucket;

/* A sleeping waiter, on its own stack (Linux's struct futex_q). */
struct futex_q {
	struct list_head list;          /* on its bucket's chain */
	struct task_struct *task;
	struct futex_key key;           /* changed by a requeue, under hb's lock */
	/* the bucket it is queued on: set under that bucket's lock; a
	 * requeue changes it holding the old and the new bucket's locks */
	struct futex_hash_bucket *hb;
	u32 bitset;
	bool woken;                     /* set by the waker, under the bucket lock */
};

struct futex_hash_bucket {
	/* its chain, and each queued futex_q's key, hb and woken; taken
	 * from task context only, never from an interrupt */
	spinlock_t lock;
	struct list_head chain;
};

static struct futex_hash_bucket futex_queues[FUTEX_HASH_SIZE];

static int __init futex_init(void)
{
	for (unsigned int i = 0; i < FUTEX_HASH_SIZE; i++) {
		spin_lock_init(&futex_queues[i].lock);
		INIT_LIST_HEAD(&futex_queues[i].chain);
	}
	return 0;
}
core_initcall(futex_init);

static struct futex_hash_bucket *hash_futex(const struct futex_key *key)
{
	u64 h = ((unsigned long)key->ptr >> 4) * 0x9e3779b97f4a7c15ull ^
		(key->word * 0xc2b2ae3d27d4eb4full);

	return &futex_queues[(h >> 32) & (FUTEX_HASH_SIZE - 1)];
}

static bool match_futex(const struct futex_key *a, const struct futex_key *b)
{
	return a->ptr == b->ptr && a->word == b->word;
}

/* Two buckets' locks (one, if they are the same), the lower address
 * first: every CPU takes a pair in the same order. */
static void double_lock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2)
{
	struct futex_hash_bucket *lo = hb1 < hb2 ? hb1 : hb2, *hi = hb1 < hb2 ? hb2 : hb1;

	spin_lock(&lo->lock);
	if (lo != hi)
		spin_lock_nested(&hi->lock, SINGLE_DEPTH_NESTING);
}

static void double_unlock_hb(struct futex_hash_bucket *hb1, struct futex_hash_bucket *hb2)
{
	struct futex_hash_bucket *lo = hb1 < hb2 ? hb1 : hb2, *hi = hb1 < hb2 ? hb2 : hb1;

	if (lo != hi)
		spin_unlock(&hi->lock);
	spin_unlock(&lo->lock);
}

/*
 * Lock the bucket q is queued on now, and return it.  A requeue on
 * another CPU may move q between the read of q->hb and the lock; it
 * changes q->hb holding both locks, so once we hold the lock q->hb
 * names, q stays there.
 */
static struct futex_hash_bucket *futex_q_lock(struct futex_q *q)
{
	for (;;) {
		struct futex_hash_bucket *hb = READ_ONCE(q->hb);

		spin_lock(&hb->lock);
		if (hb == READ_ONCE(q->hb))
			return hb;
		spin_unlock(&hb->lock);         /* moved meanwhile: again */
	}
}

/* Take q off its chain and wake its task; under q's bucket's lock, which
 * the waiter takes before it lets go of q (its stack). */
static void futex_wake_q(struct futex_q *q)
{
	list_del(&q->list);
	WRITE_ONCE(q->woken, true);
	wake_up_process(q->task);
}

/*
 * The key of the word at uaddr, and its page pinned (*pagep, for
 * futex_read_locked(); put_page() it).  -EINVAL if unaligned, -EFAULT if
 * no readable memory is there -- or, with FOLL_WRITE in gup_flags, no
 * writable memory (Linux's get_futex_key()).
 */
static int get_futex_key(u32 __user *uaddr, unsigned int flags, struct futex_key *key,
			 struct page **pagep, unsigned int gup_flags)
{
	unsigned long addr = (unsigned long)uaddr;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (addr & (sizeof(u32) - 1))
		return -EINVAL;
	if (!mm || addr >= USER_SPACE_END)
		return -EFAULT;
	if (pin_user_pages_fast(addr, 1, gup_flags, pagep) != 1)
		return -EFAULT;
	key->ptr = mm;
	key->word = addr;
	if (flags & FUTEX_PRIVATE_FLAG)
		return 0;
	mutex_lock(&mm->mmap_lock);
	vma = find_vma(mm, addr);
	if (vma && addr >= vma->vm_start && vma->vm_file && (vma->vm_flags & VM_SHARED)) {
		key->ptr = vma->vm_file->f_inode;
		key->word = (vma->vm_pgoff << PAGE_SHIFT) + (addr - vma->vm_start);
	}
	mutex_unlock(&mm->mmap_lock);
	return 0;
}

/*
 * The key alone, for an operation that does not touch the word: a
 * private futex's is its address, whatever is mapped there (Linux: a
 * private wake of unmapped memory finds nobody, and returns 0).
 */
static int get_futex_key_only(u32 __user *uaddr, unsigned int flags, struct futex_key *key)
{
	struct page *page;
	int ret;

	if (flags & FUTEX_PRIVATE_FLAG) {
		if ((unsigned long)uaddr & (sizeof(u32) - 1))
			return -EINVAL;
		if (!current->mm || (unsigned long)uaddr >= USER_SPACE_END)
			return -EFAULT;
		key->ptr = current->mm;
		key->word = (unsigned long)uaddr;
		return 0;
	}
	ret = get_futex_key(uaddr, flags, key, &page, 0);
	if (!ret)
		put_page(page);
	return ret;
}

/* The word, through the pinned page: no fault, so under a spinlock. */
static u32 *futex_word(struct page *page, u32 __user *uaddr)
{
	return (u32 *)((char *)page_address(page) + ((unsigned long)uaddr & ~PAGE_MASK));
}

static u32 futex_read_locked(struct page *page, u32 __user *uaddr)
{
	return READ_ONCE(*futex_word(page, uaddr));
}

/*
 * Sleep while *uaddr == val, until woken, a signal, or the monotonic
 * clock reaches deadline (ns; 0: no timeout).
 */
static long futex_wait(u32 __user *uaddr, unsigned int flags, u32 val, u64 deadline,
		       u32 bitset)
{
	struct futex_q q = { .task = current, .bitset = bitset };
	struct futex_hash_bucket *hb;
	struct page *page;
	long ret;

	if (!bitset)
		return -EINVAL;
	ret = get_futex_key(uaddr, flags, &q.key, &page, 0);
	if (ret)
		return ret;
	hb = hash_futex(&q.key);
	spin_lock(&hb->lock);
	if (futex_read_locked(page, uaddr) != val) {
		spin_unlock(&hb->lock);
		put_page(page);
		return -EAGAIN;         /* changed already: no sleep */
	}
	q.hb = hb;
	list_add_tail(&q.list, &hb->chain);
	/* the state before the lock goes: a waker after it wakes us */
	set_current_state(TASK_INTERRUPTIBLE);
	spin_unlock(&hb->lock);
	put_page(page);

	for (;;) {
		u64 now;

		if (READ_ONCE(q.woken) || signal_pending(current))
			break;
		if (!deadline) {
			schedule();
		} else {
			now = ktime_get_ns();
			if (now >= deadline)
				break;
			schedule_timeout(min_t(u64, msecs_to_jiffies((deadline - now) / NSEC_PER_MSEC) + 1,
					       MAX_SCHEDULE_TIMEOUT / 2));
		}
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);

	/* under the lock: a waker is done with q once it lets go of it.
	 * A requeue may have moved q to another bucket meanwhile. */
	hb = futex_q_lock(&q);
	if (q.woken) {
		ret = 0;
	} else {
		list_del(&q.list);
		ret = signal_pending(current) ? -EINTR : -ETIMEDOUT;
	}
	spin_unlock(&hb->lock);
	return ret;
}

long futex_wake(u32 __user *uaddr, unsigned int flags, int nr, u32 bitset)
{
	struct futex_hash_bucket *hb;
	struct futex_q *q, *tmp;
	struct futex_key key;
	int woken = 0;
	long ret;

	if (!bitset)
		return -EINVAL;
	ret = get_futex_key_only(uaddr, flags, &key);  /* the key is all a wake needs */
	if (ret)
		return ret;
	hb = hash_futex(&key);
	spin_lock(&hb->lock);
	list_for_each_entry_safe(q, tmp, &hb->chain, list) {
		if (!match_futex(&q->key, &key) || !(q->bitset & bitset))
			continue;
		futex_wake_q(q);
		/* as Linux: nr 0 still wakes one */
		if (++woken >= nr)
			break;
	}
	spin_unlock(&hb->lock);
	return woken;
}

/*
 * FUTEX_REQUEUE (cmpval NULL) and FUTEX_CMP_REQUEUE: wake up to nr_wake
 * waiters on uaddr1, move up to nr_requeue more to uaddr2; the number
 * woken and moved together (Linux's futex_requeue(), without PI).
 */
static long futex_requeue(u32 __user *uaddr1, unsigned int flags, u32 __user *uaddr2,
			  int nr_wake, int nr_requeue, const u32 *cmpval)
{
	struct futex_hash_bucket *hb1, *hb2;
	struct futex_key key1, key2;
	struct futex_q *q, *tmp;
	struct page *page = NULL;
	int count = 0;
	long ret;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	/* CMP_REQUEUE reads *uaddr1 under the locks: its page pinned */
	if (cmpval)
		ret = get_futex_key(uaddr1, flags, &key1, &page, 0);
	else
		ret = get_futex_key_only(uaddr1, flags, &key1);
	if (!ret)
		ret = get_futex_key_only(uaddr2, flags, &key2);
	if (ret)
		goto out_put;
	hb1 = hash_futex(&key1);
	hb2 = hash_futex(&key2);

	double_lock_hb(hb1, hb2);
	/* a waiter that has tested *uaddr1 is queued (it did so under hb1's
	 * lock): the value and the queue are seen at one instant */
	if (cmpval && futex_read_locked(page, uaddr1) != *cmpval) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	list_for_each_entry_safe(q, tmp, &hb1->chain, list) {
		if (count - nr_wake >= nr_requeue)
			break;
		if (!match_futex(&q->key, &key1))
			continue;
		if (++count <= nr_wake) {
			futex_wake_q(q);
			continue;
		}
		/* it sleeps on uaddr2 from now on: a FUTEX_WAKE there finds it */
		if (hb1 != hb2)
			list_move_tail(&q->list, &hb2->chain);
		q->key = key2;
		WRITE_ONCE(q->hb, hb2);
	}
	ret = count;
out_unlock:
	double_unlock_hb(hb1, hb2);
out_put:
	if (page)
		put_page(page);
	return ret;
}

/*
 * FUTEX_WAKE_OP's val3: op, cmp, oparg, cmparg (Linux's FUTEX_OP()):
 *
 *   bit 31     FUTEX_OP_OPARG_SHIFT: the operand is 1 << oparg
 *   bits 28-30 op: SET (0), ADD (1), OR (2), ANDN (3), XOR (4)
 *   bits 24-27 cmp: EQ (0), NE (1), LT (2), LE (3), GT (4), GE (5)
 *   bits 12-23 oparg, 12 bits, signed
 *   bits 0-11  cmparg, 12 bits, signed
 */
#define FUTEX_OP_SET            0       /* *uaddr2 = oparg */
#define FUTEX_OP_ADD            1       /* *uaddr2 += oparg */
#define FUTEX_OP_OR             2       /* *uaddr2 |= oparg */
#define FUTEX_OP_ANDN           3       /* *uaddr2 &= ~oparg */
#define FUTEX_OP_XOR            4       /* *uaddr2 ^= oparg */
#define FUTEX_OP_OPARG_SHIFT    8u      /* in op: the operand is 1 << oparg */
#define FUTEX_OP_CMP_EQ         0
#define FUTEX_OP_CMP_NE         1
#define FUTEX_OP_CMP_LT         2
#define FUTEX_OP_CMP_LE         3
#define FUTEX_OP_CMP_GT         4
#define FUTEX_OP_CMP_GE         5

/* The low 'bits' bits of v as a signed number */
static int sign_extend(u32 v, unsigned int bits)
{
	return (int)(v << (32 - bits)) >> (32 - bits);
}

/*
 * Do the encoded op on the word (a pinned page's, under the buckets'
 * locks) and compare its old value: 1 if the comparison holds, 0 if
 * not, -ENOSYS for an op or a comparison that does not exist -- the
 * latter only once the op is done, as Linux's futex_atomic_op_inuser().
 * The word is changed with an atomic instruction: user threads on other
 * CPUs change it with theirs.
 */
static int futex_atomic_op(u32 encoded, u32 *word)
{
	unsigned int op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int oparg = sign_extend((encoded >> 12) & 0xfff, 12);
	int cmparg = sign_extend(encoded & 0xfff, 12);
	int old;

	if (encoded & (FUTEX_OP_OPARG_SHIFT << 28)) {
		if (oparg < 0 || oparg > 31) {
			/* Linux warns and uses the low five bits */
			printk_ratelimited(KERN_INFO "futex_wake_op: %s tries to shift op by %d; fix this program\n",
					   current->comm, oparg);
			oparg &= 31;
		}
		oparg = (int)(1u << oparg);
	}
	switch (op) {
	case FUTEX_OP_SET:
		old = (int)__atomic_exchange_n(word, (u32)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_ADD:
		old = (int)__atomic_fetch_add(word, (u32)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_OR:
		old = (int)__atomic_fetch_or(word, (u32)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_ANDN:
		old = (int)__atomic_fetch_and(word, ~(u32)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_XOR:
		old = (int)__atomic_fetch_xor(word, (u32)oparg, __ATOMIC_SEQ_CST);
		break;
	default:
		return -ENOSYS;
	}
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: return old == cmparg;
	case FUTEX_OP_CMP_NE: return old != cmparg;
	case FUTEX_OP_CMP_LT: return old < cmparg;
	case FUTEX_OP_CMP_LE: return old <= cmparg;
	case FUTEX_OP_CMP_GT: return old > cmparg;
	case FUTEX_OP_CMP_GE: return old >= cmparg;
	default: return -ENOSYS;
	}
}

/* Wake up to nr (at least one) waiters with key in hb, whatever their
 * bitset; hb locked.  The number woken. */
static int futex_wake_locked(struct futex_hash_bucket *hb, const struct futex_key *key, int nr)
{
	struct futex_q *q, *tmp;
	int woken = 0;

	assert_spin_locked(&hb->lock);
	list_for_each_entry_safe(q, tmp, &hb->chain, list) {
		if (!match_futex(&q->key, key))
			continue;
		futex_wake_q(q);
		if (++woken >= nr)
			break;
	}
	return woken;
}

/*
 * FUTEX_WAKE_OP: glibc's old condition variables released the mutex
 * word and woke a waiter of each word in one call.  The op and the
 * wake-ups happen under both buckets' locks, so no waiter tests
 * *uaddr2 between the change and the wake (Linux's futex_wake_op()).
 */
static long futex_wake_op(u32 __user *uaddr1, unsigned int flags, u32 __user *uaddr2,
			  int nr_wake, int nr_wake2, u32 encoded)
{
	struct futex_hash_bucket *hb1, *hb2;
	struct futex_key key1, key2;
	struct page *page;
	long ret;
	int op_ret;

	ret = get_futex_key_only(uaddr1, flags, &key1);
	if (ret)
		return ret;
	/* *uaddr2 is written under the locks: its page pinned writable */
	ret = get_futex_key(uaddr2, flags, &key2, &page, FOLL_WRITE);
	if (ret)
		return ret;
	hb1 = hash_futex(&key1);
	hb2 = hash_futex(&key2);

	double_lock_hb(hb1, hb2);
	op_ret = futex_atomic_op(encoded, futex_word(page, uaddr2));
	if (op_ret < 0) {
		ret = op_ret;
		goto out_unlock;
	}
	ret = futex_wake_locked(hb1, &key1, nr_wake);
	if (op_ret > 0)
		ret += futex_wake_locked(hb2, &key2, nr_wake2);
out_unlock:
	double_unlock_hb(hb1, hb2);
	put_page(page);
	return ret;
}

/*
 * The timeout as a monotonic deadline (ns), 0 for none.  FUTEX_WAIT's is
 * relative; FUTEX_WAIT_BITSET's absolute, on CLOCK_REALTIME if asked.
 */
static long futex_deadline(const struct timespec __user *utime, int cmd, unsigned int flags,
			   u64 *deadline)
{
	struct timespec ts;
	u64 ns, now = ktime_get_ns();

	*deadline = 0;
	if (!utime)
		return 0;
	if (copy_from_user(&ts, utime, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	if ((u64)ts.tv_sec >= (~0ull >> 2) / NSEC_PER_SEC)
		return 0;                       /* centuries away: no timeout */
	ns = (u64)ts.tv_sec * NSEC_PER_SEC + (u64)ts.tv_nsec;
	if (cmd == FUTEX_WAIT) {
		*deadline = now + ns;
	} else {
		if (flags & FUTEX_CLOCK_REALTIME)
			ns = ns > realtime_offset_ns() ? ns - realtime_offset_ns() : 0;
		*deadline = ns ? ns : 1;        /* in the past: times out at once */
	}
	return 0;
}

long sys_futex(u32 __user *uaddr, int op, u32 val, const struct timespec __user *utime,
	       u32 __user *uaddr2, u32 val3)
{
	unsigned int flags = (unsigned int)op & (FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	int cmd = op & FUTEX_CMD_MASK;
	/* the requeue and wake-op calls pass a count where the timeout goes */
	int val2 = (int)(u32)(unsigned long)utime;
	u64 deadline;
	long ret;

	if ((flags & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		__attribute__((fallthrough));
	case FUTEX_WAIT_BITSET:
		ret = futex_deadline(utime, cmd, flags, &deadline);
		if (ret)
			return ret;
		return futex_wait(uaddr, flags, val, deadline, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		__attribute__((fallthrough));
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, flags, (int)val, val3);
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, flags, uaddr2, (int)val, val2, NULL);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, flags, uaddr2, (int)val, val2, &val3);
	case FUTEX_WAKE_OP:
		return futex_wake_op(uaddr, flags, uaddr2, (int)val, val2, val3);
	default:
		return -ENOSYS;
	}
}

/* --- robust futexes ------------------------------------------------------ */

/* struct robust_list_head, as glibc lays it out for each thread */
struct robust_list_head {
	u64 next;                       /* first entry; the head's own address ends it */
	s64 futex_offset;               /* from an entry to its mutex's futex word */
	u64 list_op_pending;            /* an entry being added or removed */
};
#define ROBUST_LIST_LIMIT 2048          /* Linux's: a looped list ends here */

/*
 * The owner died holding the mutex whose word is at uaddr: if the word
 * names this thread, it becomes FUTEX_OWNER_DIED (keeping FUTEX_WAITERS),
 * by a compare-and-exchange on the pinned page -- user threads change the
 * word with atomic instructions too -- and a waiter is woken, to find the
 * mutex with EOWNERDEAD (Linux's handle_futex_death()).
 */
static void handle_futex_death(u32 __user *uaddr, struct task_struct *t)
{
	struct page *page;
	u32 *word, uval;

	if (((unsigned long)uaddr & 3) || (unsigned long)uaddr >= USER_SPACE_END ||
	    pin_user_pages_fast((unsigned long)uaddr, 1, FOLL_WRITE, &page) != 1)
		return;
	word = (u32 *)((char *)page_address(page) + ((unsigned long)uaddr & ~PAGE_MASK));
	uval = READ_ONCE(*word);
	while ((uval & FUTEX_TID_MASK) == (u32)t->pid) {
		u32 nval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;

		if (__atomic_compare_exchange_n(word, &uval, nval, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			if (nval & FUTEX_WAITERS)
				futex_wake(uaddr, 0, 1, FUTEX_BITSET_MATCH_ANY);
			break;
		}
	}
	put_page(page);
}

void exit_robust_list(struct task_struct *t)
{
	u64 head_addr = (u64)(unsigned long)t->robust_list;
	struct robust_list_head head;
	unsigned int limit = ROBUST_LIST_LIMIT;
	u64 entry;

	t->robust_list = NULL;
	if (!head_addr || copy_from_user(&head, (void __user *)head_addr, sizeof(head)))
		return;
	/* the entries are user addresses, the last pointing back at the
	 * head; each next pointer is read before its mutex is handled */
	for (entry = head.next; entry && entry != head_addr && limit--;) {
		u64 next;

		if (copy_from_user(&next, (void __user *)entry, sizeof(next)))
			return;
		if (entry != head.list_op_pending)
			handle_futex_death((u32 __user *)(entry + head.futex_offset), t);
		entry = next;
	}
	if (head.list_op_pending)
		handle_futex_death((u32 __user *)(head.list_op_pending + head.futex_offset), t);
}
