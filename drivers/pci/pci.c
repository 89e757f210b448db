// SPDX-License-Identifier: MIT
/*
 * PCI: configuration space access, bus enumeration, BARs, capabilities
 * and interrupt set-up (MSI-X, MSI or INTx).  Interface: include/spindle/pci.h.
 *
 * Where it sits: drivers find their controller here and get from it port
 * numbers, mapped registers and an IRQ number; below, this file speaks to
 * the host bridge through two I/O ports and to the interrupt layer
 * (kernel/arch/x86/irq.c) for MSI messages and trigger modes.
 *
 * How a function is reached.  Each PCI function has 256 bytes of
 * configuration space (vendor, device, class, BARs, ...).  With
 * configuration mechanism #1 (PCI Local Bus Spec 3.0 §3.2.2.3.2) the CPU
 * writes the address it wants -- enable bit, bus, device, function,
 * dword register -- to CONFIG_ADDRESS (port 0xcf8), then reads or writes
 * the dword through CONFIG_DATA (ports 0xcfc..0xcff; a byte or word access
 * uses the matching port inside that window).  The two steps are not
 * atomic, so pci_config_lock covers the pair.
 *
 * Enumeration (pci_init, a subsys_initcall): for each of the 32 slots of
 * bus 0, probe function 0; a function that does not exist reads back
 * all-ones.  If its header says "multi-function", probe functions 1..7 as
 * well.  A PCI-to-PCI bridge leads to another bus, whose number firmware
 * (SeaBIOS) wrote in its Secondary Bus Number register: scan that bus too,
 * depth first.  Every function found becomes a struct pci_dev on
 * pci_devices, kept sorted by bus:devfn, which is the order lspci prints.
 *
 * Then the boot log gets an `lspci -nn` listing, followed by each
 * function's BARs, INTx routing and capabilities.  Strip the timestamps
 * (sed 's/^\[[^]]*\] //') and the listing diffs clean against `lspci -nn`
 * in a Linux guest of the same QEMU machine.
 *
 * Boot option: pci=nomsi (as Linux) makes pci_alloc_irq_vectors() use
 * INTx even where MSI or MSI-X is possible.
 *
 * Not supported: PCI Express extended configuration space (MMCONFIG; the
 * first 256 bytes are enough for every device QEMU gives us), expansion
 * ROMs, more than one MSI vector (MSI-X gives several), hot plug, and assigning BARs or
 * bus numbers: Spindle uses what firmware assigned.
 *
 * Context: configuration accessors do not sleep and may be called from an
 * interrupt handler; the rest runs at boot or from a driver's probe.
 */
#include <spindle/pci.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/spinlock.h>
#include <spindle/irq.h>
#include <asm/io.h>
#include "pci_names.h"

/* Configuration mechanism #1 (PCI 3.0 §3.2.2.3.2) */
#define PCI_CONF1_ADDRESS_PORT  0xcf8           /* CONFIG_ADDRESS, 32 bits */
#define PCI_CONF1_DATA_PORT     0xcfc           /* CONFIG_DATA, 4 bytes wide */
#define PCI_CONF1_ENABLE        0x80000000u     /* bit 31: Enable bit */
#define PCI_CONF1_BUS_SHIFT     16              /* bits 23:16: bus number */
#define PCI_CONF1_DEVFN_SHIFT   8               /* bits 15:8: device, function */
#define PCI_CONF1_REG_MASK      0xfc            /* bits 7:2: dword register */
#define PCI_CONF1_DATA_OFFSET   0x03            /* byte lane within the dword */
#define PCI_CONF1_ADDRESS(bus, devfn, where) \
	(PCI_CONF1_ENABLE | (u32)(bus) << PCI_CONF1_BUS_SHIFT | \
	 (u32)(devfn) << PCI_CONF1_DEVFN_SHIFT | ((where) & PCI_CONF1_REG_MASK))

#define PCI_SLOTS_PER_BUS       32
#define PCI_FUNCS_PER_SLOT      8
#define PCI_VENDOR_ID_NONE      0xffff  /* what a missing function reads */
#define PCI_BARS_BRIDGE         2       /* a type 1 header has BAR0..1 only */
#define PCI_CAP_PTR_RESERVED    0x03    /* low bits of a capability pointer */
#define PCI_LSPCI_LINE_MAX      160     /* longest lspci -nn line is ~140 */
/* Capabilities are dword-aligned and above the 64-byte header: at most 48
 * fit, so a walk of more hops than that has met a loop. */
#define PCI_FIND_CAP_TTL        ((PCI_CFG_SPACE_SIZE - PCI_STD_HEADER_SIZEOF) / 4)

LIST_HEAD(pci_devices);

static DEFINE_SPINLOCK(pci_config_lock);

