// SPDX-License-Identifier: MIT
/*
 * irq.c - irq numbers, handlers and dispatch (include/spindle/irq.h).
 *
 * Where it sits: below the drivers, which request_irq(); above apic.c,
 * which programs the controllers.  traps.c calls do_irq() for every vector
 * from 0x20 on, and the vector alone says which irq it is: vector = 0x20 +
 * irq (asm/apic.h has the layout).  One struct irq_desc per irq says where
 * the irq comes from -- an IOAPIC input (a GSI) or MSI -- how it signals,
 * and who handles it.
 *
 * The path of one interrupt through do_irq():
 *
 *   vector -> irq -> irq_desc
 *     spurious vector?            count nothing, no EOI (see below)
 *     disabled, or no handler?    mask the input, remember it was pending
 *     otherwise                   call every handler on the irq (shared)
 *   EOI to the local APIC
 *
 * Any CPU may take an interrupt: the one its IOAPIC entry or MSI address
 * names, chosen from the irq's affinity (irq_set_affinity(),
 * /proc/irq/N/smp_affinity, irqaffinity=).  Locking: each irq_desc has its
 * own lock, taken with interrupts off, by do_irq() on the CPU the
 * interrupt arrived at and by every call that changes the irq.  The
 * handlers run with it dropped (running_cpu says where), so
 * disable_irq() and free_irq() wait for a handler running elsewhere
 * (synchronize_irq()).  The locks are leaves, but for ioapic_lock
 * (apic.c) taken inside them.
 */
#define pr_fmt(fmt) "irq: " fmt
#include <spindle/irq.h>
#include <spindle/init.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/irqflags.h>
#include <spindle/spinlock.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/sched_debug.h>
#include <spindle/profile.h>
#include <asm/acpi.h>
#include <asm/apic.h>
#include <asm/traps.h>
#include <asm/smp.h>

/* After this many interrupts in a row that no handler claimed, the irq is
 * disabled: a level-triggered line nobody services would otherwise
 * interrupt forever and the machine would do nothing else. */
#define IRQ_UNHANDLED_LIMIT     10000
/* A stray unclaimed interrupt now and then is normal (a UART's FIFO
 * timeout after the bytes were read, a late edge); this many in a row is
 * worth a report. */
#define IRQ_UNHANDLED_REPORT    100

BUILD_BUG_ON(IRQ0_VECTOR + NR_IRQS != FIRST_SYSTEM_VECTOR);

enum irq_kind {
	IRQ_KIND_NONE,          /* no interrupt source has this number */
	IRQ_KIND_IOAPIC,        /* an IOAPIC input: ISA IRQ or other GSI */
	IRQ_KIND_MSI,           /* allocated by irq_alloc_msi() */
};

struct irqaction {
	irq_handler_t handler;
	void *dev_id;
	const char *name;
	unsigned long flags;
	struct irqaction *next;         /* the next handler sharing the irq */
};

/*
 * One per irq.  d->lock guards everything in it; do_irq() takes it on
 * whichever CPU the interrupt arrives, and drops it while the handlers
 * run -- running_cpu says where they run (Linux's IRQD_IRQ_INPROGRESS),
 * which synchronize_irq() waits out.  irq_desc_lock, outside it, only
 * serializes the MSI allocator's search.
 */
struct irq_desc {
	spinlock_t lock;
	struct irqaction *action;       /* handlers, in request order */
	enum irq_kind kind;
	/* IRQ_KIND_IOAPIC only: */
	u32 gsi;
	bool level, active_low;
	bool polarity_fixed;            /* by the ACPI tables: keep it */
	bool masked;                    /* the input is masked right now */
	/* state: */
	unsigned int depth;             /* disable_irq() nesting */
	bool pending;                   /* arrived while disabled */
	u64 count[NR_CPUS];             /* times the handlers ran, per CPU */
	unsigned int unhandled;         /* in a row, nobody claimed it */
	bool reported;                  /* "nobody cared" already said */
	int running_cpu;                /* its handlers run there now; -1: nowhere */
	/* where it may go (/proc/irq/N/smp_affinity), and where it goes:
	 * the first online CPU of that set */
	struct cpumask affinity;
	bool affinity_set;              /* by irq_set_affinity(), not the default */
	unsigned int effective_cpu;
	/* MSI: rewrites the device's message, to aim it elsewhere (pci.c) */
	void (*write_msi_msg)(void *dev, u64 addr, u32 data);
	void *msi_dev;
};

