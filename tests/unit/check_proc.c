// SPDX-License-Identifier: MIT
/*
 * Unit tests for the text of /proc/<pid>/maps (fs/proc.c,
 * proc_maps_line()).  The oracle is the host's Linux: each line of its
 * own /proc/self/maps is taken apart into the fields Spindle knows
 * (range, permissions, offset, device, inode, name) and must come back
 * byte for byte, padding included.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spindle/fs.h>
#include <spindle/mm_types.h>
#include <spindle/blkdev.h>
#include <spindle/printk.h>
#include "../../fs/internal.h"

/* Parse one Linux maps line into e (name points into line); false if
 * the line is not in the layout this test knows. */
static bool parse_maps_line(char *line, struct proc_maps_entry *e)
{
	char perms[5];
	unsigned int major, minor;
	unsigned long long off;
	int name_at = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%lx-%lx %4s %llx %x:%x %lu %n", &e->start, &e->end, perms, &off,
		   &major, &minor, &e->ino, &name_at) < 7)
		return false;
	e->flags = (perms[0] == 'r' ? VM_READ : 0) | (perms[1] == 'w' ? VM_WRITE : 0) |
		   (perms[2] == 'x' ? VM_EXEC : 0) | (perms[3] == 's' ? VM_SHARED : 0);
	e->offset = off;
	e->dev = MKDEV(major, minor);
	line[strcspn(line, "\n")] = '\0';
	e->name = name_at ? line + name_at : NULL;
	return true;
}

START_TEST(host_maps_round_trip)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], copy[4096], out[4096];
	int lines = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		struct proc_maps_entry e;

		memcpy(copy, line, sizeof(line));
		ck_assert_msg(parse_maps_line(copy, &e), "cannot parse: %s", line);
		proc_maps_line(out, sizeof(out), &e);
		ck_assert_str_eq(out, line);
		lines++;
	}
	fclose(f);
	ck_assert_int_gt(lines, 3);     /* the program, its heap or libc, the stack */
}
END_TEST

START_TEST(stack_and_anonymous)
{
	struct proc_maps_entry stack = {
		.start = 0x7fffff7ff000, .end = 0x7ffffffff000,
		.flags = VM_READ | VM_WRITE, .name = "[stack]",
	};
	struct proc_maps_entry anon = { .start = 0x1000, .end = 0x2000, .flags = VM_READ };
	char out[256];

	proc_maps_line(out, sizeof(out), &stack);
	ck_assert_str_eq(out, "7fffff7ff000-7ffffffff000 rw-p 00000000 00:00 0"
			 "                          [stack]\n");
	ck_assert_uint_eq(strchr(out, '[') - out, PROC_MAPS_NAME_COL - 1);
	/* no name: the line ends after the inode and its space, as Linux's */
	proc_maps_line(out, sizeof(out), &anon);
	ck_assert_str_eq(out, "00001000-00002000 r--p 00000000 00:00 0 \n");
}
END_TEST

/* a buffer too small is filled, never overrun */
START_TEST(short_buffer)
{
	struct proc_maps_entry e = { .start = 0x1000, .end = 0x2000, .name = "/bin/busybox" };
	char out[64];

	memset(out, 'X', sizeof(out));
	proc_maps_line(out, 40, &e);
	ck_assert_uint_eq(strlen(out), 39);
	ck_assert_int_eq(out[40], 'X');
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Proc");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, host_maps_round_trip);
	tcase_add_test(core, stack_and_anonymous);
	suite_add_tcase(s, core);
	tcase_add_test(limits, short_buffer);
	suite_add_tcase(s, limits);
	return s;
}
