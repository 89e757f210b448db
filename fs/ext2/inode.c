// SPDX-License-Identifier: MIT
/*
 * inode.c - ext2 inodes in the VFS: ext2_iget() makes a struct inode from
 * an on-disk one (a regular file's is kept after its last close: a small
 * inode cache), ext2_get_block() maps a file's block to the disk, and a
 * regular file's data goes through the page cache with it.
 *
 * The path of a read(fd, buf, 4096) at offset 70000 of a file on a 1 KiB
 * ext2 (docs/ext2.md draws it whole):
 *
 *   filemap_read                 page 17 cached?  copied, no I/O; else
 *     ext2_readpages             readahead: the window's missing pages
 *       mpage_readpages          each block of each page:
 *         ext2_get_block_sector(68)  68 = 12 direct + 56: entry 56 of
 *           ext2_get_branch          the single indirect block, i_data[12]
 *             ext2_read_entry    ext2_bread(indirect) -> the entry, unless
 *                                i_map has it already
 *         a bio per run of consecutive blocks (a hole: zeros, no I/O)
 *     copy_to_iter               to the user, once the page is uptodate
 *
 * Directories, links and device nodes are not kept: each lookup reads
 * their inode again (Linux's inode hash, iget_locked, would keep one
 * struct inode per number for them too).
 *
 * The write side, below: ext2_write_inode() (the VFS inode into its slot
 * of the inode table, a cached block), ext2_get_block_create() (the map
 * growing, indirect blocks zeroed before they are linked), truncation
 * (ext2_truncate_blocks, ext2_setsize) and ext2_evict_inode() (an inode
 * with no name left freed with its blocks).  write() itself is file.c's.
 */
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/jbd2.h>
#include <spindle/err.h>
#include "ext2.h"

int ext2_read_entry(void *ctx, int level, u32 block, u32 index, u32 *entry)
{
	struct ext2_map_cache *mc = ctx;
	struct ext2_buf **slot = &mc->bh[level - 1];

	if (!*slot || (*slot)->b_blocknr != block) {
		struct ext2_buf *bh = ext2_bread(mc->sb, block);

		if (IS_ERR(bh))
			return PTR_ERR(bh);
		ext2_brelse(*slot);
		*slot = bh;
	}
	*entry = ((const u32 *)(*slot)->b_data)[index];
	return 0;
}

void ext2_map_cache_release(struct ext2_map_cache *mc)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mc->bh); i++) {
		ext2_brelse(mc->bh[i]);
		mc->bh[i] = NULL;
	}
}

int ext2_get_block_cached(struct inode *inode, u64 iblock, u32 *pblock, u64 *hole,
			  struct ext2_map_cache *mc)
{
	mc->sb = inode->i_sb;
	return ext2_get_branch(EXT2_SB(inode->i_sb), EXT2_I(inode)->i_data, inode->i_ino,
			       iblock, ext2_read_entry, mc, pblock, hole);
}

/*
 * The disk block holding block iblock of the file (0: a hole).  The one
 * function between a file's offsets and the disk: Linux's ext2_get_block
 * also allocates on a write, and the page cache's readpage calls it.
 */
int ext2_get_block(struct inode *inode, u64 iblock, u32 *pblock)
{
	struct ext2_map_cache mc = { 0 };
	int err = ext2_get_block_cached(inode, iblock, pblock, NULL, &mc);

	ext2_map_cache_release(&mc);
	return err;
}

/*
 * The page cache's get_block (fs/mpage.c): block iblock of the file as a
 * sector of the disk, SECTOR_HOLE for a hole.  The caller holds
 * i_map_lock, under which i_map keeps the indirect blocks last used (for
 * the inode's life: a sequential reader's next readahead window needs
 * the same ones -- metadata has no cache of its own yet) and the pass's
 * first error sticks for the rest of the pass: a damaged indirect block
 * is reported once, not once for each block under it.
 */
