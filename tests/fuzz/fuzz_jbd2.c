// SPDX-License-Identifier: MIT
/*
 * fuzz_jbd2.c - ext3's journal recovery (fs/jbd2/journal.c, recovery.c,
 * revoke.c) fed damaged logs.
 *
 * A journal of arbitrary bytes is rarely more than a bad magic number, so
 * the input edits a good one instead: the target writes, in memory, a
 * journal of NJ blocks of 1 KiB whose log holds three committed
 * transactions -- one logging three home blocks (the first escaped: it
 * begins with the magic number), one logging two more, one revoking a
 * block of the first -- in the format input byte 0 picks (no checksums,
 * 64-bit block numbers, checksum v2, checksum v3), and then applies the
 * rest of the input as edits: each 4 bytes (journal block, offset as two
 * bytes, a byte XORed in there).  Edits land anywhere: the superblock
 * (lengths, start, sequence, features, checksum), descriptors (tag home
 * blocks past the file system, flags, counts), revoke counts, commit
 * blocks.  Then jbd2_journal_load() replays it onto a file system of NFS
 * blocks, every one 0xee, as a mount does.  What recovery promises:
 *
 *   - no crash, no read outside the journal, no write outside the file
 *     system (the callbacks assert both);
 *   - a refused log writes no home block: an error leaves the file system
 *     as it was;
 *   - with checksum v3, every block written home is a copy the generator
 *     logged for that very block, unchanged: damage inside a transaction
 *     is caught before anything of it is written, never replayed over
 *     good data.  (Not asserted for v2, whose tags keep 16 bits of a
 *     block's CRC32C: two different blocks may share them.)
 *
 * A second kind of input, byte 0 with its top bit set, is a journal as
 * it stands: the rest of the input, in blocks of 1 KiB (4 KiB if bit 0
 * is set too), over a file system of RAW_FS_BLOCKS blocks whose writes
 * land in a small array (block modulo NFS).  Its seeds are real logs:
 * e2fsprogs' journal test images, their first blocks cut out by
 * tools/jimages.py --seeds (make-corpus.sh, when `make jimages` has
 * fetched them).  Promised: no crash, no read outside the journal, no
 * write outside the file system, and a refused log writes nothing.
 */
#include <spindle/jbd2.h>
#include <spindle/crc32.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/mm.h>
#include "fuzz.h"

#define BS  1024
#define NJ  24  /* journal blocks */
#define NFS 64  /* file-system blocks */

static u8 jblk[NJ][BS];
static u8 fsblk[NFS][BS];
static unsigned int home_writes;

