// SPDX-License-Identifier: MIT
/*
 * paging.c - from the boot page tables to the kernel's own, and the early
 * memory that makes that possible.
 *
 * mm_init() runs once, on boot.S's throwaway tables (first 1 GiB mapped):
 *
 *   1. memblock: the free RAM ranges from the multiboot2 memory map, minus
 *      the first MiB (BIOS data), the kernel image, the multiboot2 info
 *      and the modules (the initramfs).  A bump allocator over them gives
 *      the page tables and mem_map[] their memory before the page
 *      allocator exists.
 *   2. The real page tables: the direct map of all RAM at PAGE_OFFSET
 *      (2 MiB pages where aligned, 4 KiB elsewhere) and the kernel image at
 *      KERNEL_VMA with 4 KiB pages and real permissions -- text read-only
 *      and executable, rodata read-only, data and bss not executable -- so
 *      a stray write to code or constants faults instead of corrupting
 *      them.  No identity map: a NULL dereference faults.
 *   3. mem_map[] and the buddy allocator get every page memblock still
 *      holds; kmalloc works from then on.
 *
 * ioremap() maps device registers uncached (PCD|PWT) into the MMIO area.
 *
 * Several CPUs: the kernel half of the tables is shared by every CPU and
 * every task.  A kernel page-table page is installed under pgd_lock
 * (walk_create()), and a kernel mapping that goes away is flushed from
 * every CPU's TLB before its address is used again
 * (flush_tlb_kernel_range(), asm/tlbflush.h).
 */
#define pr_fmt(fmt) "mm: " fmt
#include <spindle/mm.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/spinlock.h>
#include <spindle/sched.h>
#include <spindle/smp.h>
#include <spindle/percpu.h>
#include <spindle/irqflags.h>
#include <asm/bootinfo.h>
#include <asm/pgtable.h>
#include <asm/layout.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/tlbflush.h>

#define MEMBLOCK_MAX      64
#define LOW_MEM_END       0x100000ull          /* the first MiB stays reserved */
#define BOOT_MAPPED_END   0x40000000ull        /* boot.S maps the first 1 GiB */
#define SZ_2M             0x200000ull
#define PT_ENTRIES        512
#define CR0_WP            (1ul << 16)          /* ring 0 honours read-only pages */
#define CR4_PGE           (1ul << 7)           /* global pages */
#define KSTACK_SLOT_SIZE  (THREAD_SIZE + PAGE_SIZE)
#define KSTACK_AREA_SIZE  (KSTACK_SLOTS * KSTACK_SLOT_SIZE)
#define TLB_FLUSH_CEILING 33                   /* pages; more: flush all (Linux's tlb_single_page_flush_ceiling) */

extern char _kernel_phys_start[], _text[], _etext[], _rodata[], _data[], _end[];
extern char __bss_start[];

struct memblock_region {
	phys_addr_t base, end;                      /* [base, end) */
};

static struct memblock_region memblock[MEMBLOCK_MAX];
static int memblock_cnt;
static bool page_alloc_ready;

pte_t *kernel_pml4;

/* Remove [base, end) from the free ranges, splitting one if needed. */
static void memblock_reserve(phys_addr_t base, phys_addr_t end)
{
	for (int i = 0; i < memblock_cnt; i++) {
		struct memblock_region *r = &memblock[i];

		if (end <= r->base || base >= r->end)
			continue;
		if (base > r->base && end < r->end && memblock_cnt < MEMBLOCK_MAX) {
			/* hole in the middle: split into two */
			memmove(r + 2, r + 1, (memblock_cnt - i - 1) * sizeof(*r));
			r[1].base = end;
			r[1].end = r->end;
			r->end = base;
			memblock_cnt++;
			i++;
		} else if (base <= r->base) {
			r->base = min(end, r->end);
		} else {
			r->end = base;
		}
	}
}

