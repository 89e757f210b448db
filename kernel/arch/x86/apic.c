// SPDX-License-Identifier: MIT
/*
 * apic.c - the interrupt controllers: 8259 PICs (silenced), local APIC,
 * IOAPICs.
 *
 * Where it sits: irq.c decides which irq goes where and calls these to
 * program the hardware; drivers never call them (include/spindle/irq.h).
 * The interface and the vector layout are in asm/apic.h.
 *
 * Specifications followed:
 *   - Intel SDM vol. 3A, the APIC chapter (chapter 10; chapter 11 in
 *     editions from 2022 on): register map, spurious-interrupt vector
 *     register, EOI, ICR, error status register, MSI format.
 *   - Intel 82093AA I/O APIC datasheet: IOREGSEL/IOWIN and the
 *     redirection table.
 *   - Intel 8259A datasheet: the initialisation command words.
 * Only xAPIC mode (memory-mapped registers) is used; x2APIC is not.
 */
#define pr_fmt(fmt) "apic: " fmt
#include <spindle/printk.h>
#include <spindle/spinlock.h>
#include <spindle/compiler.h>
#include <spindle/errno.h>
#include <spindle/irqflags.h>
#include <spindle/time.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>

/* --- the 8259 PICs ----------------------------------------------------- */

#define PIC1_CMD                0x20
#define PIC1_DATA               0x21
#define PIC2_CMD                0xa0
#define PIC2_DATA               0xa1
#define PIC_ICW1_INIT           0x10    /* start initialisation */
#define PIC_ICW1_ICW4           0x01    /* an ICW4 will follow */
#define PIC_ICW3_SLAVE_ON_IR2   (1u << 2)   /* master: a slave on input 2 */
#define PIC_ICW3_CASCADE_ID     2           /* slave: I am on master input 2 */
#define PIC_ICW4_8086           0x01    /* 8086 mode (not MCS-80/85) */
#define PIC_MASK_ALL            0xff    /* OCW1: every input masked */
#define PIC1_VECTOR_BASE        0x20
#define PIC2_VECTOR_BASE        0x28

/*
 * The BIOS leaves the PICs delivering IRQs 0-7 on vectors 8-15 -- the CPU's
 * exception vectors (double fault is 8).  Masking is not quite enough: a
 * PIC raises a "spurious" IRQ 7 or 15 even while masked when a request
 * goes away too early.  So reprogram them first to deliver on 0x20-0x2f
 * (harmless irq vectors), then mask everything.  The 8259A datasheet's
 * sequence: ICW1 to the command port, ICW2-ICW4 to the data port.
 */
void i8259_remap_and_mask(void)
{
	outb(PIC1_CMD, PIC_ICW1_INIT | PIC_ICW1_ICW4);
	io_delay();
	outb(PIC2_CMD, PIC_ICW1_INIT | PIC_ICW1_ICW4);
	io_delay();
	outb(PIC1_DATA, PIC1_VECTOR_BASE);              /* ICW2: vector base */
	io_delay();
	outb(PIC2_DATA, PIC2_VECTOR_BASE);
	io_delay();
	outb(PIC1_DATA, PIC_ICW3_SLAVE_ON_IR2);         /* ICW3: cascade */
	io_delay();
	outb(PIC2_DATA, PIC_ICW3_CASCADE_ID);
	io_delay();
	outb(PIC1_DATA, PIC_ICW4_8086);                 /* ICW4 */
	io_delay();
	outb(PIC2_DATA, PIC_ICW4_8086);
	io_delay();
	outb(PIC1_DATA, PIC_MASK_ALL);                  /* OCW1 */
	outb(PIC2_DATA, PIC_MASK_ALL);
}

/* --- the local APIC ---------------------------------------------------- */

/* Register offsets (SDM vol. 3A, "Local APIC Register Address Map"):
 * 32-bit registers, 16 bytes apart. */
#define APIC_ID                 0x020
#define APIC_LVR                0x030   /* version */
#define APIC_TASKPRI            0x080   /* task priority */
#define APIC_PROCPRI            0x0a0   /* processor priority (read only) */
#define APIC_EOI                0x0b0
#define APIC_SPIV               0x0f0   /* spurious-interrupt vector */
#define APIC_ISR                0x100   /* in service: 8 registers, 16 bytes apart */
#define APIC_TMR                0x180   /* trigger mode (level = 1) */
#define APIC_IRR                0x200   /* requested, not yet in service */
#define APIC_ESR                0x280   /* error status */
#define APIC_ICR                0x300   /* interrupt command, low half */
#define APIC_ICR2               0x310   /* interrupt command, high half */
#define APIC_LVTT               0x320   /* local vector table: timer */
#define APIC_LVT0               0x350   /* LINT0 */
#define APIC_LVTERR             0x370   /* error */
#define APIC_TMICT              0x380   /* timer: initial count */
#define APIC_TMCCT              0x390   /* timer: current count */
#define APIC_TDCR               0x3e0   /* timer: divide configuration */
#define APIC_TDR_DIV_16         0x3
#define APIC_LVT_TIMER_PERIODIC (1u << 17)

