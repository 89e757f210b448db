// SPDX-License-Identifier: MIT
/*
 * PCI tests (suite "pci"): enumeration, configuration space access, BAR
 * decoding, capabilities and MSI, checked against what QEMU's machines
 * are known to contain.
 *
 * The machine is recognised by its host bridge at 00:00.0 (i440FX: pc,
 * Q35 MCH: q35); the table pci_test_machines[] says what each one must
 * hold: where its disk controller sits, its class, the BAR to check and
 * whether it has MSI.  Most cases then run the same code on either
 * machine; on an unknown machine they SKIP.
 *
 * Cases that change the controller's configuration (Interrupt Line, MSI)
 * put it back before asserting, and leave alone a controller whose driver
 * already holds its interrupt vectors.
 *
 * Core: host_bridge, list_sorted, multifunction, controller, bars_consistent,
 *       config_widths, config_roundtrip, capabilities, ahci_iomap,
 *       msi_alloc_free, msix_alloc_free, intx_alloc_free, lspci_format.
 * Limits: config_bad_offset, resource_out_of_range, irq_vectors_bad_args.
 */
#include <spindle/ktest.h>
#include <spindle/pci.h>
#include <spindle/init.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <asm/io.h>
#include "../../drivers/pci/pci_names.h"

/*
 * x86 MSI addresses lie in 0xfee00000..0xfeefffff: bits 31:20 = 0xfee
 * (Intel SDM vol. 3, "Message Address Register Format").  The low byte of
 * the data is the vector; 0..31 are CPU exceptions, never an interrupt.
 */
#define X86_MSI_ADDR_MASK       0xfff00000u
#define X86_MSI_ADDR_BASE       0xfee00000u
#define X86_MSI_DATA_VECTOR     0xffu
#define FIRST_EXTERNAL_VECTOR   0x20

/* AHCI 1.3.1 §3.1.10: VS, the version register, major version in 31:16 */
#define AHCI_VS                 0x10
#define AHCI_VS_MAJOR_SHIFT     16

struct pci_test_machine {
	const char *name;
	u16 host_device;                /* Intel, at 00:00.0 */
	/* a multi-function device every boot has, and the functions it shows */
	u8 mfd_slot;
	u8 mfd_funcs;                   /* bit f set: function f must exist */
	/* the disk controller the machine is built with */
	u16 ctrl_device;                /* Intel */
	u8 ctrl_devfn;
	u32 ctrl_class, ctrl_class_mask;
	int ctrl_bar;                   /* a BAR whose kind and size are fixed */
	unsigned long ctrl_bar_type;    /* IORESOURCE_IO or IORESOURCE_MEM */
	u64 ctrl_bar_len;
	bool ctrl_has_msi;
	const char *ctrl_lspci;         /* its `lspci -nn` line */
};

static const struct pci_test_machine pci_test_machines[] = {
	{
		.name = "pc",
		.host_device = PCI_DEVICE_ID_INTEL_82441,
		.mfd_slot = 1,                  /* PIIX3: ISA, IDE, ACPI */
		.mfd_funcs = 1 << 0 | 1 << 1 | 1 << 3,
		.ctrl_device = PCI_DEVICE_ID_INTEL_82371SB_1,
		.ctrl_devfn = PCI_DEVFN(1, 1),
		.ctrl_class = PCI_CLASS_STORAGE_IDE << 8,
		.ctrl_class_mask = 0xffff00,    /* any prog-if */
		.ctrl_bar = 4,                  /* bus-master IDE registers */
		.ctrl_bar_type = IORESOURCE_IO,
		.ctrl_bar_len = 16,
		.ctrl_has_msi = false,
		.ctrl_lspci = "00:01.1 IDE interface [0101]: Intel Corporation "
			"82371SB PIIX3 IDE [Natoma/Triton II] [8086:7010]",
	},
	{
		.name = "q35",
		.host_device = PCI_DEVICE_ID_INTEL_G33_HB,
		.mfd_slot = 0x1f,               /* ICH9: LPC, AHCI, SMBus */
		.mfd_funcs = 1 << 0 | 1 << 2 | 1 << 3,
		.ctrl_device = PCI_DEVICE_ID_INTEL_ICH9_AHCI,
		.ctrl_devfn = PCI_DEVFN(0x1f, 2),
		.ctrl_class = PCI_CLASS_STORAGE_SATA_AHCI,
		.ctrl_class_mask = 0xffffff,
		.ctrl_bar = 5,                  /* ABAR: the HBA's registers */
		.ctrl_bar_type = IORESOURCE_MEM,
		.ctrl_bar_len = 0x1000,
		.ctrl_has_msi = true,
		.ctrl_lspci = "00:1f.2 SATA controller [0106]: Intel Corporation "
			"82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode] "
			"[8086:2922] (rev 02)",
	},
};

