// SPDX-License-Identifier: MIT
/*
 * the project's verification pattern (lib/pattern.c): known splitmix64
 * values, word k counted from the device start, the first bad byte found.
 */
#include <check.h>
#include <spindle/pattern.h>

/* splitmix64(0), (1), (2): the generator's published reference outputs. */
static const u64 known[] = {
	0xe220a8397b1dcdafull, 0x910a2dec89025cc1ull, 0x975835de1c9756ceull,
};

START_TEST(splitmix64_reference)
{
	ck_assert_uint_eq(splitmix64(_i), known[_i]);
}
END_TEST

START_TEST(word_k_counts_from_device_start)
{
	u64 buf[4];

	pattern_fill(buf, 4096, sizeof(buf), 7);
	ck_assert_uint_eq(buf[0], splitmix64(7 + 512));
	ck_assert_uint_eq(buf[3], splitmix64(7 + 515));
	ck_assert_int_eq(pattern_check(buf, 4096, sizeof(buf), 7), -1);
	ck_assert_int_ne(pattern_check(buf, 4104, sizeof(buf), 7), -1);    /* shifted */
	ck_assert_int_ne(pattern_check(buf, 4096, sizeof(buf), 8), -1);    /* other seed */
}
END_TEST

START_TEST(first_bad_byte)
{
	u64 buf[64];

	pattern_fill(buf, 0, sizeof(buf), 1);
	((unsigned char *)buf)[203] ^= 0x10;
	((unsigned char *)buf)[300] ^= 0x01;
	ck_assert_int_eq(pattern_check(buf, 0, sizeof(buf), 1), 203);
	ck_assert_int_eq(pattern_check(buf + 8, 64, 256, 1), 203);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("Pattern");
	TCase *core = tcase_create("Core");

	tcase_add_loop_test(core, splitmix64_reference, 0, 3);
	tcase_add_test(core, word_k_counts_from_device_start);
	tcase_add_test(core, first_bad_byte);
	suite_add_tcase(s, core);
	return s;
}
