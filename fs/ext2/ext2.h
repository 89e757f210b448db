/* SPDX-License-Identifier: MIT */
/*
 * ext2.h - what the files of fs/ext2/ share (not for the rest of the
 * kernel, which knows ext2 only as the file system type "ext2").
 *
 * The driver is split as Linux's fs/ext2:
 *
 *   check.c     the on-disk checks and arithmetic: superblock, group
 *               descriptors, inodes, directory blocks, the walk through
 *               indirect blocks.  No I/O of its own (a callback reads),
 *               no VFS: it compiles for the host, where the unit tests and
 *               the fuzzer feed it damaged images.
 *   buffer.c    ext2_bread(): metadata blocks, in the device's page cache
 *   super.c     mount: the superblock, the descriptors, statfs
 *   inode.c     ext2_iget() (an on-disk inode into a VFS inode, regular
 *               files' kept), ext2_get_block() (a file's block n -> a disk
 *               block), a regular file's a_ops (the page cache reads it)
 *   file.c      a regular file's write() and fsync()
 *   dirent.c    the entries of one directory block: room for a name,
 *               adding, removing, "only . and .." (portable, as check.c)
 *   htree.c     hashed directories: the name hashes, the walk down an
 *               index to a leaf (portable, as check.c)
 *   dir.c       directory blocks: readdir, finding, adding and removing
 *               a name (through the index when the directory has one)
 *   namei.c     lookup(), and the name-space changes: create, mkdir,
 *               unlink, rmdir, link, symlink, rename; setattr
 *   symlink.c   fast (in the inode) and slow (in a block) symbolic links
 *   journal.c   ext3: the journal inode as a jbd2 journal (fs/jbd2/),
 *               its log replayed at mount
 *
 *   balloc.c    block bitmaps: allocating near a goal, freeing
 *   ialloc.c    inode bitmaps: a new inode's group, freeing
 *
 * Mounts are read-write unless asked otherwise (or a feature this
 * driver does not know says read-only).  As "ext3" (the journal's log
 * replayed at mount: journal.c, fs/jbd2/), read-only only, until
 * journaled writes exist.
 *
 * Errors: damaged metadata gives -EUCLEAN (Linux's EFSCORRUPTED) to the
 * caller and one ratelimited line "EXT2-fs error (device sda1): <function>:
 * <what>" in the log (ext2_error); a read that fails gives -EIO.
 */
#ifndef FS_EXT2_EXT2_H
#define FS_EXT2_EXT2_H

#include <spindle/types.h>
#include <spindle/ext2_fs.h>
#include <spindle/ratelimit.h>
#include <spindle/fs.h>
#include <spindle/printk.h>
#include <spindle/mutex.h>
#include <spindle/list.h>

struct ext2_journal;
struct jbd2_journal_handle;

struct block_device;
struct page;

