// SPDX-License-Identifier: MIT
/*
 * exec.c - execve(2): replace a process's program with an ELF executable.
 *
 * Spindle runs x86-64 ELF executables: static ones, and dynamically
 * linked ones, whose PT_INTERP names the dynamic loader (ld.so) that
 * maps their libraries and relocates them in user space.  The kernel's
 * part, as Linux's binfmt_elf: load the program, load the interpreter
 * it names, start at the interpreter's entry, and tell it in the
 * auxiliary vector where the program is (AT_PHDR, AT_ENTRY) and where
 * it is itself (AT_BASE).  Where a file goes:
 *
 *   ET_EXEC (static, non-PIE)  at the addresses its segments name
 *   ET_DYN program (a PIE)     base ELF_ET_DYN_BASE, 2/3 of the user
 *                              range: 0x555555554000, Linux's address with
 *                              randomisation off (Spindle randomises no
 *                              address, so a PIE is where gdb expects it);
 *                              a static PIE too (Linux would put one with
 *                              no PT_INTERP where mmap would)
 *   ET_DYN interpreter         just below MMAP_BASE, where Linux's first
 *                              top-down mmap would put it; the libraries
 *                              ld.so maps go below it
 *   [vvar] and [vdso]          the vDSO's data page and code, where the
 *                              next mmap would go (below ld.so), mapped
 *                              by arch_setup_additional_pages()
 *                              (kernel/arch/x86/vdso/vma.c)
 *
 * The steps, in the order Linux takes them:
 *
 *   1. open the file (fs: filp_open, kernel_read)
 *   2. copy the argument and environment strings out of the OLD address
 *      space into a kernel buffer (E2BIG beyond ARG_MAX, EFAULT)
 *   3. read and check the ELF header and program headers (ENOEXEC;
 *      the checks are kernel/elf_check.c, all done before step 4); if
 *      there is a PT_INTERP, read its path, open that file (ENOENT if
 *      there is none) and check its headers too (ELIBBAD)
 *   4. build a NEW address space off to the side: every PT_LOAD segment
 *      of the program and of its interpreter a VMA with its rights, its
 *      file bytes copied in, the rest (bss)
 *      zero; the stack VMA with argc, argv, envp and the auxiliary
 *      vector laid out as the System V ABI says (below)
 *   5. the point of no return: switch to the new mm, free the old one
 *      (or, in a vfork child, hand it back to the waiting parent),
 *      reset signal handlers, close close-on-exec files, and set the
 *      saved user registers so that the return to user mode lands on the
 *      entry point (the interpreter's, if there is one) with rsp at argc.
 * Any failure before step 5 leaves the calling program as it was, and
 * execve returns -errno to it.
 *
 * The initial stack (x86-64 psABI 3.4.1), from STACK_TOP down:
 *
 *      the path exec'd, NUL-terminated (AT_EXECFN)
 *      argument and environment strings, NUL-terminated
 *      "x86_64" (AT_PLATFORM)
 *      16 random bytes (AT_RANDOM points here)
 *      padding to 16 bytes
 *      auxv: (AT_SYSINFO_EHDR, vdso) ... (AT_NULL, 0)
 *      0, envp[envc-1] ... envp[0]
 *      0, argv[argc-1] ... argv[0]
 *      argc                                    <- rsp, 16-byte aligned
 *
 * Programs linked into the kernel image for the user test suite (see
 * tests/kernel/user/) are found under /ktest/<name> when no file of that
 * name exists, so the suite runs with or without a filesystem.
 */
#define pr_fmt(fmt) "exec: " fmt
#include <spindle/fs.h>
#include <spindle/err.h>
#include <spindle/process.h>
#include <spindle/mm_types.h>
#include <spindle/signal.h>
#include <spindle/syscalls.h>
#include <spindle/uaccess.h>
#include <spindle/sched.h>
#include <spindle/aio.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include <spindle/ratelimit.h>
#include <spindle/elf.h>
#include <spindle/mm.h>
#include <spindle/kernel_stat.h>
#include <asm/ptrace.h>
#include <asm/pgtable.h>
#include <asm/desc.h>
#include <asm/cpu.h>
#include <asm/processor.h>
#include <asm/vdso.h>

