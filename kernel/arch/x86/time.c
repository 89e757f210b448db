// SPDX-License-Identifier: MIT
/*
 * time.c - the clock (TSC), its calibration, and the periodic tick (PIT).
 *
 * Where it sits: below kernel/timer.c (jiffies, timer_list, msleep) and
 * printk's timestamps; include/spindle/time.h is the interface.
 *
 *   ktime_get_ns()  reads the time-stamp counter, a 64-bit count of CPU
 *                   cycles, and converts cycles since time_init() to
 *                   nanoseconds.  The cycle rate is not known in advance,
 *                   so time_init() measures it against the PIT, whose
 *                   input clock is fixed (1.193182 MHz) on every PC.
 *   the tick        PIT channel 0 interrupts about HZ times a second on
 *                   irq 0 (GSI 2 through the IOAPIC), and its handler
 *                   calls timer_tick() (kernel/timer.c) with the number
 *                   of ticks that have passed *by the clock* since the
 *                   last call -- see timer_interrupt().
 *   udelay/mdelay   spin on the TSC.
 *
 * Assumed: the TSC runs at a constant rate whatever the CPU's power state
 * ("invariant TSC", Intel SDM vol. 3B, "Time-Stamp Counter") -- true on
 * QEMU and on CPUs of the last fifteen years -- and every CPU's TSC
 * counts the same cycles from the same start, so that a read on one CPU
 * after a read on another is never smaller.  QEMU gives that: under TCG
 * every virtual CPU's TSC is computed from the one virtual clock of the
 * machine (from the instruction count under -icount), and none is
 * written (Spindle never writes IA32_TSC).  Linux checks it at each CPU's
 * boot (check_tsc_sync_source()) and leaves the TSC if it fails; Spindle
 * trusts it.  The same conversion is published for user space in the
 * vDSO's data page (kernel/arch/x86/vdso/vma.c), which reads the TSC
 * itself; boot with tsc=unstable to forbid that.
 *
 * Hardware references: Intel 82C54 PIT datasheet (control word, modes 0
 * and 2); port 0x61, "NMI Status and Control" in Intel's ICH/PCH
 * datasheets (PIT channel 2 gate and output).
 */
#include <spindle/time.h>
#include <spindle/irq.h>
#include <spindle/profile.h>
#include <spindle/printk.h>
#include <asm/apic.h>
#include <spindle/sched_debug.h>
#include <spindle/compiler.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/vdso.h>

/* 82C54 programmable interval timer */
#define PIT_TICK_RATE           1193182u        /* Hz, its input clock */
#define PIT_CH0                 0x40            /* counter 0: the tick (IRQ 0) */
#define PIT_CH2                 0x42            /* counter 2: gated by port 0x61 */
#define PIT_MODE                0x43            /* control word register */
#define PIT_SEL_CH0             (0u << 6)
#define PIT_SEL_CH2             (2u << 6)
#define PIT_ACCESS_LOHI         (3u << 4)       /* count: low byte, then high */
#define PIT_MODE_TERMINAL_COUNT (0u << 1)       /* mode 0: OUT rises at 0, once */
#define PIT_MODE_RATE_GEN       (2u << 1)       /* mode 2: a pulse every N clocks */
#define PIT_IRQ                 0

/* Port 0x61, NMI status and control */
#define NMI_SC                  0x61
#define NMI_SC_TIM_CNT2_EN      (1u << 0)       /* PIT channel 2 gate */
#define NMI_SC_SPKR_DAT_EN      (1u << 1)       /* PIT channel 2 drives the speaker */
#define NMI_SC_TMR2_OUT_STS     (1u << 5)       /* PIT channel 2 OUT, read-only */

/*
 * Calibration window.  Longer is more precise (the error is a PIT clock or
 * two, ~1 us, against the window), shorter boots faster; 20 ms gives a few
 * parts in 10^5.  The count must fit the PIT's 16 bits (at most ~54 ms).
 */
