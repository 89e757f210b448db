// SPDX-License-Identifier: MIT
/*
 * The kernel command line: GRUB's line, then the QEMU fw_cfg file
 * opt/spindle/cmdline when present, joined with a space.
 * Tests put their options in the fw_cfg file, so one ISO serves every
 * scenario; `make qemu ARGS='...'` does the same.
 *
 * parse_args() walks the words in order and calls every matching
 * __setup() handler (include/spindle/init.h).  Words no handler knows are
 * reported once, as Linux does, and otherwise ignored.  "key=a,b" style
 * lists are split by their handlers.  A value that must contain spaces is
 * put in double quotes, as on Linux (dm-mod.create="lin,,,rw,0 16384
 * linear ram0 0"): the quotes keep it one word and are removed before the
 * handler sees it.  The text work -- joining, cutting into words,
 * matching -- is in lib/cmdline.c (portable, fuzzed on the host); this
 * file is where the line comes from and where its words go.
 */
#include <spindle/init.h>
#include <spindle/cmdline.h>
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/fw_cfg.h>

#define COMMAND_LINE_SIZE 2048
#define FW_CFG_CMDLINE    "opt/spindle/cmdline"

char saved_command_line[COMMAND_LINE_SIZE];

extern const struct kernel_param __setup_start[], __setup_end[];

static void append(const char *s, size_t n)
{
	cmdline_append(saved_command_line, sizeof(saved_command_line), s, n);
}

void cmdline_init(const char *grub_line)
{
	static char fw[COMMAND_LINE_SIZE];
	long n;

	saved_command_line[0] = '\0';
	append(grub_line, strlen(grub_line));
	n = fw_cfg_read_file(FW_CFG_CMDLINE, fw, sizeof(fw) - 1);
	if (n > (long)sizeof(fw) - 1)
		pr_warn("cmdline: %s is %ld bytes, only %zu used\n",
			FW_CFG_CMDLINE, n, sizeof(fw) - 1);
	if (n > 0)
		append(fw, min((size_t)n, sizeof(fw) - 1));
}

/* Call fn(word) for each word of the command line (next_arg()). */
static void for_each_word(void (*fn)(const char *word, void *arg), void *arg)
{
	char word[COMMAND_LINE_SIZE];
	const char *p = saved_command_line;

	while ((p = next_arg(p, word, sizeof(word))) != NULL) {
		if (word[0])
			fn(word, arg);
	}
}

static void parse_one(const char *word, void *arg)
{
	bool known = false;
	const char *val;

	(void)arg;
	for (const struct kernel_param *kp = __setup_start; kp < __setup_end; kp++) {
		if (!cmdline_param_match(kp->str, word, &val))
			continue;
		known = true;
		if (kp->setup(val) != 0)
			pr_warn("Malformed kernel command line option '%s', ignored\n", word);
	}
	/* GRUB's BOOT_IMAGE= and options for later stages are not errors. */
	if (!known && strncmp(word, "BOOT_IMAGE=", 11) != 0)
		pr_notice("Unknown kernel command line parameter '%s', ignored\n", word);
}

void parse_args(void)
{
	for_each_word(parse_one, NULL);
}

struct get_arg {
	const char *key;
	char *buf;
	size_t size;
	bool found;
};

static void get_one(const char *word, void *arg)
{
	struct get_arg *g = arg;
	size_t n = strlen(g->key);

	if (strncmp(word, g->key, n) == 0 && word[n] == '=') {
		strlcpy(g->buf, word + n + 1, g->size);
		g->found = true;
	}
}

const char *cmdline_get(const char *key, char *buf, size_t size)
{
	struct get_arg g = { key, buf, size, false };

	for_each_word(get_one, &g);
	return g.found ? buf : NULL;
}

bool cmdline_flag(const char *key)
{
	char val[16];

	return cmdline_get(key, val, sizeof(val)) && strcmp(val, "0") != 0 &&
	       strcmp(val, "off") != 0;
}
