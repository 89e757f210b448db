/* SPDX-License-Identifier: MIT */
/*
 * dm-init.h - reading the dm-mod.create= boot option (dm-init.c): the text
 * of one mapped device and of its table lines, before any of it is built.
 *
 * Where it sits: the command line (kernel/cmdline.c) hands the option's
 * value to dm.c, which calls these to cut it into fields and checks what
 * only a running kernel can (is the name or the minor taken, does the
 * target type exist, do its devices), then builds the device.  Nothing
 * here touches a device, a list or a lock, so the same file runs in the
 * host unit tests (tests/unit/check_dm_init.c) and under the fuzzer
 * (tests/fuzz/fuzz_dm.c).  Linux's drivers/md/dm-init.c has the same
 * split, with the same two function names.
 *
 * Interface (the strings are cut in place, as strsep() does):
 *     while ((dev = dm_next_device(&spec)) != NULL) {
 *             err = dm_parse_device_entry(dev, &de, why, sizeof(why));
 *             start = 0;
 *             while ((err = dm_parse_table_entry(&de.table, start, &te,
 *                                                why, sizeof(why))) > 0)
 *                     start = te.begin + te.len;     build the target
 *     }
 * On error, why holds the reason for the log line (without the device's
 * disk name, which only the caller knows) and nothing was promised.  A
 * table that parsed has lines that start at sector 0 and follow each other
 * with neither gap nor overlap, each at least one sector long.
 */
#ifndef DRIVERS_MD_DM_INIT_H
#define DRIVERS_MD_DM_INIT_H

#include <spindle/types.h>

#define DM_NAME_LEN     128             /* as Linux's dm-ioctl.h */
#define DM_UUID_LEN     129
#define DM_MAX_TARGET_ARGS 64           /* words after "<start> <len> <type>" */
#define DM_PARSE_WHY_LEN 128            /* a reason's buffer, for callers */

/* "<name>,<uuid>,<minor>,<flags>,<table>[,<table>...]" */
struct dm_device_entry {
	const char *name;               /* non-empty, no '/', < DM_NAME_LEN */
	const char *uuid;               /* may be empty, < DM_UUID_LEN */
	int minor;                      /* -1: the lowest one free */
	bool ro;                        /* flags "ro" (else "rw") */
	char *table;                    /* the table lines, still joined by ',' */
	unsigned int nr_lines;          /* how many lines table holds */
};

/* "<start_sector> <num_sectors> <target_type> <target_args...>" */
struct dm_table_entry {
	sector_t begin, len;            /* len > 0, begin + len does not wrap */
	const char *type;               /* "linear", "striped" ... */
	unsigned int argc;              /* the target's own words */
	char *argv[DM_MAX_TARGET_ARGS];
};

/* The next device of a dm-mod.create= value (devices are separated by
 * ';'), or NULL after the last. */
char *dm_next_device(char **spec);

/* Cut one device's text into its fields and check them.  0, or -EINVAL
 * with the reason in why. */
int dm_parse_device_entry(char *dev, struct dm_device_entry *de,
			  char *why, size_t why_len);

/* Take the next line off *table; it must start at sector start.  1 with
 * *te filled, 0 when no line is left, -EINVAL or -E2BIG with why. */
int dm_parse_table_entry(char **table, sector_t start, struct dm_table_entry *te,
			 char *why, size_t why_len);

#endif /* DRIVERS_MD_DM_INIT_H */