static struct irq_desc irq_desc[NR_IRQS];
static DEFINE_SPINLOCK(irq_desc_lock);
static u32 boot_cpu_apic_id;            /* CPU 0's, known before smp_init() */

/*
 * Where an irq may go unless told otherwise (Linux's irq_default_affinity):
 * every CPU, so each lands on CPU 0, the first.  irqaffinity=<list> sets
 * it, e.g. irqaffinity=1 sends every device's interrupts to CPU 1 -- all
 * but irq 0, the timer, whose tick is CPU 0's.
 */
struct cpumask irq_default_affinity = { .bits = ~0ul };

static int __init irqaffinity_setup(const char *val)
{
	struct cpumask m;

	if (!val || cpulist_parse(val, strlen(val), &m) || !m.bits)
		return -EINVAL;
	irq_default_affinity = m;
	return 0;
}
__setup("irqaffinity=", irqaffinity_setup);

static u32 cpu_apic_id(unsigned int cpu)
{
	return cpu == 0 ? boot_cpu_apic_id : per_cpu(x86_cpu_to_apicid, cpu);
}

static u64 msi_address(u32 apic_id)
{
	return MSI_ADDR_BASE | ((u64)apic_id << MSI_ADDR_DEST_ID_SHIFT);
}

static u8 irq_to_vector(unsigned int irq)
{
	return IRQ0_VECTOR + irq;
}

/* Masking exists only for IOAPIC inputs; an MSI irq is held off lazily
 * (see disable_irq()).  Callers hold d->lock. */
static void irq_mask(struct irq_desc *d)
{
	if (d->kind == IRQ_KIND_IOAPIC && !d->masked) {
		ioapic_mask_gsi(d->gsi);
		d->masked = true;
	}
}

static void irq_unmask(struct irq_desc *d)
{
	if (d->kind == IRQ_KIND_IOAPIC && d->masked) {
		ioapic_unmask_gsi(d->gsi);
		d->masked = false;
	}
}

/* Write the input's redirection entry from the descriptor; leaves it
 * masked. */
static void irq_program_ioapic(unsigned int irq, struct irq_desc *d)
{
	ioapic_setup_gsi(d->gsi, irq_to_vector(irq), d->level, d->active_low,
			 cpu_apic_id(d->effective_cpu));
	d->masked = true;
}

/* The CPU the irq goes to: the first online one it may go to (irq 0,
 * the tick, always CPU 0). */
static unsigned int irq_pick_cpu(unsigned int irq, const struct irq_desc *d)
{
	struct cpumask m = { .bits = d->affinity.bits & cpu_online_mask->bits };

	return irq == 0 || !m.bits ? 0 : cpumask_first(&m);
}

/* Aim the irq at irq_pick_cpu()'s CPU: the IOAPIC entry's destination,
 * or the device's MSI address.  Under d->lock. */
static void irq_apply_affinity(unsigned int irq, struct irq_desc *d)
{
	unsigned int cpu = irq_pick_cpu(irq, d);

	if (cpu == d->effective_cpu)
		return;
	if (d->kind == IRQ_KIND_IOAPIC) {
		ioapic_set_dest(d->gsi, cpu_apic_id(cpu));
	} else if (d->kind == IRQ_KIND_MSI) {
		if (!d->write_msi_msg)
			return;         /* nobody can re-aim it: it stays */
		d->write_msi_msg(d->msi_dev, msi_address(cpu_apic_id(cpu)),
				 MSI_DATA_TRIGGER_EDGE | MSI_DATA_DELIVERY_FIXED |
				 irq_to_vector(irq));
	}
	d->effective_cpu = cpu;
}