#define APIC_ID_SHIFT           24      /* xAPIC: the ID is in bits 31:24 */
#define APIC_SPIV_APIC_ENABLED  (1u << 8)
#define APIC_LVT_MASKED         (1u << 16)
#define APIC_ICR_DELIVERY_FIXED (0u << 8)
#define APIC_ICR_DELIVERY_NMI   (4u << 8)
#define APIC_ICR_DELIVERY_INIT (5u << 8)
#define APIC_ICR_DELIVERY_STARTUP (6u << 8)
#define APIC_ICR_TRIGGER_LEVEL (1u << 15)
#define APIC_ICR_BUSY           (1u << 12)  /* delivery status: send pending */
#define APIC_ICR_LEVEL_ASSERT   (1u << 14)
#define APIC_ICR_DEST_SELF      (1u << 18)  /* destination shorthand 01 */

/* IA32_APIC_BASE MSR ("Local APIC Status and Location") */
#define APIC_BASE_X2APIC_ENABLE (1ull << 10)
#define APIC_BASE_GLOBAL_ENABLE (1ull << 11)

#define LAPIC_MMIO_SIZE         0x400   /* registers end at 0x3f0 */

static void *lapic_base;

static u32 apic_read(u32 reg) { return readl((u8 *)lapic_base + reg); }
static void apic_write(u32 reg, u32 v) { writel(v, (u8 *)lapic_base + reg); }

/*
 * This CPU's local APIC, as every CPU sets its own (the boot CPU from
 * lapic_init(), the others from start_secondary()): every register here
 * is per CPU, at the same address on each.
 */
void lapic_setup(void)
{
	/* Accept every priority: vectors are not used to mask each other. */
	apic_write(APIC_TASKPRI, 0);
	/* Nothing should arrive through the PIC's ExtINT path (LINT0), and
	 * the APIC timer waits for lapic_timer_start().  LINT1 (NMI) stays as
	 * the BIOS set it. */
	apic_write(APIC_LVT0, APIC_LVT_MASKED);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_LVTERR, ERROR_APIC_VECTOR);
	apic_read_esr();
	/* Software-enable the APIC.  The vector given here is what the APIC
	 * delivers when an interrupt vanishes between being signalled and
	 * being accepted ("Spurious Interrupt"): 0xff, since on P6-era parts
	 * its low four bits are hard-wired to 1. */
	apic_write(APIC_SPIV, APIC_SPIV_APIC_ENABLED | SPURIOUS_APIC_VECTOR);
	/* Anything left in service from the firmware is done with. */
	apic_eoi();
}

void lapic_init(phys_addr_t phys)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	/* The memory-mapped registers exist only in xAPIC mode.  Leaving
	 * x2APIC mode must go through "disabled" (SDM: "State Changes From
	 * xAPIC Mode to x2APIC Mode" forbids x2APIC -> xAPIC directly). */
	if (base & APIC_BASE_X2APIC_ENABLE) {
		base &= ~(APIC_BASE_X2APIC_ENABLE | APIC_BASE_GLOBAL_ENABLE);
		wrmsr(MSR_APIC_BASE, base);
	}
	wrmsr(MSR_APIC_BASE, base | APIC_BASE_GLOBAL_ENABLE);

	lapic_base = ioremap(phys, LAPIC_MMIO_SIZE);
	if (!lapic_base)
		panic("apic: cannot map the local APIC at %#llx", (unsigned long long)phys);

	lapic_setup();
	pr_info("local APIC id %u, version %#x, at %#llx\n", read_apic_id(),
		apic_read(APIC_LVR), (unsigned long long)phys);
}

/* "Signaling Interrupt Servicing Completion": any write to the EOI register
 * retires the highest-priority vector in service, letting lower ones in. */
void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

u32 read_apic_id(void)
{
	return apic_read(APIC_ID) >> APIC_ID_SHIFT;
}

/* "Error Status Register": a write latches the errors seen since the last
 * write, so write, then read; the write also clears them for next time. */
u32 apic_read_esr(void)
{
	apic_write(APIC_ESR, 0);
	return apic_read(APIC_ESR);
}

