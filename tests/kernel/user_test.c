// SPDX-License-Identifier: MIT
/*
 * Suite "user": the user/kernel boundary and processes.
 *
 * uaccess cases run in the ktest kernel thread (no user mappings at all):
 * every user address faults, so each copy must come back through the
 * exception-fixup table with "nothing copied".
 */
#include <spindle/ktest.h>
#include <spindle/time.h>
#include <spindle/uaccess.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <asm/extable.h>

/* An address in the lower half that nothing maps. */
#define UNMAPPED_USER ((void __user *)0x10000000ul)

KTEST(user, uaccess_null)
{
	char buf[16];

	memset(buf, 0x5a, sizeof(buf));
	KT_ASSERT(copy_from_user(buf, NULL, sizeof(buf)) == sizeof(buf));
	for (unsigned i = 0; i < sizeof(buf); i++)
		KT_ASSERT_MSG(buf[i] == 0, "byte %u not zeroed", i);
	KT_ASSERT(copy_to_user(NULL, buf, sizeof(buf)) == sizeof(buf));
	KT_ASSERT(clear_user(NULL, 8) == 8);
	KT_ASSERT(strncpy_from_user(buf, NULL, sizeof(buf)) == -EFAULT);
}

KTEST(user, uaccess_kernel_address)
{
	static char secret[8] = "kernel!";
	char buf[8];

	/* access_ok() refuses it before any access is made */
	KT_ASSERT(!access_ok(secret, sizeof(secret)));
	KT_ASSERT(copy_from_user(buf, (const void __user *)secret, 8) == 8);
	KT_ASSERT(copy_to_user((void __user *)secret, "xxxxxxx", 8) == 8);
	KT_ASSERT(strcmp(secret, "kernel!") == 0);
	KT_ASSERT(strncpy_from_user(buf, (const char __user *)secret, 8) == -EFAULT);
	/* a range that starts in user space and runs into the kernel */
	KT_ASSERT(!access_ok((void __user *)(USER_SPACE_END - 4), 8));
	KT_ASSERT(access_ok((void __user *)(USER_SPACE_END - 8), 8));
}

KTEST(user, uaccess_unmapped_fixup)
{
	char buf[32];

	/* These do reach the copy instructions, which fault and resume at
	 * their fixups (the fault handler would die() otherwise). */
	KT_ASSERT(search_exception_tables(0) == NULL);
	KT_ASSERT(copy_from_user(buf, UNMAPPED_USER, sizeof(buf)) == sizeof(buf));
	KT_ASSERT(copy_to_user(UNMAPPED_USER, buf, sizeof(buf)) == sizeof(buf));
	KT_ASSERT(clear_user(UNMAPPED_USER, sizeof(buf)) == sizeof(buf));
	KT_ASSERT(strncpy_from_user(buf, UNMAPPED_USER, sizeof(buf)) == -EFAULT);
	KT_ASSERT(copy_from_user(buf, UNMAPPED_USER, 0) == 0);
}

/*
 * The user-mode cases: the test program (tests/kernel/user/usertest.c,
 * linked into the kernel as /ktest/usertest) runs one named test in a new
 * process and prints its own "TEST user.<name> PASS|FAIL: ..." line; its
 * exit status says which (0 pass, 1 fail).  Any other ending -- killed by
 * a signal, exec failed -- means it printed nothing: the kernel reports
 * the failure itself.
 */
#include <spindle/process.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include <spindle/signal.h>
#include <spindle/sched_debug.h>
#include "ktest_sched.h"

static unsigned long free_at_start;     /* pages free before the first process */

static void run_user_case(struct ktest_state *kt, const char *name)
{
	const char *argv[] = { "usertest", name, NULL };
	int status = -1, pid;

	if (!free_at_start) {
		kmem_cache_shrink_all(); /* objects parked in kmalloc's arrays */
		free_at_start = nr_free_pages();
	}

	pid = user_spawn("/ktest/usertest", argv);
	KT_ASSERT_MSG(pid > 0, "user_spawn: %d", pid);
	KT_ASSERT(kernel_wait4(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
		ktest_reported(kt, WEXITSTATUS(status) == 0);
		return;
	}
	KT_ASSERT_MSG(false, "usertest %s: wait4 status %#x (signal %d, exit %d)", name,
		      status, WIFSIGNALED(status) ? WTERMSIG(status) : 0, WEXITSTATUS(status));
}

#define USER_CASE(name) KTEST(user, name) { run_user_case(kt, #name); }

USER_CASE(ids)
USER_CASE(uname)
USER_CASE(clock)
USER_CASE(nanosleep)
USER_CASE(efault)
USER_CASE(brk)
USER_CASE(mmap)
USER_CASE(mprotect)
USER_CASE(bad_rbp)
USER_CASE(fork_wait)
USER_CASE(segv)
USER_CASE(signals)
USER_CASE(pgrp)
USER_CASE(exec)
USER_CASE(fpu)
USER_CASE(reboot)
USER_CASE(fuzz)

/* fork_killed: SIGKILL to the forker's group right after the child's task
 * is created, once, for the forking child the user side sets up (a group
 * leader whose parent is a user process; usertest.c says why). */
static bool fork_kill_done;
static struct task_struct *fork_kill_child;    /* held, as /proc would hold it */

static void fork_kill_group(struct task_struct *child)
{
	if (fork_kill_done || current->pgid != current->pid ||
	    !current->parent || !current->parent->mm)
		return;
	fork_kill_done = true;
	get_task_struct(child);
	fork_kill_child = child;
	kill_pgrp(current->pgid, SIGKILL);
}

KTEST(user, fork_killed)
{
	struct task_struct *child;
	unsigned long frames[8];
	unsigned int n;
	void *stack;

	fork_kill_done = false;
	fork_kill_child = NULL;
	fork_test_hook = fork_kill_group;
	run_user_case(kt, "fork_killed");
	fork_test_hook = NULL;
	child = fork_kill_child;
	KT_ASSERT_MSG(child != NULL, "the fork hook never ran");
	/* the child fork gave up on: a reader holding it (/proc/<pid>/stack)
	 * must find no stack to walk, not a freed one */
	n = stack_trace_save_tsk(child, frames, ARRAY_SIZE(frames));
	stack = child->stack;
	put_task_struct(child);
	KT_ASSERT_MSG(stack == NULL && n == 0, "stack %p, %u frames", stack, n);
}

/* Every process above has exited and been reaped: their address spaces,
 * page tables, kernel stacks and task structures must all be back.  The
 * last of them may still be switching away on another CPU -- a dead
 * task's stack is freed by its CPU's next task, and its parent may have
 * reaped it on this one meanwhile -- so the count has KTEST_WAIT_MS to
 * come back (a loaded host may not run that CPU for a while); a page
 * still missing then is a leak. */
KTEST(user, no_leaks)
{
	if (!free_at_start)
		KT_SKIP("no user case ran");
	ktest_wait_until((kmem_cache_shrink_all(), nr_free_pages()) == free_at_start);
	KT_ASSERT_MSG(nr_free_pages() == free_at_start, "%lu pages free, %lu before",
		      nr_free_pages(), free_at_start);
}
