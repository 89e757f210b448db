// SPDX-License-Identifier: MIT
/*
 * Unit tests for kernel/elf_check.c: which files exec agrees to load.
 *
 * Core:   programs built by the host's gcc and ld
 *         (tests/unit/elf/make_elves.sh, run first by unit.mk; its folder
 *         is ELF_DIR): the static non-PIE one is accepted, and what the
 *         checks saw -- entry point, PT_LOAD segments -- is what readelf
 *         says is in it; the PIE is refused with the line a user sees.
 * Limits: elf_bad[]: the static program with one field poked per row, the
 *         refusal and its reason; each is a way a hand-made or damaged
 *         file can lie (see tests/user/hostile_exec.c for the same
 *         programs run through execve in QEMU).
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/elf.h>
#include <spindle/errno.h>
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

START_TEST(gcc_static_accepted)
{
	const char *dir = getenv("ELF_DIR") ? getenv("ELF_DIR") : ELF_DIR;
	char why[ELF_WHY_LEN], path[512], word[16];
	unsigned long long a, b;
	int loads = 0;
	FILE *txt;

	load("static");
	ck_assert_int_eq(check(why), 0);
	ck_assert_str_eq(why, "");
	/* readelf's view: the entry, then each LOAD in order */
	snprintf(path, sizeof(path), "%s/static.txt", dir);
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
		loads++;
	}
	fclose(txt);
	ck_assert_int_ge(loads, 2);
}
END_TEST

START_TEST(gcc_pie_refused)
{
	char why[ELF_WHY_LEN];

	load("pie");
	ck_assert_int_eq(check(why), -ENOEXEC);
	ck_assert_str_eq(why, "not a static non-PIE executable (ELF type 3)");
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
static void interp(void)        { ph_in_file(f.eh.e_phnum - 1)->p_type = PT_INTERP; }
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
	{ interp, "dynamically linked, not supported" },
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
	tcase_add_test(core, gcc_pie_refused);
	suite_add_tcase(s, core);

	tcase_add_loop_test(limits, refused, 0, ARRAY_SIZE(elf_bad));
	tcase_add_test(limits, short_file);
	suite_add_tcase(s, limits);
	return s;
}