static struct pci_dev *pci_test_host(void)
{
	return pci_get_domain_bus_and_slot(0, 0, PCI_DEVFN(0, 0));
}

static const struct pci_test_machine *pci_test_machine(void)
{
	struct pci_dev *host = pci_test_host();

	if (!host || host->vendor != PCI_VENDOR_ID_INTEL)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(pci_test_machines); i++)
		if (pci_test_machines[i].host_device == host->device)
			return &pci_test_machines[i];
	return NULL;
}

/* Set m to this machine's row, or skip the case. */
#define PCI_TEST_MACHINE(m) do { \
	(m) = pci_test_machine(); \
	if (!(m)) { \
		struct pci_dev *__h = pci_test_host(); \
		KT_SKIP("host bridge %04x:%04x: neither pc (8086:1237) nor q35 (8086:29c0)", \
			__h ? __h->vendor : 0xffff, __h ? __h->device : 0xffff); \
	} \
} while (0)

static struct pci_dev *pci_test_controller(const struct pci_test_machine *m)
{
	return pci_get_domain_bus_and_slot(0, 0, m->ctrl_devfn);
}

/* ---- Core ------------------------------------------------------------------- */

KTEST(pci, host_bridge)
{
	const struct pci_test_machine *m;
	struct pci_dev *host;

	PCI_TEST_MACHINE(m);
	host = pci_test_host();
	KT_ASSERT_MSG(host->class >> 8 == PCI_CLASS_BRIDGE_HOST,
		      "%s: class %06x", m->name, host->class);
	KT_ASSERT(host->hdr_type == PCI_HEADER_TYPE_NORMAL);
	KT_ASSERT(strcmp(pci_name(host), "0000:00:00.0") == 0);
}

KTEST(pci, list_sorted)
{
	struct pci_dev *dev, *prev = NULL;
	int walked = 0, listed = 0;

	list_for_each_entry(dev, &pci_devices, global_list)
		listed++;
	KT_ASSERT_MSG(listed > 0, "no PCI function found");
	dev = NULL;
	for_each_pci_dev(dev) {
		KT_ASSERT_MSG(dev->vendor != 0xffff && dev->vendor != 0,
			      "%s: vendor %04x", pci_name(dev), dev->vendor);
		if (prev)
			KT_ASSERT_MSG((prev->bus << 8 | prev->devfn) < (dev->bus << 8 | dev->devfn),
				      "%s listed after %s", pci_name(dev), pci_name(prev));
		prev = dev;
		walked++;
	}
	KT_ASSERT_MSG(walked == listed, "for_each_pci_dev saw %d of %d", walked, listed);
	/* pci_get_class() compares all 24 bits */
	dev = pci_test_host();
	KT_ASSERT(dev != NULL);
	KT_ASSERT(pci_get_class(dev->class, NULL) == dev);
	KT_ASSERT(pci_get_class(0xabcdef, NULL) == NULL);
}

KTEST(pci, multifunction)
{
	const struct pci_test_machine *m;

	PCI_TEST_MACHINE(m);
	for (int f = 0; f < 8; f++) {
		struct pci_dev *dev = pci_get_domain_bus_and_slot(0, 0, PCI_DEVFN(m->mfd_slot, f));

		if (m->mfd_funcs & (1 << f)) {
			KT_ASSERT_MSG(dev != NULL, "%s: 00:%02x.%d missing",
				      m->name, m->mfd_slot, f);
			KT_ASSERT(dev->vendor == PCI_VENDOR_ID_INTEL);
		}
	}
	KT_ASSERT(pci_get_domain_bus_and_slot(0, 0, PCI_DEVFN(m->mfd_slot, 0))->multifunction);
}