static void memblock_init(void)
{
	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		phys_addr_t base = ALIGN(e->addr, PAGE_SIZE);
		phys_addr_t end = ALIGN_DOWN(e->addr + e->len, PAGE_SIZE);

		if (e->type != MMAP_AVAILABLE || end <= base)
			continue;
		if (memblock_cnt == MEMBLOCK_MAX) {
			pr_warn("more than %d RAM ranges, ignoring the rest\n", MEMBLOCK_MAX);
			break;
		}
		memblock[memblock_cnt].base = base;
		memblock[memblock_cnt].end = end;
		memblock_cnt++;
		max_pfn = max(max_pfn, (unsigned long)(end >> PAGE_SHIFT));
	}
	memblock_reserve(0, LOW_MEM_END);
	memblock_reserve((phys_addr_t)_kernel_phys_start,
			 ALIGN((phys_addr_t)(_end - KERNEL_VMA), PAGE_SIZE));
	memblock_reserve(ALIGN_DOWN(boot_info.mbi_start, PAGE_SIZE),
			 ALIGN(boot_info.mbi_end, PAGE_SIZE));
	for (int i = 0; i < boot_info.nr_modules; i++)
		memblock_reserve(ALIGN_DOWN(boot_info.modules[i].start, PAGE_SIZE),
				 ALIGN(boot_info.modules[i].end, PAGE_SIZE));
}

/* Early allocation: page-aligned, zeroed, below `limit`; panics if RAM is
 * this short at boot, since nothing could run anyway. */
static phys_addr_t memblock_alloc(size_t size, phys_addr_t limit)
{
	size = ALIGN(size, PAGE_SIZE);
	for (int i = 0; i < memblock_cnt; i++) {
		struct memblock_region *r = &memblock[i];

		if (r->end - r->base >= size && r->base + size <= limit) {
			phys_addr_t pa = r->base;

			r->base += size;
			memset(__va(pa), 0, size);
			return pa;
		}
	}
	panic("memblock: out of early memory allocating %zu bytes", size);
}

/* A zeroed page for a page table, from memblock or the page allocator. */
static pte_t *pt_alloc(void)
{
	if (page_alloc_ready) {
		struct page *p = alloc_page(__GFP_ZERO);

		return p ? page_address(p) : NULL;
	}
	return __va(memblock_alloc(PAGE_SIZE, BOOT_MAPPED_END));
}

/* Give back a table pt_alloc() made and nobody used. */
static void pt_free(pte_t *table)
{
	if (page_alloc_ready)
		__free_page(virt_to_page(table));
	/* before the page allocator, memblock memory is not given back */
}

static unsigned int pt_index(unsigned long va, int level)
{
	return (va >> (12 + 9 * level)) & (PT_ENTRIES - 1);
}

void (*pt_populate_hook)(unsigned long va);
void (*pt_install_hook)(unsigned long va);

/*
 * The kernel half's page-table pages are installed under it (Linux:
 * init_mm.page_table_lock), by whoever maps a kernel page: kstack_alloc,
 * ioremap, on any CPU -- and a user half's too, which the threads of a
 * process fill from several CPUs at once.  Taken irqsave, so that a mapping made from an
 * interrupt (the smp-mm test maps from a function call IPI) cannot
 * deadlock against the task it interrupted.  A leaf: nothing is taken
 * and no page is allocated under it.
 */
static DEFINE_SPINLOCK(pgd_lock);

/* The entry for va at `level` (0 = PT ... 3 = PML4), creating the tables
 * above it as needed; NULL when out of memory. */
