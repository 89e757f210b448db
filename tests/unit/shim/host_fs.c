// SPDX-License-Identifier: MIT
/*
 * Host stand-ins for what the file layer (fs/) needs from the rest of the
 * kernel: user copies (a host test's buffers are "user space": access_ok()
 * then memcpy), the raw console (captured in
 * host_console_buf for the tty tests), the task list and the symbolised
 * backtrace of /proc/<pid>/stack (empty: nothing sleeps on the host).
 */
#include <spindle/uaccess.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/profile.h>
#include <spindle/irq.h>
#include <spindle/time.h>
#include <spindle/kernel_stat.h>
#include <spindle/console.h>
#include <spindle/tty.h>
#include <spindle/sched.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <spindle/printk.h>
#include "host_fs.h"
#include "../../../fs/internal.h"

unsigned long host_user_hole;

/* As the kernel's: the bytes not copied.  The page holding host_user_hole
 * (below) is not mapped, so a copy into it stops at its first byte. */
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	unsigned long a = (unsigned long)to, hole = host_user_hole & PAGE_MASK, done = n;

	if (!access_ok(to, n) || !to)
		return n;
	if (host_user_hole && a < hole + PAGE_SIZE && a + n > hole)
		done = a < hole ? hole - a : 0;
	memcpy(to, from, done);
	return n - done;
}

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	if (!access_ok(from, n) || !from)
		return n;
	memcpy(to, from, n);
	return 0;
}

/*
 * Direct I/O's pinning.  A host test's "user" buffer must lie in the fake
 * RAM (allocated with alloc_pages()), where pages have a struct page; a
 * page outside it, a free one, or the one holding host_user_hole, is "not
 * mapped", as an unmapped user page would be.  A block of several pages
 * counts its users on its head page only, so only a head is pinned.
 */

long pin_user_pages_fast(unsigned long start, unsigned int nr_pages,
			 unsigned int gup_flags, struct page **pages)
{
	unsigned long ram = (unsigned long)host_phys_base, ram_end = ram + max_pfn * PAGE_SIZE;
	unsigned int i;

	(void)gup_flags;
	start &= PAGE_MASK;
	for (i = 0; i < nr_pages; i++) {
		unsigned long a = start + (unsigned long)i * PAGE_SIZE;
		struct page *pg;

		if (a < ram + PAGE_SIZE || a >= ram_end || a == (host_user_hole & PAGE_MASK))
			break;
		pg = virt_to_page((void *)a);
		if (pg->flags & (PG_buddy | PG_reserved))
			break;
		if (pg->flags & PG_head)
			get_page(pg);
		pages[i] = pg;
	}
	return i ? (long)i : -EFAULT;
}

void unpin_user_page(struct page *page)
{
	if (page->flags & PG_head)
		put_page(page);
}

/* The kernel profiler (kernel/profile.c) does not run on the host:
 * profiling is off, so /proc/profile does not exist. */
size_t profile_size(void)
{
	return 0;
}

size_t profile_read(void *buf, size_t size)
{
	(void)buf;
	(void)size;
	return 0;
}

void profile_reset(void)
{
}

/* lockdep (kernel/sched/lockdep.c) does not run on the host: no lock
 * classes, so /proc/lock_stat would be empty. */
int lock_stat_show(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return 0;
}

void lock_stat_clear(void)
{
}

/* No interrupt controllers on the host: /proc/interrupts has only its
 * header line. */
int show_interrupts(char *buf, size_t size)
{
	return scnprintf(buf, size, "%*s%-11s\n", 11, "", "CPU0");
}

/* No CPUID on the host side of the tests: one CPU, named as such. */
int show_cpuinfo(char *buf, size_t size)
{
	return scnprintf(buf, size, "processor\t: 0\nmodel name\t: host shim\n\n");
}

/* kernel/version.c needs the build's compile.h: the host's line says so */
const char spindle_banner[] = "Spindle version 0.1 (host) (host unit tests) #1\n";

/* ... and no irq has a handler: /proc/irq holds default_smp_affinity
 * alone, every CPU (the host's one). */
bool irq_has_action(unsigned int irq)
{
	(void)irq;
	return false;
}

int irq_affinity_show(int irq, bool list, bool effective, char *buf, size_t size)
{
	(void)effective;
	if (irq >= 0)
		return -EINVAL;
	return scnprintf(buf, size, list ? "0\n" : "1\n");
}

int irq_affinity_store(int irq, bool list, const char *buf, size_t len)
{
	(void)irq; (void)list; (void)buf; (void)len;
	return -EIO;
}

