// SPDX-License-Identifier: MIT
/*
 * The debug detectors, shown firing: each case commits on purpose one of
 * the bugs slab_debug, page_poison and lockdep exist to catch, then checks
 * that exactly one report came (the scenarios debug-slab and debug-lockdep
 * check its words) and that the kernel still works.
 *
 *   slab_use_after_free   write to a kmalloc object after kfree
 *   slab_redzone          write one byte past what kmalloc was asked for
 *   slab_double_free      kfree the same object twice
 *   page_poison           write to a page after __free_page
 *   lockdep_abba          take A then B, later B then A
 *   lockdep_recursion     take two locks of one class, nested without
 *                         the annotation (annotated first: no report)
 *   sleep_in_atomic       call mutex_lock (which may sleep) under a spinlock
 *   held_to_user          return from fork() to user space holding a spinlock
 *   lockdep_nested_limit  nest more subclasses than lockdep has names for:
 *                         it says which limit was too low and turns itself
 *                         off (for the rest of the boot: run it last)
 *
 * Each case is skipped unless its detector is on (slab_debug=1,
 * page_poison=1, lockdep=1): without them the bugs would corrupt memory or
 * stop the kernel.  test=all leaves this suite out.
 */
#include <spindle/ktest.h>
#include <spindle/mm.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>
#include <spindle/process.h>
#include <spindle/sched.h>
#include <spindle/signal.h>
#include <spindle/init.h>

#define PAGE_POISON_TRIES 64 /* pages to allocate before the freed one is back */

#define NEEDS(opt)                                  \
	do {                                        \
		if (!cmdline_flag(opt))                \
			KT_SKIP("needs " opt "=1"); \
	} while (0)

/* A store the compiler cannot see through (nor warn about: that is the
 * point of the test). */
static __noinline void poke(void *p, size_t off, u8 val)
{
	__asm__ volatile(""
			 : "+r"(p));
	((volatile u8 *)p)[off] = val;
}

KTEST(debug, slab_use_after_free)
{
	unsigned long before = slab_debug_errors();
	void *obj, *keep, *again;

	NEEDS("slab_debug");
	obj = kmalloc(64, GFP_KERNEL);
	keep = kmalloc(64, GFP_KERNEL); /* keeps the slab alive */
	KT_ASSERT(obj && keep);
	kfree(obj);
	poke(obj, 8, 0x42);		 /* the bug */
	again = kmalloc(64, GFP_KERNEL); /* obj was next: found, skipped */
	KT_ASSERT_MSG(slab_debug_errors() == before + 1, "%lu reports",
		      slab_debug_errors() - before);
	KT_ASSERT(again && again != obj);
	kfree(again);
	kfree(keep);
}

KTEST(debug, slab_redzone)
{
	unsigned long before = slab_debug_errors();
	void *buf;

	NEEDS("slab_debug");
	buf = kmalloc(60, GFP_KERNEL);
	KT_ASSERT(buf);
	poke(buf, 60, 0); /* the bug: a NUL past the end */
	kfree(buf);	  /* found here, and not freed */
	KT_ASSERT_MSG(slab_debug_errors() == before + 1, "%lu reports",
		      slab_debug_errors() - before);
}

KTEST(debug, slab_double_free)
{
	unsigned long before = slab_debug_errors();
	void *obj, *keep, *a, *b;

	NEEDS("slab_debug");
	obj = kmalloc(128, GFP_KERNEL);
	keep = kmalloc(128, GFP_KERNEL);
	KT_ASSERT(obj && keep);
	kfree(obj);
	__asm__ volatile(""
			 : "+r"(obj));
	kfree(obj); /* the bug: reported, ignored */
	KT_ASSERT_MSG(slab_debug_errors() == before + 1, "%lu reports",
		      slab_debug_errors() - before);
	a = kmalloc(128, GFP_KERNEL); /* obj comes back once only */
	b = kmalloc(128, GFP_KERNEL);
	KT_ASSERT(a && b && a != b);
	kfree(a);
	kfree(b);
	kfree(keep);
}

KTEST(debug, page_poison)
{
	static struct page *held[PAGE_POISON_TRIES];
	unsigned long before = page_poison_errors();
	struct page *page;
	int n = 0;

	NEEDS("page_poison");
	page = alloc_page(GFP_KERNEL);
	KT_ASSERT(page);
	__free_page(page);
	poke(page_address(page), 100, 7); /* the bug */
	while (page_poison_errors() == before && n < PAGE_POISON_TRIES) {
		held[n] = alloc_page(GFP_KERNEL);
		KT_ASSERT(held[n]);
		KT_ASSERT(held[n++] != page); /* never handed out again */
	}
	while (n)
		__free_page(held[--n]);
	KT_ASSERT_MSG(page_poison_errors() == before + 1, "%lu reports",
		      page_poison_errors() - before);
}

