// SPDX-License-Identifier: MIT
/*
 * Unit tests for kernel/elf_check.c: which files exec agrees to load.
 *
 * Core:   programs built by the host's gcc and ld
 *         (tests/unit/elf/make_elves.sh, run first by unit.mk; its folder
 *         is ELF_DIR): the static non-PIE one and the PIE are accepted,
 *         and what the checks saw -- entry point, PT_LOAD segments, the
 *         PIE's interpreter and span -- is what readelf says is in them.
 * Limits: elf_bad[]: the static program with one field poked per row, the
 *         refusal and its reason; each is a way a hand-made or damaged
 *         file can lie (see tests/user/hostile_exec.c for the same
 *         programs run through execve in QEMU); interp_bad[]: the same
 *         for the PIE's PT_INTERP and its ET_DYN segments (and
 *         tests/user/dynelf_bad.py for execve's errors in QEMU).
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/elf.h>
#include <spindle/errno.h>
#include <spindle/mm.h>                /* PAGE_SIZE */
#include <spindle/printk.h>
#include <spindle/string.h>

#ifndef ELF_DIR
#define ELF_DIR "build/unit/elf"
#endif

struct elf_file {
	u8 data[64 * 1024];
	size_t size;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[ELF_MAX_PHNUM];
};

static struct elf_file f;

static void load(const char *name)
{
	const char *dir = getenv("ELF_DIR") ? getenv("ELF_DIR") : ELF_DIR;
	char path[512];
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = fopen(path, "rb");
	ck_assert_msg(in != NULL, "no %s: run tests/unit/elf/make_elves.sh", path);
	f.size = fread(f.data, 1, sizeof(f.data), in);
	fclose(in);
	ck_assert_uint_gt(f.size, sizeof(Elf64_Ehdr));
	ck_assert_uint_lt(f.size, sizeof(f.data));
	memcpy(&f.eh, f.data, sizeof(f.eh));
}

/* Run both checks as exec does: the program headers only after the
 * header passed.  Returns 0 or the error, the reason in why. */
static int check(char *why)
{
	int err = elf_check_header(&f.eh, f.size, why, ELF_WHY_LEN);

	if (err)
		return err;
	memcpy(f.ph, f.data + f.eh.e_phoff, f.eh.e_phnum * sizeof(Elf64_Phdr));
	return elf_check_phdrs(&f.eh, f.ph, f.size, why, ELF_WHY_LEN);
}

/* The accepted program's checks against readelf's view (<name>.txt):
 * the entry, then each LOAD in order; the interpreter's path into
 * interp (or "" if there is none); the end of the last LOAD into *end. */
static void compare_readelf(const char *name, char *interp, size_t interp_len,
			    unsigned long long *end)
{
	const char *dir = getenv("ELF_DIR") ? getenv("ELF_DIR") : ELF_DIR;
	char path[512], word[16], fmt[32];
	unsigned long long a, b;
	int loads = 0;
	FILE *txt;

	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	txt = fopen(path, "r");
	ck_assert_ptr_nonnull(txt);
	ck_assert_int_eq(fscanf(txt, "entry %llx\n", &a), 1);
	ck_assert_uint_eq(f.eh.e_entry, a);
	while (fscanf(txt, "load %llx %llx %15s\n", &a, &b, word) == 3) {
		const Elf64_Phdr *p = NULL;

		for (int i = 0, n = 0; i < f.eh.e_phnum; i++)
			if (f.ph[i].p_type == PT_LOAD && n++ == loads)
				p = &f.ph[i];
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(p->p_vaddr, a);
		ck_assert_uint_eq(p->p_memsz, b);
		ck_assert_int_eq(!!(p->p_flags & PF_X), strchr(word, 'E') != NULL);
		*end = a + b;
		loads++;
	}
	interp[0] = '\0';
	snprintf(fmt, sizeof(fmt), "interp %%%zus\n", interp_len - 1);
	if (fscanf(txt, fmt, interp) != 1)
		interp[0] = '\0';
	fclose(txt);
	ck_assert_int_ge(loads, 2);
}

