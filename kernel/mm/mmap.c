// SPDX-License-Identifier: MIT
/*
 * mmap.c - user address spaces: VMAs, demand-zero faults, fork's copy,
 * brk, mmap and munmap (include/spindle/mm_types.h).
 *
 * Where it sits: exec (kernel/exec.c) builds a new mm, fork
 * (kernel/fork.c) copies one, exit frees it; the page-fault handler
 * (kernel/arch/x86/traps.c) calls handle_mm_fault(); the page tables
 * themselves are the architecture's (asm/pgtable.h).
 *
 * Policy, and why:
 *   - Anonymous memory (heap, stack, mmap, bss) is demand-zero: a VMA
 *     costs nothing until a page is touched, and the first touch faults
 *     and gets a zeroed page.  An 8 MiB stack or a large malloc arena
 *     would otherwise be allocated whole for programs that use a page.
 *   - The program's text and data are loaded eagerly by exec (the file is
 *     read once, no page cache behind it yet).
 *   - fork copies every page present in the parent at once (no
 *     copy-on-write): simple, and Spindle's processes are small.
 *   - A process may not eat the kernel's last USER_RESERVE_PAGES pages:
 *     the kernel must still be able to allocate requests and task
 *     structures.  Clean page cache does not count as taken: below the
 *     reserve, a fault or fork's copy reclaims it first (user_may_take_page),
 *     so one big read cannot starve every program.  A fault that would
 *     still eat into the reserve is treated as a bad access (SIGSEGV;
 *     Linux would call the OOM killer instead).
 *
 * Locking: no threads, so an mm is only changed by its own process (or,
 * for a new mm, by the exec or fork building it).  A vfork child runs on
 * its parent's mm, but the parent sleeps until the child execs or exits,
 * so still one task at a time changes it, and the VMA list needs no lock.
 * Others only read it (/proc/<pid>/cmdline), from any CPU, while the
 * owner runs on another: they hold a user (get_task_mm(), mm_users is
 * atomic), so it is not freed under them, and they look each page up
 * and take a reference on it under mm->page_table_lock (Linux's name),
 * under which the owner sets and clears its PTEs, so a page is never
 * freed under their copy.  Faults run with interrupts off and do not
 * sleep.
 */
#include <spindle/mm_types.h>
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/syscalls.h>
#include <spindle/printk.h>
#include <spindle/aio.h>
#include <asm/pgtable.h>
#include <asm/cpu.h>

#define USER_RESERVE_PAGES  512         /* 2 MiB the kernel keeps for itself */
#define USER_RECLAIM_BATCH  32          /* pages reclaimed past the shortfall (Linux's SWAP_CLUSTER_MAX) */

#include <uapi/asm/mman.h> /* mmap's prot and flags: shared with user space */

static inline pte_t *mm_pgd(struct mm_struct *mm)
{
	return (pte_t *)mm->pgd;
}

/* A VMA's rights as PTE bits; no rights at all (PROT_NONE) is a PTE the
 * hardware sees as absent, so that even a read faults. */
static u64 vm_page_prot(unsigned long vm_flags)
{
	u64 prot = _PAGE_PRESENT | _PAGE_USER;

	if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return _PAGE_PROTNONE | _PAGE_USER | _PAGE_NX;

	if (vm_flags & VM_WRITE)
		prot |= _PAGE_RW;
	if (!(vm_flags & VM_EXEC))
		prot |= _PAGE_NX;
	return prot;
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm), GFP_KERNEL);

	if (!mm)
		return NULL;
	mm->pgd = (u64 *)pgd_alloc();
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	INIT_LIST_HEAD(&mm->mmap);
	mm->mmap_base = MMAP_BASE;
	atomic_set(&mm->mm_users, 1);
	spin_lock_init(&mm->page_table_lock);
	return mm;
}

void mmget(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_users);
}

struct mm_struct *get_task_mm(struct task_struct *t)
{
	struct mm_struct *mm;