static int ext2_get_block_sector(struct inode *inode, sector_t iblock, sector_t *sector,
				 bool create)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	u32 pblock;
	int err;

	(void)create; /* reads only: write-back has ext2_get_block_wb */
	if (ei->i_map_err)
		return ei->i_map_err;
	err = ext2_get_block_cached(inode, iblock, &pblock, NULL, &ei->i_map);
	if (err) {
		ei->i_map_err = err;
		return err;
	}
	*sector = pblock ? (sector_t)pblock << (inode->i_data.i_blkbits - SECTOR_SHIFT)
			 : SECTOR_HOLE;
	return 0;
}

/* One readpages pass over the map, starting with no error. */
static int ext2_map_pass(struct address_space *mapping, struct page **pages, unsigned int nr)
{
	struct ext2_inode_info *ei = EXT2_I(mapping->host);
	int err;

	mutex_lock(&ei->i_map_lock);
	ei->i_map_err = 0;
	err = mpage_readpages(mapping, pages, nr, ext2_get_block_sector);
	mutex_unlock(&ei->i_map_lock);
	return err;
}

/* -EUCLEAN or -EIO of a damaged map reaches read() through here: the
 * reader's synchronous retry of a page that readahead could not read. */
static int ext2_readpage(struct file *f, struct page *page)
{
	(void)f;
	return ext2_map_pass(page->mapping, &page, 1);
}

static int ext2_readpages(struct address_space *mapping, struct page **pages, unsigned int nr)
{
	return ext2_map_pass(mapping, pages, nr);
}

/*
 * Write-back's get_block: write() allocated every block it wrote (so
 * that ENOSPC reaches it, and in the order written), so write-back only
 * looks the blocks up; a block of a dirty page that no write touched is
 * a hole and stays one.  No i_map here: readers hold i_map_lock with
 * pages locked, write-back would take it the other way round.
 */
static int ext2_get_block_wb(struct inode *inode, sector_t iblock, sector_t *sector, bool create)
{
	u32 pblock;
	int err = ext2_get_block(inode, iblock, &pblock);

	(void)create;
	if (err)
		return err;
	*sector = pblock ? (sector_t)pblock << (inode->i_data.i_blkbits - SECTOR_SHIFT)
			 : SECTOR_HOLE;
	return 0;
}

static int ext2_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	return mpage_writepages(mapping, wbc, ext2_get_block_wb);
}

static const struct address_space_operations ext2_aops = {
	.readpage = ext2_readpage,
	.readpages = ext2_readpages,
	.writepages = ext2_writepages,
	.direct_IO = ext2_direct_IO,
};

int ext2_getattr(struct inode *inode, struct stat *st)
{
	struct ext2_inode_info *ei = EXT2_I(inode);

	st->st_uid = ei->i_uid;
	st->st_gid = ei->i_gid;
	st->st_atime = ei->i_atime_ns / NSEC_PER_SEC;
	st->st_ctime = ei->i_ctime_ns / NSEC_PER_SEC;
	st->st_atime_nsec = st->st_ctime_nsec = 0;
	st->st_blksize = EXT2_SB(inode->i_sb)->s_blocksize;
	return 0;
}

const struct file_operations ext2_file_operations = {
	.llseek = generic_file_llseek,
	.read_iter = ext2_file_read_iter,
	.write_iter = ext2_file_write_iter,
	.fsync = ext2_fsync,
	.mmap = ext2_file_mmap,
};

const struct inode_operations ext2_file_inode_operations = {
	.getattr = ext2_getattr,
	.setsize = ext2_setsize,
	.setattr = ext2_setattr,
};

static const struct inode_operations ext2_special_inode_operations = {
	.getattr = ext2_getattr,
	.setattr = ext2_setattr,
};

/* A device node's number: Linux's old (8:8 in i_block[0]) or new
 * (12:20 in i_block[1]) encoding. */
