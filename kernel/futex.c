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
 *   shared, in a MAP_SHARED mapping of a file
 *       (inode, byte offset in the file): processes that map the same
 *       file at different addresses agree on these
 *
 * (Anonymous MAP_SHARED memory does not exist in Spindle; a private
 * mapping shared by fork is copied at once, so no other process sees the
 * word anyway.)
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
 * FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP and the PI operations
 * are not implemented (-ENOSYS): glibc 2.36's mutexes, condition
 * variables, barriers and pthread_join use only WAIT, WAKE and the
 * bitset forms.
 *
 * Locking: a bucket's lock is a leaf but for the wake-ups done under it
 * (pi_lock, a run queue's lock).  No user copy or fault happens under it.
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

#define FUTEX_HASH_BITS 8
#define FUTEX_HASH_SIZE (1u << FUTEX_HASH_BITS)

/* Which word: (mm, address) or (inode, offset); see above. */
struct futex_key {
	const void *ptr;
	unsigned long word;
};

/* A sleeping waiter, on its own stack (Linux's struct futex_q). */
struct futex_q {
	struct list_head list;          /* on its bucket's chain */
	struct task_struct *task;
	struct futex_key key;
	u32 bitset;
	bool woken;                     /* set by the waker, under the bucket lock */
};

struct futex_hash_bucket {
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

/*
 * The key of the word at uaddr, and its page pinned (*pagep, for
 * futex_read_locked(); put_page() it).  -EINVAL if unaligned, -EFAULT if
 * no readable memory is there (Linux's get_futex_key()).
 */
static int get_futex_key(u32 __user *uaddr, unsigned int flags, struct futex_key *key,
			 struct page **pagep)
{
	unsigned long addr = (unsigned long)uaddr;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (addr & (sizeof(u32) - 1))
		return -EINVAL;
	if (!mm || addr >= USER_SPACE_END)
		return -EFAULT;
	if (pin_user_pages_fast(addr, 1, 0, pagep) != 1)
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

/* The word, through the pinned page: no fault, so under a spinlock. */
static u32 futex_read_locked(struct page *page, u32 __user *uaddr)
{
	return READ_ONCE(*(u32 *)((char *)page_address(page) +
				  ((unsigned long)uaddr & ~PAGE_MASK)));
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
	ret = get_futex_key(uaddr, flags, &q.key, &page);
	if (ret)
		return ret;
	hb = hash_futex(&q.key);
	spin_lock(&hb->lock);
	if (futex_read_locked(page, uaddr) != val) {
		spin_unlock(&hb->lock);
		put_page(page);
		return -EAGAIN;         /* changed already: no sleep */
	}
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

	/* under the lock: a waker is done with q once it lets go of it */
	spin_lock(&hb->lock);
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
	struct page *page;
	int woken = 0;
	long ret;

	if (!bitset)
		return -EINVAL;
	if (flags & FUTEX_PRIVATE_FLAG) {
		/* the key is the address: nothing to look at (as Linux, a
		 * private wake of unmapped memory finds nobody, 0) */
		if ((unsigned long)uaddr & (sizeof(u32) - 1))
			return -EINVAL;
		if (!current->mm)
			return -EFAULT;
		key.ptr = current->mm;
		key.word = (unsigned long)uaddr;
	} else {
		ret = get_futex_key(uaddr, flags, &key, &page);
		if (ret)
			return ret;
		put_page(page);         /* the key is all a wake needs */
	}
	hb = hash_futex(&key);
	spin_lock(&hb->lock);
	list_for_each_entry_safe(q, tmp, &hb->chain, list) {
		if (!match_futex(&q->key, &key) || !(q->bitset & bitset))
			continue;
		list_del(&q->list);
		WRITE_ONCE(q->woken, true);
		wake_up_process(q->task);
		/* as Linux: nr 0 still wakes one */
		if (++woken >= nr)
			break;
	}
	spin_unlock(&hb->lock);
	return woken;
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
	u64 deadline;
	long ret;

	(void)uaddr2;
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
