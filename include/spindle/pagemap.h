/* SPDX-License-Identifier: MIT */
/*
 * pagemap.h - the page cache: the pages of files and block devices kept
 * in memory, found by (address_space, index).
 *
 * Where it sits: read() and write() of a file or a block device (and a
 * file system's own metadata reads) copy to and from cached pages; only
 * when a page is missing (read) or has to go back (write-back, fsync)
 * does the mapping's a_ops turn it into bios for the block layer.  One
 * copy per (mapping, index): a block device's data lives in its bdev
 * inode's mapping, whoever reads it.
 *
 * A cached page's state, Linux's bits in page->flags:
 *
 *   PG_locked     someone has it for I/O or for changing its contents:
 *                 being read in, or a write() copying into it.  Sleep
 *                 with lock_page(); the reader of an uptodate page does
 *                 not take it.
 *   PG_uptodate   its bytes are the file's (read from the disk, or
 *                 written whole): a read may copy them.
 *   PG_dirty      newer than the disk: write-back must write it.
 *   PG_writeback  a write of it is on its way to the disk.
 *   PG_readahead  the reader touching it starts the next readahead window.
 *
 * A page's life:
 *
 *   find_or_create_page --> [locked, !uptodate] --readpage, end_io--> [uptodate]
 *        write() copies in, set_page_dirty --> [uptodate, dirty]
 *        write-back: clear_page_dirty_for_io + set_page_writeback
 *              --> [writeback] --bios end--> end_page_writeback --> [uptodate]
 *        reclaim (clean, unlocked, no user but the cache) --> freed
 *
 * Rules for callers:
 *   - find_get_page and friends return the page with a reference: drop it
 *     with put_page() when done.  A page's contents may be read while
 *     PageUptodate; changed only under lock_page().
 *   - write-back never loses a dirty page: it is cleared only by the
 *     task that then writes it.  Reclaim takes clean pages only.
 *   - page_cache_lock (a spinlock, irq-safe) guards the hash, every
 *     mapping's lists and counters; never sleep or allocate under it.
 *   - may sleep: everything except the Page* tests, find_get_page,
 *     trylock_page, unlock_page, set_page_dirty, end_page_writeback and
 *     try_to_free_pages (these are safe in bio completion).
 */
#ifndef SPINDLE_PAGEMAP_H
#define SPINDLE_PAGEMAP_H

#include <spindle/fs.h>
#include <spindle/mm.h>

#define PG_locked       0x100ul
#define PG_uptodate     0x200ul
#define PG_dirty        0x400ul
#define PG_writeback    0x800ul
#define PG_readahead    0x1000ul
#define PG_lru          0x2000ul        /* on the reclaim LRU (in the cache) */
#define PG_error        0x4000ul        /* a read of one of its blocks failed */

static inline bool page_flag(const struct page *page, unsigned long bit)
{
	return __atomic_load_n(&page->flags, __ATOMIC_ACQUIRE) & bit;
}
static inline void page_flag_set(struct page *page, unsigned long bit)
{
	__atomic_fetch_or(&page->flags, bit, __ATOMIC_ACQ_REL);
}
static inline void page_flag_clear(struct page *page, unsigned long bit)
{
	__atomic_fetch_and(&page->flags, ~bit, __ATOMIC_ACQ_REL);
}

#define PageLocked(p)           page_flag(p, PG_locked)
#define PageUptodate(p)         page_flag(p, PG_uptodate)
#define PageDirty(p)            page_flag(p, PG_dirty)
#define PageWriteback(p)        page_flag(p, PG_writeback)
#define PageReadahead(p)        page_flag(p, PG_readahead)
#define SetPageUptodate(p)      page_flag_set(p, PG_uptodate)
#define ClearPageUptodate(p)    page_flag_clear(p, PG_uptodate)
#define SetPageReadahead(p)     page_flag_set(p, PG_readahead)
#define ClearPageReadahead(p)   page_flag_clear(p, PG_readahead)