	/* t->mm goes NULL (exit_mm) or changes (exec) under task_lock(t),
	 * and only then is t's user dropped: what we see here still has
	 * it, so taking ours cannot race with the last mmput() */
	task_lock(t);
	mm = t->mm;
	if (mm)
		mmget(mm);
	task_unlock(t);
	return mm;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mmap, vm_list)
		if (vma->vm_end > addr)
			return vma;
	return NULL;
}

int mm_add_vma(struct mm_struct *mm, unsigned long start, unsigned long end,
	       unsigned long flags)
{
	struct vm_area_struct *vma, *next = find_vma(mm, start);

	if (start >= end || end > STACK_TOP || (start | end) & ~PAGE_MASK)
		return -EINVAL;
	if (next && next->vm_start < end)
		return -EINVAL;                 /* overlaps */
	vma = kzalloc(sizeof(*vma), GFP_KERNEL);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_flags = flags;
	/* keep the list sorted: insert before the first VMA above us */
	list_add_tail(&vma->vm_list, next ? &next->vm_list : &mm->mmap);
	mm->map_count++;
	return 0;
}

/*
 * Clear one PTE and drop the page's reference, under mm->page_table_lock
 * (the caller's): a reader on another CPU either found the PTE first and
 * holds its own reference -- the page is freed by its put_page() after
 * the copy -- or finds it clear.  Only the owner's CPU can have this
 * mm's translations (no threads; every switch loads CR3), so the local
 * invlpg is all the flushing there is to do.
 */
static void free_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	struct mm_struct *mm = arg;
	pte_t old = *pte;

	assert_spin_locked(&mm->page_table_lock);
	WRITE_ONCE(*pte, 0);
	invlpg(va);                     /* harmless if mm is not loaded */
	free_pages((unsigned long)__va(old & PTE_ADDR_MASK), 0);
	mm->nr_pages--;
}

/* Free the pages of [start, end) of mm (munmap, madvise, the last mmput). */
static void zap_user_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	spin_lock(&mm->page_table_lock);
	walk_user_ptes(mm_pgd(mm), start, end, free_user_pte, mm);
	spin_unlock(&mm->page_table_lock);
}

void mmput(struct mm_struct *mm)
{
	struct vm_area_struct *vma, *tmp;
	int users;

	if (!mm)
		return;
	users = atomic_dec_return(&mm->mm_users);
	BUG_ON(users < 0);
	if (users)
		return;                 /* a vfork parent, or a reader, still uses it */
	/* I/O still in flight into these pages finishes first (Linux's
	 * __mmput calls exit_aio too) */
	exit_aio(mm);
	BUG_ON(read_cr3() == __pa(mm->pgd));    /* never free the live tables */
	zap_user_range(mm, 0, STACK_TOP);
	list_for_each_entry_safe(vma, tmp, &mm->mmap, vm_list) {
		list_del(&vma->vm_list);
		kfree(vma);
	}
	pgd_free(mm_pgd(mm));
	if (mm->exe_file)
		fput(mm->exe_file);
	kfree(mm);
}

/*
 * May a process take one more page?  Not from the kernel's reserve; but
 * the page cache's clean pages are only lent to the cache while nobody
 * needed them, so below the reserve they are reclaimed first -- Linux's
 * direct reclaim on the fault path (try_to_free_pages, fs/filemap.c) --
 * a batch past the shortfall, so that the next faults find pages free.
 * Only when the cache has nothing clean left is the reserve short.
 * alloc_page() reclaims too, but only once no page at all is free: the
 * reserve check refused the fault long before that.
 * Does not sleep: faults run with interrupts off.
 */
static bool user_may_take_page(void)
{
	unsigned long free = nr_free_pages();

	if (free >= USER_RESERVE_PAGES)
		return true;
	try_to_free_pages(USER_RESERVE_PAGES - free + USER_RECLAIM_BATCH);
	return nr_free_pages() >= USER_RESERVE_PAGES;
}

