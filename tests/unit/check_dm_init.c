// SPDX-License-Identifier: MIT
/*
 * Unit tests for drivers/md/dm-init.c: the dm-mod.create= text cut into
 * devices, fields and table lines, as Linux's dm-init documents the
 * syntax ("<name>,<uuid>,<minor>,<flags>,<table>[,<table>...][;...]",
 * each table line "<start> <length> <type> <args...>").
 *
 * Core:   valid values -- one device and several, empty uuid and minor,
 *         spaces in a row, the most arguments a line may have -- and what
 *         each field and line became.
 * Limits: one bad value per row of bad_specs[]: the error, and the exact
 *         reason the log line will give; every row is a mistake a user
 *         can type (or the fuzzer found, see tests/fuzz/fuzz_dm.c).
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include "../../drivers/md/dm-init.h"

/* Parse a whole value as dm.c does; the lines of all devices go to
 * lines[], their count to *nr_lines, the devices to devs[].  Returns 0
 * or the first error, its reason in why. */
#define MAX_DEVS  4
#define MAX_LINES 8

struct parsed {
	char text[4096];
	struct dm_device_entry devs[MAX_DEVS];
	struct dm_table_entry lines[MAX_LINES];
	int nr_devs, nr_lines;
	char why[DM_PARSE_WHY_LEN];
};

static int parse_all(const char *value, struct parsed *p)
{
	char *spec = p->text, *dev;

	memset(p, 0, sizeof(*p));
	strlcpy(p->text, value, sizeof(p->text));
	while ((dev = dm_next_device(&spec)) != NULL) {
		struct dm_device_entry *de = &p->devs[p->nr_devs++];
		sector_t start = 0;
		int err;

		ck_assert_int_le(p->nr_devs, MAX_DEVS);
		err = dm_parse_device_entry(dev, de, p->why, sizeof(p->why));
		if (err)
			return err;
		for (;;) {
			struct dm_table_entry *te = &p->lines[p->nr_lines];

			ck_assert_int_lt(p->nr_lines, MAX_LINES);
			err = dm_parse_table_entry(&de->table, start, te, p->why, sizeof(p->why));
			if (err <= 0)
				break;
			start = te->begin + te->len;
			p->nr_lines++;
		}
		if (err)
			return err;
	}
	return 0;
}

static struct parsed p;

START_TEST(one_device)
{
	ck_assert_int_eq(parse_all("lin,3f2a-uuid,7,ro,0 16384 linear ram0 0,"
				   "16384 8 linear /dev/ram1 100", &p), 0);
	ck_assert_int_eq(p.nr_devs, 1);
	ck_assert_str_eq(p.devs[0].name, "lin");
	ck_assert_str_eq(p.devs[0].uuid, "3f2a-uuid");
	ck_assert_int_eq(p.devs[0].minor, 7);
	ck_assert(p.devs[0].ro);
	ck_assert_uint_eq(p.devs[0].nr_lines, 2);
	ck_assert_int_eq(p.nr_lines, 2);
	ck_assert_uint_eq(p.lines[0].begin, 0);
	ck_assert_uint_eq(p.lines[0].len, 16384);
	ck_assert_str_eq(p.lines[0].type, "linear");
	ck_assert_uint_eq(p.lines[0].argc, 2);
	ck_assert_str_eq(p.lines[0].argv[0], "ram0");
	ck_assert_str_eq(p.lines[0].argv[1], "0");
	ck_assert_uint_eq(p.lines[1].begin, 16384);
	ck_assert_uint_eq(p.lines[1].len, 8);
	ck_assert_str_eq(p.lines[1].argv[0], "/dev/ram1");
	ck_assert_str_eq(p.lines[1].argv[1], "100");
}
END_TEST

START_TEST(two_devices_defaults)
{
	/* Empty uuid and minor; several spaces in a row; a stacked second
	 * device whose lines start again at 0. */
	ck_assert_int_eq(parse_all("a,,,rw,0   64  striped 2 8 ram0 0 ram1 0;"
				   "b,,,rw,0 32 linear dm-0 0", &p), 0);
	ck_assert_int_eq(p.nr_devs, 2);
	ck_assert_str_eq(p.devs[0].uuid, "");
	ck_assert_int_eq(p.devs[0].minor, -1);
	ck_assert(!p.devs[0].ro);
	ck_assert_int_eq(p.nr_lines, 2);
	ck_assert_str_eq(p.lines[0].type, "striped");
	ck_assert_uint_eq(p.lines[0].argc, 6);
	ck_assert_str_eq(p.lines[0].argv[5], "0");
	ck_assert_str_eq(p.devs[1].name, "b");
	ck_assert_uint_eq(p.lines[1].begin, 0);
	ck_assert_str_eq(p.lines[1].argv[0], "dm-0");
}
END_TEST

START_TEST(most_arguments)
{
	char value[512];
	size_t n = strlcpy(value, "many,,,rw,0 1 t", sizeof(value));

	for (int i = 0; i < DM_MAX_TARGET_ARGS; i++)
		n += snprintf(value + n, sizeof(value) - n, " %d", i % 10);
	ck_assert_int_eq(parse_all(value, &p), 0);
	ck_assert_uint_eq(p.lines[0].argc, DM_MAX_TARGET_ARGS);
	ck_assert_str_eq(p.lines[0].argv[DM_MAX_TARGET_ARGS - 1], "3");
	/* one more word is an error, not an overrun */
	strlcat(value, " x", sizeof(value));
	ck_assert_int_eq(parse_all(value, &p), -E2BIG);
	ck_assert_str_eq(p.why, "more than 64 target arguments");
}
END_TEST

