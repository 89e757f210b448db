// SPDX-License-Identifier: MIT
/*
 * fuzz_cmdline.c - the command-line text functions (lib/cmdline.c) fed
 * arbitrary boot loader lines and fw_cfg files.
 *
 * The input is what kernel/cmdline.c gets at boot: GRUB's line up to the
 * first NUL, then -- if there is more -- the bytes after that NUL as the
 * file opt/spindle/cmdline (which may hold NULs and newlines).  The line
 * is joined into a buffer of exactly COMMAND_LINE_SIZE bytes, allocated
 * alone so that ASan sees a write past it, and then cut into words twice:
 * with the kernel's word buffer, and with a tiny one that cuts most words.
 * The promises checked:
 *
 *   - the joined line is a C string inside its buffer, holds no newline,
 *     carriage return or tab, and is a prefix of the two pieces joined by
 *     a space (nothing invented, nothing reordered);
 *   - next_arg() always moves forward and stops, every word fits its
 *     buffer and holds no quote; and with a buffer as long as the line,
 *     the words put end to end are the line without its quotes and
 *     without the spaces outside quotes;
 *   - an option key ending in '=' matches a word that starts with it, and
 *     its value is the rest of the word.
 */
#include <spindle/cmdline.h>
#include "fuzz.h"

#define COMMAND_LINE_SIZE 2048          /* as kernel/cmdline.c */
#define SMALL_WORD        8

/* The line without quotes and without spaces outside quotes: what the
 * words must add up to. */
static size_t squeeze(const char *line, char *out)
{
	bool quoted = false;
	size_t n = 0;

	for (; *line; line++) {
		if (*line == '"')
			quoted = !quoted;
		else if (quoted || *line != ' ')
			out[n++] = *line;
	}
	out[n] = '\0';
	return n;
}

static void check_words(const char *line, size_t word_size, bool whole)
{
	char *word = malloc(word_size), *all = malloc(COMMAND_LINE_SIZE);
	char *expect = malloc(COMMAND_LINE_SIZE);
	const char *p = line, *next, *end = line + strlen(line);
	size_t all_len = 0;

	while ((next = next_arg(p, word, word_size)) != NULL) {
		const char *val;
		size_t len = strlen(word);

		FUZZ_ASSERT(next > p && next <= end);
		FUZZ_ASSERT(len < word_size && !strchr(word, '"'));
		memcpy(all + all_len, word, len);
		all_len += len;
		if (cmdline_param_match("dm-mod.create=", word, &val))
			FUZZ_ASSERT(strncmp(word, "dm-mod.create=", 14) == 0 && val == word + 14);
		if (cmdline_param_match("quiet", word, &val))
			FUZZ_ASSERT(strcmp(word, "quiet") == 0 && *val == '\0');
		p = next;
	}
	FUZZ_ASSERT(word[0] == '\0');
	all[all_len] = '\0';
	if (whole) {
		squeeze(line, expect);
		FUZZ_ASSERT(strcmp(all, expect) == 0);
	}
	free(word);
	free(all);
	free(expect);
}

/* Append the first n bytes of s, up to a NUL, as the line should: a
 * file's newlines and tabs read as spaces. */
static size_t plain_append(char *out, size_t len, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		out[len++] = (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i];
	out[len] = '\0';
	return len;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	const char *grub = (const char *)data, *file;
	size_t grub_len = strnlen(grub, size), file_len, len, n;
	char *line = malloc(COMMAND_LINE_SIZE), *joined = malloc(size + 2);

	fuzz_begin();
	file = grub + grub_len + 1;
	file_len = grub_len < size ? size - grub_len - 1 : 0;

	line[0] = '\0';
	cmdline_append(line, COMMAND_LINE_SIZE, grub, grub_len);
	len = cmdline_append(line, COMMAND_LINE_SIZE, file, file_len);
	FUZZ_ASSERT(len < COMMAND_LINE_SIZE && strlen(line) == len);
	FUZZ_ASSERT(!strchr(line, '\n') && !strchr(line, '\r') && !strchr(line, '\t'));

	/* The two pieces joined without any limit: the line is its prefix. */
	n = plain_append(joined, 0, grub, grub_len);
	if (n && file_len)
		joined[n++] = ' ';
	plain_append(joined, n, file, file_len);
	FUZZ_ASSERT(strncmp(line, joined, len) == 0);

	check_words(line, COMMAND_LINE_SIZE, true);
	check_words(line, SMALL_WORD, false);
	free(line);
	free(joined);
	fuzz_end();
	return 0;
}
