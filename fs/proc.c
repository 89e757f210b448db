// SPDX-License-Identifier: MIT
/*
 * proc.c - procfs ("proc"): the kernel's state as text files, in Linux's
 * formats so that tools and habits carry over.
 *
 *   /proc/partitions  /proc/diskstats   formatted by the block layer
 *                                       (blk_show_partitions/diskstats)
 *   /proc/vmstat      nr_free_pages, pgpgin, pgpgout
 *   /proc/loadavg     the 1, 5, 15 minute load averages, running/all tasks,
 *                     the highest pid (include/spindle/loadavg.h)
 *   /proc/interrupts  each irq's count, controller, trigger and handlers
 *                     (formatted by kernel/arch/x86/irq.c)
 *   /proc/irq/N/      where irq N goes: smp_affinity[_list] (read and
 *                     written), effective_affinity[_list]; and
 *                     /proc/irq/default_smp_affinity (the irq layer's text)
 *   /proc/stat        each CPU's user, system, idle and iowait time, the
 *                     irqs, context switches, btime, tasks made, running
 *                     and blocked (kernel/sched/cputime.c)
 *   /proc/uptime      seconds since boot, and idle seconds of all CPUs
 *   /proc/cpuinfo     each online CPU as CPUID describes it, Linux's
 *                     layout (formatted by kernel/arch/x86/cpu.c)
 *   /proc/version     the kernel, its build's user@host, compiler and
 *                     time (kernel/version.c)
 *   /proc/meminfo     MemTotal, MemFree, ... Buffers + Cached: the page cache,
 *                     Dirty, Writeback (include/spindle/pagemap.h)
 *   /proc/sys/vm/     drop_caches, and the write-back knobs dirty_ratio, dirty_background_ratio,
 *                     dirty_expire_centisecs, dirty_writeback_centisecs
 *                     (read and written, include/spindle/writeback.h)
 *   /proc/sys/kernel/ ostype, osrelease, hostname: uname(2)'s sysname,
 *                     release and nodename (read only: no sethostname)
 *   /proc/slabinfo    kmalloc's caches, objects in use and slabs (Linux's
 *                     "slabinfo - version: 2.1" layout)
 *   /proc/mounts      one line per mount
 *   /proc/kallsyms    the kernel's functions, "<address> T <name>" (Linux's)
 *   /proc/lock_stat   each spinlock class's acquisitions, contentions and
 *                     bounces between CPUs, with lock_stat=1 (Linux's
 *                     layout, fewer columns; a write clears: lockdep.c)
 *   /proc/profile     the kernel profiler's counts, with profile= (binary,
 *                     Linux's layout for readprofile(8); a write resets)
 *   /proc/<pid>/stat  Linux's 52 fields (utime, stime, starttime and the
 *                     CPU it last ran on among them); those Spindle does
 *                     not track are 0
 *   /proc/<pid>/stack the kernel backtrace of a sleeping task
 *   /proc/<pid>/cmdline  its argv, NUL-separated, read from its memory
 *   /proc/<pid>/auxv  the auxiliary vector exec gave it: binary (type,
 *                     value) pairs of unsigned long, AT_NULL's last
 *   /proc/self        the directory of whoever looks
 *
 * Nothing is stored: every lookup builds an inode, every open calls the
 * file's show() (pseudo.c).  A pid directory holds the pid, not the task,
 * so a task that exits meanwhile just makes its files fail with ESRCH.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/sched.h>
#include <spindle/sched_debug.h>
#include <spindle/ksyms.h>
#include <spindle/profile.h>
#include <spindle/blkdev.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/pagemap.h>
#include <spindle/writeback.h>
#include <spindle/loadavg.h>
#include <spindle/irq.h>
#include <spindle/kernel_stat.h>
#include <spindle/version.h>
#include <spindle/elf.h>
#include "internal.h"

#define PROC_TEXT_BIG   (32 * 1024)     /* partitions, diskstats: many disks */
#define PROC_STACK_MAX  64              /* frames in /proc/<pid>/stack */
#define PROC_CMDLINE_MAX (32 * 1024)    /* bytes of /proc/<pid>/cmdline shown */

/* --- the system-wide files ---------------------------------------------------- */

static int partitions_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return blk_show_partitions(buf, size);
}

static int diskstats_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return blk_show_diskstats(buf, size);
}

int proc_vmstat_show(char *buf, size_t size)
{
	struct vm_events ev;

	all_vm_events(&ev);
	return scnprintf(buf, size, "nr_free_pages %lu\npgpgin %llu\npgpgout %llu\n",
			 nr_free_pages(), (unsigned long long)ev.pgpgin,
			 (unsigned long long)ev.pgpgout);
}

static int vmstat_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return proc_vmstat_show(buf, size);
}

/* One meminfo line as Linux: the label padded to 16 columns, kB. */
static int meminfo_line(char *buf, size_t size, const char *label, unsigned long pages)
{
	char lab[24];

	snprintf(lab, sizeof(lab), "%s:", label);
	return scnprintf(buf, size, "%-16s%8lu kB\n", lab, pages * (PAGE_SIZE / 1024));
}

/*
 * The page cache, split as Linux splits it: "Buffers" are the block
 * devices' own pages (/dev/sdX read or written, a file system's metadata
 * when it keeps it there), "Cached" every file's.  Dirty: waiting for
 * write-back; Writeback: on its way to the disk now.
 */
int proc_meminfo_show(char *buf, size_t size)
{
	unsigned long free = nr_free_pages();
	struct page_cache_stats st;
	int n = 0;

	page_cache_stats(&st);
	n += meminfo_line(buf + n, size - n, "MemTotal", totalram_pages());
	n += meminfo_line(buf + n, size - n, "MemFree", free);
	n += meminfo_line(buf + n, size - n, "MemAvailable", free + st.nr_pages - st.nr_dirty);
	n += meminfo_line(buf + n, size - n, "Buffers", st.nr_bdev);
	n += meminfo_line(buf + n, size - n, "Cached", st.nr_pages - st.nr_bdev);
	n += meminfo_line(buf + n, size - n, "SwapCached", 0);
	n += meminfo_line(buf + n, size - n, "SwapTotal", 0);
	n += meminfo_line(buf + n, size - n, "SwapFree", 0);
	n += meminfo_line(buf + n, size - n, "Dirty", st.nr_dirty);
	n += meminfo_line(buf + n, size - n, "Writeback", st.nr_writeback);
	return n;
}

/* Linux's nr_running counts the reader itself, as this does; its last
 * field is the pid handed out last, here the highest in use. */
static int loadavg_show(struct inode *inode, char *buf, size_t size)
{
	unsigned long loads[3], flags;
	unsigned int running = 0, total = 0;
	struct task_struct *p;
	int last_pid = 0;

	(void)inode;
	for (int i = 0; i < 3; i++)
		loads[i] = READ_ONCE(avenrun[i]);
	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(p, &task_list, tasks) {
		if (!p->pid || p->state == TASK_DEAD)
			continue;
		total++;
		running += p->state == TASK_RUNNING;
		last_pid = max(last_pid, p->pid);
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return loadavg_format(buf, size, loads, running, total, last_pid);
}

static int meminfo_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return proc_meminfo_show(buf, size);
}

/*
 * /proc/slabinfo, counted from the page frames: every PG_slab page is one
 * slab, page->inuse its objects handed out, kmem_cache_size() of its
 * cache the size of its objects.  Counting here, not in the allocator, keeps
 * slab.c free of statistics it would have to keep up to date.  Other
 * CPUs make and free slabs during the walk, so the figures are a
 * moment's approximation, as Linux's are; the caches themselves are
 * static and never go away under it.  Linux's columns, every slab one
 * page.  The tunables are the per-CPU arrays' (limit and batchcount, as
 * Linux's SLAB shows them; no shared array: sharedfactor 0), and the
 * free objects parked in them are not active: page->inuse counts them,
 * kmalloc_slabinfo() says how many to take off.  (Linux's SLAB counts
 * them as active; a leak check comparing active objects would then see
 * the arrays fill up.)
 */
#define SLABINFO_SIZES 8 /* kmalloc-16 .. kmalloc-2048 */

