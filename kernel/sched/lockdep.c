// SPDX-License-Identifier: MIT
/*
 * lockdep.c - the lock-order validator (include/spindle/lockdep.h), a
 * small version of Linux's kernel/locking/lockdep.c.  Boot with lockdep=1.
 *
 * Where it sits: the spinlock and mutex primitives (spinlock.h, mutex.c)
 * call lock_acquire() before they take a lock and lock_release() when
 * they drop it; might_sleep() (core.c) and the way back to user space
 * (kernel/signal.c) ask what the task holds.  It never takes a lock
 * itself: it runs with interrupts off, which on one CPU is exclusion
 * enough.
 *
 * The idea.  A deadlock needs two tasks taking the same two locks in
 * opposite orders, at the same time -- rare, so tests seldom see it.  The
 * order itself is visible on every run: each time a task takes lock B
 * while it holds lock A, "A before B" is a rule of the kernel.  lockdep
 * records each rule as an edge A -> B between lock classes (not lock
 * instances: see lockdep.h) and, before adding a new one, looks for a
 * path the other way, B -> ... -> A.  Finding one means that both orders
 * exist: a possible deadlock, reported the first time the second order
 * is taken, even if the two never ran at the same time.
 *
 *   acquire B, holding [.., A]:   A -> B known?  done.
 *                                 path B -> .. -> A?  report the cycle.
 *                                 otherwise record A -> B, with the stack.
 *
 * As Linux, only the innermost held lock (of the same context) gets the
 * new edge: the locks below it already lead to it, so every path is still
 * there.
 *
 * Recursion.  An edge from a class to itself would say nothing -- the
 * graph cannot tell "q1 then q2" from "q2 then q1" -- so before the graph,
 * lock_acquire() looks for the new lock's class among the locks the task
 * holds (check_deadlock(), Linux's name).  Found: one task may take q1 then
 * q2 while another takes q2 then q1, and lockdep reports "possible
 * recursive locking detected" with where each was taken, once per class.
 * Code that nests two of a class in an order it guarantees annotates the
 * inner one (spin_lock_nested, mutex_lock_nested): its subclass is a class
 * of its own, named "<name>/<subclass>", and so an edge like any other.
 *
 * After the first cycle report the graph is no longer trusted and no more
 * cycles are reported (Linux turns lockdep off); the held-lock lists go
 * on, for the sleeping and return-to-user checks.
 */
#include <spindle/lockdep.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include <spindle/ksyms.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/mm.h>
#include <spindle/errno.h>

#define MAX_LOCKDEP_KEYS 512	 /* lock classes */
#define MAX_NESTED_CLASSES 32	 /* of them, subclasses (named "<name>/<n>") */
#define CLASS_NAME_LEN 64
#define MAX_LOCKDEP_ENTRIES 4096 /* dependencies (edges) */
#define LOCKDEP_TRACE_DEPTH 6	 /* frames kept per dependency */
#define SLEEP_REPORT_INTERVAL HZ /* as Linux's __might_sleep: 1/s */

struct lock_class {
	const void *key;
	const char *name;
	unsigned int subclass;	 /* 0, or a nesting level (name says "/n") */
	bool recursion_reported; /* a recursion in it was said once */
	int edges;		 /* first dependency from it, or -1 */
	/* lock_stat=1: its spinlocks' counts (/proc/lock_stat), each a
	 * relaxed atomic add by whichever CPU took one, under no lock */
	unsigned long con_bounces;  /* contentions for a lock another CPU took last */
	unsigned long contentions;  /* acquisitions that found the lock taken */
	unsigned long acq_bounces;  /* acquisitions of a lock another CPU took last */
	unsigned long acquisitions;
};

/* A dependency: `to` was taken while `from` was held, here. */
struct lock_list {
	u16 from, to;
	int next;				  /* the next dependency from `from` */
	unsigned long trace[LOCKDEP_TRACE_DEPTH]; /* taking `to` */
};