/* Map a fresh zeroed page at addr (page-aligned) with the VMA's rights. */
static void *map_zero_page(struct mm_struct *mm, unsigned long addr,
			   unsigned long vm_flags, gfp_t gfp)
{
	struct page *pg;
	pte_t *pte;

	if (!user_may_take_page())
		return NULL;
	pg = alloc_page(gfp | __GFP_ZERO);
	if (!pg)
		return NULL;
	/* the tables first (they may need pages), then the PTE, under the
	 * lock a remote reader takes (Linux: __pte_alloc, then set_pte_at
	 * under the PTE lock); the page's zeroes are written before it */
	pte = pte_alloc(mm_pgd(mm), addr);
	if (!pte) {
		__free_page(pg);
		return NULL;
	}
	spin_lock(&mm->page_table_lock);
	WRITE_ONCE(*pte, page_to_phys(pg) | vm_page_prot(vm_flags));
	mm->nr_pages++;
	spin_unlock(&mm->page_table_lock);
	return page_address(pg);
}

int handle_mm_fault(struct mm_struct *mm, unsigned long addr, bool write, bool exec)
{
	struct vm_area_struct *vma;
	pte_t *pte;

	if (!mm || addr >= STACK_TOP)
		return -EFAULT;
	vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start)
		return -EFAULT;                 /* in no VMA: segfault */
	if ((write && !(vma->vm_flags & VM_WRITE)) ||
	    (exec && !(vma->vm_flags & VM_EXEC)) ||
	    !(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT;                 /* against the VMA's rights */
	pte = lookup_pte(mm_pgd(mm), addr);
	if (pte && pte_present(*pte))
		return -EFAULT;                 /* present, yet it faulted: a protection fault */
	/* Demand-zero: the first touch of an anonymous page. */
	return map_zero_page(mm, addr & PAGE_MASK, vma->vm_flags, GFP_ATOMIC) ? 0 : -ENOMEM;
}

void *mm_get_page(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	pte_t *pte = lookup_pte(mm_pgd(mm), addr);

	if (pte && pte_present(*pte))
		return __va(*pte & PTE_ADDR_MASK);
	if (!vma || addr < vma->vm_start)
		return NULL;
	return map_zero_page(mm, addr & PAGE_MASK, vma->vm_flags, GFP_KERNEL);
}

void (*access_remote_vm_hook)(struct mm_struct *mm, unsigned long addr);

size_t access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len && addr < STACK_TOP) {
		size_t off = addr & ~PAGE_MASK, n = min(len - done, PAGE_SIZE - off);
		struct page *pg = NULL;
		pte_t *pte, val;

		/* the tables above a PTE are freed only with the mm, which
		 * our user keeps: walking them needs no lock */
		spin_lock(&mm->page_table_lock);
		pte = lookup_pte(mm_pgd(mm), addr);
		val = pte ? READ_ONCE(*pte) : 0;
		if ((val & _PAGE_PRESENT) && (val & _PAGE_USER)) {
			pg = pfn_to_page((val & PTE_ADDR_MASK) >> PAGE_SHIFT);
			get_page(pg);
		}
		spin_unlock(&mm->page_table_lock);
		if (!pg)
			break;
		if (access_remote_vm_hook)
			access_remote_vm_hook(mm, addr);
		/* the owner may unmap it now, but our reference keeps it */
		memcpy((char *)buf + done, (char *)page_address(pg) + off, n);
		put_page(pg);
		done += n;
		addr += n;
	}
	return done;
}

/* --- pinning a user's pages for a device (Linux's pin_user_pages) ------ */

/*
 * The page behind user address addr, faulted in if absent, if the VMA
 * allows the access: write means the device will write the page (a
 * read(2) into it).  NULL if not.
 */
