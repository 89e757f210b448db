// SPDX-License-Identifier: MIT
/*
 * The page cache's portable pieces, with no disk: errseq (lib/errseq.c:
 * an error seen once by every watcher), readahead's window arithmetic
 * (ra_next_window: sequential windows grow from 128 KiB to the limit,
 * random reads do not), the (mapping, index) hash and the mapping's
 * counts, truncation, and reclaim (least recently used clean pages
 * first, never a dirty, locked or referenced one).  Pages come from a
 * memory "disk" whose readpage fills them at once.
 */
#include <check.h>
#include <spindle/pagemap.h>
#include <spindle/errseq.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include "shim/host_kernel.h"

/* --- errseq ------------------------------------------------------------------ */

START_TEST(errseq_each_watcher_sees_an_error_once)
{
	errseq_t eseq = 0, a, b, late;

	a = errseq_sample(&eseq);
	b = errseq_sample(&eseq);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &a), 0);      /* nothing yet */
	errseq_set(&eseq, -EIO);
	ck_assert_int_eq(errseq_check(&eseq, a), -EIO);                /* marks nothing */
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &a), -EIO);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &a), 0);      /* once */
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &b), -EIO);   /* b too */
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &b), 0);
	late = errseq_sample(&eseq);                    /* opened after it was seen */
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &late), 0);
	/* the same errno again is a new error for everyone */
	errseq_set(&eseq, -EIO);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &a), -EIO);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &late), -EIO);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &b), -EIO);
}
END_TEST

START_TEST(errseq_unseen_error_reaches_a_later_opener)
{
	errseq_t eseq = 0, opened_later;

	errseq_set(&eseq, -ENOSPC);
	errseq_set(&eseq, -EIO);                /* unseen: the latest wins */
	opened_later = errseq_sample(&eseq);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &opened_later), -EIO);
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &opened_later), 0);
	errseq_set(&eseq, 0);                   /* not an error: nothing */
	errseq_set(&eseq, -5000);               /* not an errno */
	ck_assert_int_eq(errseq_check_and_advance(&eseq, &opened_later), 0);
}
END_TEST

/* --- readahead windows ---------------------------------------------------------- */

/*
 * A reader of one page at a time from page 0, with read_ahead_kb = 2 MiB
 * (512 pages): each window is read when the reader reaches the marker,
 * and is twice the last, from 32 pages (128 KiB) up to 512.
 */
START_TEST(sequential_window_doubles_up_to_the_limit)
{
	static const unsigned long sizes[] = { 32, 64, 128, 256, 512, 512, 512 };
	struct file_ra_state ra;
	unsigned int w = 0;

	file_ra_state_init(&ra);
	ck_assert(ra_next_window(&ra, 0, 1, 512, false));
	ck_assert_uint_eq(ra.start, 0);
	ck_assert_uint_eq(ra.size, sizes[w++]);
	ck_assert_uint_eq(ra.start + ra.size - ra.async_size, 1);     /* the marker */
	for (pgoff_t index = 1; w < ARRAY_SIZE(sizes); index++) {
		bool marker = index == ra.start + ra.size - ra.async_size;

		if (!marker) {
			ra.prev_index = index;
			continue;
		}
		ck_assert(ra_next_window(&ra, index, 1, 512, true));
		ck_assert_uint_eq(ra.size, sizes[w]);
		ck_assert_uint_eq(ra.async_size, sizes[w]);
		w++;
		ra.prev_index = index;
	}
}
END_TEST

/* The default read_ahead_kb (128): the window never grows past 32 pages. */
START_TEST(default_limit_keeps_128k_windows)
{
	struct file_ra_state ra;

	file_ra_state_init(&ra);
	ck_assert(ra_next_window(&ra, 0, 4, 32, false));
	ck_assert_uint_eq(ra.size, 32);
	for (int i = 0; i < 5; i++) {
		ck_assert(ra_next_window(&ra, ra.start + ra.size - ra.async_size, 1, 32, true));
		ck_assert_uint_eq(ra.size, 32);
	}
}
END_TEST

/*
 * dd bs=1M with the default 128 KiB limit: every read() asks for 256
 * pages, more than a window.  Played as filemap_read plays it -- a page
 * not cached starts a window synchronously, a cached page carrying the
 * marker starts the next one -- only the very first window may be read
 * while the reader waits: each later one is started by the marker,
 * while the reader still has pages of the last window to copy.  With the
 * marker on the window's first page (the page the reader waits for,
 * never looked at again) every window was synchronous.
 */
