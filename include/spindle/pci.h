/* SPDX-License-Identifier: MIT */
/*
 * PCI: finding devices, their registers and their interrupts.
 *
 * Where it sits: below the disk drivers (drivers/ahci, drivers/ata), which
 * ask here for their controller, its registers (BARs) and an interrupt;
 * above the hardware's configuration space, which drivers/pci/pci.c reaches
 * through configuration mechanism #1 (I/O ports 0xcf8/0xcfc).
 *
 * At boot (subsys_initcall) every function on every bus is found once and
 * described by a struct pci_dev on the list pci_devices, in bus:dev.fn
 * order.  The list never changes afterwards and no pci_dev is ever freed,
 * so walking it needs no lock, and a pointer stays valid forever
 * (pci_dev_put() exists only so that code reads as in Linux).
 *
 * Interface for a driver's probe, in the order it usually calls them:
 *
 *   dev = pci_get_device(PCI_VENDOR_ID_INTEL, 0x2922, NULL);   find it
 *   pci_enable_device(dev);               turn on I/O / memory decoding
 *   pci_set_master(dev);                  let it do DMA (bus mastering)
 *   regs = pci_iomap(dev, 5, 0);          map a memory BAR (NULL for I/O:
 *                                         use pci_resource_start() as port)
 *   n = pci_alloc_irq_vectors(dev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_LEGACY);
 *   request_irq(pci_irq_vector(dev, 0), ...);   (vectors 0..n-1)
 *   ...
 *   pci_free_irq_vectors(dev);            after free_irq(), on the way out
 *
 * Rules a caller must not break: call pci_alloc_irq_vectors() once per
 * device, and pci_free_irq_vectors() only after free_irq(); configuration
 * accessors may be called from anywhere (they do not sleep), everything
 * else from process context (a probe or a test).
 *
 * Register names and bit names below are Linux's (include/uapi/linux/
 * pci_regs.h), with the PCI Local Bus Specification 3.0 section they come
 * from.  Configuration space is reached through a port window one access
 * at a time, never mapped, so its registers are offsets rather than a
 * struct.
 */
#ifndef SPINDLE_PCI_H
#define SPINDLE_PCI_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/list.h>

/* ---- Configuration space header (PCI 3.0 §6.1, figure 6-1) ------------- */

#define PCI_CFG_SPACE_SIZE      256     /* what mechanism #1 can reach */
#define PCI_STD_HEADER_SIZEOF   64      /* capabilities live above this */

#define PCI_VENDOR_ID           0x00    /* 16 bits; 0xffff: no function */
#define PCI_DEVICE_ID           0x02    /* 16 bits */
#define PCI_COMMAND             0x04    /* 16 bits, §6.2.2 */
#define  PCI_COMMAND_IO         0x0001  /* respond to I/O space accesses */
#define  PCI_COMMAND_MEMORY     0x0002  /* respond to memory space accesses */
#define  PCI_COMMAND_MASTER     0x0004  /* may act as bus master (DMA) */
#define  PCI_COMMAND_INTX_DISABLE 0x0400 /* Interrupt Disable: no INTx# */
#define PCI_STATUS              0x06    /* 16 bits, §6.2.3 */
#define  PCI_STATUS_CAP_LIST    0x0010  /* Capabilities List present */
#define PCI_REVISION_ID         0x08    /* 8 bits */
#define PCI_CLASS_PROG          0x09    /* 8 bits: programming interface */
#define PCI_CLASS_DEVICE        0x0a    /* 16 bits: base class, subclass */
#define PCI_HEADER_TYPE         0x0e    /* 8 bits, §6.2.1 */
#define  PCI_HEADER_TYPE_MASK   0x7f    /* layout of bytes 0x10..0x3f: */
#define  PCI_HEADER_TYPE_NORMAL 0       /*   an ordinary function */
#define  PCI_HEADER_TYPE_BRIDGE 1       /*   a PCI-to-PCI bridge */
#define  PCI_HEADER_TYPE_CARDBUS 2      /*   a CardBus bridge */
#define  PCI_HEADER_TYPE_MFD    0x80    /* multi-function device */
#define PCI_BASE_ADDRESS_0      0x10    /* 32 bits each, §6.2.5.1 */
#define  PCI_BASE_ADDRESS_SPACE_IO     0x01 /* bit 0: I/O (1) or memory (0) */
#define  PCI_BASE_ADDRESS_MEM_TYPE_MASK 0x06
#define  PCI_BASE_ADDRESS_MEM_TYPE_32  0x00 /* anywhere in 32-bit space */
#define  PCI_BASE_ADDRESS_MEM_TYPE_1M  0x02 /* below 1 MiB (PCI 2.x legacy) */
#define  PCI_BASE_ADDRESS_MEM_TYPE_64  0x04 /* 64-bit: takes two BARs */
#define  PCI_BASE_ADDRESS_MEM_PREFETCH 0x08 /* prefetchable */
#define  PCI_BASE_ADDRESS_MEM_MASK     (~0x0fU)
#define  PCI_BASE_ADDRESS_IO_MASK      (~0x03U)
#define PCI_CAPABILITY_LIST     0x34    /* 8 bits: offset of the first one */
#define PCI_INTERRUPT_LINE      0x3c    /* 8 bits, §6.2.4: firmware's IRQ */
#define  PCI_INTERRUPT_LINE_NONE 0xff   /* "unknown or no connection" (x86) */
#define PCI_INTERRUPT_PIN       0x3d    /* 8 bits: 0 none, 1..4 INTA#..INTD# */