static DEFINE_SPINLOCK(debug_lock_a);
static DEFINE_SPINLOCK(debug_lock_b);

KTEST(debug, lockdep_abba)
{
	unsigned long before = lockdep_errors();

	NEEDS("lockdep");
	spin_lock(&debug_lock_a); /* the rule: a, then b */
	spin_lock(&debug_lock_b);
	spin_unlock(&debug_lock_b);
	spin_unlock(&debug_lock_a);

	spin_lock(&debug_lock_b); /* the bug: b, then a */
	spin_lock(&debug_lock_a);
	spin_unlock(&debug_lock_a);
	spin_unlock(&debug_lock_b);
	KT_ASSERT_MSG(lockdep_errors() == before + 1, "%lu reports", lockdep_errors() - before);
}

/* two locks initialised at one site: one class, as two queues' q->lock */
static spinlock_t debug_q[2];

KTEST(debug, lockdep_recursion)
{
	unsigned long before = lockdep_errors();

	NEEDS("lockdep");
	for (int i = 0; i < 2; i++)
		spin_lock_init(&debug_q[i]);
	/* annotated: a fixed order of the two, the inner a subclass */
	spin_lock(&debug_q[0]);
	spin_lock_nested(&debug_q[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&debug_q[1]);
	spin_unlock(&debug_q[0]);
	KT_ASSERT_MSG(lockdep_errors() == before, "%lu reports for a nested pair",
		      lockdep_errors() - before);

	spin_lock(&debug_q[0]); /* the bug: the same class, unannotated */
	spin_lock(&debug_q[1]);
	spin_unlock(&debug_q[1]);
	spin_unlock(&debug_q[0]);
	spin_lock(&debug_q[1]); /* said once per class */
	spin_lock(&debug_q[0]);
	spin_unlock(&debug_q[0]);
	spin_unlock(&debug_q[1]);
	KT_ASSERT_MSG(lockdep_errors() == before + 1, "%lu reports", lockdep_errors() - before);
}

static DEFINE_MUTEX(debug_mutex);
static DEFINE_SPINLOCK(debug_atomic_lock);

KTEST(debug, sleep_in_atomic)
{
	unsigned long before = lockdep_errors();

	NEEDS("lockdep");
	spin_lock(&debug_atomic_lock);
	mutex_lock(&debug_mutex); /* the bug; free, so no real sleep */
	mutex_unlock(&debug_mutex);
	spin_unlock(&debug_atomic_lock);
	KT_ASSERT_MSG(lockdep_errors() == before + 1, "%lu reports", lockdep_errors() - before);
}

/* held_to_user: the first fork() of a shell takes this lock in the
 * kernel and returns to user space with it. */
static DEFINE_SPINLOCK(debug_user_lock);
static bool debug_fork_done;

static void debug_fork_take_lock(struct task_struct *child)
{
	(void)child;
	if (debug_fork_done || !current->mm)
		return;
	debug_fork_done = true;
	spin_lock(&debug_user_lock); /* the bug: never unlocked */
}

KTEST(debug, held_to_user)
{
	/* the shell forks to run another (/bin/sh is in both userlands);
	 * a command after it, so that busybox's ash does not exec it in
	 * place of forking, as it does a -c string's last command */
	const char *argv[] = { "sh", "-c", "/bin/sh -c true; exit", NULL };
	unsigned long before = lockdep_errors();
	int status = -1, pid;

	NEEDS("lockdep");
	debug_fork_done = false;
	fork_test_hook = debug_fork_take_lock;
	pid = user_spawn("/bin/sh", argv);
	KT_ASSERT_MSG(pid > 0, "user_spawn: %d", pid);
	KT_ASSERT(kernel_wait4(pid, &status, 0) == pid);
	fork_test_hook = NULL;
	KT_ASSERT(debug_fork_done);
	KT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "sh: status %#x",
		      status);
	KT_ASSERT_MSG(lockdep_errors() == before + 1, "%lu reports", lockdep_errors() - before);
	KT_ASSERT_MSG(!spin_is_locked(&debug_user_lock), "lockdep did not release it");
}

/* five static locks, five classes (keyed by address), the same name */
static spinlock_t debug_nest[5] = { [0 ... 4] = __SPIN_LOCK_UNLOCKED(debug_nest) };

KTEST(debug, lockdep_nested_limit)
{
	NEEDS("lockdep");
	/* 5 x 7 nested subclasses, more than the table of their names holds */
	for (int i = 0; i < 5 && debug_locks; i++)
		for (unsigned int sub = 1; sub < MAX_LOCKDEP_SUBCLASSES; sub++) {
			spin_lock_nested(&debug_nest[i], sub);
			spin_unlock(&debug_nest[i]);
		}
	KT_ASSERT_MSG(!debug_locks, "35 nested classes, and lockdep is still on");
}
