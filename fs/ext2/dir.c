// SPDX-License-Identifier: MIT
/*
 * dir.c - ext2 directories: readdir (getdents64), finding a name, and
 * changing the entries (adding, removing, repointing a name; a new
 * directory's "." and ".."; "is it empty").
 *
 * A directory is a file whose blocks hold ext2_dir_entry_2 records, one
 * after the other, rec_len bytes each, tiling every block exactly; an
 * entry with inode 0 is free space (so is the slack at the end of an
 * entry's rec_len).  Each block is checked whole before any entry in it
 * is used (ext2_check_dir_block), so the loops here can trust rec_len.
 *
 * Positions (f_pos) are byte offsets in the directory, as Linux's: an
 * entry at byte o is reported with d_off o + 1, and a later call starts
 * at the first entry at or after its position -- which also makes a
 * position from lseek() safe, wherever it lands.
 *
 * Changes are made in the block as the block device's page cache holds it
 * (ext2_bread), by dirent.c's rules, and the block is marked dirty: the
 * disk's flusher writes it back, or sync/umount does.  A name that fits
 * in no block gets a new block at the directory's end (Linux's
 * ext2_add_link does the same; ext2 never shrinks a directory).  The VFS
 * calls all of these under vfs_lock, so two changes of one directory
 * never meet.
 *
 * A hashed directory (dir_index: e2fsck -D, Linux's ext3/ext4 make them)
 * is searched through its index -- htree.c walks it to the one leaf a
 * name's hash belongs to, so a lookup reads two or three blocks, not the
 * whole directory -- and a new name goes into that leaf while it has
 * room.  When it has none (this driver does not split leaves) or the
 * index is bad, the directory loses its index flag and is a linear one
 * from then on, which e2fsck accepts; readdir and removal never needed
 * the index.
 */
#include <spindle/string.h>
#include "ext2.h"

/* Block n of directory dir, read and checked; ERR_PTR on failure. */
static struct ext2_buf *ext2_get_dir_block(struct inode *dir, u64 n)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct ext2_buf *bh;
	u32 pblock;
	int err = ext2_get_block(dir, n, &pblock);

	if (err)
		return ERR_PTR(err);
	if (!pblock) {
		ext2_error(sbi, __func__, "directory #%lu contains a hole at offset %llu",
			   dir->i_ino, (unsigned long long)(n << sbi->s_blocksize_bits));
		return ERR_PTR(-EUCLEAN);
	}
	bh = ext2_bread(dir->i_sb, pblock);
	if (IS_ERR(bh))
		return bh;
	err = ext2_check_dir_block(sbi, bh->b_data, dir->i_ino, n);
	if (err) {
		ext2_brelse(bh);
		return ERR_PTR(err);
	}
	return bh;
}

/*
 * How far readdir reads a directory ahead of itself: a listing of a big
 * directory waits for the disk once per this many blocks, not once per
 * block (ext4's readdir reads ahead the same way, through the device's
 * cache).
 */
#define EXT2_DIR_READAHEAD_BLOCKS 32

/* Directory block n is about to be read.  Not cached: start reading it
 * and the next ones, each run of consecutive disk blocks as one.  Cached
 * but the block half a window on is not: start that next window now (a
 * listing then rarely waits; inode.c's inode tables do the same). */
static void ext2_dir_readahead(struct inode *dir, u64 n)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits, end;
	u32 run_start = 0, run_len = 0, pblock;

	if (ext2_get_block(dir, n, &pblock) || !pblock)
		return;
	if (ext2_block_cached(dir->i_sb, pblock)) {
		n += EXT2_DIR_READAHEAD_BLOCKS / 2;
		if (n >= nblocks || ext2_get_block(dir, n, &pblock) || !pblock ||
		    ext2_block_cached(dir->i_sb, pblock))
			return;
	}
	end = min(nblocks, n + EXT2_DIR_READAHEAD_BLOCKS);
	for (; n < end; n++) {
		if (ext2_get_block(dir, n, &pblock) || !pblock)
			break;
		if (run_len && pblock == run_start + run_len) {
			run_len++;
			continue;
		}
		ext2_breadahead(dir->i_sb, run_start, run_len);
		run_start = pblock;
		run_len = 1;
	}
	ext2_breadahead(dir->i_sb, run_start, run_len);
}

