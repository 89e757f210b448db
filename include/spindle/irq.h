/* SPDX-License-Identifier: MIT */
/*
 * Interrupt requests: how a driver gets its handler called (kernel/arch/x86/irq.c).
 *
 * An irq number names one interrupt source:
 *   0-15       ISA IRQs (timer 0, COM1 4, IDE 14/15, ...), routed to their
 *              IOAPIC input through the ACPI overrides (irq 0 is GSI 2 on
 *              QEMU).  On the "pc" machine PCI INTx also arrives here, on
 *              the irq the device's config space "interrupt line" names.
 *   16..N-1    the other IOAPIC inputs (GSIs); PCI INTx on "q35" is 16-23.
 *   48..       MSI irqs, handed out by irq_alloc_msi().
 *
 * Handlers run in interrupt context: interrupts off, in_irq() true, must
 * not sleep.  A handler returns IRQ_HANDLED if its device raised the
 * interrupt, IRQ_NONE if not -- on a shared line every handler is called
 * and each checks its own device.  Interrupts nobody handled are reported
 * (once per irq), and an irq that keeps arriving unhandled is disabled
 * rather than left to hang the machine.
 *
 * Rules a caller must not break:
 *   - request_irq() and free_irq() are for task context (or boot); they
 *     allocate, so assume they may sleep.  The name string must outlive
 *     the request.  The other calls do not sleep.
 *   - A shared irq needs IRQF_SHARED from every requester, and a dev_id
 *     unique to each: free_irq() finds the handler to remove by dev_id.
 *   - disable_irq()/enable_irq() nest: n disables need n enables.  An edge
 *     or MSI interrupt that arrives while disabled is not lost: it is
 *     delivered when the irq is enabled again.
 *   - irq_set_level_triggered() before request_irq() for a PCI INTx line.
 *   - irq_free_msi() only after free_irq() of every handler on it.
 */
#ifndef SPINDLE_IRQ_H
#define SPINDLE_IRQ_H

#include <spindle/types.h>
#include <spindle/percpu.h>

typedef enum {
	IRQ_NONE = 0,           /* not my device */
	IRQ_HANDLED = 1,        /* my device, serviced */
} irqreturn_t;

typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);

#define IRQF_SHARED     0x00000080ul    /* others may share the irq */

/* The registers the current interrupt stopped (Linux's get_irq_regs()):
 * valid in a handler, for the profiler; NULL outside interrupts. */
struct pt_regs;
DECLARE_PER_CPU(struct pt_regs *, __irq_regs);
static inline struct pt_regs *get_irq_regs(void) { return this_cpu_read(__irq_regs); }

#define NR_IRQS_LEGACY  16              /* the ISA IRQs */
#define FIRST_MSI_IRQ   48
#define NR_IRQS         208             /* vectors 0x20..0xef */

/* 0, or -EINVAL (no such irq, no handler, bad flags), -EBUSY (taken and not
 * shareable), -ENOMEM. */
int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags,
		const char *name, void *dev_id);
void free_irq(unsigned int irq, void *dev_id);

/* disable_irq() returns once no CPU runs the irq's handlers;
 * disable_irq_nosync() does not wait (from the irq's own handler). */
void disable_irq(unsigned int irq);
void disable_irq_nosync(unsigned int irq);
void enable_irq(unsigned int irq);
/* Wait until no CPU runs the irq's handlers. */
void synchronize_irq(unsigned int irq);
bool irq_has_action(unsigned int irq);

/*
 * Which CPUs an irq may go to (Linux's smp_affinity).  Delivery is to
 * one CPU, the first online one in the set (Linux spreads irqs over the
 * set; Spindle keeps it predictable).  0; -EINVAL: no such irq, or no
 * online CPU in the set; -EIO: irq 0 (CPU 0's tick), or an MSI irq whose
 * device nobody can re-aim (no irq_set_msi_writer()).
 */
#include <spindle/smp.h>
int irq_set_affinity(unsigned int irq, const struct cpumask *mask);
int irq_get_affinity(unsigned int irq, struct cpumask *mask, unsigned int *effective_cpu);
/* every irq's until irq_set_affinity(): irqaffinity=, or every CPU */
extern struct cpumask irq_default_affinity;
/* /proc/irq/N/{smp,effective}_affinity[_list] and
 * /proc/irq/default_smp_affinity (irq -1): the text, and a write */
int irq_affinity_show(int irq, bool list, bool effective, char *buf, size_t size);
int irq_affinity_store(int irq, bool list, const char *buf, size_t len);

/*
 * Allocate an MSI irq and compose the message a PCI device must be given
 * (its MSI or MSI-X address and data registers) so that its interrupt
 * reaches this CPU, edge-triggered, as that irq.  Returns the irq number
 * or -ENOSPC.
 */
int irq_alloc_msi(u64 *msi_addr, u32 *msi_data);
void irq_free_msi(unsigned int irq);
/* How to rewrite the device's message (address and data) when the irq
 * moves to another CPU; dev is the writer's own. */
void irq_set_msi_writer(unsigned int irq, void (*write_msi_msg)(void *dev, u64 addr, u32 data),
			void *dev);

/* How many times the irq's handlers were run (for /proc/interrupts). */
u64 irq_count(unsigned int irq);

/* /proc/interrupts' text (Linux's layout) into buf; returns its length. */
int show_interrupts(char *buf, size_t size);

/*
 * Make an IOAPIC irq level-triggered, as PCI INTx lines are (PCI: active
 * low).  Where the ACPI tables state an ISA irq's polarity explicitly
 * (QEMU "pc": IRQ 5/9/10/11 "high level") the tables win: they describe
 * the wire as it reaches the IOAPIC, after the chipset's interrupt router.
 * Returns 0, or -EINVAL if the irq is not an IOAPIC input.
 */
int irq_set_level_triggered(unsigned int irq, bool active_low);

/* ACPI, local APIC, IOAPICs, PICs masked; after mm_init(), interrupts off. */
void irq_init(void);

#endif /* SPINDLE_IRQ_H */
