// SPDX-License-Identifier: MIT
/*
 * Names for PCI class codes, vendors, devices and capabilities, and the
 * `lspci -nn` line built from them (interface in pci_names.h).
 *
 * Only data and string formatting live here: nothing touches hardware.
 * The class names are those of the PCI Code and ID Assignment
 * Specification, spelt as lspci spells them; the device table holds what
 * QEMU's pc and q35 machines show by default plus the devices a scenario
 * commonly adds (piix3-ide on q35, ahci on pc, e1000, virtio).  Add a row
 * when a new device appears, rather than shipping all of pci.ids.
 */
#include <spindle/printk.h>
#include "pci_names.h"

/* Base classes: the name lspci falls back on for an unknown subclass. */
static const struct {
	u8 base;
	const char *name;
} pci_base_classes[] = {
	{ 0x00, "Unclassified device" },
	{ 0x01, "Mass storage controller" },
	{ 0x02, "Network controller" },
	{ 0x03, "Display controller" },
	{ 0x04, "Multimedia controller" },
	{ 0x05, "Memory controller" },
	{ 0x06, "Bridge" },
	{ 0x07, "Communication controller" },
	{ 0x08, "Generic system peripheral" },
	{ 0x09, "Input device controller" },
	{ 0x0a, "Docking station" },
	{ 0x0b, "Processor" },
	{ 0x0c, "Serial bus controller" },
	{ 0x0d, "Wireless controller" },
	{ 0x0e, "Intelligent controller" },
	{ 0x0f, "Satellite communications controller" },
	{ 0x10, "Encryption controller" },
	{ 0x11, "Signal processing controller" },
	{ 0x12, "Processing accelerators" },
	{ 0xff, "Unassigned class" },
};

/* Subclasses, keyed by base << 8 | sub (what lspci prints as [ccss]). */
static const struct {
	u16 class;
	const char *name;
} pci_subclasses[] = {
	{ 0x0000, "Non-VGA unclassified device" },
	{ 0x0001, "VGA compatible unclassified device" },
	{ 0x0100, "SCSI storage controller" },
	{ 0x0101, "IDE interface" },
	{ 0x0102, "Floppy disk controller" },
	{ 0x0103, "IPI bus controller" },
	{ 0x0104, "RAID bus controller" },
	{ 0x0105, "ATA controller" },
	{ 0x0106, "SATA controller" },
	{ 0x0107, "Serial Attached SCSI controller" },
	{ 0x0108, "Non-Volatile memory controller" },
	{ 0x0180, "Mass storage controller" },
	{ 0x0200, "Ethernet controller" },
	{ 0x0280, "Network controller" },
	{ 0x0300, "VGA compatible controller" },
	{ 0x0301, "XGA compatible controller" },
	{ 0x0302, "3D controller" },
	{ 0x0380, "Display controller" },
	{ 0x0400, "Multimedia video controller" },
	{ 0x0401, "Multimedia audio controller" },
	{ 0x0403, "Audio device" },
	{ 0x0480, "Multimedia controller" },
	{ 0x0500, "RAM memory" },
	{ 0x0580, "Memory controller" },
	{ 0x0600, "Host bridge" },
	{ 0x0601, "ISA bridge" },
	{ 0x0602, "EISA bridge" },
	{ 0x0604, "PCI bridge" },
	{ 0x0607, "CardBus bridge" },
	{ 0x0680, "Bridge" },
	{ 0x0700, "Serial controller" },
	{ 0x0701, "Parallel controller" },
	{ 0x0780, "Communication controller" },
	{ 0x0800, "PIC" },
	{ 0x0801, "DMA controller" },
	{ 0x0802, "Timer" },
	{ 0x0803, "RTC" },
	{ 0x0805, "SD Host controller" },
	{ 0x0806, "IOMMU" },
	{ 0x0880, "System peripheral" },
	{ 0x0900, "Keyboard controller" },
	{ 0x0902, "Mouse controller" },
	{ 0x0980, "Input device controller" },
	{ 0x0c00, "FireWire (IEEE 1394)" },
	{ 0x0c03, "USB controller" },
	{ 0x0c04, "Fibre Channel" },
	{ 0x0c05, "SMBus" },
	{ 0x0c07, "IPMI Interface" },
	{ 0x0c80, "Serial bus controller" },
};

static const struct {
	u16 vendor;
	const char *name;
} pci_vendors[] = {
	{ 0x1000, "Broadcom / LSI" },
	{ 0x1013, "Cirrus Logic" },
	{ 0x10ec, "Realtek Semiconductor Co., Ltd." },
	{ 0x15ad, "VMware" },
	{ 0x1af4, "Red Hat, Inc." },    /* virtio devices */
	{ 0x1b36, "Red Hat, Inc." },    /* QEMU's own devices */
	{ PCI_VENDOR_ID_INTEL, "Intel Corporation" },
	/* QEMU's VGA uses 1234:1111, which pci.ids does not list: lspci
	 * prints "Device [1234:1111]", and so do we. */
};

