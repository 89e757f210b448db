// SPDX-License-Identifier: MIT
/*
 * mmap.c - user address spaces: VMAs, demand-zero faults, file mappings,
 * fork's copy, brk, mmap, munmap, mprotect, msync (include/spindle/mm_types.h).
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
 *     read once into anonymous pages).
 *   - Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS, System V shm)
 *     is a file mapping too, of a file no directory names, in an
 *     instance of ramfs the kernel keeps for it (shmem_file_setup).
 *   - A file mapping (mmap of an ext2 file or a block device) is served
 *     from the page cache: the VMA's vm_ops->fault (filemap_fault) finds
 *     or reads the page, and the PTE maps that very page, with a
 *     reference and the _PAGE_FILEPG mark.  MAP_SHARED: a first write
 *     faults on a read-only PTE and vm_ops->page_mkwrite dirties the page
 *     in the cache (the flusher and fsync write it); later writes set
 *     the PTE's dirty bit, which msync, munmap and exit move to the page
 *     (set_page_dirty) -- Spindle has no page_mkclean to write-protect
 *     the PTE again when write-back cleans the page.  MAP_PRIVATE: the
 *     PTE stays read-only and a write copies the page (copy-on-write).
 *   - fork copies every anonymous page present in the parent at once (no
 *     copy-on-write): simple, and Spindle's processes are small.  Pages
 *     of the page cache are shared, the child's PTE taking a reference.
 *   - A process may not eat the kernel's last USER_RESERVE_PAGES pages:
 *     the kernel must still be able to allocate requests and task
 *     structures.  Clean page cache does not count as taken: below the
 *     reserve, a fault or fork's copy reclaims it first (user_may_take_page),
 *     so one big read cannot starve every program.  A fault that would
 *     still eat into the reserve is treated as a bad access (SIGSEGV;
 *     Linux would call the OOM killer instead).
 *
 * Locking: the threads of a process (kernel/fork.c) share its mm and
 * change it from several CPUs at once: the VMA list changes under
 * mm->mmap_lock (mmap, munmap, mprotect, brk, madvise, fork's copy),
 * and a fault finds its VMA under it too.  A fault that may not sleep (a
 * user copy in atomic context) cannot take it: in an mm no thread shares
 * it walks the VMAs without it, as before threads (only its own task
 * changes them); in a threaded mm it fails, and the copy returns short.
 * Two threads faulting on one page at once both allocate; the PTE is
 * tested again under page_table_lock and the loser frees its page.  A
 * PTE cleared or made read-only in a threaded mm is flushed from every
 * CPU's TLB (another thread may run there with the old translation)
 * before its page is freed.  Others only read it (/proc/<pid>/cmdline), from any CPU, while the
 * owner runs on another: they hold a user (get_task_mm(), mm_users is
 * atomic), so it is not freed under them, and they look each page up
 * and take a reference on it under mm->page_table_lock (Linux's name),
 * under which the owner sets and clears its PTEs, so a page is never
 * freed under their copy.  A demand-zero fault does not sleep (it
 * allocates with GFP_ATOMIC); a file mapping's reads the file and so
 * sleeps: do_page_fault turns interrupts on for a user fault, as Linux
 * does, and a fault that may not sleep (a user copy in atomic context)
 * is served only from a page already in the cache.
 *
 * File mappings: each file VMA is also on its file's mapping->i_mmap,
 * under i_mmap_lock (a spinlock), so that truncation, from any process
 * on any CPU, can find and clear the PTEs of the pages it cuts off
 * (unmap_mapping_range).  Lock order: i_mmap_lock, then
 * mm->page_table_lock, then page_cache_lock (set_page_dirty).
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
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/smp.h>
#include <spindle/init.h>
#include <asm/pgtable.h>
#include <asm/cpu.h>

#define USER_RESERVE_PAGES  512         /* 2 MiB the kernel keeps for itself */
#define USER_RECLAIM_BATCH  32          /* pages reclaimed past the shortfall (Linux's SWAP_CLUSTER_MAX) */
#define MAX_RECLAIM_RETRIES 16          /* passes while reclaim makes progress (Linux's) */

#include <uapi/asm/mman.h> /* mmap's prot and flags: shared with user space */

static inline pte_t *mm_pgd(struct mm_struct *mm)
{
	return (pte_t *)mm->pgd;
}

static inline struct page *pte_page(pte_t pte)
{
	return pfn_to_page((pte & PTE_ADDR_MASK) >> PAGE_SHIFT);
}

/* mapping->i_mmap of every file, and vma->shared on them */
static DEFINE_SPINLOCK(i_mmap_lock);

bool mm_fault_trace;

static int __init fault_trace_setup(const char *val)
{
	mm_fault_trace = !val || *val != '0';
	return 0;
}
__setup("fault_trace=", fault_trace_setup);

/* A MAP_SHARED mapping whose pages the page cache tracks as dirty: its
 * PTEs' dirty bits are the page's too, and are handed on when they go. */
static bool vma_dirty_tracked(const struct vm_area_struct *vma)
{
	return vma->vm_file && (vma->vm_flags & VM_SHARED) && vma->vm_ops &&
	       vma->vm_ops->page_mkwrite;
}

static void vma_link_file(struct vm_area_struct *vma)
{
	if (!vma->vm_file)
		return;
	spin_lock(&i_mmap_lock);
	list_add_tail(&vma->shared, &vma->vm_file->f_mapping->i_mmap);
	spin_unlock(&i_mmap_lock);
}

