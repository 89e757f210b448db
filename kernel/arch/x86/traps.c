// SPDX-License-Identifier: MIT
/*
 * traps.c - the IDT and what happens on a CPU exception.
 *
 * Vectors 0..31 are CPU exceptions, 32..255 external interrupts
 * (do_irq(), kernel/arch/x86/irq.c).  A kernel-mode exception is always a
 * bug: die() prints what happened, the registers and a symbolised
 * backtrace, and panics -- under the test harness QEMU exits with the
 * panic status, so the scenario fails instead of hanging.
 *
 * On the way out of an interrupt, a task whose time slice is over
 * (need_resched()) is preempted here: irq_exit_preempt() calls schedule()
 * on the interrupted task's own stack, and the iretq at the end of
 * entry.S happens when the task is next chosen to run.
 */
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/compiler.h>
#include <spindle/ksyms.h>
#include <spindle/sched.h>
#include <spindle/sched_debug.h>
#include <spindle/smp.h>
#include <asm/traps.h>
#include <asm/desc.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/pgtable.h>
#include <asm/extable.h>
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/signal.h>
#include <spindle/uaccess.h>
#include <spindle/errno.h>

struct idt_entry {
	u16 offset_low;
	u16 selector;
	u8  ist;                /* interrupt stack table index, 0 = none */
	u8  type_attr;          /* present, DPL, type */
	u16 offset_mid;
	u32 offset_high;
	u32 zero;
} __packed;
BUILD_BUG_ON(sizeof(struct idt_entry) != 16);

#define IDT_INTERRUPT_GATE 0x8e /* present, DPL 0, 64-bit interrupt gate */

static struct idt_entry idt[256] __aligned(16);
extern const u64 interrupt_stubs[256];

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS",
	"segment not present", "stack-segment fault", "general protection fault",
	"page fault", "reserved (15)", "x87 floating-point error",
	"alignment check", "machine check", "SIMD floating-point error",
	"virtualization exception", "control protection", "reserved (22)",
	"reserved (23)", "reserved (24)", "reserved (25)", "reserved (26)",
	"reserved (27)", "hypervisor injection", "VMM communication",
	"security exception", "reserved (31)",
};

static void set_gate(int vec, u64 handler, int ist)
{
	struct idt_entry *e = &idt[vec];

	e->offset_low = handler & 0xffff;
	e->selector = GDT_KERNEL_CS;
	e->ist = ist;
	e->type_attr = IDT_INTERRUPT_GATE;
	e->offset_mid = (handler >> 16) & 0xffff;
	e->offset_high = handler >> 32;
	e->zero = 0;
}

/* Point this CPU's IDTR at the one IDT every CPU shares. */
void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed p = { sizeof(idt) - 1, (u64)idt };

	__asm__ volatile("lidt %0" ::"m"(p));
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, interrupt_stubs[v],
			 v == X86_TRAP_DF ? IST_DOUBLE_FAULT : v == X86_TRAP_NMI ? IST_NMI : 0);
	idt_load();
}

void qemu_exit(int code)
{
	/* isa-debug-exit at 0xf4; without it, just stop. */
	cli();
	outl(0xf4, (u32)code);
	for (;;)
		hlt();
}

void show_regs(const struct pt_regs *r)
{
	char sym[128];

	ksym_snprint(sym, sizeof(sym), r->rip);
	printk(KERN_EMERG "RIP: %04llx:%016llx %s\n", (unsigned long long)r->cs,
	       (unsigned long long)r->rip, sym);
	printk(KERN_EMERG "RSP: %04llx:%016llx EFLAGS: %08llx\n",
	       (unsigned long long)r->ss, (unsigned long long)r->rsp,
	       (unsigned long long)r->rflags);
	printk(KERN_EMERG "RAX: %016llx RBX: %016llx RCX: %016llx\n",
	       (unsigned long long)r->rax, (unsigned long long)r->rbx, (unsigned long long)r->rcx);
	printk(KERN_EMERG "RDX: %016llx RSI: %016llx RDI: %016llx\n",
	       (unsigned long long)r->rdx, (unsigned long long)r->rsi, (unsigned long long)r->rdi);
	printk(KERN_EMERG "RBP: %016llx R08: %016llx R09: %016llx\n",
	       (unsigned long long)r->rbp, (unsigned long long)r->r8, (unsigned long long)r->r9);
	printk(KERN_EMERG "R10: %016llx R11: %016llx R12: %016llx\n",
	       (unsigned long long)r->r10, (unsigned long long)r->r11, (unsigned long long)r->r12);
	printk(KERN_EMERG "R13: %016llx R14: %016llx R15: %016llx\n",
	       (unsigned long long)r->r13, (unsigned long long)r->r14, (unsigned long long)r->r15);
	printk(KERN_EMERG "CR2: %016lx CR3: %016lx CR0: %08lx CR4: %08lx\n",
	       read_cr2(), read_cr3(), read_cr0(), read_cr4());
}