static int ext2_readdir(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);

	while (ctx->pos >= 0 && ctx->pos < inode->i_size) {
		u64 n = (u64)ctx->pos >> sbi->s_blocksize_bits;
		unsigned long from = ctx->pos & (sbi->s_blocksize - 1);
		struct ext2_buf *bh;

		ext2_dir_readahead(inode, n);
		bh = ext2_get_dir_block(inode, n);

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		for (unsigned long o = 0; o < sbi->s_blocksize;) {
			const struct ext2_dir_entry_2 *de =
				(const void *)((char *)bh->b_data + o);

			if (o >= from && de->inode) {
				ctx->pos = (loff_t)(n << sbi->s_blocksize_bits) + o;
				if (!dir_emit(ctx, de->name, de->name_len, de->inode,
					      ext2_dtype(de))) {
					ext2_brelse(bh);
					return 0;
				}
			}
			o += de->rec_len;
		}
		ext2_brelse(bh);
		ctx->pos = (loff_t)(n + 1) << sbi->s_blocksize_bits;
	}
	return 0;
}

/* --- the index of a hashed directory (htree.c does the walk) ------------- */

/* Does dir have an index this driver may follow?  The inode says so, and
 * the file system must have the feature (e2fsck clears a stray flag). */
static bool ext2_dir_indexed(struct inode *dir)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);

	return (EXT2_I(dir)->i_flags & EXT2_INDEX_FL) &&
	       (sbi->s_es.s_feature_compat & EXT2_FEATURE_COMPAT_DIR_INDEX);
}

/* The index blocks a probe holds, one per level: htree.c's read callback
 * reads them through ext2_get_dir_block (so each is checked as a
 * directory block too). */
struct ext2_dx_ctx {
	struct inode *dir;
	struct ext2_buf *bh[EXT2_DX_MAX_LEVELS];
};

static int ext2_dx_read(void *ctx, int level, u32 block, const void **data)
{
	struct ext2_dx_ctx *dx = ctx;
	struct ext2_buf *bh = ext2_get_dir_block(dx->dir, block);

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	ext2_brelse(dx->bh[level]);
	dx->bh[level] = bh;
	*data = bh->b_data;
	return 0;
}

static void ext2_dx_release(struct ext2_dx_ctx *dx)
{
	for (int i = 0; i < EXT2_DX_MAX_LEVELS; i++)
		ext2_brelse(dx->bh[i]);
}

/*
 * Where the index says name's leaf is: 0 and *path, or -EUCLEAN when the
 * index is bad (htree.c warned: the caller reads linearly instead), or an
 * I/O error.  dx holds the index blocks, for ext2_dx_next_leaf.
 */
static int ext2_dx_probe_dir(struct inode *dir, const char *name, int len,
			     struct ext2_dx_ctx *dx, struct ext2_dx_path *path)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits;

	memset(dx, 0, sizeof(*dx));
	dx->dir = dir;
	return ext2_dx_probe(sbi, dir->i_ino, nblocks, name, len, ext2_dx_read, dx, path);
}

/*
 * ext2_find_entry through the index: the leaf the hash leads to, then
 * the leaves that continue the same hash (names whose hashes collide).
 * -EAGAIN: the index is bad, read the directory linearly.
 */
static struct ext2_buf *ext2_dx_find_entry(struct inode *dir, const char *name, int len,
					   int *off, int *prev)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits;
	struct ext2_buf *bh = ERR_PTR(-ENOENT);
	struct ext2_dx_path path;
	struct ext2_dx_ctx dx;
	int err = ext2_dx_probe_dir(dir, name, len, &dx, &path);

	while (!err) {
		bh = ext2_get_dir_block(dir, path.leaf);
		if (IS_ERR(bh))
			break;
		*off = ext2_dirent_find(bh->b_data, sbi->s_blocksize, name, len, prev);
		if (*off >= 0)
			break;
		ext2_brelse(bh);
		bh = ERR_PTR(-ENOENT);
		/* 1: another leaf to search; 0: none, the name is not here */
		err = ext2_dx_next_leaf(sbi, dir->i_ino, nblocks, ext2_dx_read, &dx, &path);
		if (err != 1)
			break;
		err = 0;
	}
	ext2_dx_release(&dx);
	if (err == -EUCLEAN)
		return ERR_PTR(-EAGAIN);
	return err ? ERR_PTR(err) : bh;
}

/*
 * The block of dir holding the used entry called name, and the entry's
 * offset in it (*prev: the previous entry's, -1 if first); ERR_PTR(-ENOENT)
 * if dir has no such name.  A hashed directory is searched through its
 * index (a few blocks), unless the index is bad; any other directory,
 * block by block.
 */
