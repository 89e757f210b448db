/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own symbol table, for symbolised backtraces.
 *
 * The kernel is linked twice (Makefile): the first link's `nm` output is
 * turned into a table (tools/gen_ksyms.sh) that the second link places in
 * the .ksyms section, last in the image so nothing else moves.
 */
#ifndef SPINDLE_KSYMS_H
#define SPINDLE_KSYMS_H

#include <spindle/types.h>

/*
 * Find the function containing addr: returns its name and sets *offset and
 * *size, or returns NULL when addr is outside the kernel's text.
 */
const char *ksym_lookup(unsigned long addr, unsigned long *offset,
			unsigned long *size);
/* Format "name+0xoff/0xsize" (or the raw address) into buf. */
int ksym_snprint(char *buf, size_t len, unsigned long addr);
/*
 * /proc/kallsyms: one line per function, "<address> T <name>", in address
 * order (Linux's layout; every function is shown as T, the table does not
 * keep which are static).  Returns the bytes written into buf.
 */
#define KSYM_LINE_MAX 160
int ksym_show_all(char *buf, size_t size);
/* The address of a named function, or 0. */
unsigned long ksym_address(const char *name);

/* Print "Call Trace:" and one symbolised line per frame, following the
 * frame-pointer chain from rbp (kernel built -fno-omit-frame-pointer). */
void dump_backtrace(unsigned long rip, unsigned long rbp);
void dump_stack(void);
/*
 * Save up to size return addresses of the frame-pointer chain that starts
 * at frame rbp (its return address first), by dump_backtrace's rules;
 * returns how many.  For the debug allocators' "Allocated in" records and
 * lockdep's chains, which keep a stack to print later.  On the host
 * (unit tests) it saves nothing.
 */
unsigned int stack_trace_save_fp(unsigned long rbp, unsigned long *store,
				 unsigned int size);

#endif /* SPINDLE_KSYMS_H */
