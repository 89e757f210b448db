// SPDX-License-Identifier: MIT
/*
 * acpi.c - find the ACPI tables and read the interrupt layout from the MADT.
 *
 * Where it sits: irq_init() (kernel/arch/x86/irq.c) calls acpi_boot_init()
 * first, then programs the local APIC and IOAPICs from acpi_irq_model.
 * Nothing here touches the interrupt hardware itself.
 *
 * The walk:
 *   RSDP (copied by GRUB into boot_info.rsdp)
 *     -> XSDT (64-bit entries; ACPI 2.0+) or else RSDT (32-bit entries)
 *        -> every table: mapped, checksummed, remembered by signature
 *           -> the MADT ("APIC"): local APIC address, IOAPICs, overrides
 *
 * A table whose checksum is wrong is reported and skipped, never trusted:
 * firmware bugs are data, not a reason to stop booting.  Without an RSDP
 * or a usable MADT we assume what every PC since the late 1990s has -- one
 * IOAPIC at 0xfec00000 with GSI base 0 and the PIT's IRQ 0 wired to GSI 2
 * -- and say so.
 *
 * Interface: asm/acpi.h.  Tables are mapped with ioremap(), so call
 * acpi_boot_init() after mm_init(); it is not thread-safe (boot only).
 */
#define pr_fmt(fmt) "ACPI: " fmt
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/mm.h>
#include <asm/acpi.h>
#include <asm/bootinfo.h>
#include <asm/cpu.h>
#include <asm/io.h>

#define ACPI_MAX_TABLES         32
#define ACPI_MAX_TABLE_SIZE     (1u << 20)      /* sanity bound on `length` */

#define MADT_SIGNATURE          "APIC"
#define RSDT_SIGNATURE          "RSDT"
#define XSDT_SIGNATURE          "XSDT"
#define RSDP_SIGNATURE          "RSD PTR "

/* The classic PC layout, for machines without a usable MADT. */
#define DEFAULT_IOAPIC_ADDRESS  0xfec00000u
#define PIT_ISA_IRQ             0
#define PIT_DEFAULT_GSI         2

/* IA32_APIC_BASE MSR: bits 12 and up hold the local APIC's physical
 * address (Intel SDM vol. 3A, "Local APIC Status and Location"). */
#define APIC_BASE_ADDR_MASK     0x000ffffffffff000ull

struct acpi_irq_model acpi_irq_model;

/* Every table that passed its checksum, mapped. */
static struct acpi_table_header *acpi_tables[ACPI_MAX_TABLES];
static int nr_acpi_tables;