static dev_t ext2_decode_dev(const struct ext2_inode *raw)
{
	u32 d = raw->i_block[0];

	if (d)
		return MKDEV((d >> 8) & 0xff, d & 0xff);
	d = raw->i_block[1];
	return MKDEV((d & 0xfff00) >> 8, (d & 0xff) | ((d >> 12) & 0xfff00));
}

/* The other way: the old encoding when it fits, as Linux. */
static void ext2_encode_dev(struct ext2_inode *raw, dev_t dev)
{
	unsigned int major = MAJOR(dev), minor = MINOR(dev);

	memset(raw->i_block, 0, sizeof(raw->i_block));
	if (major < 256 && minor < 256)
		raw->i_block[0] = major << 8 | minor;
	else
		raw->i_block[1] = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* A regular file's data goes through the page cache, read by mpage
 * with the file's block map (docs/fs.md, "A file system on the page
 * cache"). */
static void ext2_set_mapping(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);

	inode->i_data.a_ops = &ext2_aops;
	inode->i_data.bdev = sbi->s_bdev;
	inode->i_data.bdi = bdi_get(sbi->s_bdev->bd_disk);
	inode->i_data.i_blkbits = sbi->s_blocksize_bits;
}

void ext2_set_inode_ops(struct inode *inode)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &ext2_file_inode_operations;
		inode->i_fop = &ext2_file_operations;
		ext2_set_mapping(inode);
		break;
	case S_IFDIR:
		inode->i_op = &ext2_dir_inode_operations;
		inode->i_fop = &ext2_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &ext2_symlink_inode_operations;
		break;
	default:
		inode->i_op = &ext2_special_inode_operations;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
	}
}

/*
 * How much of an inode table is read ahead when an inode's block is not
 * cached: ext4's inode_readahead_blks (32 blocks of 4 KiB).  `ls -l` of a
 * big directory, or any walk that reads inodes in number order, then
 * waits for the disk once per 128 KiB of the table, not once per block.
 */
#define EXT2_INODE_READAHEAD_BYTES (128 * 1024)

/*
 * Inode ino's block is about to be read.  Not cached: the readahead
 * window from it, within ino's group's inode table, goes to the disk with
 * it.  Cached, but the block half a window on is not: that next window
 * is started now, so that a reader going through the table in order
 * finds it read when it gets there instead of waiting at each window.
 */
static void ext2_inode_readahead(struct super_block *sb, unsigned long ino, u32 block)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	u32 group = (u32)((ino - 1) / sbi->s_inodes_per_group);
	u32 table_end = sbi->s_group_desc[group].bg_inode_table + sbi->s_itb_per_group;
	u32 window = EXT2_INODE_READAHEAD_BYTES >> sbi->s_blocksize_bits;

	if (ext2_block_cached(sb, block)) {
		block += window / 2;
		if (block >= table_end || ext2_block_cached(sb, block))
			return;
	}
	ext2_breadahead(sb, block, min(window, table_end - block));
}

/* The on-disk inode ino, copied out and checked. */
static int ext2_get_inode(struct super_block *sb, unsigned long ino, struct ext2_inode *raw)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_buf *bh;
	unsigned int offset;
	u32 block;
	int err = ext2_inode_location(sbi, ino, &block, &offset);

	if (err)
		return err;
	ext2_inode_readahead(sb, ino, block);
	bh = ext2_bread(sb, block);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(raw, (char *)bh->b_data + offset, sizeof(*raw));
	ext2_brelse(bh);
	return ext2_check_inode(sbi, raw, ino);
}

/* A VFS inode with its ext2 part, for inode number ino; or NULL. */
static struct inode *ext2_alloc_inode(struct super_block *sb, unsigned long ino)
{
	struct ext2_inode_info *ei = kzalloc(sizeof(*ei), GFP_KERNEL);
	struct inode *inode = ei ? new_inode(sb) : NULL;

