/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables, as far as interrupt routing needs them (kernel/arch/x86/acpi.c).
 *
 * The firmware describes the machine in tables reached from the RSDP
 * ("Root System Description Pointer"), which GRUB copied into
 * boot_info.rsdp.  The RSDP points to the RSDT (32-bit table addresses) or,
 * from ACPI 2.0, the XSDT (64-bit); either lists every other table by
 * physical address.  Each table starts with the same 36-byte header, whose
 * bytes -- the whole table's, in fact -- sum to zero modulo 256.
 *
 * The one table read here is the MADT (signature "APIC"): where the local
 * APIC is, which IOAPICs exist and which global system interrupts (GSIs,
 * the IOAPIC inputs numbered across all IOAPICs) they serve, and how the
 * 16 ISA IRQs are wired to GSIs.  The ISA wiring is the identity, edge
 * triggered and active high, except where an "interrupt source override"
 * says otherwise -- on every PC the PIT's IRQ 0 arrives on GSI 2.
 *
 * Interface:
 *   acpi_boot_init()       walk the tables and fill acpi_irq_model; call once,
 *                          after mm_init() (tables are mapped with ioremap).
 *                          Without usable tables it warns and falls back to
 *                          the classic PC layout (one IOAPIC at 0xfec00000).
 *   acpi_irq_model         the result, read-only for everyone else.
 *   acpi_get_table(sig)    a checksummed table by signature ("FACP", "MCFG",
 *                          ...), mapped, or NULL.  The mapping stays.
 *
 * Layouts follow the ACPI specification 6.4, section 5.2.
 */
#ifndef ASM_ACPI_H
#define ASM_ACPI_H

#include <spindle/types.h>
#include <spindle/compiler.h>
#include <spindle/smp.h>

/* ACPI 6.4, 5.2.5.3: the RSDP (20 bytes in ACPI 1.0, 36 from 2.0 on). */
struct acpi_table_rsdp {
	char signature[8];              /* "RSD PTR " */
	u8  checksum;                   /* bytes 0..19 sum to 0 */
	char oem_id[6];
	u8  revision;                   /* 0: ACPI 1.0 (RSDT only); 2: 2.0+ */
	u32 rsdt_physical_address;
	/* ACPI 2.0 and later: */
	u32 length;                     /* of this structure */
	u64 xsdt_physical_address;
	u8  extended_checksum;          /* all `length` bytes sum to 0 */
	u8  reserved[3];
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_table_rsdp) != 36);
#define ACPI_RSDP_V1_SIZE 20

/* ACPI 6.4, 5.2.6: the header every description table starts with. */
struct acpi_table_header {
	char signature[4];
	u32 length;                     /* of the whole table, header included */
	u8  revision;
	u8  checksum;                   /* makes the whole table sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	char asl_compiler_id[4];
	u32 asl_compiler_revision;
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_table_header) != 36);

/* ACPI 6.4, 5.2.12: the MADT, followed by variable-length entries. */
struct acpi_table_madt {
	struct acpi_table_header header;        /* signature "APIC" */
	u32 lapic_address;                      /* 32-bit local APIC address */
	u32 flags;
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_table_madt) != 44);
#define ACPI_MADT_PCAT_COMPAT   (1u << 0)       /* dual 8259 PICs present too */

/* Every MADT entry ("interrupt controller structure") starts with its
 * type and length; unknown types are skipped by their length. */
struct acpi_subtable_header {
	u8 type;
	u8 length;
} __packed;

#define ACPI_MADT_TYPE_LOCAL_APIC          0
#define ACPI_MADT_TYPE_IO_APIC             1
#define ACPI_MADT_TYPE_INTERRUPT_OVERRIDE  2
#define ACPI_MADT_TYPE_LOCAL_APIC_NMI      4
#define ACPI_MADT_TYPE_LOCAL_APIC_OVERRIDE 5

/* "Processor Local APIC Structure": one per processor. */
struct acpi_madt_local_apic {
	struct acpi_subtable_header header;
	u8  processor_id;
	u8  id;                         /* its local APIC ID */
	u32 lapic_flags;
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_madt_local_apic) != 8);
#define ACPI_MADT_ENABLED       (1u << 0)