/* ACPI's checksum rule: all bytes, checksum byte included, sum to 0. */
static bool acpi_checksum_ok(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static void acpi_print_table(const struct acpi_table_header *t, phys_addr_t phys)
{
	pr_info("%.4s 0x%016llx %06x (v%02u %.6s %.8s %08x)\n", t->signature,
		(unsigned long long)phys, t->length, t->revision, t->oem_id,
		t->oem_table_id, t->oem_revision);
}

/*
 * Map a whole table at @phys.  Its length is only known from its header,
 * so map the header first, then the whole thing.  NULL if it cannot be
 * mapped, is implausibly sized, or fails its checksum (reported).
 */
static struct acpi_table_header *acpi_map_table(phys_addr_t phys)
{
	struct acpi_table_header *t;
	u32 len;

	t = ioremap(phys, sizeof(*t));
	if (!t) {
		pr_warn("cannot map table at %#llx\n", (unsigned long long)phys);
		return NULL;
	}
	len = t->length;
	iounmap(t);
	if (len < sizeof(*t) || len > ACPI_MAX_TABLE_SIZE) {
		pr_warn("table at %#llx has a bad length %u, ignored\n",
			(unsigned long long)phys, len);
		return NULL;
	}
	t = ioremap(phys, len);
	if (!t) {
		pr_warn("cannot map table at %#llx\n", (unsigned long long)phys);
		return NULL;
	}
	if (!acpi_checksum_ok(t, len)) {
		pr_warn("%.4s at %#llx: bad checksum, ignored\n", t->signature,
			(unsigned long long)phys);
		iounmap(t);
		return NULL;
	}
	return t;
}

static void acpi_add_table(phys_addr_t phys)
{
	struct acpi_table_header *t = acpi_map_table(phys);

	if (!t)
		return;
	acpi_print_table(t, phys);
	if (nr_acpi_tables == ACPI_MAX_TABLES) {
		pr_warn("more than %d tables, %.4s ignored\n", ACPI_MAX_TABLES, t->signature);
		iounmap(t);
		return;
	}
	acpi_tables[nr_acpi_tables++] = t;
}

struct acpi_table_header *acpi_get_table(const char *signature)
{
	for (int i = 0; i < nr_acpi_tables; i++)
		if (memcmp(acpi_tables[i]->signature, signature, 4) == 0)
			return acpi_tables[i];
	return NULL;
}

/*
 * Check the RSDP copy and return the root table's address: the XSDT when
 * the RSDP is ACPI 2.0+ and has one, else the RSDT.  0 if unusable.
 */
static phys_addr_t acpi_root_table(bool *is_xsdt)
{
	const struct acpi_table_rsdp *rsdp = (const void *)boot_info.rsdp;

	if (!boot_info.have_rsdp) {
		pr_warn("the boot loader passed no RSDP\n");
		return 0;
	}
	if (memcmp(rsdp->signature, RSDP_SIGNATURE, sizeof(rsdp->signature)) != 0 ||
	    !acpi_checksum_ok(rsdp, ACPI_RSDP_V1_SIZE)) {
		pr_warn("RSDP: bad signature or checksum, ignored\n");
		return 0;
	}
	pr_info("RSDP (v%02u %.6s)\n", rsdp->revision, rsdp->oem_id);
	*is_xsdt = false;
	if (rsdp->revision >= 2 && rsdp->xsdt_physical_address) {
		/* The 2.0 fields have their own checksum over the whole RSDP. */
		if (rsdp->length >= sizeof(*rsdp) && rsdp->length <= sizeof(boot_info.rsdp) &&
		    acpi_checksum_ok(rsdp, rsdp->length)) {
			*is_xsdt = true;
			return rsdp->xsdt_physical_address;
		}
		pr_warn("RSDP: bad extended checksum, using the RSDT\n");
	}
	return rsdp->rsdt_physical_address;
}

/* Walk the RSDT or XSDT and record every good table it lists. */
static void acpi_scan_tables(void)
{
	struct acpi_table_header *root;
	phys_addr_t root_phys;
	bool is_xsdt;
	size_t entry_size, n;
	const u8 *entries;

	root_phys = acpi_root_table(&is_xsdt);
	if (!root_phys)
		return;
	root = acpi_map_table(root_phys);
	if (!root)
		return;
	if (memcmp(root->signature, is_xsdt ? XSDT_SIGNATURE : RSDT_SIGNATURE, 4) != 0) {
		pr_warn("root table at %#llx is \"%.4s\", not %s\n",
			(unsigned long long)root_phys, root->signature,
			is_xsdt ? XSDT_SIGNATURE : RSDT_SIGNATURE);
		iounmap(root);
		return;
	}
	acpi_print_table(root, root_phys);

	/* The entries follow the header; the XSDT's are 64-bit but only
	 * 4-byte aligned, so they are copied out rather than dereferenced. */
	entry_size = is_xsdt ? sizeof(u64) : sizeof(u32);
	entries = (const u8 *)(root + 1);
	n = (root->length - sizeof(*root)) / entry_size;
	for (size_t i = 0; i < n; i++) {
		u64 phys = 0;

		memcpy(&phys, entries + i * entry_size, entry_size);
		if (phys)
			acpi_add_table(phys);
	}
	iounmap(root);
}

static const char *const mps_polarity[] = { "dfl", "high", "res", "low" };
static const char *const mps_trigger[]  = { "dfl", "edge", "res", "level" };

static void madt_ioapic(const struct acpi_madt_io_apic *e)
{
	struct acpi_irq_model *m = &acpi_irq_model;

	pr_info("IOAPIC (id[0x%02x] address[0x%08x] gsi_base[%u])\n",
		e->id, e->address, e->global_irq_base);
	if (m->nr_ioapics == ACPI_MAX_IOAPICS) {
		pr_warn("more than %d IOAPICs, ignoring id %u\n", ACPI_MAX_IOAPICS, e->id);
		return;
	}
	m->ioapic[m->nr_ioapics++] = (struct acpi_ioapic){
		.id = e->id, .address = e->address, .gsi_base = e->global_irq_base,
	};
}

static void madt_override(const struct acpi_madt_interrupt_override *e)
{
	u16 pol = e->inti_flags & ACPI_MADT_POLARITY_MASK;
	u16 trig = e->inti_flags & ACPI_MADT_TRIGGER_MASK;
	struct acpi_isa_irq *isa;

	pr_info("INT_SRC_OVR (bus %u bus_irq %u global_irq %u %s %s)\n",
		e->bus, e->source_irq, e->global_irq, mps_polarity[pol],
		mps_trigger[trig >> ACPI_MADT_TRIGGER_SHIFT]);
	if (e->bus != 0 || e->source_irq >= ACPI_NR_ISA_IRQS) {
		pr_warn("override for bus %u irq %u not understood, ignored\n",
			e->bus, e->source_irq);
		return;
	}
	/* "Conforms" keeps the ISA default: active high, edge. */
	isa = &acpi_irq_model.isa[e->source_irq];
	isa->gsi = e->global_irq;
	isa->overridden = true;
	isa->polarity_fixed = pol != ACPI_MADT_POLARITY_CONFORMS;
	isa->active_low = pol == ACPI_MADT_POLARITY_ACTIVE_LOW;
	isa->level = trig == ACPI_MADT_TRIGGER_LEVEL;
}

/* Walk the MADT's variable-length entries.  Returns false if unusable. */
static bool acpi_parse_madt(void)
{
	struct acpi_table_madt *madt = (void *)acpi_get_table(MADT_SIGNATURE);
	struct acpi_irq_model *m = &acpi_irq_model;
	const u8 *p, *end;

	if (!madt || madt->header.length < sizeof(*madt))
		return false;
	m->lapic_address = madt->lapic_address;
	m->pcat_compat = madt->flags & ACPI_MADT_PCAT_COMPAT;
	pr_info("Local APIC address 0x%08x%s\n", madt->lapic_address,
		m->pcat_compat ? ", PC-AT compatible (8259 PICs present)" : "");

	p = (const u8 *)(madt + 1);
	end = (const u8 *)madt + madt->header.length;
	while (p + sizeof(struct acpi_subtable_header) <= end) {
		const struct acpi_subtable_header *h = (const void *)p;

		/* A zero length would loop forever; a long one runs off the end. */
		if (h->length < sizeof(*h) || p + h->length > end) {
			pr_warn("MADT entry of type %u has a bad length %u, stopping\n",
				h->type, h->length);
			break;
		}
		switch (h->type) {
		case ACPI_MADT_TYPE_LOCAL_APIC: {
			const struct acpi_madt_local_apic *e = (const void *)h;

			if (h->length < sizeof(*e))
				break;
			pr_info("LAPIC (acpi_id[0x%02x] lapic_id[0x%02x] %s)\n",
				e->processor_id, e->id,
				e->lapic_flags & ACPI_MADT_ENABLED ? "enabled" : "disabled");
			if (!(e->lapic_flags & ACPI_MADT_ENABLED))
				break;
			if (m->nr_cpus == NR_CPUS) {
				pr_warn("ACPI: NR_CPUS/possible_cpus limit of %d reached. "
					"Processor %d/0x%x ignored.\n",
					NR_CPUS, m->nr_cpus, e->id);
				break;
			}
			m->cpu_apic_id[m->nr_cpus++] = e->id;
			break;
		}
		case ACPI_MADT_TYPE_IO_APIC:
			if (h->length >= sizeof(struct acpi_madt_io_apic))
				madt_ioapic((const void *)h);
			break;
		case ACPI_MADT_TYPE_INTERRUPT_OVERRIDE:
			if (h->length >= sizeof(struct acpi_madt_interrupt_override))
				madt_override((const void *)h);
			break;
		case ACPI_MADT_TYPE_LOCAL_APIC_NMI: {
			const struct acpi_madt_local_apic_nmi *e = (const void *)h;

			if (h->length < sizeof(*e))
				break;
			pr_info("LAPIC_NMI (acpi_id[0x%02x] %s %s lint[0x%x])\n",
				e->processor_id,
				mps_polarity[e->inti_flags & ACPI_MADT_POLARITY_MASK],
				mps_trigger[(e->inti_flags & ACPI_MADT_TRIGGER_MASK) >>
					    ACPI_MADT_TRIGGER_SHIFT], e->lint);
			break;
		}
		case ACPI_MADT_TYPE_LOCAL_APIC_OVERRIDE: {
			const struct acpi_madt_local_apic_override *e = (const void *)h;

			if (h->length < sizeof(*e))
				break;
			pr_info("LAPIC_ADDR_OVR (address[0x%016llx])\n",
				(unsigned long long)e->address);
			m->lapic_address = e->address;
			break;
		}
		default:
			break;          /* x2APIC, NMI sources, ...: not needed here */
		}
		p += h->length;
	}
	if (m->nr_ioapics == 0) {
		pr_warn("the MADT lists no IOAPIC\n");
		return false;
	}
	return true;
}

void acpi_boot_init(void)
{
	struct acpi_irq_model *m = &acpi_irq_model;

	/* ISA defaults before any override: identity, active high, edge. */
	for (int irq = 0; irq < ACPI_NR_ISA_IRQS; irq++)
		m->isa[irq] = (struct acpi_isa_irq){ .gsi = irq };

	acpi_scan_tables();
	m->from_madt = acpi_parse_madt();
	if (m->from_madt)
		return;

	pr_warn("no usable MADT: assuming one IOAPIC at %#x (GSI base 0), "
		"ISA IRQ %d on GSI %d, other ISA IRQs identity-mapped\n",
		DEFAULT_IOAPIC_ADDRESS, PIT_ISA_IRQ, PIT_DEFAULT_GSI);
	for (int irq = 0; irq < ACPI_NR_ISA_IRQS; irq++)
		m->isa[irq] = (struct acpi_isa_irq){ .gsi = irq };
	m->isa[PIT_ISA_IRQ].gsi = PIT_DEFAULT_GSI;
	m->isa[PIT_ISA_IRQ].overridden = true;
	m->nr_ioapics = 1;
	m->ioapic[0] = (struct acpi_ioapic){ .id = 0, .address = DEFAULT_IOAPIC_ADDRESS };
	m->pcat_compat = true;
	m->nr_cpus = 1;
	/* The local APIC says where it is itself. */
	m->lapic_address = rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR_MASK;
}
