// SPDX-License-Identifier: MIT
/*
 * dm-init.c - the text of dm-mod.create=, cut into devices, fields and
 * table lines (Linux's dm-init syntax; the grammar is at the top of dm.c).
 *
 * Interface: dm-init.h.  Called by dm.c while it creates the boot
 * option's devices; portable (also built into the host unit tests and the
 * fuzzer), does not sleep, allocates nothing: every field is a piece of
 * the caller's string, cut in place with strsep().
 *
 * The text comes from whoever wrote the boot loader's configuration, so
 * nothing in it is trusted: every number is checked whole (kstrtoull
 * refuses "12abc" and a value that does not fit), a sector count that
 * would wrap around is refused, and a line with more words than argv
 * holds is an error, not an overrun.  What only the running kernel can
 * judge -- a name or minor already taken, an unknown target type, a
 * missing device below -- is left to dm.c.
 */
#include <spindle/blkdev.h>             /* MINORBITS */
#include <spindle/errno.h>
#include <spindle/printk.h>         /* snprintf */
#include <spindle/string.h>
#include "dm-init.h"

#define DM_MAX_MINOR    ((1 << MINORBITS) - 1)

char *dm_next_device(char **spec)
{
	return strsep(spec, ";");
}

int dm_parse_device_entry(char *dev, struct dm_device_entry *de,
			  char *why, size_t why_len)
{
	char *name = strsep(&dev, ","), *uuid = strsep(&dev, ",");
	char *minor = strsep(&dev, ","), *flags = strsep(&dev, ",");
	unsigned int m;

	if (!flags || !dev || !*dev) {
		snprintf(why, why_len,
			 "'%s': expected <name>,<uuid>,<minor>,<flags>,<table>[,<table>...]",
			 name);
		return -EINVAL;
	}
	if (!*name || strlen(name) >= DM_NAME_LEN || strchr(name, '/')) {
		snprintf(why, why_len, "bad device name '%s'", name);
		return -EINVAL;
	}
	if (strlen(uuid) >= DM_UUID_LEN) {
		snprintf(why, why_len, "%s: uuid too long", name);
		return -EINVAL;
	}
	if (strcmp(flags, "ro") && strcmp(flags, "rw")) {
		snprintf(why, why_len, "%s: flags must be ro or rw, not '%s'", name, flags);
		return -EINVAL;
	}
	de->minor = -1;
	if (*minor) {
		if (kstrtouint(minor, 10, &m) || m > DM_MAX_MINOR) {
			snprintf(why, why_len, "%s: bad minor '%s'", name, minor);
			return -EINVAL;
		}
		de->minor = m;
	}
	de->name = name;
	de->uuid = uuid;
	de->ro = strcmp(flags, "ro") == 0;
	de->table = dev;
	de->nr_lines = 1;
	for (const char *p = dev; *p; p++)
		de->nr_lines += *p == ',';
	return 0;
}

/* Split line at spaces into argv; returns the count, or -E2BIG. */
static int dm_split_args(char *line, char **argv, int max)
{
	int argc = 0;
	char *word;

	while ((word = strsep(&line, " ")) != NULL) {
		if (!*word)
			continue;               /* several spaces in a row */
		if (argc == max)
			return -E2BIG;
		argv[argc++] = word;
	}
	return argc;
}

/*
 * Lines must come in order, each starting where the last ended (as
 * Linux's adjoin()): then the targets are sorted by start sector and cover
 * the device with neither gap nor overlap, which is what lets dm.c find a
 * sector's target by binary search.
 */
int dm_parse_table_entry(char **table, sector_t start, struct dm_table_entry *te,
			 char *why, size_t why_len)
{
	char *argv[3 + DM_MAX_TARGET_ARGS];
	char *line = strsep(table, ",");
	unsigned long long begin, len;
	int argc;

	if (!line)
		return 0;
	argc = dm_split_args(line, argv, ARRAY_SIZE(argv));
	if (argc < 0) {
		snprintf(why, why_len, "more than %d target arguments", DM_MAX_TARGET_ARGS);
		return argc;
	}
	if (argc < 3 || kstrtoull(argv[0], 10, &begin) || kstrtoull(argv[1], 10, &len)) {
		snprintf(why, why_len,
			 "expected <start_sector> <num_sectors> <target_type> <args...>");
		return -EINVAL;
	}
	if (len == 0 || begin + len < begin) {
		snprintf(why, why_len, "%s target of %llu sectors", argv[2], len);
		return -EINVAL;
	}
	if (begin != start) {
		snprintf(why, why_len, "%s target starts at sector %llu, expected %llu (%s)",
			 argv[2], begin, (unsigned long long)start,
			 begin > start ? "a gap" : "an overlap");
		return -EINVAL;
	}
	te->begin = begin;
	te->len = len;
	te->type = argv[2];
	te->argc = argc - 3;
	memcpy(te->argv, argv + 3, te->argc * sizeof(*argv));
	return 1;
}
