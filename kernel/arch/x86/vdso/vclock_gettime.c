// SPDX-License-Identifier: MIT
/*
 * vclock_gettime.c - the vDSO's clocks: clock_gettime, gettimeofday and
 * time, run in user space, in every process (Linux's
 * arch/x86/entry/vdso/vclock_gettime.c and Linux's lib/vdso/gettimeofday.c).
 *
 * Where it sits: the kernel maps this code ([vdso]) and the page it
 * reads ([vvar], struct vdso_data in asm/vdso.h) into each program at
 * exec (vma.c), and tells the C library where with AT_SYSINFO_EHDR.
 * glibc finds __vdso_clock_gettime & co. there by name and version
 * (LINUX_2.6, vdso.lds) and calls them instead of making the system
 * call: reading the TSC and doing a multiplication costs tens of
 * instructions, a system call hundreds.
 *
 * Built -fPIC, freestanding, into a shared object with no relocations
 * (the Makefile checks): it runs at whatever address the kernel put it,
 * and reaches the data page at a fixed distance below itself.  It may
 * not call anything but itself and the kernel.
 *
 * The rule a reader must not break: every field used in one answer comes
 * from one snapshot of the page, taken between two reads of the same even
 * sequence count (vdso_read_begin/retry below).  A clock the page cannot
 * answer -- an unknown id, a CPU-time clock, or any clock while the
 * kernel says the TSC is not for user space (VDSO_CLOCKMODE_NONE) -- is
 * the real system call, which also gives the errors (EINVAL, EFAULT).
 */
#define BUILD_VDSO
#include <asm/vdso.h>
#include <uapi/linux/time.h>
#include <uapi/asm/unistd_64.h>

#define NSEC_PER_SEC    1000000000ull
#define NSEC_PER_USEC   1000ull

struct __kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

struct __kernel_timeval {
	long tv_sec;
	long tv_usec;
};

struct timezone;

/* the data page, one page below the first byte of the vDSO (vdso.lds) */
extern const struct vdso_data vvar_page __attribute__((visibility("hidden")));

#define READ_ONCE(x)    (*(const volatile __typeof__(x) *)&(x))
#define barrier()       __asm__ __volatile__("" ::: "memory")

/*
 * The seqcount's reader side.  The writer is the kernel on one CPU
 * (vma.c, update_vsyscall); the readers are programs on any CPU.  x86
 * keeps loads in order with loads, and stores with stores (TSO), so the
 * read barriers Linux's smp_rmb() stands for are compiler barriers here:
 *
 *   writer:  seq++ (odd)  ->  fields  ->  seq++ (even)    stores, in order
 *   reader:  seq          ->  fields  ->  seq again       loads, in order
 *
 * If the reader's first load saw an even value and its last the same
 * one, no store of the writer's fell between them: the fields it loaded
 * are one consistent set.  An odd value means a write is under way: the
 * reader waits for it to end.
 */
static inline u32 vdso_read_begin(const struct vdso_data *vd)
{
	u32 seq;

	while ((seq = READ_ONCE(vd->seq)) & 1)
		__asm__ __volatile__("pause");
	barrier();      /* the fields are loaded after seq (Linux's smp_rmb) */
	return seq;
}

static inline bool vdso_read_retry(const struct vdso_data *vd, u32 start)
{
	barrier();      /* ... and before seq is loaded again */
	return READ_ONCE(vd->seq) != start;
}

/*
 * The TSC, read no earlier than the loads before it: rdtsc is not
 * ordered with other instructions, and a CPU that ran it ahead of the
 * load of seq could pair an old count with a newer snapshot.  LFENCE
 * waits for the earlier loads (Linux's rdtsc_ordered()).
 */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((u64)hi << 32) | lo;
}

/* a * mul >> shift without a 128-bit product: the kernel's
 * (kernel/arch/x86/time.c explains the split); shift <= 32 */
static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	u64 hi = (a >> 32) * mul;
	u64 lo = (a & 0xffffffffu) * mul;

	return (hi << (32 - shift)) + (lo >> shift);
}

/* the system call itself, for what the page cannot answer */
static long vdso_syscall2(long nr, long a, long b)
{
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(nr), "D"(a), "S"(b)
			     : "rcx", "r11", "memory");
	return ret;
}

/*
 * Nanoseconds on clock clk into *ns: 0, or -1 if the page cannot say.
 * The monotonic clocks differ only in their offset here (no suspend, no
 * NTP slewing: BOOTTIME and MONOTONIC_RAW are MONOTONIC), the realtime
 * ones add the wall-clock offset; the coarse ones take the time of the
 * last tick instead of reading the TSC, as Linux's do.
 */
static int do_clock(clockid_t clk, u64 *ns)
{
	const struct vdso_data *vd = &vvar_page;
	bool coarse, real;
	u64 t, off;
	u32 seq;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_BOOTTIME:
		coarse = false;
		break;
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		coarse = true;
		break;
	default:
		return -1;
	}
	real = clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE;
	do {
		seq = vdso_read_begin(vd);
		if (READ_ONCE(vd->clock_mode) == VDSO_CLOCKMODE_NONE)
			return -1;
		off = real ? vd->wall_offset_ns : 0;
		if (coarse)
			t = vd->coarse_mono_ns;
		else
			t = vd->mono_base_ns + mul_u64_u32_shr(rdtsc_ordered() - vd->cycle_last,
							       vd->mult, vd->shift);
	} while (vdso_read_retry(vd, seq));
	*ns = t + off;
	return 0;
}

int __vdso_clock_gettime(clockid_t clk, struct __kernel_timespec *ts)
{
	u64 ns;

	if (do_clock(clk, &ns))
		return vdso_syscall2(__NR_clock_gettime, clk, (long)ts);
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
	return 0;
}

/* the time zone is always zeros (the system call's answer): so is it here */
int __vdso_gettimeofday(struct __kernel_timeval *tv, struct timezone *tz)
{
	u64 ns;

	if (do_clock(CLOCK_REALTIME, &ns))
		return vdso_syscall2(__NR_gettimeofday, (long)tv, (long)tz);
	if (tv) {
		tv->tv_sec = ns / NSEC_PER_SEC;
		tv->tv_usec = ns % NSEC_PER_SEC / NSEC_PER_USEC;
	}
	if (tz) {
		int *zone = (int *)tz;  /* tz_minuteswest, tz_dsttime */

		zone[0] = 0;
		zone[1] = 0;
	}
	return 0;
}

/* seconds of CLOCK_REALTIME, as the system call reads them (exactly,
 * not the last tick's: time() and gettimeofday() then never disagree) */
long __vdso_time(long *t)
{
	u64 ns;
	long secs;

	if (do_clock(CLOCK_REALTIME, &ns))
		return vdso_syscall2(__NR_time, (long)t, 0);
	secs = ns / NSEC_PER_SEC;
	if (t)
		*t = secs;
	return secs;
}

/* the plain names, as Linux's vDSO has them too */
int clock_gettime(clockid_t, struct __kernel_timespec *)
	__attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct __kernel_timeval *, struct timezone *)
	__attribute__((weak, alias("__vdso_gettimeofday")));
long time(long *) __attribute__((weak, alias("__vdso_time")));