/* One mounted ext2 (super_block->s_fs_info): the geometry, checked. */
struct ext2_sb_info {
	char s_id[32];		      /* the device's name, for messages */
	struct ext2_super_block s_es; /* the superblock as read */
	unsigned long s_blocksize;    /* 1024, 2048 or 4096 */
	unsigned int s_blocksize_bits;
	u32 s_blocks_count;
	u32 s_inodes_count;
	u32 s_first_data_block;
	u32 s_blocks_per_group;
	u32 s_inodes_per_group;
	u32 s_groups_count;
	u32 s_desc_per_block; /* group descriptors in one block */
	u32 s_gdb_count;      /* blocks of group descriptors */
	u32 s_inode_size;
	u32 s_inodes_per_block;
	u32 s_itb_per_group; /* inode-table blocks per group */
	u32 s_first_ino;
	u32 s_addr_per_block; /* block numbers in an indirect block */
	unsigned int s_addr_per_block_bits;
	u64 s_max_size;				/* the largest file the block map reaches */
	struct ext2_group_desc *s_group_desc;	/* s_groups_count, checked */
	struct ratelimit_state s_err_ratelimit; /* ext2_error's */
	/* mounted as "ext3": the journal is read (a log replayed at mount,
	 * fs/ext2/journal.c), needs_recovery is known, has_journal required;
	 * read-only until journaled writes exist */
	bool s_ext3;
	/* ext3 mounted read-write: every metadata change goes through the
	 * journal (journal.c); NULL for ext2 and read-only ext3 */
	struct ext2_journal *s_journal;
	unsigned int s_commit_interval; /* commit=N: seconds */
	bool s_nobarrier;		 /* barrier=0 */
	/* the kernel's side (super.c); unused by the host's checks */
	struct block_device *s_bdev;
	bool s_bdev_open; /* blkdev_get() done: s_bdev->bd_inode is ours too */
	struct super_block *s_sb;
	/* regular files' inodes kept after their last close, with their
	 * cached pages, most recently used first (inode.c) */
	struct mutex s_icache_lock;
	struct list_head s_icache;
	unsigned int s_icache_nr;
	/* the bitmaps and the descriptors' counts change under it (balloc.c,
	 * ialloc.c) */
	struct mutex s_alloc_lock;
	bool s_mounted_rw; /* the superblock says "not clean" until umount */
	u16 s_errors_opt;  /* errors=: EXT2_ERRORS_*, 0: the superblock's */
	bool s_errors_ro;  /* errors=remount-ro in force */
	/* where fsync and syncfs last looked at the device cache's write-back
	 * errors: a metadata block's failed write reaches the next of them
	 * once, as Linux's AS_EIO does (a cursor, not a file's: whoever asks
	 * first is told) */
	errseq_t s_meta_wb_err;
	/* inodes without a name still in use (freed at their last iput):
	 * remount ro is refused while there is one, as Linux's s_remove_count */
	spinlock_t s_unlinked_lock;
	unsigned int s_unlinked;
	/* ext2_error's kernel half (super.c): mark the damage, remount-ro */
	void (*s_on_error)(struct ext2_sb_info *sbi);
};

/* --- check.c: portable ---------------------------------------------------- */

/* "EXT2-fs error (device <id>): <function>: <what>", ratelimited. */
/* The device cache's write-back error since fsync or syncfs last asked, or 0. */
int ext2_meta_wb_err(struct ext2_sb_info *sbi);
void ext2_error(struct ext2_sb_info *sbi, const char *function, const char *fmt, ...)
	__printf(3, 4);