static int slabinfo_show(struct inode *inode, char *buf, size_t size)
{
	unsigned long active[SLABINFO_SIZES] = { 0 }, slabs[SLABINFO_SIZES] = { 0 };
	int n;

	(void)inode;
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		size_t objsize;
		int i = 0;

		if (!(page->flags & PG_slab))
			continue;
		objsize = kmem_cache_size(page->slab_cache);
		while (i < SLABINFO_SIZES - 1 && (16ul << i) < objsize)
			i++;
		active[i] += page->inuse;
		slabs[i]++;
	}
	n = scnprintf(buf, size, "slabinfo - version: 2.1\n"
				 "# name            <active_objs> <num_objs> <objsize> <objperslab> "
				 "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
				 "slabdata <active_slabs> <num_slabs> <sharedavail>\n");
	for (int i = SLABINFO_SIZES - 1; i >= 0; i--) {
		unsigned long objsize = 16ul << i, per_slab = PAGE_SIZE / objsize;
		struct slabinfo info;
		char name[24];

		kmalloc_slabinfo(objsize, &info);
		/* the arrays and the slabs are read at different moments */
		active[i] -= min(active[i], info.cpu_free);
		snprintf(name, sizeof(name), "kmalloc-%lu", objsize);
		n += scnprintf(buf + n, size - n,
			       "%-17s %6lu %6lu %6lu %4lu %4d : tunables %4u %4u %4u : "
			       "slabdata %6lu %6lu %6u\n",
			       name, active[i], slabs[i] * per_slab, objsize, per_slab, 1,
			       info.limit, info.batchcount, 0, slabs[i], slabs[i], 0);
	}
	return n;
}

static int mounts_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return show_mounts(buf, size);
}

/* what the mounts are is the namespace's (fs/namespace.c) */
static int mountinfo_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return show_mountinfo(buf, size);
}

static int filesystems_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return show_filesystems(buf, size);
}

/* No swap: Linux's header line alone, as free(1) and swapon -s read it */
static int swaps_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return scnprintf(buf, size, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
}

static const struct pseudo_file proc_filesystems = { .show = filesystems_show };
static const struct pseudo_file proc_swaps = { .show = swaps_show };
static const struct pseudo_file proc_partitions = { .show = partitions_show, .size_hint = PROC_TEXT_BIG };
static const struct pseudo_file proc_diskstats = { .show = diskstats_show, .size_hint = PROC_TEXT_BIG };
static const struct pseudo_file proc_vmstat = { .show = vmstat_show };
static const struct pseudo_file proc_meminfo = { .show = meminfo_show };
static const struct pseudo_file proc_loadavg = { .show = loadavg_show };

static int interrupts_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return show_interrupts(buf, size);
}

static const struct pseudo_file proc_interrupts = { .show = interrupts_show };

static int stat_cpu_line(char *buf, size_t size, const char *name, const struct kernel_cpustat *k)
{
	/* /proc/stat's column order, which is not the enum's */
	static const enum cpu_usage_stat order[] = {
		CPUTIME_USER, CPUTIME_NICE, CPUTIME_SYSTEM, CPUTIME_IDLE, CPUTIME_IOWAIT,
		CPUTIME_IRQ, CPUTIME_SOFTIRQ, CPUTIME_STEAL, CPUTIME_GUEST, CPUTIME_GUEST_NICE,
	};
	int n = scnprintf(buf, size, "%s", name);

	for (unsigned int i = 0; i < ARRAY_SIZE(order); i++)
		n += scnprintf(buf + n, size - (size_t)n, " %llu",
			       (unsigned long long)nsec_to_clock_t(k->cpustat[order[i]]));
	return n + scnprintf(buf + n, size - (size_t)n, "\n");
}

/*
 * /proc/stat, in the layout of Linux's procfs: the time of all
 * CPUs, then of each, in USER_HZ ticks, user nice system idle iowait irq
 * softirq steal guest guest_nice (kernel/sched/cputime.c); each irq's
 * count; context switches; the boot time; tasks made; runnable tasks
 * and those blocked on I/O; softirqs (none here).  top, vmstat and
 * mpstat read it.
 */
static int stat_show(struct inode *inode, char *buf, size_t size)
{
	struct kernel_cpustat sum = { { 0 } }, k;
	unsigned int cpu;
	u64 irqs = 0;
	int n;

	(void)inode;
	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&k, cpu);
		for (int i = 0; i < NR_STATS; i++)
			sum.cpustat[i] += k.cpustat[i];
	}
	n = stat_cpu_line(buf, size, "cpu ", &sum);
	for_each_online_cpu(cpu) {
		char name[8];

		kcpustat_cpu_fetch(&k, cpu);
		scnprintf(name, sizeof(name), "cpu%u", cpu);
		n += stat_cpu_line(buf + n, size - (size_t)n, name, &k);
	}
	for (unsigned int irq = 0; irq < NR_IRQS; irq++)
		irqs += irq_count(irq);
	n += scnprintf(buf + n, size - (size_t)n, "intr %llu", (unsigned long long)irqs);
	for (unsigned int irq = 0; irq < NR_IRQS; irq++)
		n += scnprintf(buf + n, size - (size_t)n, " %llu", (unsigned long long)irq_count(irq));
	n += scnprintf(buf + n, size - (size_t)n,
		       "\nctxt %llu\nbtime %llu\nprocesses %lu\nprocs_running %u\nprocs_blocked %u\n"
		       "softirq 0 0 0 0 0 0 0 0 0 0 0\n",
		       (unsigned long long)nr_context_switches(),
		       (unsigned long long)get_boot_time_seconds(), READ_ONCE(total_forks),
		       nr_running(), nr_iowait());
	return n;
}

/* /proc/uptime: seconds since boot, and seconds all CPUs spent idle
 * (summed, as Linux does), each with two decimals. */
static int uptime_show(struct inode *inode, char *buf, size_t size)
{
	u64 up = ktime_get_ns(), idle = 0;
	struct kernel_cpustat k;
	unsigned int cpu;

	(void)inode;
	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&k, cpu);
		idle += k.cpustat[CPUTIME_IDLE] + k.cpustat[CPUTIME_IOWAIT];
	}
	return scnprintf(buf, size, "%llu.%02llu %llu.%02llu\n",
			 (unsigned long long)(up / NSEC_PER_SEC),
			 (unsigned long long)(up % NSEC_PER_SEC / (NSEC_PER_SEC / 100)),
			 (unsigned long long)(idle / NSEC_PER_SEC),
			 (unsigned long long)(idle % NSEC_PER_SEC / (NSEC_PER_SEC / 100)));
}

static const struct pseudo_file proc_stat = { .show = stat_show, .size_hint = PROC_TEXT_BIG };
static const struct pseudo_file proc_uptime = { .show = uptime_show };
static const struct pseudo_file proc_slabinfo = { .show = slabinfo_show };
static const struct pseudo_file proc_mounts = { .show = mounts_show, .size_hint = PROC_TEXT_BIG };

static int kallsyms_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return ksym_show_all(buf, size);
}

static const struct pseudo_file proc_kallsyms = { .show = kallsyms_show, .size_hint = 256 * 1024 };

static int version_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return scnprintf(buf, size, "%s", spindle_banner);
}

static int cpuinfo_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return show_cpuinfo(buf, size);
}

static const struct pseudo_file proc_version = { .show = version_show };
static const struct pseudo_file proc_cpuinfo = { .show = cpuinfo_show, .size_hint = PROC_TEXT_BIG };

static int profile_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return (int)profile_read(buf, size);
}

static int profile_store(struct inode *inode, const char *buf, size_t len)
{
	(void)inode;
	(void)buf;
	(void)len;
	profile_reset();
	return 0;
}

static int lock_stat_file_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return lock_stat_show(buf, size);
}

/* any write clears the counts, as Linux's "echo 0 > /proc/lock_stat" */
static int lock_stat_file_store(struct inode *inode, const char *buf, size_t len)
{
	(void)inode;
	(void)buf;
	(void)len;
	lock_stat_clear();
	return 0;
}

static const struct pseudo_file proc_lock_stat = {
	.show = lock_stat_file_show, .store = lock_stat_file_store, .size_hint = 64 * 1024
};

/* Its size is known once profile= has been read: set at lookup. */
static struct pseudo_file proc_profile = { .show = profile_show, .store = profile_store };

/* A file of a proc directory: generated text (file), or a symbolic link
 * whose text link() gives for the directory's task */
struct task_struct;
struct proc_entry {
	const char *name;
	const struct pseudo_file *file;
	int (*link)(struct task_struct *p, char *buf, int size);
};