START_TEST(big_reads_keep_one_window_ahead)
{
	enum { PAGES = 1024, REQ = 256, MAX = 32 };
	static bool cached[PAGES + 2 * MAX], marked[PAGES + 2 * MAX];
	struct file_ra_state ra;
	unsigned int sync = 0, async = 0;

	memset(cached, 0, sizeof(cached));
	memset(marked, 0, sizeof(marked));
	file_ra_state_init(&ra);
	for (pgoff_t index = 0; index < PAGES; index++) {
		unsigned long req = REQ - index % REQ;  /* what is left of this read() */
		bool issue = false;

		if (!cached[index]) {
			ck_assert(ra_next_window(&ra, index, req, MAX, false));
			sync++;
			issue = true;
		} else if (marked[index]) {
			marked[index] = false;
			ck_assert(ra_next_window(&ra, index, req, MAX, true));
			async++;
			issue = true;
		}
		if (issue) {
			ck_assert_uint_le(ra.size, MAX);
			ck_assert_uint_gt(ra.async_size, 0);
			for (pgoff_t i = ra.start; i < ra.start + ra.size; i++)
				cached[i] = true;
			/* the marker is a page the reader has not reached yet */
			ck_assert_uint_gt(ra.start + ra.size - ra.async_size, index);
			marked[ra.start + ra.size - ra.async_size] = true;
		}
		ra.prev_index = index;
	}
	ck_assert_uint_eq(sync, 1);
	ck_assert_uint_ge(async, PAGES / MAX - 1);
}
END_TEST

/* Reads here and there: only what was asked, and never a growing window. */
START_TEST(random_reader_gets_no_window)
{
	static const pgoff_t at[] = { 900, 17, 4000, 250, 251 + 7, 3 };
	struct file_ra_state ra;

	file_ra_state_init(&ra);
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		ck_assert(!ra_next_window(&ra, at[i], 2, 512, false));
		ck_assert_uint_eq(ra.start, at[i]);
		ck_assert_uint_eq(ra.size, 2);
		ck_assert_uint_eq(ra.async_size, 0);
		ra.prev_index = at[i] + 1;
	}
	/* a big random read is clamped to the limit */
	ck_assert(!ra_next_window(&ra, 77, 1000, 512, false));
	ck_assert_uint_eq(ra.size, 512);
	/* and the reader that continues where it stopped is sequential again */
	ra.prev_index = 80;
	ck_assert(ra_next_window(&ra, 81, 1, 512, false));
	ck_assert_uint_eq(ra.size, 32);
}
END_TEST

/* --- the index, truncation and reclaim, over a memory "disk" ----------------------- */

static int reads;

/* Fills the page with its own index and mapping number, at once. */
static int mem_readpage(struct file *f, struct page *page)
{
	(void)f;
	memset(page_address(page), (int)(page->index & 0xff), PAGE_SIZE);
	*(unsigned long *)page_address(page) = page->index;
	reads++;
	SetPageUptodate(page);
	unlock_page(page);
	return 0;
}

static const struct address_space_operations mem_aops = { .readpage = mem_readpage };

static struct inode inodes[2];

static struct address_space *mem_mapping(int n)
{
	struct inode *inode = &inodes[n];
	struct address_space *m = &inode->i_data;

	memset(inode, 0, sizeof(*inode));
	inode->i_size = 1ll << 40;
	inode->i_mapping = m;
	m->host = inode;
	m->a_ops = &mem_aops;
	m->i_blkbits = PAGE_SHIFT;
	INIT_LIST_HEAD(&m->i_pages);
	INIT_LIST_HEAD(&m->i_wb_list);
	INIT_LIST_HEAD(&m->i_mmap);
	return m;
}

static void setup(void)
{
	host_printk_quiet = true;
	host_mm_init(8192 * PAGE_SIZE);
	reads = 0;
}

static struct page *read_page(struct address_space *m, pgoff_t index)
{
	struct page *page = read_mapping_page(m, index, NULL);

	ck_assert(!IS_ERR(page));
	ck_assert(PageUptodate(page));
	return page;
}

/* Two mappings, the same indexes in both, far more pages than buckets. */
START_TEST(hash_finds_each_page_of_each_mapping)
{
	struct address_space *a = mem_mapping(0), *b = mem_mapping(1);
	const pgoff_t n = 3000;

	for (pgoff_t i = 0; i < n; i++) {
		put_page(read_page(a, i * 7));
		put_page(read_page(b, i * 7));
	}
	ck_assert_int_eq(reads, 2 * n);
	ck_assert_uint_eq(a->nrpages, n);
	ck_assert_uint_eq(b->nrpages, n);
	for (pgoff_t i = 0; i < n * 7; i++) {
		struct page *pa = find_get_page(a, i), *pb = find_get_page(b, i);

		if (i % 7) {
			ck_assert_ptr_null(pa);
			ck_assert_ptr_null(pb);
			continue;
		}
		ck_assert_ptr_nonnull(pa);
		ck_assert_ptr_nonnull(pb);
		ck_assert_ptr_ne(pa, pb);
		ck_assert_uint_eq(*(unsigned long *)page_address(pa), i);
		ck_assert_ptr_eq(pa->mapping, a);
		ck_assert_ptr_eq(pb->mapping, b);
		put_page(pa);
		put_page(pb);
	}
	ck_assert_int_eq(reads, 2 * n);                 /* all hits */
	/* cut a from page 700 on: b keeps all of its pages */
	truncate_inode_pages(a, 700 * PAGE_SIZE);
	ck_assert_uint_eq(a->nrpages, 100);
	ck_assert_uint_eq(b->nrpages, n);
	ck_assert_ptr_null(find_get_page(a, 700));
	put_page(read_page(b, 700));
	truncate_inode_pages(a, 0);
	truncate_inode_pages(b, 0);
	ck_assert_uint_eq(a->nrpages + b->nrpages, 0);
}
END_TEST

