// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/string.c.
 *
 * "Core" covers the memory and string routines; "Limits" the number parsers
 * (kstrto*, memparse) on valid, malformed and out-of-range input.  Most
 * tests are tables run with tcase_add_loop_test(), one check per row, so a
 * failure names the row.
 *
 * Check's ck_assert_str_eq and ck_assert_mem_eq call strcmp()/memcmp(),
 * which here are the ones under test (see shim/host.h), so this file
 * compares strings and bytes with its own tiny helpers instead.
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/errno.h>
#include <spindle/string.h>

/* Independent of the code under test: a byte loop, nothing clever. */
static bool same_bytes(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return false;
	}
	return true;
}

static bool same_str(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* Core: memory --------------------------------------------------------- */

/*
 * Every offset in a word and lengths around a word's size, so the byte
 * head, the word middle and the byte tail of memset/memcpy are all
 * exercised.  A reference copy made byte by byte is the oracle, and the
 * bytes around the target must be left alone.
 */
#define MEM_AREA 64
#define MAX_OFF 8
#define MAX_LEN 40

static void fill_pattern(unsigned char *p, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7);
}

START_TEST(test_memset_offsets)
{
	unsigned char area[MEM_AREA], want[MEM_AREA];
	size_t off = _i;	/* one check per start offset, all lengths */

	for (size_t len = 0; len <= MAX_LEN; len++) {
		fill_pattern(area, sizeof(area), 1);
		fill_pattern(want, sizeof(want), 1);
		for (size_t i = 0; i < len; i++)
			want[off + i] = 0xa5;
		/* c is an int of which only the low byte counts */
		ck_assert_ptr_eq(memset(area + off, 0x1a5, len), area + off);
		ck_assert_msg(same_bytes(area, want, sizeof(area)),
			      "memset off %zu len %zu", off, len);
	}
}
END_TEST

START_TEST(test_memcpy_offsets)
{
	unsigned char src[MEM_AREA], area[MEM_AREA], want[MEM_AREA];
	/* One check per (dst offset, src offset), all lengths. */
	size_t doff = _i % MAX_OFF, soff = _i / MAX_OFF;

	fill_pattern(src, sizeof(src), 100);
	for (size_t len = 0; len <= MAX_LEN; len++) {
		fill_pattern(area, sizeof(area), 1);
		fill_pattern(want, sizeof(want), 1);
		for (size_t i = 0; i < len; i++)
			want[doff + i] = src[soff + i];
		ck_assert_ptr_eq(memcpy(area + doff, src + soff, len), area + doff);
		ck_assert_msg(same_bytes(area, want, sizeof(area)),
			      "memcpy dst+%zu src+%zu len %zu", doff, soff, len);
	}
}
END_TEST

/* memmove within one buffer: destination and source overlap or touch. */
static const struct {
	size_t dst, src, len;
} memmove_cases[] = {
	{  0,  1, 10 },		/* down by one */
	{  1,  0, 10 },		/* up by one: a forward copy would smear */
	{  0,  8, 24 },		/* down by a word */
	{  8,  0, 24 },		/* up by a word */
	{  3, 17, 30 },
	{ 17,  3, 30 },
	{  5,  5, 20 },		/* onto itself */
	{  0, 10, 10 },		/* adjacent, not overlapping */
	{ 10,  0, 10 },
	{  4,  2,  0 },		/* nothing */
	{  0,  0, 64 },
};

START_TEST(test_memmove_overlap)
{
	unsigned char area[MEM_AREA], want[MEM_AREA], tmp[MEM_AREA];
	size_t d = memmove_cases[_i].dst, s = memmove_cases[_i].src;
	size_t len = memmove_cases[_i].len;

	/* The definition of memmove: as if through a temporary buffer. */
	fill_pattern(area, sizeof(area), 1);
	fill_pattern(want, sizeof(want), 1);
	for (size_t i = 0; i < len; i++)
		tmp[i] = want[s + i];
	for (size_t i = 0; i < len; i++)
		want[d + i] = tmp[i];

	ck_assert_ptr_eq(memmove(area + d, area + s, len), area + d);
	ck_assert_msg(same_bytes(area, want, sizeof(area)),
		      "memmove dst %zu src %zu len %zu", d, s, len);
}
END_TEST

/* a and b are compared over n bytes; want is the sign of the result. */
static const struct {
	const char *a, *b;
	size_t n;
	int want;
} memcmp_cases[] = {
	{ "abc", "abc", 3, 0 },
	{ "abc", "abd", 3, -1 },
	{ "abd", "abc", 3, 1 },
	{ "abc", "abd", 2, 0 },		/* difference beyond n */
	{ "a", "b", 0, 0 },
	{ "\x80", "\x7f", 1, 1 },	/* bytes are unsigned */
	{ "\xff", "\x01", 1, 1 },
	{ "a\0b", "a\0c", 3, -1 },	/* NUL is just a byte */
};