#define CALIBRATE_MS            20
#define CALIBRATE_LATCH         (PIT_TICK_RATE * CALIBRATE_MS / MSEC_PER_SEC)
BUILD_BUG_ON(CALIBRATE_LATCH > 0xffff);
/*
 * The calibration is trusted once the cycles are known to 1/CALIBRATE_SLACK_DIV
 * (0.1 %, 20 us of 20 ms), measuring at most CALIBRATE_TRIES times.  Under
 * QEMU's TCG an undisturbed window is within some 20 ppm; a disturbed one
 * was seen off by 0.2 % to 450 %, on a busy host most of the time.
 */
#define CALIBRATE_SLACK_DIV 1000
#define CALIBRATE_TRIES 20
/* Give up waiting for the PIT after this many polls (a missing PIT). */
#define CALIBRATE_MAX_POLLS     50000000ul
/* Used if calibration fails, so that time still moves. */
#define FALLBACK_TSC_HZ         1000000000ull

/*
 * The tick's PIT count, rounded up: the tick is then never shorter than
 * 1/HZ (1194 clocks: 999.3 Hz), so n jiffies are never less than n ms --
 * a timer set n jiffies ahead cannot fire early in real time.
 */
#define PIT_TICK_LATCH          DIV_ROUND_UP(PIT_TICK_RATE, HZ)
BUILD_BUG_ON(PIT_TICK_LATCH > 0xffff);

#define USEC_PER_MSEC           1000u
#define KHZ                     1000u

static u64 tsc_base;            /* TSC value at which ktime is 0 */
u64 tsc_khz;                    /* the TSC's rate, measured at boot (asm/processor.h) */
static u32 tsc_mult;            /* ns = cycles * tsc_mult >> tsc_shift */
static u32 tsc_shift;
static bool tsc_ready;          /* the fields above are set */

/*
 * a * mul >> shift, exactly, without a 128-bit product: split a into its
 * 32-bit halves, a = hi * 2^32 + lo.  Then
 *     a * mul >> shift  =  (hi * mul) << (32 - shift)  +  (lo * mul) >> shift
 * where both products fit 64 bits (32 x 32 bits), and the first term
 * overflows only when the result itself would (after ~584 years of ns).
 * Needs shift <= 32.
 */
static u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	u64 hi = (a >> 32) * mul;
	u64 lo = (a & 0xffffffffu) * mul;

	return (hi << (32 - shift)) + (lo >> shift);
}

/*
 * Choose mult and shift for cycles -> ns: the largest shift (most precise
 * mult) for which mult = 10^9 * 2^shift / hz still fits 32 bits.
 */
static void tsc_set_conversion(u64 hz)
{
	unsigned int shift;
	u64 mult = 0;

	for (shift = 32; shift > 0; shift--) {
		mult = (NSEC_PER_SEC << shift) / hz;
		if (mult <= 0xffffffffu)
			break;
	}
	tsc_mult = mult;
	tsc_shift = shift;
}

/*
 * The conversion ktime_get_ns() makes, for the vDSO to make the same:
 * ns = mul_u64_u32_shr(tsc - *base, *mult, *shift).  False before
 * time_init() calibrated the TSC.
 */
bool tsc_clock_params(u64 *base, u32 *mult, u32 *shift)
{
	if (!READ_ONCE(tsc_ready))
		return false;
	*base = tsc_base;
	*mult = tsc_mult;
	*shift = tsc_shift;
	return true;
}

u64 ktime_get_ns(void)
{
	if (!READ_ONCE(tsc_ready))
		return 0;
	return mul_u64_u32_shr(rdtsc() - tsc_base, tsc_mult, tsc_shift);
}

/*
 * One measurement: count TSC cycles while PIT channel 2 counts
 * CALIBRATE_LATCH clocks.  In mode 0 its OUT goes low when the count is
 * written and high when the count reaches zero; port 0x61 lets us read
 * OUT.  Neither moment is seen exactly: the count starts somewhere in the
 * port write bracketed by two TSC reads, and OUT rose between the last
 * read that saw it low and the first that saw it high.  So the cycles
 * are only known to lie in [*lo, *hi].  Normally each bracket is one
 * port access (microseconds); something that stops the CPU across one of
 * the two moments -- an SMI on real hardware, a host that deschedules
 * QEMU's virtual CPU -- widens it by as long as it lasts.
 * Returns false if OUT never rose.
 */