/* Type 1 header (PCI-to-PCI Bridge Architecture Spec 1.2 §3.2) */
#define PCI_PRIMARY_BUS         0x18
#define PCI_SECONDARY_BUS       0x19    /* the bus behind the bridge */
#define PCI_SUBORDINATE_BUS     0x1a    /* the highest bus behind it */
/* Type 2 header (CardBus) */
#define PCI_CB_CAPABILITY_LIST  0x14

/* Capabilities (§6.7): a linked list of {id, next, ...} in config space */
#define PCI_CAP_LIST_ID         0
#define PCI_CAP_LIST_NEXT       1
#define PCI_CAP_ID_PM           0x01    /* Power Management */
#define PCI_CAP_ID_MSI          0x05    /* Message Signalled Interrupts */
#define PCI_CAP_ID_VNDR         0x09    /* vendor specific */
#define PCI_CAP_ID_EXP          0x10    /* PCI Express */
#define PCI_CAP_ID_MSIX         0x11    /* MSI-X */
#define PCI_CAP_ID_SATA         0x12    /* SATA data/index configuration */
#define PCI_CAP_ID_AF           0x13    /* Advanced Features */

/*
 * The MSI capability (§6.8.1).  Its layout depends on Message Control:
 * with 64-bit addresses the data word moves from 0x08 to 0x0c.
 */
#define PCI_MSI_FLAGS           0x02    /* 16 bits: Message Control */
#define  PCI_MSI_FLAGS_ENABLE   0x0001  /* MSI Enable */
#define  PCI_MSI_FLAGS_QMASK    0x000e  /* Multiple Message Capable */
#define  PCI_MSI_FLAGS_QSIZE    0x0070  /* Multiple Message Enable */
#define  PCI_MSI_FLAGS_64BIT    0x0080  /* 64 bit Address Capable */
#define  PCI_MSI_FLAGS_MASKBIT  0x0100  /* Per-vector Masking Capable */
#define PCI_MSI_ADDRESS_LO      0x04    /* 32 bits: Message Address */
#define PCI_MSI_ADDRESS_HI      0x08    /* 32 bits: Message Upper Address */
#define PCI_MSI_DATA_32         0x08    /* 16 bits: Message Data, 32-bit form */
#define PCI_MSI_DATA_64         0x0c    /* 16 bits: Message Data, 64-bit form */
#define PCI_MSI_MASK_32         0x0c    /* 32 bits: Mask Bits, 32-bit form */
#define PCI_MSI_MASK_64         0x10    /* 32 bits: Mask Bits, 64-bit form */