START_TEST(test_memcmp_table)
{
	ck_assert_int_eq(sign(memcmp(memcmp_cases[_i].a, memcmp_cases[_i].b,
				     memcmp_cases[_i].n)), memcmp_cases[_i].want);
}
END_TEST

START_TEST(test_memchr)
{
	static const char s[] = "hello\0world";
	static const unsigned char high[] = { 0x01, 0xff };

	ck_assert_ptr_eq(memchr(s, 'l', sizeof(s)), s + 2);
	ck_assert_ptr_eq(memchr(s, 'w', sizeof(s)), s + 6);	/* past a NUL */
	ck_assert_ptr_eq(memchr(s, '\0', sizeof(s)), s + 5);
	ck_assert_ptr_null(memchr(s, 'w', 6));			/* beyond n */
	ck_assert_ptr_null(memchr(s, 'h', 0));
	ck_assert_ptr_eq(memchr(s, 'h' + 256, sizeof(s)), s);	/* c as unsigned char */
	ck_assert_ptr_eq(memchr(high, -1, sizeof(high)), high + 1);	/* -1 is 0xff */
}
END_TEST

/* Core: strings -------------------------------------------------------- */

START_TEST(test_strlen)
{
	static const char unterminated[4] = { 'a', 'b', 'c', 'd' };

	ck_assert_uint_eq(strlen(""), 0);
	ck_assert_uint_eq(strlen("a"), 1);
	ck_assert_uint_eq(strlen("hello world"), 11);
	ck_assert_uint_eq(strnlen("hello", 3), 3);
	ck_assert_uint_eq(strnlen("hello", 5), 5);
	ck_assert_uint_eq(strnlen("hello", 99), 5);
	ck_assert_uint_eq(strnlen("hello", 0), 0);
	/* strnlen must not look at unterminated[4]. */
	ck_assert_uint_eq(strnlen(unterminated, sizeof(unterminated)), 4);
}
END_TEST

/* n == SIZE_MAX stands for strcmp, any other n for strncmp. */
static const struct {
	const char *a, *b;
	size_t n;
	int want;
} strcmp_cases[] = {
	{ "", "", SIZE_MAX, 0 },
	{ "abc", "abc", SIZE_MAX, 0 },
	{ "abc", "abd", SIZE_MAX, -1 },
	{ "abc", "ab", SIZE_MAX, 1 },		/* prefix sorts first */
	{ "ab", "abc", SIZE_MAX, -1 },
	{ "", "a", SIZE_MAX, -1 },
	{ "\xe9", "e", SIZE_MAX, 1 },		/* unsigned, as C requires */
	{ "abc", "abd", 2, 0 },
	{ "abc", "abd", 3, -1 },
	{ "ab", "abc", 2, 0 },
	{ "ab", "abc", 3, -1 },
	{ "abc", "abc", 10, 0 },
	{ "ab\0x", "ab\0y", 5, 0 },		/* nothing counts after the NUL */
	{ "x", "y", 0, 0 },
	{ "\x80", "\x7f", 1, 1 },
};

START_TEST(test_strcmp_table)
{
	const char *a = strcmp_cases[_i].a, *b = strcmp_cases[_i].b;
	size_t n = strcmp_cases[_i].n;
	int got = n == SIZE_MAX ? strcmp(a, b) : strncmp(a, b, n);

	ck_assert_msg(sign(got) == strcmp_cases[_i].want,
		      "cmp(\"%s\", \"%s\", %zu) = %d, want sign %d",
		      a, b, n, got, strcmp_cases[_i].want);
}
END_TEST

/*
 * Search functions, with the offset of the expected match (-1 for NULL).
 * op: 'c' strchr, 'r' strrchr, 's' strstr (needle in needle, c unused).
 */