/* One CPU, CPU 0, with fixed counters: /proc/stat's layout is what the
 * host tests check (check_vfs), the counting is the kernel's. */
struct cpumask __cpu_online_mask = { .bits = 1 };
/* per-CPU copies the kernel code under test makes (blk-mq's software
 * queues), and the CPU it believes it runs on: a test may set both */
unsigned int nr_cpu_ids = 1;
unsigned int host_cpu;
unsigned long total_forks = 7;

void kcpustat_cpu_fetch(struct kernel_cpustat *dst, unsigned int cpu)
{
	(void)cpu;
	for (int i = 0; i < NR_STATS; i++)
		dst->cpustat[i] = (u64)(i + 1) * 10000000ull;   /* i + 1 USER_HZ ticks */
}

u64 nr_context_switches(void) { return 42; }
unsigned int nr_iowait(void) { return 1; }
unsigned int nr_running(void) { return 2; }
u64 get_boot_time_seconds(void) { return 1764892800; }
u64 ktime_get_real_ns(void) { return get_boot_time_seconds() * NSEC_PER_SEC + ktime_get_ns(); }
u64 irq_count(unsigned int irq) { return irq == 0 ? 5 : 0; }

unsigned long clear_user(void __user *to, unsigned long n)
{
	if (!access_ok(to, n) || !to)
		return n;
	memset(to, 0, n);
	return 0;
}

long strncpy_from_user(char *dst, const char __user *src, long count)
{
	long i;

	if (!src || !access_ok(src, 1))
		return -EFAULT;
	for (i = 0; i < count; i++) {
		dst[i] = src[i];
		if (!dst[i])
			return i;
	}
	return count;
}

char host_console_buf[HOST_CONSOLE_BUF];
size_t host_console_len;

void console_write_raw(const char *s, size_t len)
{
	if (host_console_len + len >= sizeof(host_console_buf))
		len = sizeof(host_console_buf) - 1 - host_console_len;
	memcpy(host_console_buf + host_console_len, s, len);
	host_console_len += len;
	host_console_buf[host_console_len] = '\0';
}

/* The console tty's driver, as COM1's registers itself: bytes sent
 * ahead of the output (TCIOFF's STOP character) go to the console buffer
 * too; a break is counted as it starts and checked to have ended. */
int host_serial_breaks;
bool host_serial_in_break;

static void host_send_xchar(char c)
{
	console_write_raw(&c, 1);
}

static void host_wait_until_sent(void)
{
}

/* a break's length is the UART's business: no time passes here */
__weak void msleep(unsigned int ms)
{
	(void)ms;
}

static void host_break_ctl(bool on)
{
	if (on)
		host_serial_breaks++;
	host_serial_in_break = on;
}

static const struct tty_operations host_tty_ops = {
	.name = "host",
	.send_xchar = host_send_xchar,
	.wait_until_sent = host_wait_until_sent,
	.break_ctl = host_break_ctl,
};

/* before any test, as serial_init() does before the tty is used */
__attribute__((constructor)) static void host_tty_register(void)
{
	tty_register_driver(&host_tty_ops);
}

LIST_HEAD(task_list);
DEFINE_SPINLOCK(tasklist_lock);

/* kernel/sched/core.c's, for /proc/<pid> */
struct task_struct *find_task_by_pid(int pid)
{
	struct task_struct *p;

	list_for_each_entry(p, &task_list, tasks)
		if (p->pid == pid && p->state != TASK_DEAD)
			return p;
	return NULL;
}

/* kernel/signal.c's: no thread groups on the host, a task is its process */
struct task_struct *find_task_by_tgid(int tgid)
{
	return find_task_by_pid(tgid);
}

int get_nr_threads(const struct task_struct *p)
{
	(void)p;
	return 1;
}

void get_task_struct(struct task_struct *p) { refcount_inc(&p->usage); }
void put_task_struct(struct task_struct *p) { refcount_dec(&p->usage); }

unsigned int stack_trace_save_tsk(struct task_struct *p, unsigned long *store,
				  unsigned int size)
{
	(void)p; (void)store; (void)size;
	return 0;
}

/* No signals on the host: every mask empty. */
void task_sigmasks(struct task_struct *t, struct task_sigmasks *m)
{
	(void)t;
	memset(m, 0, sizeof(*m));
}

/* Address spaces on the host: a test gives its task an mm whose
 * "user" addresses are host ones (check_vfs's /proc/<pid>/cmdline), so
 * reading one is a copy; nothing is ever freed. */
struct mm_struct *get_task_mm(struct task_struct *t)
{
	return t->mm;
}