static int die_nesting;

void die(const char *what, struct pt_regs *regs)
{
	char sym[128];

	cli();
	if (die_nesting++) {
		/* A fault while reporting a fault: report nothing more. */
		printk(KERN_EMERG "PANIC: recursive fault while reporting one\n");
		qemu_exit(QEMU_EXIT_PANIC);
	}
	ksym_snprint(sym, sizeof(sym), regs->rip);
	/* Running off a stack hits its guard page; the page fault cannot push
	 * its frame there either, so it arrives as a double fault on the
	 * separate IST stack (asm/desc.h). */
	if (kstack_guard_hit(regs->rsp) ||
	    (regs->vector == X86_TRAP_PF && kstack_guard_hit(read_cr2())))
		printk(KERN_EMERG "PANIC: kernel stack overflow in %s, task %s (rsp %#llx)\n",
		       sym, current_comm(), (unsigned long long)regs->rsp);
	printk(KERN_EMERG "PANIC: %s (vector %llu, error code %#llx) in %s, task %s\n",
	       what, (unsigned long long)regs->vector,
	       (unsigned long long)regs->error_code, sym, current_comm());
	if (regs->vector == X86_TRAP_PF) {
		unsigned long ec = regs->error_code;

		printk(KERN_EMERG "BUG: unable to handle page fault for address 0x%016lx: %s %s in %s mode\n",
		       read_cr2(), ec & PF_PROT ? "protection violation," : "page not present,",
		       ec & PF_INSTR ? "instruction fetch" : ec & PF_WRITE ? "write" : "read",
		       ec & PF_USER ? "user" : "kernel");
	}
	show_regs(regs);
	dump_backtrace(regs->rip, regs->rbp);
	printk(KERN_EMERG "---[ end Kernel panic ]---\n");
	qemu_exit(QEMU_EXIT_PANIC);
}

/*
 * A page fault.
 *
 * From user mode: the process touched an address.  Inside a VMA, the page
 * may just not be there yet (demand-zero: the heap, the stack, mmap);
 * handle_mm_fault() maps it and the instruction runs again.  Outside
 * every VMA, or against its rights (a write to text, a jump into data),
 * the process gets SIGSEGV -- and the kernel says so, in Linux's words.
 *
 * From kernel mode it is a bug -- unless it happened in one of the
 * user-copy routines (uaccess.c), which list their instructions in the
 * exception-fixup table.  Then the user address is treated as the
 * process's own access would be (a heap page may need faulting in), and
 * only if that fails does the copy resume at its fixup and return the
 * bytes it could not copy.
 */
static void do_page_fault(struct pt_regs *regs)
{
	unsigned long addr = read_cr2(), ec = regs->error_code;
	struct mm_struct *mm = current->mm;
	int err;

	if (user_mode(regs)) {
		/* a file mapping's fault may read the disk and sleep: with
		 * interrupts on, as the process had them (Linux's
		 * do_user_addr_fault); off again for the way out */
		local_irq_enable();
		err = handle_mm_fault(mm, addr, ec & PF_WRITE, ec & PF_INSTR);
		local_irq_disable();
		if (err == 0)
			return;
		if (err == -EIO) {
			/* the file has no page there (past its end), or its
			 * read failed: SIGBUS, as Linux */
			printk_ratelimited(KERN_INFO "%s[%d]: bus error at %lx ip %016llx (file mapping)\n",
					   current->comm, current->pid, addr,
					   (unsigned long long)regs->rip);
			force_sig_fault(SIGBUS, BUS_ADRERR, addr);
			return;
		}
		/* rate-limited: a crashing loop must not flood the console */
		printk_ratelimited(KERN_INFO "%s[%d]: segfault at %lx ip %016llx sp %016llx error %lx in %s[%d]\n",
		       current->comm, current->pid, addr, (unsigned long long)regs->rip,
		       (unsigned long long)regs->rsp, ec, current->comm, current->pid);
		force_sig(SIGSEGV);
		return;
	}
	if (addr < USER_SPACE_END && mm && search_exception_tables(regs->rip)) {
		/* a user copy: its file page may need reading, if the
		 * copy's caller could sleep (interrupts were on) */
		if (regs->rflags & X86_EFLAGS_IF)
			local_irq_enable();
		err = handle_mm_fault(mm, addr, ec & PF_WRITE, false);
		local_irq_disable();
		if (err == 0)
			return;
	}
	if (fixup_exception(regs))
		return;
	die(exception_names[X86_TRAP_PF], regs);
}

