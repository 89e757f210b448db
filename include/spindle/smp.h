/* SPDX-License-Identifier: MIT */
/*
 * smp.h - the CPUs: which are online, which one this is, and running a
 * function on others (kernel/arch/x86/smpboot.c wakes them; kernel/smp.c
 * carries the function calls).
 *
 * Every CPU that answers at boot runs the kernel with its own GDT, TSS,
 * per-CPU data (percpu.h), idle task and local APIC, takes interrupts,
 * and runs functions sent to it (smp_call_function_*).  Tasks still run
 * on CPU 0 only: per-CPU run queues come next (docs/smp.md).
 */
#ifndef SPINDLE_SMP_H
#define SPINDLE_SMP_H

#include <spindle/threads.h>
#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/percpu.h>

/* A set of CPUs (Linux's struct cpumask; NR_CPUS fits one word). */
struct cpumask {
	unsigned long bits;
};

static inline bool cpumask_test_cpu(unsigned int cpu, const struct cpumask *m)
{
	return (READ_ONCE(m->bits) >> cpu) & 1;
}

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m)
{
	__atomic_fetch_or(&m->bits, 1ul << cpu, __ATOMIC_SEQ_CST);
}

static inline void cpumask_clear_cpu(unsigned int cpu, struct cpumask *m)
{
	__atomic_fetch_and(&m->bits, ~(1ul << cpu), __ATOMIC_SEQ_CST);
}

static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	unsigned long bits = READ_ONCE(m->bits);
	unsigned int n = 0;

	for (; bits; bits &= bits - 1)  /* clears the lowest set bit */
		n++;
	return n;
}

#define for_each_cpu(cpu, mask)                             \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)           \
		if (!cpumask_test_cpu((cpu), (mask))) {     \
		} else

/* The first CPU in the set, or NR_CPUS if it is empty. */
static inline unsigned int cpumask_first(const struct cpumask *m)
{
	unsigned long bits = READ_ONCE(m->bits);

	return bits ? (unsigned int)__builtin_ctzl(bits) : NR_CPUS;
}

static inline bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	return (READ_ONCE(a->bits) & READ_ONCE(b->bits)) != 0;
}

/*
 * A set of CPUs as text (lib/cpumask.c), as Linux's files and options
 * write it: hex ("3", "0f") or a list ("0-2,5").  The parsers take a
 * buffer and its length (one trailing newline allowed) and return 0,
 * -EINVAL (not that form, or empty) or -ERANGE (a CPU past NR_CPUS).
 * The printers add a newline; cpumask_print() prints as many hex digits
 * as nr_cpus needs.
 */
int cpumask_parse(const char *buf, size_t len, struct cpumask *mask);
int cpulist_parse(const char *buf, size_t len, struct cpumask *mask);
int cpumask_print(char *buf, size_t size, const struct cpumask *mask, unsigned int nr_cpus);
int cpulist_print(char *buf, size_t size, const struct cpumask *mask);

/* CPUs that answered at boot and run the kernel (the boot CPU is 0) */
extern struct cpumask __cpu_online_mask;
#define cpu_online_mask (&__cpu_online_mask)
#define cpu_online(cpu) cpumask_test_cpu((cpu), cpu_online_mask)
#define for_each_online_cpu(cpu) for_each_cpu((cpu), cpu_online_mask)
static inline unsigned int num_online_cpus(void)
{
	return cpumask_weight(cpu_online_mask);
}
/* CPUs with a per-CPU copy: the MADT's, up to NR_CPUS (setup_percpu.c) */
extern unsigned int nr_cpu_ids;

/* Do the two CPUs share their last-level cache?  Linux decides by the
 * cache's own topology; here, by the package, whose L3 QEMU's CPUs share
 * (kernel/arch/x86/cpu.c).  Where a completion runs (rq_affinity 1). */
bool cpus_share_cache(unsigned int this_cpu, unsigned int that_cpu);

#ifndef SPINDLE_HOST
DECLARE_PER_CPU(unsigned int, cpu_number);
/* Which CPU this is.  Only meaningful while the caller cannot move to
 * another CPU: preemption or interrupts off (or, until tasks migrate,
 * anywhere). */
#define smp_processor_id() this_cpu_read(cpu_number)
#else
/* host unit tests: the CPU a test pretends to run on (tests/unit/shim) */
extern unsigned int host_cpu;
#define smp_processor_id() host_cpu
#endif

/*
 * Run func(info) on other CPUs, in their interrupt context (interrupts
 * off there, so func must not sleep), through an IPI.  wait: return only
 * once every func has returned.  The caller must have interrupts on: two
 * CPUs each waiting with interrupts off for the other to run its
 * function would wait forever.
 */
typedef void (*smp_call_func_t)(void *info);
int smp_call_function_single(unsigned int cpu, smp_call_func_t func, void *info, bool wait);
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func, void *info,
			    bool wait);
/* every online CPU, this one included (this one last, with interrupts off) */
void on_each_cpu(smp_call_func_t func, void *info, bool wait);

/* /proc/cpuinfo: each online CPU in Linux's layout (arch code) */
int show_cpuinfo(char *buf, size_t size);

/* waits that took smp.csd_lock_timeout= and were reported ("csd:") */
extern unsigned long csd_lock_reports;

/* the IPI's handler (arch code, on the receiving CPU) */
void generic_smp_call_function_interrupt(void);

/* Ask that CPU to reschedule: the RESCHEDULE_VECTOR IPI (arch code; the
 * scheduler's resched_curr() sets the CPU's need_resched first) */
void smp_send_reschedule(unsigned int cpu);

#endif /* SPINDLE_SMP_H */