/* Boot option pci=nomsi (Linux's): INTx only, e.g. to compare the two. */
static bool pci_msi_disabled;

/* ---- Configuration space ---------------------------------------------- */

/* One access of @size bytes; @where is aligned to @size. */
static u32 pci_conf1_read(u8 bus, u8 devfn, int where, int size)
{
	u16 port = PCI_CONF1_DATA_PORT + (where & PCI_CONF1_DATA_OFFSET);
	unsigned long flags;
	u32 val;

	spin_lock_irqsave(&pci_config_lock, flags);
	outl(PCI_CONF1_ADDRESS_PORT, PCI_CONF1_ADDRESS(bus, devfn, where));
	if (size == 1)
		val = inb(port);
	else if (size == 2)
		val = inw(port);
	else
		val = inl(port);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return val;
}

static void pci_conf1_write(u8 bus, u8 devfn, int where, int size, u32 val)
{
	u16 port = PCI_CONF1_DATA_PORT + (where & PCI_CONF1_DATA_OFFSET);
	unsigned long flags;

	spin_lock_irqsave(&pci_config_lock, flags);
	outl(PCI_CONF1_ADDRESS_PORT, PCI_CONF1_ADDRESS(bus, devfn, where));
	if (size == 1)
		outb(port, val);
	else if (size == 2)
		outw(port, val);
	else
		outl(port, val);
	spin_unlock_irqrestore(&pci_config_lock, flags);
}

/*
 * CONFIG_ADDRESS is a read/write register where mechanism #1 exists; with
 * nothing there the port floats and reads back all-ones.
 */
static bool pci_conf1_present(void)
{
	unsigned long flags;
	u32 saved, val;

	spin_lock_irqsave(&pci_config_lock, flags);
	saved = inl(PCI_CONF1_ADDRESS_PORT);
	outl(PCI_CONF1_ADDRESS_PORT, PCI_CONF1_ENABLE);
	val = inl(PCI_CONF1_ADDRESS_PORT);
	outl(PCI_CONF1_ADDRESS_PORT, saved);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return val == PCI_CONF1_ENABLE;
}

static bool pci_config_bad(const struct pci_dev *dev, int where, int size)
{
	return !dev || where < 0 || where > PCI_CFG_SPACE_SIZE - size ||
	       (where & (size - 1));
}

static int pci_read_config(const struct pci_dev *dev, int where, int size, u32 *val)
{
	if (pci_config_bad(dev, where, size)) {
		*val = ~0u;
		return -EINVAL;
	}
	*val = pci_conf1_read(dev->bus, dev->devfn, where, size);
	return 0;
}

static int pci_write_config(const struct pci_dev *dev, int where, int size, u32 val)
{
	if (pci_config_bad(dev, where, size))
		return -EINVAL;
	pci_conf1_write(dev->bus, dev->devfn, where, size, val);
	return 0;
}

int pci_read_config_byte(const struct pci_dev *dev, int where, u8 *val)
{
	u32 v;
	int err = pci_read_config(dev, where, 1, &v);

	*val = v;
	return err;
}

int pci_read_config_word(const struct pci_dev *dev, int where, u16 *val)
{
	u32 v;
	int err = pci_read_config(dev, where, 2, &v);

	*val = v;
	return err;
}

int pci_read_config_dword(const struct pci_dev *dev, int where, u32 *val)
{
	return pci_read_config(dev, where, 4, val);
}

int pci_write_config_byte(const struct pci_dev *dev, int where, u8 val)
{
	return pci_write_config(dev, where, 1, val);
}

int pci_write_config_word(const struct pci_dev *dev, int where, u16 val)
{
	return pci_write_config(dev, where, 2, val);
}

int pci_write_config_dword(const struct pci_dev *dev, int where, u32 val)
{
	return pci_write_config(dev, where, 4, val);
}

/* ---- Command register --------------------------------------------------- */

/* Clear then set bits of PCI_COMMAND; returns the value before. */
static u16 pci_command_update(struct pci_dev *dev, u16 clear, u16 set)
{
	u16 old;

	pci_read_config_word(dev, PCI_COMMAND, &old);
	if (((old & ~clear) | set) != old)
		pci_write_config_word(dev, PCI_COMMAND, (old & ~clear) | set);
	return old;
}