/*
 * Send @vector to this CPU through the ICR ("Interrupt Command Register"):
 * fixed delivery, edge, destination shorthand "self".  Writing the low half
 * sends it.  Interrupts are off around it so that no handler uses the ICR
 * in between (enable_irq() may replay an interrupt from one).
 */
void apic_send_IPI_self(u8 vector)
{
	unsigned long flags = local_irq_save();

	while (apic_read(APIC_ICR) & APIC_ICR_BUSY)
		cpu_relax();
	apic_write(APIC_ICR2, 0);
	apic_write(APIC_ICR, APIC_ICR_DEST_SELF | APIC_ICR_LEVEL_ASSERT |
		   APIC_ICR_DELIVERY_FIXED | vector);
	while (apic_read(APIC_ICR) & APIC_ICR_BUSY)
		cpu_relax();
	local_irq_restore(flags);
}

/*
 * Wake the CPU whose local APIC has id apicid: "INIT-SIPI-SIPI" (SDM vol.
 * 3, 8.4.4.1; the MP specification's B.4).  INIT resets the target to its
 * wait-for-SIPI state; each STARTUP IPI starts it in real mode at
 * (vector << 12), here the trampoline's page.  The second STARTUP is for
 * CPUs that missed the first; one that has started ignores it.  The
 * waits are the specification's: 10 ms after INIT, 200 us after each
 * STARTUP.
 */
static void apic_icr_write(u32 low, u32 apicid)
{
	while (apic_read(APIC_ICR) & APIC_ICR_BUSY)
		cpu_relax();
	apic_write(APIC_ICR2, apicid << APIC_ID_SHIFT);
	apic_write(APIC_ICR, low);
	while (apic_read(APIC_ICR) & APIC_ICR_BUSY)
		cpu_relax();
}

/*
 * An inter-processor interrupt: vector to the CPU whose local APIC has id
 * apicid (fixed delivery, edge, physical destination).  Every CPU sees
 * its own local APIC at the same address, so this is this CPU's ICR;
 * interrupts off, so that no handler on this CPU writes it in between.
 */
void apic_send_IPI(u32 apicid, u8 vector)
{
	unsigned long flags = local_irq_save();

	apic_icr_write(APIC_ICR_LEVEL_ASSERT | APIC_ICR_DELIVERY_FIXED | vector, apicid);
	local_irq_restore(flags);
}

/* An NMI to that CPU: it arrives even with interrupts off (the lockup
 * detector's backtrace, kernel/watchdog.c). */
void apic_send_NMI(u32 apicid)
{
	unsigned long flags = local_irq_save();

	apic_icr_write(APIC_ICR_LEVEL_ASSERT | APIC_ICR_DELIVERY_NMI, apicid);
	local_irq_restore(flags);
}

/*
 * Print this CPU's local APIC as the lockup reports need it (Linux's
 * print_local_APIC(), shorter): which vectors it holds in service (ISR)
 * and which wait (IRR), and the priorities that gate them.  A vector
 * waits while PPR's class (its top four bits) is at or above the
 * vector's: an in-service bit whose EOI never came blocks every vector
 * of its class and below -- for a class-0xf bit, the tick and every IPI.
 * Each register array prints from vector 0xff down, one 32-bit word per
 * 32 vectors.
 */
static void apic_print_bits(const char *name, u32 reg)
{
	u32 w[8];

	for (int i = 0; i < 8; i++)
		w[i] = apic_read(reg + 0x10 * (u32)i);
	pr_emerg("%s %08x %08x %08x %08x %08x %08x %08x %08x\n", name,
		 w[7], w[6], w[5], w[4], w[3], w[2], w[1], w[0]);
}

void apic_show_state(void)
{
	pr_emerg("CPU %u id %u TPR %#x PPR %#x LVTT %#x TMICT %#x TMCCT %#x ESR %#x\n",
		 smp_processor_id(), read_apic_id(), apic_read(APIC_TASKPRI),
		 apic_read(APIC_PROCPRI), apic_read(APIC_LVTT), apic_read(APIC_TMICT),
		 apic_read(APIC_TMCCT), apic_read(APIC_ESR));
	apic_print_bits("ISR", APIC_ISR);
	apic_print_bits("IRR", APIC_IRR);
	apic_print_bits("TMR", APIC_TMR);
}

/* --- the local APIC timer ------------------------------------------------ */

/*
 * Each local APIC has a timer that counts down from an initial count at
 * the bus clock divided by TDCR, and raises its LVT vector at zero; in
 * periodic mode it reloads and goes on.  Its rate is not written anywhere
 * the kernel can read, so it is measured once against the TSC (Linux's
 * calibrate_APIC_clock() does the same against a known clock): start it
 * from the largest count, wait 10 ms, see how far it went.  The other
 * CPUs' timers run at the same rate (one bus clock).
 */
