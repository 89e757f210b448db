// SPDX-License-Identifier: MIT
/*
 * ext2's directory-block editing (fs/ext2/dirent.c) on the host, for 1,
 * 2 and 4 KiB blocks.
 *
 * After every change the block must still pass the reader's check
 * (ext2_check_dir_block: rec_len aligned, at least what the name needs,
 * the entries tiling the block) and list exactly the names a model says
 * it holds -- the model being a plain array kept by the test.
 *
 * Core: a new directory's block ("." and ".."), names added until the
 * block says it is full (as many as the arithmetic of EXT2_DIR_REC_LEN
 * allows, for names of 4 and of 255 bytes; 1-byte names elsewhere), removal handing the space to
 * the previous entry and the first entry becoming unused, the space found
 * again, "empty but . and ..", file types with and without the filetype
 * feature.  Limits: a long random run of adds and removes against the
 * model.
 */
#include <check.h>
#include <stdio.h>
#include <spindle/string.h>
#include <spindle/stat.h>
#include <spindle/ext2_fs.h>
#include "../../fs/ext2/ext2.h"

static const unsigned int sizes[] = { 1024, 2048, 4096 };
static struct ext2_sb_info sbi;
static u8 blk[4096];
static unsigned int bs;

static void setup_sbi(unsigned int size)
{
	memset(&sbi, 0, sizeof(sbi));
	strcpy(sbi.s_id, "test");
	sbi.s_blocksize = size;
	sbi.s_inodes_count = 100000;
	sbi.s_es.s_feature_incompat = EXT2_FEATURE_INCOMPAT_FILETYPE;
	sbi.s_err_ratelimit.interval = 1;
	sbi.s_err_ratelimit.burst = 1 << 30;
	bs = size;
	memset(blk, 0xa5, sizeof(blk)); /* no help from zeroed memory */
}

/* The block passes the reader's check, and its used entries, walked by
 * rec_len, are exactly the n names of want (in any order). */
static void assert_holds(char want[][256], const u32 *ino, int n)
{
	int seen = 0;

	ck_assert_int_eq(ext2_check_dir_block(&sbi, blk, 12, 0), 0);
	for (unsigned int off = 0; off < bs;) {
		const struct ext2_dir_entry_2 *de = (const void *)(blk + off);

		ck_assert_uint_eq(de->rec_len % 4, 0);
		if (de->inode) {
			int i;

			for (i = 0; i < n; i++)
				if (strlen(want[i]) == de->name_len &&
				    !memcmp(want[i], de->name, de->name_len))
					break;
			ck_assert_msg(i < n, "unexpected name %.*s", de->name_len, de->name);
			ck_assert_uint_eq(de->inode, ino[i]);
			seen++;
		}
		off += de->rec_len;
		ck_assert_uint_le(off, bs);
	}
	ck_assert_int_eq(seen, n);
}

static char names[400][256];
static u32 inos[400];

static void name_of(char *buf, int i, int len)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

	/* i in base 62, lowest digit first, then '-' up to len bytes:
	 * distinct for every i below 62^len */
	for (int k = 0; k < len; k++, i /= 62)
		buf[k] = i ? digits[i % 62] : '-';
	buf[len] = '\0';
}

/* Fill a fresh directory block with names of len bytes until it is full;
 * how many went in. */
static int fill(int len)
{
	int n = 2;

	ext2_dirent_make_empty(blk, bs, 12, 2, EXT2_FT_DIR);
	strcpy(names[0], ".");
	strcpy(names[1], "..");
	inos[0] = 12;
	inos[1] = 2;
	for (;;) {
		int off;

		name_of(names[n], n, len);
		off = ext2_dirent_find_room(blk, bs, len);
		if (off < 0) {
			ck_assert_int_eq(off, -ENOSPC);
			break;
		}
		inos[n] = 100 + n;
		ext2_dirent_insert(blk, off, names[n], len, inos[n], EXT2_FT_REG_FILE);
		n++;
		assert_holds(names, inos, n);
	}
	return n;
}

/* --- Core ---------------------------------------------------------------------- */