int pci_enable_device(struct pci_dev *dev)
{
	u16 want = 0, old;

	if (!dev)
		return -EINVAL;
	for (int i = 0; i < PCI_NUM_RESOURCES; i++) {
		if (!dev->resource[i].len)
			continue;
		want |= (dev->resource[i].flags & IORESOURCE_IO) ?
			PCI_COMMAND_IO : PCI_COMMAND_MEMORY;
	}
	/*
	 * An IDE controller in compatibility mode answers at the legacy ports
	 * (0x1f0, 0x3f6, 0x170, 0x376), which no BAR describes, and only
	 * while I/O decoding is on (PCI IDE Controller Spec 1.0 §2.1).
	 */
	if ((dev->class >> 8) == PCI_CLASS_STORAGE_IDE)
		want |= PCI_COMMAND_IO;

	old = pci_command_update(dev, 0, want);
	if ((old | want) != old)
		pr_info("pci %s: enabling device (%04x -> %04x)\n",
			pci_name(dev), old, old | want);
	return 0;
}

void pci_set_master(struct pci_dev *dev)
{
	pci_command_update(dev, 0, PCI_COMMAND_MASTER);
}

void pci_intx(struct pci_dev *dev, bool enable)
{
	if (enable)
		pci_command_update(dev, PCI_COMMAND_INTX_DISABLE, 0);
	else
		pci_command_update(dev, 0, PCI_COMMAND_INTX_DISABLE);
}

/* ---- Capabilities ------------------------------------------------------- */

/*
 * The capability after the one at @pos (the first when @pos is 0), or 0
 * at the end.  PCI 3.0 §6.7: Status bit 4 says a list exists; its head is
 * the pointer at 0x34 (0x14 in a CardBus header); each entry holds its ID
 * in byte 0 and the next pointer in byte 1; 0 ends the list.  The bottom
 * two bits of each pointer are reserved and must be masked off.  *ttl
 * bounds the walk, so that a looping list cannot hang the boot.
 */
static u8 pci_next_cap(struct pci_dev *dev, u8 pos, int *ttl)
{
	u16 status;
	u8 next;

	if (pos == 0) {
		pci_read_config_word(dev, PCI_STATUS, &status);
		if (!(status & PCI_STATUS_CAP_LIST))
			return 0;
		pci_read_config_byte(dev, dev->hdr_type == PCI_HEADER_TYPE_CARDBUS ?
				     PCI_CB_CAPABILITY_LIST : PCI_CAPABILITY_LIST, &next);
	} else {
		pci_read_config_byte(dev, pos + PCI_CAP_LIST_NEXT, &next);
	}
	next &= ~PCI_CAP_PTR_RESERVED;
	if (next < PCI_STD_HEADER_SIZEOF || (*ttl)-- <= 0)
		return 0;
	return next;
}

u8 pci_find_capability(struct pci_dev *dev, int cap)
{
	int ttl = PCI_FIND_CAP_TTL;
	u8 pos = 0, id;

	if (!dev)
		return 0;
	while ((pos = pci_next_cap(dev, pos, &ttl)) != 0) {
		pci_read_config_byte(dev, pos + PCI_CAP_LIST_ID, &id);
		if (id == cap)
			return pos;
	}
	return 0;
}

/* ---- BARs ------------------------------------------------------------------ */

/*
 * Read the BAR at config offset @reg, and in *mask what it reads after
 * all-ones is written: the address bits the device implements.  Then put
 * the original value back.
 */
static u32 pci_bar_probe(struct pci_dev *dev, int reg, u32 *mask)
{
	u32 orig;

	pci_read_config_dword(dev, reg, &orig);
	pci_write_config_dword(dev, reg, ~0u);
	pci_read_config_dword(dev, reg, mask);
	pci_write_config_dword(dev, reg, orig);
	return orig;
}

/*
 * Decode BAR @i into dev->resource[i].  Returns 1 when it was a 64-bit
 * BAR, whose upper half fills BAR i+1 (left empty), else 0.
 *
 * How big is a BAR?  A device decodes an aligned power-of-two block, so
 * it hardwires the address bits below its size to zero; after writing
 * all-ones, the lowest address bit that reads back as one *is* the size
 * (PCI 3.0 §6.2.5.1).  The low 2 (I/O) or 4 (memory) bits are not address
 * bits but the BAR's type, masked off first.  An I/O BAR may implement
 * only 16 address bits; the lowest set bit still gives the right size.
 */
