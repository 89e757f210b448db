// SPDX-License-Identifier: MIT
/*
 * elf_check.c - is this file a program Spindle's exec can load?  The
 * checks on the ELF header and the program headers, done before a single
 * page is allocated (interface: include/spindle/elf.h).
 *
 * Where it sits: execve() (kernel/exec.c) reads the headers from the file
 * and calls these; only then does it build the new address space, one VMA
 * per PT_LOAD segment, and copy the segments' bytes in, trusting what
 * was checked here.  Portable: no memory, no file, no lock, so the host
 * unit tests (tests/unit/check_elf.c) and the fuzzer
 * (tests/fuzz/fuzz_elf.c) run the same code on any bytes at all.
 *
 * A program file is outside data -- any user can write one -- so every
 * number is checked against the file's size or the user address range
 * with arithmetic that cannot wrap (an offset near 2^64 plus a size must
 * not come out small), in the order Linux's load_elf_binary() takes:
 * the header, the program headers' place, each segment, then PT_INTERP.
 *
 * Two kinds of file load: ET_EXEC at the addresses its segments name,
 * and ET_DYN (a PIE, or the interpreter ld.so itself) at a base exec
 * picks, its segments' addresses being offsets from it.  A PT_INTERP
 * names the interpreter; exec reads that path and loads the file it
 * names as well (kernel/exec.c).
 */
#include <spindle/elf.h>
#include <spindle/errno.h>
#include <spindle/mm_types.h>
#include <spindle/printk.h>             /* snprintf */
#include <spindle/string.h>

/*
 * The user range a segment may use: nothing below ELF_MIN_VADDR, so that
 * a NULL pointer always faults; nothing in the upper half of the space
 * below the mmap area, which stays free for mmap and the stack.
 */
#define ELF_MIN_VADDR   0x10000ul
#define ELF_MAX_VADDR   (MMAP_BASE / 2)

/* Is [pos, pos + len) inside a file of size bytes? */
static bool elf_range_ok(u64 size, u64 pos, u64 len)
{
	return pos <= size && len <= size - pos;
}

int elf_check_header(const Elf64_Ehdr *eh, u64 file_size, char *why, size_t why_len)
{
	why[0] = '\0';
	if (memcmp(eh->e_ident, ELFMAG, 4) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_ident[EI_VERSION] != EV_CURRENT ||
	    eh->e_machine != EM_X86_64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phnum == 0 || eh->e_phnum > ELF_MAX_PHNUM)
		return -ENOEXEC;
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
		/* ET_REL (an object file), ET_CORE: nothing to run */
		snprintf(why, why_len, "not an executable or shared object (ELF type %u)",
			 eh->e_type);
		return -ENOEXEC;
	}
	if (!elf_range_ok(file_size, eh->e_phoff, eh->e_phnum * sizeof(Elf64_Phdr))) {
		snprintf(why, why_len, "program headers at %#llx lie beyond the file (%llu bytes)",
			 (unsigned long long)eh->e_phoff, (unsigned long long)file_size);
		return -ENOEXEC;
	}
	return 0;
}

/* One PT_LOAD with bytes in memory: in the user range (ET_EXEC) or in
 * the span any base leaves there (ET_DYN), and in the file. */
static int elf_check_load(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, u64 file_size,
			  char *why, size_t why_len)
{
	u64 lo = eh->e_type == ET_DYN ? 0 : ELF_MIN_VADDR;
	u64 hi = eh->e_type == ET_DYN ? ELF_DYN_MAX_SPAN : ELF_MAX_VADDR;

	if (ph->p_filesz > ph->p_memsz || ph->p_vaddr < lo ||
	    ph->p_vaddr + ph->p_memsz < ph->p_vaddr || ph->p_vaddr + ph->p_memsz > hi) {
		snprintf(why, why_len, "PT_LOAD at %#llx, %#llx bytes (%#llx from the file): "
			 "not a user address range", (unsigned long long)ph->p_vaddr,
			 (unsigned long long)ph->p_memsz, (unsigned long long)ph->p_filesz);
		return -ENOEXEC;
	}
	if (!elf_range_ok(file_size, ph->p_offset, ph->p_filesz)) {
		snprintf(why, why_len, "PT_LOAD bytes %#llx+%#llx lie beyond the file (%llu bytes)",
			 (unsigned long long)ph->p_offset, (unsigned long long)ph->p_filesz,
			 (unsigned long long)file_size);
		return -ENOEXEC;
	}
	return 0;
}