	if (!inode) {
		kfree(ei);
		return NULL;
	}
	mutex_init(&ei->i_map_lock);
	INIT_LIST_HEAD(&ei->i_cache);
	ei->i_inode = inode;
	inode->i_private = ei;
	inode->i_ino = ino;
	return inode;
}

/* A new VFS inode made from the on-disk one. */
static struct inode *ext2_iget_uncached(struct super_block *sb, unsigned long ino)
{
	struct ext2_inode_info *ei;
	struct ext2_inode raw;
	struct inode *inode;
	int err = ext2_get_inode(sb, ino, &raw);

	if (err)
		return ERR_PTR(err);
	inode = ext2_alloc_inode(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ei = EXT2_I(inode);
	inode->i_mode = raw.i_mode;
	inode->i_nlink = raw.i_links_count;
	inode->i_size = (loff_t)ext2_inode_size(&raw);
	inode->i_blocks = raw.i_blocks;
	inode->i_mtime_ns = raw.i_mtime * NSEC_PER_SEC;
	memcpy(ei->i_data, raw.i_block, sizeof(ei->i_data));
	ei->i_flags = raw.i_flags;
	ei->i_file_acl = raw.i_file_acl;
	ei->i_uid = raw.i_uid | (u32)raw.i_uid_high << 16;
	ei->i_gid = raw.i_gid | (u32)raw.i_gid_high << 16;
	ei->i_atime_ns = raw.i_atime * NSEC_PER_SEC;
	ei->i_ctime_ns = raw.i_ctime * NSEC_PER_SEC;
	ei->i_fast_symlink = ext2_inode_is_fast_symlink(EXT2_SB(sb), &raw);
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		inode->i_rdev = ext2_decode_dev(&raw);
	ext2_set_inode_ops(inode);
	return inode;
}

/*
 * Linux's inode cache, in miniature: without it each open would make a
 * new inode, and a file's cached pages would go with its last close.  A
 * regular file's inode stays on s_icache (with one reference, the
 * cache's) after its last user; the EXT2_ICACHE_MAX most recently used
 * are kept, the oldest is let go (iput: its pages go).  Reclaim takes
 * the kept inodes' clean pages when memory is short, as any others.
 */
#define EXT2_ICACHE_MAX 64

static struct inode *ext2_icache_find(struct ext2_sb_info *sbi, unsigned long ino)
{
	struct ext2_inode_info *ei;

	list_for_each_entry(ei, &sbi->s_icache, i_cache)
		if (ei->i_inode->i_ino == ino) {
			list_move(&ei->i_cache, &sbi->s_icache);
			return igrab(ei->i_inode);
		}
	return NULL;
}

/* Keep inode (a new regular file's); the inode let go to make room, or NULL. */
static struct inode *ext2_icache_add(struct ext2_sb_info *sbi, struct inode *inode)
{
	struct ext2_inode_info *old;

