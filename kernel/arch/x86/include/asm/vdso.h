/* SPDX-License-Identifier: MIT */
/*
 * vdso.h - the vDSO's data page (Linux's "vvar": struct vdso_data in
 * Linux's include/vdso/datapage.h), shared by the kernel, which writes it, and
 * the vDSO's code in every process (kernel/arch/x86/vdso/), which reads
 * it through a read-only mapping.  Types and constants only: the user
 * side is built -fPIC with none of the kernel linked in.
 *
 * The page is written on one CPU while programs read it on others, so
 * it carries a sequence count (Linux's seqcount_t, open-coded because
 * the reader is user space): the writer makes seq odd, changes the
 * fields, and makes it even again; a reader takes a snapshot only if
 * seq was even before and unchanged after (vclock_gettime.c).
 */
#ifndef ASM_VDSO_H
#define ASM_VDSO_H

#include <spindle/types.h>

/* How user space may read the clock (Linux's enum vdso_clock_mode) */
#define VDSO_CLOCKMODE_NONE     0       /* it may not: make the system call */
#define VDSO_CLOCKMODE_TSC      1       /* rdtsc, converted with mult/shift */

/*
 * The per-CPU segment whose limit is the CPU's number (gdt.c), for
 * getcpu: LSL loads a descriptor's limit from ring 3 (Linux's
 * GDT_ENTRY_CPUNODE, there at index 15).  The limit is 20 bits wide:
 * the CPU in the low VDSO_CPUNODE_BITS, the NUMA node above (always 0).
 */
#define GDT_ENTRY_CPUNODE       7
#define VDSO_CPUNODE_SEG        (GDT_ENTRY_CPUNODE * 8 + 3)    /* RPL 3 */
#define VDSO_CPUNODE_BITS       12
#define VDSO_CPUNODE_MASK       ((1u << VDSO_CPUNODE_BITS) - 1)

struct vdso_data {
	u32 seq;                /* odd while the kernel is writing */
	s32 clock_mode;         /* VDSO_CLOCKMODE_*, constant after boot */
	/* CLOCK_MONOTONIC = mul_u64_u32_shr(rdtsc() - cycle_last, mult,
	 * shift) + mono_base_ns: the very sum ktime_get_ns() makes
	 * (kernel/arch/x86/time.c), so that the vDSO and the system call
	 * give the same nanosecond for the same TSC value. */
	u64 cycle_last;
	u32 mult;
	u32 shift;
	u64 mono_base_ns;
	u64 wall_offset_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	u64 coarse_mono_ns;     /* CLOCK_MONOTONIC at the last tick (*_COARSE) */
};

#ifndef BUILD_VDSO
struct mm_struct;

/* exec: map [vvar] and [vdso] into a new mm (Linux's
 * arch_setup_additional_pages()); 0 or -errno.  0 with nothing mapped
 * when the vDSO is off (vdso=0). */
int arch_setup_additional_pages(struct mm_struct *mm);
/* the tick, on the CPU that takes it: the coarse clocks move on */
void update_vsyscall(u64 now_ns);
/* time_init(), once the TSC is calibrated: the clock's conversion */
void vdso_clock_init(u64 cycle_last, u32 mult, u32 shift, u64 wall_offset_ns);
#endif

#endif /* ASM_VDSO_H */