/* Free a VMA that is off mm->mmap and whose pages are gone. */
static void vma_free(struct vm_area_struct *vma)
{
	if (vma->vm_file) {
		spin_lock(&i_mmap_lock);
		list_del(&vma->shared);
		spin_unlock(&i_mmap_lock);
		fput(vma->vm_file);
	}
	kfree(vma);
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
	mutex_init(&mm->mmap_lock);
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

static struct vm_area_struct *vma_insert(struct mm_struct *mm, unsigned long start,
					 unsigned long end, unsigned long flags, int *err)
{
	struct vm_area_struct *vma, *next = find_vma(mm, start);

	*err = -EINVAL;
	if (start >= end || end > STACK_TOP || (start | end) & ~PAGE_MASK)
		return NULL;
	if (next && next->vm_start < end)
		return NULL;                    /* overlaps */
	*err = -ENOMEM;
	vma = kzalloc(sizeof(*vma), GFP_KERNEL);
	if (!vma)
		return NULL;
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_flags = flags;
	vma->vm_mm = mm;
	INIT_LIST_HEAD(&vma->shared);
	/* keep the list sorted: insert before the first VMA above us */
	list_add_tail(&vma->vm_list, next ? &next->vm_list : &mm->mmap);
	mm->map_count++;
	*err = 0;
	return vma;
}

int mm_add_vma(struct mm_struct *mm, unsigned long start, unsigned long end,
	       unsigned long flags)
{
	int err;

	vma_insert(mm, start, end, flags, &err);
	return err;
}

/* No PTE yet: the pages come at the first touch, from ops->fault, with
 * their own reference each (do_file_fault), and are shared by fork as a
 * file's are. */
int install_special_mapping(struct mm_struct *mm, unsigned long addr, unsigned long len,
			    unsigned long flags, const struct vm_operations_struct *ops)
{
	struct vm_area_struct *vma;
	int err;

	vma = vma_insert(mm, addr, addr + len, flags, &err);
	if (vma)
		vma->vm_ops = ops;
	return err;
}

/*
 * Clear one PTE and drop the page's reference, under mm->page_table_lock
 * (the caller's): a reader on another CPU either found the PTE first and
 * holds its own reference -- the page is freed by its put_page() after
 * the copy -- or finds it clear.  In an mm no thread shares, only the
 * owner's CPU can have its translations (every switch loads CR3), so the
 * local invlpg is all the flushing there is to do; a threaded mm's
 * zap_vma_range() defers the pages and flushes every CPU first.
 */
struct zap_ctx {
	struct mm_struct *mm;
	bool dirty_tracked;             /* vma_dirty_tracked(): hand on dirty bits */
	/* unmap_mapping_range: the pages whose PTEs went, dropped only once
	 * every CPU has flushed them (NULL: drop at once) */
	struct page **defer;
	unsigned int nr_defer, max_defer;
};

static void free_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	struct zap_ctx *z = arg;
	pte_t old = *pte;
	struct page *page = pte_page(old);

	assert_spin_locked(&z->mm->page_table_lock);
	if (z->defer && z->nr_defer == z->max_defer)
		return;                 /* the batch is full: the next round */
	WRITE_ONCE(*pte, 0);
	invlpg(va);                     /* harmless if mm is not loaded */
	/* a write through a shared mapping the page has not heard of yet */
	if (z->dirty_tracked && (old & (_PAGE_FILEPG | _PAGE_DIRTY)) == (_PAGE_FILEPG | _PAGE_DIRTY))
		set_page_dirty(page);
	z->mm->nr_pages--;
	if (z->defer)
		z->defer[z->nr_defer++] = page;
	else
		put_page(page);         /* a page-cache page stays in the cache */
}

static void flush_user_tlb_local(void *unused);
#define UNMAP_BATCH     32      /* PTEs cleared per TLB shootdown */

/* Free the pages of [start, end) of vma (munmap, madvise, the last
 * mmput).  A threaded mm may be loaded on other CPUs, running its other
 * threads: the pages are let go in batches, each only after every CPU
 * has dropped its translations (Linux's tlb_gather_mmu/tlb_finish_mmu). */
static void zap_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	struct zap_ctx z = { .mm = mm, .dirty_tracked = vma_dirty_tracked(vma) };
	struct page *batch[UNMAP_BATCH] = { NULL };

	start = max(start, vma->vm_start);
	end = min(end, vma->vm_end);
	if (!READ_ONCE(mm->threaded) || atomic_read(&mm->mm_users) == 0) {
		spin_lock(&mm->page_table_lock);
		walk_user_ptes(mm_pgd(mm), start, end, free_user_pte, &z);
		spin_unlock(&mm->page_table_lock);
		return;
	}
	z.defer = batch;
	z.max_defer = UNMAP_BATCH;
	do {
		z.nr_defer = 0;
		spin_lock(&mm->page_table_lock);
		walk_user_ptes(mm_pgd(mm), start, end, free_user_pte, &z);
		spin_unlock(&mm->page_table_lock);
		if (!z.nr_defer)
			break;
		on_each_cpu(flush_user_tlb_local, NULL, true);
		for (unsigned int i = 0; i < z.nr_defer; i++)
			put_page(batch[i]);
	} while (z.nr_defer == UNMAP_BATCH);
}

/* Every VMA's part of [start, end) */
static void zap_user_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mmap, vm_list)
		if (vma->vm_end > start && vma->vm_start < end)
			zap_vma_range(vma, start, end);
}

/* --- truncation: clearing other processes' PTEs ------------------------- */

static void flush_user_tlb_local(void *unused)
{
	(void)unused;
	write_cr3(read_cr3());          /* drops every non-global translation */
}

/*
 * Truncation cuts pages off a file that processes may have mapped, on
 * any CPU, right now (Linux's unmap_mapping_range).  Each VMA on the
 * mapping's i_mmap that maps a page from index on loses those PTEs --
 * the page-cache page and a private copy alike, so that the next access
 * faults and finds the file's new end (SIGBUS).  The owner may be
 * running on another CPU with the translations in its TLB: after each
 * batch every CPU reloads CR3 (an IPI, as Linux's flush_tlb_mm_range),
 * and only then are the pages let go -- until then a stale translation
 * may still reach them.
 */