/* --- locking a page ------------------------------------------------------- */

void lock_page(struct page *page);              /* may sleep */
bool trylock_page(struct page *page);
void unlock_page(struct page *page);            /* any context */
void wait_on_page_locked(struct page *page);
void wait_on_page_writeback(struct page *page);

/* --- finding pages -------------------------------------------------------- */

/* The cached page, referenced; or NULL. */
struct page *find_get_page(struct address_space *mapping, pgoff_t index);
/* The cached page, referenced and locked; a new zeroed one (locked, not
 * uptodate) if none; NULL if no memory.  gfp: of the new page. */
struct page *find_or_create_page(struct address_space *mapping, pgoff_t index, gfp_t gfp);
/* Put a new locked page into the cache; -EEXIST if the index is taken. */
int add_to_page_cache_lru(struct page *page, struct address_space *mapping, pgoff_t index);
/* The page read and uptodate (not locked), referenced; ERR_PTR(-EIO/-ENOMEM). */
struct page *read_mapping_page(struct address_space *mapping, pgoff_t index, struct file *f);

/* --- dirtying and write-back ---------------------------------------------- */

/* Mark page (in a mapping, locked or being written) dirty; true if it was
 * clean.  Puts the mapping on its disk's dirty list.  Does not sleep. */
bool set_page_dirty(struct page *page);
bool __set_page_dirty_nobuffers(struct page *page);
/* Write-back takes a dirty page: clear PG_dirty (true if it was set). */
bool clear_page_dirty_for_io(struct page *page);
void set_page_writeback(struct page *page);
/* The write of page ended (err: 0 or -errno, recorded in the mapping). */
void end_page_writeback(struct page *page, int err);
static inline void mapping_set_error(struct address_space *mapping, int err)
{
	if (err)
		errseq_set(&mapping->wb_err, err);
}

/*
 * Which pages a writepages call takes (Linux's writeback_control).
 *   WB_SYNC_ALL    every dirty page in [range_start, range_end] (fsync)
 *   WB_SYNC_NONE   up to nr_to_write pages, dirtied before older_than_ns
 *                  when that is set (the flusher's expiry)
 */
enum writeback_sync_modes {
	WB_SYNC_NONE,
	WB_SYNC_ALL,
};
struct writeback_control {
	enum writeback_sync_modes sync_mode;
	long nr_to_write;               /* pages left to write; decremented */
	loff_t range_start, range_end;  /* bytes, inclusive */
	int err;                        /* the first write error met */
};

/* Start write-back of the range's dirty pages and wait for every page of
 * the mapping under write-back; the error of this write-back, or 0. */
int filemap_write_and_wait_range(struct address_space *mapping, loff_t start, loff_t end);
static inline int filemap_write_and_wait(struct address_space *mapping)
{
	return filemap_write_and_wait_range(mapping, 0, MAX_LFS_FILESIZE);
}
int filemap_fdatawrite_wbc(struct address_space *mapping, struct writeback_control *wbc);
void filemap_fdatawait(struct address_space *mapping);
/* The mapping's fsync, by Linux's file_write_and_wait_range + errseq. */
int file_write_and_wait_range(struct file *f, loff_t start, loff_t end);

/* --- dropping pages ------------------------------------------------------- */

/* Drop every page from byte lstart on (waits for write-back; dirty pages
 * are dropped too: the file is being cut or freed). */
void truncate_inode_pages(struct address_space *mapping, loff_t lstart);
/* Drop the clean pages of [start, end] pages; returns the dirty ones kept. */
unsigned long invalidate_mapping_pages(struct address_space *mapping, pgoff_t start, pgoff_t end);
/* Reclaim: try_to_free_pages() (declared in mm.h, for the allocator). */

/* --- buffered read and write (what a file system's read_iter uses) --------- */