START_TEST(new_directory_block)
{
	const struct ext2_dir_entry_2 *dot = (const void *)blk, *dotdot;

	setup_sbi(sizes[_i]);
	ext2_dirent_make_empty(blk, bs, 12, 2, EXT2_FT_DIR);
	dotdot = (const void *)(blk + dot->rec_len);
	ck_assert_int_eq(ext2_check_dir_block(&sbi, blk, 12, 0), 0);
	ck_assert_uint_eq(dot->inode, 12);
	ck_assert_uint_eq(dot->rec_len, 12);
	ck_assert_uint_eq(dot->file_type, EXT2_FT_DIR);
	ck_assert_uint_eq(dotdot->inode, 2);
	ck_assert_uint_eq(dotdot->rec_len, bs - 12); /* the rest of the block */
	ck_assert(ext2_dirent_block_empty(blk, bs, 12));
	ck_assert_int_eq(ext2_dirent_find(blk, bs, "..", 2, NULL), 12);

	/* a directory's later block: one unused entry, nothing in it */
	ext2_dirent_init_block(blk, bs);
	ck_assert_int_eq(ext2_check_dir_block(&sbi, blk, 12, 1), 0);
	ck_assert(ext2_dirent_block_empty(blk, bs, 12));
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, EXT2_NAME_LEN), 0);
}
END_TEST

START_TEST(full_with_short_and_long_names)
{
	setup_sbi(sizes[_i]);
	/* after "." and ".." (12 bytes each), every name of 1 to 4 bytes
	 * takes 12 (4-byte names: 1-byte ones run out before 4 KiB does) */
	ck_assert_int_eq(fill(4) - 2, (int)(bs - 24) / 12);
	/* ... every 255-byte name 264 */
	ck_assert_int_eq(fill(255) - 2, (int)(bs - 24) / EXT2_DIR_REC_LEN(255));
	/* a full block still has room for a shorter name when the slack
	 * left is enough: 4 KiB leaves 4072 - 15 * 264 = 112 bytes */
	if (bs == 4096)
		ck_assert_int_ge(ext2_dirent_find_room(blk, bs, 100), 0);
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, 255), -ENOSPC);
	ck_assert(!ext2_dirent_block_empty(blk, bs, 12));
}
END_TEST

START_TEST(remove_joins_the_previous_entry)
{
	int n, off, prev;
	const struct ext2_dir_entry_2 *p;
	unsigned int before;

	setup_sbi(sizes[_i]);
	n = fill(5);
	/* take out the third name: its space goes to the second */
	off = ext2_dirent_find(blk, bs, names[3], 5, &prev);
	ck_assert_int_gt(off, 0);
	p = (const void *)(blk + prev);
	before = p->rec_len;
	ext2_dirent_remove(blk, off, prev);
	ck_assert_uint_eq(p->rec_len, before + EXT2_DIR_REC_LEN(5));
	ck_assert_int_eq(ext2_dirent_find(blk, bs, names[3], 5, NULL), -ENOENT);
	memmove(&names[3], &names[4], (n - 4) * sizeof(names[0]));
	memmove(&inos[3], &inos[4], (n - 4) * sizeof(inos[0]));
	n--;
	assert_holds(names, inos, n);
	/* the space is found again, in the entry that took it */
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, 5), prev);
	ext2_dirent_insert(blk, prev, "again", 5, 999, EXT2_FT_SYMLINK);
	strcpy(names[n], "again");
	inos[n++] = 999;
	assert_holds(names, inos, n);
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, 5), -ENOSPC);
}
END_TEST

START_TEST(first_entry_becomes_unused)
{
	char one[1][256] = { "x" };
	u32 ino = 77;
	int off, prev;

	setup_sbi(sizes[_i]);
	ext2_dirent_init_block(blk, bs);
	ext2_dirent_insert(blk, 0, "x", 1, ino, EXT2_FT_REG_FILE);
	assert_holds(one, &ino, 1);
	ext2_dirent_insert(blk, ext2_dirent_find_room(blk, bs, 1), "y", 1, 78, EXT2_FT_REG_FILE);
	off = ext2_dirent_find(blk, bs, "x", 1, &prev);
	ck_assert_int_eq(off, 0);
	ck_assert_int_eq(prev, -1);
	ext2_dirent_remove(blk, off, prev);
	strcpy(one[0], "y");
	ino = 78;
	assert_holds(one, &ino, 1);
	/* the unused first entry keeps its 12 bytes, and takes a name again */
	ck_assert_uint_eq(((struct ext2_dir_entry_2 *)blk)->rec_len, 12);
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, 4), 0);
	ck_assert_int_eq(ext2_dirent_find_room(blk, bs, 5), 12); /* 5 needs 16 */
	ext2_dirent_remove(blk, ext2_dirent_find(blk, bs, "y", 1, &prev), prev);
	ck_assert(ext2_dirent_block_empty(blk, bs, 12));
	assert_holds(one, &ino, 0);
}
END_TEST

