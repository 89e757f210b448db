// SPDX-License-Identifier: MIT
/*
 * fuzz_dm.c - the dm-mod.create= parser (drivers/md/dm-init.c) fed
 * arbitrary option values.
 *
 * The input is the value after "dm-mod.create=", up to its first NUL (the
 * command line is a C string), copied into a buffer of exactly its length
 * so that ASan sees a read past the end.  It is cut into devices and
 * lines as dm.c cuts it -- but where dm.c stops at the first bad device,
 * this goes on to the next one, to reach more of the parser per input.
 * What dm.c then trusts without checking again, and this target checks:
 *
 *   - every field and word lies inside the value and holds no separator
 *     (',' ';', and ' ' inside a table line) and no empty word;
 *   - a device's name is non-empty, shorter than DM_NAME_LEN, without
 *     '/'; its uuid shorter than DM_UUID_LEN; its minor -1 or a minor;
 *   - the lines of a table start at sector 0 and follow each other with
 *     neither gap nor overlap, each at least one sector, none wrapping
 *     past the last sector number; a table has at most nr_lines lines
 *     (dm.c sizes its target array by that count) and a line at most
 *     DM_MAX_TARGET_ARGS words after its type;
 *   - a refusal always comes with a reason.
 */
#include <spindle/blkdev.h>             /* MINORBITS */
#include <spindle/errno.h>
#include "../../drivers/md/dm-init.h"
#include "fuzz.h"

static const char *text;                /* the copy being parsed */
static size_t text_len;

static void check_word(const char *w, const char *separators, bool may_be_empty)
{
	size_t len;

	FUZZ_ASSERT(w >= text && w <= text + text_len);
	len = strlen(w);
	FUZZ_ASSERT(w + len <= text + text_len);
	FUZZ_ASSERT(may_be_empty || len > 0);
	for (const char *s = separators; *s; s++)
		FUZZ_ASSERT(!strchr(w, *s));
}

static void check_reason(const char *why, int err)
{
	FUZZ_ASSERT(err == -EINVAL || err == -E2BIG);
	FUZZ_ASSERT(strnlen(why, DM_PARSE_WHY_LEN) > 0 &&
		    strnlen(why, DM_PARSE_WHY_LEN) < DM_PARSE_WHY_LEN);
}

static void check_device(const struct dm_device_entry *de)
{
	check_word(de->name, ",;/", false);
	FUZZ_ASSERT(strlen(de->name) < DM_NAME_LEN);
	check_word(de->uuid, ",;", true);
	FUZZ_ASSERT(strlen(de->uuid) < DM_UUID_LEN);
	FUZZ_ASSERT(de->minor >= -1 && de->minor < (1 << MINORBITS));
	check_word(de->table, ";", false);
	FUZZ_ASSERT(de->nr_lines >= 1);
}

/* The lines of one device, as dm_create_one() takes them. */
static void parse_table(struct dm_device_entry *de)
{
	char why[DM_PARSE_WHY_LEN] = "";
	struct dm_table_entry te;
	sector_t start = 0;
	unsigned int lines = 0;
	int err;

	while ((err = dm_parse_table_entry(&de->table, start, &te, why, sizeof(why))) > 0) {
		FUZZ_ASSERT(err == 1);
		FUZZ_ASSERT(te.begin == start && te.len > 0);
		FUZZ_ASSERT(te.begin + te.len > te.begin);     /* no wrap */
		FUZZ_ASSERT(te.argc <= DM_MAX_TARGET_ARGS);
		check_word(te.type, " ,;", false);
		for (unsigned int i = 0; i < te.argc; i++)
			check_word(te.argv[i], " ,;", false);
		FUZZ_ASSERT(++lines <= de->nr_lines);
		start = te.begin + te.len;
	}
	if (err)
		check_reason(why, err);
	else
		FUZZ_ASSERT(lines >= 1);        /* a table is never empty */
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	size_t len = strnlen((const char *)data, size);
	char *copy = malloc(len + 1), *spec = copy, *dev;

	fuzz_begin();
	memcpy(copy, data, len);
	copy[len] = '\0';
	text = copy;
	text_len = len;
	while ((dev = dm_next_device(&spec)) != NULL) {
		char why[DM_PARSE_WHY_LEN] = "";
		struct dm_device_entry de;
		int err;

		check_word(dev, ";", true);
		err = dm_parse_device_entry(dev, &de, why, sizeof(why));
		if (err) {
			check_reason(why, err);
			continue;
		}
		check_device(&de);
		parse_table(&de);
	}
	free(copy);
	fuzz_end();
	return 0;
}
