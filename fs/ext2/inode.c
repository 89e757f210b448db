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
 * their inode again.  Nothing writes, so one inode number having two
 * struct inodes of those kinds is harmless; the write support will need
 * Linux's inode hash (iget_locked) for all of them.
 */
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/blkdev.h>
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include "ext2.h"

static int ext2_read_entry(void *ctx, int level, u32 block, u32 index, u32 *entry)
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

	if (create)
		return -EROFS;  /* no a_ops->writepages: not reached */
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

static const struct address_space_operations ext2_aops = {
	.readpage = ext2_readpage,
	.readpages = ext2_readpages,
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
	.read_iter = filemap_read,
};

const struct inode_operations ext2_file_inode_operations = {
	.getattr = ext2_getattr,
};

static const struct inode_operations ext2_special_inode_operations = {
	.getattr = ext2_getattr,
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

static void ext2_set_ops(struct inode *inode, const struct ext2_inode *raw)
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
		init_special_inode(inode, inode->i_mode, ext2_decode_dev(raw));
	}
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
	bh = ext2_bread(sb, block);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	memcpy(raw, (char *)bh->b_data + offset, sizeof(*raw));
	ext2_brelse(bh);
	return ext2_check_inode(sbi, raw, ino);
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
	ei = kzalloc(sizeof(*ei), GFP_KERNEL);
	inode = ei ? new_inode(sb) : NULL;
	if (!inode) {
		kfree(ei);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&ei->i_map_lock);
	INIT_LIST_HEAD(&ei->i_cache);
	ei->i_inode = inode;
	inode->i_private = ei;
	inode->i_ino = ino;
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
	ext2_set_ops(inode, &raw);
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
