/* SPDX-License-Identifier: MIT */
/*
 * ext2_fs.h - the second extended file system's on-disk format, revision 1
 * (what `mke2fs -t ext2` writes), as Linux's fs/ext2/ext2.h lays it out.
 *
 * A disk holding ext2, in blocks of 1, 2 or 4 KiB:
 *
 *   byte 1024: the superblock (1024 bytes: sizes, counts, feature flags)
 *   the block after the superblock's: the group descriptor table, one
 *       32-byte descriptor per block group
 *   then the block groups, each s_blocks_per_group blocks:
 *       [superblock backup + descriptor copy (sparse_super: groups 0, 1,
 *        powers of 3, 5 and 7)] [block bitmap] [inode bitmap]
 *       [inode table: s_inodes_per_group inodes of s_inode_size bytes]
 *       [data blocks]
 *
 * Inode n (counted from 1) is entry (n - 1) % s_inodes_per_group of group
 * (n - 1) / s_inodes_per_group's inode table.  Inode 2 is the root
 * directory; inodes below s_first_ino are reserved.
 *
 * A file's blocks are found through i_block[15]: twelve direct block
 * numbers, then one single, one double and one triple indirect block
 * (a block of 32-bit block numbers, each level one more hop).  A 0 is a
 * hole: no block, it reads as zeros.  A directory is a file of
 * ext2_dir_entry_2 records that tile each block exactly (rec_len).
 *
 * Every field is little-endian on the disk; Spindle runs on x86-64 and is
 * tested on x86-64 hosts, so the fields are read as they lie (the static
 * assertion below stops a build where that would be wrong).
 */
#ifndef SPINDLE_EXT2_FS_H
#define SPINDLE_EXT2_FS_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/stat.h> /* EXT2_SUPER_MAGIC: s_magic, and statfs's f_type */

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "ext2's fields are little-endian and read without swapping");

#define EXT2_SUPER_OFFSET 1024 /* bytes from the start of the device */
#define EXT2_SUPER_SIZE 1024
#define EXT2_ROOT_INO 2		   /* the root directory */
#define EXT3_JOURNAL_INO 8	   /* ext3's journal (fs/jbd2/) */
#define EXT2_GOOD_OLD_FIRST_INO 11 /* first ordinary inode, revision 0 */
#define EXT2_GOOD_OLD_INODE_SIZE 128
#define EXT2_GOOD_OLD_REV 0
#define EXT2_DYNAMIC_REV 1	   /* "revision 1": inode size, features */
#define EXT2_MIN_BLOCK_LOG_SIZE 10 /* 1 KiB */
#define EXT2_MAX_BLOCK_LOG_SIZE 12 /* 4 KiB: a page, the most Spindle reads */
#define EXT2_NAME_LEN 255

/* i_block[]: 12 direct, then the single, double and triple indirect block */
#define EXT2_NDIR_BLOCKS 12
#define EXT2_IND_BLOCK EXT2_NDIR_BLOCKS
#define EXT2_DIND_BLOCK (EXT2_IND_BLOCK + 1)
#define EXT2_TIND_BLOCK (EXT2_DIND_BLOCK + 1)
#define EXT2_N_BLOCKS (EXT2_TIND_BLOCK + 1)

