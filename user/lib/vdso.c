// SPDX-License-Identifier: MIT
/*
 * vdso.c - clock_gettime through the vDSO, when the kernel maps one
 * (kernel/arch/x86/vdso/; musl's src/internal/vdso.c does the same).
 *
 * At start-up (__libc_start_main, stdlib.c) __vdso_init() finds the
 * auxiliary vector after envp's NULL, takes AT_SYSINFO_EHDR -- the vDSO's
 * ELF header, mapped by exec -- and looks __vdso_clock_gettime up in its
 * dynamic symbol table, by name and by the version LINUX_2.6, as glibc's
 * ld.so does.  clock_gettime (syscalls.c) then calls it; without a vDSO
 * (vdso=0) the pointer stays NULL and clock_gettime is the system call.
 * The vDSO makes the system call itself for what it cannot answer, and
 * returns its -errno: the caller turns that into errno.
 *
 * Everything here reads memory exec mapped for us; nothing is written
 * but the one pointer, once, before main() runs.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#define AT_NULL         0
#define AT_SYSINFO_EHDR 33
#define PT_LOAD         1
#define PT_DYNAMIC      2
#define DT_NULL         0
#define DT_HASH         4
#define DT_STRTAB       5
#define DT_SYMTAB       6
#define DT_VERSYM       0x6ffffff0
#define DT_VERDEF       0x6ffffffc
#define STT_FUNC        2
#define VERSYM_HIDDEN   0x8000

/* the ELF structures read, as <elf.h> has them (Elf64_*) */
struct vdso_ehdr {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct vdso_phdr {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

struct vdso_dyn {
	int64_t d_tag;
	uint64_t d_val;
};

struct vdso_sym {
	uint32_t st_name;
	unsigned char st_info, st_other;
	uint16_t st_shndx;
	uint64_t st_value, st_size;
};

struct vdso_verdef {
	uint16_t vd_version, vd_flags, vd_ndx, vd_cnt;
	uint32_t vd_hash, vd_aux, vd_next;
};

struct vdso_verdaux {
	uint32_t vda_name, vda_next;
};

int (*__vdso_clock_gettime)(clockid_t, struct timespec *);

/* Is version index ndx named want, in the verdef chain at vd? */
static int version_is(const struct vdso_verdef *vd, const char *strtab, uint16_t ndx,
		      const char *want)
{
	for (;;) {
		if (vd->vd_ndx == ndx) {
			const struct vdso_verdaux *aux = (const void *)((const char *)vd + vd->vd_aux);

			return !strcmp(strtab + aux->vda_name, want);
		}
		if (!vd->vd_next)
			return 0;
		vd = (const void *)((const char *)vd + vd->vd_next);
	}
}

/* name@LINUX_2.6 in the vDSO at eh, or NULL */
static void *vdso_sym(const struct vdso_ehdr *eh, const char *name)
{
	const struct vdso_phdr *ph = (const void *)((const char *)eh + eh->e_phoff);
	const struct vdso_dyn *dyn = NULL;
	const struct vdso_sym *syms = NULL;
	const uint32_t *hash = NULL;
	const uint16_t *versym = NULL;
	const struct vdso_verdef *verdef = NULL;
	const char *strtab = NULL;
	uintptr_t bias = 0;
	int have_load = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			bias = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
			have_load = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)((const char *)eh + ph[i].p_offset);
		}
	}
	if (!have_load || !dyn)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		const void *p = (const void *)(bias + dyn->d_val);

		switch (dyn->d_tag) {
		case DT_HASH: hash = p; break;
		case DT_SYMTAB: syms = p; break;
		case DT_STRTAB: strtab = p; break;
		case DT_VERSYM: versym = p; break;
		case DT_VERDEF: verdef = p; break;
		}
	}
	if (!hash || !syms || !strtab || !versym || !verdef)
		return NULL;
	for (uint32_t i = 0; i < hash[1]; i++) {     /* nchain: the symbol count */
		if ((syms[i].st_info & 0xf) != STT_FUNC || !syms[i].st_shndx ||
		    strcmp(strtab + syms[i].st_name, name) || (versym[i] & VERSYM_HIDDEN) ||
		    !version_is(verdef, strtab, versym[i], "LINUX_2.6"))
			continue;
		return (void *)(bias + syms[i].st_value);
	}
	return NULL;
}

void __vdso_init(char **envp)
{
	const uint64_t *aux;

	while (*envp)
		envp++;
	for (aux = (const uint64_t *)(envp + 1); aux[0] != AT_NULL; aux += 2)
		if (aux[0] == AT_SYSINFO_EHDR && aux[1])
			__vdso_clock_gettime = vdso_sym((const void *)aux[1], "__vdso_clock_gettime");
}