/*
 * The MSI-X capability (§6.8.2).  Its messages are not in configuration
 * space: a table of 16-byte entries lives in one of the device's memory
 * BARs, at the offset Table Offset/BIR gives.
 */
#define PCI_MSIX_FLAGS          0x02    /* 16 bits: Message Control */
#define  PCI_MSIX_FLAGS_QSIZE   0x07ff  /* Table Size, N - 1 */
#define  PCI_MSIX_FLAGS_MASKALL 0x4000  /* Function Mask: no message at all */
#define  PCI_MSIX_FLAGS_ENABLE  0x8000  /* MSI-X Enable */
#define PCI_MSIX_TABLE          0x04    /* 32 bits: Table Offset / Table BIR */
#define  PCI_MSIX_TABLE_BIR     0x00000007      /* which BAR */
#define  PCI_MSIX_TABLE_OFFSET  0xfffffff8      /* where in it (8-byte aligned) */
#define PCI_MSIX_PBA            0x08    /* 32 bits: Pending Bit Array offset / BIR */
/* One table entry (§6.8.2.6 - §6.8.2.9) */
#define PCI_MSIX_ENTRY_SIZE             16
#define PCI_MSIX_ENTRY_LOWER_ADDR       0x0     /* Message Address */
#define PCI_MSIX_ENTRY_UPPER_ADDR       0x4     /* Message Upper Address */
#define PCI_MSIX_ENTRY_DATA             0x8     /* Message Data */
#define PCI_MSIX_ENTRY_VECTOR_CTRL      0xc     /* Vector Control */
#define  PCI_MSIX_ENTRY_CTRL_MASKBIT    0x1     /* Mask Bit: set after reset */

/* Class codes (PCI Code and ID Assignment Spec), as pci_dev.class >> 8 */
#define PCI_CLASS_STORAGE_IDE   0x0101
#define PCI_CLASS_STORAGE_SATA  0x0106
#define PCI_CLASS_STORAGE_SATA_AHCI 0x010601 /* full 24 bits, with prog-if */
#define PCI_CLASS_BRIDGE_HOST   0x0600
#define PCI_CLASS_BRIDGE_ISA    0x0601
#define PCI_CLASS_BRIDGE_PCI    0x0604

#define PCI_VENDOR_ID_INTEL     0x8086
/* Devices of QEMU's machines (Linux's names where pci_ids.h has one) */
#define PCI_DEVICE_ID_INTEL_82441       0x1237  /* i440FX host bridge (pc) */
#define PCI_DEVICE_ID_INTEL_82371SB_0   0x7000  /* PIIX3 ISA bridge (pc) */
#define PCI_DEVICE_ID_INTEL_82371SB_1   0x7010  /* PIIX3 IDE (pc) */
#define PCI_DEVICE_ID_INTEL_82371AB     0x7111  /* PIIX4 IDE */
#define PCI_DEVICE_ID_INTEL_G33_HB      0x29c0  /* Q35 MCH host bridge (q35) */
#define PCI_DEVICE_ID_INTEL_ICH9_8      0x2918  /* ICH9 LPC bridge (q35) */
#define PCI_DEVICE_ID_INTEL_ICH9_AHCI   0x2922  /* ICH9 AHCI (q35); no Linux name */
#define PCI_ANY_ID              (~0U)

/* devfn packs a slot (0..31) and a function (0..7) into 8 bits, as the
 * configuration address does (§3.2.2.3.2). */
#define PCI_DEVFN(slot, func)   ((((slot) & 0x1f) << 3) | ((func) & 0x07))
#define PCI_SLOT(devfn)         (((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn)         ((devfn) & 0x07)

/* ---- Devices --------------------------------------------------------- */

/* Resource flags, with Linux's values (include/linux/ioport.h) */
#define IORESOURCE_IO           0x00000100  /* I/O ports */
#define IORESOURCE_MEM          0x00000200  /* memory-mapped registers */
#define IORESOURCE_PREFETCH     0x00002000  /* reads have no side effects */
#define IORESOURCE_MEM_64       0x00100000  /* a 64-bit memory BAR */

