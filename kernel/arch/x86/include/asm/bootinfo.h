/* SPDX-License-Identifier: MIT */
/*
 * What the boot loader told us, copied out of the multiboot2 information
 * structure (kernel/arch/x86/multiboot.c) before its memory is reused.
 */
#ifndef ASM_BOOTINFO_H
#define ASM_BOOTINFO_H

#include <spindle/types.h>

#define BOOT_MAX_MMAP     64
#define BOOT_MAX_MODULES  8
#define BOOT_CMDLINE_MAX  1024

/* Memory map entry types (multiboot2 = E820 numbering). */
#define MMAP_AVAILABLE    1
#define MMAP_RESERVED     2
#define MMAP_ACPI_RECLAIM 3
#define MMAP_ACPI_NVS     4
#define MMAP_BAD          5

struct boot_mmap_entry {
	u64 addr, len;
	u32 type;
};

struct boot_module {
	phys_addr_t start, end;         /* [start, end) */
	char name[64];                  /* GRUB's module2 argument */
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	char loader[64];
	struct boot_mmap_entry mmap[BOOT_MAX_MMAP];
	int nr_mmap;
	struct boot_module modules[BOOT_MAX_MODULES];
	int nr_modules;
	phys_addr_t mbi_start, mbi_end; /* the structure itself, to reserve */
	u8 rsdp[36];                    /* copy of the ACPI RSDP (v1 or v2) */
	bool have_rsdp;
};

extern struct boot_info boot_info;

/* Returns 0, or -EINVAL when magic or structure are not multiboot2. */
int multiboot_parse(u32 magic, phys_addr_t mbi_phys);
/* The memory map, printed as Linux prints the e820 table at boot. */
void multiboot_print_mmap(void);

#endif /* ASM_BOOTINFO_H */