static pte_t *walk_create(pte_t *pml4, unsigned long va, int level)
{
	pte_t *table = pml4;

	for (int l = 3; l > level; l--) {
		pte_t *e = &table[pt_index(va, l)];

		if (!(READ_ONCE(*e) & _PAGE_PRESENT)) {
			pte_t *next = pt_alloc(), val;
			unsigned long flags;

			if (!next)
				return NULL;
			/* intermediate entries allow everything; leaves decide */
			val = __pa(next) | _PAGE_PRESENT | _PAGE_RW | (va < PAGE_OFFSET ? _PAGE_USER : 0);
			if (pt_populate_hook)
				pt_populate_hook(va);
			/*
			 * Since the test above, someone else may have
			 * installed a table here: in the kernel half, which
			 * every task and every CPU shares, another CPU (or a
			 * task that preempted us) making a stack or an
			 * ioremap in the same 2 MiB; in the user half,
			 * another thread of the process faulting in the same
			 * 2 MiB on another CPU.  Installing ours over it
			 * would silently unmap what it mapped, so test again
			 * under pgd_lock and keep the one that is there --
			 * Linux's __pte_alloc() does the same under the
			 * page-table lock.  Readers on other CPUs see the
			 * entry absent or whole, the zeroed table written
			 * before it.
			 */
			spin_lock_irqsave(&pgd_lock, flags);
			if (READ_ONCE(*e) & _PAGE_PRESENT) {
				spin_unlock_irqrestore(&pgd_lock, flags);
				pt_free(next);
			} else {
				if (pt_install_hook && va >= PAGE_OFFSET)
					pt_install_hook(va);
				WRITE_ONCE(*e, val);
				spin_unlock_irqrestore(&pgd_lock, flags);
			}
		}
		BUG_ON(*e & _PAGE_PSE);
		table = __va(READ_ONCE(*e) & PTE_ADDR_MASK);
	}
	return &table[pt_index(va, level)];
}

pte_t *pte_alloc(pte_t *pml4, unsigned long va)
{
	return walk_create(pml4, va, 0);
}

int map_page(pte_t *pml4, unsigned long va, phys_addr_t pa, u64 flags)
{
	pte_t *pte = walk_create(pml4, va, 0);

	if (!pte)
		return -ENOMEM;
	*pte = (pa & PTE_ADDR_MASK) | flags;
	invlpg(va);
	return 0;
}

void unmap_page(pte_t *pml4, unsigned long va)
{
	pte_t *table = pml4;

	for (int l = 3; l > 0; l--) {
		pte_t e = table[pt_index(va, l)];

		if (!(e & _PAGE_PRESENT) || (e & _PAGE_PSE))
			return;
		table = __va(e & PTE_ADDR_MASK);
	}
	WRITE_ONCE(table[pt_index(va, 0)], 0);
	__flush_tlb_one_kernel(va);
}

/* --- TLB flushing on every CPU (asm/tlbflush.h) ------------------------ */

static DEFINE_PER_CPU(unsigned long, nr_tlb_kernel_flushes);

struct flush_tlb_info {
	unsigned long start, end;
};

void __flush_tlb_all(void)
{
	unsigned long flags = local_irq_save();
	unsigned long cr4 = read_cr4();

	/* clearing CR4.PGE drops every translation, global ones too
	 * (SDM vol. 3, 4.10.4.1); setting it again turns them back on */
	write_cr4(cr4 & ~CR4_PGE);
	write_cr4(cr4);
	local_irq_restore(flags);
}

/* on each CPU, interrupts off (a function call IPI, or the caller's own) */
static void do_kernel_range_flush(void *arg)
{
	const struct flush_tlb_info *info = arg;

	if ((info->end - info->start) >> PAGE_SHIFT > TLB_FLUSH_CEILING)
		__flush_tlb_all();
	else
		for (unsigned long va = info->start; va < info->end; va += PAGE_SIZE)
			__flush_tlb_one_kernel(va);
	this_cpu_inc(nr_tlb_kernel_flushes);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	struct flush_tlb_info info = {
		.start = ALIGN_DOWN(start, PAGE_SIZE),
		.end = ALIGN(end, PAGE_SIZE),
	};
	unsigned long flags;

	if (info.end <= info.start)
		return;
	if (irqs_disabled() && num_online_cpus() == 1) {
		/* early boot: nobody else to ask, and nobody to wait for */
		flags = local_irq_save();
		do_kernel_range_flush(&info);
		local_irq_restore(flags);
		return;
	}
	on_each_cpu(do_kernel_range_flush, &info, true);
}

unsigned long tlb_kernel_flush_count(unsigned int cpu)
{
	return READ_ONCE(per_cpu(nr_tlb_kernel_flushes, cpu));
}