/*
 * One BAR, decoded.  Linux keeps an inclusive end; Spindle keeps the
 * length, which is what drivers and ioremap() want.  len == 0: no BAR.
 */
struct resource {
	u64 start;              /* first port or bus address */
	u64 len;                /* bytes (or ports) decoded */
	unsigned long flags;    /* IORESOURCE_* */
};

#define PCI_NUM_RESOURCES       6       /* BAR0..BAR5 of a type 0 header */
/* MSI-X vectors one device may hold: an NVMe controller's admin queue and
 * an I/O queue per CPU (NR_CPUS is 8), with room to spare. */
#define PCI_MAX_IRQ_VECS        16

struct pci_dev;

/* One MSI-X vector: its table entry and irq.  The interrupt layer is
 * handed this, to re-aim the entry when the irq's affinity changes. */
struct pci_msix_vec {
	struct pci_dev *dev;
	u8 *entry;                      /* in msix_map */
	unsigned int irq;
};

struct pci_dev {
	struct list_head global_list;   /* on pci_devices, in bus:devfn order */
	u8 bus;
	u8 devfn;                       /* PCI_DEVFN(slot, func) */
	u16 vendor;
	u16 device;
	u8 revision;
	u32 class;                      /* base << 16 | sub << 8 | prog-if */
	u8 hdr_type;                    /* PCI_HEADER_TYPE_*, without MFD */
	bool multifunction;             /* function 0 had PCI_HEADER_TYPE_MFD */
	u8 irq_pin;                     /* 0: no INTx; 1..4: INTA#..INTD# */
	u8 irq_line;                    /* Interrupt Line as firmware left it */
	unsigned int irq;               /* for request_irq(): INTx's IRQ, or the
					 * MSI or MSI-X one while that is on;
					 * 0 = none */
	u8 msi_cap;                     /* offset of the MSI capability, or 0 */
	bool msi_enabled;               /* pci_alloc_irq_vectors() chose MSI */
	u8 msix_cap;                    /* offset of the MSI-X capability, or 0 */
	bool msix_enabled;              /* pci_alloc_irq_vectors() chose MSI-X */
	void *msix_map;                 /* the BAR mapped up to the last entry used */
	/* MSI-X on: vector i is table entry i, with its own irq */
	struct pci_msix_vec msix_vecs[PCI_MAX_IRQ_VECS];
	u8 nr_irq_vecs;                 /* vectors handed out (0..PCI_MAX_IRQ_VECS) */
	struct resource resource[PCI_NUM_RESOURCES];
	char name[16];                  /* "0000:00:1f.2", see pci_name() */
};

extern struct list_head pci_devices;

/* "dddd:bb:ss.f", as Linux names devices in its messages and in sysfs. */
static inline const char *pci_name(const struct pci_dev *dev)
{
	return dev->name;
}

/*
 * Look-ups.  Each returns the first match after @from (from the start of
 * the list when @from is NULL), or NULL.  PCI_ANY_ID matches anything.
 * pci_get_class() compares all 24 bits (base, subclass and prog-if).
 */
struct pci_dev *pci_get_device(unsigned int vendor, unsigned int device,
			       struct pci_dev *from);
struct pci_dev *pci_get_class(unsigned int class, struct pci_dev *from);
struct pci_dev *pci_get_domain_bus_and_slot(int domain, unsigned int bus,
					    unsigned int devfn);
static inline void pci_dev_put(struct pci_dev *dev) { (void)dev; }

/* Walk every function: struct pci_dev *d = NULL; for_each_pci_dev(d) ... */
#define for_each_pci_dev(d) \
	while ((d = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, d)) != NULL)

/*
 * Configuration space accessors.  @where must be aligned to the access
 * size and inside the 256 bytes; otherwise -EINVAL (and a read gives
 * all-ones, like a read from a missing device).  They return 0 otherwise.
 * Safe in any context: they take pci_config_lock with interrupts off.
 */
