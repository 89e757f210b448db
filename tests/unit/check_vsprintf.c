// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/vsprintf.c.
 *
 * "Core": each conversion, flag, width, precision and length modifier
 * against expected strings written out by hand, in tables by argument type.
 * "Limits": truncation and return values, size 0, extreme values, and a
 * sweep of several thousand flag/width/precision/value combinations checked
 * against the host C library's printf, an outside oracle (C99 fixes the
 * output of every integer conversion exactly).
 *
 * Both also check the host shim's printk() and panic(), which format with
 * this code (tests/unit/shim/host.c).
 *
 * The fixture fills the output buffer with CANARY so each test can tell
 * what vsnprintf() stored from what it left alone.
 */
#include <check.h>
#include <signal.h>
#include <spindle/compiler.h>
#include <spindle/printk.h>
#include <spindle/string.h>

#define BUF_SIZE 128
#define CANARY '#'

static char buf[BUF_SIZE];

static void fill_canary(void)
{
	memset(buf, CANARY, sizeof(buf));
}

/* Bytes buf[from..] are all still CANARY. */
static bool untouched_from(size_t from)
{
	for (size_t i = from; i < sizeof(buf); i++) {
		if (buf[i] != CANARY)
			return false;
	}
	return true;
}

/*
 * Format into the whole buffer and compare with want, both the text and
 * the returned length.  A macro, so Check reports the caller's line.
 */
#define CHECK_FMT(want, fmt, ...) do { \
	int n_ = snprintf(buf, sizeof(buf), fmt, ##__VA_ARGS__); \
	ck_assert_str_eq(buf, want); \
	ck_assert_int_eq(n_, (int)strlen(want)); \
} while (0)

/* Core: tables, one per argument type ----------------------------------- */

static const struct {
	const char *fmt;
	long long v;
	const char *want;
} signed_cases[] = {
	{ "%lld", 0, "0" },
	{ "%lld", 42, "42" },
	{ "%lld", -42, "-42" },
	{ "%lli", -7, "-7" },
	{ "%5lld", -42, "  -42" },
	{ "%-5lld|", -42, "-42  |" },
	{ "%05lld", -42, "-0042" },		/* zeros go after the sign */
	{ "%+lld", 42, "+42" },
	{ "%+lld", -42, "-42" },
	{ "% lld", 42, " 42" },
	{ "% lld", -42, "-42" },
	{ "%+ lld", 42, "+42" },		/* '+' wins over ' ' */
	{ "% 05lld", 42, " 0042" },
	{ "%.5lld", -42, "-00042" },		/* precision: minimum digits */
	{ "%8.5lld", -42, "  -00042" },
	{ "%-8.5lld|", 42, "00042   |" },
	{ "%08.5lld", 42, "   00042" },		/* a precision disables '0' */
	{ "%-05lld|", 1, "1    |" },		/* and so does '-' */
	{ "%-+6lld|", 1, "+1    |" },
	{ "%.0lld", 0, "" },			/* zero, precision 0: no digits */
	{ "%5.0lld|", 0, "     |" },
	{ "%+.0lld", 0, "+" },
	{ "%.0lld", 3, "3" },
	{ "%2lld", 12345, "12345" },		/* width is a minimum */
	{ "%lld", INT64_MAX, "9223372036854775807" },
	{ "%lld", INT64_MIN, "-9223372036854775808" },
	{ "%25lld", INT64_MIN, "     -9223372036854775808" },
	{ "%025lld", INT64_MIN, "-000009223372036854775808" },
	{ "%+lld", INT64_MIN, "-9223372036854775808" },
};

START_TEST(test_signed_table)
{
	CHECK_FMT(signed_cases[_i].want, signed_cases[_i].fmt, signed_cases[_i].v);
}
END_TEST