/* the raw mode: the journal is the input (at most RAW_MAX bytes) */
#define RAW_MAX       (64 * 1024)
#define RAW_FS_BLOCKS (1u << 22)
static u8 rawj[RAW_MAX];
static u32 features, seed, wpos;
static const u8 uuid[16] = { 0x3e, 0x7a, 0x4c, 0x1b, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* What the log carries: home blocks logged by transactions 1 and 2. */
static const u64 t1_homes[] = { 10, 11, 12 };
static const u64 t2_homes[] = { 20, 11 };
static const u64 t3_revoked[] = { 12 };

/* the revoke table's memory: libc's, under AddressSanitizer */
void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

static int f_read(journal_t *j, u32 nr, void *buf)
{
	FUZZ_ASSERT(nr < j->j_total_len);
	memcpy(buf, jblk[nr], BS);
	return 0;
}

static int f_write(journal_t *j, u32 nr, const void *buf)
{
	FUZZ_ASSERT(nr < j->j_total_len);
	memcpy(jblk[nr], buf, BS);
	return 0;
}

static int f_write_home(journal_t *j, u64 nr, const void *buf)
{
	(void)j;
	FUZZ_ASSERT(nr < NFS);
	memcpy(fsblk[nr], buf, BS);
	home_writes++;
	return 0;
}

static int raw_read(journal_t *j, u32 nr, void *buf)
{
	FUZZ_ASSERT(nr < j->j_total_len);
	memcpy(buf, rawj + (size_t)nr * j->j_blocksize, j->j_blocksize);
	return 0;
}

static int raw_write(journal_t *j, u32 nr, const void *buf)
{
	FUZZ_ASSERT(nr < j->j_total_len);
	memcpy(rawj + (size_t)nr * j->j_blocksize, buf, j->j_blocksize);
	return 0;
}

static int raw_write_home(journal_t *j, u64 nr, const void *buf)
{
	FUZZ_ASSERT(nr < j->j_fs_blocks);
	memcpy(fsblk[nr % NFS], buf, BS); /* the first 1 KiB: where it lands is all we check */
	home_writes++;
	return 0;
}

static int f_sync(journal_t *j)
{
	(void)j;
	return 0;
}

/* --- a good journal (the format of include/spindle/jbd2.h) ---------------- */

static void put32(u8 *p, u32 v)
{
	__be32 b = cpu_to_be32(v);

	memcpy(p, &b, 4);
}

static void header(u8 *b, u32 type, u32 seq)
{
	memset(b, 0, BS);
	put32(b, JBD2_MAGIC_NUMBER);
	put32(b + 4, type);
	put32(b + 8, seq);
}

static bool csum(void)
{
	return features & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

/* the CRC32C of the block with its 4 bytes at off as 0, stored there */
static void seal(u8 *b, size_t off)
{
	put32(b + off, 0);
	put32(b + off, __crc32c_le(seed, b, BS));
}

/* Home block n's copy in transaction seq: recognisable, and (for the
 * first of transaction 1) beginning with the magic number. */
static void fill(u8 *b, u64 home, u32 seq)
{
	for (int i = 0; i < BS; i++)
		b[i] = (u8)(home * 7 + seq * 13 + (u32)i);
	if (seq == 1 && home == t1_homes[0])
		put32(b, JBD2_MAGIC_NUMBER);
}

static void commit_block(u32 seq)
{
	u8 *cb = jblk[wpos++];

	header(cb, JBD2_COMMIT_BLOCK, seq);
	put32(cb + 48 + 4, 1000 + seq);
	if (csum())
		seal(cb, 16);
}

static void transaction(u32 seq, const u64 *homes, int n)
{
	u8 *d = jblk[wpos++], *tag = d + 12;
	size_t tag_bytes = 16; /* v3; else 8, 12 with 64-bit, + 2 with v2 */

	if (!(features & JBD2_FEATURE_INCOMPAT_CSUM_V3))
		tag_bytes = 8 + (features & JBD2_FEATURE_INCOMPAT_64BIT ? 4 : 0) +
			    (features & JBD2_FEATURE_INCOMPAT_CSUM_V2 ? 2 : 0);

	header(d, JBD2_DESCRIPTOR_BLOCK, seq);
	for (int i = 0; i < n; i++) {
		u8 *data = jblk[wpos++];
		u32 flags = (i ? JBD2_FLAG_SAME_UUID : 0) | (i == n - 1 ? JBD2_FLAG_LAST_TAG : 0);
		__be32 seqb = cpu_to_be32(seq);
		u32 c;

		fill(data, homes[i], seq);
		if (seq == 1 && i == 0) {
			memset(data, 0, 4); /* escaped, as it lies in the log */
			flags |= JBD2_FLAG_ESCAPE;
		}
		c = __crc32c_le(__crc32c_le(seed, &seqb, 4), data, BS);
		put32(tag, (u32)homes[i]);
		if (features & JBD2_FEATURE_INCOMPAT_CSUM_V3) {
			put32(tag + 4, flags);
			put32(tag + 12, c);
		} else {
			if (features & JBD2_FEATURE_INCOMPAT_CSUM_V2) {
				tag[4] = (u8)(c >> 8);
				tag[5] = (u8)c;
			}
			tag[6] = (u8)(flags >> 8);
			tag[7] = (u8)flags;
		}
		tag += tag_bytes;
		if (i == 0) {
			memcpy(tag, uuid, 16);
			tag += 16;
		}
	}
	if (csum())
		seal(d, BS - 4);
	commit_block(seq);
}

static void revoke(u32 seq, const u64 *homes, int n)
{
	u8 *r = jblk[wpos++];
	size_t rec = features & JBD2_FEATURE_INCOMPAT_64BIT ? 8 : 4;

	header(r, JBD2_REVOKE_BLOCK, seq);
	for (int i = 0; i < n; i++)
		put32(r + 16 + i * rec + (rec - 4), (u32)homes[i]);
	put32(r + 12, (u32)(16 + n * rec));
	if (csum())
		seal(r, BS - 4);
	commit_block(seq);
}

static void good_journal(u32 incompat)
{
	journal_superblock_t *sb = (journal_superblock_t *)jblk[0];

	memset(jblk, 0, sizeof(jblk));
	memset(fsblk, 0xee, sizeof(fsblk));
	features = incompat;
	seed = __crc32c_le(~0u, uuid, 16);
	wpos = 1;
	transaction(1, t1_homes, 3);
	transaction(2, t2_homes, 2);
	revoke(3, t3_revoked, 1);
	sb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	sb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	sb->s_blocksize = cpu_to_be32(BS);
	sb->s_maxlen = cpu_to_be32(NJ);
	sb->s_first = cpu_to_be32(1);
	sb->s_sequence = cpu_to_be32(1);
	sb->s_start = cpu_to_be32(1);
	sb->s_feature_incompat = cpu_to_be32(features);
	memcpy(sb->s_uuid, uuid, 16);
	sb->s_nr_users = cpu_to_be32(1);
	if (csum()) {
		sb->s_checksum_type = JBD2_CRC32C_CHKSUM;
		sb->s_checksum = cpu_to_be32(jbd2_superblock_csum(sb));
	}
}

/* --- the checks --------------------------------------------------------------- */

static bool untouched(u64 home);

/* Is block home, as written, a copy the good log carried for it? */
static bool logged_copy(u64 home)
{
	u8 want[BS];

	for (u32 seq = 1; seq <= 2; seq++) {
		const u64 *homes = seq == 1 ? t1_homes : t2_homes;
		int n = seq == 1 ? 3 : 2;

		for (int i = 0; i < n; i++) {
			if (homes[i] != home)
				continue;
			fill(want, home, seq);
			if (!memcmp(fsblk[home], want, BS))
				return true;
		}
	}
	return false;
}

static bool untouched(u64 home)
{
	for (int i = 0; i < BS; i++)
		if (fsblk[home][i] != 0xee)
			return false;
	return true;
}

static const u32 formats[] = {
	0,
	JBD2_FEATURE_INCOMPAT_64BIT,
	JBD2_FEATURE_INCOMPAT_CSUM_V2,
	JBD2_FEATURE_INCOMPAT_CSUM_V3,
	JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_64BIT,
};

/* The raw mode: the input is the journal (see the top of the file). */
static void raw_journal(const u8 *data, size_t size)
{
	unsigned int bs = data[0] & 1 ? 4096 : 1024;
	size_t len = size - 1 < RAW_MAX ? size - 1 : RAW_MAX;
	journal_t journal;
	int err;

	memset(rawj, 0, sizeof(rawj));
	memcpy(rawj, data + 1, len);
	home_writes = 0;
	memset(&journal, 0, sizeof(journal));
	strlcpy(journal.j_devname, "fuzz-8", sizeof(journal.j_devname));
	journal.j_blocksize = bs;
	journal.j_total_len = (u32)((len + bs - 1) / bs);
	journal.j_fs_blocks = RAW_FS_BLOCKS;
	journal.j_read_block = raw_read;
	journal.j_write_block = raw_write;
	journal.j_write_home = raw_write_home;
	journal.j_sync = f_sync;
	err = jbd2_journal_load(&journal);
	jbd2_journal_destroy(&journal);
	if (err)
		FUZZ_ASSERT(home_writes == 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	journal_t journal;
	u32 format;
	int err;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		fuzz_begin();
		raw_journal(data, size);
		fuzz_end();
		return 0;
	}
	format = formats[data[0] % ARRAY_SIZE(formats)];
	fuzz_begin();
	good_journal(format);
	for (size_t i = 1; i + 4 <= size; i += 4) {
		u32 blk = data[i] % NJ;
		u32 off = (u32)(data[i + 1] | data[i + 2] << 8) % BS;

		jblk[blk][off] ^= data[i + 3];
	}
	home_writes = 0;
	memset(&journal, 0, sizeof(journal));
	strlcpy(journal.j_devname, "fuzz-8", sizeof(journal.j_devname));
	journal.j_blocksize = BS;
	journal.j_total_len = NJ;
	journal.j_fs_blocks = NFS;
	journal.j_read_block = f_read;
	journal.j_write_block = f_write;
	journal.j_write_home = f_write_home;
	journal.j_sync = f_sync;
	err = jbd2_journal_load(&journal);
	jbd2_journal_destroy(&journal);

	if (size < 5) {
		/* no edit: the good log replays whole (4 writes) -- 10 (unescaped), 11 as
		 * transaction 2 left it, 20; 12 revoked by transaction 3 */
		u8 want[BS];

		FUZZ_ASSERT(err == 0 && home_writes == 4);
		fill(want, 10, 1);
		FUZZ_ASSERT(!memcmp(fsblk[10], want, BS));
		fill(want, 11, 2);
		FUZZ_ASSERT(!memcmp(fsblk[11], want, BS));
		FUZZ_ASSERT(untouched(12) && !untouched(20));
	}
	if (err)
		FUZZ_ASSERT(home_writes == 0);
	if (format & JBD2_FEATURE_INCOMPAT_CSUM_V3) {
		for (u64 b = 0; b < NFS; b++)
			FUZZ_ASSERT(untouched(b) || logged_copy(b));
	}
	fuzz_end();
	return 0;
}