phys_addr_t virt_to_phys_walk(pte_t *pml4, unsigned long va)
{
	pte_t *table = pml4;

	for (int l = 3; l >= 0; l--) {
		pte_t e = table[pt_index(va, l)];

		if (!(e & _PAGE_PRESENT))
			return (phys_addr_t)-1;
		if (l == 0 || (e & _PAGE_PSE)) {
			u64 page_mask = (1ull << (12 + 9 * l)) - 1;

			return (e & PTE_ADDR_MASK & ~page_mask) | (va & page_mask);
		}
		table = __va(e & PTE_ADDR_MASK);
	}
	return (phys_addr_t)-1;
}

/* Direct-map [base, end): 2 MiB pages where possible. */
static void map_direct(phys_addr_t base, phys_addr_t end)
{
	base = ALIGN_DOWN(base, PAGE_SIZE);
	end = ALIGN(end, PAGE_SIZE);
	while (base < end) {
		unsigned long va = (unsigned long)__va(base);

		if (IS_ALIGNED(base, SZ_2M) && end - base >= SZ_2M) {
			pte_t *pde = walk_create(kernel_pml4, va, 1);

			BUG_ON(!pde);
			if (!(*pde & _PAGE_PRESENT))
				*pde = base | PAGE_KERNEL | _PAGE_PSE;
			base += SZ_2M;
		} else {
			pte_t *pde = walk_create(kernel_pml4, va, 1);

			BUG_ON(!pde);
			/* already covered by a 2 MiB page from another range */
			if (!(*pde & _PAGE_PSE))
				BUG_ON(map_page(kernel_pml4, va, base, PAGE_KERNEL));
			base += PAGE_SIZE;
		}
	}
}

/* Map [start, end) of the image, whole pages: linker.ld page-aligns the
 * start of each section group, so neighbours never share a page. */
static void map_kernel_range(char *start, char *end, u64 flags)
{
	for (unsigned long va = ALIGN_DOWN((unsigned long)start, PAGE_SIZE);
	     va < ALIGN((unsigned long)end, PAGE_SIZE); va += PAGE_SIZE)
		BUG_ON(map_page(kernel_pml4, va, va - KERNEL_VMA, flags));
}

static void paging_init(void)
{
	kernel_pml4 = pt_alloc();

	map_direct(0, LOW_MEM_END);                     /* BIOS area, VGA text */
	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];

		if (e->type == MMAP_AVAILABLE || e->type == MMAP_ACPI_RECLAIM ||
		    e->type == MMAP_ACPI_NVS)
			map_direct(e->addr, e->addr + e->len);
	}
	map_kernel_range(_text, _etext, PAGE_KERNEL_EXEC & ~_PAGE_RW);
	map_kernel_range(_rodata, _data, PAGE_KERNEL_RO);  /* rodata, tables */
	map_kernel_range(_data, _end, PAGE_KERNEL);        /* data, bss, ksyms */

	/* Every upper-half PML4 entry the kernel may fill later (ioremap,
	 * kernel stacks): created now, shared by all processes' PML4s. */
	for (unsigned long va = MMIO_BASE; va < KSTACK_BASE + KSTACK_AREA_SIZE;
	     va += 1ul << 39)
		BUG_ON(!walk_create(kernel_pml4, va, 2));

	write_cr4(read_cr4() | CR4_PGE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(__pa(kernel_pml4));
}

/* --- user address spaces (asm/pgtable.h) ------------------------------- */

#define PML4_USER_ENTRIES  (PT_ENTRIES / 2)     /* 0..255: the lower half */

pte_t *pgd_alloc(void)
{
	pte_t *pml4 = pt_alloc();

	if (!pml4)
		return NULL;
	memcpy(pml4 + PML4_USER_ENTRIES, kernel_pml4 + PML4_USER_ENTRIES,
	       PML4_USER_ENTRIES * sizeof(pte_t));
	return pml4;
}

/* Free a page table of `level` (2 = PDPT, 1 = PD, 0 = PT) and every
 * table below it; the pages a PT maps are the caller's business. */
static void free_table(pte_t *table, int level)
{
	for (int i = 0; level > 0 && i < PT_ENTRIES; i++)
		if ((table[i] & _PAGE_PRESENT) && !(table[i] & _PAGE_PSE))
			free_table(__va(table[i] & PTE_ADDR_MASK), level - 1);
	free_pages((unsigned long)table, 0);
}

