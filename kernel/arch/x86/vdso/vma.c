// SPDX-License-Identifier: MIT
/*
 * vma.c - the vDSO, kernel side: its pages, its data page, and their
 * mapping into every program (Linux's arch/x86/entry/vdso/vma.c and
 * Linux's kernel/time/vsyscall.c).
 *
 * What the vDSO is: a small shared object (vclock_gettime.c, vgetcpu.c,
 * linked by vdso.lds into build/.../vdso.so and embedded in the kernel
 * image by vdso-image.S) that exec maps into each process, so that the
 * C library can read the clock in user space.  Two mappings, one above
 * the other, put where the next mmap would go (below ld.so):
 *
 *   [vvar]  1 page, read-only: struct vdso_data (asm/vdso.h), written by
 *           the kernel, read by the vDSO's code
 *   [vdso]  the image's pages, read+exec: the ELF file itself
 *
 * and AT_SYSINFO_EHDR (kernel/exec.c) gives the C library the [vdso]
 * address.  Both are special mappings (mm_types.h): their VMAs have no
 * file, their fault hands out this file's pages with a reference each,
 * fork shares them as it shares a file's pages, munmap and exit drop
 * the references.  The pages themselves are allocated once, at boot,
 * and never freed: their first reference is this file's.
 *
 * The data page: the clock's conversion (the TSC's mult and shift, the
 * cycle count at which CLOCK_MONOTONIC was 0) and the wall-clock offset
 * never change after boot here -- Spindle's clock is not adjusted --
 * so the only field that moves is the coarse clocks' time, at each
 * tick (update_vsyscall).  It is still written under the sequence
 * count, so that a reader on another CPU never sees half a tick's
 * update, and so that a clock that could be set (settimeofday) would
 * only need to write its offset the same way.
 *
 * Boot options (Linux's):
 *   vdso=0         no vDSO: no mapping, no AT_SYSINFO_EHDR; glibc then
 *                  makes every clock call a system call
 *   tsc=unstable   user space may not read the TSC: the vDSO is mapped
 *                  but its clock mode is VDSO_CLOCKMODE_NONE, and each
 *                  call falls back to the system call (on Linux the
 *                  clocksource then leaves the TSC; Spindle has no other
 *                  clock, so the kernel keeps reading it itself)
 *
 * A student may skip this file: nothing on the I/O path depends on it.
 */
#include <spindle/cache.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/spinlock.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/time.h>
#include <spindle/compiler.h>
#include <spindle/barrier.h>
#include <asm/vdso.h>

/* the image, as linked (vdso-image.S): a whole ELF file */
extern const u8 vdso_image_start[], vdso_image_end[];

#define VDSO_MAX_PAGES  4       /* the image is ~2 pages; more is a build error below */

static bool vdso64_enabled = true;
static bool tsc_user_unstable;

static struct page *vdso_pages[VDSO_MAX_PAGES];
static unsigned int vdso_nr_pages;
static struct page *vvar_page;
/* the kernel's view of the data page (the direct map); NULL before
 * init_vdso(), when the tick has nowhere to write yet */
static struct vdso_data *vdso_data;
/*
 * Serialises the writers of vdso_data: the tick's update_vsyscall() (on
 * whichever CPU takes IRQ 0 -- /proc/irq/0/smp_affinity may move it)
 * and init_vdso().  Taken with interrupts off; a leaf: nothing is taken
 * under it.  Readers (user space) take nothing: the sequence count.
 * A line of its own: the tick writes it, and the variables the linker
 * put beside it (cpu_online_mask, nr_cpu_ids) are read by every CPU all
 * the time -- each tick took their line from every other CPU's cache
 * (tools/c2c.py).
 */
static spinlock_t vdso_data_lock ____cacheline_aligned = __SPIN_LOCK_UNLOCKED(vdso_data_lock);

static int __init vdso_setup(const char *val)
{
	vdso64_enabled = !val || *val != '0';
	return 0;
}
__setup("vdso=", vdso_setup);

static int __init tsc_setup(const char *val)
{
	if (val && !strcmp(val, "unstable"))
		tsc_user_unstable = true;
	return 0;
}
__setup("tsc=", tsc_setup);

/*
 * The writer's side of the sequence count (the readers' is in
 * vclock_gettime.c).  x86 does not reorder stores with stores, so the
 * write barriers Linux's smp_wmb() stands for only stop the compiler:
 * the odd count reaches memory before any field, the fields before the
 * even count.  A reader that loaded any new field therefore sees either
 * the odd count or a count changed since its first load, and retries.
 */
static void vdso_write_begin(struct vdso_data *vd)
{
	WRITE_ONCE(vd->seq, vd->seq + 1);
	smp_wmb();      /* the odd count before the fields */
}

static void vdso_write_end(struct vdso_data *vd)
{
	smp_wmb();      /* the fields before the even count */
	WRITE_ONCE(vd->seq, vd->seq + 1);
}

/* the tick (kernel/arch/x86/time.c), interrupts off: the coarse clocks'
 * time is now_ns (Linux's update_vsyscall()) */
