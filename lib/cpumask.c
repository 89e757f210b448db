// SPDX-License-Identifier: MIT
/*
 * cpumask.c - a set of CPUs as text, in the two forms Linux's files use:
 *
 *   hex    "3", "0f", "1,00000000" (/proc/irq/N/smp_affinity): bit n is
 *          CPU n; commas between groups of eight digits are allowed, as
 *          Linux prints them for more than 32 CPUs
 *   list   "0-3", "1,3", "0-2,5" (/proc/irq/N/smp_affinity_list, the
 *          irqaffinity= and isolcpus= options, taskset -c)
 *
 * Portable: the host's unit tests run it (tests/unit/check_cpumask.c).
 */
#include <spindle/smp.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/printk.h>

/* len bytes, not NUL-terminated (a write(2)'s buffer); one trailing
 * newline allowed.  -EINVAL: not hex, empty; -ERANGE: a CPU >= NR_CPUS. */
int cpumask_parse(const char *buf, size_t len, struct cpumask *mask)
{
	unsigned long bits = 0;
	unsigned int digits = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int v = buf[i] == ',' ? -2 : hex_to_bin((unsigned char)buf[i]);

		if (v == -2)
			continue;
		if (v < 0)
			return -EINVAL;
		if (bits >> (NR_CPUS - 4))
			return -ERANGE;         /* another digit would shift CPUs out */
		bits = bits << 4 | (unsigned long)v;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	if (bits >> NR_CPUS)
		return -ERANGE;
	mask->bits = bits;
	return 0;
}

static int parse_cpu(const char **p, const char *end, unsigned int *cpu)
{
	unsigned int v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned int)(*s - '0');
		if (v >= NR_CPUS)
			return -ERANGE;
	}
	*p = s;
	*cpu = v;
	return 0;
}

/* "0-3,5": ranges and single CPUs, comma-separated.  Same rules. */
int cpulist_parse(const char *buf, size_t len, struct cpumask *mask)
{
	const char *p = buf, *end;
	unsigned long bits = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	end = buf + len;
	if (!len)
		return -EINVAL;
	for (;;) {
		unsigned int first, last;
		int err = parse_cpu(&p, end, &first);

		if (err)
			return err;
		last = first;
		if (p < end && *p == '-') {
			p++;
			err = parse_cpu(&p, end, &last);
			if (err)
				return err;
			if (last < first)
				return -EINVAL;
		}
		for (unsigned int c = first; c <= last; c++)
			bits |= 1ul << c;
		if (p == end)
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	mask->bits = bits;
	return 0;
}

/* Hex, as many digits as nr_cpus needs (Linux's "%*pb"), and a newline. */
int cpumask_print(char *buf, size_t size, const struct cpumask *mask, unsigned int nr_cpus)
{
	unsigned int digits = nr_cpus ? (nr_cpus + 3) / 4 : 1;

	return scnprintf(buf, size, "%0*lx\n", (int)digits, mask->bits);
}

/* A list, ranges joined (Linux's "%*pbl"), and a newline. */
int cpulist_print(char *buf, size_t size, const struct cpumask *mask)
{
	int n = 0;

	for (unsigned int c = 0; c < NR_CPUS; c++) {
		unsigned int last = c;

		if (!((mask->bits >> c) & 1))
			continue;
		while (last + 1 < NR_CPUS && ((mask->bits >> (last + 1)) & 1))
			last++;
		n += scnprintf(buf + n, size - (size_t)n, n ? ",%u" : "%u", c);
		if (last > c)
			n += scnprintf(buf + n, size - (size_t)n, "-%u", last);
		c = last;
	}
	n += scnprintf(buf + n, size - (size_t)n, "\n");
	return n;
}