#define ARG_MAX         (128 * 1024)    /* strings + their pointers, as the historical ARG_MAX */
#define PATH_MAX        4096
#define NR_AUXV         20              /* pairs written by create_elf_tables(), at most */
BUILD_BUG_ON(2 * NR_AUXV > AT_VECTOR_SIZE);     /* mm->saved_auxv holds them all */
#define ELF_PLATFORM    "x86_64"        /* AT_PLATFORM: ld.so's $PLATFORM */
/* A PIE's base: Linux's ELF_ET_DYN_BASE, 2/3 of DEFAULT_MAP_WINDOW (2^47
 * less a page, Spindle's STACK_TOP), to the page: 0x555555554000 */
#define ELF_ET_DYN_BASE ALIGN_DOWN(STACK_TOP / 3 * 2, PAGE_SIZE)
BUILD_BUG_ON(ELF_ET_DYN_BASE + ELF_DYN_MAX_SPAN > MMAP_BASE - ELF_DYN_MAX_SPAN);

/* fs returns ERR_PTR(-errno) (include/spindle/err.h). */
static inline bool file_is_err(const struct file *f)
{
	return IS_ERR(f);
}

/* Programs linked into the kernel (tests/kernel/user/embed.S). */
extern const u8 usertest_elf_start[], usertest_elf_end[];
extern const u8 notelf_start[], notelf_end[];
static const struct {
	const char *path;
	const u8 *start, *end;
} builtin_programs[] = {
	{ "/ktest/usertest", usertest_elf_start, usertest_elf_end },
	{ "/ktest/notelf", notelf_start, notelf_end },
};

/* One ELF file exec loads: the program, or its interpreter. */
struct elf_image {
	const char *name;               /* for log lines */
	struct file *file;              /* through fs ... */
	const u8 *image;                /* ... or one linked into the kernel */
	size_t image_size;              /* of either: no offset beyond it is read */
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	unsigned long bias;             /* added to every p_vaddr: 0 for ET_EXEC */
	unsigned long phdr_addr;        /* where the program headers are mapped */
	unsigned long load_end;         /* end of the highest segment */
};

struct linux_binprm {
	const char *filename;
	struct elf_image prog;
	struct elf_image interp;        /* its PT_INTERP's file; .name NULL if none */
	char *interp_path;
	char *strings;                  /* argv's, then envp's, each with its NUL */
	size_t strings_len;
	int argc, envc;
	struct mm_struct *mm;           /* the new address space */
	unsigned long entry;            /* where the program starts: ld.so's entry, or its own */
	unsigned long sp;               /* the initial stack pointer */
};

/* Where argv/envp come from: a user array of user strings (execve) or a
 * kernel one (kernel_execve). */
struct arg_src {
	bool user;
	const void *vec;
};

/* Take f (opened for exec) as img's file, if it may be run; else drop it. */
static int exec_take_file(struct elf_image *img, struct file *f)
{
	if (!file_is_err(f)) {
		/* Linux's do_open_execat: only a regular file is a program.
		 * A directory, a device node (/dev/console would block in the
		 * first read, /dev/sdb would run whatever was written to it),
		 * a FIFO is EACCES before any byte of it is read: the open
		 * itself refuses them (__FMODE_EXEC); this is the check Linux
		 * also keeps "to be extra cautious", e.g. /proc/self/exe. */
		if (!S_ISREG(f->f_inode->i_mode)) {
			printk_ratelimited(KERN_INFO "%s: not a regular file (mode %o)\n", img->name,
				f->f_inode->i_mode & S_IFMT);
			fput(f);
			return -EACCES;
		}
		/* path_noexec: proc and sysfs files are regular, but text */
		if (f->f_inode->i_sb && (f->f_inode->i_sb->s_flags & SB_I_NOEXEC)) {
			printk_ratelimited(KERN_INFO "%s: on a %s file system, which holds no programs\n",
				img->name, f->f_inode->i_sb->s_type->name);
			fput(f);
			return -EACCES;
		}
		img->file = f;
		img->image_size = f->f_inode->i_size;
		return 0;
	}
	return (int)(long)f;
}