static const struct proc_entry proc_root_files[] = {
	{ "partitions", &proc_partitions, NULL },
	{ "diskstats", &proc_diskstats, NULL },
	{ "vmstat", &proc_vmstat, NULL },
	{ "meminfo", &proc_meminfo, NULL },
	{ "loadavg", &proc_loadavg, NULL },
	{ "interrupts", &proc_interrupts, NULL },
	{ "stat", &proc_stat, NULL },
	{ "uptime", &proc_uptime, NULL },
	{ "slabinfo", &proc_slabinfo, NULL },
	{ "mounts", &proc_mounts, NULL },
	{ "kallsyms", &proc_kallsyms, NULL },
	{ "version", &proc_version, NULL },
	{ "cpuinfo", &proc_cpuinfo, NULL },
	{ "filesystems", &proc_filesystems, NULL },
	{ "swaps", &proc_swaps, NULL },
	{ "lock_stat", &proc_lock_stat, NULL },
};

/* --- tasks --------------------------------------------------------------------- */

/* The task with this pid, referenced; NULL if there is none (any more). */
static struct task_struct *find_get_task(int pid)
{
	struct task_struct *p;
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	p = find_task_by_tgid(pid);
	if (p)
		get_task_struct(p);
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return p;
}

static char task_state_char(const struct task_struct *p)
{
	if (p->exit_state == EXIT_ZOMBIE)
		return 'Z';     /* a leader whose threads live on */
	switch (p->state) {
	case TASK_RUNNING:         return 'R';
	case TASK_INTERRUPTIBLE:   return 'S';
	case TASK_UNINTERRUPTIBLE: return 'D';
	case TASK_STOPPED:         return 'T';
	case TASK_DEAD:            return 'X';
	default:                   return '?';
	}
}

/*
 * What a process's memory adds up to, in bytes, from its VMAs (Linux's
 * task_mem() reads counters the mm keeps; Spindle counts only resident
 * pages, so the rest is summed here).  data: private writable memory
 * that is not the stack (Linux's data_vm); text: the program's code.
 */
struct proc_mem {
	unsigned long size, rss, data, stack, text;
};

static void proc_mem_sum(struct mm_struct *mm, struct proc_mem *m)
{
	struct vm_area_struct *vma;

	memset(m, 0, sizeof(*m));
	mutex_lock(&mm->mmap_lock);
	list_for_each_entry(vma, &mm->mmap, vm_list) {
		unsigned long len = vma->vm_end - vma->vm_start;

		m->size += len;
		if (vma->vm_flags & VM_STACK)
			m->stack += len;
		else if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
			m->data += len;
	}
	m->rss = READ_ONCE(mm->nr_pages) * PAGE_SIZE;
	m->text = mm->end_code > mm->start_code ? mm->end_code - mm->start_code : 0;
	mutex_unlock(&mm->mmap_lock);
}

/*
 * /proc/<pid>/stat: pid (comm) state, then Linux's fields 4..52 in order:
 * ppid, pgrp and session from the process layer; utime and stime (14,
 * 15) and starttime (22) in USER_HZ ticks (kernel/sched/cputime.c);
 * vsize (23) and rss (24) from the memory map; processor (39), the CPU
 * it last ran on.  What Spindle does not track (faults) prints 0.  tpgid is -1 (no controlling
 * terminal recorded), priority 20 and nice 0 are a normal Linux task's
 * values, field 38 exit_signal is SIGCHLD (17).
 */
/* How many threads p's process has, and its parent's pid (p may be any
 * of its threads: the leader speaks for the process) */
static void task_group_info(const struct task_struct *p, int *threads, int *ppid)
{
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	*threads = get_nr_threads(p);
	*ppid = p->group_leader->parent ? p->group_leader->parent->tgid : 0;
	spin_unlock_irqrestore(&tasklist_lock, flags);
}

int proc_pid_stat_format(struct task_struct *p, char *buf, size_t size)
{
	struct mm_struct *mm = get_task_mm(p);
	struct proc_mem m = { 0 };
	int threads, ppid, n;

	if (mm) {
		proc_mem_sum(mm, &m);
		mmput(mm);
	}

	task_group_info(p, &threads, &ppid);
	n = scnprintf(buf, size, "%d (%s) %c %d %d %d 0 -1", p->pid, p->comm,
		      task_state_char(p), ppid, p->pgid, p->sid);

	/* 9 flags .. 13 cmajflt */
	n += scnprintf(buf + n, size - n, " 0 0 0 0 0");
	/* 14 utime 15 stime 16 cutime 17 cstime */
	n += scnprintf(buf + n, size - n, " %llu %llu 0 0",
		       (unsigned long long)nsec_to_clock_t(READ_ONCE(p->utime)),
		       (unsigned long long)nsec_to_clock_t(READ_ONCE(p->stime)));
	n += scnprintf(buf + n, size - n, " %d %d %d 0", 20 + READ_ONCE(p->nice), READ_ONCE(p->nice),
		       threads);                        /* priority nice num_threads itrealvalue */
	n += scnprintf(buf + n, size - n, " %llu",      /* 22 starttime */
		       (unsigned long long)nsec_to_clock_t(p->start_time));
	/* 23 vsize in bytes, 24 rss in pages (top's VSZ and RSS) */
	n += scnprintf(buf + n, size - n, " %lu %lu", m.size, m.rss / PAGE_SIZE);
	/* 25 rsslim .. 52 exit_code: 0, except 38 exit_signal (SIGCHLD) and
	 * 39 processor */
	for (int f = 25; f <= 52; f++)
		n += scnprintf(buf + n, size - n, " %u",
			       f == 38 ? 17u : f == 39 ? task_cpu(p) : 0u);
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

static int pid_stat_show(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	int n;

	if (!p)
		return -ESRCH;
	n = proc_pid_stat_format(p, buf, size);
	put_task_struct(p);
	return n;
}

/* Linux's layout: "[<0>] function+0xoff/0xsize" (addresses hidden). */
static int pid_stack_show(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	unsigned long frames[PROC_STACK_MAX];
	unsigned int nr;
	int n = 0;

	if (!p)
		return -ESRCH;
	nr = stack_trace_save_tsk(p, frames, PROC_STACK_MAX);
	for (unsigned int i = 0; i < nr; i++) {
		char sym[96];

		ksym_snprint(sym, sizeof(sym), frames[i]);
		n += scnprintf(buf + n, size - n, "[<0>] %s\n", sym);
	}
	put_task_struct(p);
	return n;
}

/*
 * The address space of the process a /proc/<pid> file names, with a user
 * of its own (the caller mmput()s it): the process may exec or exit
 * meanwhile.  NULL with *err = -ESRCH when the process is gone, or
 * with *err = 0 for a kernel thread or a zombie, which have none.
 */
static struct mm_struct *proc_pid_mm(struct inode *inode, int *err)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	struct mm_struct *mm;

	*err = p ? 0 : -ESRCH;
	if (!p)
		return NULL;
	mm = get_task_mm(p);
	put_task_struct(p);
	return mm;
}

/*
 * /proc/<pid>/cmdline: the argument strings, each with its NUL, read
 * from the process's own memory where exec put them (mm->arg_start ..
 * arg_end) -- so a program that rewrites its argv shows the new text, as
 * on Linux.  Empty for a kernel thread and a zombie (no memory: ps then
 * shows the [name] from stat).  The reader holds a user of the mm, so
 * the process may exec or exit meanwhile; a page it has unmapped ends
 * the text there.  At most PROC_CMDLINE_MAX bytes.
 */
static int pid_cmdline_show(struct inode *inode, char *buf, size_t size)
{
	int err;
	struct mm_struct *mm = proc_pid_mm(inode, &err);
	size_t n = 0;

	if (!mm)
		return err;
	if (mm->arg_end > mm->arg_start)
		n = access_remote_vm(mm, mm->arg_start, buf,
				     min(size, (size_t)(mm->arg_end - mm->arg_start)));
	mmput(mm);
	return (int)n;
}

/*
 * /proc/<pid>/auxv: the auxiliary vector exec put on the program's stack
 * (kernel/exec.c), as the binary pairs of unsigned long it was, up to
 * and including the AT_NULL pair -- from the copy the mm keeps, so a
 * program that overwrites its stack does not change it (Linux's
 * auxv_read()).  Empty for a kernel thread and a zombie, which have no
 * mm.  Threads share their process's.
 */