static const struct {
	u16 vendor, device;
	const char *name;
} pci_device_names[] = {
	/* pc: the i440FX host bridge and the PIIX3/PIIX4 south bridge */
	{ 0x8086, 0x1237, "440FX - 82441FX PMC [Natoma]" },
	{ 0x8086, 0x7000, "82371SB PIIX3 ISA [Natoma/Triton II]" },
	{ 0x8086, 0x7010, "82371SB PIIX3 IDE [Natoma/Triton II]" },
	{ 0x8086, 0x7020, "82371SB PIIX3 USB [Natoma/Triton II]" },
	{ 0x8086, 0x7111, "82371AB/EB/MB PIIX4 IDE" },
	{ 0x8086, 0x7113, "82371AB/EB/MB PIIX4 ACPI" },
	/* q35: the MCH host bridge and the ICH9 south bridge */
	{ 0x8086, 0x29c0, "82G33/G31/P35/P31 Express DRAM Controller" },
	{ 0x8086, 0x2918, "82801IB (ICH9) LPC Interface Controller" },
	{ 0x8086, 0x2922, "82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode]" },
	{ 0x8086, 0x2930, "82801I (ICH9 Family) SMBus Controller" },
	{ 0x8086, 0x2934, "82801I (ICH9 Family) USB UHCI Controller #1" },
	{ 0x8086, 0x293a, "82801I (ICH9 Family) USB2 EHCI Controller #1" },
	{ 0x8086, 0x293e, "82801I (ICH9 Family) HD Audio Controller" },
	{ 0x8086, 0x244e, "82801 PCI Bridge" },
	/* network cards: e1000 is pc's default, e1000e q35's */
	{ 0x8086, 0x100e, "82540EM Gigabit Ethernet Controller" },
	{ 0x8086, 0x10d3, "82574L Gigabit Network Connection" },
	{ 0x10ec, 0x8139, "RTL-8100/8101L/8139 PCI Fast Ethernet Adapter" },
	/* other display and storage devices QEMU can add */
	{ 0x1013, 0x00b8, "GD 5446" },
	{ 0x15ad, 0x0405, "SVGA II Adapter" },
	{ 0x1000, 0x0012, "53c895a" },
	/* virtio (legacy and 1.0 IDs) and QEMU's own bridges and controllers */
	{ 0x1af4, 0x1000, "Virtio network device" },
	{ 0x1af4, 0x1001, "Virtio block device" },
	{ 0x1af4, 0x1004, "Virtio SCSI" },
	{ 0x1af4, 0x1041, "Virtio 1.0 network device" },
	{ 0x1af4, 0x1042, "Virtio 1.0 block device" },
	{ 0x1af4, 0x1048, "Virtio 1.0 SCSI" },
	{ 0x1b36, 0x0001, "QEMU PCI-PCI bridge" },
	{ 0x1b36, 0x000c, "QEMU PCIe Root port" },
	{ 0x1b36, 0x000d, "QEMU XHCI Host Controller" },
	{ 0x1b36, 0x0010, "QEMU NVM Express Controller" },
};

/* What lspci -v calls each capability, indexed by PCI_CAP_ID_*. */
static const char *const pci_cap_names[] = {
	[0x01] = "Power Management",
	[0x02] = "AGP",
	[0x03] = "Vital Product Data",
	[0x04] = "Slot ID",
	[0x05] = "MSI",
	[0x06] = "CompactPCI hot-swap",
	[0x07] = "PCI-X",
	[0x08] = "HyperTransport",
	[0x09] = "Vendor Specific Information",
	[0x0a] = "Debug port",
	[0x0b] = "CompactPCI central resource control",
	[0x0c] = "Hot-plug capable",
	[0x0d] = "Subsystem",
	[0x0e] = "AGP3",
	[0x0f] = "Secure device",
	[0x10] = "Express",
	[0x11] = "MSI-X",
	[0x12] = "SATA HBA",
	[0x13] = "PCI Advanced Features",
	[0x14] = "Enhanced Allocation",
};

const char *pci_cap_name(u8 cap_id)
{
	return cap_id < ARRAY_SIZE(pci_cap_names) ? pci_cap_names[cap_id] : NULL;
}

static const char *pci_vendor_name(u16 vendor)
{
	for (size_t i = 0; i < ARRAY_SIZE(pci_vendors); i++)
		if (pci_vendors[i].vendor == vendor)
			return pci_vendors[i].name;
	return NULL;
}

static const char *pci_device_name(u16 vendor, u16 device)
{
	for (size_t i = 0; i < ARRAY_SIZE(pci_device_names); i++)
		if (pci_device_names[i].vendor == vendor &&
		    pci_device_names[i].device == device)
			return pci_device_names[i].name;
	return NULL;
}

/*
 * "IDE interface [0101]", falling back as lspci does: to the base class's
 * name for an unknown subclass, to "Class [ccss]" for an unknown class.
 */
static size_t pci_format_class(u32 class, char *buf, size_t size)
{
	u16 ccss = class >> 8;

	for (size_t i = 0; i < ARRAY_SIZE(pci_subclasses); i++)
		if (pci_subclasses[i].class == ccss)
			return scnprintf(buf, size, "%s [%04x]",
					 pci_subclasses[i].name, ccss);
	for (size_t i = 0; i < ARRAY_SIZE(pci_base_classes); i++)
		if (pci_base_classes[i].base == ccss >> 8)
			return scnprintf(buf, size, "%s [%04x]",
					 pci_base_classes[i].name, ccss);
	return scnprintf(buf, size, "Class [%04x]", ccss);
}

void pci_format_lspci(const struct pci_dev *dev, char *buf, size_t size)
{
	const char *vname = pci_vendor_name(dev->vendor);
	const char *dname = pci_device_name(dev->vendor, dev->device);
	size_t n;

	n = scnprintf(buf, size, "%02x:%02x.%d ", dev->bus,
		      PCI_SLOT(dev->devfn), PCI_FUNC(dev->devfn));
	n += pci_format_class(dev->class, buf + n, size - n);
	n += scnprintf(buf + n, size - n, ": %s%s%s [%04x:%04x]",
		       vname ? vname : "", vname ? " " : "",
		       dname ? dname : "Device", dev->vendor, dev->device);
	if (dev->revision)
		scnprintf(buf + n, size - n, " (rev %02x)", dev->revision);
}