static int pci_read_base(struct pci_dev *dev, int i, int nbars)
{
	struct resource *res = &dev->resource[i];
	int reg = PCI_BASE_ADDRESS_0 + 4 * i;
	u32 lo, lo_mask, hi, hi_mask;
	u64 base, mask;
	int extra = 0;

	lo = pci_bar_probe(dev, reg, &lo_mask);
	if (lo & PCI_BASE_ADDRESS_SPACE_IO) {
		res->flags = IORESOURCE_IO;
		base = lo & PCI_BASE_ADDRESS_IO_MASK;
		mask = lo_mask & PCI_BASE_ADDRESS_IO_MASK;
	} else {
		res->flags = IORESOURCE_MEM;
		if (lo & PCI_BASE_ADDRESS_MEM_PREFETCH)
			res->flags |= IORESOURCE_PREFETCH;
		base = lo & PCI_BASE_ADDRESS_MEM_MASK;
		mask = lo_mask & PCI_BASE_ADDRESS_MEM_MASK;
		if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64 &&
		    i + 1 < nbars) {
			hi = pci_bar_probe(dev, reg + 4, &hi_mask);
			base |= (u64)hi << 32;
			mask |= (u64)hi_mask << 32;
			res->flags |= IORESOURCE_MEM_64;
			extra = 1;
		}
	}
	if (!mask) {                    /* no such BAR: its mask reads as zero */
		memset(res, 0, sizeof(*res));
		return extra;
	}
	res->start = base;
	res->len = mask & -mask;        /* the lowest set bit */
	return extra;
}

