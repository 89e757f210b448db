// SPDX-License-Identifier: MIT
/*
 * cpu.c - what each CPU is (Linux's identify_cpu() in
 * arch/x86/kernel/cpu/common.c) and /proc/cpuinfo (Linux's show_cpuinfo()
 * in arch/x86/kernel/cpu/proc.c), in Linux's layout so that the tools
 * that read it (lscpu, `grep -c ^processor`, top) read it here too.
 *
 * Each CPU runs identify_cpu() on itself as it comes up: CPUID answers
 * about the CPU that executes it, and the APIC IDs differ.  What it asks:
 *   leaf 0           highest basic leaf, vendor string
 *   leaf 1           family/model/stepping, CLFLUSH line size, initial
 *                    APIC ID, the feature bits in EDX and ECX
 *   leaf 7           more feature bits (EBX, ECX)
 *   leaf 0xb         topology: how many APIC-ID bits number the threads
 *                    of a core, and the cores of a package
 *   leaf 4           (Intel) the caches; 0x80000006 (AMD) the L2 cache
 *   0x80000001       the AMD-defined bits (syscall, nx, lm ...)
 *   0x80000002-4     the brand string ("model name")
 *   0x80000008       physical and virtual address widths
 * (Intel SDM vol. 2A, "CPUID"; AMD APM vol. 3, appendix E.)
 *
 * Not shown, unlike Linux: "microcode" (its MSR is not read) and the flags
 * Linux makes up for itself (rep_good, nopl, cpuid, pti ...); "bugs" is
 * empty, as nothing here checks for them.
 */
#include <spindle/printk.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <asm/processor.h>
#include <asm/apic.h>
#include <asm/cpu.h>

DEFINE_PER_CPU(struct cpuinfo_x86, cpu_info);

bool cpus_share_cache(unsigned int this_cpu, unsigned int that_cpu)
{
	return this_cpu == that_cpu ||
	       per_cpu(cpu_info, this_cpu).phys_proc_id == per_cpu(cpu_info, that_cpu).phys_proc_id;
}

/* Each word's bits by name, as in Linux's cpufeatures.h; NULL: Linux
 * names none there, or hides it from /proc/cpuinfo. */
static const char *const x86_cap_flags[NCAPINTS][32] = {
	[CPUID_1_EDX] = {
		"fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce",
		"cx8", "apic", NULL, "sep", "mtrr", "pge", "mca", "cmov",
		"pat", "pse36", "pn", "clflush", NULL, "dts", "acpi", "mmx",
		"fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe",
	},
	[CPUID_8000_0001_EDX] = {
		[11] = "syscall", [19] = "mp", [20] = "nx", [22] = "mmxext",
		[25] = "fxsr_opt", [26] = "pdpe1gb", [27] = "rdtscp", [29] = "lm",
		[30] = "3dnowext", [31] = "3dnow",
	},
	[CPUID_1_ECX] = {
		"pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est",
		"tm2", "ssse3", "cid", "sdbg", "fma", "cx16", "xtpr", "pdcm",
		NULL, "pcid", "dca", "sse4_1", "sse4_2", "x2apic", "movbe", "popcnt",
		"tsc_deadline_timer", "aes", "xsave", NULL, "avx", "f16c", "rdrand",
		"hypervisor",
	},
	[CPUID_8000_0001_ECX] = {
		"lahf_lm", "cmp_legacy", "svm", "extapic", "cr8_legacy", "abm", "sse4a",
		"misalignsse", "3dnowprefetch", "osvw", "ibs", "xop", "skinit", "wdt",
		NULL, "lwp", "fma4", "tce", NULL, "nodeid_msr", NULL, "tbm", "topoext",
		"perfctr_core", "perfctr_nb", NULL, "bpext", "ptsc", "perfctr_llc",
		"mwaitx",
	},
	[CPUID_7_0_EBX] = {
		"fsgsbase", "tsc_adjust", "sgx", "bmi1", "hle", "avx2", NULL, "smep",
		"bmi2", "erms", "invpcid", "rtm", "cqm", NULL, "mpx", "rdt_a",
		"avx512f", "avx512dq", "rdseed", "adx", "smap", "avx512ifma", NULL,
		"clflushopt", "clwb", "intel_pt", "avx512pf", "avx512er", "avx512cd",
		"sha_ni", "avx512bw", "avx512vl",
	},
	[CPUID_7_0_ECX] = {
		[1] = "avx512vbmi", [2] = "umip", [3] = "pku", [4] = "ospke",
		[5] = "waitpkg", [6] = "avx512_vbmi2", [8] = "gfni", [9] = "vaes",
		[10] = "vpclmulqdq", [11] = "avx512_vnni", [12] = "avx512_bitalg",
		[13] = "tme", [14] = "avx512_vpopcntdq", [16] = "la57", [22] = "rdpid",
		[24] = "bus_lock_detect", [25] = "cldemote", [27] = "movdiri",
		[28] = "movdir64b", [29] = "enqcmd", [30] = "sgx_lc",
	},
};