KTEST(pci, controller)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	int bar;

	PCI_TEST_MACHINE(m);
	dev = pci_get_device(PCI_VENDOR_ID_INTEL, m->ctrl_device, NULL);
	KT_ASSERT_MSG(dev != NULL, "%s: 8086:%04x not found", m->name, m->ctrl_device);
	/* -device piix3-ide or ahci may add a second one: find the built-in */
	while (dev && dev->devfn != m->ctrl_devfn)
		dev = pci_get_device(PCI_VENDOR_ID_INTEL, m->ctrl_device, dev);
	KT_ASSERT_MSG(dev != NULL && dev->bus == 0, "%s: 8086:%04x not at 00:%02x.%d",
		      m->name, m->ctrl_device, PCI_SLOT(m->ctrl_devfn), PCI_FUNC(m->ctrl_devfn));
	KT_ASSERT(dev == pci_test_controller(m));
	KT_ASSERT_MSG((dev->class & m->ctrl_class_mask) == m->ctrl_class,
		      "class %06x, want %06x", dev->class, m->ctrl_class);
	bar = m->ctrl_bar;
	KT_ASSERT_MSG(pci_resource_flags(dev, bar) & m->ctrl_bar_type,
		      "BAR %d flags %#lx", bar, pci_resource_flags(dev, bar));
	KT_ASSERT_MSG(pci_resource_len(dev, bar) == m->ctrl_bar_len,
		      "BAR %d is %llu bytes, want %llu", bar,
		      (unsigned long long)pci_resource_len(dev, bar),
		      (unsigned long long)m->ctrl_bar_len);
	KT_ASSERT_MSG(pci_resource_start(dev, bar) != 0, "BAR %d unassigned", bar);
}

/*
 * Every decoded BAR must agree with the register it came from (sizing put
 * the original back) and be a naturally aligned power of two (§6.2.5.1).
 */
KTEST(pci, bars_consistent)
{
	struct pci_dev *dev = NULL;

	for_each_pci_dev(dev) {
		for (int i = 0; i < PCI_NUM_RESOURCES; i++) {
			const struct resource *res = &dev->resource[i];
			u32 reg, base;

			if (!res->len)
				continue;
			KT_ASSERT(pci_read_config_dword(dev, PCI_BASE_ADDRESS_0 + 4 * i, &reg) == 0);
			base = (res->flags & IORESOURCE_IO) ? reg & PCI_BASE_ADDRESS_IO_MASK
							    : reg & PCI_BASE_ADDRESS_MEM_MASK;
			KT_ASSERT_MSG(base == (u32)res->start, "%s BAR %d: register %08x, start %llx",
				      pci_name(dev), i, reg, (unsigned long long)res->start);
			KT_ASSERT_MSG(is_power_of_2(res->len) && IS_ALIGNED(res->start, res->len),
				      "%s BAR %d: %llx bytes at %llx", pci_name(dev), i,
				      (unsigned long long)res->len, (unsigned long long)res->start);
		}
	}
}

/*
 * A byte or word goes through its own port of the CONFIG_DATA window:
 * all widths must see the same bytes.
 */
KTEST(pci, config_widths)
{
	struct pci_dev *dev = pci_test_host();
	u32 id, class_rev;
	u16 vendor, device, class_device;
	u8 prog, hdr;

	if (!dev)
		KT_SKIP("no function at 00:00.0");
	KT_ASSERT(pci_read_config_dword(dev, PCI_VENDOR_ID, &id) == 0);
	KT_ASSERT(pci_read_config_word(dev, PCI_VENDOR_ID, &vendor) == 0);
	KT_ASSERT(pci_read_config_word(dev, PCI_DEVICE_ID, &device) == 0);
	KT_ASSERT_MSG(id == ((u32)device << 16 | vendor), "%08x vs %04x:%04x", id, vendor, device);
	KT_ASSERT(vendor == dev->vendor && device == dev->device);

	KT_ASSERT(pci_read_config_dword(dev, PCI_REVISION_ID, &class_rev) == 0);
	KT_ASSERT(pci_read_config_byte(dev, PCI_CLASS_PROG, &prog) == 0);
	KT_ASSERT(pci_read_config_word(dev, PCI_CLASS_DEVICE, &class_device) == 0);
	KT_ASSERT(prog == ((class_rev >> 8) & 0xff));
	KT_ASSERT(class_device == class_rev >> 16);
	KT_ASSERT(pci_read_config_byte(dev, PCI_HEADER_TYPE, &hdr) == 0);
	KT_ASSERT((hdr & PCI_HEADER_TYPE_MASK) == dev->hdr_type);
}