/*
 * x87 (#MF, vector 16) and SIMD (#XM, vector 19) errors: which exception
 * it was, as Linux's fpu__exception_code().  The user's FPU state is still
 * in the CPU (the kernel does not use it), so read the status and control
 * words -- or MXCSR -- straight from there: an error that is raised and
 * not masked is the one.  0: none (a spurious #MF), no signal.
 */
static int math_error_code(unsigned long vector)
{
	unsigned int err;

	if (vector == X86_TRAP_MF) {
		u16 swd, cwd;

		__asm__ volatile("fnstsw %0; fnstcw %1" : "=m"(swd), "=m"(cwd));
		err = swd & ~cwd;
	} else {
		u32 mxcsr;

		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		err = mxcsr & ~(mxcsr >> 7);    /* flags 0..5, masks 7..12 */
	}
	if (err & 0x001)
		return FPE_FLTINV;              /* invalid operation (or stack fault) */
	if (err & 0x004)
		return FPE_FLTDIV;
	if (err & 0x008)
		return FPE_FLTOVF;
	if (err & 0x012)
		return FPE_FLTUND;              /* underflow, or a denormal operand */
	if (err & 0x020)
		return FPE_FLTRES;
	return 0;
}

/* The signal a user-mode exception sends (as Linux's traps.c), or 0 for
 * the ones that can only mean a broken machine or kernel. */
static int user_trap_signal(unsigned long vector)
{
	switch (vector) {
	case X86_TRAP_DE: case X86_TRAP_MF: case X86_TRAP_XF:
		return SIGFPE;
	case X86_TRAP_DB: case X86_TRAP_BP:
		return SIGTRAP;
	case X86_TRAP_UD:
		return SIGILL;
	case 4 /* overflow */: case 5 /* bound */: case 7 /* no FPU */:
	case X86_TRAP_GP:
		return SIGSEGV;
	case 10 /* TSS */: case 11 /* segment */: case 12 /* stack segment */:
	case 17 /* alignment */:
		return SIGBUS;
	default:
		return 0;
	}
}

/*
 * An NMI (from nmi_entry in entry.S, on its own stack, whatever the CPU
 * was doing -- even with interrupts off).  Spindle sends one only to have
 * a stuck CPU print its backtrace (kernel/watchdog.c); it returns straight
 * to the interrupted code, which may not be a place to deliver signals or
 * to switch tasks.
 */
void do_nmi(struct pt_regs *regs)
{
	if (!watchdog_nmi(regs))
		printk(KERN_EMERG "Uhhuh. NMI received for unknown reason on CPU %u.\n",
		       smp_processor_id());
}

void x86_handle_interrupt(struct pt_regs *regs)
{
	int sig;

	if (regs->vector >= FIRST_EXTERNAL_VECTOR) {
		do_irq(regs);
		irq_exit_preempt(regs->rflags & X86_EFLAGS_IF);
	} else if (regs->vector == X86_TRAP_PF) {
		do_page_fault(regs);
	} else if (user_mode(regs) && (regs->vector == X86_TRAP_MF || regs->vector == X86_TRAP_XF)) {
		int code = math_error_code(regs->vector);

		if (code)
			force_sig_fault(SIGFPE, code, regs->rip);
	} else if (user_mode(regs) && (sig = user_trap_signal(regs->vector))) {
		printk_ratelimited(KERN_INFO "traps: %s[%d] %s ip:%llx sp:%llx error:%llx\n",
				   current->comm, current->pid, exception_names[regs->vector],
				   (unsigned long long)regs->rip, (unsigned long long)regs->rsp,
				   (unsigned long long)regs->error_code);
		if (regs->vector == X86_TRAP_DE)
			force_sig_fault(sig, FPE_INTDIV, regs->rip);
		else
			force_sig(sig);
	} else if (regs->vector == X86_TRAP_GP && !user_mode(regs) && fixup_exception(regs)) {
		/* a non-canonical user pointer raises #GP, not #PF: same fixups */
	} else {
		die(exception_names[regs->vector], regs);
	}
	/* On the way back to a process: signals, rescheduling. */
	if (user_mode(regs))
		exit_to_user_mode(regs);
}

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	unsigned long rbp;

	cli();
	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "PANIC: %s (task %s)\n", msg, current_comm());
	__asm__ volatile("movq %%rbp, %0" : "=r"(rbp));
	dump_backtrace((unsigned long)__builtin_return_address(0), *(unsigned long *)rbp);
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", msg);
	qemu_exit(QEMU_EXIT_PANIC);
}
