/* SPDX-License-Identifier: MIT */
/*
 * Port I/O and memory-mapped I/O accessors for x86.
 *
 * Port I/O (in/out instructions) reaches legacy ISA devices: the 16550
 * UART, the PIT, the IDE task file, PCI configuration mechanism #1.
 * MMIO accessors (readl/writel) reach registers mapped with ioremap();
 * the volatile access keeps the compiler from merging or reordering them,
 * and x86 keeps uncached accesses in program order.
 */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <spindle/types.h>

static inline void outb(u16 port, u8 v)  { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }

static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* String forms, used for PIO data transfers (e.g. 256 words per sector). */
static inline void insw(u16 port, void *buf, unsigned long count)
{
	__asm__ volatile("rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsw(u16 port, const void *buf, unsigned long count)
{
	__asm__ volatile("rep outsw" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void insb(u16 port, void *buf, unsigned long count)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

/* About 1 us: a write to the unused port 0x80 (POST code port). */
static inline void io_delay(void) { outb(0x80, 0); }

static inline u32 readl(const volatile void *a) { return *(const volatile u32 *)a; }
static inline void writel(u32 v, volatile void *a) { *(volatile u32 *)a = v; }

/* Map device registers uncached into the ioremap space (kernel/arch/x86/paging.c).
 * Returns NULL when out of page-table memory. */
void *ioremap(phys_addr_t phys, size_t size);
void iounmap(void *addr);

#endif /* ASM_IO_H */