int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags,
		const char *name, void *dev_id)
{
	struct irqaction *new, **p;
	struct irq_desc *d;
	unsigned long f;
	int err = 0;

	if (irq >= NR_IRQS || !handler || (flags & ~IRQF_SHARED))
		return -EINVAL;
	/* free_irq() tells the handlers of a shared irq apart by dev_id. */
	if ((flags & IRQF_SHARED) && !dev_id)
		return -EINVAL;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	*new = (struct irqaction){ .handler = handler, .dev_id = dev_id,
				   .name = name, .flags = flags };

	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	if (d->kind == IRQ_KIND_NONE) {
		err = -EINVAL;
	} else if (d->action && !(d->action->flags & flags & IRQF_SHARED)) {
		err = -EBUSY;           /* sharing needs both sides to agree */
	} else {
		for (p = &d->action; *p; p = &(*p)->next)
			;
		/* one store publishes it whole: do_irq() on another CPU
		 * walks the list without the lock */
		smp_store_release(p, new);
		if (p == &d->action) {  /* the first handler: open the line */
			d->unhandled = 0;
			d->reported = false;
			/* irqaffinity= is read after irq_init(): take it now */
			if (!d->affinity_set)
				d->affinity = irq_default_affinity;
			irq_apply_affinity(irq, d);
			if (d->depth == 0)
				irq_unmask(d);
		}
	}
	spin_unlock_irqrestore(&d->lock, f);
	if (err)
		kfree(new);
	return err;
}

void free_irq(unsigned int irq, void *dev_id)
{
	struct irqaction *a = NULL, **p;
	struct irq_desc *d;
	unsigned long f;

	if (WARN_ON(irq >= NR_IRQS))
		return;
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	for (p = &d->action; *p; p = &(*p)->next) {
		if ((*p)->dev_id == dev_id) {
			a = *p;
			WRITE_ONCE(*p, a->next);
			break;
		}
	}
	if (a && !d->action) {          /* the last handler: close the line */
		irq_mask(d);
		d->pending = false;
	}
	spin_unlock_irqrestore(&d->lock, f);
	if (!a) {
		pr_warn("free_irq(%u): no handler with dev_id %p\n", irq, dev_id);
		return;
	}
	/* another CPU may be running it right now, off the list or not */
	synchronize_irq(irq);
	kfree(a);
}

/*
 * Wait until no CPU runs the irq's handlers (Linux's synchronize_irq()).
 * Handlers that start later see whatever the caller changed first under
 * d->lock (a disabled depth, a handler gone).  From the irq's own handler
 * it would wait for itself: that is refused with a warning.
 */
void synchronize_irq(unsigned int irq)
{
	struct irq_desc *d;
	unsigned long f;
	int cpu;

	if (WARN_ON(irq >= NR_IRQS))
		return;
	d = &irq_desc[irq];
	for (;;) {
		spin_lock_irqsave(&d->lock, f);
		cpu = d->running_cpu;
		spin_unlock_irqrestore(&d->lock, f);
		if (cpu < 0)
			return;
		if (WARN_ON(in_irq() && cpu == (int)smp_processor_id()))
			return;         /* its own handler: disable_irq_nosync() */
		cpu_relax();
	}
}

/*
 * "Lazy" disabling, as Linux does it: disable_irq() only counts.  Masking
 * right away would lose edges -- a masked IOAPIC input ignores them, and
 * an MSI cannot be masked here at all -- so instead do_irq() masks the
 * input if an interrupt does come while disabled, and notes it as pending;
 * enable_irq() then unmasks and replays it.  disable_irq() then waits for
 * a handler running on another CPU to return: when it returns, no handler
 * of the irq runs, or will until enable_irq().  disable_irq_nosync() does
 * not wait (for a handler that disables its own irq).
 */
void disable_irq_nosync(unsigned int irq)
{
	unsigned long f;

	if (WARN_ON(irq >= NR_IRQS))
		return;
	spin_lock_irqsave(&irq_desc[irq].lock, f);
	irq_desc[irq].depth++;
	spin_unlock_irqrestore(&irq_desc[irq].lock, f);
}