int pci_read_config_byte(const struct pci_dev *dev, int where, u8 *val);
int pci_read_config_word(const struct pci_dev *dev, int where, u16 *val);
int pci_read_config_dword(const struct pci_dev *dev, int where, u32 *val);
int pci_write_config_byte(const struct pci_dev *dev, int where, u8 val);
int pci_write_config_word(const struct pci_dev *dev, int where, u16 val);
int pci_write_config_dword(const struct pci_dev *dev, int where, u32 val);

/* Turn on I/O and/or memory decoding, as the device's BARs need. */
int pci_enable_device(struct pci_dev *dev);
/* Let the device master the bus: needed before it may DMA. */
void pci_set_master(struct pci_dev *dev);
/* Allow (true) or forbid (false) the device's INTx# interrupt. */
void pci_intx(struct pci_dev *dev, bool enable);

/* A BAR's start, length and IORESOURCE_* flags; 0 for bar out of range. */
static inline u64 pci_resource_start(const struct pci_dev *dev, int bar)
{
	return bar >= 0 && bar < PCI_NUM_RESOURCES ? dev->resource[bar].start : 0;
}
static inline u64 pci_resource_len(const struct pci_dev *dev, int bar)
{
	return bar >= 0 && bar < PCI_NUM_RESOURCES ? dev->resource[bar].len : 0;
}
static inline unsigned long pci_resource_flags(const struct pci_dev *dev, int bar)
{
	return bar >= 0 && bar < PCI_NUM_RESOURCES ? dev->resource[bar].flags : 0;
}

/* Offset of the first capability with this PCI_CAP_ID_*, or 0. */
u8 pci_find_capability(struct pci_dev *dev, int cap);

/*
 * Map the first @maxlen bytes (0: all) of a memory BAR, uncached.  Returns
 * NULL for an I/O BAR (drivers use the port number, pci_resource_start()),
 * an empty BAR, or when out of mapping space.  Undo with pci_iounmap().
 */
void *pci_iomap(struct pci_dev *dev, int bar, unsigned long maxlen);
void pci_iounmap(struct pci_dev *dev, void *addr);

/*
 * Interrupts.  pci_alloc_irq_vectors() tries, in this order and as @flags
 * allow: MSI-X (entries 0..n-1 of the table in the device's BAR each get
 * an irq of their own -- the address and data the interrupt layer hands
 * out -- and are unmasked, MSI-X is enabled and INTx disabled; n is
 * max_vecs, or fewer if the table or PCI_MAX_IRQ_VECS is smaller, but at
 * least min_vecs), then MSI (one message: the capability is programmed
 * the same way), then INTx (the Interrupt Line register's IRQ, switched
 * to level triggering).  MSI and INTx give one vector, so they are tried
 * only when min_vecs is 1.  Returns the number of vectors or -errno:
 * -ENOSPC when no kind asked for can give min_vecs, -EINVAL for bad
 * arguments or when vectors are already allocated.  Each vector's irq
 * goes where its affinity says (irq_set_affinity(): a driver aims a
 * queue's vector at the CPUs the queue serves).  The boot option
 * pci=nomsi forces INTx (no MSI-X either, as in Linux).
 */
#define PCI_IRQ_LEGACY          (1U << 0)   /* INTx# */
#define PCI_IRQ_INTX            PCI_IRQ_LEGACY  /* Linux 6.8's name */
#define PCI_IRQ_MSI             (1U << 1)
#define PCI_IRQ_MSIX            (1U << 2)
#define PCI_IRQ_ALL_TYPES       (PCI_IRQ_LEGACY | PCI_IRQ_MSI | PCI_IRQ_MSIX)

int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min_vecs,
			  unsigned int max_vecs, unsigned int flags);
/* The IRQ number of vector @nr (0..n-1), or -EINVAL. */
int pci_irq_vector(struct pci_dev *dev, unsigned int nr);
/* Undo pci_alloc_irq_vectors(): MSI or MSI-X off, INTx allowed again. */
void pci_free_irq_vectors(struct pci_dev *dev);

#endif /* SPINDLE_PCI_H */
