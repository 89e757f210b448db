// SPDX-License-Identifier: MIT
/*
 * The GDT and TSS, set up once at boot (replacing boot.S's minimal GDT).
 *
 * Layout (asm/desc.h): null, kernel code, kernel data, user data, user
 * code (the order SYSRET expects), then the 16-byte TSS descriptor.
 */
#include <spindle/compiler.h>
#include <spindle/string.h>
#include <asm/desc.h>

struct tss {
	u32 reserved0;
	u64 rsp[3];             /* stack for entry from ring 0..2 */
	u64 reserved1;
	u64 ist[7];             /* interrupt stack table: ist[0] is IST1 */
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;
BUILD_BUG_ON(sizeof(struct tss) != 104);

#define DF_STACK_SIZE 8192

static struct tss tss;
static u8 double_fault_stack[DF_STACK_SIZE] __aligned(16);

static u64 gdt[7] __aligned(16) = {
	0,
	0x00af9a000000ffff,     /* kernel code: present, DPL0, exec/read, L */
	0x00cf92000000ffff,     /* kernel data: present, DPL0, read/write */
	0x00cff2000000ffff,     /* user data: DPL3 */
	0x00affa000000ffff,     /* user code: DPL3, L */
	0, 0,                   /* TSS (16 bytes), filled in below */
};

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

/*
 * The SYSCALL instruction does not switch stacks (interrupts do, through
 * tss.rsp0): entry_SYSCALL_64 (entry.S) does it by hand, parking the
 * user's rsp in syscall_user_rsp and loading syscall_kernel_rsp.  Linux
 * keeps these per CPU and reaches them through SWAPGS and %gs; Spindle
 * has one CPU, so two plain variables do -- and nothing can run between
 * the save and the load, since SYSCALL turns interrupts off (SFMASK).
 */
u64 syscall_kernel_rsp;
u64 syscall_user_rsp;

void tss_set_rsp0(u64 rsp0)
{
	tss.rsp[0] = rsp0;
	syscall_kernel_rsp = rsp0;
}

/*
 * Load the GDT and reload every segment register from it (CS through a
 * far return).  Each CPU does this once; only the boot CPU loads the TSS
 * (gdt_init()): a TSS descriptor is marked busy when loaded, and a second
 * CPU's ltr of the same one faults -- each CPU will need a TSS of its own
 * once the others run tasks.
 */
void gdt_load(void)
{
	struct desc_ptr p = { sizeof(gdt) - 1, (u64)gdt };

	__asm__ volatile(
		"lgdt %0\n\t"
		"movw %1, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"pushq %2\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n" /* reload CS */
		"1:" ::"m"(p),
		"i"(GDT_KERNEL_DS), "i"(GDT_KERNEL_CS)
		: "rax", "memory");
}

void gdt_init(void)
{
	u64 base = (u64)&tss, limit = sizeof(tss) - 1;

	tss.ist[IST_DOUBLE_FAULT - 1] = (u64)(double_fault_stack + DF_STACK_SIZE);
	tss.iomap_base = sizeof(tss); /* no I/O permission bitmap */

	/* 64-bit available TSS (type 9), present (SDM vol. 3, fig. 7-4). */
	gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		 (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
		 (((base >> 24) & 0xff) << 56);
	gdt[6] = base >> 32;

	gdt_load();
	__asm__ volatile("ltr %w0" ::"r"((u16)GDT_TSS)
			 : "memory");
}
