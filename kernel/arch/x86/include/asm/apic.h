/* SPDX-License-Identifier: MIT */
/*
 * The interrupt controllers (kernel/arch/x86/apic.c) and the vector layout.
 *
 * How an interrupt reaches the CPU on a PC since the late 1990s:
 *
 *   device --INTx wire--> IOAPIC input (a GSI) --message--> local APIC --> CPU
 *   device --MSI: a memory write to 0xfee?????------------> local APIC --> CPU
 *
 * The IOAPIC turns each input into a message carrying a vector, according
 * to the input's redirection table entry (vector, edge/level, polarity,
 * mask, destination).  The local APIC queues vectors by priority, hands
 * them to the CPU and needs an EOI write when the handler is done.  The
 * 8259 PICs of the original PC are still there but are masked for good.
 *
 * Vectors (one CPU, so one flat table):
 *   0x00-0x1f  CPU exceptions
 *   0x20-0xef  irq n is vector 0x20 + n: ISA IRQs 0-15, then the other
 *              GSIs, then MSI irqs from 48 (include/spindle/irq.h)
 *   0xf0-0xff  the local APIC's own: its timer (0xf0: each CPU's tick
 *              but CPU 0's), call-function IPI (0xfc), error,
 *              spurious (unused ones reserved)
 *
 * Interface, for irq.c (drivers use include/spindle/irq.h instead):
 *   i8259_remap_and_mask()            silence the legacy PICs
 *   lapic_init(phys)                  map and enable the local APIC
 *   apic_eoi()                        end of interrupt, after servicing it
 *   read_apic_id()                    this CPU's APIC ID (MSI destination)
 *   apic_send_IPI_self(vector)        raise a vector on this CPU (tests,
 *                                     replaying an interrupt)
 *   apic_send_IPI(apicid, vector)     raise a vector on another CPU
 *   apic_send_NMI(apicid)             an NMI to another CPU
 *   apic_show_state()                 print this CPU's ISR, IRR, priorities
 *   lapic_timer_calibrate/_start()    the local APIC timer as a tick
 *   ioapic_register(id, phys, base)   map an IOAPIC, mask all its inputs;
 *                                     returns its number of inputs or -errno
 *   ioapic_setup_gsi(...)             program one input (left masked)
 *   ioapic_set_dest(gsi, apic_id)     send a live input to another CPU
 *   ioapic_mask_gsi/ioapic_unmask_gsi
 *   ioapic_gsi_valid(gsi)             some IOAPIC has this input
 * None of these sleep, and all may be called with interrupts on or off:
 * those that select a register and then access it turn interrupts off
 * in between themselves.
 */
#ifndef ASM_APIC_H
#define ASM_APIC_H

#include <spindle/types.h>
#include <asm/traps.h>

/* The vector layout. */
#define IRQ0_VECTOR             FIRST_EXTERNAL_VECTOR
#define FIRST_SYSTEM_VECTOR     0xf0    /* irq vectors end below this */
#define LOCAL_TIMER_VECTOR      0xf0    /* this CPU's local APIC timer: its tick */
#define CALL_FUNCTION_VECTOR    0xfc    /* IPI: run the functions queued for me (kernel/smp.c) */
#define RESCHEDULE_VECTOR       0xfd    /* IPI: pick a task again (kernel/sched/core.c) */
#define ERROR_APIC_VECTOR       0xfe
#define SPURIOUS_APIC_VECTOR    0xff

/* MSI message format (Intel SDM vol. 3A, "Message Signalled Interrupts").
 * Address: 0xfee, then the destination APIC ID in bits 19:12; physical
 * destination mode, no redirection hint (bits 3, 2 clear).  Data: the
 * vector, fixed delivery (bits 10:8 = 0), edge trigger (bit 15 clear). */
#define MSI_ADDR_BASE           0xfee00000u
#define MSI_ADDR_DEST_ID_SHIFT  12
#define MSI_DATA_VECTOR_MASK    0xffu
#define MSI_DATA_DELIVERY_FIXED (0u << 8)
#define MSI_DATA_TRIGGER_EDGE   (0u << 15)

void i8259_remap_and_mask(void);

void lapic_init(phys_addr_t phys);
/* this CPU's local APIC enabled and its vectors set (each CPU its own) */
void lapic_setup(void);
/* INIT, then two STARTUP IPIs at page start_page (smpboot.c) */
void wakeup_secondary_cpu_via_init(u32 apicid, u8 start_page);
void apic_eoi(void);
u32 read_apic_id(void);
void apic_send_IPI_self(u8 vector);
/* vector to the CPU with this local APIC id */
void apic_send_IPI(u32 apicid, u8 vector);
/* an NMI to it */
void apic_send_NMI(u32 apicid);
void apic_show_state(void);
/* the local APIC timer: measured once (boot CPU), started on each CPU */
void lapic_timer_calibrate(void);
void lapic_timer_start(void);
/* Read and clear the error status register (after an error interrupt). */
u32 apic_read_esr(void);

int ioapic_register(u8 id, phys_addr_t phys, u32 gsi_base);
int ioapic_setup_gsi(u32 gsi, u8 vector, bool level, bool active_low, u32 dest_apic_id);
int ioapic_set_dest(u32 gsi, u32 dest_apic_id);
void ioapic_mask_gsi(u32 gsi);
void ioapic_unmask_gsi(u32 gsi);
bool ioapic_gsi_valid(u32 gsi);

#endif /* ASM_APIC_H */