START_TEST(largest_sectors)
{
	/* A line may end at the last sector number there is, not past it. */
	ck_assert_int_eq(parse_all("big,,,rw,0 18446744073709551614 linear ram0 0,"
				   "18446744073709551614 1 linear ram1 0", &p), 0);
	ck_assert_uint_eq(p.lines[1].begin + p.lines[1].len, ~0ull);
}
END_TEST

static const struct {
	const char *value;
	int err;
	const char *why;
} bad_specs[] = {
	{ "lin,,,rw", -EINVAL,
	  "'lin': expected <name>,<uuid>,<minor>,<flags>,<table>[,<table>...]" },
	{ "lin,,,rw,", -EINVAL,
	  "'lin': expected <name>,<uuid>,<minor>,<flags>,<table>[,<table>...]" },
	{ "", -EINVAL, "'': expected <name>,<uuid>,<minor>,<flags>,<table>[,<table>...]" },
	{ ",,,rw,0 8 linear ram0 0", -EINVAL, "bad device name ''" },
	{ "a/b,,,rw,0 8 linear ram0 0", -EINVAL, "bad device name 'a/b'" },
	{ "lin,,,rx,0 8 linear ram0 0", -EINVAL, "lin: flags must be ro or rw, not 'rx'" },
	{ "lin,,12x,rw,0 8 linear ram0 0", -EINVAL, "lin: bad minor '12x'" },
	{ "lin,,1048576,rw,0 8 linear ram0 0", -EINVAL, "lin: bad minor '1048576'" },
	{ "lin,,-1,rw,0 8 linear ram0 0", -EINVAL, "lin: bad minor '-1'" },
	{ "lin,,,rw,8 8 linear ram0 0", -EINVAL,
	  "linear target starts at sector 8, expected 0 (a gap)" },
	{ "lin,,,rw,0 8 linear ram0 0,4 8 linear ram1 0", -EINVAL,
	  "linear target starts at sector 4, expected 8 (an overlap)" },
	{ "lin,,,rw,0 0 linear ram0 0", -EINVAL, "linear target of 0 sectors" },
	{ "lin,,,rw,1 18446744073709551615 linear ram0 0", -EINVAL,
	  "linear target of 18446744073709551615 sectors" },
	{ "lin,,,rw,0 18446744073709551616 linear ram0 0", -EINVAL,
	  "expected <start_sector> <num_sectors> <target_type> <args...>" },
	{ "lin,,,rw,0 0x10 linear ram0 0", -EINVAL,
	  "expected <start_sector> <num_sectors> <target_type> <args...>" },
	{ "lin,,,rw,0 8", -EINVAL,
	  "expected <start_sector> <num_sectors> <target_type> <args...>" },
	{ "lin,,,rw,0 8 linear ram0 0,", -EINVAL,
	  "expected <start_sector> <num_sectors> <target_type> <args...>" },
	{ "lin,,,rw,0 8 linear ram0 0;;", -EINVAL,
	  "'': expected <name>,<uuid>,<minor>,<flags>,<table>[,<table>...]" },
};

START_TEST(bad_spec)
{
	ck_assert_int_eq(parse_all(bad_specs[_i].value, &p), bad_specs[_i].err);
	ck_assert_str_eq(p.why, bad_specs[_i].why);
}
END_TEST

START_TEST(long_name_and_uuid)
{
	char value[512], name[DM_NAME_LEN + 1], uuid[DM_UUID_LEN + 1];

	memset(name, 'n', DM_NAME_LEN);
	name[DM_NAME_LEN] = '\0';
	snprintf(value, sizeof(value), "%s,,,rw,0 8 linear ram0 0", name);
	ck_assert_int_eq(parse_all(value, &p), -EINVAL);
	ck_assert_int_eq(strncmp(p.why, "bad device name 'nnn", 20), 0);
	name[DM_NAME_LEN - 1] = '\0';           /* the longest that fits */
	snprintf(value, sizeof(value), "%s,,,rw,0 8 linear ram0 0", name);
	ck_assert_int_eq(parse_all(value, &p), 0);

	memset(uuid, 'u', DM_UUID_LEN);
	uuid[DM_UUID_LEN] = '\0';
	snprintf(value, sizeof(value), "lin,%s,,rw,0 8 linear ram0 0", uuid);
	ck_assert_int_eq(parse_all(value, &p), -EINVAL);
	ck_assert_str_eq(p.why, "lin: uuid too long");
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("dm-init");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, one_device);
	tcase_add_test(core, two_devices_defaults);
	tcase_add_test(core, most_arguments);
	tcase_add_test(core, largest_sectors);
	suite_add_tcase(s, core);

	tcase_add_loop_test(limits, bad_spec, 0, ARRAY_SIZE(bad_specs));
	tcase_add_test(limits, long_name_and_uuid);
	suite_add_tcase(s, limits);
	return s;
}