static int exec_open(struct linux_binprm *b)
{
	struct elf_image *img = &b->prog;
	struct file *f;
	int err;

	img->name = b->filename;
	/* Linux's /proc/self/exe is a link to the running program; Spindle
	 * has no links, so exec knows the name itself */
	if (strcmp(b->filename, "/proc/self/exe") == 0 && current->mm && current->mm->exe_file)
		f = get_file(current->mm->exe_file);
	else
		f = filp_open(b->filename, O_RDONLY | __FMODE_EXEC, 0);
	err = exec_take_file(img, f);
	if (err != -ENOENT)
		return err;
	for (unsigned i = 0; i < ARRAY_SIZE(builtin_programs); i++) {
		if (strcmp(b->filename, builtin_programs[i].path) == 0) {
			img->image = builtin_programs[i].start;
			img->image_size = builtin_programs[i].end - builtin_programs[i].start;
			return 0;
		}
	}
	return -ENOENT;
}

/* Is [pos, pos + len) inside the program's bytes?  (No overflow: the
 * offsets come straight from the file, any u64 at all.) */
static bool exec_range_ok(const struct elf_image *img, u64 pos, u64 len)
{
	return pos <= img->image_size && len <= img->image_size - pos;
}

/* Read len bytes at pos of the file; a short file is not an ELF. */
static int exec_read(struct elf_image *img, void *buf, size_t len, u64 pos)
{
	if (!exec_range_ok(img, pos, len))
		return -ENOEXEC;
	if (img->file) {
		loff_t p = pos;         /* < image_size = i_size: not negative */
		ssize_t n = kernel_read(img->file, buf, len, &p);

		if (n < 0)
			return n;
		return (size_t)n == len ? 0 : -ENOEXEC;
	}
	memcpy(buf, img->image + pos, len);
	return 0;
}

static int get_arg_ptr(struct arg_src *src, int i, const char **out)
{
	if (!src->vec) {
		*out = NULL;
	} else if (src->user) {
		const char __user *const __user *v = src->vec;

		if (copy_from_user(out, v + i, sizeof(*out)))
			return -EFAULT;
	} else {
		*out = ((const char *const *)src->vec)[i];
	}
	return 0;
}

/* Append the strings of src to b->strings; count them in *count. */
static int copy_strings(struct linux_binprm *b, struct arg_src *src, int *count)
{
	for (int i = 0;; i++) {
		const char *s;
		size_t nptrs = b->argc + b->envc + 2;   /* incl. both NULLs */
		long room = ARG_MAX - (long)b->strings_len - (long)(nptrs * sizeof(long));
		long n;
		int err = get_arg_ptr(src, i, &s);

		if (err)
			return err;
		if (!s)
			return 0;
		if (room <= 0)
			return -E2BIG;
		if (src->user) {
			n = strncpy_from_user(b->strings + b->strings_len, s, room);
			if (n < 0)
				return n;
		} else {
			n = strnlen(s, room);
			memcpy(b->strings + b->strings_len, s, n < room ? n + 1 : n);
		}
		if (n >= room)
			return -E2BIG;          /* no NUL within what is left */
		b->strings_len += n + 1;
		(*count)++;
	}
}

/* Copy len bytes from buf to addr in mm (not the live one: through the
 * direct map, allocating pages in its VMAs as needed). */
static int mm_write(struct mm_struct *mm, unsigned long addr, const void *buf, size_t len)
{
	while (len) {
		size_t off = addr & ~PAGE_MASK, n = min(len, PAGE_SIZE - off);
		char *page = mm_get_page(mm, addr);

		if (!page)
			return -ENOMEM;
		memcpy(page + off, buf, n);
		addr += n;
		buf = (const char *)buf + n;
		len -= n;
	}
	return 0;
}