bool debug_locks;
bool lock_stat;
static bool graph_ok = true; /* no cycle reported, no table full */
/*
 * The graph and the class table are shared by every CPU: lockdep_lock (a
 * bare ticket lock, which lockdep itself does not track) keeps one CPU at
 * a time in them when they change.  Most acquisitions change nothing --
 * a known class, a dependency already recorded -- and take the fast path
 * in lock_acquire() without it, as Linux's chain cache does: one global
 * lock on every spin_lock() would have every CPU's tick queue behind it,
 * and under QEMU's round-robin CPUs a holder switched out makes the
 * others spin a whole turn.  in_lockdep is per CPU: this CPU is inside
 * lockdep already (a report's own locks), so it does not come in again.
 */
static arch_spinlock_t lockdep_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static DEFINE_PER_CPU(bool, in_lockdep);
static unsigned long nr_reports;

static struct lock_class lock_classes[MAX_LOCKDEP_KEYS];
static unsigned int nr_lock_classes;
static struct lock_list list_entries[MAX_LOCKDEP_ENTRIES];
static unsigned int nr_list_entries;
static char nested_names[MAX_NESTED_CLASSES][CLASS_NAME_LEN];
static unsigned int nr_nested_names;

/* the breadth-first search's state (under lockdep_lock: one user) */
static int bfs_parent[MAX_LOCKDEP_KEYS]; /* edge that reached it */
static u16 bfs_queue[MAX_LOCKDEP_KEYS];

extern char _text[], _end[];

static void lock_stat_acquire(spinlock_t *l, struct lock_class *c);

unsigned long lockdep_errors(void)
{
	return READ_ONCE(nr_reports);
}

static unsigned int class_id(const struct lock_class *c)
{
	return (unsigned int)(c - lock_classes);
}

static void print_ip_sym(const char *prefix, unsigned long ip)
{
	char sym[128];

	ksym_snprint(sym, sizeof(sym), ip);
	printk(KERN_ERR "%s%s\n", prefix, sym);
}

static void print_lock(const struct held_lock *hl)
{
	char sym[128];

	ksym_snprint(sym, sizeof(sym), hl->acquire_ip);
	printk(KERN_ERR "%p (%s), at: %s\n", hl->instance, hl->class->name, sym);
}

void lockdep_print_held_locks(struct task_struct *p)
{
	unsigned int n = p->lockdep_depth;

	if (!n) {
		printk(KERN_ERR "no locks held by %s/%d.\n", p->comm, p->pid);
		return;
	}
	printk(KERN_ERR "%u lock%s held by %s/%d:\n", n, n > 1 ? "s" : "", p->comm, p->pid);
	for (unsigned int i = 0; i < n; i++) {
		printk(KERN_ERR " #%u: ", i);
		print_lock(&p->held_locks[i]);
	}
}

static void print_report_head(const char *what)
{
	nr_reports++;
	printk(KERN_ERR "\n");
	printk(KERN_ERR "======================================================\n");
	printk(KERN_ERR "%s\n", what);
	printk(KERN_ERR "%s\n", print_tainted());
	printk(KERN_ERR "------------------------------------------------------\n");
}

/* The head of a report about two locks: the one being taken, the held one. */
static void print_report_head_locks(const char *what, struct task_struct *curr,
				    const struct held_lock *prev, const struct held_lock *next)
{
	print_report_head(what);
	printk(KERN_ERR "%s/%d is trying to acquire lock:\n", curr->comm, curr->pid);
	print_lock(next);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "but task is already holding lock:\n");
	print_lock(prev);
	printk(KERN_ERR "\n");
}

static void print_report_tail(void)
{
	printk(KERN_ERR "\n");
	printk(KERN_ERR "stack backtrace:\n");
	printk(KERN_ERR "CPU: %u PID: %d Comm: %s %s\n", smp_processor_id(), current->pid,
	       current->comm, print_tainted());
	dump_stack();
}

/*
 * The class of a lock.  Its key: the init site's lock_class_key; for a
 * lock with none, its own address if it is in the kernel image (a static
 * lock), else the name its initialiser gave it.  A lock with neither was
 * never initialised (zeroed memory): said once, then keyed by address.
 * A subclass (a nested acquisition) is a class of its own with the same
 * key; only subclass 0 is remembered in the lock's map.
 */