void update_vsyscall(u64 now_ns)
{
	struct vdso_data *vd = READ_ONCE(vdso_data);

	if (!vd)
		return;
	spin_lock(&vdso_data_lock);
	vdso_write_begin(vd);
	if (now_ns > vd->coarse_mono_ns)  /* never back, whoever ticked */
		vd->coarse_mono_ns = now_ns;
	vdso_write_end(vd);
	spin_unlock(&vdso_data_lock);
}

/*
 * The coarse clocks (CLOCK_*_COARSE) for the system call: the value the
 * vDSO reads, so that the two never disagree (Linux's
 * ktime_get_coarse(): the time the timekeeper stored at the last tick).
 * One aligned 64-bit load: it needs no sequence count.  Before the page
 * exists, the exact time (no program runs yet to tell the difference).
 */
u64 ktime_get_coarse_ns(void)
{
	struct vdso_data *vd = READ_ONCE(vdso_data);

	return vd ? READ_ONCE(vd->coarse_mono_ns) : ktime_get_ns();
}

static int vdso_fault(struct page **pages, unsigned int nr, struct vm_fault *vmf)
{
	if (vmf->pgoff >= nr)
		return VM_FAULT_SIGBUS;
	get_page(pages[vmf->pgoff]);    /* the PTE's reference */
	vmf->page = pages[vmf->pgoff];
	return VM_FAULT_OK;
}

static int vdso_text_fault(struct vm_fault *vmf)
{
	return vdso_fault(vdso_pages, vdso_nr_pages, vmf);
}

static int vvar_fault(struct vm_fault *vmf)
{
	return vdso_fault(&vvar_page, 1, vmf);
}

static const char *vdso_name(struct vm_area_struct *vma)
{
	(void)vma;
	return "[vdso]";
}

static const char *vvar_name(struct vm_area_struct *vma)
{
	(void)vma;
	return "[vvar]";
}

static const struct vm_operations_struct vdso_text_ops = {
	.fault = vdso_text_fault,
	.name = vdso_name,
};

static const struct vm_operations_struct vvar_ops = {
	.fault = vvar_fault,
	.name = vvar_name,
};

/*
 * exec, on the new mm before any task uses it.  [vdso] may be made
 * writable by mprotect (VM_MAYWRITE, as Linux: a debugger's breakpoint),
 * and a write then copies the page for this process alone (a private
 * mapping); [vvar] never: it is every process's view of one page.
 */
int arch_setup_additional_pages(struct mm_struct *mm)
{
	unsigned long text_len = (unsigned long)vdso_nr_pages * PAGE_SIZE;
	unsigned long addr;
	int err;

	if (!vdso64_enabled || !vdso_nr_pages)
		return 0;
	addr = get_unmapped_area(mm, PAGE_SIZE + text_len);
	if (!addr)
		return -ENOMEM;
	err = install_special_mapping(mm, addr, PAGE_SIZE, VM_READ, &vvar_ops);
	if (!err)
		err = install_special_mapping(mm, addr + PAGE_SIZE, text_len,
					      VM_READ | VM_EXEC | VM_MAYWRITE, &vdso_text_ops);
	if (err)
		return err;
	mm->vdso = addr + PAGE_SIZE;
	return 0;
}

/* The image into pages of its own (the mapping needs whole, referenced
 * pages), and the data page filled in from the calibrated clock. */
static int __init init_vdso(void)
{
	size_t size = vdso_image_end - vdso_image_start;
	struct vdso_data *vd;
	unsigned int i;
	u64 cycle_last;
	u32 mult, shift;
	unsigned long flags;

	BUG_ON(size > VDSO_MAX_PAGES * PAGE_SIZE);
	vvar_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!vvar_page)
		return -ENOMEM;
	for (i = 0; i < DIV_ROUND_UP(size, PAGE_SIZE); i++) {
		size_t off = (size_t)i * PAGE_SIZE, n = min(size - off, (size_t)PAGE_SIZE);

		vdso_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!vdso_pages[i])
			return -ENOMEM; /* vdso_nr_pages 0: exec maps nothing */
		memcpy(page_address(vdso_pages[i]), vdso_image_start + off, n);
	}
	vd = page_address(vvar_page);
	spin_lock_irqsave(&vdso_data_lock, flags);
	vdso_write_begin(vd);
	if (tsc_clock_params(&cycle_last, &mult, &shift) && !tsc_user_unstable) {
		vd->clock_mode = VDSO_CLOCKMODE_TSC;
		vd->cycle_last = cycle_last;
		vd->mult = mult;
		vd->shift = shift;
		vd->mono_base_ns = 0;
	} else {
		vd->clock_mode = VDSO_CLOCKMODE_NONE;
	}
	vd->wall_offset_ns = realtime_offset_ns();
	vd->coarse_mono_ns = ktime_get_ns();
	vdso_write_end(vd);
	WRITE_ONCE(vdso_data, vd);      /* the tick writes from now on */
	spin_unlock_irqrestore(&vdso_data_lock, flags);
	vdso_nr_pages = i;
	pr_info("vdso: %zu bytes in %u pages, clock mode %s%s\n", size, vdso_nr_pages,
		vd->clock_mode == VDSO_CLOCKMODE_TSC ? "tsc" : "none (system calls)",
		vdso64_enabled ? "" : "; not mapped (vdso=0)");
	return 0;
}
core_initcall(init_vdso);
