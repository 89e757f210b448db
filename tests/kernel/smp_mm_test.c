// SPDX-License-Identifier: MIT
/*
 * The kernel's page tables with several CPUs (docs/smp.md, "Kernel page
 * tables on several CPUs"): a removed kernel mapping must leave every
 * CPU's TLB before its address maps something else, and two CPUs that
 * install a page table for the same range at once must not lose one
 * another's mapping.  Booted with -smp N (the cases need two CPUs).
 *
 *   kernel_tlb_shootdown  CPU 1 reads through a kernel mapping (so its TLB
 *                         holds the translation); CPU 0 unmaps it,
 *                         flush_tlb_kernel_range(), maps the address to
 *                         another page; CPU 1 must read the new page.
 *                         Without the shootdown CPU 1 reads the old page
 *                         through its stale translation (QEMU's TCG keeps
 *                         a TLB per virtual CPU, as hardware does).  The
 *                         case also counts the flush requests CPU 1
 *                         carried out: one a round.
 *   kstack_reuse_shootdown  the same through the kernel-stack allocator:
 *                         CPU 1 reads a stack, the stack is freed (the
 *                         test holds its old page, so it cannot come back
 *                         under the new stack), and stacks are allocated
 *                         until that slot comes back; CPU 1 must see the
 *                         new, zeroed stack, not the old page --
 *                         kstack_free() leaves the slot lazy until
 *                         kstack_alloc() has flushed it from every CPU
 *   remote_vm_vs_munmap   CPU 1 reads a process's page with
 *                         access_remote_vm() (as /proc/<pid>/cmdline
 *                         does) while CPU 0, the owner, unmaps it: the
 *                         two meet on purpose between CPU 1's lookup and
 *                         its copy (access_remote_vm_hook), and CPU 0
 *                         then allocates pages to catch the freed one.  The
 *                         reader's reference (taken under
 *                         mm->page_table_lock) must keep the page out of
 *                         the allocator until its copy is done, so it
 *                         copies the process's data, not the new owner's
 *   pgd_lock_race         CPU 0 and CPU 1 map two pages of one fresh 2 MiB
 *                         range at once, so that both find its page table
 *                         absent: they meet on purpose between that test
 *                         and the install (pt_populate_hook), and the one
 *                         that installs waits under pgd_lock for the other
 *                         to come in (pt_install_hook).  Both mappings must
 *                         survive, never two CPUs may be installing, and
 *                         the case requires that the CPUs really met
 */
#include <spindle/ktest.h>
#include <spindle/smp.h>
#include <spindle/percpu.h>
#include <spindle/sched.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/irqflags.h>
#include <asm/pgtable.h>
#include <asm/tlbflush.h>
#include <asm/layout.h>
#include <asm/cpu.h>

/*
 * Unused parts of the kernel-stack area (no slot reaches past 80 MiB of
 * it, and tests/kernel/mm_test.c uses 256 GiB in), each in its own 1 GiB,
 * so their tables are fresh the first time these run.
 */
#define SHOOT_VA        (KSTACK_BASE + (320ul << 30))
#define PGD_RACE_VA     (KSTACK_BASE + (384ul << 30))
#define SHOOT_ROUNDS    100
#define PGD_RACE_ROUNDS 8
#define MEET_SPINS      50000000ul      /* a bound, not a delay: the CPUs meet long before */
#define INSIDE_SPINS    2000ul          /* time for the other CPU to come in, if it can */

struct remote_read {
	unsigned long va;
	u64 val;
};

static void read_on_this_cpu(void *arg)
{
	struct remote_read *r = arg;

	r->val = READ_ONCE(*(volatile u64 *)r->va);
}

/* What CPU 1 reads at va (its TLB, not ours, translates it). */
static u64 cpu1_reads(unsigned long va)
{
	struct remote_read r = { .va = va, .val = 0 };

	smp_call_function_single(1, read_on_this_cpu, &r, true);
	return r.val;
}