/* Copy from the cache to `to`, reading missing pages (with readahead), up
 * to the mapping's i_size.  The generic_file_read_iter body. */
ssize_t filemap_read(struct file *f, struct iov_iter *to, loff_t *pos);
/* Copy `from` into cached pages from *pos, dirtying them; a page written
 * only in part is read first.  Stops at `limit` bytes (the device's end):
 * -ENOSPC if nothing fits.  Throttles the writer (balance_dirty_pages). */
ssize_t generic_perform_write(struct file *f, struct iov_iter *from, loff_t *pos, loff_t limit);
size_t fault_in_iov_iter_readable(const struct iov_iter *i, size_t n);

/* --- mmap of a page cache file (fs/filemap.c; include/spindle/mm_types.h) --- */

struct vm_area_struct;
struct vm_fault;
/* f_op->mmap of a file whose data is in the page cache (ext2 files, block
 * devices): its faults are filemap_fault's, its first writes through a
 * MAP_SHARED mapping filemap_page_mkwrite's (which dirties the page). */
int generic_file_mmap(struct file *f, struct vm_area_struct *vma);
int filemap_fault(struct vm_fault *vmf);
int filemap_page_mkwrite(struct vm_fault *vmf);

/* --- readahead (fs/filemap.c) ----------------------------------------------- */

/* Start reading [index, index + nr) of mapping into the cache, the pages
 * not there yet, under one plug; does not wait (Linux's name).  For a file
 * system reading its own metadata ahead through the device's mapping: an
 * inode table, a directory's blocks. */
void force_page_cache_readahead(struct address_space *mapping, pgoff_t index, unsigned long nr);

#define VM_READAHEAD_PAGES      32      /* the first window: 128 KiB, as Linux */

/*
 * Readahead's window arithmetic, apart from I/O so that it can be tested:
 * the reader wants req pages at index; max is the device's read_ahead_kb
 * in pages.  Sets ra's new window ([start, start + size), next trigger at
 * start + size - async_size) and returns true when a window is to be
 * read, false for a random access (only the req pages, no window).
 * marker: the access hit the PG_readahead page of the last window.
 */
bool ra_next_window(struct file_ra_state *ra, pgoff_t index, unsigned long req,
		    unsigned long max, bool marker);
static inline void file_ra_state_init(struct file_ra_state *ra)
{
	*ra = (struct file_ra_state){ .prev_index = ~(pgoff_t)0 };
}

/* --- the block-mapping helpers for file systems (fs/mpage.c) ----------------- */

/*
 * get_block: map block `iblock` (in units of 1 << mapping->i_blkbits)
 * of inode to a 512-byte sector of its disk (mapping->bdev) in *sector,
 * allocating it if create.  Returns 0, with *sector == SECTOR_HOLE for a
 * hole (reads see zeros), or -errno.  The block device's is the identity.
 */
#define SECTOR_HOLE     (~(sector_t)0)
typedef int (*get_block_t)(struct inode *inode, sector_t iblock, sector_t *sector, bool create);

/* Start the reads; 0, or the first get_block error (that page is left
 * !uptodate: the file system's reason, -EUCLEAN say, for its readpage to
 * return where the page cache alone would only know -EIO). */
int mpage_readpages(struct address_space *mapping, struct page **pages, unsigned int nr,
		    get_block_t get_block);
int mpage_readpage(struct page *page, get_block_t get_block);
int mpage_writepages(struct address_space *mapping, struct writeback_control *wbc,
		     get_block_t get_block);

/* --- counters (for /proc/meminfo and balance_dirty_pages) ------------------- */

struct page_cache_stats {
	unsigned long nr_pages, nr_dirty, nr_writeback;
	unsigned long nr_bdev; /* of nr_pages, the block devices' own */
};
void page_cache_stats(struct page_cache_stats *st);

#endif /* SPINDLE_PAGEMAP_H */