static bool pit_measure_tsc(u64 *start, u64 *lo, u64 *hi)
{
	u8 saved = inb(NMI_SC);
	u64 a, b, low_at, end;
	unsigned long polls = 0;

	/* Gate on (so it counts), speaker off (so it is not heard). */
	outb(NMI_SC, (saved & ~NMI_SC_SPKR_DAT_EN) | NMI_SC_TIM_CNT2_EN);
	outb(PIT_MODE, PIT_SEL_CH2 | PIT_ACCESS_LOHI | PIT_MODE_TERMINAL_COUNT);
	outb(PIT_CH2, CALIBRATE_LATCH & 0xff);
	a = rdtsc();
	outb(PIT_CH2, CALIBRATE_LATCH >> 8);    /* counting starts now */
	b = rdtsc();
	low_at = b;                     /* TSC before the last read that saw OUT low */
	for (;;) {
		u64 t = rdtsc();

		if (inb(NMI_SC) & NMI_SC_TMR2_OUT_STS)
			break;
		low_at = t;
		if (++polls == CALIBRATE_MAX_POLLS)
			break;
	}
	end = rdtsc();
	outb(NMI_SC, saved);

	*start = a;
	*lo = low_at - b;               /* started by b, rose after low_at */
	*hi = end - a;                  /* started after a, rose by end */
	return polls != CALIBRATE_MAX_POLLS;
}

/*
 * The TSC rate in Hz, or 0 if the PIT never answered.  Every measurement
 * counts the same cycles, so the true count lies in all their intervals:
 * their intersection narrows with each one, and measuring stops once it
 * is within 1/CALIBRATE_SLACK_DIV of the count -- at once when the first
 * window was undisturbed, after a few when the host kept interrupting
 * (each disturbance widens one end of one interval, rarely the same end
 * of all).  After CALIBRATE_TRIES the middle of the intersection is
 * taken however wide.  (A single window taken blindly was once 4.5 times
 * too long on a busy host: the guest's clock then ran at a fifth of real
 * time, and every timeout in the kernel with it.  Linux's
 * pit_calibrate_tsc() rejects a disturbed window too.)  *start: the TSC
 * at the first measurement; *ppm: the intersection's width, in
 * millionths of the count.
 */
static u64 pit_calibrate_tsc(u64 *start, unsigned int *tries, u64 *ppm)
{
	u64 lo = 0, hi = ~0ull;

	*ppm = 0;
	for (*tries = 1; *tries <= CALIBRATE_TRIES; (*tries)++) {
		u64 t0, l, h;

		if (!pit_measure_tsc(&t0, &l, &h))
			return 0;
		if (*tries == 1)
			*start = t0;
		lo = max(lo, l);
		hi = min(hi, h);
		if (lo > hi) {          /* cannot be, unless the TSC jumped: start over */
			lo = l;
			hi = h;
		}
		if ((hi - lo) * CALIBRATE_SLACK_DIV <= lo)
			break;
	}
	if (*tries > CALIBRATE_TRIES)
		*tries = CALIBRATE_TRIES;
	*ppm = lo ? (hi - lo) * 1000000 / lo : 0;
	/* cycles / (latch / PIT_TICK_RATE) seconds; < 2^64 below ~15 THz */
	return (lo + (hi - lo) / 2) * PIT_TICK_RATE / CALIBRATE_LATCH;
}

static u64 tick_nsec;           /* the tick's period: PIT_TICK_LATCH clocks */
static u64 tick_start_ns;       /* ktime when the PIT started ticking */
static u64 ticks_done;          /* ticks accounted with timer_tick() */
u64 tick_period_ns(void)
{
	return tick_nsec;
}