void disable_irq(unsigned int irq)
{
	disable_irq_nosync(irq);
	synchronize_irq(irq);
}

void enable_irq(unsigned int irq)
{
	struct irq_desc *d;
	bool resend = false;
	unsigned long f;

	if (WARN_ON(irq >= NR_IRQS))
		return;
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	if (d->depth == 0) {
		pr_warn("unbalanced enable_irq(%u)\n", irq);
	} else if (--d->depth == 0) {
		if (d->action)
			irq_unmask(d);
		/* A level input still asserted fires again by itself once
		 * unmasked; an edge happened once and must be replayed. */
		if (d->pending) {
			d->pending = false;
			resend = d->kind == IRQ_KIND_MSI || !d->level;
		}
	}
	spin_unlock_irqrestore(&d->lock, f);
	if (resend)
		apic_send_IPI_self(irq_to_vector(irq));
}

int irq_alloc_msi(u64 *msi_addr, u32 *msi_data)
{
	unsigned long f;
	int irq;

	unsigned int cpu = 0;

	spin_lock_irqsave(&irq_desc_lock, f);
	for (irq = FIRST_MSI_IRQ; irq < NR_IRQS; irq++) {
		struct irq_desc *d = &irq_desc[irq];

		spin_lock(&d->lock);
		if (d->kind == IRQ_KIND_NONE) {
			d->kind = IRQ_KIND_MSI;
			d->action = NULL;
			d->masked = d->pending = d->reported = false;
			d->depth = d->unhandled = 0;
			memset(d->count, 0, sizeof(d->count));
			d->write_msi_msg = NULL;
			d->msi_dev = NULL;
			d->affinity = irq_default_affinity;
			d->affinity_set = false;
			d->effective_cpu = cpu = irq_pick_cpu((unsigned int)irq, d);
			spin_unlock(&d->lock);
			break;
		}
		spin_unlock(&d->lock);
	}
	spin_unlock_irqrestore(&irq_desc_lock, f);
	if (irq == NR_IRQS)
		return -ENOSPC;

	*msi_addr = msi_address(cpu_apic_id(cpu));
	*msi_data = MSI_DATA_TRIGGER_EDGE | MSI_DATA_DELIVERY_FIXED | irq_to_vector(irq);
	return irq;
}

void irq_free_msi(unsigned int irq)
{
	struct irq_desc *d;
	unsigned long f;

	if (WARN_ON(irq < FIRST_MSI_IRQ || irq >= NR_IRQS))
		return;
	spin_lock_irqsave(&irq_desc_lock, f);
	d = &irq_desc[irq];
	spin_lock(&d->lock);
	if (d->kind != IRQ_KIND_MSI)
		pr_warn("irq_free_msi(%u): not an allocated MSI irq\n", irq);
	else if (d->action)             /* the vector would reach a stale handler */
		pr_warn("irq_free_msi(%u): handlers still installed, not freed\n", irq);
	else
		d->kind = IRQ_KIND_NONE;
	spin_unlock(&d->lock);
	spin_unlock_irqrestore(&irq_desc_lock, f);
}

void irq_set_msi_writer(unsigned int irq, void (*write_msi_msg)(void *dev, u64 addr, u32 data),
			void *dev)
{
	struct irq_desc *d;
	unsigned long f;

	if (WARN_ON(irq < FIRST_MSI_IRQ || irq >= NR_IRQS))
		return;
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	d->write_msi_msg = write_msi_msg;
	d->msi_dev = dev;
	spin_unlock_irqrestore(&d->lock, f);
}

bool irq_has_action(unsigned int irq)
{
	return irq < NR_IRQS && READ_ONCE(irq_desc[irq].action) != NULL;
}