static u32 lapic_timer_period;  /* counts per tick (1/HZ s), divide by 16 */

#define LAPIC_CAL_US 10000

void lapic_timer_calibrate(void)
{
	u64 t0, t1;
	u32 left;

	apic_write(APIC_TDCR, APIC_TDR_DIV_16);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	t0 = ktime_get_ns();
	apic_write(APIC_TMICT, 0xffffffffu);
	udelay(LAPIC_CAL_US);
	left = apic_read(APIC_TMCCT);
	t1 = ktime_get_ns();
	apic_write(APIC_TMICT, 0);              /* stop it */
	if (t1 <= t0 || left == 0) {
		pr_warn("timer: could not measure the local APIC timer: no per-CPU tick\n");
		return;
	}
	lapic_timer_period = (u32)((u64)(0xffffffffu - left) * (NSEC_PER_SEC / HZ) / (t1 - t0));
	pr_info("timer: local APIC timer: %u counts per tick (divide by 16)\n",
		lapic_timer_period);
}

/* This CPU's tick: LOCAL_TIMER_VECTOR, HZ times a second. */
void lapic_timer_start(void)
{
	if (!lapic_timer_period)
		return;
	apic_write(APIC_TDCR, APIC_TDR_DIV_16);
	apic_write(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TMICT, lapic_timer_period);
}

void wakeup_secondary_cpu_via_init(u32 apicid, u8 start_page)
{
	apic_read_esr();
	apic_icr_write(APIC_ICR_DELIVERY_INIT | APIC_ICR_TRIGGER_LEVEL | APIC_ICR_LEVEL_ASSERT,
		       apicid);
	apic_icr_write(APIC_ICR_DELIVERY_INIT | APIC_ICR_TRIGGER_LEVEL, apicid); /* de-assert */
	mdelay(10);
	for (int i = 0; i < 2; i++) {
		apic_read_esr();
		apic_icr_write(APIC_ICR_DELIVERY_STARTUP | start_page, apicid);
		udelay(200);
	}
}

/* --- IOAPICs ----------------------------------------------------------- */

/*
 * The 82093AA exposes just two registers: write a register number to
 * IOREGSEL, then read or write it through IOWIN (datasheet 3.1).
 */
struct ioapic_mmio {
	u32 ioregsel;
	u32 reserved[3];
	u32 iowin;
} __packed;
BUILD_BUG_ON(offsetof(struct ioapic_mmio, iowin) != 0x10);

/* Indirect registers (datasheet 3.2). */
#define IOAPIC_REG_ID           0x00
#define IOAPIC_REG_VER          0x01
#define IOAPIC_REG_REDTBL       0x10    /* entry n: 0x10 + 2n (low), +1 (high) */
#define IOAPIC_ID_SHIFT         24
#define IOAPIC_VER_MASK         0xffu
#define IOAPIC_VER_MAX_REDIR_SHIFT 16   /* number of inputs - 1, bits 23:16 */
#define IOAPIC_VER_MAX_REDIR_MASK  0xffu

/* Redirection table entry, low half (datasheet 3.2.4). */
#define IOAPIC_RTE_DELIVERY_FIXED (0u << 8)
#define IOAPIC_RTE_DEST_PHYSICAL  (0u << 11)
#define IOAPIC_RTE_ACTIVE_LOW   (1u << 13)      /* INTPOL */
#define IOAPIC_RTE_LEVEL        (1u << 15)      /* trigger mode */
#define IOAPIC_RTE_MASKED       (1u << 16)
/* ... and high half: the destination APIC ID in bits 63:56. */
#define IOAPIC_RTE_DEST_SHIFT   24

#define MAX_IO_APICS            4

struct ioapic {
	struct ioapic_mmio *regs;
	u8 id;
	u32 gsi_base;
	unsigned int nr_pins;
};

static struct ioapic ioapics[MAX_IO_APICS];
static int nr_ioapics;

/* Selecting then accessing must not be split by an interrupt handler, or
 * by another CPU, that selects another register: the callers below hold
 * ioapic_lock (Linux's name), interrupts off. */
static DEFINE_SPINLOCK(ioapic_lock);

static u32 ioapic_read(struct ioapic *io, u32 reg)
{
	writel(reg, &io->regs->ioregsel);
	return readl(&io->regs->iowin);
}

static void ioapic_write(struct ioapic *io, u32 reg, u32 v)
{
	writel(reg, &io->regs->ioregsel);
	writel(v, &io->regs->iowin);
}