static struct ext2_buf *ext2_find_entry(struct inode *dir, const char *name, int len, int *off,
					int *prev)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits;

	if (ext2_dir_indexed(dir)) {
		struct ext2_buf *bh = ext2_dx_find_entry(dir, name, len, off, prev);

		if (bh != ERR_PTR(-EAGAIN))
			return bh;
	}
	for (u64 n = 0; n < nblocks; n++) {
		struct ext2_buf *bh = ext2_get_dir_block(dir, n);

		if (IS_ERR(bh))
			return bh;
		*off = ext2_dirent_find(bh->b_data, sbi->s_blocksize, name, len, prev);
		if (*off >= 0)
			return bh;
		ext2_brelse(bh);
	}
	return ERR_PTR(-ENOENT);
}

long ext2_inode_by_name(struct inode *dir, const char *name, int len)
{
	int off, prev;
	struct ext2_buf *bh = ext2_find_entry(dir, name, len, &off, &prev);
	long ino;

	if (bh == ERR_PTR(-ENOENT))
		return 0;
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	ino = ((const struct ext2_dir_entry_2 *)((char *)bh->b_data + off))->inode;
	ext2_brelse(bh);
	return ino;
}

/* A change of the directory: its mtime and ctime, as Linux's. */
static void ext2_dir_changed(struct inode *dir)
{
	u64 now = fs_now_ns();

	dir->i_mtime_ns = now;
	EXT2_I(dir)->i_ctime_ns = now;
	mark_inode_dirty(dir);
}

/*
 * Block n of inode -- a hole, at or past its end -- allocated and
 * returned zeroed, not read: a directory's next block, or a slow
 * symbolic link's only one.  i_blocks grows with it; i_size is the
 * caller's.
 */
struct ext2_buf *ext2_new_data_block(struct inode *inode, u64 n)
{
	u32 pblock;
	bool is_new;
	int err;

	/* the block map changes under i_mutex (ext2_get_block_create's
	 * rule), also for a directory, whose names vfs_lock guards */
	mutex_lock(&inode->i_mutex);
	err = ext2_get_block_create(inode, n, &pblock, &is_new);
	mutex_unlock(&inode->i_mutex);
	if (err)
		return ERR_PTR(err);
	return ext2_getblk(inode->i_sb, pblock);
}

/*
 * A name into a hashed directory: into the leaf its hash belongs to, if
 * that leaf has room.  -EAGAIN when the index cannot take it -- the leaf
 * is full (this driver does not split leaves, as ext4's do_split would)
 * or the index is bad -- and the caller drops the index.
 */
static int ext2_dx_add_link(struct inode *dir, const char *name, int len, struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	struct ext2_dx_path path;
	struct ext2_dx_ctx dx;
	struct ext2_buf *bh;
	int off, prev, err;

	/* the leaves the name could already be in (the VFS looked, but
	 * the linear add checks too: the same answer either way) */
	bh = ext2_dx_find_entry(dir, name, len, &off, &prev);
	if (!IS_ERR(bh)) {
		ext2_brelse(bh);
		return -EEXIST;
	}
	if (bh != ERR_PTR(-ENOENT))
		return PTR_ERR(bh);
	err = ext2_dx_probe_dir(dir, name, len, &dx, &path);
	ext2_dx_release(&dx);
	if (err)
		return err == -EUCLEAN ? -EAGAIN : err;
	bh = ext2_get_dir_block(dir, path.leaf);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	off = ext2_dirent_find_room(bh->b_data, sbi->s_blocksize, len);
	if (off < 0) {
		ext2_brelse(bh);
		return -EAGAIN;
	}
	ext2_dirent_insert(bh->b_data, off, name, len, inode->i_ino,
			   ext2_type_by_mode(sbi, inode->i_mode));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	ext2_dir_changed(dir);
	return 0;
}

/*
 * The directory stops being hashed: its inode loses EXT2_INDEX_FL, and
 * from now on it is read and grown linearly -- the index blocks are
 * empty records to that reader, which is what lets e2fsck call the
 * directory clean (Linux's ext4 does the same when dx_add_entry fails;
 * Linux's ext2 never keeps an index).  e2fsck -fD builds a new one.
 */
static void ext2_dx_drop_index(struct inode *dir)
{
	EXT2_I(dir)->i_flags &= ~EXT2_INDEX_FL;
	mark_inode_dirty(dir);
	ext2_msg(EXT2_SB(dir->i_sb), KERN_INFO,
		 "directory #%lu: index dropped, read linearly from now on (e2fsck -D rebuilds it)",
		 dir->i_ino);
}