KTEST(smp, kernel_tlb_shootdown)
{
	struct page *pg[2];
	u64 want[2] = { 0x5157a1e0a0a0a0a0ull, 0x5157a1e0b1b1b1b1ull };
	unsigned long flushes;
	int stale = 0, wrong_first = 0, cur = 0;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	if (virt_to_phys_walk(kernel_pml4, SHOOT_VA) != (phys_addr_t)-1)
		KT_SKIP("test address already mapped");
	pg[0] = alloc_page(GFP_KERNEL);
	pg[1] = alloc_page(GFP_KERNEL);
	KT_ASSERT(pg[0] != NULL && pg[1] != NULL);
	for (int i = 0; i < 2; i++)
		*(u64 *)page_address(pg[i]) = want[i];
	KT_ASSERT(map_page(kernel_pml4, SHOOT_VA, page_to_phys(pg[0]), PAGE_KERNEL) == 0);
	flushes = tlb_kernel_flush_count(1);
	for (int round = 0; round < SHOOT_ROUNDS; round++) {
		/* CPU 1 translates SHOOT_VA now: the page it maps */
		if (cpu1_reads(SHOOT_VA) != want[cur])
			wrong_first++;
		/* the address goes away, and comes back as the other page */
		unmap_page(kernel_pml4, SHOOT_VA);
		flush_tlb_kernel_range(SHOOT_VA, SHOOT_VA + PAGE_SIZE);
		cur = !cur;
		if (map_page(kernel_pml4, SHOOT_VA, page_to_phys(pg[cur]), PAGE_KERNEL))
			break;
		if (cpu1_reads(SHOOT_VA) != want[cur])
			stale++;        /* the old page, through a stale translation */
	}
	flushes = tlb_kernel_flush_count(1) - flushes;
	unmap_page(kernel_pml4, SHOOT_VA);
	flush_tlb_kernel_range(SHOOT_VA, SHOOT_VA + PAGE_SIZE);
	__free_page(pg[0]);
	__free_page(pg[1]);
	printk("kernel_tlb_shootdown: %d rounds, CPU 1 flushed %lu times, %d stale reads\n",
	       SHOOT_ROUNDS, flushes, stale + wrong_first);
	KT_ASSERT_MSG(stale == 0 && wrong_first == 0,
		      "CPU 1 read the old page %d times after the remap (%d before)", stale,
		      wrong_first);
	KT_ASSERT_MSG(flushes >= SHOOT_ROUNDS, "CPU 1 flushed %lu times in %d rounds", flushes,
		      SHOOT_ROUNDS);
}

#define REUSE_MAX_STACKS 512    /* stacks, or pages, taken before the freed one came back */

/* Allocate pages into held[] until `want` comes back (true), or until
 * REUSE_MAX_STACKS are held: a page just freed is handed out here. */
static bool take_pages_until(struct page *want, struct page **held, int *nheld)
{
	struct page *p;

	while (*nheld < REUSE_MAX_STACKS && (p = alloc_page(GFP_KERNEL)) != NULL) {
		held[(*nheld)++] = p;
		if (p == want)
			return true;
	}
	return false;
}

static void free_held(struct page **held, int *nheld)
{
	while (*nheld > 0)
		__free_page(held[--*nheld]);
}

KTEST(smp, kstack_reuse_shootdown)
{
	static void *taken[REUSE_MAX_STACKS];
	static struct page *held[REUSE_MAX_STACKS];
	phys_addr_t old_pa;
	int nheld = 0;
	bool got_old;
	const u64 mark = 0x57ac4ed0deadbeefull;
	unsigned long flushes, va;
	void *stack, *again = NULL;
	int n = 0, others;
	u64 before, after;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	stack = kstack_alloc();
	KT_ASSERT(stack != NULL);
	va = (unsigned long)stack;
	*(u64 *)stack = mark;
	before = cpu1_reads(va);        /* CPU 1's TLB now holds the stack's page */
	old_pa = virt_to_phys_walk(kernel_pml4, va);
	flushes = tlb_kernel_flush_count(1);
	kstack_free(stack);
	/* hold the old page, so that the new stack cannot get it back: a
	 * stale translation then reads the old data, not the new zeroes */
	got_old = take_pages_until(pfn_to_page(old_pa >> PAGE_SHIFT), held, &nheld);
	/* the slot comes back once kstack_alloc() has flushed it everywhere */
	while (n < REUSE_MAX_STACKS) {
		void *s = kstack_alloc();

		if (!s)
			break;
		if (s == stack) {
			again = s;
			break;
		}
		taken[n++] = s;
	}
	after = again ? cpu1_reads(va) : 0;
	flushes = tlb_kernel_flush_count(1) - flushes;
	others = n;
	if (again)
		kstack_free(again);
	while (n > 0)
		kstack_free(taken[--n]);
	free_held(held, &nheld);
	printk("kstack_reuse_shootdown: slot back after %d other stacks, CPU 1 flushed %lu times, "
	       "read %#llx before and %#llx after\n", others, flushes, (unsigned long long)before,
	       (unsigned long long)after);
	KT_ASSERT_MSG(before == mark, "CPU 1 read %#llx in the live stack",
		      (unsigned long long)before);
	KT_ASSERT_MSG(got_old, "the old stack page did not come back to be held");
	KT_ASSERT_MSG(again != NULL, "the freed slot never came back");
	KT_ASSERT_MSG(after == 0, "CPU 1 read %#llx in the new (zeroed) stack: the old page",
		      (unsigned long long)after);
	KT_ASSERT_MSG(flushes >= 1, "CPU 1 was never asked to flush");
}