static int pid_auxv_show(struct inode *inode, char *buf, size_t size)
{
	int err;
	struct mm_struct *mm = proc_pid_mm(inode, &err);
	size_t nwords = 0;

	if (!mm)
		return err;
	do
		nwords += 2;
	while (nwords < AT_VECTOR_SIZE && mm->saved_auxv[nwords - 2] != AT_NULL);
	nwords = min(nwords * sizeof(mm->saved_auxv[0]), size);
	memcpy(buf, mm->saved_auxv, nwords);
	mmput(mm);
	return (int)nwords;
}

/* /proc/<pid>/comm, /proc/<pid>/task/<tid>/comm: the name, a line */
static int pid_comm_show(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	int n;

	if (!p)
		return -ESRCH;
	task_lock(p);
	n = scnprintf(buf, size, "%s\n", p->comm);
	task_unlock(p);
	put_task_struct(p);
	return n;
}

/*
 * /proc/<pid>/syscalls: how many system calls the task has made, one
 * decimal number (Spindle's own; Linux counts only reads and writes, in
 * /proc/<pid>/io).  What shows that a call was answered in user space:
 * glibc's clock_gettime through the vDSO leaves it still
 * (tests/user/vdso.c).  A thread's under task/<tid>/; the pid's file is
 * the thread group leader's.
 */
static int pid_syscalls_show(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	int n;

	if (!p)
		return -ESRCH;
	n = scnprintf(buf, size, "%llu\n", (unsigned long long)READ_ONCE(p->nr_syscalls));
	put_task_struct(p);
	return n;
}

/* --- /proc/<pid>/status, statm, maps (Linux's fs/proc/array.c, task_mmu.c) ------ */

/* Linux's task_state_array: the letter, and the word in parentheses */
static const char *task_state_name(char c)
{
	switch (c) {
	case 'R': return "R (running)";
	case 'S': return "S (sleeping)";
	case 'D': return "D (disk sleep)";
	case 'T': return "T (stopped)";
	case 'X': return "X (dead)";
	case 'Z': return "Z (zombie)";
	default:  return "? (unknown)";
	}
}

/* One "VmSize:\t    1234 kB" line: Linux's "%8lu kB" after a tab */
static int status_kb(char *buf, size_t size, const char *label, unsigned long bytes)
{
	return scnprintf(buf, size, "%s:\t%8lu kB\n", label, bytes / 1024);
}

static int status_mem(char *buf, size_t size, const struct proc_mem *m)
{
	int n = 0;

	/* Spindle keeps no high-water marks: the peaks are the values now */
	n += status_kb(buf + n, size - n, "VmPeak", m->size);
	n += status_kb(buf + n, size - n, "VmSize", m->size);
	n += status_kb(buf + n, size - n, "VmLck", 0);
	n += status_kb(buf + n, size - n, "VmPin", 0);
	n += status_kb(buf + n, size - n, "VmHWM", m->rss);
	n += status_kb(buf + n, size - n, "VmRSS", m->rss);
	/* resident pages are not counted by kind: all shown as anonymous */
	n += status_kb(buf + n, size - n, "RssAnon", m->rss);
	n += status_kb(buf + n, size - n, "RssFile", 0);
	n += status_kb(buf + n, size - n, "RssShmem", 0);
	n += status_kb(buf + n, size - n, "VmData", m->data);
	n += status_kb(buf + n, size - n, "VmStk", m->stack);
	n += status_kb(buf + n, size - n, "VmExe", m->text);
	n += status_kb(buf + n, size - n, "VmLib", 0);
	n += status_kb(buf + n, size - n, "VmPTE", 0);
	n += status_kb(buf + n, size - n, "VmSwap", 0);
	n += status_kb(buf + n, size - n, "HugetlbPages", 0);
	return n;
}

/* The signal lines: pending (own, shared), blocked, ignored, caught,
 * each Linux's 16 hex digits of the mask (bit sig-1) */
static int status_signals(struct task_struct *p, char *buf, size_t size)
{
	struct task_sigmasks m;
	int n = 0, queued = 0;

	task_sigmasks(p, &m);
	for (u64 pend = m.pending | m.shared; pend; pend &= pend - 1)
		queued++;
	/* Linux's SigQ: signals queued for the user / RLIMIT_SIGPENDING
	 * (unlimited here, as getrlimit says) */
	n += scnprintf(buf + n, size - n, "SigQ:\t%d/%lu\n", queued, ~0ul);
	n += scnprintf(buf + n, size - n,
		       "SigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\n"
		       "SigIgn:\t%016llx\nSigCgt:\t%016llx\n",
		       (unsigned long long)m.pending, (unsigned long long)m.shared,
		       (unsigned long long)m.blocked, (unsigned long long)m.ignored,
		       (unsigned long long)m.caught);
	return n;
}

/*
 * /proc/<pid>/status, in Linux 6.1's order.  Everyone is root (uid and
 * gid 0, every capability) and there are no pid namespaces (the NS
 * lines repeat the ids); what Spindle has no notion of prints Linux's
 * value for a process without it (no tracer, no seccomp).
 */
static int pid_status_show(struct inode *inode, char *buf, size_t size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	struct mm_struct *mm;
	struct cpumask allowed;
	int threads, ppid, n = 0;
	char comm[TASK_COMM_LEN];

	if (!p)
		return -ESRCH;
	task_group_info(p, &threads, &ppid);
	task_lock(p);
	memcpy(comm, p->comm, sizeof(comm));
	task_unlock(p);
	comm[sizeof(comm) - 1] = '\0';
	n += scnprintf(buf + n, size - n,
		       "Name:\t%s\nUmask:\t%04o\nState:\t%s\nTgid:\t%d\nNgid:\t0\n"
		       "Pid:\t%d\nPPid:\t%d\nTracerPid:\t0\n"
		       "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		       "FDSize:\t%d\nGroups:\t \n"
		       "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n",
		       comm, READ_ONCE(p->umask) & 0777, task_state_name(task_state_char(p)),
		       p->tgid, p->pid, ppid, p->files || p->mm ? NR_OPEN_DEFAULT : 0,
		       p->tgid, p->pid, p->pgid, p->sid);
	mm = get_task_mm(p);
	if (mm) {
		struct proc_mem m;

		proc_mem_sum(mm, &m);
		mmput(mm);
		n += status_mem(buf + n, size - n, &m);
	}
	n += scnprintf(buf + n, size - n, "CoreDumping:\t0\nTHP_enabled:\t0\nThreads:\t%d\n",
		       threads);
	n += status_signals(p, buf + n, size - n);
	n += scnprintf(buf + n, size - n,
		       "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
		       "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n"
		       "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\n"
		       "Seccomp_filters:\t0\n");
	allowed = p->cpus_mask;
	n += scnprintf(buf + n, size - n, "Cpus_allowed:\t");
	n += cpumask_print(buf + n, size - n, &allowed, nr_cpu_ids);
	n += scnprintf(buf + n, size - n, "Cpus_allowed_list:\t");
	n += cpulist_print(buf + n, size - n, &allowed);
	n += scnprintf(buf + n, size - n,
		       "Mems_allowed:\t00000001\nMems_allowed_list:\t0\n"
		       "voluntary_ctxt_switches:\t%llu\nnonvoluntary_ctxt_switches:\t%llu\n",
		       (unsigned long long)READ_ONCE(p->nvcsw),
		       (unsigned long long)READ_ONCE(p->nivcsw));
	put_task_struct(p);
	return n;
}

/* /proc/<pid>/statm: size resident shared text lib data dt, in pages */
static int pid_statm_show(struct inode *inode, char *buf, size_t size)
{
	int err;
	struct mm_struct *mm = proc_pid_mm(inode, &err);
	struct proc_mem m = { 0 };

	if (err)
		return err;
	if (mm) {
		proc_mem_sum(mm, &m);
		mmput(mm);
	}
	return scnprintf(buf, size, "%lu %lu 0 %lu 0 %lu 0\n", m.size / PAGE_SIZE,
			 m.rss / PAGE_SIZE, DIV_ROUND_UP(m.text, PAGE_SIZE),
			 (m.data + m.stack) / PAGE_SIZE);
}

