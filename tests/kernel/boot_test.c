// SPDX-License-Identifier: MIT
/*
 * Tests of what boot set up: the command line from fw_cfg, the memory map,
 * the direct map, the kernel's page permissions, the symbol table.
 * Suite "fault" crashes on purpose: the harness checks the PANIC report.
 */
#include <spindle/ktest.h>
#include <spindle/init.h>
#include <spindle/string.h>
#include <spindle/fw_cfg.h>
#include <spindle/ksyms.h>
#include <spindle/mm.h>
#include <asm/bootinfo.h>
#include <asm/pgtable.h>

KTEST(boot, fw_cfg_cmdline)
{
	static char fw[1024];
	long n = fw_cfg_read_file("opt/spindle/cmdline", fw, sizeof(fw) - 1);

	if (n < 0)
		KT_SKIP("no opt/spindle/cmdline fw_cfg file");
	KT_ASSERT(n < (long)sizeof(fw));
	fw[n] = '\0';
	while (n > 0 && (fw[n - 1] == '\n' || fw[n - 1] == ' '))
		fw[--n] = '\0';
	KT_ASSERT_MSG(strstr(saved_command_line, fw) != NULL,
		      "'%s' not in '%s'", fw, saved_command_line);
	/* and the value reached its __setup handler: we are running */
	KT_ASSERT(strstr(saved_command_line, "test=") != NULL);
}

KTEST(boot, memory_map)
{
	u64 usable = 0;

	for (int i = 0; i < boot_info.nr_mmap; i++)
		if (boot_info.mmap[i].type == MMAP_AVAILABLE)
			usable += boot_info.mmap[i].len;
	KT_ASSERT_MSG(usable >= 16 << 20, "only %llu bytes usable", (unsigned long long)usable);
	KT_ASSERT(totalram_pages() > 0);
	KT_ASSERT(totalram_pages() * PAGE_SIZE <= usable);
}

KTEST(boot, direct_map)
{
	char *p = kmalloc(64, GFP_KERNEL);
	phys_addr_t pa;

	KT_ASSERT(p != NULL);
	pa = __pa(p);
	KT_ASSERT(__va(pa) == p);
	KT_ASSERT_MSG(virt_to_phys_walk(kernel_pml4, (unsigned long)p) == pa,
		      "walk %#llx vs __pa %#llx",
		      (unsigned long long)virt_to_phys_walk(kernel_pml4, (unsigned long)p),
		      (unsigned long long)pa);
	kfree(p);
	/* the last page of RAM is mapped too */
	KT_ASSERT(virt_to_phys_walk(kernel_pml4, (unsigned long)__va((max_pfn - 1) << PAGE_SHIFT))
		  == (max_pfn - 1) << PAGE_SHIFT);
	/* no identity map: address 0 is not mapped (NULL faults) */
	KT_ASSERT(virt_to_phys_walk(kernel_pml4, 0) == (phys_addr_t)-1);
}

static const char ro_string[] = "read-only";

KTEST(boot, kernel_permissions)
{
	/* Look at the leaf entries the CPU will use. */
	pte_t *t = kernel_pml4;
	unsigned long va = (unsigned long)ro_string;

	for (int level = 3; level > 0; level--) {
		pte_t e = t[(va >> (12 + 9 * level)) & 511];

		KT_ASSERT(e & _PAGE_PRESENT);
		KT_ASSERT(!(e & _PAGE_PSE));
		t = __va(e & PTE_ADDR_MASK);
	}
	KT_ASSERT_MSG(!(t[(va >> 12) & 511] & _PAGE_RW), "rodata is writable");
	KT_ASSERT_MSG(t[(va >> 12) & 511] & _PAGE_NX, "rodata is executable");
}

KTEST(boot, ksyms)
{
	unsigned long off, size;
	unsigned long addr = (unsigned long)kmalloc;
	const char *name = ksym_lookup(addr + 3, &off, &size);

	KT_ASSERT(name != NULL);
	KT_ASSERT_MSG(strcmp(name, "kmalloc") == 0, "got %s", name);
	KT_ASSERT(off == 3 && size > 3);
	KT_ASSERT(ksym_address("kfree") == (unsigned long)kfree);
	KT_ASSERT(ksym_lookup(0x1234, &off, &size) == NULL);
}

/* Booting with test=fault must end in a PANIC report naming this function. */
KTEST(fault, null_deref)
{
	volatile int *p = NULL;

	*p = 42;
	KT_ASSERT_MSG(false, "the write to NULL did not fault");
}

/* volatile: the compiler cannot see that the recursion never ends */
static volatile int recursion_limit = 1 << 30;

static int __noinline recurse(int depth)
{
	volatile char frame[256];

	frame[0] = (char)depth;
	if (depth >= recursion_limit)
		return 0;
	return recurse(depth + 1) + frame[0];
}

/* Unbounded recursion must end in "kernel stack overflow", not in silent
 * corruption of whatever lies below the stack. */
KTEST(fault, stack_overflow)
{
	KT_ASSERT_MSG(recurse(0) == 0, "recursion returned");
}