/* Interrupt Line is software's scratch byte: the device ignores it (§6.2.4). */
KTEST(pci, config_roundtrip)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	u8 orig, seen, restored;
	const u8 flip = 0x5a;

	PCI_TEST_MACHINE(m);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	KT_ASSERT(pci_read_config_byte(dev, PCI_INTERRUPT_LINE, &orig) == 0);
	KT_ASSERT(pci_write_config_byte(dev, PCI_INTERRUPT_LINE, orig ^ flip) == 0);
	pci_read_config_byte(dev, PCI_INTERRUPT_LINE, &seen);
	pci_write_config_byte(dev, PCI_INTERRUPT_LINE, orig);
	pci_read_config_byte(dev, PCI_INTERRUPT_LINE, &restored);
	KT_ASSERT_MSG(seen == (u8)(orig ^ flip), "wrote %02x, read %02x", orig ^ flip, seen);
	KT_ASSERT_MSG(restored == orig, "restored %02x, read %02x", orig, restored);
	KT_ASSERT(orig == dev->irq_line);
}

KTEST(pci, capabilities)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	u8 pos, id;

	PCI_TEST_MACHINE(m);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	pos = pci_find_capability(dev, PCI_CAP_ID_MSI);
	KT_ASSERT_MSG(pos == dev->msi_cap, "found %02x, enumeration %02x", pos, dev->msi_cap);
	if (!m->ctrl_has_msi) {
		KT_ASSERT_MSG(pos == 0, "%s: unexpected MSI capability at %02x", m->name, pos);
		return;
	}
	KT_ASSERT_MSG(pos >= PCI_STD_HEADER_SIZEOF && (pos & 3) == 0, "MSI at %02x", pos);
	KT_ASSERT(pci_read_config_byte(dev, pos + PCI_CAP_LIST_ID, &id) == 0);
	KT_ASSERT(id == PCI_CAP_ID_MSI);
	KT_ASSERT(pci_find_capability(dev, 0x00) == 0);     /* an ID nobody has */
}

KTEST(pci, ahci_iomap)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	void *abar;
	u32 vs;

	PCI_TEST_MACHINE(m);
	if (m->ctrl_bar_type != IORESOURCE_MEM)
		KT_SKIP("%s: the controller's BAR %d is I/O, nothing to map", m->name, m->ctrl_bar);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	KT_ASSERT(pci_enable_device(dev) == 0);
	abar = pci_iomap(dev, m->ctrl_bar, 0);
	KT_ASSERT(abar != NULL);
	vs = readl((u8 *)abar + AHCI_VS);
	pci_iounmap(dev, abar);
	KT_ASSERT_MSG(vs != 0xffffffff && vs >> AHCI_VS_MAJOR_SHIFT >= 1,
		      "AHCI VS reads %08x", vs);
}