/* --- a reader of another process's memory, and its munmap --------------- */

#define RV_ADDR (USER_TEXT_START + (16ul << 20))

static struct {
	struct mm_struct *mm;
	u64 val;
	size_t copied;
	int looked_up;          /* CPU 1: between the lookup and the copy */
	int unmapped;           /* CPU 0: the owner's munmap is done */
	int meetings;
	int done;
} rv;

static void rv_between_lookup_and_copy(struct mm_struct *mm, unsigned long addr)
{
	unsigned long i;

	if (mm != rv.mm || addr != RV_ADDR)
		return;
	__atomic_store_n(&rv.looked_up, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < MEET_SPINS && !__atomic_load_n(&rv.unmapped, __ATOMIC_SEQ_CST); i++)
		cpu_relax();
	if (i < MEET_SPINS)
		rv.meetings++;
}

static void rv_read_on_cpu1(void *arg)
{
	(void)arg;
	rv.copied = access_remote_vm(rv.mm, RV_ADDR, &rv.val, sizeof(rv.val));
	__atomic_store_n(&rv.done, 1, __ATOMIC_RELEASE);
}

KTEST(smp, remote_vm_vs_munmap)
{
	static struct page *held[REUSE_MAX_STACKS];
	const u64 mark = 0x0c3d11e5c0de0001ull;
	struct page *pg;
	void *kaddr;
	int nheld = 0, err;
	unsigned int refs_during;
	bool reused_under_reader, freed_after;
	unsigned long i;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	memset(&rv, 0, sizeof(rv));
	rv.mm = mm_alloc();
	KT_ASSERT(rv.mm != NULL);
	err = mm_add_vma(rv.mm, RV_ADDR, RV_ADDR + PAGE_SIZE, VM_READ | VM_WRITE);
	kaddr = err ? NULL : mm_get_page(rv.mm, RV_ADDR);
	if (!kaddr) {
		mmput(rv.mm);
		KT_ASSERT_MSG(false, "cannot build the test mm (%d)", err);
	}
	*(u64 *)kaddr = mark;
	pg = virt_to_page(kaddr);
	access_remote_vm_hook = rv_between_lookup_and_copy;
	smp_call_function_single(1, rv_read_on_cpu1, NULL, false);
	for (i = 0; i < MEET_SPINS && !__atomic_load_n(&rv.looked_up, __ATOMIC_SEQ_CST); i++)
		cpu_relax();
	/* the owner unmaps the page under the reader, and the memory is
	 * wanted at once: the freed page would be handed out here */
	do_munmap(rv.mm, RV_ADDR, PAGE_SIZE);
	reused_under_reader = take_pages_until(pg, held, &nheld);
	if (reused_under_reader)
		*(u64 *)page_address(pg) = 0;  /* its new owner's data */
	refs_during = page_count(pg);   /* the reader's alone */
	__atomic_store_n(&rv.unmapped, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < MEET_SPINS && !__atomic_load_n(&rv.done, __ATOMIC_ACQUIRE); i++)
		cpu_relax();
	access_remote_vm_hook = NULL;
	/* the reader's put_page() freed it */
	freed_after = !reused_under_reader && page_count(pg) == 0;
	free_held(held, &nheld);
	mmput(rv.mm);
	printk("remote_vm_vs_munmap: reader and munmap met %d times, copied %zu bytes %#llx, "
	       "page reused under the reader: %s, %u reference(s) left after the munmap, "
	       "freed after the copy: %s\n", rv.meetings, rv.copied, (unsigned long long)rv.val,
	       reused_under_reader ? "yes" : "no", refs_during, freed_after ? "yes" : "no");
	KT_ASSERT_MSG(rv.done, "CPU 1 never finished its read");
	KT_ASSERT_MSG(rv.meetings == 1, "the reader and the munmap did not meet");
	KT_ASSERT_MSG(!reused_under_reader && rv.copied == sizeof(rv.val) && rv.val == mark,
		      "the reader copied %#llx: the page was freed and reused under it",
		      (unsigned long long)rv.val);
	KT_ASSERT_MSG(refs_during == 1, "%u references after the munmap, want the reader's",
		      refs_during);
	KT_ASSERT_MSG(freed_after, "the page was not freed after the copy: a leak");
}