struct ext2_super_block {
	u32 s_inodes_count;
	u32 s_blocks_count;
	u32 s_r_blocks_count; /* reserved for root (df: size - avail) */
	u32 s_free_blocks_count;
	u32 s_free_inodes_count;
	u32 s_first_data_block; /* 1 with 1 KiB blocks, else 0 */
	u32 s_log_block_size;	/* block size = 1024 << this */
	u32 s_log_frag_size;
	u32 s_blocks_per_group;
	u32 s_frags_per_group;
	u32 s_inodes_per_group;
	u32 s_mtime; /* last mount */
	u32 s_wtime; /* last write */
	u16 s_mnt_count;
	s16 s_max_mnt_count;
	u16 s_magic;  /* EXT2_SUPER_MAGIC */
	u16 s_state;  /* EXT2_VALID_FS: cleanly unmounted */
	u16 s_errors; /* EXT2_ERRORS_*: what to do on damage */
	u16 s_minor_rev_level;
	u32 s_lastcheck;
	u32 s_checkinterval;
	u32 s_creator_os;
	u32 s_rev_level; /* EXT2_DYNAMIC_REV */
	u16 s_def_resuid;
	u16 s_def_resgid;
	/* revision 1 (EXT2_DYNAMIC_REV) only: */
	u32 s_first_ino; /* first inode not reserved */
	u16 s_inode_size;
	u16 s_block_group_nr; /* the group this copy lives in */
	u32 s_feature_compat;
	u32 s_feature_incompat;	 /* unknown bit: do not mount */
	u32 s_feature_ro_compat; /* unknown bit: do not write */
	u8 s_uuid[16];
	char s_volume_name[16];
	char s_last_mounted[64];
	u32 s_algorithm_usage_bitmap;
	u8 s_prealloc_blocks;
	u8 s_prealloc_dir_blocks;
	u16 s_padding1;
	u8 s_journal_uuid[16]; /* ext3's journal fields */
	u32 s_journal_inum;
	u32 s_journal_dev;
	u32 s_last_orphan;
	u32 s_hash_seed[4];
	u8 s_def_hash_version;
	u8 s_reserved_char_pad;
	u16 s_reserved_word_pad;
	u32 s_default_mount_opts;
	u32 s_first_meta_bg;
	u32 s_mkfs_time;
	u32 s_jnl_blocks[17]; /* ext3's journal inode's i_block copy */
	u32 s_reserved_64bit[3]; /* ext4's high halves of the block counts */
	u16 s_min_extra_isize;
	u16 s_want_extra_isize;
	u32 s_flags; /* EXT2_FLAGS_*: how the directory hashes treat chars */
	u32 s_reserved[166];
	u32 s_checksum; /* metadata_csum: CRC32C(~0, the bytes before it) */
};
_Static_assert(sizeof(struct ext2_super_block) == EXT2_SUPER_SIZE, "superblock");
_Static_assert(offsetof(struct ext2_super_block, s_magic) == 56, "s_magic");
_Static_assert(offsetof(struct ext2_super_block, s_feature_incompat) == 96, "incompat");
_Static_assert(offsetof(struct ext2_super_block, s_volume_name) == 120, "volume");
_Static_assert(offsetof(struct ext2_super_block, s_hash_seed) == 0xec, "hash seed");
_Static_assert(offsetof(struct ext2_super_block, s_flags) == 0x160, "s_flags");
_Static_assert(offsetof(struct ext2_super_block, s_checksum) == 0x3fc, "s_checksum");

/* s_flags: the directory hashes read a name's bytes as signed or unsigned
 * chars, as the machine that made the file system did (e2fsprogs sets
 * one; with neither, Linux takes its own char: signed on x86) */
#define EXT2_FLAGS_SIGNED_HASH 0x0001
#define EXT2_FLAGS_UNSIGNED_HASH 0x0002

/* s_errors, and the errors= mount option */
#define EXT2_ERRORS_CONTINUE 1 /* log, go on */
#define EXT2_ERRORS_RO 2       /* log, take no more changes */
#define EXT2_ERRORS_PANIC 3    /* Linux panics; Spindle never does: as RO */

/* s_state */
#define EXT2_VALID_FS 0x0001 /* unmounted cleanly */
#define EXT2_ERROR_FS 0x0002 /* errors were found */

/* Feature flags, and which of them this driver reads.  Linux's set for
 * ext2 (EXT2_FEATURE_*_SUPP): filetype in directory entries; sparse
 * superblock copies, files past 2 GiB and hashed directories (whose
 * index blocks look like empty entries to a linear reader). */