	list_add(&EXT2_I(inode)->i_cache, &sbi->s_icache);
	igrab(inode);
	if (++sbi->s_icache_nr <= EXT2_ICACHE_MAX)
		return NULL;
	old = list_last_entry(&sbi->s_icache, struct ext2_inode_info, i_cache);
	list_del_init(&old->i_cache);
	sbi->s_icache_nr--;
	return old->i_inode;
}

void ext2_icache_drop(struct ext2_sb_info *sbi)
{
	struct ext2_inode_info *ei, *next;

	mutex_lock(&sbi->s_icache_lock);
	list_for_each_entry_safe(ei, next, &sbi->s_icache, i_cache) {
		list_del_init(&ei->i_cache);
		iput(ei->i_inode);
	}
	sbi->s_icache_nr = 0;
	mutex_unlock(&sbi->s_icache_lock);
}

/*
 * The VFS inode of ino, or ERR_PTR: -EUCLEAN (damaged, logged), -ESTALE
 * (a deleted inode: the caller says who referenced it), -EIO, -ENOMEM.
 * A regular file's is the cached one while it is kept.  The lock is held
 * across the read so that one inode number never has two inodes.
 */
/*
 * The VFS inode of a just allocated inode number (ialloc.c): mode, one
 * link, no blocks, the times now, the on-disk slot rewritten whole.  A
 * regular file's goes into the cache, as ext2_iget's would.
 */
struct inode *ext2_iget_new(struct super_block *sb, unsigned long ino, umode_t mode)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct inode *inode = ext2_alloc_inode(sb, ino), *evict = NULL;
	struct ext2_inode_info *ei;
	int err;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	ei = EXT2_I(inode);
	inode->i_mode = mode;
	inode->i_mtime_ns = fs_now_ns();
	ei->i_atime_ns = ei->i_ctime_ns = inode->i_mtime_ns;
	ei->i_new = true;
	ext2_set_inode_ops(inode);
	err = ext2_write_inode(inode);
	if (err) {
		iput(inode);
		return ERR_PTR(err);
	}
	if (S_ISREG(mode)) {
		mutex_lock(&sbi->s_icache_lock);
		evict = ext2_icache_add(sbi, inode);
		mutex_unlock(&sbi->s_icache_lock);
		iput(evict);
	}
	return inode;
}

struct inode *ext2_iget(struct super_block *sb, unsigned long ino)
{
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct inode *inode, *evict = NULL;

	mutex_lock(&sbi->s_icache_lock);
	inode = ext2_icache_find(sbi, ino);
	if (!inode) {
		inode = ext2_iget_uncached(sb, ino);
		if (!IS_ERR(inode) && S_ISREG(inode->i_mode))
			evict = ext2_icache_add(sbi, inode);
	}
	mutex_unlock(&sbi->s_icache_lock);
	iput(evict);
	return inode;
}

/* --- writing: the inode, the block map, truncation ------------------------------- */

int ext2_write_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	struct ext2_inode *raw;
	struct ext2_buf *bh;
	unsigned int offset;
	u32 block;
	int err = ext2_inode_location(sbi, inode->i_ino, &block, &offset);

	if (err)
		return err;
	if (S_ISREG(inode->i_mode) && (u64)inode->i_size > 0x7fffffffull &&
	    (!(sbi->s_es.s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_LARGE_FILE) ||
	     sbi->s_es.s_rev_level == EXT2_GOOD_OLD_REV)) {
		err = ext2_set_large_file(sb);
		if (err)
			return err;
	}
	bh = ext2_bread(sb, block);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	raw = (struct ext2_inode *)((char *)bh->b_data + offset);
	if (ei->i_new) {
		/* a freed slot keeps its last owner's fields: none may stay */
		memset(raw, 0, sbi->s_inode_size);
		ei->i_new = false;
	}
	raw->i_mode = inode->i_mode;
	raw->i_uid = (u16)ei->i_uid;
	raw->i_uid_high = (u16)(ei->i_uid >> 16);
	raw->i_gid = (u16)ei->i_gid;
	raw->i_gid_high = (u16)(ei->i_gid >> 16);
	raw->i_links_count = (u16)inode->i_nlink;
	raw->i_size = (u32)inode->i_size;
	if (S_ISREG(inode->i_mode))
		raw->i_size_high = (u32)((u64)inode->i_size >> 32);
	raw->i_atime = (u32)(ei->i_atime_ns / NSEC_PER_SEC);
	raw->i_ctime = (u32)(ei->i_ctime_ns / NSEC_PER_SEC);
	raw->i_mtime = (u32)(inode->i_mtime_ns / NSEC_PER_SEC);
	raw->i_dtime = ei->i_dtime;
	raw->i_blocks = (u32)inode->i_blocks;
	raw->i_flags = ei->i_flags;
	raw->i_file_acl = ei->i_file_acl;
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		ext2_encode_dev(raw, inode->i_rdev);
	else
		memcpy(raw->i_block, ei->i_data, sizeof(raw->i_block));
	ext2_mark_buffer_dirty(bh);
	ext2_brelse(bh);
	return 0;
}