/* One PT_LOAD segment of img, checked by elf_check_phdrs(): its VMA,
 * then its bytes from the file, at img->bias + p_vaddr. */
static int load_segment(struct linux_binprm *b, struct elf_image *img, const Elf64_Phdr *ph)
{
	unsigned long vaddr = img->bias + ph->p_vaddr;
	unsigned long start = ALIGN_DOWN(vaddr, PAGE_SIZE), end, vm_flags = 0;
	int err;

	if (ph->p_memsz == 0)
		return 0;
	end = PAGE_ALIGN(vaddr + ph->p_memsz);
	if (ph->p_flags & PF_R)
		vm_flags |= VM_READ;
	if (ph->p_flags & PF_W)
		vm_flags |= VM_WRITE;
	if (ph->p_flags & PF_X)
		vm_flags |= VM_EXEC;
	/* Segments may not share a page: Spindle's loader copies, so each
	 * page has one set of rights.  elf_check_phdrs() has refused such a
	 * program already; mm_add_vma() would refuse it again. */
	err = mm_add_vma(b->mm, start, end, vm_flags);
	if (err)
		return err == -EINVAL ? -ENOEXEC : err;

	for (u64 off = 0; off < ph->p_filesz;) {
		unsigned long addr = vaddr + off;
		size_t n = min((size_t)(ph->p_filesz - off), PAGE_SIZE - (addr & ~PAGE_MASK));
		char *page = mm_get_page(b->mm, addr);

		if (!page)
			return -ENOMEM;
		err = exec_read(img, page + (addr & ~PAGE_MASK), n, ph->p_offset + off);
		if (err)
			return err;
		off += n;
	}
	/* the rest of [p_vaddr, p_vaddr + p_memsz) is bss: its pages come
	 * zeroed, the partial one already, the others on first touch */
	if ((vm_flags & VM_EXEC) && img == &b->prog) {
		b->mm->start_code = start;
		b->mm->end_code = end;
	}
	/* the program headers, if this segment holds them (AT_PHDR) */
	if (ph->p_offset <= img->eh.e_phoff &&
	    img->eh.e_phoff + img->eh.e_phnum * sizeof(Elf64_Phdr) <= ph->p_offset + ph->p_filesz)
		img->phdr_addr = vaddr + (img->eh.e_phoff - ph->p_offset);
	img->load_end = max(img->load_end, end);
	return 0;
}

/* Say why a program was refused, if it is worth a line: rate-limited, as
 * every line a user can cause at will. */
static int exec_refuse(const struct elf_image *img, int err, const char *why)
{
	if (why[0])
		printk_ratelimited(KERN_INFO "%s: %s\n", img->name, why);
	return err;
}

/* Read and check img's ELF header and program headers (kernel/elf_check.c:
 * every check that needs no memory first). */
static int read_elf_headers(struct elf_image *img)
{
	char why[ELF_WHY_LEN];
	size_t phsize;
	int err;

	err = exec_read(img, &img->eh, sizeof(img->eh), 0);
	if (err)
		return err;
	err = elf_check_header(&img->eh, img->image_size, why, sizeof(why));
	if (err)
		return exec_refuse(img, err, why);
	phsize = img->eh.e_phnum * sizeof(Elf64_Phdr);    /* <= ELF_MAX_PHNUM entries */
	img->ph = kmalloc(phsize, GFP_KERNEL);
	if (!img->ph)
		return -ENOMEM;
	err = exec_read(img, img->ph, phsize, img->eh.e_phoff);
	if (err)
		return err;
	err = elf_check_phdrs(&img->eh, img->ph, img->image_size, why, sizeof(why));
	if (err)
		return exec_refuse(img, err, why);
	return 0;
}