#define EXT2_FEATURE_COMPAT_DIR_PREALLOC 0x0001
#define EXT3_FEATURE_COMPAT_HAS_JOURNAL 0x0004 /* a journal in s_journal_inum */
#define EXT2_FEATURE_COMPAT_EXT_ATTR 0x0008
#define EXT2_FEATURE_COMPAT_RESIZE_INO 0x0010
#define EXT2_FEATURE_COMPAT_DIR_INDEX 0x0020
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE 0x0002
#define EXT2_FEATURE_RO_COMPAT_BTREE_DIR 0x0004
/* ext4's checksums of all metadata: not kept by this driver (so such a
 * file system mounts read-only), but the superblock's is written right
 * when ext3's recovery writes the superblock */
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM 0x0400
#define EXT2_FEATURE_INCOMPAT_COMPRESSION 0x0001
#define EXT2_FEATURE_INCOMPAT_FILETYPE 0x0002
#define EXT3_FEATURE_INCOMPAT_RECOVER 0x0004 /* needs_recovery: the journal holds a log */
#define EXT3_FEATURE_INCOMPAT_JOURNAL_DEV 0x0008
#define EXT2_FEATURE_INCOMPAT_META_BG 0x0010
#define EXT2_FEATURE_INCOMPAT_SUPP EXT2_FEATURE_INCOMPAT_FILETYPE
#define EXT2_FEATURE_RO_COMPAT_SUPP (EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | \
				     EXT2_FEATURE_RO_COMPAT_LARGE_FILE |   \
				     EXT2_FEATURE_RO_COMPAT_BTREE_DIR)

struct ext2_group_desc {
	u32 bg_block_bitmap; /* block numbers, inside the group */
	u32 bg_inode_bitmap;
	u32 bg_inode_table;
	u16 bg_free_blocks_count;
	u16 bg_free_inodes_count;
	u16 bg_used_dirs_count;
	u16 bg_flags;
	u32 bg_reserved[3];
};
_Static_assert(sizeof(struct ext2_group_desc) == 32, "group descriptor");

struct ext2_inode {
	u16 i_mode;  /* S_IF* type and permission bits */
	u16 i_uid;   /* low 16 bits of the owner */
	u32 i_size;  /* low 32 bits of the size */
	u32 i_atime; /* seconds since 1970 */
	u32 i_ctime;
	u32 i_mtime;
	u32 i_dtime; /* deleted at (0: in use) */
	u16 i_gid;   /* low 16 bits of the group */
	u16 i_links_count;
	u32 i_blocks; /* 512-byte sectors held (st_blocks) */
	u32 i_flags; /* EXT2_*_FL */
	u32 i_osd1;
	u32 i_block[EXT2_N_BLOCKS]; /* where the data is (see above) */
	u32 i_generation;
	u32 i_file_acl;	 /* extended-attribute block */
	u32 i_size_high; /* regular files: bits 32..63 of the size */
	u32 i_faddr;
	u8 i_frag, i_fsize;
	u16 i_pad1;
	u16 i_uid_high; /* Linux's osd2: the owner's high bits */
	u16 i_gid_high;
	u32 i_reserved2;
};
_Static_assert(sizeof(struct ext2_inode) == EXT2_GOOD_OLD_INODE_SIZE, "inode");
_Static_assert(offsetof(struct ext2_inode, i_block) == 40, "i_block");
_Static_assert(offsetof(struct ext2_inode, i_size_high) == 108, "i_size_high");

/* i_flags: the one this driver acts on (the others are kept as read) */
#define EXT2_INDEX_FL 0x00001000 /* a directory with a hash index (dir_index) */
#define EXT4_EXTENTS_FL 0x00080000 /* an extent tree, not a block map (not read here) */

/* A fast symbolic link keeps its target in i_block (60 bytes). */
#define EXT2_FAST_SYMLINK_MAX (sizeof(((struct ext2_inode *)0)->i_block) - 1)