void unmap_mapping_range(struct address_space *mapping, pgoff_t index)
{
	struct page *batch[UNMAP_BATCH];
	struct vm_area_struct *vma;
	bool more;

	if (list_empty(&mapping->i_mmap))
		return;
	might_sleep();
	spin_lock(&i_mmap_lock);
	do {
		more = false;
		list_for_each_entry(vma, &mapping->i_mmap, shared) {
			pgoff_t vend = vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT);
			struct zap_ctx z = {
				.mm = vma->vm_mm, .dirty_tracked = vma_dirty_tracked(vma),
				.defer = batch, .max_defer = UNMAP_BATCH,
			};
			unsigned long start = vma->vm_start;

			if (vend <= index)
				continue;
			if (index > vma->vm_pgoff)
				start += (index - vma->vm_pgoff) << PAGE_SHIFT;
			spin_lock(&z.mm->page_table_lock);
			walk_user_ptes(mm_pgd(z.mm), start, vma->vm_end, free_user_pte, &z);
			spin_unlock(&z.mm->page_table_lock);
			if (!z.nr_defer)
				continue;
			on_each_cpu(flush_user_tlb_local, NULL, true);
			for (unsigned int i = 0; i < z.nr_defer; i++)
				put_page(batch[i]);
			if (z.nr_defer == UNMAP_BATCH) {
				more = true;    /* this VMA may have more: walk again */
				break;
			}
		}
	} while (more);
	spin_unlock(&i_mmap_lock);
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
	/* a shared mapping's dirty pages stay dirty in the cache: the
	 * flusher writes them, as Linux leaves them at exit */
	zap_user_range(mm, 0, STACK_TOP);
	list_for_each_entry_safe(vma, tmp, &mm->mmap, vm_list) {
		list_del(&vma->vm_list);
		vma_free(vma);
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
	/*
	 * Another CPU may take pages between our reclaim and our look at
	 * what is free -- a fork's copy lost that race to it now and then
	 * (fork: ENOMEM with 100 MiB of clean cache).  So, as Linux's
	 * should_reclaim_retry(), try again while reclaim makes progress,
	 * up to MAX_RECLAIM_RETRIES times; give up only when a pass frees
	 * nothing, or the other CPUs keep taking everything it frees.
	 */
	for (int tries = 0; tries < MAX_RECLAIM_RETRIES; tries++) {
		unsigned long free = nr_free_pages();

		if (free >= USER_RESERVE_PAGES)
			return true;
		if (!try_to_free_pages(USER_RESERVE_PAGES - free + USER_RECLAIM_BATCH))
			break;
	}
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
	if (READ_ONCE(*pte) & _PAGE_PRESENT) {
		/* another thread faulted the page in meanwhile: its page
		 * (and whatever it wrote there) stays, ours goes */
		pte_t cur = *pte;

		spin_unlock(&mm->page_table_lock);
		__free_page(pg);
		return page_address(pte_page(cur));
	}
	WRITE_ONCE(*pte, page_to_phys(pg) | vm_page_prot(vm_flags));
	mm->nr_pages++;
	spin_unlock(&mm->page_table_lock);
	return page_address(pg);
}

/* vm_ops->fault's answer as handle_mm_fault's */
static int vm_fault_errno(int ret)
{
	switch (ret) {
	case VM_FAULT_OK:
		return 0;
	case VM_FAULT_SIGBUS:
		return -EIO;
	case VM_FAULT_OOM:
		return -ENOMEM;
	default:
		return -EFAULT;
	}
}

/* A private copy of page for a MAP_PRIVATE write; NULL if memory is short. */
static struct page *cow_copy(struct page *page, bool may_sleep)
{
	struct page *copy;

	if (!user_may_take_page())
		return NULL;
	copy = alloc_page(may_sleep ? GFP_KERNEL : GFP_ATOMIC);
	if (copy)
		memcpy(page_address(copy), page_address(page), PAGE_SIZE);
	return copy;
}

/*
 * A write to a present, read-only PTE of a file mapping: a MAP_SHARED
 * page written for the first time since it was mapped (page_mkwrite,
 * then the PTE becomes writable), or a MAP_PRIVATE page-cache page
 * (copy-on-write: the process gets its own copy, the cache keeps its).
 */
static int do_wp_page(struct vm_area_struct *vma, struct vm_fault *vmf, pte_t *pte, pte_t old)
{
	struct mm_struct *mm = vma->vm_mm;
	struct page *page = pte_page(old), *copy = NULL;
	int ret = 0;

	get_page(page);                 /* ours, while the PTE may change */
	if (vma->vm_flags & VM_SHARED) {
		if (vma->vm_ops->page_mkwrite) {
			vmf->page = page;
			ret = vm_fault_errno(vma->vm_ops->page_mkwrite(vmf));
		}
	} else if (!(copy = cow_copy(page, vmf->may_sleep))) {
		ret = -ENOMEM;
	}
	if (!ret) {
		spin_lock(&mm->page_table_lock);
		if (READ_ONCE(*pte) == old) {   /* truncation may have cleared it */
			if (copy) {
				WRITE_ONCE(*pte, page_to_phys(copy) | vm_page_prot(vma->vm_flags));
				put_page(page);         /* the PTE's reference */
				copy = NULL;
			} else {
				WRITE_ONCE(*pte, old | _PAGE_RW);
			}
			invlpg(vmf->address);
		}
		spin_unlock(&mm->page_table_lock);
	}
	if (copy)
		put_page(copy);
	put_page(page);
	if (!ret && (vma->vm_flags & VM_SHARED) && vmf->may_sleep && vma_dirty_tracked(vma))
		balance_dirty_pages_ratelimited(vma->vm_file->f_mapping);
	return ret;
}