int irq_set_affinity(unsigned int irq, const struct cpumask *mask)
{
	struct irq_desc *d;
	unsigned long f;
	int err = 0;

	if (irq >= NR_IRQS)
		return -EINVAL;
	if (irq == 0)
		return -EIO;            /* CPU 0's tick: it stays there */
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	if (d->kind == IRQ_KIND_NONE || !cpumask_intersects(mask, cpu_online_mask))
		err = -EINVAL;
	else if (d->kind == IRQ_KIND_MSI && !d->write_msi_msg)
		err = -EIO;             /* nobody can re-aim its message */
	else {
		d->affinity = *mask;
		d->affinity_set = true;
		irq_apply_affinity(irq, d);
	}
	spin_unlock_irqrestore(&d->lock, f);
	return err;
}

int irq_get_affinity(unsigned int irq, struct cpumask *mask, unsigned int *effective_cpu)
{
	struct irq_desc *d;
	unsigned long f;
	int err = 0;

	if (irq >= NR_IRQS)
		return -EINVAL;
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	if (d->kind == IRQ_KIND_NONE) {
		err = -EINVAL;
	} else {
		*mask = d->affinity;
		*effective_cpu = d->effective_cpu;
	}
	spin_unlock_irqrestore(&d->lock, f);
	return err;
}

/* over all CPUs */
u64 irq_count(unsigned int irq)
{
	u64 sum = 0;

	if (irq >= NR_IRQS)
		return 0;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		sum += READ_ONCE(irq_desc[irq].count[cpu]);
	return sum;
}

/* The function-call IPIs each CPU took (Linux's "CAL" line), its
 * rescheduling IPIs ("RES") and its local APIC timer's ticks ("LOC"). */
static DEFINE_PER_CPU(u64, irq_call_count);
static DEFINE_PER_CPU(u64, irq_resched_count);
static DEFINE_PER_CPU(u64, irq_local_timer_count);

/*
 * /proc/interrupts, in Linux's layout: a column per online CPU, then one
 * line per irq with a handler -- its count on each CPU, the controller,
 * the input and how it signals, the handlers' names, e.g.
 * " 14:       4096          0   IO-APIC  14-edge      ide0" -- and the
 * inter-processor interrupts by kind at the end.  Reading it before and
 * after a workload says how many interrupts each I/O cost, and where.
 */
int show_interrupts(char *buf, size_t size)
{
	unsigned long flags;
	unsigned int cpu;
	int n;

	n = scnprintf(buf, size, "%*s", 4, "");
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, size - (size_t)n, "       CPU%-2u", cpu);
	n += scnprintf(buf + n, size - (size_t)n, "\n");
	for (unsigned int irq = 0; irq < NR_IRQS; irq++) {
		struct irq_desc *d = &irq_desc[irq];
		char input[16];

		spin_lock_irqsave(&d->lock, flags);
		if (!d->action) {
			spin_unlock_irqrestore(&d->lock, flags);
			continue;
		}
		if (d->kind == IRQ_KIND_MSI)
			scnprintf(input, sizeof(input), "%u-edge", irq);
		else
			scnprintf(input, sizeof(input), "%u-%s", d->gsi, d->level ? "fasteoi" : "edge");
		n += scnprintf(buf + n, size - (size_t)n, "%3u:", irq);
		for_each_online_cpu(cpu)
			n += scnprintf(buf + n, size - (size_t)n, " %10llu",
				       (unsigned long long)READ_ONCE(d->count[cpu]));
		n += scnprintf(buf + n, size - (size_t)n, "   %-8s %-12s",
			       d->kind == IRQ_KIND_MSI ? "PCI-MSI" : "IO-APIC", input);
		for (const struct irqaction *a = d->action; a; a = a->next)
			n += scnprintf(buf + n, size - (size_t)n, "%s%s", a == d->action ? "" : ", ",
				       a->name);
		n += scnprintf(buf + n, size - (size_t)n, "\n");
		spin_unlock_irqrestore(&d->lock, flags);
	}
	n += scnprintf(buf + n, size - (size_t)n, "LOC:");
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, size - (size_t)n, " %10llu",
			       (unsigned long long)READ_ONCE(per_cpu(irq_local_timer_count, cpu)));
	n += scnprintf(buf + n, size - (size_t)n, "   Local timer interrupts\n");
	n += scnprintf(buf + n, size - (size_t)n, "RES:");
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, size - (size_t)n, " %10llu",
			       (unsigned long long)READ_ONCE(per_cpu(irq_resched_count, cpu)));
	n += scnprintf(buf + n, size - (size_t)n, "   Rescheduling interrupts\n");
	n += scnprintf(buf + n, size - (size_t)n, "CAL:");
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, size - (size_t)n, " %10llu",
			       (unsigned long long)READ_ONCE(per_cpu(irq_call_count, cpu)));
	n += scnprintf(buf + n, size - (size_t)n, "   Function call interrupts\n");
	return n;
}