KTEST(pci, msi_alloc_free)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	unsigned int irq_before;
	u32 addr_lo;
	u16 ctrl, data, cmd;
	int pos, n, vec;
	bool is64;
	char opt[16];

	PCI_TEST_MACHINE(m);
	if (!m->ctrl_has_msi)
		KT_SKIP("%s: the disk controller has no MSI capability", m->name);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL && dev->msi_cap);
	pos = dev->msi_cap;

	if (dev->nr_irq_vecs) {
		/* A driver holds the vectors: a second allocation is refused,
		 * and its MSI (if that is what it got) is checked in place. */
		KT_ASSERT(pci_alloc_irq_vectors(dev, 1, 1, PCI_IRQ_MSI) == -EINVAL);
		if (!dev->msi_enabled)
			KT_SKIP("the driver got INTx, not MSI");
		pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
		pci_read_config_dword(dev, pos + PCI_MSI_ADDRESS_LO, &addr_lo);
		KT_ASSERT(ctrl & PCI_MSI_FLAGS_ENABLE);
		KT_ASSERT_MSG((addr_lo & X86_MSI_ADDR_MASK) == X86_MSI_ADDR_BASE,
			      "address %08x", addr_lo);
		return;
	}
	if (cmdline_get("pci", opt, sizeof(opt)) && strcmp(opt, "nomsi") == 0)
		KT_SKIP("booted with pci=nomsi");

	irq_before = dev->irq;
	n = pci_alloc_irq_vectors(dev, 1, 1, PCI_IRQ_MSI);
	KT_ASSERT_MSG(n == 1, "pci_alloc_irq_vectors returned %d", n);
	/* Read back what was programmed, then undo it before judging. */
	vec = pci_irq_vector(dev, 0);
	pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
	is64 = ctrl & PCI_MSI_FLAGS_64BIT;
	pci_read_config_dword(dev, pos + PCI_MSI_ADDRESS_LO, &addr_lo);
	pci_read_config_word(dev, pos + (is64 ? PCI_MSI_DATA_64 : PCI_MSI_DATA_32), &data);
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	KT_ASSERT(dev->msi_enabled);
	pci_free_irq_vectors(dev);

	KT_ASSERT_MSG(vec > 0 && (unsigned int)vec != irq_before, "MSI irq %d", vec);
	KT_ASSERT_MSG(ctrl & PCI_MSI_FLAGS_ENABLE, "Message Control %04x", ctrl);
	KT_ASSERT_MSG((ctrl & PCI_MSI_FLAGS_QSIZE) == 0, "more than one message: %04x", ctrl);
	KT_ASSERT_MSG((addr_lo & X86_MSI_ADDR_MASK) == X86_MSI_ADDR_BASE, "address %08x", addr_lo);
	KT_ASSERT_MSG((data & X86_MSI_DATA_VECTOR) >= FIRST_EXTERNAL_VECTOR, "data %04x", data);
	KT_ASSERT_MSG(cmd & PCI_COMMAND_INTX_DISABLE, "INTx still on: command %04x", cmd);

	/* and pci_free_irq_vectors() put everything back */
	pci_read_config_word(dev, pos + PCI_MSI_FLAGS, &ctrl);
	pci_read_config_word(dev, PCI_COMMAND, &cmd);
	KT_ASSERT_MSG(!(ctrl & PCI_MSI_FLAGS_ENABLE), "MSI still on: %04x", ctrl);
	KT_ASSERT_MSG(!(cmd & PCI_COMMAND_INTX_DISABLE), "INTx still off: %04x", cmd);
	KT_ASSERT(!dev->msi_enabled && dev->nr_irq_vecs == 0);
	KT_ASSERT_MSG(dev->irq == irq_before, "irq %u, was %u", dev->irq, irq_before);
}

/*
 * MSI-X entry 0 and Message Control of @dev, read through a mapping of
 * its own (the table is in a memory BAR).  0, or -ENOMEM.
 */
/* Message Control, and table entry @entry's address, data and control. */
static int msix_read_entry(struct pci_dev *dev, unsigned int entry, u16 *ctrl,
			   u32 *addr_lo, u32 *data, u32 *vctrl)
{
	u32 table, off;
	u8 *map;

	pci_read_config_word(dev, dev->msix_cap + PCI_MSIX_FLAGS, ctrl);
	pci_read_config_dword(dev, dev->msix_cap + PCI_MSIX_TABLE, &table);
	off = (table & PCI_MSIX_TABLE_OFFSET) + entry * PCI_MSIX_ENTRY_SIZE;
	map = pci_iomap(dev, table & PCI_MSIX_TABLE_BIR, off + PCI_MSIX_ENTRY_SIZE);
	if (!map)
		return -ENOMEM;
	*addr_lo = readl(map + off + PCI_MSIX_ENTRY_LOWER_ADDR);
	*data = readl(map + off + PCI_MSIX_ENTRY_DATA);
	*vctrl = readl(map + off + PCI_MSIX_ENTRY_VECTOR_CTRL);
	pci_iounmap(dev, map);
	return 0;
}