/* the number of bits that number n things */
static unsigned int count_order(unsigned int n)
{
	unsigned int order = 0;

	while ((1u << order) < n)
		order++;
	return order;
}

/* How the APIC ID splits into package, core and thread (Linux's
 * detect_extended_topology(), then the leaf-1 count it falls back to). */
static void detect_topology(struct cpuinfo_x86 *c, u32 leaf1_ebx, u32 leaf1_edx)
{
	u32 a, b, cx, d;

	c->smt_shift = 0;
	c->pkg_shift = 0;
	if (c->cpuid_level >= 0xb) {
		cpuid(0xb, 0, &a, &b, &cx, &d);
		if (b && ((cx >> 8) & 0xff) == 1) {             /* level 0: SMT */
			c->smt_shift = a & 0x1f;
			cpuid(0xb, 1, &a, &b, &cx, &d);
			c->pkg_shift = ((cx >> 8) & 0xff) == 2 ? (a & 0x1f) : c->smt_shift;
			c->initial_apicid = d;          /* the full x2APIC ID */
			return;
		}
	}
	if (leaf1_edx & (1u << 28))                             /* HTT: a count */
		c->pkg_shift = count_order((leaf1_ebx >> 16) & 0xff);
}

static void get_model_name(struct cpuinfo_x86 *c)
{
	u32 *v = (u32 *)c->x86_model_id;
	char *p = c->x86_model_id;
	size_t n;

	for (u32 leaf = 0; leaf < 3; leaf++, v += 4)
		cpuid(0x80000002 + leaf, 0, &v[0], &v[1], &v[2], &v[3]);
	c->x86_model_id[48] = '\0';
	while (*p == ' ')                       /* Intel pads it on the left */
		p++;
	n = strlen(p);
	memmove(c->x86_model_id, p, n + 1);
	while (n && c->x86_model_id[n - 1] == ' ')
		c->x86_model_id[--n] = '\0';
}

static unsigned int cache_size_kb(const struct cpuinfo_x86 *c, u32 max_ext)
{
	u32 a, b, cx, d;
	unsigned int kb = 0;

	if (!strcmp(c->x86_vendor_id, "GenuineIntel") && c->cpuid_level >= 4) {
		/* the deterministic cache leaf: the last level listed */
		for (u32 i = 0; i < 16; i++) {
			cpuid(4, i, &a, &b, &cx, &d);
			if (!(a & 0x1f))
				break;
			kb = ((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
			     ((b & 0xfff) + 1) * (cx + 1) / 1024;
		}
		return kb;
	}
	if (max_ext >= 0x80000006) {
		cpuid(0x80000006, 0, &a, &b, &cx, &d);
		kb = cx >> 16;                          /* L2, in KB */
	}
	return kb;
}

void identify_cpu(void)
{
	struct cpuinfo_x86 *c = this_cpu_ptr(&cpu_info);
	u32 a, b, cx, d, max_ext;

	memset(c, 0, sizeof(*c));
	cpuid(0, 0, &a, &b, &cx, &d);
	c->cpuid_level = (int)a;
	memcpy(c->x86_vendor_id, &b, 4);
	memcpy(c->x86_vendor_id + 4, &d, 4);
	memcpy(c->x86_vendor_id + 8, &cx, 4);

	cpuid(1, 0, &a, &b, &cx, &d);
	c->x86 = (a >> 8) & 0xf;
	c->x86_model = (a >> 4) & 0xf;
	c->x86_stepping = a & 0xf;
	if (c->x86 == 0xf)
		c->x86 += (a >> 20) & 0xff;
	if (c->x86 >= 0x6)
		c->x86_model += ((a >> 16) & 0xf) << 4;
	c->x86_clflush_size = ((b >> 8) & 0xff) * 8;
	c->initial_apicid = b >> 24;
	c->x86_capability[CPUID_1_EDX] = d;
	c->x86_capability[CPUID_1_ECX] = cx;
	detect_topology(c, b, d);
	if (c->cpuid_level >= 7) {
		cpuid(7, 0, &a, &b, &cx, &d);
		c->x86_capability[CPUID_7_0_EBX] = b;
		c->x86_capability[CPUID_7_0_ECX] = cx;
	}

	cpuid(0x80000000, 0, &max_ext, &b, &cx, &d);
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &cx, &d);
		c->x86_capability[CPUID_8000_0001_EDX] = d;
		c->x86_capability[CPUID_8000_0001_ECX] = cx;
	}
	if (max_ext >= 0x80000004)
		get_model_name(c);
	c->x86_phys_bits = 36;                  /* the SDM's default */
	c->x86_virt_bits = 48;
	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, &a, &b, &cx, &d);
		c->x86_phys_bits = a & 0xff;
		c->x86_virt_bits = (a >> 8) & 0xff;
	}
	c->x86_cache_size = cache_size_kb(c, max_ext);

	c->apicid = read_apic_id();
	c->phys_proc_id = c->apicid >> c->pkg_shift;
	c->cpu_core_id = (c->apicid & ((1u << c->pkg_shift) - 1)) >> c->smt_shift;
	c->x86_max_cores = 1u << (c->pkg_shift - c->smt_shift);
}