/*
 * One line of /proc/<pid>/maps, Linux's show_map_vma(): the range, the
 * permissions (p: private, s: shared), the file offset, the file's
 * device and inode, and -- padded to column 73, as Linux pads for a
 * 64-bit address -- its name, if it has one.
 */
int proc_maps_line(char *buf, size_t size, const struct proc_maps_entry *e)
{
	int n = scnprintf(buf, size, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ",
			  e->start, e->end, e->flags & VM_READ ? 'r' : '-',
			  e->flags & VM_WRITE ? 'w' : '-', e->flags & VM_EXEC ? 'x' : '-',
			  e->flags & VM_SHARED ? 's' : 'p', (unsigned long long)e->offset,
			  MAJOR(e->dev), MINOR(e->dev), e->ino);

	if (e->name && e->name[0]) {
		while (n < PROC_MAPS_NAME_COL - 1 && (size_t)n + 1 < size)
			buf[n++] = ' ';
		n += scnprintf(buf + n, size - n, "%s", e->name);
	}
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

/* the name of an open file as Linux's d_path() gives it (vfs_lock taken
 * unless this task holds it: a path walk following a link does) */
static int proc_file_path(struct file *f, char *buf, int size)
{
	bool held = __mutex_owner(&vfs_lock) == current;
	int len;

	if (!held)
		mutex_lock(&vfs_lock);
	len = d_path(&f->f_path, buf, size);
	if (!held)
		mutex_unlock(&vfs_lock);
	return len;
}

static int pid_maps_show(struct inode *inode, char *buf, size_t size)
{
	struct vm_area_struct *vma;
	int n = 0, err;
	struct mm_struct *mm = proc_pid_mm(inode, &err);
	char *path;

	if (!mm)
		return err;
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path) {
		mmput(mm);
		return -ENOMEM;
	}
	mutex_lock(&mm->mmap_lock);
	list_for_each_entry(vma, &mm->mmap, vm_list) {
		struct proc_maps_entry e = {
			.start = vma->vm_start, .end = vma->vm_end, .flags = vma->vm_flags,
		};

		struct file *file = vma->vm_file;

		/* exec copies the program's segments into anonymous memory
		 * (kernel/exec.c): the VMAs below the heap are named after
		 * the program, as Linux names them for their mapping of it
		 * (offset 0: where in the file each came from is not kept) */
		if (!file && mm->exe_file && !(vma->vm_flags & (VM_HEAP | VM_STACK)) &&
		    vma->vm_end <= mm->start_brk)
			file = mm->exe_file;
		if (file) {
			struct inode *fi = file->f_inode;

			if (file == vma->vm_file)
				e.offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
			e.dev = fi->i_sb ? fi->i_sb->s_dev : 0;
			e.ino = fi->i_ino;
			if (file->f_path.mnt && proc_file_path(file, path, PATH_MAX) > 0)
				e.name = path;
		} else if (vma->vm_ops && vma->vm_ops->name) {
			e.name = vma->vm_ops->name(vma);        /* [vdso], [vvar] */
		} else if (vma->vm_flags & VM_HEAP) {
			e.name = "[heap]";
		} else if (vma->vm_flags & VM_STACK) {
			e.name = "[stack]";
		}
		n += proc_maps_line(buf + n, size - n, &e);
	}
	mutex_unlock(&mm->mmap_lock);
	mmput(mm);
	kfree(path);
	return n;
}

/* --- /proc/<pid>/fd/, exe, cwd: symbolic links (Linux's fs/proc/fd.c, base.c) -- */

/*
 * What readlink shows for an open file: its path; "pipe:[<inode>]" for a
 * pipe; "anon_inode:<name>" for a file with no place in the tree
 * (io_uring's "[io_uring]").  init's console is opened before /dev
 * exists (fs/tty.c), so it has no path: it is the "/dev/console" that
 * Linux's init opens.
 */
static int proc_fd_name(struct file *f, char *buf, int size)
{
	struct inode *inode = f->f_inode;

	if (!f->f_path.dentry) {
		if (inode && S_ISCHR(inode->i_mode) && inode->i_rdev == MKDEV(TTYAUX_MAJOR, 1))
			return scnprintf(buf, size, "/dev/console");
		return scnprintf(buf, size, "anon_inode:[unknown]");
	}
	if (!f->f_path.mnt) {
		if (S_ISFIFO(inode->i_mode))
			return scnprintf(buf, size, "pipe:[%lu]", inode->i_ino);
		return scnprintf(buf, size, "anon_inode:%s", f->f_path.dentry->d_name);
	}
	return proc_file_path(f, buf, size);
}

/* The file at descriptor fd of task p, referenced, or NULL. */
static struct file *proc_task_fget(struct task_struct *p, int fd)
{
	struct files_struct *files;
	struct file *f = NULL;

	if (fd < 0 || fd >= NR_OPEN_DEFAULT)
		return NULL;
	task_lock(p);           /* exit_files() clears p->files under it */
	files = p->files;
	if (files) {
		spin_lock(&files->file_lock);
		if (files->fd[fd] && !IS_ERR(files->fd[fd]))
			f = get_file(files->fd[fd]);
		spin_unlock(&files->file_lock);
	}
	task_unlock(p);
	return f;
}

static int proc_exe_link(struct task_struct *p, char *buf, int size)
{
	struct mm_struct *mm = get_task_mm(p);
	struct file *exe = NULL;
	int len;

	if (mm) {
		if (mm->exe_file)
			exe = get_file(mm->exe_file);
		mmput(mm);
	}
	if (!exe)
		return -ENOENT;         /* a kernel thread: Linux's too */
	len = proc_fd_name(exe, buf, size);
	fput(exe);
	return len;
}

static int proc_cwd_link(struct task_struct *p, char *buf, int size)
{
	bool held = __mutex_owner(&vfs_lock) == current;
	int len = -ENOENT;

	/* fs->pwd changes, and fs is freed, under vfs_lock; exit_files()
	 * clears p->fs under task_lock */
	if (!held)
		mutex_lock(&vfs_lock);
	task_lock(p);
	if (p->fs) {
		struct path pwd = p->fs->pwd;

		task_unlock(p);
		len = d_path(&pwd, buf, size);
	} else {
		task_unlock(p);
	}
	if (!held)
		mutex_unlock(&vfs_lock);
	return len;
}

/* A link's text: the task's entry's link() (exe, cwd) or, under fd/, the
 * descriptor's file.  The task is looked up again each time: it may
 * have exited (ENOENT, as Linux's once the task is gone). */
static int proc_pid_get_link(struct inode *inode, char *buf, int size)
{
	const struct proc_entry *e = inode->i_fop_data;
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	int len;

	if (!p)
		return -ENOENT;
	len = e->link(p, buf, size);
	put_task_struct(p);
	return len;
}

static int proc_fd_get_link(struct inode *inode, char *buf, int size)
{
	struct task_struct *p = find_get_task((int)(long)inode->i_private);
	struct file *f;
	int len;

	if (!p)
		return -ENOENT;
	f = proc_task_fget(p, (int)(long)inode->i_fop_arg);
	put_task_struct(p);
	if (!f)
		return -ENOENT;
	len = proc_fd_name(f, buf, size);
	fput(f);
	return len;
}

static const struct inode_operations proc_pid_link_iops = { .get_link = proc_pid_get_link };
static const struct inode_operations proc_fd_link_iops = { .get_link = proc_fd_get_link };

static struct inode *proc_new_link(struct super_block *sb, umode_t mode,
				   const struct inode_operations *iop, int pid)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_mode = S_IFLNK | mode;
	inode->i_op = iop;
	inode->i_private = (void *)(long)pid;
	return inode;
}

/* /proc/<pid>/fd/<n>: the descriptors open now, in order */
static struct dentry *proc_fd_lookup(struct inode *dir, struct dentry *dentry)
{
	int pid = (int)(long)dir->i_private, fd;
	struct task_struct *p;
	struct inode *inode;
	struct file *f = NULL;
	umode_t mode = 0;

	if (kstrtoint(dentry->d_name, 10, &fd) || fd < 0)
		return NULL;
	p = find_get_task(pid);
	if (p) {
		f = proc_task_fget(p, fd);
		put_task_struct(p);
	}
	if (!f)
		return NULL;
	/* Linux's tid_fd_update_inode(): r-x for reading, -wx for writing */
	if (f->f_mode & FMODE_READ)
		mode |= 0500;
	if (f->f_mode & FMODE_WRITE)
		mode |= 0300;
	fput(f);
	inode = proc_new_link(dir->i_sb, mode, &proc_fd_link_iops, pid);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_fop_arg = (void *)(long)fd;
	d_add(dentry, inode);
	/* the descriptor may be closed or reused: look it up again each time */
	d_delete(dentry);
	return NULL;
}