static struct lock_class *look_up_lock_class(struct lockdep_map *map, const char *name,
					     void *instance, unsigned int subclass)
{
	const void *key = map->key;
	static bool warned_nonstatic;
	struct lock_class *c;

	if (map->class && !subclass)
		return map->class;
	if (!key) {
		bool in_image = (char *)instance >= _text && (char *)instance < _end;

		key = in_image ? instance : (const void *)name;
		if (!key) {
			key = instance;
			if (!warned_nonstatic) {
				warned_nonstatic = true;
				nr_reports++;
				printk(KERN_ERR "INFO: trying to register non-static key.\n");
				printk(KERN_ERR "lock %p was never initialised: spin_lock_init() or "
						"mutex_init() it before use\n",
				       instance);
				dump_stack();
			}
		}
	}
	for (unsigned int i = 0; i < nr_lock_classes; i++) {
		if (lock_classes[i].key != key || lock_classes[i].subclass != subclass)
			continue;
		if (!subclass)
			map->class = &lock_classes[i];
		return &lock_classes[i];
	}
	/* A full table turns lockdep off, naming the limit that was too low
	 * (Linux's print_lockdep_off): the classes, or the names of their
	 * nested subclasses, which have a smaller table of their own. */
	if (nr_lock_classes == MAX_LOCKDEP_KEYS ||
	    (subclass && nr_nested_names == MAX_NESTED_CLASSES)) {
		printk(KERN_ERR "BUG: %s too low!\n",
		       nr_lock_classes == MAX_LOCKDEP_KEYS ? "MAX_LOCKDEP_KEYS" : "MAX_NESTED_CLASSES");
		printk(KERN_ERR "turning off the locking correctness validator.\n");
		debug_locks = false;
		return NULL;
	}
	c = &lock_classes[nr_lock_classes++];
	*c = (struct lock_class){
		.key = key,
		.name = name ? name : "(unnamed)",
		.subclass = subclass,
		.edges = -1,
	};
	if (subclass) { /* Linux's "&q->lock/1" */
		char *n = nested_names[nr_nested_names++];

		snprintf(n, CLASS_NAME_LEN, "%s/%u", c->name, subclass);
		c->name = n;
	} else {
		map->class = c;
	}
	return c;
}

/* Lockless: an edge is filled in before it is published (the release
 * in check_prev_add()), and edges are never removed. */
static bool has_edge(const struct lock_class *from, const struct lock_class *to)
{
	for (int e = smp_load_acquire(&from->edges); e >= 0; e = list_entries[e].next)
		if (list_entries[e].to == class_id(to))
			return true;
	return false;
}

/*
 * Breadth-first from `from` along the dependencies: the last edge of the
 * shortest path to `to` (bfs_parent[] leads back along it), or -1.
 */
static int find_path(const struct lock_class *from, const struct lock_class *to)
{
	unsigned int head = 0, tail = 0;

	for (unsigned int i = 0; i < nr_lock_classes; i++)
		bfs_parent[i] = -2; /* not seen */
	bfs_parent[class_id(from)] = -1;
	bfs_queue[tail++] = (u16)class_id(from);
	while (head < tail) {
		unsigned int c = bfs_queue[head++];

		for (int e = lock_classes[c].edges; e >= 0; e = list_entries[e].next) {
			unsigned int n = list_entries[e].to;

			if (bfs_parent[n] != -2)
				continue;
			bfs_parent[n] = e;
			if (n == class_id(to))
				return e;
			bfs_queue[tail++] = (u16)n;
		}
	}
	return -1;
}

static void print_trace(const unsigned long *trace, unsigned int n)
{
	for (unsigned int i = 0; i < n && trace[i]; i++)
		print_ip_sym("       ", trace[i]);
	printk(KERN_ERR "\n");
}

