/* SPDX-License-Identifier: MIT */
/*
 * Boot-time registration: command-line options and init calls.
 *
 *   __setup("name=", fn)  fn(value) is called for each "name=value" on the
 *                         kernel command line (kernel/cmdline.c), in the
 *                         order given; "name" without '=' matches the bare
 *                         word and fn gets "".  fn returns 0 or -EINVAL
 *                         (reported as a bad value, boot goes on).
 *   core_initcall(fn)     run after memory, interrupts, time and the
 *   subsys_initcall(fn)   scheduler are up, by start_kernel(), level by
 *   device_initcall(fn)   level (core, subsys, device, late) and in link
 *   late_initcall(fn)     order within a level; fn returns 0 or -errno.
 *
 * The tables live in linker sections (see linker.ld), so a file registers
 * itself without any central list to edit.
 */
#ifndef SPINDLE_INIT_H
#define SPINDLE_INIT_H

#include <spindle/compiler.h>
#include <spindle/errno.h>

#define __init          /* marks boot-only code; not freed in Spindle */

struct kernel_param {
	const char *str;
	int (*setup)(const char *val);
};

#define __setup(s, fn) __setup_id(s, fn, fn)
/* The same, for one handler shared by several options: id names the entry. */
#define __setup_id(s, fn, id)                         \
	static const struct kernel_param __setup_##id \
		__used __section(".setup") __aligned(8) = { s, fn }

typedef int (*initcall_t)(void);

#define __define_initcall(fn, lvl) \
	static const initcall_t __initcall_##fn \
	__used __section(".initcall" #lvl) = fn

#define core_initcall(fn)    __define_initcall(fn, 1)
#define subsys_initcall(fn)  __define_initcall(fn, 2)
#define device_initcall(fn)  __define_initcall(fn, 3)
#define late_initcall(fn)    __define_initcall(fn, 4)

/* kernel/cmdline.c */
extern char saved_command_line[];
void cmdline_init(const char *grub_line);
void parse_args(void);
/* The value of the last "key=value" on the command line, or NULL. */
const char *cmdline_get(const char *key, char *buf, size_t size);
/* Is "key=<value>" on the command line with a value other than 0 or off? */
bool cmdline_flag(const char *key);

#endif /* SPINDLE_INIT_H */
