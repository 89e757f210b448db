/* SPDX-License-Identifier: MIT */
/*
 * elf.h - the ELF64 structures exec reads (System V ABI, "ELF-64 Object
 * File Format" 1.5, and the x86-64 psABI for the auxiliary vector).
 */
#ifndef SPINDLE_ELF_H
#define SPINDLE_ELF_H

#include <spindle/types.h>
#include <spindle/compiler.h>

#define EI_NIDENT       16
#define ELFMAG          "\177ELF"
#define EI_CLASS        4
#define ELFCLASS64      2
#define EI_DATA         5
#define ELFDATA2LSB     1               /* little-endian */
#define EI_VERSION      6
#define EV_CURRENT      1

#define ET_EXEC         2               /* fixed-address executable */
#define ET_DYN          3               /* shared object, or a PIE */
#define EM_X86_64       62

typedef struct {
	u8  e_ident[EI_NIDENT];
	u16 e_type;
	u16 e_machine;
	u32 e_version;
	u64 e_entry;                    /* where execution starts */
	u64 e_phoff;                    /* program header table: file offset */
	u64 e_shoff;
	u32 e_flags;
	u16 e_ehsize;
	u16 e_phentsize;
	u16 e_phnum;
	u16 e_shentsize;
	u16 e_shnum;
	u16 e_shstrndx;
} Elf64_Ehdr;
BUILD_BUG_ON(sizeof(Elf64_Ehdr) != 64);

#define PT_LOAD         1               /* a segment to map */
#define PT_INTERP       3               /* needs a dynamic loader: its path */
#define PT_PHDR         6               /* the program headers themselves */
#define PF_X            0x1
#define PF_W            0x2
#define PF_R            0x4

typedef struct {
	u32 p_type;
	u32 p_flags;
	u64 p_offset;                   /* where its bytes are in the file */
	u64 p_vaddr;                    /* where they go in memory */
	u64 p_paddr;
	u64 p_filesz;                   /* bytes from the file ... */
	u64 p_memsz;                    /* ... and the rest (bss) zero */
	u64 p_align;
} Elf64_Phdr;
BUILD_BUG_ON(sizeof(Elf64_Phdr) != 56);

/* The auxiliary vector: what the kernel tells a new program about itself,
 * as (type, value) pairs above envp on its stack. */
#define AT_NULL         0
#define AT_PHDR         3               /* address of the program headers */
#define AT_PHENT        4
#define AT_PHNUM        5
#define AT_PAGESZ       6
#define AT_BASE         7               /* where the interpreter (ld.so) is loaded; 0: none */
#define AT_FLAGS        8               /* 0 */
#define AT_ENTRY        9               /* the program's entry (not ld.so's) */
#define AT_UID          11
#define AT_EUID         12
#define AT_GID          13
#define AT_EGID         14
#define AT_PLATFORM     15              /* "x86_64": a string on the stack */
#define AT_HWCAP        16              /* CPUID leaf 1's EDX */
#define AT_CLKTCK       17              /* times()'s ticks per second (USER_HZ) */
#define AT_SECURE       23
#define AT_RANDOM       25              /* 16 random bytes (stack protector seed) */
#define AT_HWCAP2       26              /* more features: bit 1 FSGSBASE usable */
#define AT_EXECFN       31              /* the path exec'd */
#define AT_SYSINFO_EHDR 33              /* the vDSO's ELF header (kernel/arch/x86/vdso/) */

/*
 * What exec checks before it allocates anything for a program
 * (kernel/elf_check.c; portable, also run by the host unit tests and the
 * fuzzer).  file_size is the program's size in bytes; every offset and
 * size in the headers is checked against it, so that no later read or
 * copy can leave the file.  Each returns 0, or -ENOEXEC with the reason
 * in why (why_len bytes) -- "" for a file that is not an x86-64 ELF
 * executable at all (a script, a text file), which is not worth a log line.
 */
#define ELF_MAX_PHNUM   64              /* program headers exec reads */
#define ELF_WHY_LEN     128             /* a reason's buffer, for callers */
#define ELF_INTERP_MAX  4096            /* PT_INTERP's bytes, NUL included (PATH_MAX) */
/*
 * An ET_DYN file (a PIE, ld.so) has its segments at addresses relative
 * to a base that exec chooses: they must lie in its first
 * ELF_DYN_MAX_SPAN bytes, so that any base exec uses keeps them in the
 * user range (kernel/exec.c says where the bases are).
 */
#define ELF_DYN_MAX_SPAN (1ull << 36)   /* 64 GiB */

/* The ELF header (the first sizeof(Elf64_Ehdr) bytes of the file):
 * an x86-64 ET_EXEC or ET_DYN whose program headers are in the file. */
int elf_check_header(const Elf64_Ehdr *eh, u64 file_size, char *why, size_t why_len);

/*
 * The program headers (eh->e_phnum of them, read from eh->e_phoff), of a
 * header that passed elf_check_header().  After this, exec may trust that
 * every PT_LOAD with bytes in memory takes no more bytes from the file
 * than it has in memory and finds them in the file, shares no page with
 * another segment, and lies in the user range ELF_MIN_VADDR..ELF_MAX_VADDR
 * (ET_EXEC) or in 0..ELF_DYN_MAX_SPAN (ET_DYN, before its base is added);
 * and that the entry point lies in the pages of the last executable
 * segment (which becomes the mm's code).
 */
int elf_check_phdrs(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, u64 file_size,
		    char *why, size_t why_len);

/*
 * The program's PT_INTERP, if any (the first, as Linux takes), of headers
 * that passed elf_check_phdrs(): *interp is NULL when there is none.
 * -ENOEXEC if its size is under 2 or over ELF_INTERP_MAX bytes or its
 * bytes are not in the file.  Once exec has read those bytes,
 * elf_check_interp_path() wants the last of them NUL (-ENOEXEC).
 */
int elf_find_interp(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, u64 file_size,
		    const Elf64_Phdr **interp, char *why, size_t why_len);
int elf_check_interp_path(const char *path, size_t len, char *why, size_t why_len);

/* The pages a checked ET_DYN file's segments take, from its base:
 * [0, elf_dyn_span()), page-aligned, at most ELF_DYN_MAX_SPAN. */
u64 elf_dyn_span(const Elf64_Ehdr *eh, const Elf64_Phdr *ph);

#endif /* SPINDLE_ELF_H */