static int msix_read(struct pci_dev *dev, u16 *ctrl, u32 *addr_lo, u32 *data, u32 *vctrl)
{
	return msix_read_entry(dev, 0, ctrl, addr_lo, data, vctrl);
}

/*
 * MSI-X on every function that has it: one its driver holds (the NVMe
 * controller, a vector per queue) is checked in place, every entry it
 * holds unmasked with its own irq's vector; one nobody drives (e.g. qemu -device
 * virtio-rng-pci) is given a vector and has it taken back, and each step
 * is read back from the capability and the table in its BAR.
 */
KTEST(pci, msix_alloc_free)
{
	struct pci_dev *dev = NULL;
	unsigned int seen = 0;
	char opt[16];
	bool nomsi = cmdline_get("pci", opt, sizeof(opt)) && strcmp(opt, "nomsi") == 0;

	for_each_pci_dev(dev) {
		unsigned int irq_before = dev->irq;
		u32 addr_lo, data, vctrl;
		u16 ctrl, cmd;
		int n, vec;

		if (!dev->msix_cap)
			continue;
		seen++;
		if (dev->nr_irq_vecs) {
			if (!dev->msix_enabled)
				continue;       /* its driver got MSI or INTx */
			KT_ASSERT(msix_read(dev, &ctrl, &addr_lo, &data, &vctrl) == 0);
			KT_ASSERT_MSG((ctrl & (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL)) ==
				      PCI_MSIX_FLAGS_ENABLE, "%s: Message Control %04x",
				      pci_name(dev), ctrl);
			for (unsigned int i = 0; i < dev->nr_irq_vecs; i++) {
				int irq = pci_irq_vector(dev, i);

				KT_ASSERT(msix_read_entry(dev, i, &ctrl, &addr_lo, &data, &vctrl) == 0);
				KT_ASSERT_MSG((addr_lo & X86_MSI_ADDR_MASK) == X86_MSI_ADDR_BASE &&
					      !(vctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT),
					      "%s: entry %u address %08x control %x", pci_name(dev),
					      i, addr_lo, vctrl);
				/* vector = 0x20 + irq (kernel/arch/x86/irq.c) */
				KT_ASSERT_MSG(irq > 0 && (data & X86_MSI_DATA_VECTOR) ==
					      FIRST_EXTERNAL_VECTOR + (unsigned int)irq,
					      "%s: entry %u data %04x, irq %d", pci_name(dev), i, data, irq);
			}
			KT_ASSERT(pci_irq_vector(dev, dev->nr_irq_vecs) == -EINVAL);
			continue;
		}
		n = pci_alloc_irq_vectors(dev, 1, 1, PCI_IRQ_MSIX);
		if (nomsi) {
			KT_ASSERT_MSG(n == -ENOSPC, "pci=nomsi, yet MSI-X: %d", n);
			continue;
		}
		vec = pci_irq_vector(dev, 0);
		KT_ASSERT(msix_read(dev, &ctrl, &addr_lo, &data, &vctrl) == 0);
		pci_read_config_word(dev, PCI_COMMAND, &cmd);
		KT_ASSERT(dev->msix_enabled && !dev->msi_enabled);
		pci_free_irq_vectors(dev);

		KT_ASSERT_MSG(n == 1, "%s: pci_alloc_irq_vectors returned %d", pci_name(dev), n);
		KT_ASSERT_MSG(vec > 0 && (unsigned int)vec != irq_before, "MSI-X irq %d", vec);
		KT_ASSERT_MSG((ctrl & (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL)) ==
			      PCI_MSIX_FLAGS_ENABLE, "Message Control %04x", ctrl);
		KT_ASSERT_MSG((addr_lo & X86_MSI_ADDR_MASK) == X86_MSI_ADDR_BASE, "address %08x", addr_lo);
		KT_ASSERT_MSG((data & X86_MSI_DATA_VECTOR) >= FIRST_EXTERNAL_VECTOR, "data %04x", data);
		KT_ASSERT_MSG(!(vctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT), "entry 0 masked: %x", vctrl);
		KT_ASSERT_MSG(cmd & PCI_COMMAND_INTX_DISABLE, "INTx still on: command %04x", cmd);

		/* and pci_free_irq_vectors() put everything back */
		KT_ASSERT(msix_read(dev, &ctrl, &addr_lo, &data, &vctrl) == 0);
		pci_read_config_word(dev, PCI_COMMAND, &cmd);
		KT_ASSERT_MSG(!(ctrl & PCI_MSIX_FLAGS_ENABLE), "MSI-X still on: %04x", ctrl);
		KT_ASSERT_MSG(vctrl & PCI_MSIX_ENTRY_CTRL_MASKBIT, "entry 0 unmasked: %x", vctrl);
		KT_ASSERT_MSG(!(cmd & PCI_COMMAND_INTX_DISABLE), "INTx still off: %04x", cmd);
		KT_ASSERT(!dev->msix_enabled && dev->nr_irq_vecs == 0 && !dev->msix_map);
		KT_ASSERT_MSG(dev->irq == irq_before, "irq %u, was %u", dev->irq, irq_before);
	}
	if (!seen)
		KT_SKIP("no function with MSI-X (qemu -device nvme, virtio-rng-pci)");
}