/*
 * A fault found the PTE present and allowing the access: in a threaded
 * mm another thread mapped the page after this CPU's walk missed it, or
 * this CPU holds a translation a shootdown has not reached yet.  Go again
 * (after dropping this CPU's stale entry): the access now succeeds.
 */
static bool fault_raced(struct mm_struct *mm, pte_t pte, bool write, bool exec)
{
	return READ_ONCE(mm->threaded) && (!write || (pte & _PAGE_RW)) &&
	       !(exec && (pte & _PAGE_NX)) && (pte & _PAGE_USER);
}

/*
 * A fault in a file mapping (Linux's do_fault): the page comes from the
 * VMA's vm_ops->fault -- filemap_fault for a page-cache file, which may
 * read it from the disk -- and is mapped with its own reference.
 */
static int do_file_fault(struct vm_area_struct *vma, unsigned long addr, bool write,
			 bool exec, bool may_sleep)
{
	struct mm_struct *mm = vma->vm_mm;
	struct vm_fault vmf = {
		.vma = vma,
		.address = addr & PAGE_MASK,
		.pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT),
		.write = write,
		.may_sleep = may_sleep,
	};
	bool shared = vma->vm_flags & VM_SHARED;
	pte_t *pte = lookup_pte(mm_pgd(mm), vmf.address);
	pte_t old = pte ? READ_ONCE(*pte) : 0, val;
	struct page *page, *map;
	int err;

	if (old & _PAGE_PRESENT) {
		/* present, yet it faulted: another thread mapped it since
		 * this CPU looked (two threads running into the same page of
		 * libc's text at once), or a write to a page kept read-only
		 * on purpose, which is ours to handle */
		if (fault_raced(vma->vm_mm, old, write, exec)) {
			invlpg(vmf.address);
			return 0;
		}
		if (!write || (old & _PAGE_RW) || !(old & _PAGE_FILEPG))
			return -EFAULT;
		return do_wp_page(vma, &vmf, pte, old);
	}
	if (mm_fault_trace)
		printk(KERN_INFO "fault_trace: %s[%d] %s fault at %#lx: page %lu of the file\n",
		       current->comm, current->pid, write ? "write" : "read", addr, vmf.pgoff);
	err = vm_fault_errno(vma->vm_ops->fault(&vmf));
	if (err)
		return err;
	page = map = vmf.page;
	val = vm_page_prot(vma->vm_flags);
	if (!shared && write) {
		/* a private write: the copy is mapped, never the cache's page */
		map = cow_copy(page, may_sleep);
		if (!map)
			err = -ENOMEM;
	} else {
		val |= _PAGE_FILEPG;
		if (!shared || (!write && vma->vm_ops->page_mkwrite))
			val &= ~_PAGE_RW;       /* the first write faults again */
		else if (write && vma->vm_ops->page_mkwrite) {
			/* unlocked, as Linux's do_page_mkwrite: a file
			 * system's may take its inode's lock, which write()
			 * takes before page locks */
			if (vmf.locked) {
				unlock_page(page);
				vmf.locked = false;
			}
			err = vm_fault_errno(vma->vm_ops->page_mkwrite(&vmf));
			/* locked again to the PTE: truncation, which locks
			 * each page it drops, either finds the PTE or is
			 * seen here */
			if (!err && may_sleep && page->mapping) {
				lock_page(page);
				vmf.locked = true;
			}
			if (!err && !page->mapping)
				err = -EIO;
		}
	}
	if (!err && !(pte = pte_alloc(mm_pgd(mm), vmf.address)))
		err = -ENOMEM;
	if (!err) {
		spin_lock(&mm->page_table_lock);
		WRITE_ONCE(*pte, page_to_phys(map) | val);
		mm->nr_pages++;
		spin_unlock(&mm->page_table_lock);
		if (mm_fault_trace)
			printk(KERN_INFO "fault_trace: %s[%d] page %lu mapped at %#lx (%s)\n",
			       current->comm, current->pid, vmf.pgoff, vmf.address,
			       map != page ? "private copy" : val & _PAGE_RW ? "writable" : "read-only");
	}
	if (vmf.locked)
		unlock_page(page);
	/* the fault's reference became the PTE's, unless a copy went in */
	if (err || map != page)
		put_page(page);
	if (err && map && map != page)
		put_page(map);
	if (!err && shared && write && may_sleep && vma_dirty_tracked(vma))
		balance_dirty_pages_ratelimited(vma->vm_file->f_mapping);
	return err;
}