START_TEST(gcc_static_accepted)
{
	char why[ELF_WHY_LEN], interp[256];
	const Elf64_Phdr *ip;
	unsigned long long end;

	load("static");
	ck_assert_int_eq(check(why), 0);
	ck_assert_str_eq(why, "");
	ck_assert_uint_eq(f.eh.e_type, ET_EXEC);
	compare_readelf("static", interp, sizeof(interp), &end);
	/* no PT_INTERP: readelf names none, and exec finds none */
	ck_assert_str_eq(interp, "");
	ck_assert_int_eq(elf_find_interp(&f.eh, f.ph, f.size, &ip, why, sizeof(why)), 0);
	ck_assert_ptr_null(ip);
}
END_TEST

/* The PIE: ET_DYN, its first segment at 0 (exec adds the base), and the
 * interpreter readelf names is what exec would read and open. */
START_TEST(gcc_pie_accepted)
{
	char why[ELF_WHY_LEN], interp[256];
	const Elf64_Phdr *ip;
	unsigned long long end;

	load("pie");
	ck_assert_int_eq(check(why), 0);
	ck_assert_str_eq(why, "");
	ck_assert_uint_eq(f.eh.e_type, ET_DYN);
	compare_readelf("pie", interp, sizeof(interp), &end);
	ck_assert_str_ne(interp, "");
	ck_assert_int_eq(elf_find_interp(&f.eh, f.ph, f.size, &ip, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(ip);
	ck_assert_uint_eq(ip->p_filesz, strlen(interp) + 1);
	ck_assert_int_eq(elf_check_interp_path((const char *)f.data + ip->p_offset, ip->p_filesz,
					       why, sizeof(why)), 0);
	ck_assert_str_eq((const char *)f.data + ip->p_offset, interp);
	/* the pages it takes from its base: to the end of the last LOAD */
	ck_assert_uint_eq(elf_dyn_span(&f.eh, f.ph), (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1ull));
}
END_TEST

/* The static program's segments, as make_elves.sh builds it: text at
 * index 1 (R E, 0x401000), bss at index 3 (RW, 0x403000), GNU_STACK last. */
#define PH_TEXT  1
#define PH_BSS   3

static Elf64_Phdr *ph_in_file(int i)
{
	return (Elf64_Phdr *)(f.data + f.eh.e_phoff) + i;
}

static void bad_magic(void)     { f.eh.e_ident[1] = 'e'; }
static void bad_class(void)     { f.eh.e_ident[EI_CLASS] = 1; }
static void bad_machine(void)   { f.eh.e_machine = 3; }
static void no_phdrs(void)      { f.eh.e_phnum = 0; }
static void many_phdrs(void)    { f.eh.e_phnum = ELF_MAX_PHNUM + 1; }
static void bad_phentsize(void) { f.eh.e_phentsize = 32; }
static void phoff_far(void)     { f.eh.e_phoff = ~0ull - 8; }
static void object_file(void)   { f.eh.e_type = 1; }      /* ET_REL */
static void filesz_big(void)    { ph_in_file(PH_TEXT)->p_filesz = 0x2000; }
static void vaddr_low(void)     { ph_in_file(PH_TEXT)->p_vaddr = 0x1000; }
static void vaddr_wraps(void)
{
	ph_in_file(PH_BSS)->p_memsz = ~0ull - 0x1000;
}
static void offset_far(void)    { ph_in_file(PH_TEXT)->p_offset = ~0ull - 4; }
static void shared_page(void)   { ph_in_file(PH_BSS)->p_vaddr = 0x401800; }
static void entry_data(void)    { f.eh.e_entry = 0x403000; }
static void no_code(void)       { ph_in_file(PH_TEXT)->p_flags = PF_R; }

static const struct {
	void (*poke)(void);
	const char *why;
} elf_bad[] = {
	{ bad_magic, "" },
	{ bad_class, "" },
	{ bad_machine, "" },
	{ no_phdrs, "" },
	{ many_phdrs, "" },
	{ bad_phentsize, "" },
	{ phoff_far, "program headers at 0xfffffffffffffff7 lie beyond the file" },
	{ object_file, "not an executable or shared object (ELF type 1)" },
	{ filesz_big, "PT_LOAD at 0x401000, 0x9 bytes (0x2000 from the file): not a user address range" },
	{ vaddr_low, "PT_LOAD at 0x1000, 0x9 bytes (0x9 from the file): not a user address range" },
	{ vaddr_wraps, "PT_LOAD at 0x403000, 0xffffffffffffefff bytes (0 from the file): not a user address range" },
	{ offset_far, "PT_LOAD bytes 0xfffffffffffffffb+0x9 lie beyond the file" },
	{ shared_page, "PT_LOAD at 0x401800 shares a page with the one at 0x401000" },
	{ entry_data, "entry point 0x403000 is not in an executable segment" },
	{ no_code, "entry point 0x401000 is not in an executable segment" },
};

START_TEST(refused)
{
	char why[ELF_WHY_LEN];

	load("static");
	elf_bad[_i].poke();
	ck_assert_int_eq(check(why), -ENOEXEC);
	/* the reason starts with the row's text (a file size may follow) */
	ck_assert_msg(strncmp(why, elf_bad[_i].why, strlen(elf_bad[_i].why)) == 0 &&
		      (elf_bad[_i].why[0] || !why[0]), "got '%s'", why);
}
END_TEST

/* The PIE's program headers: PT_INTERP at index 1 (make_elves.sh's gcc
 * puts PHDR first), the RW segment at 5. */
#define PIE_INTERP 1
#define PIE_RW     5

static void interp_short(void)  { ph_in_file(PIE_INTERP)->p_filesz = 1; }
static void interp_long(void)   { ph_in_file(PIE_INTERP)->p_filesz = ELF_INTERP_MAX + 1; }
static void interp_far(void)    { ph_in_file(PIE_INTERP)->p_offset = ~0ull - 4; }
static void interp_no_nul(void)
{
	const Elf64_Phdr *ip = ph_in_file(PIE_INTERP);

	f.data[ip->p_offset + ip->p_filesz - 1] = 'X';
}
static void dyn_beyond_span(void) { ph_in_file(PIE_RW)->p_vaddr = ELF_DYN_MAX_SPAN - 0x1000; }

static const struct {
	void (*poke)(void);
	const char *why;
} interp_bad[] = {
	{ interp_short, "PT_INTERP of 1 bytes: not a path" },
	{ interp_long, "PT_INTERP of 4097 bytes: not a path" },
	{ interp_far, "PT_INTERP bytes 0xfffffffffffffffb+0x1c lie beyond the file" },
	{ interp_no_nul, "PT_INTERP path does not end in a NUL" },
	{ dyn_beyond_span, "PT_LOAD at 0xffffff000, 0x20d0 bytes (0xd0 from the file): not a user address range" },
};

/* exec's order: the segments, then PT_INTERP's size and place, then
 * (once read) its last byte. */
START_TEST(interp_refused)
{
	char why[ELF_WHY_LEN];
	const Elf64_Phdr *ip;
	int err;

	load("pie");
	ck_assert_uint_eq(ph_in_file(PIE_INTERP)->p_type, PT_INTERP);
	ck_assert_uint_eq(ph_in_file(PIE_RW)->p_flags, PF_R | PF_W);
	interp_bad[_i].poke();
	err = check(why);
	if (!err)
		err = elf_find_interp(&f.eh, f.ph, f.size, &ip, why, sizeof(why));
	if (!err) {
		ck_assert_ptr_nonnull(ip);
		err = elf_check_interp_path((const char *)f.data + ip->p_offset, ip->p_filesz,
					    why, sizeof(why));
	}
	ck_assert_int_eq(err, -ENOEXEC);
	ck_assert_msg(strncmp(why, interp_bad[_i].why, strlen(interp_bad[_i].why)) == 0,
		      "got '%s'", why);
}
END_TEST

START_TEST(short_file)
{
	char why[ELF_WHY_LEN];

	/* The program headers are where the header says, but the file ends
	 * in the middle of them. */
	load("static");
	f.size = f.eh.e_phoff + 10;
	ck_assert_int_eq(elf_check_header(&f.eh, f.size, why, sizeof(why)), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(why, "lie beyond the file"));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ELF checks");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_test(core, gcc_static_accepted);
	tcase_add_test(core, gcc_pie_accepted);
	suite_add_tcase(s, core);

	tcase_add_loop_test(limits, refused, 0, ARRAY_SIZE(elf_bad));
	tcase_add_loop_test(limits, interp_refused, 0, ARRAY_SIZE(interp_bad));
	tcase_add_test(limits, short_file);
	suite_add_tcase(s, limits);
	return s;
}