/*
 * The program's PT_INTERP, if it has one: read the path, open that file
 * and check its headers, all before any memory is built.  The errors are
 * Linux's: the path's own faults are the program's (ENOEXEC), a file
 * that is not there or may not be run is open's error (ENOENT, EACCES),
 * and a file that is not an x86-64 ELF is a bad library (ELIBBAD; EIO if
 * it is shorter than an ELF header, as Linux's elf_read()).  An
 * interpreter's own PT_INTERP is ignored, as Linux's load_elf_interp()
 * ignores it: only its PT_LOAD segments are loaded.
 */
static int open_interp(struct linux_binprm *b)
{
	const Elf64_Phdr *ph;
	char why[ELF_WHY_LEN];
	int err;

	err = elf_find_interp(&b->prog.eh, b->prog.ph, b->prog.image_size, &ph, why, sizeof(why));
	if (err)
		return exec_refuse(&b->prog, err, why);
	if (!ph)
		return 0;                       /* static: no interpreter */
	b->interp_path = kmalloc(ph->p_filesz, GFP_KERNEL);
	if (!b->interp_path)
		return -ENOMEM;
	err = exec_read(&b->prog, b->interp_path, ph->p_filesz, ph->p_offset);
	if (err)
		return err;
	err = elf_check_interp_path(b->interp_path, ph->p_filesz, why, sizeof(why));
	if (err)
		return exec_refuse(&b->prog, err, why);

	b->interp.name = b->interp_path;
	err = exec_take_file(&b->interp, filp_open(b->interp_path, O_RDONLY | __FMODE_EXEC, 0));
	if (err)
		return err;
	if (b->interp.image_size < sizeof(Elf64_Ehdr))
		return -EIO;
	err = read_elf_headers(&b->interp);
	if (err == -ENOEXEC) {
		printk_ratelimited(KERN_INFO "%s: interpreter %s is not a loadable x86-64 ELF file\n",
				   b->filename, b->interp_path);
		err = -ELIBBAD;
	}
	return err;
}

/* Map img's PT_LOAD segments into the new mm, at img->bias. */
static int load_image(struct linux_binprm *b, struct elf_image *img)
{
	for (int i = 0; i < img->eh.e_phnum; i++) {
		int err;

		if (img->ph[i].p_type != PT_LOAD)
			continue;
		err = load_segment(b, img, &img->ph[i]);
		if (err)
			return err;
	}
	return 0;
}

static int load_elf_binary(struct linux_binprm *b)
{
	int err;

	err = read_elf_headers(&b->prog);
	if (!err)
		err = open_interp(b);
	if (err)
		return err;

	/* the bases (the top comment says why there); checked spans
	 * (ELF_DYN_MAX_SPAN) cannot reach from one to the other */
	if (b->prog.eh.e_type == ET_DYN)
		b->prog.bias = ELF_ET_DYN_BASE;
	if (b->interp.name && b->interp.eh.e_type == ET_DYN)
		b->interp.bias = MMAP_BASE - elf_dyn_span(&b->interp.eh, b->interp.ph);

	b->mm = mm_alloc();
	if (!b->mm)
		return -ENOMEM;
	err = load_image(b, &b->prog);
	if (!err && b->interp.name)
		err = load_image(b, &b->interp);
	/* [vvar] and [vdso], below ld.so, as Linux maps them after it */
	if (!err)
		err = arch_setup_additional_pages(b->mm);
	if (err)
		return err;
	b->mm->start_brk = b->mm->brk = b->prog.load_end;
	b->entry = b->interp.name ? b->interp.bias + b->interp.eh.e_entry :
				    b->prog.bias + b->prog.eh.e_entry;
	if (b->prog.file)
		b->mm->exe_file = get_file(b->prog.file);
	return 0;
}