void pgd_free(pte_t *pml4)
{
	for (int i = 0; i < PML4_USER_ENTRIES; i++)
		if (pml4[i] & _PAGE_PRESENT)
			free_table(__va(pml4[i] & PTE_ADDR_MASK), 2);
	free_pages((unsigned long)pml4, 0);
}

pte_t *lookup_pte(pte_t *pml4, unsigned long va)
{
	pte_t *table = pml4;

	for (int l = 3; l > 0; l--) {
		pte_t e = table[pt_index(va, l)];

		if (!(e & _PAGE_PRESENT) || (e & _PAGE_PSE))
			return NULL;
		table = __va(e & PTE_ADDR_MASK);
	}
	return &table[pt_index(va, 0)];
}

static void walk_level(pte_t *table, int level, unsigned long base,
		       unsigned long start, unsigned long end,
		       pte_visit_t fn, void *arg)
{
	unsigned long span = 1ul << (12 + 9 * level);   /* bytes per entry */
	int nr = level == 3 ? PML4_USER_ENTRIES : PT_ENTRIES;

	for (int i = 0; i < nr; i++) {
		unsigned long va = base + i * span;

		if (va + span <= start || va >= end)
			continue;
		if (level ? !(table[i] & _PAGE_PRESENT) : !pte_present(table[i]))
			continue;
		if (level == 0)
			fn(&table[i], va, arg);
		else
			walk_level(__va(table[i] & PTE_ADDR_MASK), level - 1, va,
				   start, end, fn, arg);
	}
}

void walk_user_ptes(pte_t *pml4, unsigned long start, unsigned long end,
		    pte_visit_t fn, void *arg)
{
	walk_level(pml4, 3, 0, start, end, fn, arg);
}

void *ioremap(phys_addr_t phys, size_t size)
{
	static unsigned long next = MMIO_BASE;
	static DEFINE_SPINLOCK(ioremap_lock);
	phys_addr_t base = ALIGN_DOWN(phys, PAGE_SIZE);
	size_t len = ALIGN(phys + size, PAGE_SIZE) - base;
	unsigned long flags, va;

	spin_lock_irqsave(&ioremap_lock, flags);
	if (next + len > MMIO_END) {
		spin_unlock_irqrestore(&ioremap_lock, flags);
		return NULL;
	}
	va = next;
	next += len + PAGE_SIZE;                /* an unmapped guard page between */
	spin_unlock_irqrestore(&ioremap_lock, flags);

	for (size_t off = 0; off < len; off += PAGE_SIZE) {
		if (map_page(kernel_pml4, va + off, base + off, PAGE_KERNEL_NOCACHE)) {
			/* never used: no other CPU can hold a translation */
			for (size_t undo = 0; undo < off; undo += PAGE_SIZE)
				unmap_page(kernel_pml4, va + undo);
			return NULL;
		}
	}
	return (void *)(va + (phys - base));
}

void iounmap(void *addr)
{
	/* Virtual space is not reused; unmap until the guard page.  Still,
	 * every CPU drops its translations: a stale one would let a late
	 * access reach the device registers instead of faulting (Linux's
	 * vunmap flushes too). */
	unsigned long start = ALIGN_DOWN((unsigned long)addr, PAGE_SIZE), va = start;

	while (virt_to_phys_walk(kernel_pml4, va) != (phys_addr_t)-1) {
		unmap_page(kernel_pml4, va);
		va += PAGE_SIZE;
	}
	flush_tlb_kernel_range(start, va);
}

