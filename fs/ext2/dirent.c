// SPDX-License-Identifier: MIT
/*
 * dirent.c - the entries of one directory block, changed in place: where
 * a new name fits, how it goes in, how one goes out, whether a directory
 * holds nothing but "." and "..".  No I/O and no VFS: dir.c reads the
 * block (and checks it whole with ext2_check_dir_block) and hands the
 * bytes here, so that every rule below runs on the host too
 * (tests/unit/check_ext2_dir.c).
 *
 * The rule all of it keeps: the entries tile the block.  Walking from
 * offset 0 by rec_len lands exactly on the block's end, and every rec_len
 * is a multiple of 4 and at least EXT2_DIR_REC_LEN(name_len).  So space
 * is never lost or made up, only handed between neighbours:
 *
 *   adding    an unused entry (inode 0) big enough is taken whole; else a
 *             used entry whose rec_len exceeds what its own name needs is
 *             cut in two, the slack becoming the new entry
 *               [ a: rec_len 40, needs 12 ]  ->  [ a: 12 ][ new: 28 ]
 *   removing  the entry's rec_len joins the previous entry's
 *               [ a: 12 ][ b: 16 ][ c ... ]  ->  [ a: 28 ][ c ... ]
 *             and the first entry of a block, having no previous one,
 *             keeps its rec_len and becomes unused (inode 0)
 *
 * which is Linux's ext2_add_link and ext2_delete_entry, done on one block.
 */
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/stat.h>
#include "ext2.h"

static struct ext2_dir_entry_2 *ext2_de_at(const void *blk, unsigned int off)
{
	return (struct ext2_dir_entry_2 *)((char *)blk + off);
}

u8 ext2_type_by_mode(const struct ext2_sb_info *sbi, umode_t mode)
{
	/* without the filetype feature the byte is the name length's high
	 * half (revision 0's 16-bit name_len), so it must stay 0 */
	if (!(sbi->s_es.s_feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE))
		return EXT2_FT_UNKNOWN;
	switch (mode & S_IFMT) {
	case S_IFREG:
		return EXT2_FT_REG_FILE;
	case S_IFDIR:
		return EXT2_FT_DIR;
	case S_IFCHR:
		return EXT2_FT_CHRDEV;
	case S_IFBLK:
		return EXT2_FT_BLKDEV;
	case S_IFIFO:
		return EXT2_FT_FIFO;
	case S_IFSOCK:
		return EXT2_FT_SOCK;
	case S_IFLNK:
		return EXT2_FT_SYMLINK;
	}
	return EXT2_FT_UNKNOWN;
}

int ext2_dirent_find(const void *blk, unsigned int size, const char *name, int len, int *prev)
{
	int last = -1;

	for (unsigned int off = 0; off < size;) {
		const struct ext2_dir_entry_2 *de = ext2_de_at(blk, off);

		if (de->inode && de->name_len == len && !memcmp(de->name, name, len)) {
			if (prev)
				*prev = last;
			return (int)off;
		}
		last = (int)off;
		off += de->rec_len;
	}
	return -ENOENT;
}

int ext2_dirent_find_room(const void *blk, unsigned int size, int len)
{
	unsigned int need = EXT2_DIR_REC_LEN(len);

	for (unsigned int off = 0; off < size;) {
		const struct ext2_dir_entry_2 *de = ext2_de_at(blk, off);
		unsigned int used = de->inode ? EXT2_DIR_REC_LEN(de->name_len) : 0;

		if (de->rec_len >= used + need)
			return (int)off;
		off += de->rec_len;
	}
	return -ENOSPC;
}

void ext2_dirent_insert(void *blk, unsigned int off, const char *name, int len, u32 ino,
			u8 file_type)
{
	struct ext2_dir_entry_2 *de = ext2_de_at(blk, off);

	if (de->inode) {
		/* split: the entry keeps what its name needs, the rest is ours */
		unsigned int used = EXT2_DIR_REC_LEN(de->name_len);
		struct ext2_dir_entry_2 *nde = ext2_de_at(blk, off + used);

		nde->rec_len = de->rec_len - used;
		de->rec_len = used;
		de = nde;
	}
	de->inode = ino;
	de->name_len = len;
	de->file_type = file_type;
	memcpy(de->name, name, len);
	/* the padding after the name: zeros, as Linux and e2fsck leave it */
	memset(de->name + len, 0, EXT2_DIR_REC_LEN(len) - 8 - len);
}

void ext2_dirent_remove(void *blk, int off, int prev)
{
	struct ext2_dir_entry_2 *de = ext2_de_at(blk, off);

	if (prev >= 0)
		ext2_de_at(blk, prev)->rec_len += de->rec_len;
	/* unused either way: a reader of the old copy, or a first entry */
	de->inode = 0;
}

void ext2_dirent_init_block(void *blk, unsigned int size)
{
	struct ext2_dir_entry_2 *de = blk;

	memset(blk, 0, size);
	de->rec_len = size;
}

void ext2_dirent_make_empty(void *blk, unsigned int size, u32 ino, u32 parent, u8 dir_type)
{
	struct ext2_dir_entry_2 *de = blk;

	ext2_dirent_init_block(blk, size);
	de->inode = ino;
	de->name_len = 1;
	de->file_type = dir_type;
	de->name[0] = '.';
	de->rec_len = EXT2_DIR_REC_LEN(1);
	de = ext2_de_at(blk, EXT2_DIR_REC_LEN(1));
	de->inode = parent;
	de->name_len = 2;
	de->file_type = dir_type;
	memcpy(de->name, "..", 2);
	de->rec_len = size - EXT2_DIR_REC_LEN(1);
}

bool ext2_dirent_block_empty(const void *blk, unsigned int size, u32 ino)
{
	for (unsigned int off = 0; off < size;) {
		const struct ext2_dir_entry_2 *de = ext2_de_at(blk, off);

		off += de->rec_len;
		if (!de->inode)
			continue;
		/* "." names the directory itself, ".." anything: a "." naming
		 * another inode is a name like any other (Linux's test) */
		if (de->name_len == 1 && de->name[0] == '.' && de->inode == ino)
			continue;
		if (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.')
			continue;
		return false;
	}
	return true;
}