int ext2_add_link(struct inode *dir, const char *name, int len, struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(dir->i_sb);
	u64 nblocks = (u64)dir->i_size >> sbi->s_blocksize_bits;
	struct ext2_buf *bh;
	int off = -ENOSPC;
	u64 n;

	/* a hashed directory keeps its index while the name's leaf has
	 * room: a linear add would put the name where the index does not
	 * look, or write over the index itself (the root hides in ".."'s
	 * record, an interior block in an "empty" one) */
	if (ext2_dir_indexed(dir)) {
		int err = ext2_dx_add_link(dir, name, len, inode);

		if (err != -EAGAIN)
			return err;
		ext2_dx_drop_index(dir);
	}

	/* the first block with room takes the name (Linux's order: an
	 * earlier hole is reused before the directory grows) */
	for (n = 0; n < nblocks; n++) {
		bh = ext2_get_dir_block(dir, n);
		if (IS_ERR(bh))
			return PTR_ERR(bh);
		if (ext2_dirent_find(bh->b_data, sbi->s_blocksize, name, len, NULL) >= 0) {
			ext2_brelse(bh);
			return -EEXIST;
		}
		off = ext2_dirent_find_room(bh->b_data, sbi->s_blocksize, len);
		if (off >= 0)
			break;
		ext2_brelse(bh);
	}
	if (off < 0) {
		/* every block full: a new one, one unused entry spanning it */
		bh = ext2_new_data_block(dir, nblocks);
		if (IS_ERR(bh))
			return PTR_ERR(bh);
		ext2_dirent_init_block(bh->b_data, sbi->s_blocksize);
		off = 0;
		dir->i_size = (loff_t)(nblocks + 1) << sbi->s_blocksize_bits;
	}
	ext2_dirent_insert(bh->b_data, off, name, len, inode->i_ino,
			   ext2_type_by_mode(sbi, inode->i_mode));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	ext2_dir_changed(dir);
	return 0;
}

int ext2_delete_entry(struct inode *dir, const char *name, int len)
{
	int off, prev;
	struct ext2_buf *bh = ext2_find_entry(dir, name, len, &off, &prev);

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	ext2_dirent_remove(bh->b_data, off, prev);
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	ext2_dir_changed(dir);
	return 0;
}

int ext2_set_link(struct inode *dir, const char *name, int len, struct inode *inode)
{
	int off, prev;
	struct ext2_buf *bh = ext2_find_entry(dir, name, len, &off, &prev);
	struct ext2_dir_entry_2 *de;

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	de = (struct ext2_dir_entry_2 *)((char *)bh->b_data + off);
	de->inode = inode->i_ino;
	de->file_type = ext2_type_by_mode(EXT2_SB(dir->i_sb), inode->i_mode);
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	/* a moved directory's ".." is not a change of that directory's
	 * contents for its owner (Linux leaves its times alone) */
	if (!(len == 2 && name[0] == '.' && name[1] == '.'))
		ext2_dir_changed(dir);
	return 0;
}

int ext2_make_empty(struct inode *inode, struct inode *parent)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_buf *bh = ext2_new_data_block(inode, 0);

	if (IS_ERR(bh))
		return PTR_ERR(bh);
	ext2_dirent_make_empty(bh->b_data, sbi->s_blocksize, inode->i_ino, parent->i_ino,
			       ext2_type_by_mode(sbi, S_IFDIR));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	inode->i_size = sbi->s_blocksize;
	mark_inode_dirty(inode);
	return 0;
}

/*
 * Nothing but "." and ".." in any block.  A block that cannot be read
 * or is damaged answers "not empty" (logged where it was found): rmdir
 * then refuses, which loses nothing.
 */
bool ext2_empty_dir(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	u64 nblocks = (u64)inode->i_size >> sbi->s_blocksize_bits;

	for (u64 n = 0; n < nblocks; n++) {
		struct ext2_buf *bh = ext2_get_dir_block(inode, n);
		bool empty;

		if (IS_ERR(bh))
			return false;
		empty = ext2_dirent_block_empty(bh->b_data, sbi->s_blocksize, inode->i_ino);
		ext2_brelse(bh);
		if (!empty)
			return false;
	}
	return true;
}

/* fsync of a directory: its entries live in metadata blocks, so it is
 * the file's fsync without pages of its own -- on ext3 a commit of the
 * running transaction, on ext2 the device's metadata written and flushed
 * (Linux's ext2 and ext4 give directories their files' fsync too).  A
 * rename or unlink followed by fsync of the directory is durable only so. */
const struct file_operations ext2_dir_operations = {
	.llseek = generic_file_llseek,
	.iterate = ext2_readdir,
	.fsync = ext2_fsync,
};