/* the open descriptors, at position 2 + fd */
static int proc_fd_iterate(struct file *f, struct dir_context *ctx)
{
	struct task_struct *p = find_get_task((int)(long)f->f_inode->i_private);

	if (!p)
		return -ENOENT;
	if (!dir_emit_dots(f, ctx))
		goto out;
	for (int fd = (int)ctx->pos - 2; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *of = proc_task_fget(p, fd);
		char name[8];
		int len;

		ctx->pos = 2 + fd;
		if (!of)
			continue;
		fput(of);
		len = snprintf(name, sizeof(name), "%d", fd);
		if (!dir_emit(ctx, name, len, 2000 + fd, DT_LNK))
			goto out;
	}
	ctx->pos = 2 + NR_OPEN_DEFAULT;
out:
	put_task_struct(p);
	return 0;
}

static const struct inode_operations proc_fd_iops = { .lookup = proc_fd_lookup };
static const struct file_operations proc_fd_fops = { .iterate = proc_fd_iterate };

static const struct pseudo_file pid_stat = { .show = pid_stat_show };
static const struct pseudo_file pid_comm = { .show = pid_comm_show };
static const struct pseudo_file pid_stack = { .show = pid_stack_show, .size_hint = PROC_TEXT_BIG };
static const struct pseudo_file pid_cmdline = { .show = pid_cmdline_show,
						.size_hint = PROC_CMDLINE_MAX };
static const struct pseudo_file pid_auxv = { .show = pid_auxv_show };
static const struct pseudo_file pid_syscalls = { .show = pid_syscalls_show };
static const struct pseudo_file pid_status = { .show = pid_status_show };
static const struct pseudo_file pid_statm = { .show = pid_statm_show };
static const struct pseudo_file pid_maps = { .show = pid_maps_show, .size_hint = PROC_TEXT_BIG };
static const struct pseudo_file pid_mountinfo = { .show = mountinfo_show,
						  .size_hint = PROC_TEXT_BIG };

/* and the directory "fd", after these (proc_pid_lookup) */
static const struct proc_entry pid_files[] = {
	{ "stat", &pid_stat, NULL },
	{ "stack", &pid_stack, NULL },
	{ "cmdline", &pid_cmdline, NULL },
	{ "auxv", &pid_auxv, NULL },
	{ "syscalls", &pid_syscalls, NULL },
	{ "comm", &pid_comm, NULL },
	{ "status", &pid_status, NULL },
	{ "statm", &pid_statm, NULL },
	{ "maps", &pid_maps, NULL },
	{ "mountinfo", &pid_mountinfo, NULL },
	{ "exe", NULL, proc_exe_link },
	{ "cwd", NULL, proc_cwd_link },
};

/* /proc/<pid>/task/<tid>: one thread's own files (Linux's tid_base_stuff),
 * and "fd" */
static const struct proc_entry tid_files[] = {
	{ "stat", &pid_stat, NULL },
	{ "stack", &pid_stack, NULL },
	{ "auxv", &pid_auxv, NULL },
	{ "syscalls", &pid_syscalls, NULL },
	{ "comm", &pid_comm, NULL },
	{ "status", &pid_status, NULL },
	{ "statm", &pid_statm, NULL },
	{ "maps", &pid_maps, NULL },
	{ "mountinfo", &pid_mountinfo, NULL },
	{ "exe", NULL, proc_exe_link },
	{ "cwd", NULL, proc_cwd_link },
};

static struct inode *proc_task_dir(struct super_block *sb, int tgid);

static struct dentry *proc_entries_lookup(struct inode *dir, struct dentry *dentry,
					  const struct proc_entry *files, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		if (strcmp(dentry->d_name, files[i].name) == 0) {
			struct inode *inode;

			if (files[i].link) {
				inode = proc_new_link(dir->i_sb, 0777, &proc_pid_link_iops,
						      (int)(long)dir->i_private);
				if (inode)
					inode->i_fop_data = &files[i];
			} else {
				inode = pseudo_new_file(dir->i_sb, 0444, files[i].file,
							dir->i_private);
			}
			if (!inode)
				return ERR_PTR(-ENOMEM);
			d_add(dentry, inode);
		}
	return NULL;
}

static int proc_entries_iterate(struct file *f, struct dir_context *ctx,
				const struct proc_entry *files, unsigned int nr)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)nr) {
		const struct proc_entry *e = &files[ctx->pos - 2];

		if (!dir_emit(ctx, e->name, strlen(e->name), 10 + ctx->pos,
			      e->link ? DT_LNK : DT_REG))
			return 0;
	}
	return 0;
}

/* "fd" of a pid or tid directory, the descriptors of its task */
static struct inode *proc_fd_dir(struct super_block *sb, int pid)
{
	struct inode *inode = pseudo_new_dir(sb, &proc_fd_iops, &proc_fd_fops,
					     (void *)(long)pid);

	if (inode)
		inode->i_mode = S_IFDIR | 0500;         /* Linux's dr-x------ */
	return inode;
}

static struct dentry *proc_pid_lookup(struct inode *dir, struct dentry *dentry)
{
	bool task = strcmp(dentry->d_name, "task") == 0;

	if (task || strcmp(dentry->d_name, "fd") == 0) {
		int pid = (int)(long)dir->i_private;
		struct inode *inode = task ? proc_task_dir(dir->i_sb, pid) : proc_fd_dir(dir->i_sb, pid);

		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	return proc_entries_lookup(dir, dentry, pid_files, ARRAY_SIZE(pid_files));
}

static int proc_pid_iterate(struct file *f, struct dir_context *ctx)
{
	proc_entries_iterate(f, ctx, pid_files, ARRAY_SIZE(pid_files));
	if (ctx->pos - 2 == (loff_t)ARRAY_SIZE(pid_files) &&
	    !dir_emit(ctx, "task", 4, 10 + ctx->pos, DT_DIR))
		return 0;
	if (ctx->pos - 2 == (loff_t)ARRAY_SIZE(pid_files) + 1)
		dir_emit(ctx, "fd", 2, 10 + ctx->pos, DT_DIR);
	return 0;
}

static const struct inode_operations proc_pid_iops = { .lookup = proc_pid_lookup };
static const struct file_operations proc_pid_fops = { .iterate = proc_pid_iterate };

static struct inode *proc_pid_dir(struct super_block *sb, int pid)
{
	return pseudo_new_dir(sb, &proc_pid_iops, &proc_pid_fops, (void *)(long)pid);
}

static struct dentry *proc_tid_lookup(struct inode *dir, struct dentry *dentry)
{
	if (strcmp(dentry->d_name, "fd") == 0) {
		struct inode *inode = proc_fd_dir(dir->i_sb, (int)(long)dir->i_private);

		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	return proc_entries_lookup(dir, dentry, tid_files, ARRAY_SIZE(tid_files));
}

static int proc_tid_iterate(struct file *f, struct dir_context *ctx)
{
	proc_entries_iterate(f, ctx, tid_files, ARRAY_SIZE(tid_files));
	if (ctx->pos - 2 == (loff_t)ARRAY_SIZE(tid_files))
		dir_emit(ctx, "fd", 2, 10 + ctx->pos, DT_DIR);
	return 0;
}

static const struct inode_operations proc_tid_iops = { .lookup = proc_tid_lookup };
static const struct file_operations proc_tid_fops = { .iterate = proc_tid_iterate };

/* The smallest tid >= from of a live thread of process tgid, or -1. */
static int next_tid(int tgid, loff_t from)
{
	struct task_struct *p;
	int tid = -1;
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(p, &task_list, tasks)
		if (p->tgid == tgid && p->pid && p->exit_state != EXIT_DEAD &&
		    p->state != TASK_DEAD && p->pid >= from && (tid < 0 || p->pid < tid))
			tid = p->pid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return tid;
}

/* /proc/<pid>/task/<tid>: a thread of that process only */
static struct dentry *proc_task_lookup(struct inode *dir, struct dentry *dentry)
{
	int tgid = (int)(long)dir->i_private, tid;
	struct task_struct *p;
	struct inode *inode;
	bool ours;