/* "EXT2-fs (<id>): <what>", at level (KERN_ERR ...: a literal). */
#define ext2_msg(sbi, level, fmt, ...) \
	printk(level "EXT2-fs (%s): " fmt "\n", (sbi)->s_id, ##__VA_ARGS__)

/*
 * Check the superblock (raw: the 1024 bytes at byte 1024 of a device of
 * dev_bytes bytes) and fill in sbi's geometry.  0, -EINVAL (not ext2, or
 * features this driver cannot read: a mount refused, as Linux), or
 * -EUCLEAN (an ext2 superblock with impossible figures).  Logs why.
 */
int ext2_fill_geometry(struct ext2_sb_info *sbi, const void *raw, u64 dev_bytes);
/* Group g's descriptor: its bitmaps and inode table inside the group? */
int ext2_check_descriptor(struct ext2_sb_info *sbi, const struct ext2_group_desc *gd,
			  u32 group);
/* Where inode ino lives: *block and *offset in it; -EUCLEAN if ino is
 * not an inode number of this file system. */
int ext2_inode_location(struct ext2_sb_info *sbi, unsigned long ino, u32 *block,
			unsigned int *offset);
/* ... for any inode number of the file system, the reserved ones too
 * (ext3's journal, inode 8: journal.c) */
int __ext2_inode_location(struct ext2_sb_info *sbi, unsigned long ino, u32 *block,
			  unsigned int *offset);
/* An on-disk inode fit to use: 0, -ESTALE (deleted: freed, or never
 * used), -EUCLEAN (damaged: a type that does not exist, an impossible
 * size).  Logs the damage, not the staleness (the caller knows whether a
 * directory entry pointed at it). */
int ext2_check_inode(struct ext2_sb_info *sbi, const struct ext2_inode *raw,
		     unsigned long ino);
/* i_size, with i_size_high for a regular file (large_file). */
u64 ext2_inode_size(const struct ext2_inode *raw);
bool ext2_inode_is_fast_symlink(struct ext2_sb_info *sbi, const struct ext2_inode *raw);

/* A directory block (blocksize bytes, block n of directory dir_ino):
 * every entry's rec_len, name_len and inode checked, as Linux's
 * ext2_check_page.  0 or -EUCLEAN (logged). */
int ext2_check_dir_block(struct ext2_sb_info *sbi, const void *buf, unsigned long dir_ino,
			 u64 n);
/* The file type of a directory entry as getdents64's d_type. */
unsigned int ext2_dtype(const struct ext2_dir_entry_2 *de);

/*
 * The block map.  ext2_block_to_path() turns a file's block iblock into
 * the indexes to follow (offsets[0] in i_block, then one per indirect
 * level) and returns how many (1..4), or 0 past the largest file.
 * ext2_get_branch() follows them: read_entry(ctx, level, block, index,
 * &entry) returns entry `index` of indirect block `block`, met at depth
 * level (1: the first indirect block on the path), 0 or -errno.  *pblock
 * is the disk block, or 0 for a hole; then, if hole is not NULL, *hole
 * is how many blocks from iblock on are surely holes too (all those below
 * the 0 entry met: a reader skips them at once), else 0.  Every block
 * number met is checked to lie inside the file system (-EUCLEAN, logged,
 * if not).
 */
typedef int (*ext2_read_entry_fn)(void *ctx, int level, u32 block, u32 index, u32 *entry);
int ext2_block_to_path(struct ext2_sb_info *sbi, u64 iblock, u32 offsets[4]);
int ext2_get_branch(struct ext2_sb_info *sbi, const u32 *i_block, unsigned long ino,
		    u64 iblock, ext2_read_entry_fn read_entry, void *ctx, u32 *pblock, u64 *hole);

/* statfs's figures, as Linux's ext2_statfs (no I/O: from the checked
 * superblock and descriptors). */
void ext2_fill_statfs(struct ext2_sb_info *sbi, struct statfs *buf);

/*
 * Allocation's searches (balloc.c, ialloc.c), apart from I/O.
 * ext2_bitmap_find: the first clear bit at or after goal in a bitmap of
 * nbits, wrapping round to the start; -1 if all are set.
 * ext2_bitmap_run: how many clear bits in a row from start (at most max).
 * ext2_find_block_group: the first group from goal_group on (wrapping)
 * with a free block; ext2_find_inode_group: the group for a new inode
 * (see check.c: a directory's spreads, a file's stays near its parent);
 * both -1 when there is none.  ext2_block_in_system_zone: does
 * [block, block + count) touch a superblock copy, descriptors, a bitmap
 * or an inode table (or leave the file system)?
 */
/* ext2's bitmaps: bit nr is bit nr % 8 of byte nr / 8 (little-endian) */
static inline bool ext2_test_bit(const void *bitmap, u32 nr)
{
	return ((const u8 *)bitmap)[nr >> 3] & (1u << (nr & 7));
}
static inline void ext2_set_bit(void *bitmap, u32 nr)
{
	((u8 *)bitmap)[nr >> 3] |= (u8)(1u << (nr & 7));
}
static inline void ext2_clear_bit(void *bitmap, u32 nr)
{
	((u8 *)bitmap)[nr >> 3] &= (u8) ~(1u << (nr & 7));
}
long ext2_bitmap_find(const void *bitmap, u32 nbits, u32 goal);
u32 ext2_bitmap_run(const void *bitmap, u32 nbits, u32 start, u32 max);
u32 ext2_group_first_block(const struct ext2_sb_info *sbi, u32 group);
u32 ext2_group_nr_blocks(const struct ext2_sb_info *sbi, u32 group);
long ext2_find_block_group(const struct ext2_sb_info *sbi, u32 goal_group);
long ext2_find_inode_group(const struct ext2_sb_info *sbi, u32 parent_group, bool dir);
bool ext2_block_in_system_zone(const struct ext2_sb_info *sbi, u32 block, u32 count);

/* --- dirent.c: portable ------------------------------------------------------
 *
 * One directory block of size bytes, already checked whole
 * (ext2_check_dir_block); each change keeps it passing that check.
 */

/* The directory entry's file_type for an inode of mode: EXT2_FT_UNKNOWN
 * (0) unless the file system has the filetype feature. */
u8 ext2_type_by_mode(const struct ext2_sb_info *sbi, umode_t mode);
/* The offset of the used entry called name, or -ENOENT; *prev (if not
 * NULL) the offset of the entry before it, -1 for the block's first. */
int ext2_dirent_find(const void *blk, unsigned int size, const char *name, int len, int *prev);
/* The offset of an entry with room for a name of len bytes (unused and
 * big enough, or used with that much slack), or -ENOSPC: the block is
 * full for this name. */
int ext2_dirent_find_room(const void *blk, unsigned int size, int len);
/* name -> ino in the entry at off (from ext2_dirent_find_room): taken
 * whole if unused, else split. */
void ext2_dirent_insert(void *blk, unsigned int off, const char *name, int len, u32 ino,
			u8 file_type);
/* The entry at off (prev: from ext2_dirent_find) removed. */
void ext2_dirent_remove(void *blk, int off, int prev);
/* A directory's new block: one unused entry spanning it. */
void ext2_dirent_init_block(void *blk, unsigned int size);
/* A new directory's first block: "." -> ino, ".." -> parent. */
void ext2_dirent_make_empty(void *blk, unsigned int size, u32 ino, u32 parent, u8 dir_type);
/* No used entry but "." (-> ino) and "..". */
bool ext2_dirent_block_empty(const void *blk, unsigned int size, u32 ino);

/* --- htree.c: portable ------------------------------------------------------
 *
 * A hashed directory's index.  ext2_dx_hash: name's hash by version
 * (EXT2_DX_HASH_*, _UNSIGNED included) and seed (the superblock's; all
 * zeros: none), as Linux's ext4fs_dirhash; -EINVAL for an unknown version.
 * ext2_dx_probe: down the index of a directory of nblocks blocks to the
 * leaf whose range holds name's hash; read(ctx, level, block, &data)
 * gives block `block` of the directory (level 0: the root, block 0).
 * 0 and path->leaf, or -EUCLEAN (the index is bad: warned, the caller
 * reads the directory linearly), or read's error.  ext2_dx_next_leaf:
 * after a miss in path->leaf, the next leaf if it continues the same
 * hash (1, path->leaf), else 0; or an error as the probe's.
 */
#define EXT2_DX_MAX_LEVELS 2 /* the root, and one level of interior blocks */
struct ext2_dx_frame {
	const struct ext2_dx_entry *entries; /* in the caller's buffer of the block */
	unsigned int count;
	unsigned int at; /* the entry followed */
	u32 child;	 /* the block it names */
};
struct ext2_dx_path {
	int version; /* the hash used */
	u32 hash;
	int levels; /* frames in use: indirect_levels + 1 */
	struct ext2_dx_frame frames[EXT2_DX_MAX_LEVELS];
	u32 leaf; /* the directory block to search */
};
typedef int (*ext2_dx_read_fn)(void *ctx, int level, u32 block, const void **data);
int ext2_dx_hash(const char *name, int len, int version, const u32 seed[4], u32 *hash,
		 u32 *minor_hash);
int ext2_dx_probe(struct ext2_sb_info *sbi, unsigned long ino, u64 nblocks, const char *name,
		  int len, ext2_dx_read_fn read, void *ctx, struct ext2_dx_path *path);
int ext2_dx_next_leaf(struct ext2_sb_info *sbi, unsigned long ino, u64 nblocks,
		      ext2_dx_read_fn read, void *ctx, struct ext2_dx_path *path);

/* --- the kernel's side ---------------------------------------------------- */

/* A block read from the disk (buffer.c): b_data holds blocksize bytes. */
struct ext2_buf {
	struct ext2_sb_info *b_sbi; /* whose: ext3 sends a change to the journal */
	void *b_data;
	u32 b_blocknr;
	unsigned int b_size; /* bytes: the block size */
	struct page *b_page;
};
struct ext2_buf *ext2_bread(struct super_block *sb, u32 block);
/* len bytes (at most a page) from sector on, into page; 0 or -EIO. */
int ext2_read_sectors(struct block_device *bdev, sector_t sector, struct page *page,
		      unsigned int len);
void ext2_brelse(struct ext2_buf *bh);
/* Is block in the device's cache, read?  Start reading count blocks from
 * block on, the ones not cached, without waiting (Linux's sb_breadahead,
 * for a run); beyond the file system's end is cut off. */
bool ext2_block_cached(struct super_block *sb, u32 block);
void ext2_breadahead(struct super_block *sb, u32 block, u32 count);

/* The indirect blocks last read, one per level, kept across the
 * ext2_get_block_cached() calls of a read() or of a file's readpages
 * passes: a sequential reader meets the same ones for hundreds of blocks
 * in a row.  Start zeroed; ext2_map_cache_release() at the end. */
struct ext2_map_cache {
	struct super_block *sb;
	struct ext2_buf *bh[3];
};

/* One VFS inode's ext2 part (inode->i_private). */
struct ext2_inode_info {
	u32 i_data[EXT2_N_BLOCKS]; /* the block map's roots, or a fast link */
	u32 i_flags;
	u32 i_file_acl;
	u32 i_uid, i_gid;
	u64 i_atime_ns, i_ctime_ns;
	bool i_fast_symlink; /* the target is in i_data */
	/* a regular file's readpages passes (inode.c): the indirect blocks
	 * last used (released at eviction) and the pass's first error */
	struct mutex i_map_lock;
	struct ext2_map_cache i_map;
	int i_map_err;
	struct inode *i_inode;
	struct list_head i_cache; /* on s_icache (holding a reference) */
	/* the write side (inode.c) */
	u32 i_dtime;		/* deleted at (seconds), for the inode table */
	bool i_new;		/* its slot not yet written: clear it whole */
	bool i_unlinked;	/* counted in s_unlinked */
	u64 i_next_alloc_block; /* a sequential writer's next block ... */
	u32 i_next_alloc_goal;	/* ... goes here if free (0: look) */
};

static inline struct ext2_sb_info *EXT2_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct ext2_inode_info *EXT2_I(struct inode *inode)
{
	return inode->i_private;
}

struct inode *ext2_iget(struct super_block *sb, unsigned long ino);
/* Let go of every inode kept in the cache (umount). */
void ext2_icache_drop(struct ext2_sb_info *sbi);
int ext2_get_block(struct inode *inode, u64 iblock, u32 *pblock);

int ext2_get_block_cached(struct inode *inode, u64 iblock, u32 *pblock, u64 *hole,
			  struct ext2_map_cache *mc);
void ext2_map_cache_release(struct ext2_map_cache *mc);
/* ext2_get_branch's read_entry over an ext2_map_cache (ctx; mc->sb set) */
int ext2_read_entry(void *ctx, int level, u32 block, u32 index, u32 *entry);
/* journal.c: ext3's journal loaded at mount, its log replayed if
 * needs_recovery is set (*replayed); 0 or -errno, logged */
int ext2_load_journal(struct super_block *sb, bool *replayed, u32 *failed_commit);
/* ext3 read-write (journal.c): the journal kept for writing, a commit
 * every s_commit_interval seconds; ext2_journal_stop_writes() commits,
 * checkpoints and lets it go (umount, remount read-only). */
int ext2_journal_start_writes(struct super_block *sb);
int ext2_journal_stop_writes(struct super_block *sb);
/* A handle around one operation (jbd2_journal_start); NULL on ext2. */
struct jbd2_journal_handle *ext2_journal_start(struct super_block *sb, int credits);
int ext2_journal_stop(struct jbd2_journal_handle *handle);
void ext2_journal_dirty_metadata(struct ext2_buf *bh);
void ext2_journal_revoke(struct super_block *sb, u32 block, unsigned long count);
void ext2_journal_file_inode(struct inode *inode);
/* fsync, sync: the running transaction committed (0 on ext2: -ENOENT
 * says "no journal", the caller writes the metadata itself) */
int ext2_journal_force_commit(struct super_block *sb);
/* credits: blocks an operation may dirty, a guess with margin */
#define EXT3_DEFAULT_COMMIT_SECS 5 /* commit=: Linux's JBD2_DEFAULT_MAX_COMMIT_AGE */
#define EXT2_DATA_TRANS_BLOCKS 16
#define EXT2_NAMEI_TRANS_BLOCKS 32
#define EXT2_TRUNCATE_TRANS_BLOCKS 64

extern const struct inode_operations ext2_dir_inode_operations;
extern const struct file_operations ext2_dir_operations;
extern const struct inode_operations ext2_symlink_inode_operations;
extern const struct inode_operations ext2_file_inode_operations;
extern const struct file_operations ext2_file_operations;

/*
 * --- the write side: the block and inode allocators, and the directory
 * operations (dir.c, namei.c) built on them ----------------------------------
 *
 * buffer.c: metadata lives in the block device's page cache (one copy of
 * each block, shared with /dev/sdXN and written back by the disk's
 * flusher).  ext2_getblk() is ext2_bread() for a block about to be
 * overwritten whole (a new directory or indirect block): zeroed, not read.
 * ext2_mark_buffer_dirty() after changing b_data; ext2_sync_buffer()
 * writes it now and waits (0 or -EIO).
 */
struct ext2_buf *ext2_getblk(struct super_block *sb, u32 block);
void ext2_mark_buffer_dirty(struct ext2_buf *bh);
void __ext2_mark_buffer_dirty(struct ext2_buf *bh);
int ext2_sync_buffer(struct ext2_buf *bh);

/* balloc.c: up to *count free blocks in a row, as near goal as the disk
 * allows (0: near the inode's group); *count becomes how many were
 * taken.  The first block's number, or -ENOSPC / -EUCLEAN / -EIO.
 * inode->i_blocks counts what it is given and what it frees. */
long ext2_new_blocks(struct inode *inode, u32 goal, unsigned long *count);
void ext2_free_blocks(struct inode *inode, u32 block, unsigned long count);

/* ialloc.c: a new inode of mode (S_IFxxx | permissions) for a name in
 * dir: allocated on disk, ops set, i_nlink 1 (a directory's second link,
 * its ".", is the caller's), written.  ERR_PTR(-ENOSPC ...) if none.
 * ext2_free_inode() gives an inode whose last link and reference are
 * gone back to its group (its blocks already freed by truncation). */
struct inode *ext2_new_inode(struct inode *dir, umode_t mode);
void ext2_free_inode(struct inode *inode);

/* inode.c: the VFS inode and its ext2_inode_info into the inode table
 * (the super_operations' dirty_inode); 0 or -errno. */
int ext2_write_inode(struct inode *inode);
/* i_op, i_fop and a_ops by the inode's type (iget and new_inode). */
void ext2_set_inode_ops(struct inode *inode);
/* Blocks past size freed, the map cut back, i_size set (truncate). */
int ext2_setsize(struct inode *inode, loff_t size);

/* inode.c and file.c, the rest of the write side: the VFS inode of a
 * just allocated inode number; ext2_get_block() allocating (*is_new: the
 * data block is new); the file's blocks from byte size on freed; the
 * super_operations' dirty_inode and evict_inode; balloc.c: a group's
 * descriptor into the descriptor table's cached block, and the
 * superblock's counts with it. */
struct inode *ext2_iget_new(struct super_block *sb, unsigned long ino, umode_t mode);
int ext2_get_block_create(struct inode *inode, u64 iblock, u32 *pblock, bool *is_new);
struct vm_area_struct;
/* f_op->mmap of a regular file (file.c): filemap_fault, and blocks
 * allocated at the first write through a MAP_SHARED mapping */
int ext2_file_mmap(struct file *f, struct vm_area_struct *vma);
void ext2_truncate_blocks(struct inode *inode, loff_t size);
void ext2_dirty_inode(struct inode *inode);
void ext2_evict_inode(struct inode *inode);
int ext2_group_desc_dirty(struct super_block *sb, u32 group);
/* super.c: the superblock's free counts summed into its cached block
 * (s_alloc_lock held). */
int ext2_update_super(struct super_block *sb);
/* super.c: set large_file (a regular file is past 2 GiB - 1) and write
 * the superblock, waiting for it. */
int ext2_set_large_file(struct super_block *sb);
ssize_t ext2_file_read_iter(struct file *f, struct iov_iter *to, loff_t *pos);
ssize_t ext2_file_write_iter(struct file *f, struct iov_iter *from, loff_t *pos);
/* O_DIRECT (a_ops->direct_IO): see fs/ext2/file.c */
struct kiocb;
ssize_t ext2_direct_IO(struct file *f, struct iov_iter *it, loff_t *pos, bool write,
		       struct kiocb *iocb);
int ext2_fsync(struct file *f, int datasync);
int ext2_zero_tail(struct inode *inode, loff_t size);

/* dir.c: entries.  ext2_add_link: name -> inode in dir (-EEXIST if
 * there; a new block when none has room).  ext2_delete_entry: the entry
 * called name in dir goes (its space joins the previous entry's).
 * ext2_make_empty: a new directory's first block, "." and "..".
 * ext2_empty_dir: nothing but "." and "..".  ext2_set_link: the entry
 * name in dir now points at inode (rename over an existing name, and
 * "..").  All -errno. */
int ext2_add_link(struct inode *dir, const char *name, int len, struct inode *inode);
int ext2_delete_entry(struct inode *dir, const char *name, int len);
int ext2_make_empty(struct inode *inode, struct inode *parent);
bool ext2_empty_dir(struct inode *inode);
int ext2_set_link(struct inode *dir, const char *name, int len, struct inode *inode);

/* dir.c: block n of inode (a hole) allocated, its buffer zeroed (a
 * directory's next block, a slow link's block); i_blocks grows, i_size
 * is the caller's.  ERR_PTR(-ENOSPC ...) */
struct ext2_buf *ext2_new_data_block(struct inode *inode, u64 n);
/* namei.c: chmod, chown, utimensat, truncate (every kind of inode) */
int ext2_setattr(struct dentry *dentry, const struct iattr *attr);
/* symlink.c: a new link's target (len bytes, no NUL), fast or slow */
int ext2_write_link(struct inode *inode, const char *target, size_t len);

/* dir.c: the inode number of name in dir, 0 if absent, or -errno */
long ext2_inode_by_name(struct inode *dir, const char *name, int len);
int ext2_getattr(struct inode *inode, struct stat *st);

#endif /* FS_EXT2_EXT2_H */