/*
 * /proc/irq's text, in Linux's forms (its irq layer's procfs code): hex
 * (smp_affinity, default_smp_affinity) or a list (the *_list files);
 * "effective" is the one CPU the irq goes to.  irq < 0: the default.
 */
int irq_affinity_show(int irq, bool list, bool effective, char *buf, size_t size)
{
	struct cpumask mask;
	unsigned int cpu;
	int err;

	if (irq < 0) {
		mask = irq_default_affinity;
	} else {
		err = irq_get_affinity((unsigned int)irq, &mask, &cpu);
		if (err)
			return err;
		if (effective)
			mask.bits = 1ul << cpu;
	}
	return list ? cpulist_print(buf, size, &mask) : cpumask_print(buf, size, &mask, nr_cpu_ids);
}

/* A write: the set in that form; at least one online CPU in it (Linux:
 * "too easy a way to make the system unusable" otherwise).  0 or -errno. */
int irq_affinity_store(int irq, bool list, const char *buf, size_t len)
{
	struct cpumask mask;
	int err = list ? cpulist_parse(buf, len, &mask) : cpumask_parse(buf, len, &mask);

	if (err)
		return -EINVAL;
	if (!cpumask_intersects(&mask, cpu_online_mask))
		return -EINVAL;
	if (irq < 0) {
		irq_default_affinity = mask;
		return 0;
	}
	return irq_set_affinity((unsigned int)irq, &mask);
}

int irq_set_level_triggered(unsigned int irq, bool active_low)
{
	struct irq_desc *d;
	unsigned long f;
	int err = 0;

	if (irq >= NR_IRQS)
		return -EINVAL;
	d = &irq_desc[irq];
	spin_lock_irqsave(&d->lock, f);
	if (d->kind != IRQ_KIND_IOAPIC) {
		err = -EINVAL;
	} else {
		d->level = true;
		if (!d->polarity_fixed)
			d->active_low = active_low;
		irq_program_ioapic(irq, d);
		if (d->action && d->depth == 0)
			irq_unmask(d);
	}
	spin_unlock_irqrestore(&d->lock, f);
	return err;
}

/* An interrupt no handler claimed.  Reported once it keeps happening;
 * stopped if it persists. */
static void note_unhandled(unsigned int irq, struct irq_desc *d)
{
	if (++d->unhandled >= IRQ_UNHANDLED_REPORT && !d->reported) {
		d->reported = true;
		pr_err("irq %u: nobody cared (no handler returned IRQ_HANDLED)\n", irq);
		for (struct irqaction *a = d->action; a; a = a->next)
			pr_err("irq %u: handler %s\n", irq, a->name);
	}
	if (d->unhandled == IRQ_UNHANDLED_LIMIT) {
		pr_err("irq %u: %u unhandled interrupts in a row, disabling it\n",
		       irq, IRQ_UNHANDLED_LIMIT);
		d->depth++;
		irq_mask(d);
	}
}

DEFINE_PER_CPU(struct pt_regs *, __irq_regs);

/*
 * Entering and leaving interrupt context on this CPU (Linux's irq_enter()
 * and irq_exit() with set_irq_regs()): in_irq() is true in between, and
 * get_irq_regs() gives the interrupted registers.  Returns the previous
 * registers, for a nested interrupt's exit.
 */
static struct pt_regs *irq_enter(struct pt_regs *regs)
{
	struct pt_regs *old = this_cpu_read(__irq_regs);

