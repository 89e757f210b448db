/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the kernel profiler (kernel/profile.c), Linux's profile=.
 *
 * Boot with profile=<shift>: on every timer interrupt that stopped the
 * kernel (not a user program), the interrupted instruction's address
 * counts one in the bucket (address - _stext) >> shift.  /proc/profile
 * gives the buckets in Linux's layout, so util-linux's readprofile(8)
 * reads them:  readprofile -p profile -m System.map.
 */
#ifndef SPINDLE_PROFILE_H
#define SPINDLE_PROFILE_H

#include <spindle/types.h>

struct pt_regs;

/* From the timer interrupt: one sample of regs' instruction pointer. */
void profile_tick(struct pt_regs *regs);
/* The bytes /proc/profile holds: 0 when profiling is off. */
size_t profile_size(void);
/* Fill buf (at least profile_size() bytes) with /proc/profile's bytes:
 * the step (1 << shift, a u32), then one u32 count per bucket. */
size_t profile_read(void *buf, size_t size);
/* A write to /proc/profile: counts back to zero. */
void profile_reset(void);

#endif /* SPINDLE_PROFILE_H */
