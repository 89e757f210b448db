// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/cmdline.c: joining the command line's pieces,
 * cutting it into words, matching a word to an option.
 *
 * Core:   cmdline_append() on the cases boot meets (GRUB's line, then a
 *         file with newlines); next_arg() on a table of lines with
 *         quotes; cmdline_param_match() for "key=" and bare keys.
 * Limits: what does not fit is cut, never overrun; an unclosed quote runs
 *         to the end; a word longer than the buffer is cut; and an outside
 *         oracle -- the host's /bin/sh splits the same random lines of
 *         letters, spaces and balanced double quotes into words (its
 *         quoting rules for these characters are the kernel's, but that
 *         it keeps a "" word, which the kernel skips).
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/cmdline.h>
#include <spindle/printk.h>
#include <spindle/string.h>

START_TEST(append_pieces)
{
	char line[64] = "";

	ck_assert_uint_eq(cmdline_append(line, sizeof(line), "root=x quiet", 12), 12);
	ck_assert_str_eq(line, "root=x quiet");
	/* a file's lines: newlines and tabs become spaces; one space between */
	cmdline_append(line, sizeof(line), "a=1\nb=2\tc\r\n", 11);
	ck_assert_str_eq(line, "root=x quiet a=1 b=2 c  ");
	/* a NUL ends the text whatever n says; n = 0 adds nothing at all */
	cmdline_append(line, sizeof(line), "d\0e", 3);
	ck_assert_str_eq(line, "root=x quiet a=1 b=2 c   d");
	cmdline_append(line, sizeof(line), "zzz", 0);
	ck_assert_str_eq(line, "root=x quiet a=1 b=2 c   d");
}
END_TEST

static const struct {
	const char *line;
	const char *words[6];           /* NULL after the last */
} word_cases[] = {
	{ "", { NULL } },
	{ "    ", { NULL } },
	{ "quiet", { "quiet" } },
	{ "  a  b ", { "a", "b" } },
	{ "dm-mod.create=\"lin,,,rw,0 16384 linear ram0 0\" test=dm",
	  { "dm-mod.create=lin,,,rw,0 16384 linear ram0 0", "test=dm" } },
	{ "x\"a b\"y\"c d\"z", { "xa byc dz" } },
	{ "a \"\" b", { "a", "", "b" } },
	{ "a \"open quote runs to the end", { "a", "open quote runs to the end" } },
};

START_TEST(words)
{
	const char *p = word_cases[_i].line;
	char word[64];
	int n = 0;

	while ((p = next_arg(p, word, sizeof(word))) != NULL) {
		ck_assert_ptr_nonnull(word_cases[_i].words[n]);
		ck_assert_str_eq(word, word_cases[_i].words[n]);
		n++;
	}
	ck_assert_ptr_null(word_cases[_i].words[n]);
	ck_assert_str_eq(word, "");
}
END_TEST

START_TEST(param_match)
{
	const char *val = NULL;

	ck_assert(cmdline_param_match("pattern=", "pattern=sda,0,8", &val));
	ck_assert_str_eq(val, "sda,0,8");
	ck_assert(cmdline_param_match("pattern=", "pattern=", &val));
	ck_assert_str_eq(val, "");
	ck_assert(!cmdline_param_match("pattern=", "pattern", &val));
	ck_assert(!cmdline_param_match("pattern=", "patterns=1", &val));
	ck_assert(cmdline_param_match("quiet", "quiet", &val));
	ck_assert_str_eq(val, "");
	ck_assert(!cmdline_param_match("quiet", "quiet=1", &val));
	ck_assert(!cmdline_param_match("quiet", "quie", &val));
	/* an empty key matches only an empty word, and reads nothing before it */
	ck_assert(!cmdline_param_match("", "x", &val));
}
END_TEST

START_TEST(append_cut)
{
	char line[8] = "abcdef";

	/* room for one more byte: the space, not a letter */
	ck_assert_uint_eq(cmdline_append(line, sizeof(line), "xyz", 3), 7);
	ck_assert_str_eq(line, "abcdef ");
	ck_assert_uint_eq(cmdline_append(line, sizeof(line), "xyz", 3), 7);
	ck_assert_str_eq(line, "abcdef ");
	/* a line that already fills its buffer stays as it is */
	memcpy(line, "1234567", 8);
	ck_assert_uint_eq(cmdline_append(line, sizeof(line), "x", 1), 7);
	ck_assert_str_eq(line, "1234567");
}
END_TEST

START_TEST(word_cut)
{
	char word[4];
	const char *p = next_arg("abcdefg next", word, sizeof(word));

	ck_assert_str_eq(word, "abc");
	ck_assert_str_eq(p, " next");   /* the rest of the long word is skipped */
	p = next_arg(p, word, sizeof(word));
	ck_assert_str_eq(word, "nex");
	ck_assert_ptr_null(next_arg(p, word, sizeof(word)));
}
END_TEST

static u64 rng_state = 0x5350494e444c45ull;

static u32 rng_next(void)
{
	/* xorshift64: deterministic, so a failure repeats */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (u32)rng_state;
}

/* The words /bin/sh makes of line, as "[w1][w2]..." without empty ones. */
static void sh_words(const char *line, char *out, size_t size)
{
	char cmd[512], buf[512];
	size_t len = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "eval 'set -- %s'; for w; do [ -n \"$w\" ] && printf '[%%s]' \"$w\"; done; echo",
		 line);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	pclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	len = strlcpy(out, buf, size);
	ck_assert_uint_lt(len, size);
}

START_TEST(shell_oracle)
{
	static const char alphabet[] = "ab= ,\"";

	for (int round = 0; round < 150; round++) {
		char line[40], expect[512], got[512] = "", word[64];
		const char *p;
		size_t n = 5 + rng_next() % 30, len = 0;
		int quotes = 0;

		for (size_t i = 0; i < n; i++) {
			line[i] = alphabet[rng_next() % (sizeof(alphabet) - 1)];
			quotes += line[i] == '"';
		}
		line[n] = '\0';
		if (quotes % 2)                 /* sh refuses an unclosed quote */
			line[n - 1] = line[n - 1] == '"' ? 'a' : '"';
		sh_words(line, expect, sizeof(expect));
		for (p = line; (p = next_arg(p, word, sizeof(word))) != NULL; ) {
			if (word[0])
				len += snprintf(got + len, sizeof(got) - len, "[%s]", word);
		}
		ck_assert_msg(strcmp(got, expect) == 0, "line '%s': kernel %s, sh %s",
			      line, got, expect);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("cmdline");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, append_pieces);
	tcase_add_loop_test(core, words, 0, ARRAY_SIZE(word_cases));
	tcase_add_test(core, param_match);
	suite_add_tcase(s, core);

	tcase_add_test(limits, append_cut);
	tcase_add_test(limits, word_cut);
	tcase_add_test(limits, shell_oracle);
	suite_add_tcase(s, limits);
	return s;
}