static const struct {
	char op;
	const char *haystack;
	int c;
	const char *needle;
	int want;
} search_cases[] = {
	{ 'c', "hello", 'l', NULL, 2 },
	{ 'c', "hello", 'z', NULL, -1 },
	{ 'c', "hello", '\0', NULL, 5 },	/* the terminator is found */
	{ 'c', "", 'a', NULL, -1 },
	{ 'c', "h\xe9llo", 0xe9, NULL, 1 },	/* c converted to char */
	{ 'r', "hello", 'l', NULL, 3 },
	{ 'r', "hello", 'h', NULL, 0 },
	{ 'r', "hello", 'z', NULL, -1 },
	{ 'r', "hello", '\0', NULL, 5 },
	{ 's', "hello world", 0, "world", 6 },
	{ 's', "hello world", 0, "o", 4 },
	{ 's', "hello", 0, "", 0 },		/* empty needle: at once */
	{ 's', "", 0, "", 0 },
	{ 's', "", 0, "a", -1 },
	{ 's', "hello", 0, "hello!", -1 },	/* needle runs past the end */
	{ 's', "aaab", 0, "aab", 1 },		/* a false start first */
	{ 's', "abc", 0, "abd", -1 },
};

START_TEST(test_search_table)
{
	const char *h = search_cases[_i].haystack;
	const char *got;

	switch (search_cases[_i].op) {
	case 'c':
		got = strchr(h, search_cases[_i].c);
		break;
	case 'r':
		got = strrchr(h, search_cases[_i].c);
		break;
	default:
		got = strstr(h, search_cases[_i].needle);
		break;
	}
	if (search_cases[_i].want < 0)
		ck_assert_ptr_null(got);
	else
		ck_assert_ptr_eq(got, h + search_cases[_i].want);
}
END_TEST

/*
 * strlcpy (init NULL) or strlcat (onto init) into a 16-byte buffer told it
 * has size bytes; the bytes from size on must stay untouched.
 */
#define LBUF 16

static const struct {
	const char *init, *src;
	size_t size;
	const char *want;
	size_t ret;
} strl_cases[] = {
	{ NULL, "hello", 16, "hello", 5 },
	{ NULL, "hello", 6, "hello", 5 },
	{ NULL, "hello", 5, "hell", 5 },	/* truncated: ret >= size */
	{ NULL, "hello", 1, "", 5 },
	{ NULL, "hello", 0, NULL, 5 },		/* nothing written at all */
	{ NULL, "", 4, "", 0 },
	{ "foo", "bar", 16, "foobar", 6 },
	{ "foo", "bar", 7, "foobar", 6 },
	{ "foo", "bar", 6, "fooba", 6 },
	{ "foo", "bar", 4, "foo", 6 },
	{ "foo", "", 4, "foo", 3 },
	{ "foo", "bar", 3, "foo", 6 },		/* no NUL within size: full */
	{ "", "bar", 16, "bar", 3 },
};

START_TEST(test_strl_table)
{
	char buf[LBUF];
	const char *init = strl_cases[_i].init;
	size_t size = strl_cases[_i].size, ret, from;

	for (size_t i = 0; i < LBUF; i++)
		buf[i] = '#';
	if (init) {
		for (size_t i = 0; i <= strlen(init); i++)
			buf[i] = init[i];
		ret = strlcat(buf, strl_cases[_i].src, size);
	} else {
		ret = strlcpy(buf, strl_cases[_i].src, size);
	}
	ck_assert_uint_eq(ret, strl_cases[_i].ret);
	if (strl_cases[_i].want)
		ck_assert_msg(same_str(buf, strl_cases[_i].want),
			      "got \"%.16s\", want \"%s\"", buf, strl_cases[_i].want);
	/* From size on (and past the initial string), nothing was written. */
	from = init ? strlen(init) + 1 : 0;
	for (size_t i = from > size ? from : size; i < LBUF; i++)
		ck_assert_msg(buf[i] == '#', "byte %zu overwritten", i);
}
END_TEST

START_TEST(test_strsep)
{
	char line[] = "a,b,,c";
	char spaces[] = " x\ty ";
	char *p = line, *q = spaces, *none = NULL;

	ck_assert(same_str(strsep(&p, ","), "a"));
	ck_assert(same_str(strsep(&p, ","), "b"));
	ck_assert(same_str(strsep(&p, ","), ""));	/* empty token kept */
	ck_assert(same_str(strsep(&p, ","), "c"));
	ck_assert_ptr_null(p);				/* last token ends it */
	ck_assert_ptr_null(strsep(&p, ","));

	/* Any one of several delimiters splits. */
	ck_assert(same_str(strsep(&q, " \t"), ""));
	ck_assert(same_str(strsep(&q, " \t"), "x"));
	ck_assert(same_str(strsep(&q, " \t"), "y"));
	ck_assert(same_str(strsep(&q, " \t"), ""));
	ck_assert_ptr_null(q);

	ck_assert_ptr_null(strsep(&none, ","));
}
END_TEST

/* Limits: number parsing ------------------------------------------------ */

/* A value the parsers must not store when they fail. */
#define UNTOUCHED 0x5a5a5a5a