	if (kstrtoint(dentry->d_name, 10, &tid) || tid <= 0)
		return NULL;
	p = find_get_task(tid);
	if (!p)
		return NULL;
	ours = p->tgid == tgid;
	put_task_struct(p);
	if (!ours)
		return NULL;
	inode = pseudo_new_dir(dir->i_sb, &proc_tid_iops, &proc_tid_fops, (void *)(long)tid);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

/* the threads in tid order, at position 2 + tid (a thread that exits
 * between two getdents calls shifts nothing) */
static int proc_task_iterate(struct file *f, struct dir_context *ctx)
{
	int tgid = (int)(long)f->f_inode->i_private;

	if (!dir_emit_dots(f, ctx))
		return 0;
	for (;;) {
		char name[16];
		int tid = next_tid(tgid, ctx->pos - 2), len;

		if (tid < 0)
			return 0;
		ctx->pos = 2 + tid;
		len = snprintf(name, sizeof(name), "%d", tid);
		if (!dir_emit(ctx, name, len, 1000 + tid, DT_DIR))
			return 0;
	}
}

static const struct inode_operations proc_task_iops = { .lookup = proc_task_lookup };
static const struct file_operations proc_task_fops = { .iterate = proc_task_iterate };

static struct inode *proc_task_dir(struct super_block *sb, int tgid)
{
	return pseudo_new_dir(sb, &proc_task_iops, &proc_task_fops, (void *)(long)tgid);
}

/* --- /proc/sys/vm: the write-back knobs (include/spindle/writeback.h) ---------- */

static const char *const vm_knobs[] = {
	"dirty_background_ratio",
	"dirty_expire_centisecs",
	"dirty_ratio",
	"dirty_writeback_centisecs",
	"drop_caches",
};

static int vm_knob_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(*(unsigned int *)inode->i_private));
}

/* A number, as Linux's proc_dointvec_minmax: the ratios are percentages. */
static int vm_knob_store(struct inode *inode, const char *buf, size_t len)
{
	unsigned int *knob = inode->i_private, v;
	char num[16];

	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, buf, len);
	num[len] = '\0';
	if (num[len - 1] == '\n')
		num[len - 1] = '\0';
	if (kstrtouint(num, 10, &v))
		return -EINVAL;
	if ((knob == &vm_dirty_ratio || knob == &dirty_background_ratio) && v > 100)
		return -EINVAL;
	WRITE_ONCE(*knob, v);
	return 0;
}

static const struct pseudo_file proc_vm_knob = { .show = vm_knob_show, .store = vm_knob_store };

/*
 * drop_caches, as Linux's: writing 1 frees the page cache's clean pages
 * nobody uses, 2 the slab memory that can be given back -- here the free
 * objects parked in kmalloc's per-CPU arrays, and the slabs they kept
 * (kmem_cache_shrink_all) -- and 3 both.  Reads as 0.  Frees nothing
 * that is in use: a way to measure memory, not to get more of it.
 */
static int drop_caches_show(struct inode *inode, char *buf, size_t size)
{
	(void)inode;
	return scnprintf(buf, size, "0\n");
}

static int drop_caches_store(struct inode *inode, const char *buf, size_t len)
{
	char num[8];
	unsigned int v;

	(void)inode;
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, buf, len);
	num[len] = '\0';
	if (num[len - 1] == '\n')
		num[len - 1] = '\0';
	if (kstrtouint(num, 10, &v) || v < 1 || v > 4)
		return -EINVAL;
	if (v & 1)
		try_to_free_pages(totalram_pages());
	if (v & 2)
		kmem_cache_shrink_all();
	return 0;
}

static const struct pseudo_file proc_drop_caches = { .show = drop_caches_show,
						     .store = drop_caches_store };

static struct dentry *proc_vm_lookup(struct inode *dir, struct dentry *dentry)
{
	unsigned int *knob = vm_sysctl_find(dentry->d_name);
	struct inode *inode;

	if (!strcmp(dentry->d_name, "drop_caches"))
		inode = pseudo_new_file(dir->i_sb, 0644, &proc_drop_caches, NULL);
	else if (!knob)
		return NULL;
	else
		inode = pseudo_new_file(dir->i_sb, 0644, &proc_vm_knob, knob);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int proc_vm_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)ARRAY_SIZE(vm_knobs)) {
		const char *name = vm_knobs[ctx->pos - 2];

		if (!dir_emit(ctx, name, strlen(name), 20 + ctx->pos, DT_REG))
			return 0;
	}
	return 0;
}

static const struct inode_operations proc_vm_iops = { .lookup = proc_vm_lookup };
static const struct file_operations proc_vm_fops = { .iterate = proc_vm_iterate };

/* --- /proc/sys/kernel: the names uname(2) answers ----------------------------- */

/* In Linux's order of its kern_table; each file is its uname field. */
static const struct {
	const char *name;
	const char *value;
} kernel_names[] = {
	{ "hostname", SPINDLE_NODENAME },
	{ "osrelease", SPINDLE_RELEASE },
	{ "ostype", SPINDLE_SYSNAME },
};

static int kernel_name_show(struct inode *inode, char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", (const char *)inode->i_private);
}

static const struct pseudo_file proc_kernel_name = { .show = kernel_name_show };

static struct dentry *proc_kernel_lookup(struct inode *dir, struct dentry *dentry)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(kernel_names); i++) {
		struct inode *inode;

		if (strcmp(dentry->d_name, kernel_names[i].name))
			continue;
		inode = pseudo_new_file(dir->i_sb, 0444, &proc_kernel_name,
					(void *)kernel_names[i].value);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		d_add(dentry, inode);
		return NULL;
	}
	return NULL;
}

static int proc_kernel_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)ARRAY_SIZE(kernel_names)) {
		const char *name = kernel_names[ctx->pos - 2].name;

		if (!dir_emit(ctx, name, strlen(name), 40 + ctx->pos, DT_REG))
			return 0;
	}
	return 0;
}

static const struct inode_operations proc_kernel_iops = { .lookup = proc_kernel_lookup };
static const struct file_operations proc_kernel_fops = { .iterate = proc_kernel_iterate };

/* /proc/sys: its directories kernel and vm */
static struct dentry *proc_sys_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode;

	if (!strcmp(dentry->d_name, "vm"))
		inode = pseudo_new_dir(dir->i_sb, &proc_vm_iops, &proc_vm_fops, NULL);
	else if (!strcmp(dentry->d_name, "kernel"))
		inode = pseudo_new_dir(dir->i_sb, &proc_kernel_iops, &proc_kernel_fops, NULL);
	else
		return NULL;
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

static int proc_sys_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	if (ctx->pos == 2 && !dir_emit(ctx, "kernel", 6, 18, DT_DIR))
		return 0;
	if (ctx->pos == 3 && !dir_emit(ctx, "vm", 2, 19, DT_DIR))
		return 0;
	return 0;
}

static const struct inode_operations proc_sys_iops = { .lookup = proc_sys_lookup };
static const struct file_operations proc_sys_fops = { .iterate = proc_sys_iterate };

/* --- /proc/irq: where each irq goes (the text is the irq layer's) -------------- */

/*
 * /proc/irq/default_smp_affinity, and a directory per irq with a handler:
 * smp_affinity and smp_affinity_list (read and written), effective_affinity
 * and effective_affinity_list (read), as Linux's.  A file's i_private is
 * irq * 4 + its index below (irq -1: the default).
 */
static const char *const irq_files[] = {
	"smp_affinity", "smp_affinity_list", "effective_affinity", "effective_affinity_list",
};
#define IRQ_FILE_PRIV(irq, i) ((void *)(long)((irq) * 4 + (i)))

static int irq_file_show(struct inode *inode, char *buf, size_t size)
{
	long v = (long)inode->i_private;
	int i = (int)(v & 3), irq = (int)(v >> 2);

	return irq_affinity_show(irq, i & 1, i >= 2, buf, size);
}

static int irq_file_store(struct inode *inode, const char *buf, size_t len)
{
	long v = (long)inode->i_private;

	return irq_affinity_store((int)(v >> 2), v & 1, buf, len);
}

static const struct pseudo_file proc_irq_file = { .show = irq_file_show, .store = irq_file_store };
static const struct pseudo_file proc_irq_file_ro = { .show = irq_file_show };