static const struct {
	const char *fmt;
	unsigned long long v;
	const char *want;
} unsigned_cases[] = {
	{ "%llu", 0, "0" },
	{ "%llu", 42, "42" },
	{ "%llu", UINT64_MAX, "18446744073709551615" },
	{ "%5llu", 42, "   42" },
	{ "%-5llu|", 42, "42   |" },
	{ "%05llu", 42, "00042" },
	{ "%+llu", 5, "5" },			/* '+' and ' ' are for %d only */
	{ "% llu", 5, "5" },
	{ "%llx", 0xdeadbeef, "deadbeef" },
	{ "%llX", 0xdeadbeef, "DEADBEEF" },
	{ "%llx", UINT64_MAX, "ffffffffffffffff" },
	{ "%#llx", 0xff, "0xff" },
	{ "%#llX", 0xff, "0XFF" },
	{ "%#llx", 0, "0" },			/* no 0x before a zero */
	{ "%#10llx", 0xff, "      0xff" },
	{ "%#010llx", 0xff, "0x000000ff" },	/* zeros after the 0x */
	{ "%#-10llx|", 0xff, "0xff      |" },
	{ "%#.4llx", 0xff, "0x00ff" },
	{ "%.0llx", 0, "" },
	{ "%08llx", 0x1234, "00001234" },
	{ "%llo", 8, "10" },
	{ "%llo", UINT64_MAX, "1777777777777777777777" },
	{ "%#llo", 8, "010" },
	{ "%#llo", 0, "0" },
	{ "%#.0llo", 0, "0" },			/* '#' beats precision 0 */
	{ "%#.3llo", 8, "010" },		/* already starts with 0 */
	{ "%#5llo", 8, "  010" },
	{ "%#05llo", 8, "00010" },
};

START_TEST(test_unsigned_table)
{
	CHECK_FMT(unsigned_cases[_i].want, unsigned_cases[_i].fmt, unsigned_cases[_i].v);
}
END_TEST

static const struct {
	const char *fmt;
	const char *s;
	const char *want;
} string_cases[] = {
	{ "%s", "hello", "hello" },
	{ "%s", "", "" },
	{ "%8s", "hello", "   hello" },
	{ "%-8s|", "hello", "hello   |" },
	{ "%2s", "hello", "hello" },
	{ "%.3s", "hello", "hel" },
	{ "%.0s|", "hello", "|" },
	{ "%.10s", "hello", "hello" },
	{ "%8.3s", "hello", "     hel" },
	{ "%-8.3s|", "hello", "hel     |" },
	{ "[%s]", NULL, "[(null)]" },
	{ "%8s", NULL, "  (null)" },
	{ "%.3s", NULL, "(nu" },
	{ "a%sb", "", "ab" },
	{ "100%%%s", "!", "100%!" },
};

START_TEST(test_string_table)
{
	CHECK_FMT(string_cases[_i].want, string_cases[_i].fmt, string_cases[_i].s);
}
END_TEST

/* Core: the rest -------------------------------------------------------- */

START_TEST(test_int_conversions)
{
	CHECK_FMT("0", "%d", 0);
	CHECK_FMT("-2147483648", "%d", INT32_MIN);
	CHECK_FMT("2147483647", "%i", INT32_MAX);
	CHECK_FMT("4294967295", "%u", UINT32_MAX);
	CHECK_FMT("ffffffff", "%x", -1);
	CHECK_FMT("37777777777", "%o", -1);
	CHECK_FMT("[  -17|-17  |-0017]", "[%5d|%-5d|%05d]", -17, -17, -17);
}
END_TEST

/* Each length modifier reads an argument of its own type and narrows it. */
START_TEST(test_length_modifiers)
{
	CHECK_FMT("-1", "%hhd", 255);
	CHECK_FMT("0", "%hhu", 256);
	CHECK_FMT("ff", "%hhx", -1);
	CHECK_FMT("-128", "%hhi", 128);
	CHECK_FMT("-1", "%hd", 65535);
	CHECK_FMT("0", "%hu", 65536);
	CHECK_FMT("ffff", "%hx", -1);
	CHECK_FMT("-32768", "%hd", 32768);
	CHECK_FMT("-9223372036854775808", "%ld", (long)INT64_MIN);
	CHECK_FMT("18446744073709551615", "%lu", (unsigned long)UINT64_MAX);
	CHECK_FMT("18446744073709551615", "%zu", (size_t)-1);
	CHECK_FMT("-5", "%zd", (ssize_t)-5);
	CHECK_FMT("ffffffffffffffff", "%zx", (size_t)-1);
	CHECK_FMT("-3", "%td", (ptrdiff_t)-3);
	CHECK_FMT("fffffffffffffffd", "%tx", (ptrdiff_t)-3);
	CHECK_FMT("-9223372036854775808", "%jd", INTMAX_MIN);
	CHECK_FMT("18446744073709551615", "%ju", UINTMAX_MAX);
	/* Mixed widths: every argument must be fetched with its own size. */
	CHECK_FMT("-1 -9223372036854775808 7 x 65535 s", "%hhd %lld %d %c %hu %s",
		  (signed char)-1, (long long)INT64_MIN, 7, 'x', (unsigned short)65535, "s");
}
END_TEST