static const struct {
	const char *s;
	unsigned int base;
	int err;
	unsigned long long val;
} ull_cases[] = {
	{ "0", 10, 0, 0 },
	{ "123", 10, 0, 123 },
	{ "+123", 10, 0, 123 },
	{ "123\n", 10, 0, 123 },		/* one newline allowed */
	{ "0x1f", 0, 0, 31 },
	{ "0X1F", 0, 0, 31 },
	{ "017", 0, 0, 15 },			/* leading 0: octal */
	{ "0", 0, 0, 0 },
	{ "99", 0, 0, 99 },
	{ "ff", 16, 0, 255 },
	{ "0xff", 16, 0, 255 },
	{ "FF", 16, 0, 255 },
	{ "101", 2, 0, 5 },
	{ "777", 8, 0, 511 },
	{ "18446744073709551615", 10, 0, UINT64_MAX },
	{ "0xffffffffffffffff", 0, 0, UINT64_MAX },
	{ "1777777777777777777777", 8, 0, UINT64_MAX },
	{ "18446744073709551616", 10, -ERANGE, 0 },
	{ "0x10000000000000000", 0, -ERANGE, 0 },
	{ "99999999999999999999x", 10, -ERANGE, 0 },	/* overflow reported first, as Linux */
	{ "", 10, -EINVAL, 0 },
	{ "\n", 10, -EINVAL, 0 },
	{ "+", 10, -EINVAL, 0 },
	{ " 1", 10, -EINVAL, 0 },		/* no whitespace */
	{ "1 ", 10, -EINVAL, 0 },
	{ "1\n\n", 10, -EINVAL, 0 },
	{ "-1", 10, -EINVAL, 0 },
	{ "++1", 10, -EINVAL, 0 },
	{ "12a", 10, -EINVAL, 0 },
	{ "0x", 16, -EINVAL, 0 },
	{ "0x", 0, -EINVAL, 0 },
	{ "08", 0, -EINVAL, 0 },		/* 8 is no octal digit */
	{ "19", 8, -EINVAL, 0 },
	{ "2", 2, -EINVAL, 0 },
	{ "1", 1, -EINVAL, 0 },			/* no such base */
	{ "1", 17, -EINVAL, 0 },
};

START_TEST(test_kstrtoull_table)
{
	unsigned long long v = UNTOUCHED;
	int err = kstrtoull(ull_cases[_i].s, ull_cases[_i].base, &v);

	ck_assert_msg(err == ull_cases[_i].err, "kstrtoull(\"%s\", %u) = %d, want %d",
		      ull_cases[_i].s, ull_cases[_i].base, err, ull_cases[_i].err);
	ck_assert_uint_eq(v, err ? UNTOUCHED : ull_cases[_i].val);
}
END_TEST

static const struct {
	const char *s;
	unsigned int base;
	int err;
	long long val;
} ll_cases[] = {
	{ "0", 10, 0, 0 },
	{ "-0", 10, 0, 0 },
	{ "+5", 10, 0, 5 },
	{ "-5", 10, 0, -5 },
	{ "-0x10", 0, 0, -16 },
	{ "-010", 0, 0, -8 },
	{ "-5\n", 10, 0, -5 },
	{ "9223372036854775807", 10, 0, INT64_MAX },
	{ "-9223372036854775808", 10, 0, INT64_MIN },
	{ "9223372036854775808", 10, -ERANGE, 0 },
	{ "-9223372036854775809", 10, -ERANGE, 0 },
	{ "-18446744073709551615", 10, -ERANGE, 0 },
	{ "-99999999999999999999", 10, -ERANGE, 0 },
	{ "-", 10, -EINVAL, 0 },
	{ "--1", 10, -EINVAL, 0 },
	{ "-+1", 10, -EINVAL, 0 },
	{ "+-1", 10, -EINVAL, 0 },
	{ "- 1", 10, -EINVAL, 0 },
};

START_TEST(test_kstrtoll_table)
{
	long long v = UNTOUCHED;
	int err = kstrtoll(ll_cases[_i].s, ll_cases[_i].base, &v);

	ck_assert_msg(err == ll_cases[_i].err, "kstrtoll(\"%s\", %u) = %d, want %d",
		      ll_cases[_i].s, ll_cases[_i].base, err, ll_cases[_i].err);
	ck_assert_int_eq(v, err ? UNTOUCHED : ll_cases[_i].val);
}
END_TEST