static int __handle_mm_fault(struct mm_struct *mm, unsigned long addr, bool write, bool exec,
			     bool may_sleep)
{
	struct vm_area_struct *vma;
	pte_t *pte;

	vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start)
		return -EFAULT;                 /* in no VMA: segfault */
	if ((write && !(vma->vm_flags & VM_WRITE)) ||
	    (exec && !(vma->vm_flags & VM_EXEC)) ||
	    !(vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT;                 /* against the VMA's rights */
	if (!vma_is_anonymous(vma))
		return do_file_fault(vma, addr, write, exec, may_sleep);
	pte = lookup_pte(mm_pgd(mm), addr);
	if (pte && pte_present(*pte)) {
		/* present, yet it faulted: a protection fault -- unless
		 * another thread mapped it since the CPU looked */
		if (fault_raced(mm, *pte, write, exec)) {
			invlpg(addr);
			return 0;
		}
		return -EFAULT;
	}
	/* Demand-zero: the first touch of an anonymous page. */
	return map_zero_page(mm, addr & PAGE_MASK, vma->vm_flags, GFP_ATOMIC) ? 0 : -ENOMEM;
}

int handle_mm_fault(struct mm_struct *mm, unsigned long addr, bool write, bool exec)
{
	bool may_sleep = !irqs_disabled() && !in_atomic();
	int ret;

	if (!mm || addr >= STACK_TOP)
		return -EFAULT;
	if (!may_sleep) {
		/* no mmap_lock here: only safe while no other thread can
		 * change the VMAs (the caller's copy comes back short) */
		if (READ_ONCE(mm->threaded))
			return -EFAULT;
		return __handle_mm_fault(mm, addr, write, exec, false);
	}
	/*
	 * A process of one thread has nobody to change its VMAs under the
	 * fault, so it takes no mmap_lock -- and must not: write() faults in
	 * its source buffer holding the file's i_mutex (i_mutex, then
	 * mmap_lock), while ext2's page_mkwrite takes i_mutex inside the
	 * fault (mmap_lock, then i_mutex), and lockdep rightly calls that a
	 * cycle.  Between two threads of one process the cycle is real and
	 * still open: page_mkwrite should take a lock of its own, ordered
	 * after mmap_lock, as ext4's takes the mapping's invalidate_lock.
	 */
	if (!READ_ONCE(mm->threaded))
		return __handle_mm_fault(mm, addr, write, exec, true);
	mutex_lock(&mm->mmap_lock);
	ret = __handle_mm_fault(mm, addr, write, exec, true);
	mutex_unlock(&mm->mmap_lock);
	return ret;
}

void *mm_get_page(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	pte_t *pte = lookup_pte(mm_pgd(mm), addr);

	if (pte && pte_present(*pte))
		return __va(*pte & PTE_ADDR_MASK);
	if (!vma || addr < vma->vm_start || !vma_is_anonymous(vma))
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
	if (!vma_is_anonymous(vma) &&
	    (!pte || !(*pte & _PAGE_PRESENT) || (write && !(*pte & _PAGE_RW)))) {
		/* the file's (or the vDSO's) page, read in (or copied, or dirtied) first */
		if (do_file_fault(vma, addr, write, false, true))
			return NULL;
		pte = lookup_pte(mm_pgd(mm), addr);
	}
	if (!pte || !pte_present(*pte)) {
		void *kaddr = map_zero_page(mm, addr & PAGE_MASK, vma->vm_flags, GFP_KERNEL);

		return kaddr ? virt_to_page(kaddr) : NULL;
	}
	if (!(*pte & _PAGE_PRESENT) || !(*pte & _PAGE_USER) || (write && !(*pte & _PAGE_RW)))
		return NULL;
	return pfn_to_page((*pte & PTE_ADDR_MASK) >> PAGE_SHIFT);
}

/*
 * The fast path (Linux's gup_fast): the leading pages that are present
 * with the rights asked -- the PTE's own bits, as Linux's
 * pte_access_permitted() reads them -- referenced with no VMA lookup and
 * no mmap_lock.  page_table_lock is enough: munmap, mprotect and
 * truncation change PTEs under it, so a page seen here is not freed
 * before our reference, and the tables above a PTE are freed only with
 * the mm.  An absent page, a read-only one the device would write (a
 * private file page still to be copied), a PROT_NONE one: the slow path
 * takes over there.  Returns how many it pinned.
 */
static unsigned int pin_user_pages_present(struct mm_struct *mm, unsigned long start,
					   unsigned int nr_pages, bool write, struct page **pages)
{
	pte_t need = _PAGE_PRESENT | _PAGE_USER | (write ? _PAGE_RW : 0);
	unsigned int i;

	spin_lock(&mm->page_table_lock);
	for (i = 0; i < nr_pages; i++) {
		pte_t *pte = lookup_pte(mm_pgd(mm), start + ((unsigned long)i << PAGE_SHIFT));
		pte_t val = pte ? READ_ONCE(*pte) : 0;

		if ((val & need) != need)
			break;
		pages[i] = pte_page(val);
		get_page(pages[i]);
	}
	spin_unlock(&mm->page_table_lock);
	return i;
}

/*
 * Direct I/O hands the user's own pages to the device, so they must stay
 * where they are until the device is done, whatever the process does
 * meanwhile (munmap, exit, a kill): each page gets a reference that only
 * unpin_user_page() drops.  With Spindle's rules (no swap, fork copies
 * anonymous pages at once, a private file page is copied before the
 * pin when the device will write it) a pinned page never moves; a page
 * unmapped while pinned is freed by the unpin.  Pages already mapped
 * (the buffer a program reads into again and again) take the fast path;
 * the rest are faulted in under the mmap_lock.
 */
long pin_user_pages_fast(unsigned long start, unsigned int nr_pages,
			 unsigned int gup_flags, struct page **pages)
{
	struct mm_struct *mm = current->mm;
	unsigned int i;

	start &= PAGE_MASK;
	if (!mm || start >= STACK_TOP || nr_pages > (STACK_TOP - start) >> PAGE_SHIFT)
		return -EFAULT;
	i = pin_user_pages_present(mm, start, nr_pages, gup_flags & FOLL_WRITE, pages);
	if (i == nr_pages)
		return i;
	/* under the mmap_lock: another thread's munmap must not free a
	 * page between its lookup and our reference */
	mutex_lock(&mm->mmap_lock);
	for (; i < nr_pages; i++) {
		struct page *pg = user_page_for_io(mm, start + ((unsigned long)i << PAGE_SHIFT),
						   gup_flags & FOLL_WRITE);

		if (!pg)
			break;
		get_page(pg);
		pages[i] = pg;
	}
	mutex_unlock(&mm->mmap_lock);
	return i ? (long)i : -EFAULT;
}

void unpin_user_page(struct page *page)
{
	put_page(page);
}

/* --- fork: an eager copy ---------------------------------------------- */

struct copy_ctx {
	struct mm_struct *src, *dst;
	int err;
};

/*
 * A page-cache page (or a kernel object's) is shared, not copied: the
 * child's PTE is the parent's, with its own reference -- MAP_SHARED
 * pages so that both see each other's writes, MAP_PRIVATE pages not yet
 * written because they are still the file's (the first write of either
 * copies it).  The parent's PTE is read and its page referenced under
 * the parent's lock: truncation, on another CPU, may be clearing it.
 */
static void share_file_pte(struct copy_ctx *c, pte_t *pte, unsigned long va)
{
	pte_t val, *dpte;

	spin_lock(&c->src->page_table_lock);
	val = READ_ONCE(*pte);
	if (val & _PAGE_FILEPG)
		get_page(pte_page(val));
	spin_unlock(&c->src->page_table_lock);
	if (!(val & _PAGE_FILEPG))
		return;                 /* truncated meanwhile */
	dpte = pte_alloc(mm_pgd(c->dst), va);
	if (!dpte) {
		put_page(pte_page(val));
		c->err = -ENOMEM;
		return;
	}
	spin_lock(&c->dst->page_table_lock);
	WRITE_ONCE(*dpte, val & ~(_PAGE_ACCESSED | _PAGE_DIRTY));
	c->dst->nr_pages++;
	spin_unlock(&c->dst->page_table_lock);
}

static void copy_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	struct copy_ctx *c = arg;
	struct page *pg;

	if (c->err)
		return;
	if (*pte & _PAGE_FILEPG) {
		share_file_pte(c, pte, va);
		return;
	}
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
	struct copy_ctx c = { old, mm, 0 };

	if (!mm)
		return NULL;
	list_for_each_entry(vma, &old->mmap, vm_list) {
		struct vm_area_struct *new = vma_insert(mm, vma->vm_start, vma->vm_end,
							vma->vm_flags, &c.err);

		if (!new)
			goto fail;
		new->vm_pgoff = vma->vm_pgoff;
		new->vm_ops = vma->vm_ops;      /* a file's, or a special mapping's */
		new->vm_private_data = vma->vm_private_data;
		if (vma->vm_file) {
			new->vm_file = get_file(vma->vm_file);
			/* on i_mmap before its PTEs exist: truncation finds them */
			vma_link_file(new);
		}
		walk_user_ptes(mm_pgd(old), vma->vm_start, vma->vm_end, copy_user_pte, &c);
		if (c.err)
			goto fail;
	}
	mm->start_code = old->start_code;
	mm->end_code = old->end_code;
	mm->start_brk = old->start_brk;
	mm->brk = old->brk;
	mm->start_stack = old->start_stack;
	mm->arg_start = old->arg_start;
	mm->arg_end = old->arg_end;
	memcpy(mm->saved_auxv, old->saved_auxv, sizeof(mm->saved_auxv));
	mm->mmap_base = old->mmap_base;
	mm->exe_file = old->exe_file ? get_file(old->exe_file) : NULL;
	mm->vdso = old->vdso;
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
	if (!vma_is_anonymous(upper))
		upper->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
	if (upper->vm_file) {
		get_file(upper->vm_file);
		vma_link_file(upper);
	}
	return 0;
}