/* The initial stack: strings, then the vectors (see the top comment). */
static int create_elf_tables(struct linux_binprm *b)
{
	struct mm_struct *mm = b->mm;
	unsigned long p = STACK_TOP, execfn_at, strings_at, platform_at, random_at, str;
	size_t nauxv = NR_AUXV - (mm->vdso ? 0 : 1);    /* no AT_SYSINFO_EHDR without */
	size_t nwords = 1 + b->argc + 1 + b->envc + 1 + 2 * nauxv;
	size_t execfn_len = strlen(b->filename) + 1;
	u64 rnd[2] = { get_random_u64(), get_random_u64() }, *v;
	int err, i, k = 0, auxv_at;

	err = mm_add_vma(mm, STACK_TOP - STACK_SIZE, STACK_TOP, VM_READ | VM_WRITE | VM_STACK);
	if (err)
		return err == -EINVAL ? -ENOEXEC : err;     /* a segment sits there */
	p -= execfn_len;
	execfn_at = p;
	p -= b->strings_len;
	strings_at = p;
	p -= sizeof(ELF_PLATFORM);
	platform_at = p;
	p -= sizeof(rnd);
	random_at = p;
	p = ALIGN_DOWN(p, 16);
	b->sp = ALIGN_DOWN(p - nwords * sizeof(u64), 16);
	mm->start_stack = b->sp;

	v = kmalloc(nwords * sizeof(u64), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	str = strings_at;
	v[k++] = b->argc;
	for (i = 0; i < b->argc; i++) {
		v[k++] = str;
		str += strlen(b->strings + (str - strings_at)) + 1;
	}
	mm->arg_start = strings_at;             /* for /proc/<pid>/cmdline */
	mm->arg_end = str;
	v[k++] = 0;                             /* argv's terminator */
	for (i = 0; i < b->envc; i++) {
		v[k++] = str;
		str += strlen(b->strings + (str - strings_at)) + 1;
	}
	v[k++] = 0;                             /* envp's terminator */
	/*
	 * In Linux's order (create_elf_tables()).  ld.so reads AT_PHDR and
	 * AT_PHNUM to find the program's PT_DYNAMIC, AT_BASE to relocate
	 * itself, AT_ENTRY to jump to the program once the libraries are
	 * in, AT_RANDOM for the stack protector's and pointer guard's
	 * secrets, AT_PLATFORM and AT_HWCAP/AT_HWCAP2 to pick library
	 * variants, AT_SECURE to ignore LD_* variables in a setuid program
	 * (never here), AT_PAGESZ for its mmap rounding, AT_SYSINFO_EHDR
	 * (first, as x86's ARCH_DLINFO puts it) to find the vDSO's clock
	 * functions -- without it glibc makes real system calls for the
	 * time.
	 */
#define AUX(type, val) do { v[k++] = (type); v[k++] = (val); } while (0)
	auxv_at = k;
	if (mm->vdso)
		AUX(AT_SYSINFO_EHDR, mm->vdso);
	AUX(AT_HWCAP, per_cpu(cpu_info, 0).x86_capability[CPUID_1_EDX]);
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_CLKTCK, USER_HZ);
	AUX(AT_PHDR, b->prog.phdr_addr);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, b->prog.eh.e_phnum);
	AUX(AT_BASE, b->interp.name ? b->interp.bias : 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, b->prog.bias + b->prog.eh.e_entry);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, random_at);
	AUX(AT_HWCAP2, 0);              /* no ring-3 MWAIT, FSGSBASE not enabled */
	AUX(AT_EXECFN, execfn_at);
	AUX(AT_PLATFORM, platform_at);
	AUX(AT_NULL, 0);
#undef AUX
	BUG_ON((size_t)k != nwords);
	/* a copy for /proc/<pid>/auxv; the mm is not yet any task's */
	memcpy(mm->saved_auxv, v + auxv_at, 2 * nauxv * sizeof(u64));
	err = mm_write(mm, execfn_at, b->filename, execfn_len);
	if (!err)
		err = mm_write(mm, strings_at, b->strings, b->strings_len);
	if (!err)
		err = mm_write(mm, platform_at, ELF_PLATFORM, sizeof(ELF_PLATFORM));
	if (!err)
		err = mm_write(mm, random_at, rnd, sizeof(rnd));
	if (!err)
		err = mm_write(mm, b->sp, v, nwords * sizeof(u64));
	kfree(v);
	return err;
}