/* online CPUs in c's package; how many distinct cores they are on */
static void package_counts(const struct cpuinfo_x86 *c, unsigned int *siblings,
			   unsigned int *cores)
{
	unsigned int cpu, other;

	*siblings = 0;
	*cores = 0;
	for_each_online_cpu(cpu) {
		const struct cpuinfo_x86 *o = &per_cpu(cpu_info, cpu);
		bool seen = false;

		if (o->phys_proc_id != c->phys_proc_id)
			continue;
		(*siblings)++;
		for_each_online_cpu(other) {            /* its core counted already? */
			const struct cpuinfo_x86 *p = &per_cpu(cpu_info, other);

			if (other >= cpu)
				break;
			if (p->phys_proc_id == o->phys_proc_id && p->cpu_core_id == o->cpu_core_id)
				seen = true;
		}
		if (!seen)
			(*cores)++;
	}
}

static int show_one(char *buf, size_t size, unsigned int cpu)
{
	const struct cpuinfo_x86 *c = &per_cpu(cpu_info, cpu);
	u64 khz = READ_ONCE(tsc_khz);
	unsigned int siblings, cores;
	int n;

	package_counts(c, &siblings, &cores);
	n = scnprintf(buf, size,
		      "processor\t: %u\n"
		      "vendor_id\t: %s\n"
		      "cpu family\t: %u\n"
		      "model\t\t: %u\n"
		      "model name\t: %s\n"
		      "stepping\t: %u\n"
		      "cpu MHz\t\t: %llu.%03llu\n",
		      cpu, c->x86_vendor_id[0] ? c->x86_vendor_id : "unknown", c->x86,
		      c->x86_model, c->x86_model_id[0] ? c->x86_model_id : "unknown",
		      c->x86_stepping, (unsigned long long)(khz / 1000),
		      (unsigned long long)(khz % 1000));
	if (c->x86_cache_size)
		n += scnprintf(buf + n, size - (size_t)n, "cache size\t: %u KB\n",
			       c->x86_cache_size);
	n += scnprintf(buf + n, size - (size_t)n,
		       "physical id\t: %u\n"
		       "siblings\t: %u\n"
		       "core id\t\t: %u\n"
		       "cpu cores\t: %u\n"
		       "apicid\t\t: %u\n"
		       "initial apicid\t: %u\n"
		       "fpu\t\t: %s\n"
		       "fpu_exception\t: %s\n"
		       "cpuid level\t: %d\n"
		       "wp\t\t: yes\n"
		       "flags\t\t:",
		       c->phys_proc_id, siblings, c->cpu_core_id, cores, c->apicid,
		       c->initial_apicid, (c->x86_capability[CPUID_1_EDX] & 1) ? "yes" : "no",
		       (c->x86_capability[CPUID_1_EDX] & 1) ? "yes" : "no", c->cpuid_level);
	for (int w = 0; w < NCAPINTS; w++)
		for (int bit = 0; bit < 32; bit++)
			if ((c->x86_capability[w] & (1u << bit)) && x86_cap_flags[w][bit])
				n += scnprintf(buf + n, size - (size_t)n, " %s",
					       x86_cap_flags[w][bit]);
	/* Linux's bogomips with a TSC delay loop: loops_per_jiffy =
	 * tsc_khz * 1000 / HZ, shown as loops_per_jiffy / (500000 / HZ) */
	n += scnprintf(buf + n, size - (size_t)n,
		       "\nbugs\t\t:\n"
		       "bogomips\t: %llu.%02llu\n"
		       "clflush size\t: %u\n"
		       "cache_alignment\t: %u\n"
		       "address sizes\t: %u bits physical, %u bits virtual\n"
		       "power management:\n\n",
		       (unsigned long long)(khz / 500), (unsigned long long)(khz / 5 % 100),
		       c->x86_clflush_size, c->x86_clflush_size, c->x86_phys_bits,
		       c->x86_virt_bits);
	return n;
}

int show_cpuinfo(char *buf, size_t size)
{
	unsigned int cpu;
	int n = 0;

	for_each_online_cpu(cpu)
		n += show_one(buf + n, size - (size_t)n, cpu);
	return n;
}
