// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/cpumask.c: sets of CPUs written as Linux writes them
 * in /proc/irq/N/smp_affinity (hex) and smp_affinity_list, irqaffinity=
 * and taskset -c (lists).  The expected texts are what Linux 6.1 prints
 * for the same sets (cat /proc/irq/N/smp_affinity on a 2-, 4- and 8-CPU
 * machine), and each bad input is one Linux's bitmap parsers refuse.
 */
#include <check.h>
#include <string.h>
#include <spindle/smp.h>
#include <spindle/errno.h>

static int hex(const char *s, unsigned long *bits)
{
	struct cpumask m = { .bits = 0xdead };
	int err = cpumask_parse(s, strlen(s), &m);

	*bits = m.bits;
	return err;
}

static int list(const char *s, unsigned long *bits)
{
	struct cpumask m = { .bits = 0xdead };
	int err = cpulist_parse(s, strlen(s), &m);

	*bits = m.bits;
	return err;
}

START_TEST(parses_hex)
{
	static const struct { const char *in; unsigned long bits; } ok[] = {
		{ "1", 0x1 }, { "2\n", 0x2 }, { "3", 0x3 }, { "0f", 0xf },
		{ "ff\n", 0xff }, { "00000001", 0x1 }, { "0,00000002", 0x2 },
		{ "A", 0xa }, { "0", 0x0 },
	};
	static const struct { const char *in; int err; } bad[] = {
		{ "", -EINVAL }, { "\n", -EINVAL }, { "g", -EINVAL }, { "1 2", -EINVAL },
		{ "0x3", -EINVAL }, { ",", -EINVAL }, { "100", -ERANGE }, { "1ff", -ERANGE },
		{ "-1", -EINVAL },
	};
	unsigned long bits;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(hex(ok[i].in, &bits) == 0, "%s refused", ok[i].in);
		ck_assert_msg(bits == ok[i].bits, "%s gave %#lx, want %#lx", ok[i].in, bits,
			      ok[i].bits);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = hex(bad[i].in, &bits);

		ck_assert_msg(err == bad[i].err, "\"%s\" gave %d, want %d", bad[i].in, err,
			      bad[i].err);
		ck_assert_msg(bits == 0xdead, "\"%s\" changed the mask on error", bad[i].in);
	}
}
END_TEST

START_TEST(parses_lists)
{
	static const struct { const char *in; unsigned long bits; } ok[] = {
		{ "0", 0x1 }, { "1\n", 0x2 }, { "0-3", 0xf }, { "1,3", 0xa },
		{ "0-2,5", 0x27 }, { "7", 0x80 }, { "3-3", 0x8 }, { "0,0", 0x1 },
	};
	static const struct { const char *in; int err; } bad[] = {
		{ "", -EINVAL }, { "a", -EINVAL }, { "1-", -EINVAL }, { "-1", -EINVAL },
		{ "3-1", -EINVAL }, { "1,", -EINVAL }, { "1 2", -EINVAL }, { "8", -ERANGE },
		{ "0-8", -ERANGE }, { "99999999999", -ERANGE },
	};
	unsigned long bits;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(list(ok[i].in, &bits) == 0, "%s refused", ok[i].in);
		ck_assert_msg(bits == ok[i].bits, "%s gave %#lx, want %#lx", ok[i].in, bits,
			      ok[i].bits);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = list(bad[i].in, &bits);

		ck_assert_msg(err == bad[i].err, "\"%s\" gave %d, want %d", bad[i].in, err,
			      bad[i].err);
		ck_assert_msg(bits == 0xdead, "\"%s\" changed the mask on error", bad[i].in);
	}
}
END_TEST

START_TEST(prints_as_linux)
{
	static const struct {
		unsigned long bits;
		unsigned int nr_cpus;
		const char *hex, *list;
	} rows[] = {
		{ 0x3, 2, "3\n", "0-1\n" },
		{ 0x2, 2, "2\n", "1\n" },
		{ 0xf, 4, "f\n", "0-3\n" },
		{ 0x5, 4, "5\n", "0,2\n" },
		{ 0xff, 8, "ff\n", "0-7\n" },
		{ 0x01, 8, "01\n", "0\n" },
		{ 0xb6, 8, "b6\n", "1-2,4-5,7\n" },
		{ 0x1, 5, "01\n", "0\n" },
		{ 0x0, 4, "0\n", "\n" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cpumask m = { .bits = rows[i].bits }, back;
		int n = cpumask_print(buf, sizeof(buf), &m, rows[i].nr_cpus);

		ck_assert_int_eq(n, (int)strlen(buf));
		ck_assert_msg(!strcmp(buf, rows[i].hex), "%#lx on %u CPUs: hex \"%s\"",
			      rows[i].bits, rows[i].nr_cpus, buf);
		ck_assert_int_eq(cpumask_parse(buf, (size_t)n, &back), 0);
		ck_assert_uint_eq(back.bits, rows[i].bits);
		n = cpulist_print(buf, sizeof(buf), &m);
		ck_assert_msg(!strcmp(buf, rows[i].list), "%#lx: list \"%s\"", rows[i].bits, buf);
		if (rows[i].bits) {
			ck_assert_int_eq(cpulist_parse(buf, (size_t)n, &back), 0);
			ck_assert_uint_eq(back.bits, rows[i].bits);
		}
	}
}
END_TEST

START_TEST(first_and_intersects)
{
	struct cpumask a = { .bits = 0x6 }, b = { .bits = 0x8 }, none = { .bits = 0 };

	ck_assert_uint_eq(cpumask_first(&a), 1);
	ck_assert_uint_eq(cpumask_first(&b), 3);
	ck_assert_uint_eq(cpumask_first(&none), NR_CPUS);
	ck_assert(!cpumask_intersects(&a, &b));
	b.bits |= 0x4;
	ck_assert(cpumask_intersects(&a, &b));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Cpumask");
	TCase *core = tcase_create("Core");

	tcase_add_test(core, parses_hex);
	tcase_add_test(core, parses_lists);
	tcase_add_test(core, prints_as_linux);
	tcase_add_test(core, first_and_intersects);
	suite_add_tcase(s, core);
	return s;
}
