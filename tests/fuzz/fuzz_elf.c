// SPDX-License-Identifier: MIT
/*
 * fuzz_elf.c - exec's checks of an ELF program (kernel/elf_check.c) fed
 * arbitrary files.
 *
 * The input is the program file.  The header and the program headers are
 * read from it as load_elf_binary() reads them -- the header only when
 * the file is long enough, the program headers only from where a header
 * that passed says -- and then exec's copy is done for real, from the
 * input (libFuzzer's copy, exactly its size, so ASan sees a byte read
 * past the end) into a page-sized window of memory that stands for the
 * segment's pages.  What exec then relies on, and this target checks,
 * for every file both checks accept:
 *
 *   - it is ET_EXEC or ET_DYN;
 *   - at least one segment is loaded, none with more file bytes than
 *     memory bytes, every one inside the user range (ET_EXEC) or inside
 *     the span from its base that exec allows (ET_DYN), its bytes inside
 *     the file;
 *   - no two loaded segments share a page;
 *   - the entry point lies in the pages of an executable segment;
 *   - a PT_INTERP that elf_find_interp() accepts is the first one, of
 *     2 to ELF_INTERP_MAX bytes, all in the file; its path, read from
 *     there, passes elf_check_interp_path() only if it ends in a NUL.
 * And a refusal of a file that is an ELF executable at all has a reason.
 */
#include <spindle/elf.h>
#include <spindle/errno.h>
#include <spindle/mm.h>
#include "fuzz.h"

#define USER_MIN 0x10000ull                     /* as elf_check.c */

static bool same_page_range(const Elf64_Phdr *a, const Elf64_Phdr *b)
{
	u64 as = a->p_vaddr & ~(PAGE_SIZE - 1), ae = ALIGN(a->p_vaddr + a->p_memsz, PAGE_SIZE);
	u64 bs = b->p_vaddr & ~(PAGE_SIZE - 1), be = ALIGN(b->p_vaddr + b->p_memsz, PAGE_SIZE);

	return as < be && bs < ae;
}

/* exec's copy of one segment's file bytes, a page at a time. */
static void copy_segment(const u8 *data, const Elf64_Phdr *ph)
{
	static u8 page[PAGE_SIZE];

	for (u64 off = 0; off < ph->p_filesz;) {
		u64 addr = ph->p_vaddr + off;
		size_t n = min((size_t)(ph->p_filesz - off),
			       (size_t)(PAGE_SIZE - (addr & (PAGE_SIZE - 1))));

		memcpy(page + (addr & (PAGE_SIZE - 1)), data + ph->p_offset + off, n);
		off += n;
	}
}

static void check_accepted(const u8 *data, size_t size, const Elf64_Ehdr *eh,
			   const Elf64_Phdr *ph)
{
	bool entry_in_code = false, dyn = eh->e_type == ET_DYN;
	int loads = 0;

	FUZZ_ASSERT(eh->e_type == ET_EXEC || dyn);
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *p = &ph[i];

		if (p->p_type != PT_LOAD || p->p_memsz == 0)
			continue;
		loads++;
		FUZZ_ASSERT(p->p_filesz <= p->p_memsz);
		FUZZ_ASSERT(dyn || p->p_vaddr >= USER_MIN);
		FUZZ_ASSERT(p->p_vaddr + p->p_memsz > p->p_vaddr);
		FUZZ_ASSERT(p->p_vaddr + p->p_memsz < (1ull << 47));
		FUZZ_ASSERT(!dyn || p->p_vaddr + p->p_memsz <= ELF_DYN_MAX_SPAN);
		FUZZ_ASSERT(p->p_offset <= size && p->p_filesz <= size - p->p_offset);
		for (int j = 0; j < i; j++) {
			if (ph[j].p_type == PT_LOAD && ph[j].p_memsz)
				FUZZ_ASSERT(!same_page_range(p, &ph[j]));
		}
		if ((p->p_flags & PF_X) &&
		    eh->e_entry >= (p->p_vaddr & ~(PAGE_SIZE - 1)) &&
		    eh->e_entry < ALIGN(p->p_vaddr + p->p_memsz, PAGE_SIZE))
			entry_in_code = true;
		copy_segment(data, p);
	}
	FUZZ_ASSERT(loads > 0);
	FUZZ_ASSERT(entry_in_code);
	if (dyn)
		FUZZ_ASSERT(elf_dyn_span(eh, ph) <= ELF_DYN_MAX_SPAN);
}

/* PT_INTERP, as exec reads it: the header, then the path's bytes. */
static void check_interp(const u8 *data, size_t size, const Elf64_Ehdr *eh,
			 const Elf64_Phdr *ph)
{
	static char path[ELF_INTERP_MAX];
	const Elf64_Phdr *ip;
	char why[ELF_WHY_LEN];
	int first = -1;

	for (int i = 0; i < eh->e_phnum && first < 0; i++)
		if (ph[i].p_type == PT_INTERP)
			first = i;
	if (elf_find_interp(eh, ph, size, &ip, why, sizeof(why))) {
		FUZZ_ASSERT(first >= 0 && why[0]);
		return;
	}
	if (!ip) {
		FUZZ_ASSERT(first < 0);
		return;
	}
	FUZZ_ASSERT(ip == &ph[first]);
	FUZZ_ASSERT(ip->p_filesz >= 2 && ip->p_filesz <= ELF_INTERP_MAX);
	FUZZ_ASSERT(ip->p_offset <= size && ip->p_filesz <= size - ip->p_offset);
	memcpy(path, data + ip->p_offset, ip->p_filesz);
	if (elf_check_interp_path(path, ip->p_filesz, why, sizeof(why)) == 0)
		FUZZ_ASSERT(path[ip->p_filesz - 1] == '\0');
	else
		FUZZ_ASSERT(path[ip->p_filesz - 1] != '\0' && why[0]);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static Elf64_Phdr ph[ELF_MAX_PHNUM];
	char why[ELF_WHY_LEN];
	Elf64_Ehdr eh;
	int err;

	fuzz_begin();
	if (size < sizeof(eh))
		return 0;               /* exec_read() refuses it before any check */
	memcpy(&eh, data, sizeof(eh));
	err = elf_check_header(&eh, size, why, sizeof(why));
	if (err) {
		FUZZ_ASSERT(err == -ENOEXEC);
		/* silent only when it is not an x86-64 ELF executable at all */
		FUZZ_ASSERT(why[0] || memcmp(eh.e_ident, ELFMAG, 4) ||
			    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
			    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_ident[EI_VERSION] != EV_CURRENT ||
			    eh.e_phentsize != sizeof(Elf64_Phdr) ||
			    eh.e_phnum == 0 || eh.e_phnum > ELF_MAX_PHNUM);
		return 0;
	}
	FUZZ_ASSERT(eh.e_phnum >= 1 && eh.e_phnum <= ELF_MAX_PHNUM);
	FUZZ_ASSERT(eh.e_phoff <= size && eh.e_phnum * sizeof(Elf64_Phdr) <= size - eh.e_phoff);
	memcpy(ph, data + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
	err = elf_check_phdrs(&eh, ph, size, why, sizeof(why));
	if (err) {
		FUZZ_ASSERT(err == -ENOEXEC && why[0]);
		return 0;
	}
	check_accepted(data, size, &eh, ph);
	check_interp(data, size, &eh, ph);
	fuzz_end();
	return 0;
}