	this_cpu_add(__preempt_count, HARDIRQ_OFFSET);
	this_cpu_write(__irq_regs, regs);
	return old;
}

static void irq_exit(struct pt_regs *old_regs)
{
	this_cpu_write(__irq_regs, old_regs);
	this_cpu_add(__preempt_count, -HARDIRQ_OFFSET);
}

void do_irq(struct pt_regs *regs)
{
	unsigned int vector = regs->vector, irq;
	struct pt_regs *old_regs;
	struct irq_desc *d;

	/*
	 * The spurious vector is not really an interrupt: the local APIC
	 * sets no in-service bit for it, so there is nothing to EOI -- and
	 * an EOI would retire some other, genuine interrupt (SDM vol. 3A,
	 * "Spurious Interrupt").
	 */
	if (vector == SPURIOUS_APIC_VECTOR)
		return;
	if (vector == ERROR_APIC_VECTOR) {
		pr_err("local APIC error, ESR %#x\n", apic_read_esr());
		apic_eoi();
		return;
	}
	if (vector == LOCAL_TIMER_VECTOR) {
		/* the tick of a CPU other than 0 (CPU 0's is the PIT's irq 0):
		 * the profile, its time accounting, its run queue's slice,
		 * its lockup check */
		apic_eoi();
		old_regs = irq_enter(regs);
		this_cpu_inc(irq_local_timer_count);
		profile_tick(regs);
		update_process_times(user_mode(regs));
		watchdog_tick(regs);
		irq_exit(old_regs);
		return;
	}
	if (vector == CALL_FUNCTION_VECTOR) {
		/* EOI first: a new request that comes while the queue is
		 * being run is then delivered, not lost (the queue is
		 * emptied atomically, kernel/smp.c) */
		apic_eoi();
		old_regs = irq_enter(regs);
		this_cpu_inc(irq_call_count);
		generic_smp_call_function_interrupt();
		irq_exit(old_regs);
		return;
	}
	if (vector == RESCHEDULE_VECTOR) {
		/* the sender set our need_resched; the interrupt's exit
		 * (irq_exit_preempt()) or the idle loop acts on it */
		apic_eoi();
		old_regs = irq_enter(regs);
		this_cpu_inc(irq_resched_count);
		scheduler_ipi();
		irq_exit(old_regs);
		return;
	}
	if (vector >= FIRST_SYSTEM_VECTOR) {
		pr_err("unexpected vector %#x\n", vector);
		apic_eoi();
		return;
	}

	irq = vector - IRQ0_VECTOR;
	d = &irq_desc[irq];
	old_regs = irq_enter(regs);
	spin_lock(&d->lock);
	if (unlikely(d->depth || !d->action)) {
		/* Disabled, or nobody has asked for it: keep the input quiet.
		 * A disabled irq gets its interrupt on enable_irq(). */
		irq_mask(d);
		if (d->action) {
			d->pending = true;
		} else if (!d->reported) {
			d->reported = true;
			pr_warn("irq %u (vector %#x): unexpected, no handler\n", irq, vector);
		}
	} else {
		bool handled = false;

		d->count[smp_processor_id()]++;
		/* the handlers run unlocked, so they may call enable_irq()
		 * and the like; free_irq() waits for them (synchronize_irq()) */
		d->running_cpu = (int)smp_processor_id();
		spin_unlock(&d->lock);
		for (struct irqaction *a = smp_load_acquire(&d->action); a;
		     a = smp_load_acquire(&a->next))
			handled |= a->handler(irq, a->dev_id) == IRQ_HANDLED;
		spin_lock(&d->lock);
		d->running_cpu = -1;
		if (handled)
			d->unhandled = 0;
		else
			note_unhandled(irq, d);
	}
	spin_unlock(&d->lock);
	/*
	 * EOI last.  For a level-triggered IOAPIC input this order matters:
	 * the IOAPIC will not deliver the input again until the EOI (its
	 * "remote IRR" bit), and then re-samples the wire.  By now the
	 * handlers have quieted their devices, so only a new request fires
	 * again; an EOI before them would re-deliver the same one at once.
	 * For edges and MSI the order is harmless: an interrupt that comes
	 * while the handlers run waits in the APIC (interrupts are off).
	 */
	apic_eoi();
	irq_exit(old_regs);
}