START_TEST(find_or_create_page_gives_a_locked_zeroed_page)
{
	struct address_space *a = mem_mapping(0);
	struct page *page = find_or_create_page(a, 5, GFP_KERNEL), *again;

	ck_assert_ptr_nonnull(page);
	ck_assert(PageLocked(page));
	ck_assert(!PageUptodate(page));
	for (size_t i = 0; i < PAGE_SIZE; i++)
		ck_assert_int_eq(((unsigned char *)page_address(page))[i], 0);
	ck_assert_int_eq(add_to_page_cache_lru(alloc_page(GFP_KERNEL), a, 5), -EEXIST);
	unlock_page(page);
	again = find_or_create_page(a, 5, GFP_KERNEL);
	ck_assert_ptr_eq(again, page);                  /* the same one, locked again */
	unlock_page(again);
	put_page(again);
	put_page(page);
	truncate_inode_pages(a, 0);
}
END_TEST

/*
 * Reclaim frees the least recently used clean pages first; a dirty page
 * (newer than the disk), a locked one and one somebody holds stay.
 */
START_TEST(reclaim_takes_old_clean_pages_only)
{
	struct address_space *a = mem_mapping(0);
	struct page *held, *held0, *dirty, *locked;
	struct page_cache_stats st;

	for (pgoff_t i = 0; i < 10; i++)
		put_page(read_page(a, i));
	put_page(find_get_page(a, 0));                  /* 0 is now the newest */
	held = find_get_page(a, 1);
	dirty = find_get_page(a, 2);
	lock_page(dirty);
	set_page_dirty(dirty);
	unlock_page(dirty);
	put_page(dirty);
	locked = find_get_page(a, 3);
	lock_page(locked);

	ck_assert_uint_eq(try_to_free_pages(2), 2);     /* the two oldest it may take */
	ck_assert_ptr_null(find_get_page(a, 4));
	ck_assert_ptr_null(find_get_page(a, 5));
	ck_assert_uint_eq(a->nrpages, 8);
	ck_assert_uint_eq(try_to_free_pages(4), 4);     /* 6..9 */
	held0 = find_get_page(a, 0);                    /* 0, the newest, stays */
	ck_assert_ptr_nonnull(held0);
	put_page(held0);
	ck_assert_uint_eq(try_to_free_pages(100), 1);
	ck_assert_uint_eq(a->nrpages, 3);               /* held, dirty, locked */
	ck_assert_uint_eq(try_to_free_pages(100), 0);
	page_cache_stats(&st);
	ck_assert_uint_eq(st.nr_pages, 3);
	ck_assert_uint_eq(st.nr_dirty, 1);
	unlock_page(locked);
	put_page(locked);
	put_page(held);
	ck_assert_uint_eq(try_to_free_pages(100), 2);
	ck_assert_uint_eq(a->nrpages, 1);               /* never the dirty one */
	ck_assert(PageDirty(find_get_page(a, 2)));
}
END_TEST

/* The allocator reclaims by itself when it runs dry, atomic callers excepted. */
START_TEST(allocator_reclaims_clean_pages_when_dry)
{
	struct address_space *a = mem_mapping(0);
	struct page *p;

	for (pgoff_t i = 0; i < 4; i++)
		put_page(read_page(a, i));
	while (alloc_page(GFP_ATOMIC))
		;
	ck_assert_uint_eq(nr_free_pages(), 0);
	ck_assert_ptr_null(alloc_page(GFP_ATOMIC));
	ck_assert_uint_eq(a->nrpages, 4);
	p = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(a->nrpages, 3);               /* one cached page gave way */
	ck_assert_ptr_null(find_get_page(a, 0));        /* the oldest */
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("pagecache");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_checked_fixture(core, setup, NULL);
	tcase_add_test(core, errseq_each_watcher_sees_an_error_once);
	tcase_add_test(core, sequential_window_doubles_up_to_the_limit);
	tcase_add_test(core, random_reader_gets_no_window);
	tcase_add_test(core, hash_finds_each_page_of_each_mapping);
	tcase_add_test(core, find_or_create_page_gives_a_locked_zeroed_page);
	tcase_add_test(core, reclaim_takes_old_clean_pages_only);
	suite_add_tcase(s, core);

	tcase_add_checked_fixture(limits, setup, NULL);
	tcase_add_test(limits, errseq_unseen_error_reaches_a_later_opener);
	tcase_add_test(limits, default_limit_keeps_128k_windows);
	tcase_add_test(limits, big_reads_keep_one_window_ahead);
	tcase_add_test(limits, allocator_reclaims_clean_pages_when_dry);
	suite_add_tcase(s, limits);
	return s;
}