START_TEST(empty_but_dot_and_dotdot)
{
	setup_sbi(sizes[_i]);
	ext2_dirent_make_empty(blk, bs, 12, 2, EXT2_FT_DIR);
	ck_assert(ext2_dirent_block_empty(blk, bs, 12));
	/* "." naming another inode is an ordinary name (a damaged block) */
	ck_assert(!ext2_dirent_block_empty(blk, bs, 13));
	ext2_dirent_insert(blk, ext2_dirent_find_room(blk, bs, 3), "...", 3, 50, EXT2_FT_DIR);
	ck_assert(!ext2_dirent_block_empty(blk, bs, 12));
	ext2_dirent_remove(blk, ext2_dirent_find(blk, bs, "...", 3, NULL), 12);
	ck_assert(ext2_dirent_block_empty(blk, bs, 12));
}
END_TEST

START_TEST(file_types)
{
	static const struct {
		umode_t mode;
		u8 ft;
		unsigned int dtype;
	} types[] = {
		{ S_IFREG, EXT2_FT_REG_FILE, DT_REG },
		{ S_IFDIR, EXT2_FT_DIR, DT_DIR },
		{ S_IFLNK, EXT2_FT_SYMLINK, DT_LNK },
		{ S_IFCHR, EXT2_FT_CHRDEV, DT_CHR },
		{ S_IFBLK, EXT2_FT_BLKDEV, DT_BLK },
		{ S_IFIFO, EXT2_FT_FIFO, DT_FIFO },
	};

	setup_sbi(1024);
	for (unsigned int i = 0; i < ARRAY_SIZE(types); i++) {
		const struct ext2_dir_entry_2 *de;
		char name[8];
		int off;

		snprintf(name, sizeof(name), "t%u", i);
		ext2_dirent_init_block(blk, bs);
		off = ext2_dirent_find_room(blk, bs, 2);
		ext2_dirent_insert(blk, off, name, 2,
				   20, ext2_type_by_mode(&sbi, types[i].mode | 0644));
		de = (const void *)(blk + off);
		ck_assert_uint_eq(de->file_type, types[i].ft);
		ck_assert_uint_eq(ext2_dtype(de), types[i].dtype);
	}
	/* revision 0 or no filetype feature: the byte stays 0 */
	sbi.s_es.s_feature_incompat = 0;
	ck_assert_uint_eq(ext2_type_by_mode(&sbi, S_IFDIR | 0755), EXT2_FT_UNKNOWN);
}
END_TEST

/* --- Limits -------------------------------------------------------------------- */

static u64 rng = 0x9e3779b97f4a7c15ull;

static u64 next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

START_TEST(random_adds_and_removes)
{
	int n = 0, serial = 0;

	setup_sbi(sizes[_i]);
	ext2_dirent_init_block(blk, bs);
	for (int step = 0; step < 3000; step++) {
		if (n && next() % 3 == 0) {
			int i = (int)(next() % n), prev, off;

			off = ext2_dirent_find(blk, bs, names[i], strlen(names[i]), &prev);
			ck_assert_int_ge(off, 0);
			ext2_dirent_remove(blk, off, prev);
			memmove(&names[i], &names[i + 1], (n - i - 1) * sizeof(names[0]));
			memmove(&inos[i], &inos[i + 1], (n - i - 1) * sizeof(inos[0]));
			n--;
		} else {
			int len = 2 + (int)(next() % 254), off;

			name_of(names[n], serial++, len);
			off = ext2_dirent_find_room(blk, bs, len);
			if (off == -ENOSPC)
				continue; /* full for this length: fine, not for a shorter */
			ck_assert_int_ge(off, 0);
			inos[n] = 1 + (u32)(next() % 99999);
			ext2_dirent_insert(blk, off, names[n], len, inos[n], EXT2_FT_REG_FILE);
			n++;
		}
		assert_holds(names, inos, n);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ext2_dir");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_loop_test(core, new_directory_block, 0, ARRAY_SIZE(sizes));
	tcase_add_loop_test(core, full_with_short_and_long_names, 0, ARRAY_SIZE(sizes));
	tcase_add_loop_test(core, remove_joins_the_previous_entry, 0, ARRAY_SIZE(sizes));
	tcase_add_loop_test(core, first_entry_becomes_unused, 0, ARRAY_SIZE(sizes));
	tcase_add_loop_test(core, empty_but_dot_and_dotdot, 0, ARRAY_SIZE(sizes));
	tcase_add_test(core, file_types);
	suite_add_tcase(s, core);
	tcase_add_loop_test(limits, random_adds_and_removes, 0, ARRAY_SIZE(sizes));
	suite_add_tcase(s, limits);
	return s;
}
