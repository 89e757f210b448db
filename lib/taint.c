// SPDX-License-Identifier: MIT
/*
 * taint.c - the kernel's taint flags (include/spindle/printk.h), as
 * Linux's kernel/panic.c keeps them.
 *
 * A detector that finds the kernel's own memory corrupted (slab_debug,
 * page_poison: kernel/mm/) taints it with TAINT_BAD_PAGE ('B').  The
 * kernel goes on running, but every later report starts with "Tainted: B"
 * so that a reader knows a crash may only be a consequence of the first
 * corruption.  Flags are never cleared.  Portable; does not sleep.
 */
#include <spindle/printk.h>

static unsigned long tainted_mask;

void add_taint(unsigned int flag)
{
	__atomic_or_fetch(&tainted_mask, 1ul << flag, __ATOMIC_RELAXED);
}

const char *print_tainted(void)
{
	/* one flag so far; Linux prints one column per flag */
	if (__atomic_load_n(&tainted_mask, __ATOMIC_RELAXED) & (1ul << TAINT_BAD_PAGE))
		return "Tainted: B";
	return "Not tainted";
}
