/* SPDX-License-Identifier: MIT */
/*
 * x86-64 page tables: 4 levels (PML4, PDPT, PD, PT), 512 entries each,
 * 4 KiB pages, with 2 MiB pages at the PD level for the direct map
 * (Intel SDM vol. 3, 4.5).
 */
#ifndef ASM_PGTABLE_H
#define ASM_PGTABLE_H

#include <spindle/types.h>

#define _PAGE_PRESENT   (1ull << 0)
#define _PAGE_RW        (1ull << 1)
#define _PAGE_USER      (1ull << 2)
#define _PAGE_PWT       (1ull << 3)     /* write-through */
#define _PAGE_PCD       (1ull << 4)     /* cache disable */
#define _PAGE_ACCESSED  (1ull << 5)
#define _PAGE_DIRTY     (1ull << 6)
#define _PAGE_PSE       (1ull << 7)     /* 2 MiB page (in a PD entry) */
#define _PAGE_GLOBAL    (1ull << 8)
/*
 * Bit 9 is the software's (the CPU ignores it).  Linux's _PAGE_PROTNONE:
 * a user page mprotect()ed to PROT_NONE is kept with its data but marked
 * not present, so that any access faults; the kernel still owns the page
 * and must free or copy it like a present one.
 */
#define _PAGE_PROTNONE (1ull << 9)
/*
 * Bit 10, software's too: the PTE maps a page this address space does
 * not own -- a page-cache page of a mapped file (or a kernel object's
 * page) -- with a reference of its own.  Fork shares it instead of
 * copying, and in a MAP_PRIVATE mapping it is never writable: the first
 * write copies it (copy-on-write).  Linux tells the two kinds apart by
 * the struct page (PageAnon); Spindle's pages do not say, the PTE does.
 */
#define _PAGE_FILEPG    (1ull << 10)
#define _PAGE_NX        (1ull << 63)
#define PTE_ADDR_MASK   0x000ffffffffff000ull

#define PAGE_KERNEL         (_PAGE_PRESENT | _PAGE_RW | _PAGE_GLOBAL | _PAGE_NX)
#define PAGE_KERNEL_RO      (_PAGE_PRESENT | _PAGE_GLOBAL | _PAGE_NX)
#define PAGE_KERNEL_EXEC    (_PAGE_PRESENT | _PAGE_GLOBAL)
#define PAGE_KERNEL_NOCACHE (PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT)

typedef u64 pte_t;

/* The kernel's top-level table; the kernel half is shared by every
 * address space. */
extern pte_t *kernel_pml4;

/* Map one 4 KiB page; returns 0 or -ENOMEM (page-table memory). */
int map_page(pte_t *pml4, unsigned long va, phys_addr_t pa, u64 flags);
/* Remove one 4 KiB mapping and flush it from this CPU's TLB.  Other CPUs
 * may still hold it: a kernel mapping must also be flushed with
 * flush_tlb_kernel_range() (asm/tlbflush.h) before its address is reused. */
void unmap_page(pte_t *pml4, unsigned long va);
/* Walk the tables: the physical address va maps to, or -1 if none. */
phys_addr_t virt_to_phys_walk(pte_t *pml4, unsigned long va);

/*
 * User address spaces (kernel/mm/mmap.c).  A process's PML4 has its own
 * lower half (entries 0-255, user space) and copies of the kernel's upper
 * half entries (256-511): those point at the kernel's own PDPTs, so every
 * kernel mapping is visible in every process (and is supervisor-only, so
 * user code cannot touch it).  paging_init() creates every upper-half
 * PML4 entry the kernel will ever use up front, so that a later kernel
 * mapping (a new ioremap, a new kernel stack) lands in a table that all
 * processes already share.
 */
#define PAGE_USER_RO    (_PAGE_PRESENT | _PAGE_USER | _PAGE_NX)
#define PAGE_USER_RW    (_PAGE_PRESENT | _PAGE_USER | _PAGE_RW | _PAGE_NX)

pte_t *pgd_alloc(void);                 /* NULL when out of memory */
/* Free the user half's page-table pages (not the pages they map) and
 * the PML4 itself. */
void pgd_free(pte_t *pml4);
/* The 4 KiB PTE for va, or NULL when a table above it is absent. */
pte_t *lookup_pte(pte_t *pml4, unsigned long va);
/* The 4 KiB PTE for va, creating the tables above it (Linux's
 * pte_alloc()); NULL when out of memory.  The caller sets the PTE. */
pte_t *pte_alloc(pte_t *pml4, unsigned long va);
/* A user PTE that holds a page: present, or PROT_NONE (Linux's
 * pte_present() means the same). */
static inline bool pte_present(pte_t pte)
{
	return pte & (_PAGE_PRESENT | _PAGE_PROTNONE);
}

/* Call fn for every pte_present() PTE in [start, end) of the user half,
 * skipping absent tables whole (so a huge sparse range is cheap). */
typedef void (*pte_visit_t)(pte_t *pte, unsigned long va, void *arg);
void walk_user_ptes(pte_t *pml4, unsigned long start, unsigned long end,
		    pte_visit_t fn, void *arg);

/* Test seam (tests/kernel/smp_mm_test.c): called, when set, between allocating
 * a page table and installing it -- where a preempting task may install
 * its own for the same range.  NULL except inside that test. */
extern void (*pt_populate_hook)(unsigned long va);
/* Test seam (tests/kernel/smp_mm_test.c): called, when set, under pgd_lock
 * right before a kernel-half page table is installed -- where no other CPU
 * may be at the same time.  NULL except inside that test. */
extern void (*pt_install_hook)(unsigned long va);

/*
 * Kernel stacks (THREAD_SIZE) in their own area, each with an unmapped
 * guard page below it: running off the end of a stack faults, and the
 * double-fault handler reports "kernel stack overflow".  NULL when out of
 * memory or slots.  Stack memory is not in the direct map: never DMA to
 * or from the stack.
 */
void *kstack_alloc(void);
void kstack_free(void *stack);
/* Is addr in the guard page below some kernel stack? */
bool kstack_guard_hit(unsigned long addr);

#endif /* ASM_PGTABLE_H */