static struct page *user_page_for_io(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	pte_t *pte;

	if (!vma || addr < vma->vm_start)
		return NULL;
	if (write ? !(vma->vm_flags & VM_WRITE) : !(vma->vm_flags & (VM_READ | VM_WRITE)))
		return NULL;
	pte = lookup_pte(mm_pgd(mm), addr);
	if (!pte || !pte_present(*pte)) {
		void *kaddr = map_zero_page(mm, addr & PAGE_MASK, vma->vm_flags, GFP_KERNEL);

		return kaddr ? virt_to_page(kaddr) : NULL;
	}
	if (!(*pte & _PAGE_PRESENT) || !(*pte & _PAGE_USER) || (write && !(*pte & _PAGE_RW)))
		return NULL;
	return pfn_to_page((*pte & PTE_ADDR_MASK) >> PAGE_SHIFT);
}

/*
 * Direct I/O hands the user's own pages to the device, so they must stay
 * where they are until the device is done, whatever the process does
 * meanwhile (munmap, exit, a kill): each page gets a reference that only
 * unpin_user_page() drops.  With Spindle's rules (no swap, no
 * copy-on-write, fork copies at once) a pinned page never moves; a page
 * unmapped while pinned is freed by the unpin.
 */
long pin_user_pages_fast(unsigned long start, unsigned int nr_pages,
			 unsigned int gup_flags, struct page **pages)
{
	struct mm_struct *mm = current->mm;
	unsigned int i;

	start &= PAGE_MASK;
	if (!mm || start >= STACK_TOP || nr_pages > (STACK_TOP - start) >> PAGE_SHIFT)
		return -EFAULT;
	for (i = 0; i < nr_pages; i++) {
		struct page *pg = user_page_for_io(mm, start + ((unsigned long)i << PAGE_SHIFT),
						   gup_flags & FOLL_WRITE);

		if (!pg)
			break;
		get_page(pg);
		pages[i] = pg;
	}
	return i ? (long)i : -EFAULT;
}

void unpin_user_page(struct page *page)
{
	put_page(page);
}

/* --- fork: an eager copy ---------------------------------------------- */

struct copy_ctx {
	struct mm_struct *dst;
	int err;
};

static void copy_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	struct copy_ctx *c = arg;
	struct page *pg;

	if (c->err)
		return;
	if (!user_may_take_page() || !(pg = alloc_page(GFP_KERNEL))) {
		c->err = -ENOMEM;
		return;
	}
	memcpy(page_address(pg), __va(*pte & PTE_ADDR_MASK), PAGE_SIZE);
	/* same rights; accessed/dirty bits start afresh */
	if (map_page(mm_pgd(c->dst), va, page_to_phys(pg),
		     *pte & ~(PTE_ADDR_MASK | _PAGE_ACCESSED | _PAGE_DIRTY))) {
		__free_page(pg);
		c->err = -ENOMEM;
		return;
	}
	c->dst->nr_pages++;
}

struct mm_struct *dup_mm(struct mm_struct *old)
{
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *vma;
	struct copy_ctx c = { mm, 0 };

	if (!mm)
		return NULL;
	list_for_each_entry(vma, &old->mmap, vm_list) {
		c.err = mm_add_vma(mm, vma->vm_start, vma->vm_end, vma->vm_flags);
		if (c.err)
			goto fail;
	}
	walk_user_ptes(mm_pgd(old), 0, STACK_TOP, copy_user_pte, &c);
	if (c.err)
		goto fail;
	mm->start_code = old->start_code;
	mm->end_code = old->end_code;
	mm->start_brk = old->start_brk;
	mm->brk = old->brk;
	mm->start_stack = old->start_stack;
	mm->arg_start = old->arg_start;
	mm->arg_end = old->arg_end;
	mm->mmap_base = old->mmap_base;
	mm->exe_file = old->exe_file ? get_file(old->exe_file) : NULL;
	return mm;
fail:
	mmput(mm);
	return NULL;
}

/* --- munmap, mmap, brk ------------------------------------------------ */