static struct dentry *proc_irq_n_lookup(struct inode *dir, struct dentry *dentry)
{
	int irq = (int)(long)dir->i_private;
	struct inode *inode = NULL;

	for (int i = 0; i < (int)ARRAY_SIZE(irq_files); i++)
		if (!strcmp(dentry->d_name, irq_files[i]))
			inode = pseudo_new_file(dir->i_sb, i < 2 ? 0644 : 0444,
						i < 2 ? &proc_irq_file : &proc_irq_file_ro,
						IRQ_FILE_PRIV(irq, i));
	if (inode)
		d_add(dentry, inode);
	return NULL;
}

static int proc_irq_n_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < (loff_t)ARRAY_SIZE(irq_files)) {
		const char *name = irq_files[ctx->pos - 2];

		if (!dir_emit(ctx, name, strlen(name), 30 + ctx->pos, DT_REG))
			return 0;
	}
	return 0;
}

static const struct inode_operations proc_irq_n_iops = { .lookup = proc_irq_n_lookup };
static const struct file_operations proc_irq_n_fops = { .iterate = proc_irq_n_iterate };

static struct dentry *proc_irq_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = NULL;
	unsigned int irq;

	if (!strcmp(dentry->d_name, "default_smp_affinity"))
		inode = pseudo_new_file(dir->i_sb, 0644, &proc_irq_file, IRQ_FILE_PRIV(-1, 0));
	else if (dentry->d_name[0] && (dentry->d_name[0] != '0' || !dentry->d_name[1]) &&
		 !kstrtouint(dentry->d_name, 10, &irq) && irq_has_action(irq))
		inode = pseudo_new_dir(dir->i_sb, &proc_irq_n_iops, &proc_irq_n_fops,
				       (void *)(long)irq);
	if (inode)
		d_add(dentry, inode);
	return NULL;
}

/* "default_smp_affinity", then the irqs with a handler, in order; an
 * irq's position is 3 + irq, so one freed meanwhile shifts nothing */
static int proc_irq_iterate(struct file *f, struct dir_context *ctx)
{
	if (!dir_emit_dots(f, ctx))
		return 0;
	if (ctx->pos == 2 && !dir_emit(ctx, "default_smp_affinity", 20, 40, DT_REG))
		return 0;
	for (unsigned int irq = (unsigned int)(ctx->pos - 3); irq < NR_IRQS; irq++) {
		char name[8];
		int len;

		ctx->pos = 3 + irq;
		if (!irq_has_action(irq))
			continue;
		len = snprintf(name, sizeof(name), "%u", irq);
		if (!dir_emit(ctx, name, len, 2000 + irq, DT_DIR))
			return 0;
	}
	ctx->pos = 3 + NR_IRQS;
	return 0;
}

static const struct inode_operations proc_irq_iops = { .lookup = proc_irq_lookup };
static const struct file_operations proc_irq_fops = { .iterate = proc_irq_iterate };

/* --- the root directory ------------------------------------------------------- */

static bool parse_pid(const char *s, int *pid)
{
	int v;

	if (!s[0] || s[0] == '0' || kstrtoint(s, 10, &v) || v <= 0)
		return false;
	*pid = v;
	return true;
}

static struct dentry *proc_root_lookup(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = NULL;
	int pid;

	for (unsigned int i = 0; i < ARRAY_SIZE(proc_root_files); i++)
		if (strcmp(dentry->d_name, proc_root_files[i].name) == 0)
			inode = pseudo_new_file(dir->i_sb, 0444, proc_root_files[i].file, NULL);
	if (!inode && strcmp(dentry->d_name, "profile") == 0 && profile_size()) {
		/* only with profile= (as Linux); root's, like Linux's 0600 */
		proc_profile.size_hint = profile_size();
		inode = pseudo_new_file(dir->i_sb, 0600, &proc_profile, NULL);
	} else if (!inode && strcmp(dentry->d_name, "sys") == 0) {
		inode = pseudo_new_dir(dir->i_sb, &proc_sys_iops, &proc_sys_fops, NULL);
	} else if (!inode && strcmp(dentry->d_name, "irq") == 0) {
		inode = pseudo_new_dir(dir->i_sb, &proc_irq_iops, &proc_irq_fops, NULL);
	} else if (!inode && strcmp(dentry->d_name, "self") == 0) {
		/* Linux: a symbolic link to the pid; here the directory itself */
		inode = proc_pid_dir(dir->i_sb, current->tgid);
	} else if (!inode && parse_pid(dentry->d_name, &pid)) {
		struct task_struct *p = find_get_task(pid);

		if (p) {
			put_task_struct(p);
			inode = proc_pid_dir(dir->i_sb, pid);
		}
	}
	if (inode)
		d_add(dentry, inode);
	/*
	 * "self" means a different process for each caller: never let this
	 * dentry be found by a later lookup while someone holds it (a shell
	 * that did cd /proc/self would otherwise be everyone's self).
	 */
	if (inode && strcmp(dentry->d_name, "self") == 0)
		d_delete(dentry);
	return NULL;
}

/* The smallest pid >= from of a live task (the idle task, pid 0, is not
 * listed, as in Linux), or -1 if there is none. */
static int next_pid(loff_t from)
{
	struct task_struct *p;
	int pid = -1;
	unsigned long flags;

	spin_lock_irqsave(&tasklist_lock, flags);
	/* one per process, as ps expects: by its tgid, which a thread
	 * also stands for once its leader has exited (a thread's own
	 * directory is under /proc/<pid>/task) */
	list_for_each_entry(p, &task_list, tasks)
		if (p->pid && p->state != TASK_DEAD && p->tgid >= from &&
		    (pid < 0 || p->tgid < pid))
			pid = p->tgid;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	return pid;
}

/*
 * ".", "..", the fixed files, "sys", "self", "irq", then one directory per live pid in
 * pid order.  A pid's position is PROC_PID_POS + pid (Linux's
 * TGID_OFFSET), not its index in the task list: a task that exits
 * between two getdents calls then shifts nothing, and a listing taken
 * in pieces skips no living process.
 */
#define PROC_PID_POS (5 + (loff_t)ARRAY_SIZE(proc_root_files))

static int proc_root_iterate(struct file *f, struct dir_context *ctx)
{
	const loff_t nfixed = ARRAY_SIZE(proc_root_files);

	if (!dir_emit_dots(f, ctx))
		return 0;
	while (ctx->pos - 2 < nfixed) {
		const char *name = proc_root_files[ctx->pos - 2].name;

		if (!dir_emit(ctx, name, strlen(name), 10 + ctx->pos, DT_REG))
			return 0;
	}
	if (ctx->pos - 2 == nfixed && !dir_emit(ctx, "sys", 3, 8, DT_DIR))
		return 0;
	if (ctx->pos - 2 == nfixed + 1 && !dir_emit(ctx, "self", 4, 9, DT_DIR))
		return 0;
	if (ctx->pos - 2 == nfixed + 2 && !dir_emit(ctx, "irq", 3, 7, DT_DIR))
		return 0;
	for (;;) {
		char name[16];
		int pid = next_pid(ctx->pos - PROC_PID_POS), len;

		if (pid < 0)
			return 0;
		ctx->pos = PROC_PID_POS + pid;
		len = snprintf(name, sizeof(name), "%d", pid);
		if (!dir_emit(ctx, name, len, 1000 + pid, DT_DIR))
			return 0;
	}
}

static const struct inode_operations proc_root_iops = { .lookup = proc_root_lookup };
static const struct file_operations proc_root_fops = { .iterate = proc_root_iterate };

static int proc_fill_super(struct super_block *sb)
{
	sb->s_magic = PROC_SUPER_MAGIC;
	sb->s_flags |= SB_I_NOEXEC;    /* generated text is never a program */
	sb->s_root = d_make_root(pseudo_new_dir(sb, &proc_root_iops, &proc_root_fops, NULL));
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *proc_mount(struct file_system_type *type, int flags,
				 const char *dev_name, void *data)
{
	(void)flags; (void)dev_name; (void)data;
	return mount_single(type, proc_fill_super);
}

static struct file_system_type proc_fs_type = {
	.name = "proc", .mount = proc_mount,
};

int init_proc_fs(void)
{
	return register_filesystem(&proc_fs_type);
}
