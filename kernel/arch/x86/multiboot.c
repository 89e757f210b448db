// SPDX-License-Identifier: MIT
/*
 * Reading the multiboot2 information structure GRUB leaves in memory.
 *
 * It is a list of tags, each {u32 type, u32 size, payload}, 8-byte aligned,
 * ending with type 0 (Multiboot2 specification, 3.6).  We keep the command
 * line, the memory map, the modules (the initramfs), the boot loader's name
 * and a copy of the ACPI RSDP, because the structure sits in memory the
 * page allocator will later hand out.  Runs on the boot page tables, which
 * map the first 1 GiB at PAGE_OFFSET; GRUB places the structure below that.
 */
#include <spindle/printk.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/mm.h>
#include <asm/bootinfo.h>

#define MB2_BOOTLOADER_MAGIC 0x36d76289

#define MB2_TAG_END       0
#define MB2_TAG_CMDLINE   1
#define MB2_TAG_LOADER    2
#define MB2_TAG_MODULE    3
#define MB2_TAG_MMAP      6
#define MB2_TAG_ACPI_OLD  14
#define MB2_TAG_ACPI_NEW  15

struct mb2_tag {
	u32 type;
	u32 size;
} __packed;

struct mb2_tag_module {
	u32 type, size;
	u32 mod_start, mod_end;
	char cmdline[];
} __packed;

struct mb2_tag_mmap {
	u32 type, size;
	u32 entry_size, entry_version;
	u8 entries[];
} __packed;

struct mb2_mmap_entry {
	u64 base_addr, length;
	u32 type, reserved;
} __packed;

struct boot_info boot_info;

int multiboot_parse(u32 magic, phys_addr_t mbi_phys)
{
	const u8 *mbi = __va(mbi_phys);
	u32 total = *(const u32 *)mbi;
	const u8 *p, *end;

	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_err("multiboot2: bad magic %#x: not started by a multiboot2 loader\n", magic);
		return -EINVAL;
	}
	boot_info.mbi_start = mbi_phys;
	boot_info.mbi_end = mbi_phys + total;

	end = mbi + total;
	for (p = mbi + 8; p + sizeof(struct mb2_tag) <= end; ) {
		const struct mb2_tag *tag = (const void *)p;

		if (tag->type == MB2_TAG_END)
			break;
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			strlcpy(boot_info.cmdline, (const char *)(tag + 1),
				sizeof(boot_info.cmdline));
			break;
		case MB2_TAG_LOADER:
			strlcpy(boot_info.loader, (const char *)(tag + 1),
				sizeof(boot_info.loader));
			break;
		case MB2_TAG_MODULE: {
			const struct mb2_tag_module *m = (const void *)tag;
			struct boot_module *bm;

			if (boot_info.nr_modules == BOOT_MAX_MODULES) {
				pr_warn("multiboot2: more than %d modules, ignoring '%s'\n",
					BOOT_MAX_MODULES, m->cmdline);
				break;
			}
			bm = &boot_info.modules[boot_info.nr_modules++];
			bm->start = m->mod_start;
			bm->end = m->mod_end;
			strlcpy(bm->name, m->cmdline, sizeof(bm->name));
			break;
		}
		case MB2_TAG_MMAP: {
			const struct mb2_tag_mmap *mm = (const void *)tag;
			const u8 *e;

			for (e = mm->entries; e + mm->entry_size <= p + tag->size;
			     e += mm->entry_size) {
				const struct mb2_mmap_entry *me = (const void *)e;
				struct boot_mmap_entry *be;

				if (boot_info.nr_mmap == BOOT_MAX_MMAP)
					break;
				be = &boot_info.mmap[boot_info.nr_mmap++];
				be->addr = me->base_addr;
				be->len = me->length;
				be->type = me->type;
			}
			break;
		}
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0 RSDP (XSDT) when both are given. */
			if (!boot_info.have_rsdp || tag->type == MB2_TAG_ACPI_NEW) {
				size_t n = min((size_t)(tag->size - 8), sizeof(boot_info.rsdp));

				memcpy(boot_info.rsdp, tag + 1, n);
				boot_info.have_rsdp = true;
			}
			break;
		}
		p += ALIGN(tag->size, 8);
	}
	return 0;
}

/* Print the memory map the way Linux prints the e820 table at boot. */
void multiboot_print_mmap(void)
{
	static const char *const names[] = {
		[MMAP_AVAILABLE] = "usable", [MMAP_RESERVED] = "reserved",
		[MMAP_ACPI_RECLAIM] = "ACPI data", [MMAP_ACPI_NVS] = "ACPI NVS",
		[MMAP_BAD] = "unusable",
	};

	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		u32 t = e->type;

		pr_info("BIOS-e820: [mem 0x%016llx-0x%016llx] %s\n",
			(unsigned long long)e->addr,
			(unsigned long long)(e->addr + e->len - 1),
			t < ARRAY_SIZE(names) && names[t] ? names[t] : "reserved");
	}
}