/* --- two CPUs installing one page table -------------------------------- */

static struct {
	unsigned long lo, hi;           /* the range the hooks act on */
	int arrived;                    /* populate-hook entries, both CPUs */
	int left;                       /* populate-hook exits */
	int my_arrival[NR_CPUS];        /* each CPU's last entry number */
	int meetings;                   /* pairs that met before the install */
	int missed;                     /* a CPU waited in vain */
	int inside;                     /* CPUs in the install hook now */
	int most_inside;
	int installs;
	/* CPU 1's half of a round */
	unsigned long va1;
	phys_addr_t pa1;
	int err1;
	int done1;
} race;

static bool in_race_range(unsigned long va)
{
	return va >= race.lo && va < race.hi;
}

/* Both CPUs, between "the entry is absent" and pgd_lock: wait for the
 * other, so that both have seen it absent before either installs. */
static void race_populate(unsigned long va)
{
	int n, target;
	unsigned long i;

	if (!in_race_range(va))
		return;
	n = __atomic_add_fetch(&race.arrived, 1, __ATOMIC_SEQ_CST);
	race.my_arrival[smp_processor_id()] = n;
	target = (n + 1) / 2 * 2;       /* entries 1,2 meet; then 3,4; ... */
	for (i = 0; i < MEET_SPINS && __atomic_load_n(&race.arrived, __ATOMIC_SEQ_CST) < target; i++)
		cpu_relax();
	if (n % 2) {                    /* the first to come counts the meeting */
		if (i < MEET_SPINS)
			__atomic_add_fetch(&race.meetings, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&race.missed, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&race.left, 1, __ATOMIC_SEQ_CST);
}

/* Under pgd_lock, right before the install: the other CPU has left its
 * populate hook and is at the lock.  Give it time to come in too -- which
 * only a missing lock allows. */
static void race_install(unsigned long va)
{
	int in, target = (race.my_arrival[smp_processor_id()] + 1) / 2 * 2;

	if (!in_race_range(va))
		return;
	in = __atomic_add_fetch(&race.inside, 1, __ATOMIC_SEQ_CST);
	if (in > READ_ONCE(race.most_inside))
		WRITE_ONCE(race.most_inside, in);
	for (unsigned long i = 0;
	     i < MEET_SPINS && __atomic_load_n(&race.left, __ATOMIC_SEQ_CST) < target; i++)
		cpu_relax();
	for (unsigned long i = 0; i < INSIDE_SPINS; i++) {
		in = __atomic_load_n(&race.inside, __ATOMIC_SEQ_CST);
		if (in > READ_ONCE(race.most_inside))
			WRITE_ONCE(race.most_inside, in);
		cpu_relax();
	}
	__atomic_add_fetch(&race.installs, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&race.inside, 1, __ATOMIC_SEQ_CST);
}

static void race_map_on_cpu1(void *arg)
{
	(void)arg;
	race.err1 = map_page(kernel_pml4, race.va1, race.pa1, PAGE_KERNEL);
	__atomic_store_n(&race.done1, 1, __ATOMIC_RELEASE);
}

/*
 * One round: CPU 1 maps p1 at va0 + 4 KiB while CPU 0 maps p0 at va0, a
 * fresh 2 MiB whose page table is absent.  Returns the mappings lost (0
 * to 2), -EIO when a map_page() failed, or -ETIMEDOUT when CPU 1 never
 * finished.
 */
static int pgd_race_round(unsigned long va0, struct page *p0, struct page *p1)
{
	unsigned long i;
	int err0, lost = 0;

	race.va1 = va0 + PAGE_SIZE;
	race.pa1 = page_to_phys(p1);
	__atomic_store_n(&race.done1, 0, __ATOMIC_RELEASE);
	preempt_disable();      /* stay on CPU 0 while CPU 1 waits for us */
	smp_call_function_single(1, race_map_on_cpu1, NULL, false);
	err0 = map_page(kernel_pml4, va0, page_to_phys(p0), PAGE_KERNEL);
	preempt_enable();
	for (i = 0; i < MEET_SPINS && !__atomic_load_n(&race.done1, __ATOMIC_ACQUIRE); i++)
		cpu_relax();
	if (i == MEET_SPINS)
		return -ETIMEDOUT;
	if (err0 || race.err1)
		return -EIO;
	if (virt_to_phys_walk(kernel_pml4, va0) != page_to_phys(p0))
		lost++;
	if (virt_to_phys_walk(kernel_pml4, race.va1) != race.pa1)
		lost++;
	return lost;
}

KTEST(smp, pgd_lock_race)
{
	struct page *pg[2 * PGD_RACE_ROUNDS];
	int lost = 0, errs = 0, rounds = 0;

	KT_NEEDS_CPUS(2u);
	KT_ASSERT(ktest_pin_cpu(0));        /* the other side runs on CPU 1 */
	if (virt_to_phys_walk(kernel_pml4, PGD_RACE_VA) != (phys_addr_t)-1)
		KT_SKIP("test range already mapped");
	for (int i = 0; i < 2 * PGD_RACE_ROUNDS; i++) {
		pg[i] = alloc_page(GFP_KERNEL);
		if (!pg[i]) {
			while (i--)
				__free_page(pg[i]);
			KT_ASSERT_MSG(false, "out of pages");
		}
	}
	memset(&race, 0, sizeof(race));
	race.lo = PGD_RACE_VA;
	race.hi = PGD_RACE_VA + PGD_RACE_ROUNDS * (2ul << 20);
	pt_populate_hook = race_populate;
	pt_install_hook = race_install;
	for (int r = 0; r < PGD_RACE_ROUNDS; r++) {
		/* a fresh 2 MiB each round: its page table is absent */
		int ret = pgd_race_round(PGD_RACE_VA + r * (2ul << 20), pg[2 * r], pg[2 * r + 1]);

		if (ret == -ETIMEDOUT)
			break;          /* CPU 1 stuck: reported below */
		rounds++;
		if (ret < 0)
			errs++;
		else
			lost += ret;
	}
	pt_populate_hook = NULL;
	pt_install_hook = NULL;
	for (int r = 0; r < PGD_RACE_ROUNDS; r++) {
		unmap_page(kernel_pml4, PGD_RACE_VA + r * (2ul << 20));
		unmap_page(kernel_pml4, PGD_RACE_VA + r * (2ul << 20) + PAGE_SIZE);
	}
	flush_tlb_kernel_range(race.lo, race.hi);
	for (int i = 0; i < 2 * PGD_RACE_ROUNDS; i++)
		__free_page(pg[i]);
	printk("pgd_lock_race: %d rounds, %d meetings before the install (%d missed), %d installs, "
	       "at most %d CPU installing, %d lost mappings\n", rounds, race.meetings, race.missed,
	       race.installs, race.most_inside, lost);
	KT_ASSERT_MSG(rounds == PGD_RACE_ROUNDS, "CPU 1 did not finish round %d", rounds);
	KT_ASSERT_MSG(errs == 0, "map_page failed in %d rounds", errs);
	KT_ASSERT_MSG(lost == 0, "%d mappings lost: a page table was installed over another", lost);
	KT_ASSERT_MSG(race.most_inside == 1, "%d CPUs installing at once", race.most_inside);
	KT_ASSERT_MSG(race.meetings >= PGD_RACE_ROUNDS,
		      "the CPUs met %d times in %d rounds: they did not race", race.meetings,
		      PGD_RACE_ROUNDS);
}
