/* SPDX-License-Identifier: MIT */
/*
 * mm_types.h - a process's address space: struct mm_struct and its VMAs.
 *
 * The lower half of the 48-bit address space belongs to the process:
 *
 *   0x0000000000400000   program text and data (the ELF's PT_LOAD segments)
 *   ...                  the brk heap, from the end of the data upwards
 *   ...                  anonymous mmap areas, handed out top-down from
 *                        mmap_base (below the stack and its guard gap)
 *   STACK_TOP - 8 MiB    the stack, 8 MiB, growing down from STACK_TOP
 *   0x00007ffffffff000   STACK_TOP (one unmapped page below the end)
 *
 * Each range the process may touch is a VMA (struct vm_area_struct, as in
 * Linux): start, end, permissions.  The page tables hold only the pages
 * actually in memory; a fault in a VMA whose page is absent is answered
 * by allocating a zeroed page (demand-zero: heap, stack, mmap, bss), or
 * in a VMA with a file behind it by the file's page from the page cache
 * (vm_ops->fault; docs/memory.md, "File mappings"); a fault outside
 * every VMA -- or against its permissions -- is SIGSEGV.
 * The kernel half of every process's PML4 points at the kernel's own
 * tables, so the kernel is mapped (supervisor-only) in every process.
 */
#ifndef SPINDLE_MM_TYPES_H
#define SPINDLE_MM_TYPES_H

#include <spindle/types.h>
#include <spindle/list.h>
#include <spindle/mm.h>
#include <spindle/atomic.h>
#include <spindle/spinlock.h>
#include <spindle/mutex.h>

#define PAGE_ALIGN(x)       ALIGN((unsigned long)(x), PAGE_SIZE)

#define USER_TEXT_START     0x400000ul
#define STACK_TOP           0x00007ffffffff000ul
#define STACK_SIZE          (8ul << 20)     /* as Linux's default ulimit -s */
#define STACK_GUARD_GAP     (1ul << 20)     /* never mapped below the stack */
#define MMAP_BASE           (STACK_TOP - STACK_SIZE - STACK_GUARD_GAP)

/* vm_flags: what the process may do with the pages */
#define VM_READ             0x1ul
#define VM_WRITE            0x2ul
#define VM_EXEC             0x4ul
#define VM_SHARED           0x8ul           /* MAP_SHARED: writes reach the file */
#define VM_MAYWRITE         0x20ul          /* mprotect may add VM_WRITE (fd open for writing) */
#define VM_STACK            0x100ul         /* the stack (for /proc/<pid>/maps) */
#define VM_HEAP             0x200ul         /* the brk heap */

struct kioctx;
struct file;
struct page;
struct vm_area_struct;

/*
 * A fault in a VMA that has a file behind it (Linux's struct vm_fault):
 * what the fault handler is asked, and where it answers.
 */
struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;          /* the faulting address, page-aligned */
	pgoff_t pgoff;                  /* its page in the file: vm_pgoff + offset */
	bool write;
	bool may_sleep;                 /* false: only a page already there (an
					 * atomic user copy); else VM_FAULT_RETRY */
	struct page *page;              /* out: the page, with a reference */
	bool locked;                    /* out: ... and locked (the caller unlocks) */
};

/* vm_ops->fault's answers (Linux's VM_FAULT_* bits, as plain values) */
#define VM_FAULT_OK     0
#define VM_FAULT_SIGBUS 1               /* past EOF, or the read failed */
#define VM_FAULT_OOM    2
#define VM_FAULT_RETRY  3               /* would sleep and may not: the access fails */

/*
 * What a mapping of a file does on a fault (Linux's vm_operations_struct),
 * set by the file's f_op->mmap.  A page cache file uses filemap_fault
 * (fs/filemap.c); any other kernel object that wants to be mapped -- a
 * ring shared with user space -- gives its own fault that hands out its
 * own pages.
 *   fault          find the page for vmf->pgoff, referenced, in vmf->page.
 *                  May sleep when vmf->may_sleep.
 *   page_mkwrite   a MAP_SHARED page is about to become writable: the
 *                  page cache dirties it here.  NULL: shared pages are
 *                  mapped writable at once, nothing tracked.
 */