/* The pages a checked segment takes: [*start, *end). */
static void elf_load_pages(const Elf64_Phdr *ph, u64 *start, u64 *end)
{
	*start = ALIGN_DOWN(ph->p_vaddr, PAGE_SIZE);
	*end = PAGE_ALIGN(ph->p_vaddr + ph->p_memsz);
}

static bool elf_is_load(const Elf64_Phdr *ph)
{
	return ph->p_type == PT_LOAD && ph->p_memsz != 0;
}

int elf_check_phdrs(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, u64 file_size,
		    char *why, size_t why_len)
{
	u64 code_start = 0, code_end = 0;

	why[0] = '\0';
	/*
	 * Each segment, then against every earlier one: exec copies each
	 * segment into pages of its own rights, so two may not share a page
	 * (ld's layouts, static or PIE or shared object, never make them: each
	 * segment starts on a page of its own, as -z separate-code lays out).  At most
	 * ELF_MAX_PHNUM^2 / 2 comparisons.
	 */
	for (int i = 0; i < eh->e_phnum; i++) {
		u64 start, end;
		int err;

		if (!elf_is_load(&ph[i]))
			continue;
		err = elf_check_load(eh, &ph[i], file_size, why, why_len);
		if (err)
			return err;
		elf_load_pages(&ph[i], &start, &end);
		for (int j = 0; j < i; j++) {
			u64 s, e;

			if (!elf_is_load(&ph[j]))
				continue;
			elf_load_pages(&ph[j], &s, &e);
			if (start < e && s < end) {
				snprintf(why, why_len, "PT_LOAD at %#llx shares a page with the one at %#llx",
					 (unsigned long long)ph[i].p_vaddr,
					 (unsigned long long)ph[j].p_vaddr);
				return -ENOEXEC;
			}
		}
		if (ph[i].p_flags & PF_X) {
			code_start = start;
			code_end = end;
		}
	}
	if (eh->e_entry < code_start || eh->e_entry >= code_end) {
		snprintf(why, why_len, "entry point %#llx is not in an executable segment",
			 (unsigned long long)eh->e_entry);
		return -ENOEXEC;
	}
	return 0;
}

int elf_find_interp(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, u64 file_size,
		    const Elf64_Phdr **interp, char *why, size_t why_len)
{
	why[0] = '\0';
	*interp = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_INTERP)
			continue;
		/* Linux's load_elf_binary(): a path and its NUL, at most PATH_MAX */
		if (ph[i].p_filesz < 2 || ph[i].p_filesz > ELF_INTERP_MAX) {
			snprintf(why, why_len, "PT_INTERP of %llu bytes: not a path",
				 (unsigned long long)ph[i].p_filesz);
			return -ENOEXEC;
		}
		if (!elf_range_ok(file_size, ph[i].p_offset, ph[i].p_filesz)) {
			snprintf(why, why_len, "PT_INTERP bytes %#llx+%#llx lie beyond the file (%llu bytes)",
				 (unsigned long long)ph[i].p_offset,
				 (unsigned long long)ph[i].p_filesz, (unsigned long long)file_size);
			return -ENOEXEC;
		}
		*interp = &ph[i];
		return 0;               /* the first one counts */
	}
	return 0;
}

int elf_check_interp_path(const char *path, size_t len, char *why, size_t why_len)
{
	why[0] = '\0';
	if (len == 0 || path[len - 1] != '\0') {
		snprintf(why, why_len, "PT_INTERP path does not end in a NUL");
		return -ENOEXEC;
	}
	return 0;
}

u64 elf_dyn_span(const Elf64_Ehdr *eh, const Elf64_Phdr *ph)
{
	u64 span = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		u64 start, end;

		if (!elf_is_load(&ph[i]))
			continue;
		elf_load_pages(&ph[i], &start, &end);
		span = end > span ? end : span;
	}
	return span;
}