/*
 * Stack slots: THREAD_SIZE of stack plus one guard page each, found with a
 * bitmap.  Pages come from the buddy allocator one at a time, so a stack
 * needs no contiguous memory.
 *
 * The pages are zeroed, as Linux's are (THREADINFO_GFP has __GFP_ZERO): no
 * old data shows through an uninitialised local, and -- what made it
 * matter here -- under QEMU's TCG a page the firmware once ran code from
 * (SeaBIOS and GRUB run from the top of RAM, the buddy allocator hands
 * that out first) keeps the code's translations until every byte they
 * came from is overwritten.  Until then each store to the page takes
 * TCG's self-modifying-code check, microseconds each.  A stack is written
 * only near its top, so that never happened: kblockd's stack on such a
 * page made a 1 MiB read ten times slower in wall-clock time, with the
 * instruction count unchanged (docs/performance.md, "A stack on old
 * code").  Zeroing overwrites every byte once, at 2,048 stores a stack.
 *
 * Several CPUs: a freed stack's translations may live on in the TLB of
 * any CPU that used it (where the task ran, a CPU that walked it for
 * /proc/<pid>/stack).  Its slot must not be mapped again before every CPU
 * has dropped them, or that CPU would read and write the old pages
 * through the new stack's address.  But a dead task's stack is freed by
 * the next task, in finish_task_switch(), with interrupts off, where this
 * CPU cannot wait for the others' flush.  So, as Linux's vfree() does
 * with its lazily freed areas, kstack_free() unmaps the stack on this CPU,
 * gives its pages back and only marks the slot "lazy": not free yet.
 * kstack_alloc() purges the lazy slots -- one flush_tlb_kernel_range()
 * for them all, then they are free -- before it would take a slot no
 * stack has used yet; so the area grows no further than it would without
 * the laziness, and most forks find a clean slot below that mark and send
 * no IPI.  (The pages go back before the flush, as in Linux: only a
 * dangling use of a dead stack could reach them through an old
 * translation.)
 */
#define KSTACK_WORDS (KSTACK_SLOTS / (8 * sizeof(unsigned long)))
static unsigned long kstack_used[KSTACK_WORDS];   /* allocated, or lazy */
static unsigned long kstack_lazy[KSTACK_WORDS];   /* freed, not flushed on every CPU */
static unsigned long kstack_nr_lazy;
static unsigned long kstack_high;                 /* slots below have been used */
/* the four above; irqsave, as kstack_free() runs with interrupts off */
static DEFINE_SPINLOCK(kstack_lock);

static unsigned long kstack_slot_base(unsigned long slot)
{
	return KSTACK_BASE + slot * KSTACK_SLOT_SIZE + PAGE_SIZE;   /* above the guard */
}

/* Flush every lazy slot from every CPU, then make them free.  Interrupts
 * on (flush_tlb_kernel_range() waits for the other CPUs). */
static void kstack_purge_lazy(void)
{
	const unsigned long bits = 8 * sizeof(unsigned long);
	unsigned long lazy[KSTACK_WORDS], first = KSTACK_SLOTS, last = 0, flags, n = 0;

	spin_lock_irqsave(&kstack_lock, flags);
	memcpy(lazy, kstack_lazy, sizeof(lazy));
	spin_unlock_irqrestore(&kstack_lock, flags);
	for (unsigned long slot = 0; slot < KSTACK_SLOTS; slot++) {
		if (lazy[slot / bits] & (1ul << (slot % bits))) {
			first = min(first, slot);
			last = slot;
		}
	}
	if (first == KSTACK_SLOTS)
		return;                 /* another purge took them */
	flush_tlb_kernel_range(kstack_slot_base(first), kstack_slot_base(last) + THREAD_SIZE);
	/* only the slots seen before the flush: later ones wait for the next */
	spin_lock_irqsave(&kstack_lock, flags);
	for (unsigned long w = 0; w < KSTACK_WORDS; w++) {
		unsigned long done = lazy[w] & kstack_lazy[w];

		kstack_lazy[w] &= ~done;
		kstack_used[w] &= ~done;
		for (; done; done &= done - 1)  /* clears the lowest set bit */
			n++;
	}
	kstack_nr_lazy -= n;
	spin_unlock_irqrestore(&kstack_lock, flags);
}