START_TEST(test_char)
{
	int n;

	CHECK_FMT("A", "%c", 'A');
	CHECK_FMT("  A", "%3c", 'A');
	CHECK_FMT("A  |", "%-3c|", 'A');
	CHECK_FMT("\xe9", "%c", 0xe9);
	/* A NUL character is output and counted like any other. */
	n = snprintf(buf, sizeof(buf), "a%cb", 0);
	ck_assert_int_eq(n, 3);
	ck_assert(buf[0] == 'a' && buf[1] == '\0' && buf[2] == 'b' && buf[3] == '\0');
}
END_TEST

START_TEST(test_pointer)
{
	CHECK_FMT("0x1234", "%p", (void *)0x1234);
	CHECK_FMT("(nil)", "%p", NULL);
	CHECK_FMT("  (nil)|(nil)  |", "%7p|%-7p|", NULL, NULL);
	CHECK_FMT("0xffffffff81000000", "%p", (void *)0xffffffff81000000ULL);
	CHECK_FMT("  0xffffffff81000000", "%20p", (void *)0xffffffff81000000ULL);
	CHECK_FMT("0x10    |", "%-8p|", (void *)0x10);
}
END_TEST

START_TEST(test_star)
{
	CHECK_FMT("   42", "%*d", 5, 42);
	CHECK_FMT("42   |", "%-*d|", 5, 42);
	CHECK_FMT("42   |", "%*d|", -5, 42);	/* negative width: '-' */
	CHECK_FMT("0007", "%.*d", 4, 7);
	CHECK_FMT("7", "%.*d", -1, 7);		/* negative precision: none */
	CHECK_FMT("    he|", "%*.*s|", 6, 2, "hello");
	CHECK_FMT("    07", "%*.*x", 6, 2, 7);
}
END_TEST

START_TEST(test_literal_text)
{
	CHECK_FMT("", "%s", "");
	CHECK_FMT("plain text", "plain text%s", "");
	CHECK_FMT("%", "%%%s", "");
	CHECK_FMT("a%b", "a%%b%s", "");
	CHECK_FMT("sd: 8 sectors at 0x1f, ok", "%s: %u sectors at %#x, %s",
		  "sd", 8u, 0x1f, "ok");
}
END_TEST

/* printk() on the host: the level marker dropped, the text captured. */
START_TEST(test_printk_capture)
{
	host_printk_quiet = true;
	host_printk_reset();
	ck_assert_int_eq(printk(KERN_INFO "disk %s: %llu sectors\n", "sda", 2048ULL), 23);
	pr_err("%d errors\n", 3);
	ck_assert_str_eq(host_printk_buf, "disk sda: 2048 sectors\n3 errors\n");
	ck_assert(WARN_ON(1 + 1 == 2));
	ck_assert_ptr_nonnull(strstr(host_printk_buf, "WARNING at"));
	ck_assert(!WARN_ON(false));
}
END_TEST

/* Limits ---------------------------------------------------------------- */

/*
 * Output cut at size.  The rows all format a string and an int, so the
 * expected stored text and the return value (the untruncated length) are
 * plain data.
 */
