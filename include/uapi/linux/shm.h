/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/shm.h - System V shared memory as Linux's x86-64 ABI has it
 * (system calls 29 shmget, 30 shmat, 31 shmctl, 67 shmdt; the IPC_*
 * values of linux/ipc.h).  The kernel side is ipc/shm.c.
 */
#ifndef _UAPI_LINUX_SHM_H
#define _UAPI_LINUX_SHM_H

#include <spindle/types.h>

#define IPC_PRIVATE     0               /* shmget's key: always a new segment */

#define IPC_CREAT       00001000        /* shmget: create if the key has none */
#define IPC_EXCL        00002000        /* ... and fail if it has one */

#define IPC_RMID        0               /* shmctl: remove at the last detach */
#define IPC_SET         1               /* shmctl: set the mode's permission bits */
#define IPC_STAT        2               /* shmctl: read struct shmid64_ds */
#define IPC_64          0x0100          /* glibc's "new layout" bit in cmd */

#define SHM_RDONLY      010000          /* shmat: read-only */
#define SHM_RND         020000          /* shmat: round the address down to SHMLBA */
#define SHM_REMAP       040000          /* shmat: may replace what is mapped there */
#define SHM_EXEC        0100000         /* shmat: executable */

#define SHM_DEST        01000           /* in shm_perm.mode: removed, not yet detached */

#define SHMLBA          4096            /* shmat's address alignment (a page) */
#define SHMMIN          1
#define SHMMNI          4096            /* segments at most (Linux's default) */

struct ipc64_perm {
	s32 key;
	u32 uid, gid, cuid, cgid;
	u32 mode;
	u16 seq;
	u16 __pad2;
	u64 __unused1, __unused2;
};

struct shmid64_ds {
	struct ipc64_perm shm_perm;
	u64 shm_segsz;                  /* bytes */
	s64 shm_atime, shm_dtime, shm_ctime;    /* last attach, detach, change */
	s32 shm_cpid, shm_lpid;         /* creator, last to attach or detach */
	u64 shm_nattch;                 /* mappings of it */
	u64 __unused4, __unused5;
};

#endif