/* A regular file's last name went: the cache must not keep it, so that
 * its last user's iput frees it (Linux's generic_drop_inode).  The
 * caller holds a reference, so this iput is never the last. */
static void ext2_icache_forget(struct inode *inode)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	bool cached;

	mutex_lock(&sbi->s_icache_lock);
	cached = !list_empty(&ei->i_cache);
	if (cached) {
		list_del_init(&ei->i_cache);
		sbi->s_icache_nr--;
	}
	mutex_unlock(&sbi->s_icache_lock);
	if (cached)
		iput(inode);
}

/* super_operations' dirty_inode: the inode table's copy follows at once
 * (a slice of a cached page: written back with the device's pages). */
void ext2_dirty_inode(struct inode *inode)
{
	int err;

	if (!EXT2_I(inode) || sb_rdonly(inode->i_sb))
		return;
	if (!inode->i_nlink && S_ISREG(inode->i_mode))
		ext2_icache_forget(inode);
	if (!inode->i_nlink && !EXT2_I(inode)->i_unlinked) {
		struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);

		spin_lock(&sbi->s_unlinked_lock);
		sbi->s_unlinked++;
		EXT2_I(inode)->i_unlinked = true;
		spin_unlock(&sbi->s_unlinked_lock);
	}
	err = ext2_write_inode(inode);
	if (err)
		ext2_msg(EXT2_SB(inode->i_sb), KERN_ERR, "inode %lu not written (%d)", inode->i_ino,
			 err);
}

/* Where iblock's new block should go: right after the file's block
 * before it (a sequential writer's file stays in one run); 0 when it has
 * none, for the allocator to start in the inode's group. */
static u32 ext2_find_goal(struct inode *inode, u64 iblock)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	u32 prev;

	if (ei->i_next_alloc_goal && ei->i_next_alloc_block == iblock)
		return ei->i_next_alloc_goal;
	if (iblock && !ext2_get_block(inode, iblock - 1, &prev) && prev)
		return prev + 1;
	return 0;
}

/*
 * ext2_get_block() that allocates: the data block and every indirect
 * block missing on its path (zeroed before they are linked in, so that
 * a reader walking the map meanwhile sees holes, never garbage).  *is_new
 * says the data block was allocated now (its bytes on the disk are
 * someone else's old ones).  The caller holds i_mutex.
 */
