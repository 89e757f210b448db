/* SPDX-License-Identifier: MIT */
/*
 * Turning interrupts off and on, and the preemption counter.
 *
 * preempt_count says whether the code running on this CPU may be
 * switched away from.  It is per CPU (include/spindle/percpu.h), as in
 * Linux: it describes the CPU's state, not the task's.  It counts preempt_disable() nesting in its
 * low byte (spinlocks take it) and interrupt-handler nesting from bit 16
 * (HARDIRQ_OFFSET), as in Linux.  A task may sleep only when the count
 * is 0 and interrupts are on: might_sleep() checks exactly that.
 */
#ifndef SPINDLE_IRQFLAGS_H
#define SPINDLE_IRQFLAGS_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/percpu.h>

#ifndef SPINDLE_HOST
#include <asm/cpu.h>
#else
unsigned long local_irq_save(void);
void local_irq_restore(unsigned long flags);
bool irqs_disabled(void);
void cli(void);
void sti(void);
#endif

#define local_irq_disable() cli()
#define local_irq_enable()  sti()

#define PREEMPT_MASK    0x000000ffu
#define HARDIRQ_OFFSET  0x00010000u
#define HARDIRQ_MASK    0x000f0000u

DECLARE_PER_CPU(unsigned int, __preempt_count);

/* Each a single instruction on this CPU's copy (asm/percpu.h); the
 * barriers keep the compiler from moving memory accesses out of the
 * region. */
static inline unsigned int preempt_count(void) { return this_cpu_read(__preempt_count); }
static inline void preempt_disable(void) { this_cpu_inc(__preempt_count); barrier(); }
static inline void preempt_enable_no_resched(void) { barrier(); this_cpu_dec(__preempt_count); }
#ifndef SPINDLE_HOST
DECLARE_PER_CPU(bool, __need_resched);  /* include/spindle/sched.h */
/* Switch now, unless preemption or interrupts are off (Linux's name). */
void preempt_schedule(void);
/*
 * Re-enable preemption and switch now if a switch became due meanwhile.
 * Inline, as Linux's: every spin_unlock() ends here, and its usual
 * answer -- nothing due -- is then a decrement and one test of this
 * CPU's flag, where a call cost seven instructions.
 */
static inline void preempt_enable(void)
{
	preempt_enable_no_resched();
	if (unlikely(this_cpu_read(__need_resched)))
		preempt_schedule();
}
#else
void preempt_enable(void);
#endif

#define in_irq()        (preempt_count() & HARDIRQ_MASK)
#define in_interrupt()  in_irq()
#define in_atomic()     (preempt_count() != 0)

/* Panic if the caller is in a context that must not sleep. */
void __might_sleep(const char *file, int line);
#define might_sleep() __might_sleep(__FILE__, __LINE__)
/* The same for a function that sleeps only sometimes (a gfp that allows
 * it): checked whenever it could, not only when it did. */
#define might_sleep_if(cond)            \
	do {                            \
		if (cond)               \
			might_sleep();  \
	} while (0)

#endif /* SPINDLE_IRQFLAGS_H */