/* The 32-bit variants: the same parser, then a range check. */
START_TEST(test_kstrto_int_ranges)
{
	unsigned int u = UNTOUCHED;
	int i = UNTOUCHED;

	ck_assert_int_eq(kstrtouint("4294967295", 10, &u), 0);
	ck_assert_uint_eq(u, UINT32_MAX);
	ck_assert_int_eq(kstrtouint("0x7b", 0, &u), 0);
	ck_assert_uint_eq(u, 123);
	u = UNTOUCHED;
	ck_assert_int_eq(kstrtouint("4294967296", 10, &u), -ERANGE);
	ck_assert_int_eq(kstrtouint("-1", 10, &u), -EINVAL);
	ck_assert_int_eq(kstrtouint("x", 10, &u), -EINVAL);
	ck_assert_uint_eq(u, UNTOUCHED);

	ck_assert_int_eq(kstrtoint("2147483647", 10, &i), 0);
	ck_assert_int_eq(i, INT32_MAX);
	ck_assert_int_eq(kstrtoint("-2147483648", 10, &i), 0);
	ck_assert_int_eq(i, INT32_MIN);
	ck_assert_int_eq(kstrtoint("-42\n", 10, &i), 0);
	ck_assert_int_eq(i, -42);
	i = UNTOUCHED;
	ck_assert_int_eq(kstrtoint("2147483648", 10, &i), -ERANGE);
	ck_assert_int_eq(kstrtoint("-2147483649", 10, &i), -ERANGE);
	ck_assert_int_eq(kstrtoint("4294967295", 10, &i), -ERANGE);
	ck_assert_int_eq(kstrtoint("1.5", 10, &i), -EINVAL);
	ck_assert_int_eq(i, UNTOUCHED);
}
END_TEST

/* used: how many characters memparse() consumed (*end - s). */
static const struct {
	const char *s;
	unsigned long long val;
	size_t used;
} memparse_cases[] = {
	{ "0", 0, 1 },
	{ "4096", 4096, 4 },
	{ "4K", 4096, 2 },
	{ "4k", 4096, 2 },
	{ "16M", 16ULL << 20, 3 },
	{ "16m", 16ULL << 20, 3 },
	{ "2G", 2ULL << 30, 2 },
	{ "3g", 3ULL << 30, 2 },
	{ "1T", 1ULL << 40, 2 },
	{ "1t", 1ULL << 40, 2 },
	{ "0x10M", 16ULL << 20, 5 },		/* any C notation */
	{ "010K", 8ULL << 10, 4 },
	{ "1Kb", 1024, 2 },			/* stops after the suffix */
	{ "12 ", 12, 2 },
	{ "7X", 7, 1 },				/* not a suffix */
	{ "512M,rest", 512ULL << 20, 4 },
	{ "0x", 0, 1 },				/* the 0, then "x" */
	{ "", 0, 0 },				/* no number: end == s */
	{ "K", 0, 0 },
	{ "-1", 0, 0 },
};

START_TEST(test_memparse_table)
{
	const char *s = memparse_cases[_i].s;
	char *end = NULL;

	ck_assert_uint_eq(memparse(s, &end), memparse_cases[_i].val);
	ck_assert_msg(end == s + memparse_cases[_i].used, "\"%s\": used %td, want %zu",
		      s, end - s, memparse_cases[_i].used);
	ck_assert_uint_eq(memparse(s, NULL), memparse_cases[_i].val);	/* end optional */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("String");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_loop_test(core, test_memset_offsets, 0, MAX_OFF);
	tcase_add_loop_test(core, test_memcpy_offsets, 0, MAX_OFF * MAX_OFF);
	tcase_add_loop_test(core, test_memmove_overlap, 0, ARRAY_SIZE(memmove_cases));
	tcase_add_loop_test(core, test_memcmp_table, 0, ARRAY_SIZE(memcmp_cases));
	tcase_add_test(core, test_memchr);
	tcase_add_test(core, test_strlen);
	tcase_add_loop_test(core, test_strcmp_table, 0, ARRAY_SIZE(strcmp_cases));
	tcase_add_loop_test(core, test_search_table, 0, ARRAY_SIZE(search_cases));
	tcase_add_loop_test(core, test_strl_table, 0, ARRAY_SIZE(strl_cases));
	tcase_add_test(core, test_strsep);
	suite_add_tcase(s, core);

	tcase_add_loop_test(limits, test_kstrtoull_table, 0, ARRAY_SIZE(ull_cases));
	tcase_add_loop_test(limits, test_kstrtoll_table, 0, ARRAY_SIZE(ll_cases));
	tcase_add_test(limits, test_kstrto_int_ranges);
	tcase_add_loop_test(limits, test_memparse_table, 0, ARRAY_SIZE(memparse_cases));
	suite_add_tcase(s, limits);
	return s;
}
