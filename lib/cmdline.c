// SPDX-License-Identifier: MIT
/*
 * cmdline.c - the kernel command line as text (interface: cmdline.h).
 *
 * Below kernel/cmdline.c, which builds the line at boot and hands its
 * words to the __setup() handlers; portable, does not sleep, allocates
 * nothing.  The line comes from outside the kernel -- a boot loader's
 * configuration, a file the host passed through fw_cfg -- so every copy
 * here is bounded by its destination, whatever the text holds.
 */
#include <spindle/cmdline.h>
#include <spindle/string.h>

size_t cmdline_append(char *line, size_t size, const char *s, size_t n)
{
	size_t len = strnlen(line, size - 1);

	if (len && n && len + 1 < size)
		line[len++] = ' ';
	for (size_t i = 0; i < n && len + 1 < size; i++) {
		char c = s[i];

		if (c == '\0')
			break;
		line[len++] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
	}
	line[len] = '\0';
	return len;
}

const char *next_arg(const char *args, char *word, size_t size)
{
	bool quoted = false;
	size_t n = 0;

	while (*args == ' ')
		args++;
	word[0] = '\0';
	if (!*args)
		return NULL;
	/* The loop ends at a space outside quotes, or at the end of the line:
	 * an unclosed quote runs to the end, as on Linux. */
	for (; *args && (quoted || *args != ' '); args++) {
		if (*args == '"')
			quoted = !quoted;
		else if (n + 1 < size)
			word[n++] = *args;
	}
	word[n] = '\0';
	return args;
}

bool cmdline_param_match(const char *key, const char *word, const char **val)
{
	size_t n = strlen(key);

	if (n && key[n - 1] == '=') {
		if (strncmp(word, key, n) != 0)
			return false;
		*val = word + n;
		return true;
	}
	*val = "";
	return strcmp(word, key) == 0;
}
