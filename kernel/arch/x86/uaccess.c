// SPDX-License-Identifier: MIT
/*
 * uaccess.c - copy_to_user() and friends (include/spindle/uaccess.h), the
 * exception-fixup table they rely on, and the CPU protections that keep
 * the kernel and user memory apart (SMEP, SMAP).
 *
 * Where it sits: every system call that takes a pointer (read's buffer,
 * execve's argv, wait4's status) passes it through here.  Above: sys_*.
 * Below: usercopy.S, the only code that touches user memory.
 *
 * Two checks make a bad pointer harmless:
 *   1. access_ok(): the range must lie in the lower half.  Without it a
 *      process could ask read() to write into the kernel.
 *   2. the fixup table: a pointer into the lower half may still point at
 *      nothing.  The copy faults; the page-fault handler first tries to
 *      fault the page in (heap and stack pages are allocated on first
 *      touch, kernel/mm/mmap.c), and only if the address is outside every
 *      mapping does it resume at the copy's fixup, which returns the bytes
 *      left.  The system call then returns -EFAULT.
 *
 * The rule for the rest of the kernel: never dereference a __user pointer.
 * SMAP enforces it on CPUs that have it.
 */
#define pr_fmt(fmt) "x86: " fmt
#include <spindle/uaccess.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <asm/extable.h>
#include <asm/ptrace.h>
#include <asm/cpu.h>

#define CR4_SMEP        (1ul << 20)     /* SDM vol. 3, 2.5: no kernel fetch from user pages */
#define CR4_SMAP        (1ul << 21)     /* no kernel data access to user pages unless AC */
#define CPUID7_EBX_SMEP (1u << 7)
#define CPUID7_EBX_SMAP (1u << 20)
#define CPUID7_EBX_ERMS (1u << 9)       /* fast `rep movsb` (memcpy.S) */

/* Read by usercopy.S and entry.S: is stac/clac available and needed? */
bool x86_smap_enabled;
extern bool x86_erms;             /* memcpy.S */
bool x86_smep_enabled;

extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

unsigned long __copy_user(void *to, const void *from, unsigned long n);
unsigned long __clear_user(void *to, unsigned long n);
long __strncpy_from_user(char *dst, const char *src, long count);

const struct exception_table_entry *search_exception_tables(unsigned long ip)
{
	for (const struct exception_table_entry *e = __start___ex_table;
	     e < __stop___ex_table; e++)
		if (e->insn == ip)
			return e;
	return NULL;
}

bool fixup_exception(struct pt_regs *regs)
{
	const struct exception_table_entry *e = search_exception_tables(regs->rip);

	if (!e)
		return false;
	regs->rip = e->fixup;
	return true;
}

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	if (!access_ok(to, n))
		return n;
	return __copy_user((void *)to, from, n);
}

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	unsigned long left = n;

	if (access_ok(from, n))
		left = __copy_user(to, (const void *)from, n);
	/* As Linux: the part not copied is zeroed, so a caller that ignores
	 * the result never works on stale kernel memory. */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

unsigned long clear_user(void __user *to, unsigned long n)
{
	if (!access_ok(to, n))
		return n;
	return __clear_user((void *)to, n);
}

long strncpy_from_user(char *dst, const char __user *src, long count)
{
	unsigned long a = (unsigned long)src;

	if (count <= 0)
		return 0;
	if (a >= USER_SPACE_END)
		return -EFAULT;
	/* Never read past the end of user space, however large count is;
	 * a string that runs into the end without a NUL faults there. */
	if ((unsigned long)count > USER_SPACE_END - a) {
		long n = __strncpy_from_user(dst, src, USER_SPACE_END - a);

		return n == (long)(USER_SPACE_END - a) ? -EFAULT : n;
	}
	return __strncpy_from_user(dst, src, count);
}

/*
 * Turn on what the CPU offers to separate kernel from user memory:
 *   SMEP: a kernel jump into a user page faults (no "return to user code
 *         with kernel privilege" exploits);
 *   SMAP: a kernel read or write of a user page faults unless the code
 *         says it means it (stac ... clac, only in usercopy.S).
 * QEMU's default TCG CPU (qemu64) has neither; `-cpu max` has both.
 * Also enable SSE for user programs (CR4.OSFXSR: the kernel saves the
 * registers with fxsave, kernel/arch/x86/process.c; the kernel itself is
 * built without SSE).
 */
void uaccess_init(void)
{
	u32 a, b, c, d;

	/* NE: an x87 error is exception 16 (#MF), which becomes SIGFPE;
	 * without it the CPU signals the error on the old FERR# pin, which
	 * nothing listens to, and the program never learns of it. */
	write_cr0((read_cr0() & ~X86_CR0_EM) | X86_CR0_MP | X86_CR0_NE);
	write_cr4(read_cr4() | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT);

	cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 7)
		cpuid(7, 0, &a, &b, &c, &d);
	else
		b = 0;
	if (b & CPUID7_EBX_SMEP) {
		write_cr4(read_cr4() | CR4_SMEP);
		x86_smep_enabled = true;
	}
	if (b & CPUID7_EBX_SMAP) {
		write_cr4(read_cr4() | CR4_SMAP);
		x86_smap_enabled = true;
	}
	x86_erms = b & CPUID7_EBX_ERMS;
	pr_info("SMEP %s, SMAP %s; copies by %s\n",
		x86_smep_enabled ? "enabled" : "not supported by this CPU",
		x86_smap_enabled ? "enabled" : "not supported by this CPU",
		x86_erms ? "rep movsb (ERMS)" : "rep movsq");
}