/* Step 5: nothing may fail from here on. */
static void exec_commit(struct linux_binprm *b)
{
	struct task_struct *t = current;
	struct mm_struct *old = t->mm;
	struct pt_regs *regs = task_pt_regs(t);
	const char *base = strrchr(b->filename, '/');
	unsigned long flags;

	/* no io-wq worker may hold the old mm past its mmput() below
	 * (fs/io-wq.c) */
	io_uring_task_cancel();
	/* under task_lock(): get_task_mm() on another CPU sees the old mm
	 * (still whole: we hold our use of it until mmput() below) or the
	 * new one (Linux's exec_mmap()) */
	task_lock(t);
	t->mm = b->mm;
	write_cr3(__pa(b->mm->pgd));
	task_unlock(t);
	b->mm = NULL;
	/* a vfork child has let go of its parent's memory: the parent
	 * goes on, and mmput() drops only this task's use of it */
	complete_vfork_done(t);
	mmput(old);

	/* Handlers belong to the old program's code: back to SIG_DFL.
	 * Ignored signals stay ignored, the mask and pending ones stay.
	 * Under tasklist_lock, which senders read the actions under. */
	spin_lock_irqsave(&tasklist_lock, flags);
	for (int i = 0; i < _NSIG; i++)
		if (t->sighand->action[i].sa_handler != SIG_IGN)
			memset(&t->sighand->action[i], 0, sizeof(t->sighand->action[i]));
	spin_unlock_irqrestore(&tasklist_lock, flags);
	files_close_on_exec(t);
	/* the old program's thread pointer, alternate signal stack and
	 * tid word were addresses in the mm just freed */
	fsbase_reset(t);
	t->sas_ss_sp = t->sas_ss_size = 0;
	t->clear_child_tid = NULL;
	t->robust_list = NULL;
	task_lock(t);                   /* /proc reads it (Linux's __set_task_comm()) */
	strlcpy(t->comm, base ? base + 1 : b->filename, sizeof(t->comm));
	task_unlock(t);

	memset(regs, 0, sizeof(*regs));
	regs->rip = b->entry;
	regs->rsp = b->sp;
	regs->cs = GDT_USER_CS;
	regs->ss = GDT_USER_DS;
	regs->rflags = X86_EFLAGS_IF | 0x2;     /* bit 1 is always set */
}

/*
 * execve from a thread of a process that has others: the new program
 * starts with one thread, the caller, so the others are killed first and
 * waited for (Linux's de_thread()).  The caller keeps the process's id:
 * if it is not the group leader it takes the leader's place -- the
 * leader's pid (getpid() is unchanged), its parent and children -- and
 * the old leader, a zombie by now, goes with the caller's old tid.
 * -EAGAIN if the group is already exiting, or another thread execs;
 * -EINTR if we are killed while we wait.
 */