void *kstack_alloc(void)
{
	const unsigned long bits = 8 * sizeof(unsigned long);
	unsigned long flags, slot, base;
	/* the purge waits for the other CPUs: not with interrupts off (a
	 * stack for a CPU being brought up), where the area grows instead */
	bool purged = irqs_disabled() && num_online_cpus() > 1;

again:
	spin_lock_irqsave(&kstack_lock, flags);
	for (slot = 0; slot < KSTACK_SLOTS; slot++)
		if (!(kstack_used[slot / bits] & (1ul << (slot % bits))))
			break;
	if (slot >= kstack_high && kstack_nr_lazy && !purged) {
		/* reuse a flushed slot rather than grow the area */
		spin_unlock_irqrestore(&kstack_lock, flags);
		kstack_purge_lazy();
		purged = true;
		goto again;
	}
	if (slot == KSTACK_SLOTS) {
		spin_unlock_irqrestore(&kstack_lock, flags);
		return NULL;
	}
	kstack_used[slot / bits] |= 1ul << (slot % bits);
	kstack_high = max(kstack_high, slot + 1);
	spin_unlock_irqrestore(&kstack_lock, flags);

	base = kstack_slot_base(slot);
	for (unsigned long off = 0; off < THREAD_SIZE; off += PAGE_SIZE) {
		struct page *pg = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!pg || map_page(kernel_pml4, base + off, page_to_phys(pg), PAGE_KERNEL)) {
			if (pg)
				__free_page(pg);
			/* undo what was mapped: kstack_free() stops at the hole */
			kstack_free((void *)base);
			return NULL;
		}
	}
	return (void *)base;
}

void kstack_free(void *stack)
{
	const unsigned long bits = 8 * sizeof(unsigned long);
	unsigned long base = (unsigned long)stack, slot, flags;

	slot = (base - KSTACK_BASE) / KSTACK_SLOT_SIZE;
	/* a stack freed twice would unmap whichever task has its slot now:
	 * stop at the second free, with its backtrace, not at that crash */
	if (base < KSTACK_BASE || slot >= KSTACK_SLOTS || base != kstack_slot_base(slot) ||
	    !(READ_ONCE(kstack_used[slot / bits]) & (1ul << (slot % bits))) ||
	    (READ_ONCE(kstack_lazy[slot / bits]) & (1ul << (slot % bits))))
		panic("kstack_free: %p is not a live stack", stack);
	for (unsigned long off = 0; off < THREAD_SIZE; off += PAGE_SIZE) {
		phys_addr_t pa = virt_to_phys_walk(kernel_pml4, base + off);

		if (pa == (phys_addr_t)-1)
			break;
		unmap_page(kernel_pml4, base + off);       /* this CPU's TLB too */
		__free_page(pfn_to_page(pa >> PAGE_SHIFT));
	}
	/* still taken until every CPU has flushed it (kstack_purge_lazy) */
	spin_lock_irqsave(&kstack_lock, flags);
	kstack_lazy[slot / bits] |= 1ul << (slot % bits);
	kstack_nr_lazy++;
	spin_unlock_irqrestore(&kstack_lock, flags);
}

bool kstack_guard_hit(unsigned long addr)
{
	if (addr < KSTACK_BASE || addr >= KSTACK_BASE + KSTACK_SLOTS * KSTACK_SLOT_SIZE)
		return false;
	return (addr - KSTACK_BASE) % KSTACK_SLOT_SIZE < PAGE_SIZE;
}

void mm_init(void)
{
	unsigned long total = 0, kernel_kb;

	memblock_init();
	if (!memblock_cnt)
		panic("no usable RAM in the memory map");
	paging_init();

	mem_map = __va(memblock_alloc(max_pfn * sizeof(struct page), ~0ull));
	page_alloc_init(max_pfn);
	for (int i = 0; i < memblock_cnt; i++) {
		free_pages_range(memblock[i].base >> PAGE_SHIFT, memblock[i].end >> PAGE_SHIFT);
		total += (memblock[i].end - memblock[i].base) >> PAGE_SHIFT;
	}
	memblock_cnt = 0;                       /* memblock is done */
	page_alloc_ready = true;

	kernel_kb = (unsigned long)(_end - _text) / 1024;
	pr_info("Memory: %luK available, kernel %luK (code %luK), max_pfn %#lx\n",
		total * (PAGE_SIZE / 1024), kernel_kb,
		(unsigned long)(_etext - _text) / 1024, max_pfn);
}