/* Cut [start, end) out of the VMA list: the VMAs it cuts are split
 * where it cuts them, then the pages of the range are freed (a shared
 * mapping's dirty bits handed to the page cache, whose flusher writes
 * them, as Linux leaves them) and the VMAs inside go. */
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	struct vm_area_struct *vma, *tmp, *cut;
	unsigned long end;

	if ((start & ~PAGE_MASK) || !len || start >= STACK_TOP)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (!len || len > STACK_TOP - start)
		return -EINVAL;
	end = start + len;
	cut = find_vma(mm, start);
	if (cut && cut->vm_start < start && split_vma(mm, cut, start))
		return -ENOMEM;
	cut = find_vma(mm, end);
	if (cut && cut->vm_start < end && split_vma(mm, cut, end))
		return -ENOMEM;
	zap_user_range(mm, start, end);
	list_for_each_entry_safe(vma, tmp, &mm->mmap, vm_list) {
		if (vma->vm_start >= start && vma->vm_end <= end) {
			list_del(&vma->vm_list);
			vma_free(vma);
			mm->map_count--;
		}
	}
	return 0;
}

/* A free range of len bytes below mm->mmap_base, highest first (as
 * Linux's top-down layout); 0 if none. */
unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len)
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

/*
 * The checks of Linux's do_mmap for a file, in its order: the offset
 * must not wrap, a shared writable mapping needs a file open for
 * writing (and not O_APPEND), any mapping one open for reading, and the
 * file must know how to be mapped (a directory, a pipe: ENODEV).
 */
static int mmap_file_check(struct file *f, unsigned long len, unsigned long prot,
			   unsigned long flags, unsigned long off, unsigned long *vm_flags)
{
	if (off + len < off)
		return -EOVERFLOW;
	if (flags & MAP_SHARED) {
		if ((prot & PROT_WRITE) && !(f->f_mode & FMODE_WRITE))
			return -EACCES;
		if ((prot & PROT_WRITE) && (f->f_flags & O_APPEND))
			return -EACCES;
		*vm_flags |= VM_SHARED;
		if (f->f_mode & FMODE_WRITE)
			*vm_flags |= VM_MAYWRITE;
	} else {
		*vm_flags |= VM_MAYWRITE;       /* private: writes stay in memory */
	}
	if (!(f->f_mode & FMODE_READ))
		return -EACCES;
	if (!f->f_op || !f->f_op->mmap)
		return -ENODEV;
	return 0;
}

/*
 * Map len bytes of file (NULL: anonymous memory) at off, under
 * mm->mmap_lock (Linux's do_mmap).  The caller keeps its reference to
 * file; the VMA takes its own.  Returns the address, or an errno.
 */