/*
 * The interrupt is only a prompt; the clock says how many ticks have
 * passed.  Counting interrupts instead would let jiffies run ahead of real
 * time: a virtual PIT whose host was busy delivers the periods it missed
 * in a quick burst afterwards, and 30 jiffies could then pass in 20 ms.
 * So a tick is accounted once ktime has reached it, to the nearest period
 * (an interrupt a little early or late is still the same tick): a burst
 * accounts nothing extra, and a late interrupt accounts every tick it
 * missed, so jiffies neither race ahead nor fall behind.
 */
static irqreturn_t timer_interrupt(int irq __unused, void *dev_id __unused)
{
	u64 now = ktime_get_ns();
	u64 due = (now - tick_start_ns + tick_nsec / 2) / tick_nsec;

	profile_tick(get_irq_regs());   /* profile=: where the kernel was */
	/* the coarse clocks' time, for the kernel and every vDSO */
	update_vsyscall(now);
	if (ticks_done < due) {
		/* every tick missed at once, as Linux's tick_do_update_jiffies64():
		 * one call per missed tick would never end if a tick's work took
		 * longer than a tick (lockdep under -icount shift=10 does) */
		timer_tick(due - ticks_done);
		ticks_done = due;
	}
	watchdog_tick(get_irq_regs());  /* CPU 0's lockup checks */
	return IRQ_HANDLED;
}

/* PIT channel 0 in mode 2: one pulse on IRQ 0 every PIT_TICK_LATCH clocks. */
static void pit_start_tick(void)
{
	outb(PIT_MODE, PIT_SEL_CH0 | PIT_ACCESS_LOHI | PIT_MODE_RATE_GEN);
	outb(PIT_CH0, PIT_TICK_LATCH & 0xff);
	outb(PIT_CH0, PIT_TICK_LATCH >> 8);
}

void time_init(void)
{
	unsigned int tries;
	u64 hz, start = 0, ppm;
	int err;

	hz = pit_calibrate_tsc(&start, &tries, &ppm);
	if (!hz) {
		pr_err("tsc: calibration against the PIT failed, assuming %llu MHz\n",
		       FALLBACK_TSC_HZ / KHZ / KHZ);
		hz = FALLBACK_TSC_HZ;
	}
	tsc_khz = hz / KHZ;
	tsc_set_conversion(hz);
	tsc_base = start;
	barrier();                      /* publish the fields before the flag */
	WRITE_ONCE(tsc_ready, true);
	/* a retry or two is usual under QEMU (the first window is often
	 * disturbed): say something only if no window was undisturbed */
	if (ppm * CALIBRATE_SLACK_DIV > 1000000)
		pr_warn("tsc: calibration window disturbed in all %u tries: kept one "
			"within %llu ppm\n",
			tries, (unsigned long long)ppm);
	pr_info("tsc: Detected %llu.%03llu MHz processor\n",
		(unsigned long long)(tsc_khz / KHZ), (unsigned long long)(tsc_khz % KHZ));
	pr_info("clocksource: tsc: mult %u shift %u\n", tsc_mult, tsc_shift);

	/* the other CPUs' tick (smpboot.c), measured against the TSC */
	lapic_timer_calibrate();

	tick_nsec = (u64)PIT_TICK_LATCH * NSEC_PER_SEC / PIT_TICK_RATE;
	tick_start_ns = ktime_get_ns();
	pit_start_tick();
	err = request_irq(PIT_IRQ, timer_interrupt, 0, "timer", NULL);
	if (err)
		panic("time: cannot get irq %d for the tick: %d", PIT_IRQ, err);
	pr_info("time: PIT tick on irq %d, HZ=%d (%u clocks per tick)\n",
		PIT_IRQ, HZ, (unsigned int)PIT_TICK_LATCH);
}

void udelay(unsigned long us)
{
	u64 start, cycles;

	if (!READ_ONCE(tsc_ready)) {
		/* Not calibrated yet: a port 0x80 write takes about 1 us. */
		while (us--)
			io_delay();
		return;
	}
	start = rdtsc();
	cycles = DIV_ROUND_UP((u64)us * tsc_khz, USEC_PER_MSEC);
	while (rdtsc() - start < cycles)
		cpu_relax();
}

void mdelay(unsigned long ms)
{
	while (ms--)
		udelay(USEC_PER_MSEC);
}