static int de_thread(void)
{
	struct task_struct *me = current, *leader = me->group_leader;
	struct signal_struct *sig = me->signal;
	unsigned long flags;
	int err = 0;

	if (list_empty(&me->thread_group))
		return 0;                       /* alone: nothing to do */
	spin_lock_irqsave(&tasklist_lock, flags);
	if ((sig->flags & SIGNAL_GROUP_EXIT) || sig->group_exec_task) {
		spin_unlock_irqrestore(&tasklist_lock, flags);
		return -EAGAIN;
	}
	sig->group_exec_task = me;
	zap_other_threads(me);
	/* until the others are gone: each exiting thread wakes us */
	for (;;) {
		bool alone = me == leader ? list_empty(&me->thread_group) :
			     list_is_singular(&me->thread_group) && leader->exit_state;

		if (alone)
			break;
		if (fatal_signal_pending(me)) {
			err = -EINTR;
			break;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock_irqrestore(&tasklist_lock, flags);
		schedule();
		spin_lock_irqsave(&tasklist_lock, flags);
	}
	__set_current_state(TASK_RUNNING);
	sig->group_exec_task = NULL;
	if (err || me == leader) {
		spin_unlock_irqrestore(&tasklist_lock, flags);
		return err;
	}
	/* take the leader's place: its pid, parent and children */
	{
		int pid = me->pid;

		me->pid = leader->pid;
		leader->pid = pid;
	}
	me->group_leader = me;
	leader->group_leader = me;
	list_del_init(&leader->thread_group);
	me->parent = leader->parent;
	leader->parent = NULL;
	/* our place among the parent's children is the leader's */
	if (!list_empty(&leader->sibling)) {
		list_add(&me->sibling, &leader->sibling);
		list_del_init(&leader->sibling);
	}
	list_splice_init(&leader->children, &me->children);
	{
		struct task_struct *c;

		list_for_each_entry(c, &me->children, sibling)
			c->parent = me;
	}
	me->start_time = leader->start_time;
	if (init_process == leader)
		init_process = me;
	leader->exit_state = EXIT_DEAD;
	__exit_signal_state(leader);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	/* the references: our parent's is the leader's now (we take a new
	 * one, the old leader's goes), and ours on the old leader */
	if (me->parent)
		get_task_struct(me);
	if (me->parent)
		put_task_struct(leader);
	put_task_struct(leader);
	return 0;
}

/* Our own handlers, not shared with a task cloned by CLONE_SIGHAND
 * alone (exec resets them below: the other task's must stay). */
static int unshare_sighand(void)
{
	struct sighand_struct *sh;
	unsigned long flags;

	if (current->sighand->count == 1)
		return 0;
	sh = kmalloc(sizeof(*sh), GFP_KERNEL);
	if (!sh)
		return -ENOMEM;
	spin_lock_irqsave(&tasklist_lock, flags);
	*sh = *current->sighand;
	sh->count = 1;
	current->sighand->count--;
	current->sighand = sh;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return 0;
}

static int do_execve(const char *filename, struct arg_src argv, struct arg_src envp)
{
	struct linux_binprm *b = kzalloc(sizeof(*b), GFP_KERNEL);
	int err;

	might_sleep();
	if (!b)
		return -ENOMEM;
	b->filename = filename;
	err = exec_open(b);
	if (err)
		goto out;
	err = -ENOMEM;
	b->strings = kmalloc(ARG_MAX, GFP_KERNEL);
	if (!b->strings)
		goto out;
	err = copy_strings(b, &argv, &b->argc);
	if (!err)
		err = copy_strings(b, &envp, &b->envc);
	if (!err)
		err = load_elf_binary(b);
	if (!err)
		err = create_elf_tables(b);
	if (err)
		goto out;
	/* a kernel thread becoming a process gets its signal state */
	err = -ENOMEM;
	if (!current->sighand && alloc_signal_state(current))
		goto out;
	/* the other threads go; our own handlers (below) too */
	err = de_thread();
	if (!err)
		err = unshare_sighand();
	if (err)
		goto out;
	err = fpu_init_state(current);          /* the last step that may fail */
	if (err)
		goto out;
	exec_commit(b);
out:
	if (b->prog.file)
		fput(b->prog.file);
	if (b->interp.file)
		fput(b->interp.file);
	if (b->mm)
		mmput(b->mm);
	kfree(b->prog.ph);
	kfree(b->interp.ph);
	kfree(b->interp_path);
	kfree(b->strings);
	kfree(b);
	return err;
}

long sys_execve(const char __user *filename, const char __user *const __user *argv,
		const char __user *const __user *envp)
{
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	long n, err;

	if (!path)
		return -ENOMEM;
	n = strncpy_from_user(path, filename, PATH_MAX);
	if (n < 0)
		err = n;
	else if (n == PATH_MAX)
		err = -ENAMETOOLONG;
	else if (n == 0)
		err = -ENOENT;
	else
		err = do_execve(path, (struct arg_src){ true, argv },
				(struct arg_src){ true, envp });
	kfree(path);
	return err;
}

int kernel_execve(const char *path, const char *const argv[], const char *const envp[])
{
	int err = do_execve(path, (struct arg_src){ false, argv },
			    (struct arg_src){ false, envp });

	if (err)
		return err;
	ret_to_user(task_pt_regs(current));
}