/* "I/O APIC Structure": one per IOAPIC. */
struct acpi_madt_io_apic {
	struct acpi_subtable_header header;
	u8  id;
	u8  reserved;
	u32 address;                    /* physical address of its registers */
	u32 global_irq_base;            /* the GSI its input 0 is */
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_madt_io_apic) != 12);

/* "Interrupt Source Override Structure": ISA IRQ source_irq is really
 * GSI global_irq, wired as inti_flags say. */
struct acpi_madt_interrupt_override {
	struct acpi_subtable_header header;
	u8  bus;                        /* 0: ISA */
	u8  source_irq;
	u32 global_irq;
	u16 inti_flags;                 /* ACPI_MADT_POLARITY_* | ACPI_MADT_TRIGGER_* */
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_madt_interrupt_override) != 10);

/* "Local APIC NMI Structure": which LINT input of a local APIC carries NMI. */
struct acpi_madt_local_apic_nmi {
	struct acpi_subtable_header header;
	u8  processor_id;               /* 0xff: all processors */
	u16 inti_flags;
	u8  lint;
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_madt_local_apic_nmi) != 6);

/* "Local APIC Address Override Structure": a 64-bit local APIC address
 * that replaces the MADT's 32-bit one. */
struct acpi_madt_local_apic_override {
	struct acpi_subtable_header header;
	u16 reserved;
	u64 address;
} __packed;
BUILD_BUG_ON(sizeof(struct acpi_madt_local_apic_override) != 12);

/* "MPS INTI flags" of an override (the MP specification 1.4's PO and EL
 * bits).  "Conforms" means: as the bus defines it -- for ISA, active high
 * and edge triggered. */
#define ACPI_MADT_POLARITY_MASK         0x3
#define ACPI_MADT_POLARITY_CONFORMS     0x0
#define ACPI_MADT_POLARITY_ACTIVE_HIGH  0x1
#define ACPI_MADT_POLARITY_ACTIVE_LOW   0x3
#define ACPI_MADT_TRIGGER_SHIFT         2
#define ACPI_MADT_TRIGGER_MASK          (0x3 << ACPI_MADT_TRIGGER_SHIFT)
#define ACPI_MADT_TRIGGER_CONFORMS      (0x0 << ACPI_MADT_TRIGGER_SHIFT)
#define ACPI_MADT_TRIGGER_EDGE          (0x1 << ACPI_MADT_TRIGGER_SHIFT)
#define ACPI_MADT_TRIGGER_LEVEL         (0x3 << ACPI_MADT_TRIGGER_SHIFT)

/* --- what the rest of the kernel reads ------------------------------- */

#define ACPI_MAX_IOAPICS        4
#define ACPI_NR_ISA_IRQS        16

struct acpi_ioapic {
	u8  id;
	phys_addr_t address;
	u32 gsi_base;
};

/* How one ISA IRQ reaches an IOAPIC input. */
struct acpi_isa_irq {
	u32  gsi;
	bool active_low;
	bool level;
	bool overridden;        /* an override entry gave gsi/flags */
	bool polarity_fixed;    /* the override stated the polarity explicitly */
};

struct acpi_irq_model {
	bool from_madt;                 /* false: the built-in fallback */
	bool pcat_compat;               /* 8259 PICs present (mask them) */
	phys_addr_t lapic_address;
	int nr_cpus;                    /* enabled local APICs listed */
	u8 cpu_apic_id[NR_CPUS];	/* theirs, in the MADT's order (the first NR_CPUS) */
	int nr_ioapics;
	struct acpi_ioapic ioapic[ACPI_MAX_IOAPICS];
	struct acpi_isa_irq isa[ACPI_NR_ISA_IRQS];
};

extern struct acpi_irq_model acpi_irq_model;

void acpi_boot_init(void);
struct acpi_table_header *acpi_get_table(const char *signature);

#endif /* ASM_ACPI_H */