KTEST(pci, intx_alloc_free)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;
	int n, vec;

	PCI_TEST_MACHINE(m);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	if (dev->nr_irq_vecs)
		KT_SKIP("%s: its driver holds the interrupt", pci_name(dev));
	n = pci_alloc_irq_vectors(dev, 1, 1, PCI_IRQ_LEGACY);
	if (!dev->irq_pin || dev->irq_line == PCI_INTERRUPT_LINE_NONE || !dev->irq_line) {
		KT_ASSERT_MSG(n == -ENOSPC, "no INTx, yet returned %d", n);
		return;
	}
	vec = pci_irq_vector(dev, 0);
	pci_free_irq_vectors(dev);
	KT_ASSERT_MSG(n == 1, "returned %d", n);
	KT_ASSERT_MSG(vec == dev->irq_line, "vector %d, Interrupt Line %u", vec, dev->irq_line);
	KT_ASSERT(dev->nr_irq_vecs == 0 && dev->irq == dev->irq_line);
}

/* The lspci -nn line, including lspci's fallbacks for unknown IDs. */
KTEST(pci, lspci_format)
{
	static const struct {
		u16 vendor, device;
		u32 class;
		u8 bus, devfn, revision;
		const char *want;
	} cases[] = {
		{ 0x1234, 0x1111, 0x030000, 0, PCI_DEVFN(2, 0), 2,
		  "00:02.0 VGA compatible controller [0300]: Device [1234:1111] (rev 02)" },
		{ 0x8086, 0xabcd, 0x010185, 1, PCI_DEVFN(3, 4), 0,
		  "01:03.4 IDE interface [0101]: Intel Corporation Device [8086:abcd]" },
		{ 0x8086, 0x7113, 0x068000, 0, PCI_DEVFN(1, 3), 3,
		  "00:01.3 Bridge [0680]: Intel Corporation 82371AB/EB/MB PIIX4 ACPI [8086:7113] (rev 03)" },
		{ 0x1af4, 0x1001, 0x019900, 0, PCI_DEVFN(5, 0), 0,
		  "00:05.0 Mass storage controller [0199]: Red Hat, Inc. Virtio block device [1af4:1001]" },
		{ 0xfeed, 0x0001, 0x420000, 0xff, PCI_DEVFN(31, 7), 0,
		  "ff:1f.7 Class [4200]: Device [feed:0001]" },
	};
	const struct pci_test_machine *m;
	struct pci_dev fake, *dev;
	char line[160];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&fake, 0, sizeof(fake));
		fake.vendor = cases[i].vendor;
		fake.device = cases[i].device;
		fake.class = cases[i].class;
		fake.bus = cases[i].bus;
		fake.devfn = cases[i].devfn;
		fake.revision = cases[i].revision;
		pci_format_lspci(&fake, line, sizeof(line));
		KT_ASSERT_MSG(strcmp(line, cases[i].want) == 0, "got '%s'", line);
	}
	m = pci_test_machine();
	if (!m)
		return;
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	pci_format_lspci(dev, line, sizeof(line));
	KT_ASSERT_MSG(strcmp(line, m->ctrl_lspci) == 0, "got '%s'", line);
}