struct vm_operations_struct {
	int (*fault)(struct vm_fault *vmf);
	int (*page_mkwrite)(struct vm_fault *vmf);
};

struct vm_area_struct {
	unsigned long vm_start;         /* first byte */
	unsigned long vm_end;           /* first byte after */
	unsigned long vm_flags;
	struct list_head vm_list;       /* mm->mmap, sorted by address */
	struct mm_struct *vm_mm;        /* the address space it belongs to */
	/* A mapping of a file (NULL for anonymous memory): the file,
	 * referenced; vm_start maps its page vm_pgoff. */
	struct file *vm_file;
	pgoff_t vm_pgoff;
	const struct vm_operations_struct *vm_ops;
	void *vm_private_data;          /* the mapped object's own */
	/* on the file's mapping->i_mmap (under i_mmap_lock), so that
	 * truncation finds every PTE that maps a page it cuts off */
	struct list_head shared;
};

/* words of mm->saved_auxv: the 19 pairs exec writes (kernel/exec.c,
 * NR_AUXV), AT_NULL's among them, and one spare pair */
#define AT_VECTOR_SIZE  (2 * 20)

struct mm_struct {
	u64 *pgd;                       /* the PML4 (kernel virtual address) */
	/* its users (Linux's mm_users): each task running on it -- two
	 * while a vfork child borrows its parent's -- and each reader that
	 * holds it (get_task_mm), on any CPU.  The last mmput() frees it. */
	atomic_t mm_users;
	/* Linux's page_table_lock: a user PTE is set or cleared, and the
	 * page it held freed, under it; a reader on another CPU
	 * (access_remote_vm) looks the PTE up and takes a reference on the
	 * page under it.  Truncation clears a file mapping's PTEs under it
	 * from any CPU (unmap_mapping_range); two threads faulting on one
	 * page test the PTE again under it, the first one's page wins.  Not
	 * irq-safe, so never from an interrupt on a CPU where a task may
	 * hold it (the smp-mm test reads from an idle CPU's function call
	 * IPI). */
	spinlock_t page_table_lock;
	/* Linux's mmap_lock (a mutex here, an rw_semaphore there): the VMA
	 * list changes under it (mmap, munmap, mprotect, brk, madvise), and
	 * a fault looks its VMA up under it, since the threads of a process
	 * change and fault on one mm from several CPUs.  Before
	 * i_mmap_lock and page_table_lock. */
	struct mutex mmap_lock;
	/* some task shares this mm as a thread (clone CLONE_VM without
	 * CLONE_VFORK): set once, never cleared.  A fault that may not
	 * sleep then fails rather than walk VMAs without mmap_lock. */
	bool threaded;
	struct list_head mmap;          /* the VMAs, sorted, never overlapping */
	int map_count;
	unsigned long start_code, end_code;
	unsigned long start_brk, brk;   /* heap: [start_brk, brk) */
	unsigned long start_stack;      /* the initial stack pointer */
	/* where exec put the argument strings: argv[0]'s first byte to one
	 * past the last NUL (/proc/<pid>/cmdline reads them from here) */
	unsigned long arg_start, arg_end;
	/* the auxiliary vector exec gave the program, (type, value) pairs
	 * ending with AT_NULL: /proc/<pid>/auxv shows it from here, so
	 * what the program does to its stack does not change it (Linux's
	 * saved_auxv).  Copied by fork, as the rest of the mm. */
	unsigned long saved_auxv[AT_VECTOR_SIZE];
	unsigned long mmap_base;        /* mmap areas are found below this */
	unsigned long nr_pages;         /* pages in memory (resident) */
	/* its AIO contexts (fs/aio.c), singly linked; NULL: none.  Not
	 * copied by fork: a child starts with none, as in Linux. */
	struct kioctx *ioctx_list;
	/* the program file it runs (Linux's mm->exe_file), which exec of
	 * "/proc/self/exe" runs again: how busybox starts its own applets */
	struct file *exe_file;
};

