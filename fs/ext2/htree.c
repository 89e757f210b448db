// SPDX-License-Identifier: MIT
/*
 * htree.c - hashed directories (the dir_index feature): the name hashes
 * and the walk down a directory's index to the one leaf block that may
 * hold a name, as Linux's fs/ext4/hash.c and Linux's fs/ext4/namei.c
 * (dx_probe, ext4_htree_next_block) do it.  No I/O and no VFS: a callback reads the
 * directory's blocks, so that the hashes and every check of the index run
 * on the host too (tests/unit/check_ext2_htree.c, tests/fuzz/fuzz_ext2.c).
 *
 * An indexed directory (EXT2_INDEX_FL on its inode) is still an ordinary
 * one to a linear reader -- the index hides in records that look empty:
 *
 *   block 0 (the root)   [ "." 12 ][ ".." blocksize-12 ........................ ]
 *                                    inside ".."'s rec_len: the root info
 *                                    (hash version, depth) and the entries
 *   an interior block    [ inode 0, rec_len blocksize .......................... ]
 *                                    inside it: more entries
 *   a leaf               ordinary entries, all of whose names hash into the
 *                        range its index entry covers
 *
 * An index entry is (hash, block): the block holding the names whose
 * hashes are >= hash and < the next entry's.  The first entry's hash
 * field holds (limit, count) instead -- its range starts at 0.  The root
 * points at leaves (indirect_levels 0) or at interior blocks that point
 * at leaves (1); ext2's readers know no deeper index (ext4's largedir).
 * Names whose hashes collide may spill into the next leaf: its entry's
 * hash then has bit 0 set (and hashes are otherwise even).
 *
 * Everything read from the index is checked before it is used -- the
 * hash version, the depth, the limits and counts, every block number
 * inside the directory.  A bad index is not an error for the caller: as
 * Linux, a warning is logged and the directory is read linearly (which
 * an index never prevents).
 */
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include "ext2.h"

/* --- the hashes (Linux's fs/ext4/hash.c) ------------------------------------ */

#define EXT2_TEA_DELTA 0x9E3779B9u

/* 16 rounds of the Tiny Encryption Algorithm over buf, keyed by in. */
static void ext2_tea_transform(u32 buf[4], const u32 in[4])
{
	u32 sum = 0, b0 = buf[0], b1 = buf[1];
	u32 a = in[0], b = in[1], c = in[2], d = in[3];

	for (int n = 0; n < 16; n++) {
		sum += EXT2_TEA_DELTA;
		b0 += ((b1 << 4) + a) ^ (b1 + sum) ^ ((b1 >> 5) + b);
		b1 += ((b0 << 4) + c) ^ (b0 + sum) ^ ((b0 >> 5) + d);
	}
	buf[0] += b0;
	buf[1] += b1;
}

