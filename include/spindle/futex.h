/* SPDX-License-Identifier: MIT */
/*
 * futex.h - fast user-space mutexes: the kernel half (kernel/futex.c).
 *
 * A C library's locks, condition variables and pthread_join live in
 * user memory and cost no system call while uncontended; a thread that
 * must wait asks the kernel to sleep "while *uaddr still holds val"
 * (FUTEX_WAIT), and the thread that changes the word wakes it
 * (FUTEX_WAKE).  Linux's numbers and semantics, docs/processes.md.
 */
#ifndef SPINDLE_FUTEX_H
#define SPINDLE_FUTEX_H

#include <spindle/types.h>
#include <spindle/compiler.h>

struct task_struct;

/* futex(2)'s operations and flags (Linux's include/uapi/linux/futex.h) */
#define FUTEX_WAIT              0
#define FUTEX_WAKE              1
#define FUTEX_REQUEUE           3
#define FUTEX_CMP_REQUEUE       4
#define FUTEX_WAKE_OP           5
#define FUTEX_WAIT_BITSET       9
#define FUTEX_WAKE_BITSET       10
#define FUTEX_PRIVATE_FLAG      128
#define FUTEX_CLOCK_REALTIME    256
#define FUTEX_CMD_MASK          (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))
#define FUTEX_BITSET_MATCH_ANY  0xffffffffu

/* the robust-list word's bits (a pthread mutex's owner tid below them) */
#define FUTEX_WAITERS           0x80000000u
#define FUTEX_OWNER_DIED        0x40000000u
#define FUTEX_TID_MASK          0x3fffffffu

/* Wake up to nr (at least one) waiters on uaddr whose bitset meets
 * bitset; flags: FUTEX_PRIVATE_FLAG or 0.  The number woken, or -errno. */
long futex_wake(u32 __user *uaddr, unsigned int flags, int nr, u32 bitset);
/* At t's exit (current): every mutex on its robust list that it still
 * holds gets FUTEX_OWNER_DIED and one waiter woken (Linux's
 * exit_robust_list()).  Before t's mm goes. */
void exit_robust_list(struct task_struct *t);

#endif /* SPINDLE_FUTEX_H */