/* kernel/mm/mmap.c.  All may sleep unless noted. */
struct mm_struct *mm_alloc(void);       /* one user, the caller */
/* One more user of mm (vfork's child).  Does not sleep; any CPU. */
void mmget(struct mm_struct *mm);
/* Drop a user; the last one frees the address space. */
void mmput(struct mm_struct *mm);
struct task_struct;
/* t's mm with a user taken for the caller, or NULL (a kernel thread, or
 * t has exited): the address space stays whole until the caller's
 * mmput(), whatever t does meanwhile, on whatever CPU.  Reads t->mm
 * under task_lock(t), which exec and exit hold to change it.  Does not
 * sleep; not from an interrupt. */
struct mm_struct *get_task_mm(struct task_struct *t);
/*
 * Copy up to len bytes at addr of mm into buf (Linux's access_remote_vm,
 * reading): page by page through mm's page tables.  Each PTE is looked up
 * and its page given a reference (get_page()) under mm->page_table_lock,
 * and copied after the lock is dropped: the owner, running on another
 * CPU, may unmap the page meanwhile, but cannot free it under the copy.
 * Stops at the first page not present (nothing is faulted in for a
 * reader); returns the bytes copied.  The caller holds a user of mm.
 */
size_t access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, size_t len);
/* Test seam (tests/kernel/smp_mm_test.c): called, when set, between the
 * lookup and the copy of each page -- where the owner may unmap it.  NULL
 * except inside that test. */
extern void (*access_remote_vm_hook)(struct mm_struct *mm, unsigned long addr);
struct mm_struct *dup_mm(struct mm_struct *old);
/* The first VMA with vm_end > addr (it may start above addr), or NULL. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* Add [start, end) with flags; -EINVAL if it overlaps a VMA, -ENOMEM. */
/* (the file-mapping calls are below handle_mm_fault) */
int mm_add_vma(struct mm_struct *mm, unsigned long start, unsigned long end,
	       unsigned long flags);
/* Remove [start, end) from the VMAs and free its pages. */
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
/* mmap(2) of a file the caller holds (NULL: anonymous), under
 * current->mm->mmap_lock: the address, or an errno (System V shmat). */
struct file;
long do_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, unsigned long off);
/* The page for addr in mm (allocated and zeroed if absent, when allowed
 * by a VMA), as a kernel pointer through the direct map; NULL if addr is
 * in no VMA or memory is short.  For exec, which fills a new mm. */
void *mm_get_page(struct mm_struct *mm, unsigned long addr);

/*
 * A page fault at addr in mm.  write/exec/user: what the access was.
 * Returns 0 when the page is now mapped (the instruction retries), or
 * -EFAULT (no VMA, or the VMA forbids the access), -ENOMEM, -EIO (a
 * file mapping's page past EOF or unreadable: SIGBUS).
 * A file mapping's fault sleeps (it reads the file) when interrupts are
 * on and the caller is not atomic; otherwise only a cached page serves.
 */
int handle_mm_fault(struct mm_struct *mm, unsigned long addr, bool write, bool exec);

/*
 * File mappings.  A VMA with a vm_file holds a reference on the file, is
 * on the file's mapping->i_mmap, and its PTEs hold a reference on each
 * page they map (so reclaim, which takes only pages nobody but the cache
 * holds, leaves a mapped page alone).  handle_mm_fault() returns -EIO for
 * an access the file cannot serve (past EOF, a failed read): SIGBUS.
 *
 * generic_file_mmap (include/spindle/pagemap.h): a file system's
 *   f_op->mmap for a page cache file.
 * unmap_mapping_range: clear every PTE, in every process, that maps the
 *   file's pages from index on (truncation: the next access past the new
 *   end faults and gets SIGBUS).  May sleep (flushes other CPUs' TLBs).
 */
/* fault_trace=1 on the command line: each file-mapping fault prints its
 * steps ("fault_trace: ..."), beside blktrace='s events (docs/memory.md) */
extern bool mm_fault_trace;
void unmap_mapping_range(struct address_space *mapping, pgoff_t index);

#endif /* SPINDLE_MM_TYPES_H */