/*
 * A directory entry (with the filetype feature: name_len is 8 bits and
 * file_type the other 8).  rec_len tiles the block: the entry's own
 * EXT2_DIR_REC_LEN(name_len) bytes plus whatever free space follows it;
 * an entry with inode 0 is unused space.
 */
struct ext2_dir_entry_2 {
	u32 inode;
	u16 rec_len;
	u8 name_len;
	u8 file_type;
	char name[]; /* not NUL-terminated */
};
_Static_assert(sizeof(struct ext2_dir_entry_2) == 8, "directory entry");

#define EXT2_DIR_PAD 4
#define EXT2_DIR_REC_LEN(name_len) (((name_len) + 8 + EXT2_DIR_PAD - 1) & ~(EXT2_DIR_PAD - 1))

/*
 * A hashed directory's index (fs/ext2/htree.c draws it): the root, in
 * block 0 inside ".."'s record; an interior block, inside one empty record
 * spanning it; both end in an array of (hash, block) entries whose first
 * one's hash field is the array's (limit, count).
 */
struct ext2_dx_entry {
	u32 hash;  /* the lowest hash of the block's range (bit 0: continued) */
	u32 block; /* a block of the directory (bits 28..31 reserved) */
};
struct ext2_dx_countlimit {
	u16 limit; /* entries that fit in the block */
	u16 count; /* entries in use, this one included */
};
struct ext2_dx_root_info {
	u32 reserved_zero;
	u8 hash_version; /* EXT2_DX_HASH_LEGACY, _HALF_MD4, _TEA */
	u8 info_length;	 /* 8 */
	u8 indirect_levels; /* 0: the root points at leaves; 1: at interior blocks */
	u8 unused_flags;
};
/* a directory entry's header alone (Linux's fake_dirent): "." and ".."
 * of the root, the empty record of an interior block */
struct ext2_dx_fake_dirent {
	u32 inode;
	u16 rec_len;
	u8 name_len;
	u8 file_type;
};
struct ext2_dx_root {
	struct ext2_dx_fake_dirent dot;
	char dot_name[4];
	struct ext2_dx_fake_dirent dotdot;
	char dotdot_name[4];
	struct ext2_dx_root_info info;
	struct ext2_dx_entry entries[];
};
struct ext2_dx_node {
	struct ext2_dx_fake_dirent fake; /* inode 0, rec_len the block */
	struct ext2_dx_entry entries[];
};
_Static_assert(offsetof(struct ext2_dx_root, info) == 24, "dx_root info");
_Static_assert(offsetof(struct ext2_dx_root, entries) == 32, "dx_root entries");
_Static_assert(sizeof(struct ext2_dx_node) == 8, "dx_node");

/* hash_version, and s_def_hash_version (the _UNSIGNED ones never on the
 * disk: EXT2_FLAGS_UNSIGNED_HASH says so) */
#define EXT2_DX_HASH_LEGACY 0
#define EXT2_DX_HASH_HALF_MD4 1
#define EXT2_DX_HASH_TEA 2
#define EXT2_DX_HASH_LEGACY_UNSIGNED 3
#define EXT2_DX_HASH_HALF_MD4_UNSIGNED 4
#define EXT2_DX_HASH_TEA_UNSIGNED 5
/* the largest hash, readdir's end-of-directory position in Linux */
#define EXT2_HTREE_EOF_32BIT 0x7fffffffu

/* file_type */
enum {
	EXT2_FT_UNKNOWN,
	EXT2_FT_REG_FILE,
	EXT2_FT_DIR,
	EXT2_FT_CHRDEV,
	EXT2_FT_BLKDEV,
	EXT2_FT_FIFO,
	EXT2_FT_SOCK,
	EXT2_FT_SYMLINK,
	EXT2_FT_MAX
};

#endif /* SPINDLE_EXT2_FS_H */