/* Split vma in two at addr (inside it); the new upper part follows it. */
static int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	struct vm_area_struct *upper = kzalloc(sizeof(*upper), GFP_KERNEL);

	if (!upper)
		return -ENOMEM;
	*upper = *vma;
	upper->vm_start = addr;
	vma->vm_end = addr;
	list_add(&upper->vm_list, &vma->vm_list);
	mm->map_count++;
	return 0;
}

/* Cut [start, end) out of the VMA list: a VMA may shrink, split in two,
 * or go; then free the pages of the range. */
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	struct vm_area_struct *vma, *tmp;
	unsigned long end;

	if ((start & ~PAGE_MASK) || !len || start >= STACK_TOP)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (!len || len > STACK_TOP - start)
		return -EINVAL;
	end = start + len;
	list_for_each_entry_safe(vma, tmp, &mm->mmap, vm_list) {
		if (vma->vm_end <= start || vma->vm_start >= end)
			continue;
		if (vma->vm_start < start && vma->vm_end > end) {
			/* the hole is inside: split, keep both ends */
			if (split_vma(mm, vma, end))
				return -ENOMEM;
			vma->vm_end = start;
		} else if (vma->vm_start < start) {
			vma->vm_end = start;            /* keep the lower part */
		} else if (vma->vm_end > end) {
			vma->vm_start = end;            /* keep the upper part */
		} else {
			list_del(&vma->vm_list);        /* all of it goes */
			kfree(vma);
			mm->map_count--;
		}
	}
	zap_user_range(mm, start, end);
	return 0;
}

/* A free range of len bytes below mm->mmap_base, highest first (as
 * Linux's top-down layout); 0 if none. */
static unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	struct vm_area_struct *vma;
	unsigned long top = mm->mmap_base;      /* the gap being looked at ends here */

	list_for_each_entry_reverse(vma, &mm->mmap, vm_list) {
		if (vma->vm_end <= top && top - vma->vm_end >= len)
			return top - len;       /* [vm_end, top) is big enough */
		if (vma->vm_start < top)
			top = vma->vm_start;
		if (top < USER_TEXT_START + len)
			return 0;
	}
	return top >= USER_TEXT_START + len ? top - len : 0;
}

/* mmap's and mprotect's PROT_* as a VMA's rights */
static unsigned long prot_to_vm_flags(unsigned long prot)
{
	unsigned long vm_flags = 0;

	if (prot & PROT_READ)
		vm_flags |= VM_READ;
	if (prot & PROT_WRITE)
		vm_flags |= VM_WRITE | VM_READ; /* x86 cannot write-only */
	if (prot & PROT_EXEC)
		vm_flags |= VM_EXEC | VM_READ;
	return vm_flags;
}

long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot,
	      unsigned long flags, unsigned long fd, unsigned long off)
{
	struct mm_struct *mm = current->mm;
	unsigned long vm_flags = 0;
	int err;

	(void)fd;
	if (!mm)
		return -EINVAL;
	if (!len || (off & ~PAGE_MASK))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (!len || len > MMAP_BASE)
		return -ENOMEM;
	/* Spindle maps anonymous private memory only: no files behind
	 * mappings yet, and no sharing between processes. */
	if ((flags & (MAP_SHARED | MAP_PRIVATE)) != MAP_PRIVATE)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return -ENODEV;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	vm_flags = prot_to_vm_flags(prot);
	if (flags & MAP_FIXED) {
		if ((addr & ~PAGE_MASK) || addr < PAGE_SIZE ||
		    addr >= STACK_TOP || len > STACK_TOP - addr)
			return -EINVAL;
		err = do_munmap(mm, addr, len);         /* MAP_FIXED replaces */
	} else {
		/* the hint is only a hint: use it if that range is free */
		struct vm_area_struct *v;

		addr = PAGE_ALIGN(addr);
		if (addr < USER_TEXT_START || addr > STACK_TOP - len ||
		    ((v = find_vma(mm, addr)) && v->vm_start < addr + len))
			addr = get_unmapped_area(mm, len);
		if (!addr)
			return -ENOMEM;
		err = 0;
	}
	if (!err)
		err = mm_add_vma(mm, addr, addr + len, vm_flags);
	return err ? (err == -EINVAL ? -ENOMEM : err) : (long)addr;
}

