// SPDX-License-Identifier: MIT
/*
 * process.c - the per-task CPU state a context switch must carry beyond
 * the kernel registers (switch.S): which page tables are live (CR3), and
 * the user's SSE/x87 registers.
 *
 * CR3: a process's PML4 (mm->pgd), or the kernel's own for a kernel
 * thread.  The kernel half is the same in both, and its pages are
 * global (_PAGE_GLOBAL), so reloading CR3 flushes only user mappings.
 *
 * SSE: user programs compiled by gcc use the XMM registers (memcpy,
 * floating point); the kernel is built without SSE and never touches
 * them.  So the registers in the CPU always belong to the last process
 * that ran in user mode, and are swapped on every switch with fxsave /
 * fxrstor (512 bytes, 16-byte aligned; SDM vol. 1, 10.5).  Linux saves
 * lazily and with xsave; eager fxsave is the simple correct version.
 *
 * FS base: a C library keeps its thread pointer (errno, the stack
 * protector's canary, malloc's arenas: "thread-local storage") at %fs:0,
 * and sets where %fs points with arch_prctl(ARCH_SET_FS) before main().
 * In 64-bit mode that base is a register of its own, MSR_FS_BASE (SDM
 * vol. 3, 3.4.4), which a context switch must carry like CR3: the kernel
 * never uses %fs, so the register always holds the running process's.
 * fork copies it, exec sets it to 0.
 */
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/sched.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/percpu.h>
#include <spindle/irqflags.h>
#include <asm/pgtable.h>
#include <asm/cpu.h>

#define FXSAVE_SIZE     512
#define FX_FCW          0       /* offsets in the fxsave image */
#define FX_MXCSR        24
#define FCW_DEFAULT     0x037f  /* x87: all exceptions masked, 64-bit precision */
#define MXCSR_DEFAULT   0x1f80  /* SSE: all exceptions masked, round to nearest */

static inline void fxsave(void *area)
{
	__asm__ volatile("fxsave64 (%0)" :: "r"(area) : "memory");
}

static inline void fxrstor(const void *area)
{
	__asm__ volatile("fxrstor64 (%0)" :: "r"(area) : "memory");
}

/* What this CPU's MSR_FS_BASE holds now: a wrmsr costs ~100 cycles, and
 * most switches go between tasks with none (kernel threads, Spindle's own
 * programs).  Per CPU, as the register is: a task arriving on CPU 1 must
 * be compared with what CPU 1 loaded last, not CPU 0. */
static DEFINE_PER_CPU(unsigned long, fsbase_loaded);

/* The register and its record on the same CPU: preemption off between
 * them, or a task moved in between would record on the wrong CPU. */
static void load_fsbase(unsigned long base)
{
	preempt_disable();
	wrmsr(MSR_FS_BASE, base);
	this_cpu_write(fsbase_loaded, base);
	preempt_enable();
}

void switch_mm_fpu(struct task_struct *prev, struct task_struct *next)
{
	unsigned long cr3 = next->mm ? __pa(next->mm->pgd) : __pa(kernel_pml4);

	if (prev->fpu_state)
		fxsave(prev->fpu_state);
	if (read_cr3() != cr3)
		write_cr3(cr3);
	if (next->fpu_state)
		fxrstor(next->fpu_state);
	if (next->mm && next->fsbase != this_cpu_read(fsbase_loaded)) {
		/* interrupts are off here: no preempt_disable() needed */
		wrmsr(MSR_FS_BASE, next->fsbase);
		this_cpu_write(fsbase_loaded, next->fsbase);
	}
}

/* exec, or the first process: the new program sets its own. */
void fsbase_reset(struct task_struct *t)
{
	t->fsbase = 0;
	if (t == current)
		load_fsbase(0);
}

/*
 * arch_prctl(2): the FS and GS bases.  Only FS is the libc's (GS is left
 * at 0: Spindle's kernel does not use it either).  A base must be a
 * canonical user address, or the wrmsr would fault in the kernel.
 */
long sys_arch_prctl(int option, unsigned long addr)
{
	switch (option) {
	case ARCH_SET_FS:
		if (addr >= USER_SPACE_END)
			return -EPERM;
		current->fsbase = addr;
		load_fsbase(addr);
		return 0;
	case ARCH_GET_FS:
		return copy_to_user((void __user *)addr, &current->fsbase,
				    sizeof(current->fsbase))
			       ? -EFAULT
			       : 0;
	default:
		return -EINVAL;
	}
}

static int fpu_alloc(struct task_struct *t)
{
	if (!t->fpu_state)
		t->fpu_state = kzalloc(FXSAVE_SIZE, GFP_KERNEL);   /* a 512-byte object: 512-aligned */
	return t->fpu_state ? 0 : -ENOMEM;
}

/* exec: the state a new program starts with, loaded into the CPU now
 * (the task goes straight to user mode, no switch in between). */
int fpu_init_state(struct task_struct *t)
{
	if (fpu_alloc(t))
		return -ENOMEM;
	memset(t->fpu_state, 0, FXSAVE_SIZE);
	*(u16 *)((char *)t->fpu_state + FX_FCW) = FCW_DEFAULT;
	*(u32 *)((char *)t->fpu_state + FX_MXCSR) = MXCSR_DEFAULT;
	if (t == current)
		fxrstor(t->fpu_state);
	return 0;
}

/* fork: the child gets the parent's registers as they are now. */
int fpu_copy_current(struct task_struct *child)
{
	if (fpu_alloc(child))
		return -ENOMEM;
	if (current->fpu_state)
		fxsave(child->fpu_state);
	else
		return fpu_init_state(child);
	return 0;
}

void fpu_free(struct task_struct *t)
{
	unsigned long flags = local_irq_save();
	void *f = t->fpu_state;

	t->fpu_state = NULL;            /* no switch may save into it now */
	local_irq_restore(flags);
	kfree(f);
}

/* For signal frames (kernel/signal.c): the live state to a buffer, and
 * back from one a process may have scribbled on. */
void fpu_save_current(void *area)
{
	fxsave(area);
}

void fpu_restore_current(void *area)
{
	/* A reserved MXCSR bit set makes fxrstor fault in the kernel. */
	*(u32 *)((char *)area + FX_MXCSR) &= 0xffbf;
	fxrstor(area);
}