static inline u32 ext2_rol32(u32 w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

/* MD4's three basic functions: selection, majority, parity */
#define MD4_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MD4_G(x, y, z) (((x) & (y)) + (((x) ^ (y)) & (z)))
#define MD4_H(x, y, z) ((x) ^ (y) ^ (z))
#define MD4_ROUND(f, a, b, c, d, x, s) (a += f(b, c, d) + (x), a = ext2_rol32(a, s))
#define MD4_K1 0u
#define MD4_K2 013240474631u
#define MD4_K3 015666365641u

/* MD4 cut to three rounds of eight steps: the "half" of half_md4. */
static void ext2_half_md4_transform(u32 buf[4], const u32 in[8])
{
	u32 a = buf[0], b = buf[1], c = buf[2], d = buf[3];

	MD4_ROUND(MD4_F, a, b, c, d, in[0] + MD4_K1, 3);
	MD4_ROUND(MD4_F, d, a, b, c, in[1] + MD4_K1, 7);
	MD4_ROUND(MD4_F, c, d, a, b, in[2] + MD4_K1, 11);
	MD4_ROUND(MD4_F, b, c, d, a, in[3] + MD4_K1, 19);
	MD4_ROUND(MD4_F, a, b, c, d, in[4] + MD4_K1, 3);
	MD4_ROUND(MD4_F, d, a, b, c, in[5] + MD4_K1, 7);
	MD4_ROUND(MD4_F, c, d, a, b, in[6] + MD4_K1, 11);
	MD4_ROUND(MD4_F, b, c, d, a, in[7] + MD4_K1, 19);

	MD4_ROUND(MD4_G, a, b, c, d, in[1] + MD4_K2, 3);
	MD4_ROUND(MD4_G, d, a, b, c, in[3] + MD4_K2, 5);
	MD4_ROUND(MD4_G, c, d, a, b, in[5] + MD4_K2, 9);
	MD4_ROUND(MD4_G, b, c, d, a, in[7] + MD4_K2, 13);
	MD4_ROUND(MD4_G, a, b, c, d, in[0] + MD4_K2, 3);
	MD4_ROUND(MD4_G, d, a, b, c, in[2] + MD4_K2, 5);
	MD4_ROUND(MD4_G, c, d, a, b, in[4] + MD4_K2, 9);
	MD4_ROUND(MD4_G, b, c, d, a, in[6] + MD4_K2, 13);

	MD4_ROUND(MD4_H, a, b, c, d, in[3] + MD4_K3, 3);
	MD4_ROUND(MD4_H, d, a, b, c, in[7] + MD4_K3, 9);
	MD4_ROUND(MD4_H, c, d, a, b, in[2] + MD4_K3, 11);
	MD4_ROUND(MD4_H, b, c, d, a, in[6] + MD4_K3, 15);
	MD4_ROUND(MD4_H, a, b, c, d, in[1] + MD4_K3, 3);
	MD4_ROUND(MD4_H, d, a, b, c, in[5] + MD4_K3, 9);
	MD4_ROUND(MD4_H, c, d, a, b, in[0] + MD4_K3, 11);
	MD4_ROUND(MD4_H, b, c, d, a, in[4] + MD4_K3, 15);

	buf[0] += a;
	buf[1] += b;
	buf[2] += c;
	buf[3] += d;
}

/* A character as the hash sees it: the hash versions differ only in
 * whether bytes past 127 count as negative (a signed char on the machine
 * that made the file system) or not. */
static inline int ext2_hash_char(const char *s, int i, bool is_unsigned)
{
	return is_unsigned ? (int)(unsigned char)s[i] : (int)(signed char)s[i];
}

/* Linux's dx_hack_hash: the first hash, kept for old directories. */
static u32 ext2_legacy_hash(const char *name, int len, bool is_unsigned)
{
	u32 hash, hash0 = 0x12a3fe2d, hash1 = 0x37abe8f9;

	for (int i = 0; i < len; i++) {
		hash = hash1 + (hash0 ^ (u32)(ext2_hash_char(name, i, is_unsigned) * 7152373));
		if (hash & 0x80000000u)
			hash -= 0x7fffffff;
		hash1 = hash0;
		hash0 = hash;
	}
	return hash0 << 1;
}

/* Up to num * 4 bytes of msg into num words, padded with the length
 * (Linux's str2hashbuf). */
static void ext2_str2hashbuf(const char *msg, int len, u32 *buf, int num, bool is_unsigned)
{
	u32 pad = (u32)len | ((u32)len << 8), val;

	pad |= pad << 16;
	val = pad;
	if (len > num * 4)
		len = num * 4;
	for (int i = 0; i < len; i++) {
		val = (u32)ext2_hash_char(msg, i, is_unsigned) + (val << 8);
		if (i % 4 == 3) {
			*buf++ = val;
			val = pad;
			num--;
		}
	}
	if (--num >= 0)
		*buf++ = val;
	while (--num >= 0)
		*buf++ = pad;
}

int ext2_dx_hash(const char *name, int len, int version, const u32 seed[4], u32 *hash,
		 u32 *minor_hash)
{
	u32 buf[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	bool is_unsigned = version >= EXT2_DX_HASH_LEGACY_UNSIGNED;
	u32 in[8], major, minor = 0;

	/* an all-zero seed means "none": MD4's own starting words */
	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(buf, seed, sizeof(buf));
	switch (version) {
	case EXT2_DX_HASH_LEGACY:
	case EXT2_DX_HASH_LEGACY_UNSIGNED:
		major = ext2_legacy_hash(name, len, is_unsigned);
		break;
	case EXT2_DX_HASH_HALF_MD4:
	case EXT2_DX_HASH_HALF_MD4_UNSIGNED:
		for (int off = 0; off < len; off += 32) {
			ext2_str2hashbuf(name + off, len - off, in, 8, is_unsigned);
			ext2_half_md4_transform(buf, in);
		}
		major = buf[1];
		minor = buf[2];
		break;
	case EXT2_DX_HASH_TEA:
	case EXT2_DX_HASH_TEA_UNSIGNED:
		for (int off = 0; off < len; off += 16) {
			ext2_str2hashbuf(name + off, len - off, in, 4, is_unsigned);
			ext2_tea_transform(buf, in);
		}
		major = buf[0];
		minor = buf[1];
		break;
	default:
		return -EINVAL;
	}
	/* bit 0 is the index's "continued from the leaf before" mark, and
	 * the largest value is the end-of-directory position of readdir */
	major &= ~1u;
	if (major == (EXT2_HTREE_EOF_32BIT << 1))
		major = (EXT2_HTREE_EOF_32BIT - 1) << 1;
	*hash = major;
	if (minor_hash)
		*minor_hash = minor;
	return 0;
}

/* --- the index ------------------------------------------------------------------ */

/* "EXT2-fs warning (device sda1): ext2_dx_probe: inode #12: <what>",
 * under the error lines' ratelimit; not an error of the file system (a
 * linear read still finds everything), as Linux's ext4_warning. */
__printf(3, 4) static void ext2_dx_warn(struct ext2_sb_info *sbi, unsigned long ino,
					const char *fmt, ...)
{
	char what[120];
	va_list ap;

	if (!__ratelimit(&sbi->s_err_ratelimit))
		return;
	va_start(ap, fmt);
	vscnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printk(KERN_WARNING "EXT2-fs warning (device %s): ext2_dx_probe: inode #%lu: %s\n",
	       sbi->s_id, ino, what);
}

static inline u32 ext2_dx_get_block(const struct ext2_dx_entry *e)
{
	/* the top four bits are reserved (Linux masks them too) */
	return e->block & 0x0fffffff;
}

/* The entry of an index block whose range holds hash: the last one whose
 * hash is <= hash (entry 0's range starts at 0).  Binary search, as
 * dx_probe's. */
static unsigned int ext2_dx_search(const struct ext2_dx_entry *entries, unsigned int count,
				   u32 hash)
{
	unsigned int lo = 1, hi = count; /* the answer's index + 1 is in [lo, hi] */

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (entries[mid].hash > hash)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/* An index block's entries (after its header), with their limit and
 * count checked; NULL (warned) if they are impossible. */
static const struct ext2_dx_entry *ext2_dx_entries(struct ext2_sb_info *sbi, unsigned long ino,
						   const void *blk, unsigned int header,
						   unsigned int *count)
{
	const struct ext2_dx_entry *entries = (const void *)((const char *)blk + header);
	const struct ext2_dx_countlimit *cl = (const void *)entries;
	unsigned int limit = (unsigned int)(sbi->s_blocksize - header) / sizeof(*entries);

	if (cl->limit != limit) {
		ext2_dx_warn(sbi, ino, "dx entry: limit %u != %u", cl->limit, limit);
		return NULL;
	}
	if (!cl->count || cl->count > limit) {
		ext2_dx_warn(sbi, ino, "dx entry: count %u beyond limit %u", cl->count, limit);
		return NULL;
	}
	*count = cl->count;
	return entries;
}

/* The block an index entry names, checked to lie inside the directory
 * (and not to be the root, which holds no names). */
static int ext2_dx_target(struct ext2_sb_info *sbi, unsigned long ino, u64 nblocks,
			  const struct ext2_dx_entry *e, u32 *block)
{
	*block = ext2_dx_get_block(e);
	if (*block && *block < nblocks)
		return 0;
	ext2_dx_warn(sbi, ino, "dx entry: block %u outside the directory (%llu blocks)", *block,
		     (unsigned long long)nblocks);
	return -EUCLEAN;
}

int ext2_dx_probe(struct ext2_sb_info *sbi, unsigned long ino, u64 nblocks, const char *name,
		  int len, ext2_dx_read_fn read, void *ctx, struct ext2_dx_path *path)
{
	const struct ext2_dx_root *root;
	const void *blk;
	unsigned int count;
	int version, err;

	memset(path, 0, sizeof(*path));
	err = read(ctx, 0, 0, &blk);
	if (err)
		return err;
	root = blk;
	version = root->info.hash_version;
	if (version != EXT2_DX_HASH_LEGACY && version != EXT2_DX_HASH_HALF_MD4 &&
	    version != EXT2_DX_HASH_TEA) {
		ext2_dx_warn(sbi, ino, "unrecognised hash code %d", version);
		return -EUCLEAN;
	}
	if (root->info.unused_flags & 1) {
		ext2_dx_warn(sbi, ino, "unimplemented hash flags %#x", root->info.unused_flags);
		return -EUCLEAN;
	}
	if (root->info.indirect_levels > EXT2_DX_MAX_LEVELS - 1) {
		ext2_dx_warn(sbi, ino, "unimplemented hash depth %u", root->info.indirect_levels);
		return -EUCLEAN;
	}
	if (root->info.info_length != sizeof(root->info)) {
		ext2_dx_warn(sbi, ino, "root info length %u", root->info.info_length);
		return -EUCLEAN;
	}
	/* the file system's flag says how its maker's chars were signed */
	if (sbi->s_es.s_flags & EXT2_FLAGS_UNSIGNED_HASH)
		version += EXT2_DX_HASH_LEGACY_UNSIGNED;
	path->version = version;
	ext2_dx_hash(name, len, version, sbi->s_es.s_hash_seed, &path->hash, NULL);
	path->levels = root->info.indirect_levels + 1;

	/* down the index: the root's entries, then (indirect_levels 1) an
	 * interior block's, each time the one range that holds the hash */
	for (int level = 0; level < path->levels; level++) {
		struct ext2_dx_frame *f = &path->frames[level];
		unsigned int header = level ? sizeof(struct ext2_dx_node)
					    : (unsigned int)offsetof(struct ext2_dx_root, entries);

		if (level) {
			err = read(ctx, level, path->frames[level - 1].child, &blk);
			if (err)
				return err;
		}
		f->entries = ext2_dx_entries(sbi, ino, blk, header, &count);
		if (!f->entries)
			return -EUCLEAN;
		f->count = count;
		f->at = ext2_dx_search(f->entries, count, path->hash);
		err = ext2_dx_target(sbi, ino, nblocks, &f->entries[f->at], &f->child);
		if (err)
			return err;
	}
	path->leaf = path->frames[path->levels - 1].child;
	return 0;
}

int ext2_dx_next_leaf(struct ext2_sb_info *sbi, unsigned long ino, u64 nblocks,
		      ext2_dx_read_fn read, void *ctx, struct ext2_dx_path *path)
{
	int level = path->levels - 1;
	const void *blk;
	u32 next_hash;
	int err;

	/* the lowest frame with an entry after its current one */
	while (level >= 0 && path->frames[level].at + 1 >= path->frames[level].count)
		level--;
	if (level < 0)
		return 0; /* the last leaf */
	path->frames[level].at++;
	next_hash = path->frames[level].entries[path->frames[level].at].hash;
	/* a name with our hash can be in the next leaf only if that leaf's
	 * range starts at our hash (then marked with bit 0: split inside a
	 * run of equal hashes) */
	if ((next_hash & ~1u) != path->hash)
		return 0;
	/* then down its first entries to the next leaf */
	for (; level < path->levels; level++) {
		struct ext2_dx_frame *f = &path->frames[level];
		unsigned int count;

		err = ext2_dx_target(sbi, ino, nblocks, &f->entries[f->at], &f->child);
		if (err)
			return err;
		if (level + 1 == path->levels)
			break;
		err = read(ctx, level + 1, f->child, &blk);
		if (err)
			return err;
		path->frames[level + 1].entries =
			ext2_dx_entries(sbi, ino, blk, sizeof(struct ext2_dx_node), &count);
		if (!path->frames[level + 1].entries)
			return -EUCLEAN;
		path->frames[level + 1].count = count;
		path->frames[level + 1].at = 0;
	}
	path->leaf = path->frames[path->levels - 1].child;
	return 1;
}