int ext2_get_block_create(struct inode *inode, u64 iblock, u32 *pblock, bool *is_new)
{
	struct super_block *sb = inode->i_sb;
	struct ext2_sb_info *sbi = EXT2_SB(sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	u32 offsets[4], nr = 0, goal;
	int depth = ext2_block_to_path(sbi, iblock, offsets), err = 0;
	struct ext2_buf *bh = NULL;

	*is_new = false;
	if (!depth)
		return -EFBIG;
	goal = ext2_find_goal(inode, iblock);
	for (int level = 0; level < depth; level++) {
		/* level 0: the inode's i_data; below it, the indirect block read */
		u32 *slot = bh ? (u32 *)bh->b_data + offsets[level] : &ei->i_data[offsets[0]];

		nr = *slot;
		if (!nr) {
			unsigned long count = 1;
			long b = ext2_new_blocks(inode, goal, &count);

			if (b < 0) {
				err = (int)b;
				break;
			}
			nr = (u32)b;
			if (level < depth - 1) {
				struct ext2_buf *ind = ext2_getblk(sb, nr);

				if (IS_ERR(ind)) {
					ext2_free_blocks(inode, nr, 1);
					err = PTR_ERR(ind);
					break;
				}
				ext2_brelse(ind);
			} else {
				*is_new = true;
			}
			*slot = nr;
			if (bh)
				ext2_mark_buffer_dirty(bh);
			goal = nr + 1;
		} else if (nr < sbi->s_first_data_block || nr >= sbi->s_blocks_count) {
			ext2_error(sbi, "ext2_get_block", "inode %lu: block %u past the end",
				   inode->i_ino, nr);
			err = -EUCLEAN;
			break;
		}
		if (level < depth - 1) {
			struct ext2_buf *next = ext2_bread(sb, nr);

			ext2_brelse(bh);
			bh = NULL;
			if (IS_ERR(next)) {
				err = PTR_ERR(next);
				break;
			}
			bh = next;
		}
	}
	ext2_brelse(bh);
	if (err)
		return err;
	*pblock = nr;
	ei->i_next_alloc_block = iblock + 1;
	ei->i_next_alloc_goal = nr + 1;
	return 0;
}

/* Blocks freed in runs: one bitmap visit for each run of neighbours. */
struct ext2_free_run {
	struct inode *inode;
	u32 start;
	unsigned long count;
};

static void ext2_free_run_add(struct ext2_free_run *run, u32 block)
{
	if (run->count && block == run->start + run->count) {
		run->count++;
		return;
	}
	ext2_free_blocks(run->inode, run->start, run->count);
	run->start = block;
	run->count = 1;
}

/*
 * Free what *slot leads to from the subtree's block `start` on: a data
 * block (depth 0), or an indirect block of depth levels whose entries
 * from start on are freed -- and the block itself when start is 0.
 */
static void ext2_free_branch(struct ext2_free_run *run, u32 *slot, int depth, u64 start)
{
	struct ext2_sb_info *sbi = EXT2_SB(run->inode->i_sb);
	u64 per = 1;
	struct ext2_buf *bh;
	u32 *entries;

	if (!*slot)
		return;
	if (*slot < sbi->s_first_data_block || *slot >= sbi->s_blocks_count) {
		ext2_error(sbi, "ext2_free_branch", "inode %lu: block %u past the end",
			   run->inode->i_ino, *slot);
		*slot = 0; /* cut off: never free what is not ours */
		return;
	}
	if (depth == 0) {
		if (!start) {
			ext2_free_run_add(run, *slot);
			*slot = 0;
		}
		return;
	}
	for (int i = 1; i < depth; i++)
		per <<= sbi->s_addr_per_block_bits;
	bh = ext2_bread(run->inode->i_sb, *slot);
	if (IS_ERR(bh))
		return; /* logged; those blocks stay allocated: lost, not doubled */
	entries = bh->b_data;
	for (u64 i = start / per; i < sbi->s_addr_per_block; i++) {
		u32 before = entries[i];

		ext2_free_branch(run, &entries[i], depth - 1, i == start / per ? start % per : 0);
		if (entries[i] != before)
			ext2_mark_buffer_dirty(bh);
	}
	ext2_brelse(bh);
	if (!start) {
		ext2_free_run_add(run, *slot);
		*slot = 0;
	}
}

/* Every block of the file from byte size on goes back to the bitmaps;
 * the map's entries for them become holes. */
void ext2_truncate_blocks(struct inode *inode, loff_t size)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);
	u64 first = ((u64)size + sbi->s_blocksize - 1) >> sbi->s_blocksize_bits;
	u64 base = EXT2_NDIR_BLOCKS, span = sbi->s_addr_per_block;
	struct ext2_free_run run = { .inode = inode };

	for (u64 i = first; i < EXT2_NDIR_BLOCKS; i++)
		ext2_free_branch(&run, &ei->i_data[i], 0, 0);
	for (int level = 1; level <= 3; level++) {
		if (first < base + span)
			ext2_free_branch(&run, &ei->i_data[EXT2_NDIR_BLOCKS + level - 1], level,
					 first > base ? first - base : 0);
		base += span;
		span <<= sbi->s_addr_per_block_bits;
	}
	ext2_free_blocks(inode, run.start, run.count);
	ei->i_next_alloc_goal = 0;
}