static const struct {
	size_t size;
	const char *fmt;
	const char *s;
	int d;
	const char *stored;
	int ret;
} trunc_cases[] = {
	{ 1, "%s%d", "hello", 0, "", 6 },
	{ 2, "%s%d", "hello", 0, "h", 6 },
	{ 5, "%s%d", "hello", 0, "hell", 6 },
	{ 6, "%s%d", "hello", 0, "hello", 6 },
	{ 7, "%s%d", "hello", 0, "hello0", 6 },
	{ 8, "%s%d", "hello", 0, "hello0", 6 },
	{ 4, "%s=%d", "ab", 12345, "ab=", 8 },
	{ 5, "%s=%d", "ab", -12345, "ab=-", 9 },
	{ 6, "%s=%08d", "ab", -5, "ab=-0", 11 },
	{ 3, "%10s%d", "ab", 1, "  ", 11 },
	{ 3, "%-10s%d", "ab", 1, "ab", 11 },
	{ 4, "[%s]%d", NULL, 0, "[(n", 9 },
};

START_TEST(test_truncation_table)
{
	size_t size = trunc_cases[_i].size;
	int n = snprintf(buf, size, trunc_cases[_i].fmt, trunc_cases[_i].s, trunc_cases[_i].d);

	ck_assert_int_eq(n, trunc_cases[_i].ret);
	ck_assert_str_eq(buf, trunc_cases[_i].stored);
	ck_assert_msg(untouched_from(size), "wrote past size %zu", size);

	/* scnprintf returns what it stored: the same text, its length. */
	fill_canary();
	n = scnprintf(buf, size, trunc_cases[_i].fmt, trunc_cases[_i].s, trunc_cases[_i].d);
	ck_assert_int_eq(n, (int)strlen(trunc_cases[_i].stored));
	ck_assert_str_eq(buf, trunc_cases[_i].stored);
	ck_assert(untouched_from(size));
}
END_TEST

START_TEST(test_size_zero)
{
	/* Size 0 stores nothing, not even a NUL, so buf may be NULL. */
	ck_assert_int_eq(snprintf(NULL, 0, "%s-%d", "abc", 42), 6);
	ck_assert_int_eq(snprintf(buf, 0, "%s", "abc"), 3);
	ck_assert(untouched_from(0));
	ck_assert_int_eq(scnprintf(buf, 0, "%s", "abc"), 0);
	ck_assert(untouched_from(0));
	ck_assert_int_eq(snprintf(buf, sizeof(buf), "%s", ""), 0);
	ck_assert(buf[0] == '\0' && untouched_from(1));
}
END_TEST

/* Appending piece by piece with scnprintf() cannot overrun. */
START_TEST(test_scnprintf_append)
{
	size_t size = 10, len = 0;

	for (int i = 0; i < 10; i++)
		len += scnprintf(buf + len, size - len, "%d,", i);
	ck_assert_uint_eq(len, 9);
	ck_assert_str_eq(buf, "0,1,2,3,4");
	ck_assert(untouched_from(size));
}
END_TEST

/* "%.3s" of an array without a NUL: only 3 bytes may be read. */
START_TEST(test_precision_unterminated)
{
	static const char abc[3] = { 'a', 'b', 'c' };

	CHECK_FMT("abc", "%.3s", abc);
	CHECK_FMT("ab", "%.*s", 2, abc);
}
END_TEST

/*
 * Formats that are wrong on purpose, passed through a variable so that
 * GCC's format checking lets them by.
 */
static int format_any(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return n;
}

START_TEST(test_bad_formats)
{
	/* An unknown conversion is shown as written and eats no argument. */
	ck_assert_int_eq(format_any("%q %d", 5), 4);
	ck_assert_str_eq(buf, "%q 5");
	ck_assert_int_eq(format_any("%-5y|%d", 5), 6);
	ck_assert_str_eq(buf, "%-5y|5");
	/* A '%' ending the format stays. */
	ck_assert_int_eq(format_any("100%", 0), 4);
	ck_assert_str_eq(buf, "100%");
	/* A huge width is clamped, not an int overflow. */
	ck_assert_int_eq(format_any("%99999999999999999999d", 1), 4096);
	ck_assert_int_eq(format_any("%.99999999999d", 1), 4096);
	ck_assert_int_eq(format_any("%*d", INT32_MIN, 1), 4096);
}
END_TEST