void mmput(struct mm_struct *mm)
{
	(void)mm;
}

/* aio's ring page (fs/aio.c): zeroed host memory, a "user" address as the
 * tests' buffers are, with a VMA find_vma() finds (aio marks its ring's).
 * Nothing else maps on the host. */
#define HOST_VMAS 64
static struct vm_area_struct host_vmas[HOST_VMAS];

long do_mmap(struct file *file, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, unsigned long off)
{
	struct vm_area_struct *vma = NULL;
	void *p;

	(void)prot; (void)flags; (void)off;
	if (file || addr)
		return -EINVAL;
	for (int i = 0; i < HOST_VMAS && !vma; i++)
		if (!host_vmas[i].vm_start)
			vma = &host_vmas[i];
	p = vma ? aligned_alloc(PAGE_SIZE, PAGE_ALIGN(len)) : NULL;
	if (!p)
		return -ENOMEM;
	memset(p, 0, PAGE_ALIGN(len));
	memset(vma, 0, sizeof(*vma));
	vma->vm_start = (unsigned long)p;
	vma->vm_end = vma->vm_start + PAGE_ALIGN(len);
	return (long)p;
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	(void)mm; (void)len;
	for (int i = 0; i < HOST_VMAS; i++)
		if (host_vmas[i].vm_start == start)
			memset(&host_vmas[i], 0, sizeof(host_vmas[i]));
	free((void *)start);
	return 0;
}

/* the mapping that holds addr (the host's are scattered: no order) */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	(void)mm;
	for (int i = 0; i < HOST_VMAS; i++)
		if (host_vmas[i].vm_start <= addr && addr < host_vmas[i].vm_end)
			return &host_vmas[i];
	return NULL;
}

/* one CPU: "every CPU" is this one */
void on_each_cpu(smp_call_func_t func, void *info, bool wait)
{
	(void)wait;
	func(info);
}

void *mm_get_page(struct mm_struct *mm, unsigned long addr)
{
	(void)mm;
	return (void *)addr;
}

/* No process maps a file on the host: truncation has no PTEs to clear. */
bool mm_fault_trace;

void unmap_mapping_range(struct address_space *mapping, pgoff_t index)
{
	(void)mapping;
	(void)index;
}

size_t access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, size_t len)
{
	(void)mm;
	memcpy(buf, (const void *)addr, len);
	return len;
}

int ksym_snprint(char *buf, size_t len, unsigned long addr)
{
	return scnprintf(buf, len, "%#lx", addr);
}

/* The host has no kernel symbol table: /proc/kallsyms is empty. */
int ksym_show_all(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return 0;
}

/* A fresh file tree: ramfs at "/", the other types registered, and the
 * test task with descriptors 0-2 on the console and cwd "/". */
void host_vfs_init(void)
{
	if (names_cache_init())
		abort();
	init_ramfs_fs();
	init_ext2_fs();
	init_devtmpfs();
	init_proc_fs();
	init_sysfs();
	if (init_mount_tree())
		abort();
	if (!current->tasks.next)
		list_add_tail(&current->tasks, &task_list);
	current->pid = current->tgid = 1;
	current->group_leader = current;        /* a process of one thread */
	if (init_task_files(current))
		abort();
}

/* Signals (kernel/signal.c) do not exist on the host: nothing is pending,
 * and a ^C goes nowhere unless a test defines its own kill_pgrp. */
bool signal_pending(struct task_struct *t)
{
	(void)t;
	return false;
}

bool fatal_signal_pending(struct task_struct *t)
{
	(void)t;
	return false;
}

/* One session on the host: every group is ours (TIOCSPGRP's check). */
__weak int session_of_pgrp(int pgrp)
{
	(void)pgrp;
	return current->sid;
}

__weak int kill_pgrp(int pgrp, int sig)
{
	(void)pgrp; (void)sig;
	return -ESRCH;
}

/* Job control at the terminal: on the host, nothing is ignored and no
 * group orphaned (the test's current has no mm, so the tty never asks). */
__weak bool is_ignored(int sig)
{
	(void)sig;
	return false;
}

__weak bool is_current_pgrp_orphaned(void)
{
	return false;
}

/* Nor are signal masks (fs/select.c): a wait's mask is accepted and
 * changes nothing, no signal being pending anyway. */
int set_user_sigmask(const void __user *umask, size_t sigsetsize)
{
	(void)umask; (void)sigsetsize;
	return 0;
}

/* poll(2) (fs/select.c) is not built for the host: the pipes and the tty
 * tell nobody that their state changed. */
void poll_notify(void)
{
}