/* ---- Limits -------------------------------------------------------------- */

KTEST(pci, config_bad_offset)
{
	struct pci_dev *dev = pci_test_host();
	u32 d = 0;
	u16 w = 0;
	u8 b = 0;

	if (!dev)
		KT_SKIP("no function at 00:00.0");
	KT_ASSERT(pci_read_config_word(dev, PCI_VENDOR_ID + 1, &w) == -EINVAL);
	KT_ASSERT(w == 0xffff);
	KT_ASSERT(pci_read_config_dword(dev, PCI_COMMAND + 2, &d) == -EINVAL);
	KT_ASSERT(d == 0xffffffff);
	KT_ASSERT(pci_read_config_byte(dev, PCI_CFG_SPACE_SIZE, &b) == -EINVAL);
	KT_ASSERT(pci_read_config_byte(dev, -1, &b) == -EINVAL);
	KT_ASSERT(pci_read_config_dword(dev, PCI_CFG_SPACE_SIZE - 2, &d) == -EINVAL);
	KT_ASSERT(pci_write_config_word(dev, PCI_COMMAND + 1, 0) == -EINVAL);
	KT_ASSERT(pci_read_config_byte(NULL, 0, &b) == -EINVAL);
	/* the last byte and the last dword are fine */
	KT_ASSERT(pci_read_config_byte(dev, PCI_CFG_SPACE_SIZE - 1, &b) == 0);
	KT_ASSERT(pci_read_config_dword(dev, PCI_CFG_SPACE_SIZE - 4, &d) == 0);
}

KTEST(pci, resource_out_of_range)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;

	PCI_TEST_MACHINE(m);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	KT_ASSERT(pci_resource_len(dev, -1) == 0 && pci_resource_start(dev, -1) == 0);
	KT_ASSERT(pci_resource_len(dev, PCI_NUM_RESOURCES) == 0);
	KT_ASSERT(pci_resource_flags(dev, PCI_NUM_RESOURCES) == 0);
	KT_ASSERT(pci_iomap(dev, PCI_NUM_RESOURCES, 0) == NULL);
	/* an I/O BAR is not mapped: drivers use the port number */
	for (int i = 0; i < PCI_NUM_RESOURCES; i++)
		if (pci_resource_flags(dev, i) & IORESOURCE_IO)
			KT_ASSERT_MSG(pci_iomap(dev, i, 0) == NULL, "I/O BAR %d mapped", i);
	KT_ASSERT(pci_get_domain_bus_and_slot(1, 0, 0) == NULL);
}

KTEST(pci, irq_vectors_bad_args)
{
	const struct pci_test_machine *m;
	struct pci_dev *dev;

	PCI_TEST_MACHINE(m);
	dev = pci_test_controller(m);
	KT_ASSERT(dev != NULL);
	if (dev->nr_irq_vecs)
		KT_SKIP("%s: its driver holds the interrupt", pci_name(dev));
	KT_ASSERT(pci_alloc_irq_vectors(dev, 0, 1, PCI_IRQ_ALL_TYPES) == -EINVAL);
	KT_ASSERT(pci_alloc_irq_vectors(dev, 2, 1, PCI_IRQ_ALL_TYPES) == -EINVAL);
	KT_ASSERT(pci_alloc_irq_vectors(dev, 2, 4, PCI_IRQ_ALL_TYPES) == -ENOSPC);
	KT_ASSERT(pci_alloc_irq_vectors(dev, 1, 1, 0) == -ENOSPC);
	KT_ASSERT(pci_alloc_irq_vectors(NULL, 1, 1, PCI_IRQ_ALL_TYPES) == -EINVAL);
	KT_ASSERT(pci_irq_vector(dev, 1) == -EINVAL);
	KT_ASSERT(dev->nr_irq_vecs == 0);
	pci_free_irq_vectors(dev);              /* nothing held: a no-op */
	KT_ASSERT(dev->nr_irq_vecs == 0);
}