/*
 * The report, in Linux's words.  The path found runs from the new lock
 * `next` to the held `prev`; each edge's trace is where its lock was taken
 * with the one before it held.  Printed from prev back to next (Linux's
 * "reverse order"), then #0: the acquisition being attempted now.
 */
static void print_circular_bug(struct task_struct *curr, const struct held_lock *prev,
			       const struct held_lock *next, int last_edge,
			       const unsigned long *trace, unsigned int trace_len)
{
	/* CPU1 of the scenario holds the lock the path reaches prev from */
	const struct lock_class *parent = &lock_classes[list_entries[last_edge].from];
	int depth = 0;

	for (int e = last_edge; e >= 0; e = bfs_parent[list_entries[e].from])
		depth++;
	print_report_head_locks("WARNING: possible circular locking dependency detected", curr,
				prev, next);
	printk(KERN_ERR "which lock already depends on the new lock.\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "the existing dependency chain (in reverse order) is:\n");
	printk(KERN_ERR "\n");
	for (int e = last_edge; e >= 0; e = bfs_parent[list_entries[e].from]) {
		const struct lock_list *l = &list_entries[e];

		printk(KERN_ERR "-> #%d (%s):\n", depth--, lock_classes[l->to].name);
		print_trace(l->trace, LOCKDEP_TRACE_DEPTH);
	}
	printk(KERN_ERR "-> #0 (%s):\n", next->class->name);
	print_trace(trace, trace_len);

	printk(KERN_ERR "other info that might help us debug this:\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR " Possible unsafe locking scenario:\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "       CPU0                    CPU1\n");
	printk(KERN_ERR "       ----                    ----\n");
	printk(KERN_ERR "  lock(%s);\n", prev->class->name);
	printk(KERN_ERR "                               lock(%s);\n", parent->name);
	printk(KERN_ERR "                               lock(%s);\n", prev->class->name);
	printk(KERN_ERR "  lock(%s);\n", next->class->name);
	printk(KERN_ERR "\n");
	printk(KERN_ERR " *** DEADLOCK ***\n");
	printk(KERN_ERR "\n");
	lockdep_print_held_locks(curr);
	print_report_tail();
}

/*
 * Recursion's report, in Linux's words: the lock being taken, the one of
 * its class already held, where each was taken, the scenario.
 */
static void print_deadlock_bug(struct task_struct *curr, const struct held_lock *prev,
			       const struct held_lock *next)
{
	print_report_head_locks("WARNING: possible recursive locking detected", curr, prev,
				next);
	printk(KERN_ERR "other info that might help us debug this:\n");
	printk(KERN_ERR " Possible unsafe locking scenario:\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "       CPU0\n");
	printk(KERN_ERR "       ----\n");
	printk(KERN_ERR "  lock(%s);\n", prev->class->name);
	printk(KERN_ERR "  lock(%s);\n", next->class->name);
	printk(KERN_ERR "\n");
	printk(KERN_ERR " *** DEADLOCK ***\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR " May be due to missing lock nesting notation\n");
	printk(KERN_ERR "\n");
	lockdep_print_held_locks(curr);
	print_report_tail();
}

/*
 * Does the task already hold a lock of next's class (in the same
 * context)?  Reported once per class; true either way, so that no
 * class-to-itself edge is recorded.
 */
static bool check_deadlock(struct task_struct *curr, const struct held_lock *next)
{
	for (unsigned int i = 0; i < curr->lockdep_depth; i++) {
		const struct held_lock *prev = &curr->held_locks[i];

		if (prev->class != next->class || prev->irq != next->irq)
			continue;
		if (!next->class->recursion_reported) {
			next->class->recursion_reported = true;
			print_deadlock_bug(curr, prev, next);
		}
		return true;
	}
	return false;
}

/*
 * The new lock `next` (not yet on the held list) against the innermost
 * held lock of the same context.  rbp: the frame of lock_acquire's
 * caller, for the stack kept with a new dependency.
 */
static void check_prev_add(struct task_struct *curr, struct held_lock *next, unsigned long rbp)
{
	unsigned long trace[LOCKDEP_TRACE_DEPTH] = { next->acquire_ip };
	unsigned int n = 1 + stack_trace_save_fp(rbp, trace + 1, LOCKDEP_TRACE_DEPTH - 1);
	struct held_lock *prev;
	struct lock_list *l;
	int e;

	if (!curr->lockdep_depth)
		return;
	prev = &curr->held_locks[curr->lockdep_depth - 1];
	if (prev->irq != next->irq || prev->class == next->class ||
	    has_edge(prev->class, next->class))
		return;
	e = find_path(next->class, prev->class);
	if (e >= 0) {
		graph_ok = false;
		print_circular_bug(curr, prev, next, e, trace, n);
		return;
	}
	if (nr_list_entries == MAX_LOCKDEP_ENTRIES) {
		printk(KERN_ERR "BUG: MAX_LOCKDEP_ENTRIES too low!\n");
		graph_ok = false;
		return;
	}
	l = &list_entries[nr_list_entries];
	l->from = (u16)class_id(prev->class);
	l->to = (u16)class_id(next->class);
	memcpy(l->trace, trace, sizeof(trace));
	l->next = prev->class->edges;
	smp_store_release(&prev->class->edges, (int)nr_list_entries++);
}

/*
 * The fast path: next's class is known (cached in its map), and pushing
 * it adds nothing to the graph and reports nothing -- nothing held, or
 * the dependency from the innermost held lock is recorded already, and no
 * held lock is of its class.  Everything it reads is this task's own or
 * only ever grows.  Interrupts off, in_lockdep set.
 */
static bool lock_acquire_fast(struct task_struct *curr, struct held_lock *next)
{
	const struct held_lock *prev;

	if (!next->class || curr->lockdep_depth == MAX_LOCK_DEPTH)
		return false;
	for (unsigned int i = 0; i < curr->lockdep_depth; i++)
		if (curr->held_locks[i].class == next->class)
			return false;           /* maybe recursion: the slow path says */
	if (curr->lockdep_depth) {
		prev = &curr->held_locks[curr->lockdep_depth - 1];
		if (prev->irq == next->irq && !has_edge(prev->class, next->class))
			return false;           /* a new dependency */
	}
	curr->held_locks[curr->lockdep_depth++] = *next;
	return true;
}

void lock_acquire(struct lockdep_map *map, const char *name, void *instance,
		  enum lockdep_type type, unsigned int subclass, unsigned long ip)
{
	struct task_struct *curr = current;
	struct held_lock next;
	unsigned long flags;

	if (!ip)
		ip = (unsigned long)__builtin_return_address(0);
	flags = local_irq_save();
	if (this_cpu_read(in_lockdep) || !debug_locks)
		goto out;
	this_cpu_write(in_lockdep, true);
	if (map->class && !subclass) {
		next = (struct held_lock){
			.class = map->class, .instance = instance, .acquire_ip = ip,
			.type = (u8)type, .irq = in_irq() != 0,
		};
		if (lock_acquire_fast(curr, &next))
			goto fast;
	}
	arch_spin_lock(&lockdep_lock);
	if (subclass >= MAX_LOCKDEP_SUBCLASSES)
		subclass = MAX_LOCKDEP_SUBCLASSES - 1;
	next = (struct held_lock){
		.class = look_up_lock_class(map, name, instance, subclass),
		.instance = instance,
		.acquire_ip = ip,
		.type = (u8)type,
		.irq = in_irq() != 0,
	};
	if (!next.class)
		goto done;
	if (curr->lockdep_depth == MAX_LOCK_DEPTH) {
		printk(KERN_ERR "BUG: MAX_LOCK_DEPTH too low!\n");
		lockdep_print_held_locks(curr);
		debug_locks = false;
		goto done;
	}
	if (!check_deadlock(curr, &next) && graph_ok)
		check_prev_add(curr, &next, *(unsigned long *)__builtin_frame_address(0));
	curr->held_locks[curr->lockdep_depth++] = next;
done:
	arch_spin_unlock(&lockdep_lock);
fast:
	if (lock_stat && type == LD_SPINLOCK && next.class)
		lock_stat_acquire(instance, next.class);
	this_cpu_write(in_lockdep, false);
out:
	local_irq_restore(flags);
}

/* Locks may be released in any order; one lockdep never saw is ignored
 * (taken during a report, or before lockdep was on). */
void lock_release(void *instance)
{
	struct task_struct *curr = current;
	unsigned long flags = local_irq_save();

	if (!this_cpu_read(in_lockdep)) {
		for (unsigned int i = curr->lockdep_depth; i-- > 0;) {
			if (curr->held_locks[i].instance != instance)
				continue;
			memmove(&curr->held_locks[i], &curr->held_locks[i + 1],
				(curr->lockdep_depth - i - 1) * sizeof(struct held_lock));
			curr->lockdep_depth--;
			break;
		}
	}
	local_irq_restore(flags);
}

/*
 * might_sleep() in atomic context, with lockdep on: Linux's report and
 * the locks held, at most once a second; the caller goes on (if it then
 * really sleeps, schedule() stops the kernel: "scheduling while atomic").
 */
void lockdep_might_sleep_bug(const char *file, int line)
{
	static u64 prev_jiffy;

	if (prev_jiffy && jiffies < prev_jiffy + SLEEP_REPORT_INTERVAL)
		return;
	prev_jiffy = jiffies ? jiffies : 1;
	nr_reports++;
	printk(KERN_ERR "BUG: sleeping function called from invalid context at %s:%d\n", file,
	       line);
	printk(KERN_ERR "in_atomic(): %d, irqs_disabled(): %d, pid: %d, name: %s\n",
	       in_atomic() != 0, irqs_disabled(), current->pid, current->comm);
	printk(KERN_ERR "preempt_count: %x, expected: 0\n", preempt_count());
	lockdep_print_held_locks(current);
	printk(KERN_ERR "CPU: %u PID: %d Comm: %s %s\n", smp_processor_id(), current->pid,
	       current->comm, print_tainted());
	dump_stack();
}

/*
 * Back to user space holding a lock: nothing in user space can release
 * it, and the next system call to take it would deadlock.  Report it,
 * then release the locks on the task's behalf so that the kernel stays
 * up (a spinlock left held would also leave preemption off for good).
 */
void __lockdep_sys_exit(void)
{
	struct task_struct *curr = current;

	if (!curr->lockdep_depth)
		return;
	print_report_head("BUG: lock held when returning to user space!");
	printk(KERN_ERR "%s/%d is leaving the kernel with locks still held!\n", curr->comm,
	       curr->pid);
	lockdep_print_held_locks(curr);
	print_report_tail();
	while (curr->lockdep_depth) {
		struct held_lock *hl = &curr->held_locks[curr->lockdep_depth - 1];
		unsigned int depth = curr->lockdep_depth;

		if (hl->type == LD_MUTEX)
			mutex_unlock(hl->instance);
		else
			spin_unlock((spinlock_t *)hl->instance);
		if (curr->lockdep_depth == depth) /* not ours after all */
			curr->lockdep_depth--;
	}
	printk(KERN_ERR "lockdep: released the locks of %s/%d\n", curr->comm, curr->pid);
}

/*
 * lock_stat (Linux's CONFIG_LOCK_STAT, Documentation/locking/lockstat.rst,
 * reduced to the columns below).  With lock_stat=1, lock_acquire() --
 * called by spin_lock() just before it takes its ticket -- counts the
 * acquisition in the lock's class, and looks at the lock: held, or with
 * CPUs queued for it, this acquisition will spin -- a contention.  (A
 * look, not a trylock, so that spin_lock() itself stays as it is; a lock
 * taken by another CPU between the look and the ticket is spun for
 * uncounted.  Linux's trylock-first would also time the wait: that
 * column is not kept.)  A "bounce" is a contention or an acquisition of
 * a lock that another CPU took last (the spinlock's last_cpu): the lock's
 * cache line, and most likely the data it guards, had to come over from
 * that CPU.  A lock that only one CPU ever takes has no bounces at all,
 * however often it is taken; a lock shared by every CPU's submissions
 * bounces on a good part of its acquisitions once two CPUs submit -- the
 * difference /proc/lock_stat shows.  Interrupts off.
 */
static void lock_stat_acquire(spinlock_t *l, struct lock_class *c)
{
	int me = (int)smp_processor_id() + 1, last = READ_ONCE(l->last_cpu);

	/* the run queue's lock handed from prev to next (core.c's
	 * finish_lock_switch): held by this CPU already, not taken again */
	if (READ_ONCE(l->owner_cpu) == me)
		return;
	__atomic_fetch_add(&c->acquisitions, 1, __ATOMIC_RELAXED);
	if (last && last != me)
		__atomic_fetch_add(&c->acq_bounces, 1, __ATOMIC_RELAXED);
	if (arch_spin_is_locked(&l->raw)) {
		__atomic_fetch_add(&c->contentions, 1, __ATOMIC_RELAXED);
		if (last && last != me)
			__atomic_fetch_add(&c->con_bounces, 1, __ATOMIC_RELAXED);
	}
	WRITE_ONCE(l->last_cpu, me);
}

/* more contended first, then more taken, as Linux sorts them */
static bool lock_stat_before(const struct lock_class *a, const struct lock_class *b)
{
	if (a->contentions != b->contentions)
		return a->contentions > b->contentions;
	return a->acquisitions > b->acquisitions;
}

/*
 * /proc/lock_stat: Linux's header and layout with four of its columns --
 * con-bounces, contentions, acq-bounces, acquisitions; the wait and hold
 * times are not kept.
 * One row per class taken since boot or the last clear; counts are read
 * unlocked, each a moment's value.
 */
int lock_stat_show(char *buf, size_t size)
{
	/* the readers' own: two may read /proc/lock_stat at once */
	u16 *order = kmalloc(MAX_LOCKDEP_KEYS * sizeof(*order), GFP_KERNEL);
	static const char rule[] = "--------------------------------------------------"
				   "--------------------------------------------------\n";
	unsigned int n = 0, nr = READ_ONCE(nr_lock_classes);
	int len;

	if (!order)
		return -ENOMEM;

	/* an insertion sort: a few hundred classes, read rarely */
	for (unsigned int i = 0; i < nr; i++) {
		const struct lock_class *c = &lock_classes[i];
		unsigned int k;

		if (!READ_ONCE(c->acquisitions))
			continue;
		k = n++;
		while (k && lock_stat_before(c, &lock_classes[order[k - 1]])) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = (u16)i;
	}
	len = snprintf(buf, size, "lock_stat version 0.4%s\n%s%40s %14s %14s %14s %14s\n%s",
		       lock_stat ? "" : " (off: boot with lock_stat=1)", rule, "class name",
		       "con-bounces", "contentions", "acq-bounces", "acquisitions", rule);
	for (unsigned int k = 0; k < n && len < (int)size; k++) {
		const struct lock_class *c = &lock_classes[order[k]];

		len += snprintf(buf + len, size - (size_t)len, "%40s: %14lu %14lu %14lu %14lu\n",
				c->name, READ_ONCE(c->con_bounces), READ_ONCE(c->contentions),
				READ_ONCE(c->acq_bounces), READ_ONCE(c->acquisitions));
	}
	kfree(order);
	return len < (int)size ? len : (int)size - 1;
}

/* Every class's counts to 0 (a write to /proc/lock_stat).  Racy against
 * CPUs counting meanwhile: an add in flight may land after the clear. */
void lock_stat_clear(void)
{
	unsigned int nr = READ_ONCE(nr_lock_classes);

	for (unsigned int i = 0; i < nr; i++) {
		struct lock_class *c = &lock_classes[i];

		WRITE_ONCE(c->con_bounces, 0);
		WRITE_ONCE(c->contentions, 0);
		WRITE_ONCE(c->acq_bounces, 0);
		WRITE_ONCE(c->acquisitions, 0);
	}
}