long do_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, unsigned long off)
{
	struct mm_struct *mm = current->mm;
	unsigned long vm_flags = 0, type = flags & (MAP_SHARED | MAP_PRIVATE);
	struct vm_area_struct *vma;
	struct file *shm = NULL;
	int err;

	if (!mm)
		return -EINVAL;
	if (!len || (off & ~PAGE_MASK))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (!len || len > MMAP_BASE)
		return -ENOMEM;
	/* MAP_SHARED_VALIDATE (both bits) is MAP_SHARED whose flags are all
	 * known: Spindle's are */
	if (!type)
		return -EINVAL;
	if (type == (MAP_SHARED | MAP_PRIVATE))
		flags &= ~MAP_PRIVATE;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	vm_flags = prot_to_vm_flags(prot);
	if (!file && (flags & MAP_SHARED)) {
		/* shared anonymous memory is a file no directory names
		 * (Linux's shmem_zero_setup): fork's children map the same
		 * pages, and shared futexes in it key on its inode */
		file = shm = shmem_file_setup("dev/zero", (loff_t)len);
		if (IS_ERR(shm))
			return PTR_ERR(shm);
		off = 0;
	}
	if (file) {
		err = mmap_file_check(file, len, prot, flags, off, &vm_flags);
		if (err)
			goto out;
	} else {
		vm_flags |= VM_MAYWRITE;
	}
	if (flags & MAP_FIXED) {
		err = -EINVAL;
		if ((addr & ~PAGE_MASK) || addr < PAGE_SIZE ||
		    addr >= STACK_TOP || len > STACK_TOP - addr)
			goto out;
		err = do_munmap(mm, addr, len);         /* MAP_FIXED replaces */
	} else {
		/* the hint is only a hint: use it if that range is free */
		struct vm_area_struct *v;

		addr = PAGE_ALIGN(addr);
		if (addr < USER_TEXT_START || addr > STACK_TOP - len ||
		    ((v = find_vma(mm, addr)) && v->vm_start < addr + len))
			addr = get_unmapped_area(mm, len);
		err = -ENOMEM;
		if (!addr)
			goto out;
		err = 0;
	}
	if (err)
		goto out;
	vma = vma_insert(mm, addr, addr + len, vm_flags, &err);
	if (!vma) {
		err = err == -EINVAL ? -ENOMEM : err;
		goto out;
	}
	if (file) {
		vma->vm_file = get_file(file);
		vma->vm_pgoff = off >> PAGE_SHIFT;
		/* the file's own: sets vm_ops, or refuses */
		err = file->f_op->mmap(file, vma);
		if (err) {
			list_del(&vma->vm_list);
			mm->map_count--;
			fput(vma->vm_file);
			kfree(vma);
			goto out;
		}
		vma_link_file(vma);
	}
out:
	if (shm)
		fput(shm);              /* the VMA holds it, or nothing does */
	return err ? err : (long)addr;
}

static long __sys_mmap(unsigned long addr, unsigned long len, unsigned long prot,
		       unsigned long flags, unsigned long fd, unsigned long off)
{
	struct file *file = NULL;
	long ret;

	if (!(flags & MAP_ANONYMOUS)) {
		file = fget((unsigned int)fd);
		if (!file)
			return -EBADF;
	}
	ret = do_mmap(file, addr, len, prot, flags, off);
	if (file)
		fput(file);
	return ret;
}

/* The calls that change the VMA list, each under the mmap_lock: the
 * other threads of the process fault and map on the same mm meanwhile. */
long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot,
	      unsigned long flags, unsigned long fd, unsigned long off)
{
	long ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&current->mm->mmap_lock);
	ret = __sys_mmap(addr, len, prot, flags, fd, off);
	mutex_unlock(&current->mm->mmap_lock);
	return ret;
}

long sys_munmap(unsigned long addr, size_t len)
{
	long ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&current->mm->mmap_lock);
	ret = do_munmap(current->mm, addr, len);
	mutex_unlock(&current->mm->mmap_lock);
	return ret;
}

/*
 * New rights for one PTE of vma.  A page-cache page keeps its mark and
 * its accessed and dirty bits (the dirty bit is a shared mapping's write
 * the page has not heard of); it stays read-only in a private mapping
 * (copy-on-write) and in a tracked shared one unless it was writable
 * already (its first write must reach page_mkwrite).
 */
static void protect_user_pte(pte_t *pte, unsigned long va, void *arg)
{
	struct vm_area_struct *vma = arg;
	pte_t old = *pte, val = (old & PTE_ADDR_MASK) | vm_page_prot(vma->vm_flags);

	if (old & _PAGE_FILEPG) {
		val |= old & (_PAGE_FILEPG | _PAGE_ACCESSED | _PAGE_DIRTY);
		if (!(vma->vm_flags & VM_SHARED) ||
		    (vma_dirty_tracked(vma) && !(old & _PAGE_RW)))
			val &= ~_PAGE_RW;
	}
	WRITE_ONCE(*pte, val);
	invlpg(va);
}

/*
 * mprotect: new rights for [start, start + len), every page of which must
 * be mapped (else -ENOMEM, as Linux).  A C library uses it to make its
 * relocated data read-only after start-up (glibc's RELRO).  The VMAs at
 * the two ends are split where the range cuts them; the pages already
 * present get the new rights in their PTEs, the others at their fault.
 */
static long __sys_mprotect(unsigned long start, size_t len, unsigned long prot)
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
	vm_flags = prot_to_vm_flags(prot);
	for (addr = start; addr < end; addr = vma->vm_end) { /* all mapped? */
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start > addr)
			return -ENOMEM;
		/* a shared mapping of a file not open for writing, or the
		 * vDSO's data page, never becomes writable (Linux: no
		 * VM_MAYWRITE) */
		if ((vm_flags & VM_WRITE) && !vma_is_anonymous(vma) &&
		    !(vma->vm_flags & VM_MAYWRITE))
			return -EACCES;
	}
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = find_vma(mm, addr);
		if (vma->vm_start < addr && split_vma(mm, vma, addr))
			return -ENOMEM;
		vma = find_vma(mm, addr);
		if (vma->vm_end > end && split_vma(mm, vma, end))
			return -ENOMEM;
		vma->vm_flags = (vma->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vm_flags;
		spin_lock(&mm->page_table_lock); /* a reader tests the PTE's rights */
		walk_user_ptes(mm_pgd(mm), vma->vm_start, vma->vm_end, protect_user_pte, vma);
		spin_unlock(&mm->page_table_lock);
	}
	/* another thread's CPU may still hold the old rights */
	if (READ_ONCE(mm->threaded))
		on_each_cpu(flush_user_tlb_local, NULL, true);
	return 0;
}