static struct ioapic *ioapic_for_gsi(u32 gsi, unsigned int *pin)
{
	for (int i = 0; i < nr_ioapics; i++) {
		struct ioapic *io = &ioapics[i];

		if (gsi >= io->gsi_base && gsi - io->gsi_base < io->nr_pins) {
			*pin = gsi - io->gsi_base;
			return io;
		}
	}
	return NULL;
}

bool ioapic_gsi_valid(u32 gsi)
{
	unsigned int pin;

	return ioapic_for_gsi(gsi, &pin) != NULL;
}

int ioapic_register(u8 id, phys_addr_t phys, u32 gsi_base)
{
	struct ioapic *io;
	unsigned long flags;
	u32 ver;

	if (nr_ioapics == MAX_IO_APICS)
		return -ENOSPC;
	io = &ioapics[nr_ioapics];
	io->regs = ioremap(phys, sizeof(*io->regs));
	if (!io->regs)
		return -ENOMEM;
	io->id = id;
	io->gsi_base = gsi_base;

	spin_lock_irqsave(&ioapic_lock, flags);
	ver = ioapic_read(io, IOAPIC_REG_VER);
	io->nr_pins = ((ver >> IOAPIC_VER_MAX_REDIR_SHIFT) & IOAPIC_VER_MAX_REDIR_MASK) + 1;
	/* Firmware may have left inputs enabled: nothing is delivered until
	 * a driver asks for it. */
	for (unsigned int pin = 0; pin < io->nr_pins; pin++)
		ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin, IOAPIC_RTE_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	nr_ioapics++;

	pr_info("IOAPIC[%d]: apic_id %u, version %#x, address %#llx, GSI %u-%u\n",
		nr_ioapics - 1, id, ver & IOAPIC_VER_MASK, (unsigned long long)phys,
		gsi_base, gsi_base + io->nr_pins - 1);
	return io->nr_pins;
}

/*
 * Program input @gsi to deliver @vector to the local APIC @dest_apic_id,
 * fixed delivery, physical destination.  The entry is left masked; the
 * low half, which holds the mask, is written first and last, so the input
 * is never live with a half-written entry.
 */
int ioapic_setup_gsi(u32 gsi, u8 vector, bool level, bool active_low, u32 dest_apic_id)
{
	unsigned int pin;
	struct ioapic *io = ioapic_for_gsi(gsi, &pin);
	unsigned long flags;
	u32 low = IOAPIC_RTE_MASKED | IOAPIC_RTE_DELIVERY_FIXED |
		  IOAPIC_RTE_DEST_PHYSICAL | vector;

	if (!io)
		return -EINVAL;
	if (level)
		low |= IOAPIC_RTE_LEVEL;
	if (active_low)
		low |= IOAPIC_RTE_ACTIVE_LOW;
	spin_lock_irqsave(&ioapic_lock, flags);
	ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin, IOAPIC_RTE_MASKED);
	ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin + 1, dest_apic_id << IOAPIC_RTE_DEST_SHIFT);
	ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin, low);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

/*
 * Send input @gsi to another local APIC.  The destination is the entry's
 * high half alone, one register write: the input may stay live, and an
 * interrupt already on its way still reaches the old CPU, which handles
 * it as well as the new one would (its EOI reaches the IOAPIC by vector).
 */
int ioapic_set_dest(u32 gsi, u32 dest_apic_id)
{
	unsigned int pin;
	struct ioapic *io = ioapic_for_gsi(gsi, &pin);
	unsigned long flags;

	if (!io)
		return -EINVAL;
	spin_lock_irqsave(&ioapic_lock, flags);
	ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin + 1, dest_apic_id << IOAPIC_RTE_DEST_SHIFT);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return 0;
}

static void ioapic_set_masked(u32 gsi, bool masked)
{
	unsigned int pin;
	struct ioapic *io = ioapic_for_gsi(gsi, &pin);
	unsigned long flags;
	u32 low;

	if (!io)
		return;
	spin_lock_irqsave(&ioapic_lock, flags);
	low = ioapic_read(io, IOAPIC_REG_REDTBL + 2 * pin);
	if (masked)
		low |= IOAPIC_RTE_MASKED;
	else
		low &= ~IOAPIC_RTE_MASKED;
	ioapic_write(io, IOAPIC_REG_REDTBL + 2 * pin, low);
	spin_unlock_irqrestore(&ioapic_lock, flags);
}

void ioapic_mask_gsi(u32 gsi)   { ioapic_set_masked(gsi, true); }
void ioapic_unmask_gsi(u32 gsi) { ioapic_set_masked(gsi, false); }