static void pci_read_bases(struct pci_dev *dev)
{
	int nbars = 0;
	u16 cmd;
	/*
	 * Host bridges stay decoding, as in Linux (quirk_mmio_always_on):
	 * some decode main memory or the configuration ports themselves.
	 */
	bool keep_decoding = (dev->class >> 8) == PCI_CLASS_BRIDGE_HOST;

	if (dev->hdr_type == PCI_HEADER_TYPE_NORMAL)
		nbars = PCI_NUM_RESOURCES;
	else if (dev->hdr_type == PCI_HEADER_TYPE_BRIDGE)
		nbars = PCI_BARS_BRIDGE;
	if (!nbars)
		return;

	/*
	 * While a BAR holds all-ones the device would answer at a bogus
	 * address, perhaps on top of RAM or another device's registers:
	 * switch decoding off around the sizing.
	 */
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	if (!keep_decoding)
		pci_write_config_word(dev, PCI_COMMAND,
				      cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (int i = 0; i < nbars; i++)
		i += pci_read_base(dev, i, nbars);
	if (!keep_decoding)
		pci_write_config_word(dev, PCI_COMMAND, cmd);
}

void *pci_iomap(struct pci_dev *dev, int bar, unsigned long maxlen)
{
	u64 len = pci_resource_len(dev, bar);

	if (!len || !(pci_resource_flags(dev, bar) & IORESOURCE_MEM))
		return NULL;
	if (maxlen && maxlen < len)
		len = maxlen;
	return ioremap(pci_resource_start(dev, bar), len);
}

void pci_iounmap(struct pci_dev *dev, void *addr)
{
	(void)dev;
	if (addr)
		iounmap(addr);
}

/* ---- Interrupts ------------------------------------------------------------ */

/*
 * INTx's IRQ as firmware routed it: the Interrupt Line register, which
 * the device itself ignores (PCI 3.0 §6.2.4).  0 when the function has no
 * interrupt pin or firmware left "unknown / not connected" (255 on x86).
 */
static unsigned int pci_intx_irq(const struct pci_dev *dev)
{
	u8 line;

	if (!dev->irq_pin)
		return 0;
	pci_read_config_byte(dev, PCI_INTERRUPT_LINE, &line);
	return line == PCI_INTERRUPT_LINE_NONE ? 0 : line;
}

static int pci_intx_setup(struct pci_dev *dev)
{
	unsigned int irq = pci_intx_irq(dev);
	int err;

	if (!irq)
		return -ENOSPC;
	/* PCI interrupts are level-triggered and active low (PCI 3.0 §2.2.6),
	 * and shared: unlike an ISA edge, a level stays up until served. */
	err = irq_set_level_triggered(irq, true);
	if (err)
		return err;
	dev->irq = irq;
	return 0;
}

/*
 * Aim a live MSI elsewhere (Linux's pci_write_msi_msg()): the interrupt
 * layer calls it when the irq's affinity changes.  The vector stays, so
 * only the address's destination differs, and each register is one
 * config write: the device sends either the old message or the new one.
 */
static void pci_write_msi_msg(void *data_dev, u64 addr, u32 data)
{
	struct pci_dev *dev = data_dev;
	int pos = dev->msi_cap;
	u16 ctrl;

	pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
	pci_write_config_dword(dev, pos + PCI_MSI_ADDRESS_LO, (u32)addr);
	if (ctrl & PCI_MSI_FLAGS_64BIT) {
		pci_write_config_dword(dev, pos + PCI_MSI_ADDRESS_HI, addr >> 32);
		pci_write_config_word(dev, pos + PCI_MSI_DATA_64, (u16)data);
	} else {
		pci_write_config_word(dev, pos + PCI_MSI_DATA_32, (u16)data);
	}
}

/*
 * One MSI message (PCI 3.0 §6.8.1).  A message is a memory write of
 * Message Data to Message Address; on x86 the address selects a local
 * APIC and the data a vector, which the interrupt layer chooses.
 */
static int pci_msi_setup(struct pci_dev *dev)
{
	int pos = dev->msi_cap;
	u64 addr;
	u32 data;
	u16 ctrl;
	bool is64;
	int irq;

	irq = irq_alloc_msi(&addr, &data);
	if (irq < 0)
		return irq;
	pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
	is64 = ctrl & PCI_MSI_FLAGS_64BIT;
	if ((addr >> 32) && !is64) {
		irq_free_msi(irq);
		return -EINVAL;
	}

	/*
	 * MSI stays off while the message is written, so that the device can
	 * never send half of an old and half of a new one.  Multiple Message
	 * Enable = 0 asks for a single message (§6.8.1.3).
	 */
	ctrl &= ~(PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE);
	pci_write_config_word(dev, pos + PCI_MSI_FLAGS, ctrl);
	pci_write_config_dword(dev, pos + PCI_MSI_ADDRESS_LO, (u32)addr);
	/* Message Data is 16 bits wide (§6.8.1.5); x86 uses only 16. */
	if (is64) {
		pci_write_config_dword(dev, pos + PCI_MSI_ADDRESS_HI, addr >> 32);
		pci_write_config_word(dev, pos + PCI_MSI_DATA_64, (u16)data);
	} else {
		pci_write_config_word(dev, pos + PCI_MSI_DATA_32, (u16)data);
	}
	if (ctrl & PCI_MSI_FLAGS_MASKBIT) {
		int mask_reg = pos + (is64 ? PCI_MSI_MASK_64 : PCI_MSI_MASK_32);
		u32 mask;

		pci_read_config_dword(dev, mask_reg, &mask);
		pci_write_config_dword(dev, mask_reg, mask & ~1u); /* vector 0 */
	}
	/*
	 * A function must not use INTx# while MSI is on (§6.8); Interrupt
	 * Disable makes sure of it, as Linux does, so that a stray INTx#
	 * cannot reach an IRQ line nobody serves.
	 */
	pci_intx(dev, false);
	pci_write_config_word(dev, pos + PCI_MSI_FLAGS, ctrl | PCI_MSI_FLAGS_ENABLE);
	irq_set_msi_writer((unsigned int)irq, pci_write_msi_msg, dev);
	dev->irq = irq;
	dev->msi_enabled = true;
	return 0;
}

static void pci_msi_shutdown(struct pci_dev *dev)
{
	int pos = dev->msi_cap;
	u16 ctrl;

	pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
	pci_write_config_word(dev, pos + PCI_MSI_FLAGS, ctrl & ~PCI_MSI_FLAGS_ENABLE);
	pci_intx(dev, true);
	irq_free_msi(dev->irq);
	dev->msi_enabled = false;
}

/* Write one MSI-X table entry's message, the entry masked meanwhile: a
 * device may not be sent half of an old and half of a new message
 * (§6.8.2: changing an unmasked entry is undefined). */
static void pci_msix_write_entry(u8 *entry, u64 addr, u32 data)
{
	writel(PCI_MSIX_ENTRY_CTRL_MASKBIT, entry + PCI_MSIX_ENTRY_VECTOR_CTRL);
	writel((u32)addr, entry + PCI_MSIX_ENTRY_LOWER_ADDR);
	writel((u32)(addr >> 32), entry + PCI_MSIX_ENTRY_UPPER_ADDR);
	writel(data, entry + PCI_MSIX_ENTRY_DATA);
	writel(0, entry + PCI_MSIX_ENTRY_VECTOR_CTRL);
	(void)readl(entry + PCI_MSIX_ENTRY_VECTOR_CTRL);        /* flush */
}

/* The interrupt layer re-aims a live MSI-X irq (its affinity changed). */
static void pci_write_msix_msg(void *data_vec, u64 addr, u32 data)
{
	struct pci_msix_vec *vec = data_vec;

	pci_msix_write_entry(vec->entry, addr, data);
}

/* Mask entry @i and give its irq back. */
static void pci_msix_free_vec(struct pci_dev *dev, unsigned int i)
{
	struct pci_msix_vec *vec = &dev->msix_vecs[i];

	writel(PCI_MSIX_ENTRY_CTRL_MASKBIT, vec->entry + PCI_MSIX_ENTRY_VECTOR_CTRL);
	irq_free_msi(vec->irq);
	*vec = (struct pci_msix_vec){ 0 };
}

/*
 * MSI-X messages, table entries 0..nvec-1 (PCI 3.0 §6.8.2), each with an
 * irq of its own: between min_vecs and max_vecs of them, as many as the
 * table (Table Size), PCI_MAX_IRQ_VECS and the free irqs allow.  The
 * table is in memory space, in the BAR Table BIR names: map it, then
 * enable MSI-X with the Function Mask set, so nothing is sent while the
 * entries are written; the entries not used stay masked, as reset left
 * them.  Returns the number of vectors or -errno.
 */
static int pci_msix_setup(struct pci_dev *dev, unsigned int min_vecs, unsigned int max_vecs)
{
	int pos = dev->msix_cap;
	unsigned int nvec, i;
	u32 table, off;
	u16 ctrl;
	int bir;

	pci_read_config_word(dev, pos + PCI_MSIX_FLAGS, &ctrl);
	pci_read_config_dword(dev, pos + PCI_MSIX_TABLE, &table);
	nvec = min(max_vecs, min((unsigned int)(ctrl & PCI_MSIX_FLAGS_QSIZE) + 1,
				 (unsigned int)PCI_MAX_IRQ_VECS));
	if (nvec < min_vecs)
		return -ENOSPC;
	bir = table & PCI_MSIX_TABLE_BIR;
	off = table & PCI_MSIX_TABLE_OFFSET;
	if (bir >= PCI_NUM_RESOURCES ||
	    off + nvec * PCI_MSIX_ENTRY_SIZE > pci_resource_len(dev, bir)) {
		pr_warn("pci %s: MSI-X table at BAR %d + %#x is outside it\n",
			pci_name(dev), bir, off);
		return -EINVAL;
	}
	dev->msix_map = pci_iomap(dev, bir, off + nvec * PCI_MSIX_ENTRY_SIZE);
	if (!dev->msix_map)
		return -ENOMEM;
	pci_write_config_word(dev, pos + PCI_MSIX_FLAGS,
			      ctrl | PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	for (i = 0; i < nvec; i++) {
		struct pci_msix_vec *vec = &dev->msix_vecs[i];
		u64 addr;
		u32 data;
		int irq = irq_alloc_msi(&addr, &data);

		if (irq < 0)
			break;          /* out of irqs: fewer vectors, if enough */
		vec->dev = dev;
		vec->entry = (u8 *)dev->msix_map + off + i * PCI_MSIX_ENTRY_SIZE;
		vec->irq = (unsigned int)irq;
		pci_msix_write_entry(vec->entry, addr, data);
		irq_set_msi_writer(vec->irq, pci_write_msix_msg, vec);
	}
	if (i < min_vecs) {
		while (i--)
			pci_msix_free_vec(dev, i);
		pci_write_config_word(dev, pos + PCI_MSIX_FLAGS,
				      ctrl & ~(PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL));
		pci_iounmap(dev, dev->msix_map);
		dev->msix_map = NULL;
		return -ENOSPC;
	}
	pci_intx(dev, false);                   /* as for MSI (§6.8) */
	pci_write_config_word(dev, pos + PCI_MSIX_FLAGS,
			      (ctrl | PCI_MSIX_FLAGS_ENABLE) & ~PCI_MSIX_FLAGS_MASKALL);
	dev->irq = dev->msix_vecs[0].irq;
	dev->msix_enabled = true;
	return (int)i;
}

static void pci_msix_shutdown(struct pci_dev *dev)
{
	int pos = dev->msix_cap;
	u16 ctrl;

	for (unsigned int i = 0; i < dev->nr_irq_vecs; i++)
		pci_msix_free_vec(dev, i);
	pci_read_config_word(dev, pos + PCI_MSIX_FLAGS, &ctrl);
	pci_write_config_word(dev, pos + PCI_MSIX_FLAGS,
			      ctrl & ~(PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL));
	pci_intx(dev, true);
	pci_iounmap(dev, dev->msix_map);
	dev->msix_map = NULL;
	dev->msix_enabled = false;
}

int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min_vecs,
			  unsigned int max_vecs, unsigned int flags)
{
	int err = -ENOSPC;

	if (!dev || min_vecs < 1 || max_vecs < min_vecs)
		return -EINVAL;
	if (dev->nr_irq_vecs)           /* Linux warns and refuses too */
		return -EINVAL;

	if ((flags & PCI_IRQ_MSIX) && dev->msix_cap && !pci_msi_disabled) {
		err = pci_msix_setup(dev, min_vecs, max_vecs);
		if (err > 0) {
			dev->nr_irq_vecs = (u8)err;
			return err;
		}
	}
	if (min_vecs > 1)               /* MSI and INTx: one vector */
		return -ENOSPC;
	if ((flags & PCI_IRQ_MSI) && dev->msi_cap && !pci_msi_disabled) {
		err = pci_msi_setup(dev);
		if (!err)
			goto done;
	}
	if (flags & PCI_IRQ_LEGACY) {
		err = pci_intx_setup(dev);
		if (!err)
			goto done;
	}
	return err;
done:
	dev->nr_irq_vecs = 1;
	return 1;
}

int pci_irq_vector(struct pci_dev *dev, unsigned int nr)
{
	if (!dev || nr >= dev->nr_irq_vecs || !dev->irq)
		return -EINVAL;
	return dev->msix_enabled ? (int)dev->msix_vecs[nr].irq : (int)dev->irq;
}

void pci_free_irq_vectors(struct pci_dev *dev)
{
	if (!dev || !dev->nr_irq_vecs)
		return;
	if (dev->msi_enabled)
		pci_msi_shutdown(dev);
	if (dev->msix_enabled)
		pci_msix_shutdown(dev);
	dev->irq = pci_intx_irq(dev);
	dev->nr_irq_vecs = 0;
}

/* ---- Look-ups ---------------------------------------------------------------- */

/* The device after @from on pci_devices (the first if @from is NULL). */
static struct pci_dev *pci_next_dev(struct pci_dev *from)
{
	struct list_head *next = from ? from->global_list.next : pci_devices.next;

	return next == &pci_devices ? NULL :
		list_entry(next, struct pci_dev, global_list);
}

struct pci_dev *pci_get_device(unsigned int vendor, unsigned int device,
			       struct pci_dev *from)
{
	struct pci_dev *dev = from;

	while ((dev = pci_next_dev(dev)) != NULL)
		if ((vendor == PCI_ANY_ID || vendor == dev->vendor) &&
		    (device == PCI_ANY_ID || device == dev->device))
			return dev;
	return NULL;
}

struct pci_dev *pci_get_class(unsigned int class, struct pci_dev *from)
{
	struct pci_dev *dev = from;

	while ((dev = pci_next_dev(dev)) != NULL)
		if (dev->class == class)
			return dev;
	return NULL;
}

struct pci_dev *pci_get_domain_bus_and_slot(int domain, unsigned int bus,
					    unsigned int devfn)
{
	struct pci_dev *dev = NULL;

	if (domain != 0)                /* mechanism #1 reaches domain 0 only */
		return NULL;
	while ((dev = pci_next_dev(dev)) != NULL)
		if (dev->bus == bus && dev->devfn == devfn)
			return dev;
	return NULL;
}

/* ---- Enumeration ------------------------------------------------------------- */

/* Put @dev on pci_devices before the first device with a higher bus:devfn. */
static void pci_insert(struct pci_dev *dev)
{
	unsigned int key = dev->bus << 8 | dev->devfn;
	struct pci_dev *pos;

	list_for_each_entry(pos, &pci_devices, global_list)
		if ((unsigned int)(pos->bus << 8 | pos->devfn) > key)
			break;
	/* Without a break, &pos->global_list is the head: add at the end. */
	list_add_tail(&dev->global_list, &pos->global_list);
}

static int pci_scan_bus(u8 bus);

/* Describe the function at bus:devfn, known to exist; follow a bridge. */
static int pci_scan_function(u8 bus, u8 devfn)
{
	struct pci_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	u32 class_rev;
	u8 hdr, secondary;

	if (!dev)
		return -ENOMEM;
	dev->bus = bus;
	dev->devfn = devfn;
	snprintf(dev->name, sizeof(dev->name), "0000:%02x:%02x.%d",
		 bus, PCI_SLOT(devfn), PCI_FUNC(devfn));
	pci_read_config_word(dev, PCI_VENDOR_ID, &dev->vendor);
	pci_read_config_word(dev, PCI_DEVICE_ID, &dev->device);
	/* One dword: Revision ID in the low byte, the class code above it. */
	pci_read_config_dword(dev, PCI_REVISION_ID, &class_rev);
	dev->revision = (u8)class_rev;
	dev->class = class_rev >> 8;
	pci_read_config_byte(dev, PCI_HEADER_TYPE, &hdr);
	dev->hdr_type = hdr & PCI_HEADER_TYPE_MASK;
	dev->multifunction = hdr & PCI_HEADER_TYPE_MFD;
	pci_read_config_byte(dev, PCI_INTERRUPT_PIN, &dev->irq_pin);
	pci_read_config_byte(dev, PCI_INTERRUPT_LINE, &dev->irq_line);
	dev->irq = pci_intx_irq(dev);
	pci_read_bases(dev);
	dev->msi_cap = pci_find_capability(dev, PCI_CAP_ID_MSI);
	dev->msix_cap = pci_find_capability(dev, PCI_CAP_ID_MSIX);
	pci_insert(dev);

	if (dev->hdr_type != PCI_HEADER_TYPE_BRIDGE)
		return 0;
	/*
	 * Firmware numbers buses depth first, so a bridge's secondary bus is
	 * always above its own; requiring that also guarantees the recursion
	 * ends, even if a bridge was left unconfigured (secondary 0).
	 */
	pci_read_config_byte(dev, PCI_SECONDARY_BUS, &secondary);
	if (secondary <= bus) {
		pr_warn("pci %s: bridge to bus %02x not configured, not scanned\n",
			pci_name(dev), secondary);
		return 0;
	}
	return pci_scan_bus(secondary);
}

static u16 pci_probe_vendor(u8 bus, u8 devfn)
{
	return pci_conf1_read(bus, devfn, PCI_VENDOR_ID, 2);
}

static int pci_scan_bus(u8 bus)
{
	for (u8 slot = 0; slot < PCI_SLOTS_PER_BUS; slot++) {
		int nfuncs = 1;

		/*
		 * A missing function reads as all-ones, and 0xffff is no
		 * vendor's ID (PCI 3.0 §6.1).  Function 0 always exists in a
		 * device that exists.  Only a device whose header says
		 * "multi-function" is probed for functions 1..7: a simple one
		 * may ignore the function number and answer all eight with
		 * its own registers.
		 */
		if (pci_probe_vendor(bus, PCI_DEVFN(slot, 0)) == PCI_VENDOR_ID_NONE)
			continue;
		if (pci_conf1_read(bus, PCI_DEVFN(slot, 0), PCI_HEADER_TYPE, 1) &
		    PCI_HEADER_TYPE_MFD)
			nfuncs = PCI_FUNCS_PER_SLOT;

		for (int func = 0; func < nfuncs; func++) {
			u8 devfn = PCI_DEVFN(slot, func);
			int err;

			if (pci_probe_vendor(bus, devfn) == PCI_VENDOR_ID_NONE)
				continue;
			err = pci_scan_function(bus, devfn);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- Boot listing --------------------------------------------------------- */

/* BARs as Linux prints resources: "[io  0xc040-0xc05f]", "[mem ... pref]". */
static void pci_print_details(struct pci_dev *dev)
{
	int ttl = PCI_FIND_CAP_TTL;
	u8 pos = 0, id;

	for (int i = 0; i < PCI_NUM_RESOURCES; i++) {
		const struct resource *res = &dev->resource[i];
		unsigned long long start = res->start, end = res->start + res->len - 1;

		if (!res->len)
			continue;
		if (res->flags & IORESOURCE_IO)
			pr_info("pci %s: BAR %d [io  0x%04llx-0x%04llx]\n",
				pci_name(dev), i, start, end);
		else
			pr_info("pci %s: BAR %d [mem 0x%08llx-0x%08llx%s%s]\n",
				pci_name(dev), i, start, end,
				res->flags & IORESOURCE_MEM_64 ? " 64bit" : "",
				res->flags & IORESOURCE_PREFETCH ? " pref" : "");
	}
	if (dev->irq_pin && dev->irq)
		pr_info("pci %s: INT%c# -> IRQ %u\n", pci_name(dev),
			'A' + dev->irq_pin - 1, dev->irq);
	else if (dev->irq_pin)
		pr_info("pci %s: INT%c# not routed\n", pci_name(dev),
			'A' + dev->irq_pin - 1);
	while ((pos = pci_next_cap(dev, pos, &ttl)) != 0) {
		const char *name;

		pci_read_config_byte(dev, pos + PCI_CAP_LIST_ID, &id);
		name = pci_cap_name(id);
		if (name)
			pr_info("pci %s: Capabilities: [%02x] %s\n",
				pci_name(dev), pos, name);
		else
			pr_info("pci %s: Capabilities: [%02x] #%02x\n",
				pci_name(dev), pos, id);
	}
}

static void pci_print_devices(void)
{
	struct pci_dev *dev;
	char line[PCI_LSPCI_LINE_MAX];
	int n = 0;

	/* First the lspci -nn block, uninterrupted, so that it diffs cleanly. */
	list_for_each_entry(dev, &pci_devices, global_list) {
		pci_format_lspci(dev, line, sizeof(line));
		pr_info("%s\n", line);
		n++;
	}
	list_for_each_entry(dev, &pci_devices, global_list)
		pci_print_details(dev);
	pr_info("pci: %d functions found%s\n", n,
		pci_msi_disabled ? " (pci=nomsi: MSI not used)" : "");
}

static int pci_setup(const char *val)
{
	if (strcmp(val, "nomsi") == 0) {
		pci_msi_disabled = true;
		return 0;
	}
	return -EINVAL;
}
__setup("pci=", pci_setup);

static int __init pci_init(void)
{
	int err;

	if (!pci_conf1_present()) {
		pr_warn("pci: no configuration mechanism #1, no PCI\n");
		return -ENODEV;
	}
	err = pci_scan_bus(0);
	pci_print_devices();            /* what was found, even on error */
	return err;
}
subsys_initcall(pci_init);