long sys_munmap(unsigned long addr, size_t len)
{
	if (!current->mm)
		return -EINVAL;
	return do_munmap(current->mm, addr, len);
}

static void protect_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	WRITE_ONCE(*pte, (*pte & PTE_ADDR_MASK) | vm_page_prot(*(unsigned long *)arg));
	invlpg(va);
}

/*
 * mprotect: new rights for [start, start + len), every page of which must
 * be mapped (else -ENOMEM, as Linux).  A C library uses it to make its
 * relocated data read-only after start-up (glibc's RELRO).  The VMAs at
 * the two ends are split where the range cuts them; the pages already
 * present get the new rights in their PTEs, the others at their fault.
 */
long sys_mprotect(unsigned long start, size_t len, unsigned long prot)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long end, addr, vm_flags = 0;

	if (!mm || (start & ~PAGE_MASK) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (len > STACK_TOP || start > STACK_TOP - len)
		return -ENOMEM;
	end = start + len;
	for (addr = start; addr < end; addr = vma->vm_end) { /* all mapped? */
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start > addr)
			return -ENOMEM;
	}
	vm_flags = prot_to_vm_flags(prot);
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = find_vma(mm, addr);
		if (vma->vm_start < addr && split_vma(mm, vma, addr))
			return -ENOMEM;
		vma = find_vma(mm, addr);
		if (vma->vm_end > end && split_vma(mm, vma, end))
			return -ENOMEM;
		vma->vm_flags = (vma->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vm_flags;
	}
	spin_lock(&mm->page_table_lock);       /* a reader tests the PTE's rights */
	walk_user_ptes(mm_pgd(mm), start, end, protect_user_pte, &vm_flags);
	spin_unlock(&mm->page_table_lock);
	return 0;
}

/* madvise: advice only.  MADV_DONTNEED (4) frees the pages -- anonymous
 * memory reads back as zeroes, which a libc's malloc relies on; the rest
 * is accepted and changes nothing, as Linux may. */
long sys_madvise(unsigned long start, size_t len, int behavior)
{
	if (!current->mm || (start & ~PAGE_MASK))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (len > STACK_TOP || start > STACK_TOP - len)
		return -ENOMEM;
	if (behavior == 4)
		zap_user_range(current->mm, start, start + len);
	return 0;
}

/*
 * brk: move the end of the heap.  As Linux, the result is the new break
 * on success and the old one on failure (libc compares); brk(0) asks
 * where it is.  The heap is one VMA, [start_brk, PAGE_ALIGN(brk)).
 */
long sys_brk(unsigned long brk)
{
	struct mm_struct *mm = current->mm;
	unsigned long old_end, new_end;
	struct vm_area_struct *vma;

	if (!mm)
		return -EINVAL;
	if (brk < mm->start_brk || brk >= MMAP_BASE)
		return mm->brk;
	old_end = PAGE_ALIGN(mm->brk);
	new_end = PAGE_ALIGN(brk);
	if (new_end < old_end) {
		if (do_munmap(mm, new_end, old_end - new_end))
			return mm->brk;
	} else if (new_end > old_end) {
		vma = find_vma(mm, old_end);
		if (vma && vma->vm_start < new_end)
			return mm->brk;                 /* would run into a mapping */
		/* grow the heap VMA (or start it) */
		vma = old_end > mm->start_brk ? find_vma(mm, old_end - 1) : NULL;
		if (vma && (vma->vm_flags & VM_HEAP) && vma->vm_end == old_end)
			vma->vm_end = new_end;
		else if (mm_add_vma(mm, old_end, new_end, VM_READ | VM_WRITE | VM_HEAP))
			return mm->brk;
	}
	mm->brk = brk;
	return brk;
}