/* A broken invariant panics; on the host that is abort(), i.e. SIGABRT. */
START_TEST(test_bug_on_panics)
{
	host_printk_quiet = true;	/* expected: keep "PANIC:" out of the log */
	BUG_ON(sizeof(buf) == BUF_SIZE);
}
END_TEST

/*
 * The sweep against the C library: every combination of the flags below,
 * these widths and precisions, and these values, for one conversion per
 * loop iteration (with ll, so all 64 bits are exercised).
 */
static const char sweep_convs[] = "diuxXo";
static const char *const sweep_widths[] = { "", "1", "6", "24" };
static const char *const sweep_precisions[] = { "", ".", ".0", ".1", ".4", ".23" };
static const char sweep_flags[] = "-0 +#";
static const long long sweep_values[] = {
	0, 1, -1, 7, 8, 255, -255, 0x1234abcd, -100000,
	INT64_MAX, INT64_MIN, INT64_MIN + 1,
};

static int libc_format(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = libc_vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return n;
}

START_TEST(test_sweep_vs_libc)
{
	char fmt[32], want[BUF_SIZE];
	unsigned int compared = 0;

	for (unsigned int flags = 0; flags < 1u << 5; flags++)
	for (size_t w = 0; w < ARRAY_SIZE(sweep_widths); w++)
	for (size_t p = 0; p < ARRAY_SIZE(sweep_precisions); p++)
	for (size_t v = 0; v < ARRAY_SIZE(sweep_values); v++) {
		size_t len = 0;
		int got, n;

		/* "%" flags width precision "ll" conversion */
		fmt[len++] = '%';
		for (int f = 0; f < 5; f++) {
			if (flags & 1u << f)
				fmt[len++] = sweep_flags[f];
		}
		fmt[len] = '\0';
		strlcat(fmt, sweep_widths[w], sizeof(fmt));
		strlcat(fmt, sweep_precisions[p], sizeof(fmt));
		len = strlcat(fmt, "ll", sizeof(fmt));
		fmt[len++] = sweep_convs[_i];
		fmt[len] = '\0';

		got = snprintf(buf, sizeof(buf), fmt, sweep_values[v]);
		n = libc_format(want, sizeof(want), fmt, sweep_values[v]);
		ck_assert_msg(got == n && strcmp(buf, want) == 0,
			      "\"%s\" of %lld: got \"%s\" (%d), libc \"%s\" (%d)",
			      fmt, sweep_values[v], buf, got, want, n);
		compared++;
	}
	ck_assert_uint_eq(compared, 32 * ARRAY_SIZE(sweep_widths) *
			  ARRAY_SIZE(sweep_precisions) * ARRAY_SIZE(sweep_values));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Vsprintf");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, fill_canary, NULL);
	tcase_add_loop_test(core, test_signed_table, 0, ARRAY_SIZE(signed_cases));
	tcase_add_loop_test(core, test_unsigned_table, 0, ARRAY_SIZE(unsigned_cases));
	tcase_add_loop_test(core, test_string_table, 0, ARRAY_SIZE(string_cases));
	tcase_add_test(core, test_int_conversions);
	tcase_add_test(core, test_length_modifiers);
	tcase_add_test(core, test_char);
	tcase_add_test(core, test_pointer);
	tcase_add_test(core, test_star);
	tcase_add_test(core, test_literal_text);
	tcase_add_test(core, test_printk_capture);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, fill_canary, NULL);
	tcase_add_loop_test(limits, test_truncation_table, 0, ARRAY_SIZE(trunc_cases));
	tcase_add_test(limits, test_size_zero);
	tcase_add_test(limits, test_scnprintf_append);
	tcase_add_test(limits, test_precision_unterminated);
	tcase_add_test(limits, test_bad_formats);
	tcase_add_test_raise_signal(limits, test_bug_on_panics, SIGABRT);
	tcase_add_loop_test(limits, test_sweep_vs_libc, 0, sizeof(sweep_convs) - 1);
	suite_add_tcase(s, limits);
	return s;
}