/*
 * truncate and O_TRUNC (i_mutex held).  Down: the tail of the last block
 * kept is zeroed (in the page cache, written back as any change: a later
 * grow must read zeros there), the cached pages past the end dropped
 * (waiting for their write-back: their blocks are about to be someone
 * else's), then the blocks freed.  Up: only i_size -- a hole.
 */
static int __ext2_setsize(struct inode *inode, loff_t size);

/* truncate(2) (the VFS's setsize): one journal handle on ext3 */
int ext2_setsize(struct inode *inode, loff_t size)
{
	handle_t *h = ext2_journal_start(inode->i_sb, EXT2_TRUNCATE_TRANS_BLOCKS);
	int err, e;

	if (IS_ERR(h))
		return PTR_ERR(h);
	err = __ext2_setsize(inode, size);
	e = ext2_journal_stop(h);
	return err ?: e;
}

static int __ext2_setsize(struct inode *inode, loff_t size)
{
	struct ext2_sb_info *sbi = EXT2_SB(inode->i_sb);
	struct ext2_inode_info *ei = EXT2_I(inode);

	if (size < 0)
		return -EINVAL;
	if ((u64)size > sbi->s_max_size)
		return -EFBIG;
	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	if (size < inode->i_size) {
		if (size & (PAGE_SIZE - 1)) {
			int err = ext2_zero_tail(inode, size);

			if (err)
				return err;
		}
		inode->i_size = size;
		truncate_inode_pages(&inode->i_data, size);
		ext2_truncate_blocks(inode, size);
	} else {
		inode->i_size = size;
	}
	inode->i_mtime_ns = ei->i_ctime_ns = fs_now_ns();
	mark_inode_dirty(inode);
	return 0;
}

/*
 * The last reference is gone.  An inode with no name left is freed:
 * its blocks (a fast link's target and a device number live in i_data,
 * not in blocks), then its slot, marked deleted (i_dtime) as e2fsck
 * expects.  One still named keeps its data: dirty pages are written
 * back before they go.
 */
void ext2_evict_inode(struct inode *inode)
{
	struct ext2_inode_info *ei = EXT2_I(inode);
	bool has_blocks = S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) ||
			  (S_ISLNK(inode->i_mode) && !ei->i_fast_symlink);

	if (!sb_rdonly(inode->i_sb) && inode->i_nlink == 0) {
		/* freeing it is one operation of the journal */
		handle_t *h = ext2_journal_start(inode->i_sb, EXT2_TRUNCATE_TRANS_BLOCKS);

		truncate_inode_pages(&inode->i_data, 0);
		if (has_blocks)
			ext2_truncate_blocks(inode, 0);
		inode->i_size = 0;
		ei->i_dtime = (u32)max_t(u64, 1, fs_now_ns() / NSEC_PER_SEC); /* 0: in use */
		if (!ext2_write_inode(inode))
			ext2_free_inode(inode);
		if (!IS_ERR(h))
			ext2_journal_stop(h);
	} else if (inode->i_data.nrdirty || inode->i_data.nrwriteback) {
		filemap_write_and_wait(&inode->i_data);
	}
	if (ei->i_unlinked) {
		spin_lock(&EXT2_SB(inode->i_sb)->s_unlinked_lock);
		EXT2_SB(inode->i_sb)->s_unlinked--;
		spin_unlock(&EXT2_SB(inode->i_sb)->s_unlinked_lock);
	}
	/* its cached pages first: nothing may read through the map after */
	truncate_inode_pages(&inode->i_data, 0);
	ext2_map_cache_release(&ei->i_map);
	kfree(inode->i_private);
	inode->i_private = NULL;
}