/* --- boot ---------------------------------------------------------------- */

static bool gsi_has_irq(u32 gsi)
{
	for (unsigned int irq = 0; irq < NR_IRQS; irq++)
		if (irq_desc[irq].kind == IRQ_KIND_IOAPIC && irq_desc[irq].gsi == gsi)
			return true;
	return false;
}

static void irq_setup_line(unsigned int irq, u32 gsi, bool level, bool active_low,
			   bool polarity_fixed)
{
	struct irq_desc *d = &irq_desc[irq];

	d->kind = IRQ_KIND_IOAPIC;
	d->gsi = gsi;
	d->level = level;
	d->active_low = active_low;
	d->polarity_fixed = polarity_fixed;
	irq_program_ioapic(irq, d);
}

/*
 * Give irq numbers their IOAPIC inputs.  ISA IRQs with an override go
 * first, since an override may take the GSI another ISA IRQ would have by
 * identity: IRQ 0 takes GSI 2, so irq 2 (the old PIC cascade) gets no
 * input.  Then the remaining ISA IRQs, then every other GSI as the irq of
 * its own number -- PCI on PCs, so level-triggered and active low.
 */
static void irq_setup_lines(void)
{
	const struct acpi_irq_model *m = &acpi_irq_model;
	unsigned int last = 0;

	for (int pass = 0; pass < 2; pass++) {
		bool overrides = pass == 0;

		for (unsigned int irq = 0; irq < NR_IRQS_LEGACY; irq++) {
			const struct acpi_isa_irq *isa = &m->isa[irq];

			if (isa->overridden != overrides)
				continue;
			if (!ioapic_gsi_valid(isa->gsi) || gsi_has_irq(isa->gsi)) {
				if (overrides)
					pr_warn("ISA IRQ %u: GSI %u unusable\n", irq, isa->gsi);
				continue;
			}
			irq_setup_line(irq, isa->gsi, isa->level, isa->active_low,
				       isa->polarity_fixed);
			last = max(last, irq);
		}
	}
	for (u32 gsi = NR_IRQS_LEGACY; gsi < FIRST_MSI_IRQ; gsi++) {
		if (ioapic_gsi_valid(gsi) && !gsi_has_irq(gsi)) {
			irq_setup_line(gsi, gsi, true, true, false);
			last = gsi;
		}
	}
	if (ioapic_gsi_valid(FIRST_MSI_IRQ))
		pr_warn("GSIs from %d on are not used: those irq numbers are MSI's\n",
			FIRST_MSI_IRQ);
	pr_info("irqs 0-%u on IOAPIC inputs, MSI irqs %d-%d, vectors %#x-%#x\n",
		last, FIRST_MSI_IRQ, NR_IRQS - 1, IRQ0_VECTOR, FIRST_SYSTEM_VECTOR - 1);
}

void irq_init(void)
{
	const struct acpi_irq_model *m = &acpi_irq_model;

	acpi_boot_init();
	/* Done whether or not the MADT says PICs exist: on a machine without
	 * them the port writes go nowhere. */
	i8259_remap_and_mask();
	lapic_init(m->lapic_address);
	boot_cpu_apic_id = read_apic_id();
	for (unsigned int irq = 0; irq < NR_IRQS; irq++) {
		spin_lock_init(&irq_desc[irq].lock);
		irq_desc[irq].running_cpu = -1;
		irq_desc[irq].affinity = irq_default_affinity;
	}
	for (int i = 0; i < m->nr_ioapics; i++) {
		const struct acpi_ioapic *io = &m->ioapic[i];
		int err = ioapic_register(io->id, io->address, io->gsi_base);

		if (err < 0)
			pr_err("IOAPIC %u at %#llx: %d, its inputs are unusable\n",
			       io->id, (unsigned long long)io->address, err);
	}
	irq_setup_lines();
}