long sys_mprotect(unsigned long start, size_t len, unsigned long prot)
{
	long ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&current->mm->mmap_lock);
	ret = __sys_mprotect(start, len, prot);
	mutex_unlock(&current->mm->mmap_lock);
	return ret;
}

/*
 * madvise: advice only.  MADV_DONTNEED frees the pages -- anonymous
 * memory reads back as zeroes, which a libc's malloc relies on; a file
 * mapping reads the file again (a shared one's writes went to the page
 * cache first, a private one's copies are gone), as Linux's.
 * MADV_WILLNEED on a file mapping starts reading its pages into the
 * cache (Linux's madvise_willneed: readahead, no waiting).  The rest of
 * the advice Linux 6.1 knows (madvise_behavior_valid: 0-4 and 8-25) is
 * accepted and changes nothing, as Linux may; any other is EINVAL.
 */
static bool madvise_behavior_valid(int behavior)
{
	return (behavior >= 0 && behavior <= MADV_DONTNEED) || (behavior >= 8 && behavior <= 25);
}

static long __sys_madvise(unsigned long start, size_t len, int behavior)
{
	struct vm_area_struct *vma;
	unsigned long end;

	if (!current->mm || !madvise_behavior_valid(behavior) || (start & ~PAGE_MASK))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (len > STACK_TOP || start > STACK_TOP - len)
		return -ENOMEM;
	end = start + len;
	if (behavior == MADV_DONTNEED)
		zap_user_range(current->mm, start, end);
	if (behavior == MADV_WILLNEED) {
		list_for_each_entry(vma, &current->mm->mmap, vm_list) {
			unsigned long s = max(start, vma->vm_start), e = min(end, vma->vm_end);

			if (!vma->vm_file || s >= e)
				continue;
			force_page_cache_readahead(vma->vm_file->f_mapping,
						   vma->vm_pgoff + ((s - vma->vm_start) >> PAGE_SHIFT),
						   (e - s) >> PAGE_SHIFT);
		}
	}
	return 0;
}

long sys_madvise(unsigned long start, size_t len, int behavior)
{
	long ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&current->mm->mmap_lock);
	ret = __sys_madvise(start, len, behavior);
	mutex_unlock(&current->mm->mmap_lock);
	return ret;
}

/* Hand a shared mapping's dirty PTE bits to the page cache (msync). */
static void msync_pte(pte_t *pte, unsigned long va, void *arg)
{
	pte_t old = *pte;

	(void)arg;
	if ((old & (_PAGE_FILEPG | _PAGE_DIRTY)) != (_PAGE_FILEPG | _PAGE_DIRTY))
		return;
	WRITE_ONCE(*pte, old & ~_PAGE_DIRTY);
	invlpg(va);             /* the next write sets the bit again */
	set_page_dirty(pte_page(old));
}

/*
 * msync: the writes made through [start, start + len) reach the page
 * cache (the PTEs' dirty bits become the pages'), and with MS_SYNC the
 * disk: the file is written and waited for, as fsync (Linux's msync
 * calls vfs_fsync_range for each shared file VMA).  MS_ASYNC leaves it
 * to the flusher.  -ENOMEM if part of the range is not mapped (after
 * doing the rest), as Linux.
 */
long sys_msync(unsigned long start, size_t len, int flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long end, addr;
	bool unmapped = false;
	int err = 0;

	if (!mm || (start & ~PAGE_MASK) || (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (len > STACK_TOP || start > STACK_TOP - len)
		return -ENOMEM;
	end = start + len;
	/* the VMAs under the mmap_lock; the fsync (which may wait on locks
	 * a writer holds across a fault) without it, on a file reference */
	for (addr = start; addr < end;) {
		struct file *sync = NULL;

		mutex_lock(&mm->mmap_lock);
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end) {
			mutex_unlock(&mm->mmap_lock);
			unmapped = true;
			break;
		}
		if (vma->vm_start > addr)
			unmapped = true;
		if (vma_dirty_tracked(vma)) {
			spin_lock(&mm->page_table_lock);
			walk_user_ptes(mm_pgd(mm), max(addr, vma->vm_start), min(end, vma->vm_end),
				       msync_pte, NULL);
			spin_unlock(&mm->page_table_lock);
			if (flags & MS_SYNC)
				sync = get_file(vma->vm_file);
		}
		addr = vma->vm_end;
		mutex_unlock(&mm->mmap_lock);
		if (sync) {
			int e = vfs_fsync(sync, 1);

			fput(sync);
			if (!err)
				err = e;
		}
	}
	return err ? err : unmapped ? -ENOMEM : 0;
}

/*
 * brk: move the end of the heap.  As Linux, the result is the new break
 * on success and the old one on failure (libc compares); brk(0) asks
 * where it is.  The heap is one VMA, [start_brk, PAGE_ALIGN(brk)).
 */
static long __sys_brk(unsigned long brk)
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

long sys_brk(unsigned long brk)
{
	long ret;

	if (!current->mm)
		return -EINVAL;
	mutex_lock(&current->mm->mmap_lock);
	ret = __sys_brk(brk);
	mutex_unlock(&current->mm->mmap_lock);
	return ret;
}
