// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/log_buf.c, the kernel log's ring.  The oracle is a
 * plain string of everything written: what the ring keeps must be a
 * suffix of it that starts at a line, no longer than the ring, and the
 * longest such suffix when lines are short; log_buf_tail() must give the
 * longest run of whole last lines that fits the reader's buffer, as
 * Linux's syslog_print_all() does.
 */
#include <check.h>
#include <string.h>
#include <stdio.h>
#include <spindle/log_buf.h>
#include <spindle/printk.h>

#define RING 64

static char text[RING];
static struct log_buf lb;
static char all[8192];          /* every byte written, in order */
static size_t all_len;

static void setup(void)
{
	log_buf_init(&lb, text, RING);
	all_len = 0;
}

static void put(const char *s)
{
	log_buf_write(&lb, s, strlen(s));
	memcpy(all + all_len, s, strlen(s));
	all_len += strlen(s);
}

/* what the ring holds from seq on, as a string */
static const char *kept_from(u64 seq)
{
	static char out[RING + 1];
	size_t n = log_buf_copy(&lb, &seq, out, RING);

	out[n] = '\0';
	ck_assert_uint_eq(seq, lb.next);
	return out;
}

START_TEST(keeps_everything_that_fits)
{
	put("<6>[    0.000000] one\n");
	put("<4>[    0.000001] two\n");
	ck_assert_uint_eq(lb.first, 0);
	ck_assert_str_eq(kept_from(0), all);
}
END_TEST

/* 200 numbered lines through a 64-byte ring: each time, the ring holds
 * the longest suffix of whole lines that fits */
START_TEST(drops_whole_oldest_lines)
{
	for (int i = 0; i < 200; i++) {
		char line[32];
		size_t start;

		snprintf(line, sizeof(line), "<6>[%d] line %d\n", i, i);
		put(line);
		ck_assert_uint_le(lb.next - lb.first, RING);
		ck_assert_uint_eq(lb.next, all_len);
		start = lb.first;
		ck_assert(start == 0 || all[start - 1] == '\n');
		/* and no earlier line start would have fitted */
		if (start > 0) {
			size_t prev = start - 1;

			while (prev > 0 && all[prev - 1] != '\n')
				prev--;
			ck_assert_uint_gt(all_len - prev, RING);
		}
		ck_assert_str_eq(kept_from(0), all + start);
	}
}
END_TEST

/* A line still being written (printk without "\n") is dropped whole
 * once the writer needs its room, and the continuation then only. */
START_TEST(partial_line_continues)
{
	put("<6>[1] a");
	put("b\n");
	ck_assert_str_eq(kept_from(0), "<6>[1] ab\n");
}
END_TEST

START_TEST(tail_takes_whole_last_lines)
{
	put("<6>[1] aaaa\n");    /* 12 bytes */
	put("<6>[2] bbbb\n");
	put("<6>[3] cccc\n");
	/* everything fits */
	ck_assert_uint_eq(log_buf_tail(&lb, 0, 100), 0);
	/* 24 bytes: exactly the last two lines */
	ck_assert_str_eq(kept_from(log_buf_tail(&lb, 0, 24)), "<6>[2] bbbb\n<6>[3] cccc\n");
	/* 23 bytes: the second line no longer fits whole */
	ck_assert_str_eq(kept_from(log_buf_tail(&lb, 0, 23)), "<6>[3] cccc\n");
	/* from a clear point: only what came after it */
	ck_assert_str_eq(kept_from(log_buf_tail(&lb, 24, 100)), "<6>[3] cccc\n");
	/* a buffer too small for the last line gets nothing */
	ck_assert_uint_eq(log_buf_tail(&lb, 0, 5), lb.next);
}
END_TEST

START_TEST(copy_from_a_dropped_seq_starts_at_first)
{
	u64 seq = 0;
	char out[RING];
	size_t n;

	for (int i = 0; i < 20; i++)
		put("<6>[0] xxxxxxxx\n");
	n = log_buf_copy(&lb, &seq, out, sizeof(out));
	ck_assert_uint_eq(n, lb.next - lb.first);
	ck_assert_int_eq(memcmp(out, all + lb.first, n), 0);
}
END_TEST

START_TEST(oversized_write_keeps_its_end)
{
	char big[201];

	memset(big, 'z', sizeof(big));
	big[199] = '\n';
	big[200] = '\0';
	log_buf_write(&lb, big, 200);
	ck_assert_uint_eq(lb.next - lb.first, RING - 1);
	ck_assert_str_eq(kept_from(0), big + 200 - (RING - 1));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("LogBuf");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, NULL);
	tcase_add_test(core, keeps_everything_that_fits);
	tcase_add_test(core, partial_line_continues);
	tcase_add_test(core, tail_takes_whole_last_lines);
	suite_add_tcase(s, core);
	tcase_add_checked_fixture(limits, setup, NULL);
	tcase_add_test(limits, drops_whole_oldest_lines);
	tcase_add_test(limits, copy_from_a_dropped_seq_starts_at_first);
	tcase_add_test(limits, oversized_write_keeps_its_end);
	suite_add_tcase(s, limits);
	return s;
}
