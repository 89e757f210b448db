// SPDX-License-Identifier: MIT
/*
 * insncount.c - a QEMU TCG plugin that counts the guest instructions
 * each vCPU executes, and sets apart those in given address ranges.
 *
 * Why: under `-icount shift=0,sleep=off` a guest nanosecond is one
 * instruction only while the guest runs.  A guest that halts lets the
 * virtual clock jump to its next timer, and a guest that polls a device
 * QEMU completes in host time (NVMe) spins for as long as the host takes;
 * both end up in a benchmark's "instructions per I/O".  This plugin
 * counts what the vCPU really executes -- a halted vCPU executes nothing
 * -- and counts apart the instructions whose address falls in ranges it
 * is given (a kernel's idle loop, its poll loop: from System.map), so
 * that tools/compare-linux can leave them out (docs/performance.md, "NVMe
 * against Linux").
 *
 *   qemu-system-x86_64 ... -plugin build/tools/insncount.so,conf=C,out=O
 *
 * The file C has one directive a line ('#' starts a comment):
 *
 *   mark ADDR               print a snapshot each time ADDR executes
 *   range GROUP START END   instructions at [START, END) count to GROUP
 *   entry GROUP ADDR        each execution of ADDR is one of GROUP's entries
 *   loop GROUP START END    each block starting in [START, END) is a site of
 *                           GROUP's: its runs and gaps are counted apart
 *   profile                 with each snapshot, the blocks run since the last
 *   share                   with each snapshot, the cache lines that moved
 *                           between vCPUs since the last
 *
 * (addresses in hex; at most MAX_GROUPS groups).  A snapshot is one line
 * per vCPU appended to O:
 *
 *   INSNCOUNT mark=K vcpu=V insns=N kernel=S halts=H atomics=A GROUP=INSNS/ENTRIES/GAP/AT ...
 *
 * with the vCPU's counts since QEMU started, up to but not including the
 * marked instruction: all its instructions, those of them at kernel
 * addresses (the upper half of the address space: what leaves out the
 * benchmark program's own work), the halts, the atomic read-modify-writes
 * among the kernel's (is_atomic()), and each group's.  GAP is
 * the fewest instructions executed from one entry to the next since the
 * previous mark, and AT how many times that gap was seen: when the entry
 * is a poll function called once per iteration of a spin, GAP is one
 * empty iteration's cost, whatever the functions it calls (a module's
 * among them, wherever it was loaded), and AT about how many there were; the same line with mark=exit when QEMU ends.  The
 * guest brackets a workload by executing ADDR before and after it
 * (compare-linux reads /proc/version, and ADDR is the kernel's function
 * behind that file): a snapshot is exact to the instruction, needs no
 * device or port of its own, and works on any kernel whose symbols are
 * known.  The difference of two snapshots is the workload's count.
 *
 * A `loop` is for a spin whose empty iteration calls nothing that could
 * serve as an entry (an SQPOLL thread's loop, all inline on Linux): the
 * function's range is given, and every block that starts in it is a
 * site, counted as an entry would be.  Each snapshot is followed by
 *
 *   INSNLOOP mark=K vcpu=V GROUP ADDR ENTRIES GAP AT
 *
 * for each site the vCPU ever ran: its runs since QEMU started, and the
 * fewest instructions from one run to the next since the last snapshot
 * (and how often).  A site that runs once per iteration -- the one run
 * most often in a segment -- counts the iterations, and its GAP is one
 * empty iteration's cost, whatever it calls (tools/insncount.py).
 *
 * With `profile`, each snapshot is followed by one line per translated
 * block that ran since the previous snapshot:
 *
 *   INSNPROF mark=K ADDR INSNS EXECS
 *
 * the block's first address, its instructions, and how many times it ran
 * -- an exact profile, that the host turns into instructions per
 * function with the kernel's symbols (tools/insncount.py's
 * profile_per_io(); compare-linux --insn-profile).
 *
 * With `share`, every kernel-mode load and store at a kernel address is
 * watched, 64-byte line by line, as caches keep lines coherent (MESI,
 * simplified): a line is held by the vCPUs that read it since its last
 * store, and modified by the one that stored to it.  A load of a line
 * another vCPU modified, or a store to a line other vCPUs hold, moves
 * the line -- on hardware a cache-to-cache transfer, what Linux's
 * `perf c2c` reports.  Each snapshot is then followed by
 *
 *   INSNSHARE mark=K LINE PC MOVES
 *
 * for each line and instruction that moved it since the last snapshot:
 * the line's address, the instruction's, and how often.  A line that
 * only one vCPU touches (per-CPU data) never moves, nor does a device's
 * register (MMIO is not cached: a doorbell is not a line).  Run it with
 * multi-threaded TCG, where vCPUs interleave as CPUs do; under -icount
 * they take turns in long slices, and a line moves at most once a turn.
 * It is slow (a callback per access, under one lock): tools/c2c.py keeps
 * its jobs small.
 *
 * How it counts: at translation, each block's instructions are sorted
 * into groups once, and one callback per executed block adds the
 * block's totals to the vCPU's counters.  A block that stops part way
 * (a page fault, or QEMU restarting it to end at an I/O access under
 * -icount) counts whole, so the counts can run over by the instructions
 * such a block did not execute -- a few per device access; the halts are
 * the `hlt` instructions executed (each ends its block).  Counters are
 * per vCPU and written only by that vCPU's thread; a snapshot reads
 * every vCPU's, which is exact under -icount (all vCPUs take turns on
 * one thread) and approximate for the other vCPUs otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_GROUPS     32
#define MAX_NAME       32
#define OPCODE_HLT     0xf4    /* hlt: one byte, no prefix */
#define TB_HASH_BITS   16      /* the translated blocks' table, 64 Ki buckets */
#define ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))

struct range {
	uint64_t start, end;    /* [start, end) */
	int group;
};

struct entry {
	uint64_t addr;
	int group;
};

/* `loop`: a block start in a loop range, with per-vCPU counts */
struct site {
	struct site *next;      /* all sites */
	uint64_t addr;
	int group;
	struct site_count {
		uint64_t entries, last, min_gap, at_min;  /* as vcpu_count's */
	} vcpu[];
};

/* one vCPU's counters */
struct vcpu_count {
	uint64_t insns;
	uint64_t kernel;        /* of insns, at kernel addresses */
	uint64_t halts;
	uint64_t atomics;       /* of kernel, locked read-modify-writes */
	uint64_t group_insns[MAX_GROUPS];
	uint64_t group_entries[MAX_GROUPS];
	uint64_t last_entry[MAX_GROUPS];        /* insns at the last entry, 0: none */
	uint64_t min_gap[MAX_GROUPS];           /* since the last mark; UINT64_MAX: none */
	uint64_t at_min[MAX_GROUPS];
};

/*
 * What one translated block adds when it runs, worked out once at
 * translation.  Blocks are kept in a table keyed by their address,
 * length and bytes, so that a block QEMU translates again (it does, for
 * -icount's budget and for its code cache's flushes) reuses its entry
 * instead of adding one.
 */
struct tb_count {
	struct tb_count *next;  /* in its hash bucket */
	uint64_t execs;         /* times run, all vCPUs (`profile` only) */
	uint64_t dumped;        /* execs at the last snapshot */
	uint64_t vaddr;
	uint64_t hash;          /* of the block's instruction bytes */
	uint32_t n_insns;
	uint32_t kernel;
	uint32_t halts;
	uint32_t atomics;
	struct site *site;      /* `loop`: the block starts in a loop range */
	uint32_t n_groups;      /* pairs in group[] */
	struct {
		uint32_t group, insns, entries;
		uint32_t entry_at;      /* the first entry's index in the block */
	} group[];
};

/* a marked instruction: the part of its block that has not run yet */
struct mark_at {
	uint32_t rest_insns;
	uint32_t rest_kernel;
	uint32_t rest_halts;
	uint32_t rest_atomics;
	uint64_t rest_group[MAX_GROUPS];
};

static char group_name[MAX_GROUPS][MAX_NAME];
static int n_groups;
static struct range *ranges;    /* sorted by start, not overlapping */
static size_t n_ranges;
static struct entry *entries;
static size_t n_entries;
static struct range *loops;     /* `loop` ranges */
static size_t n_loops;
static struct site *sites;
static uint64_t *marks;
static size_t n_marks;

static struct vcpu_count *vcpus;
static int n_vcpus;
static FILE *out;
static uint64_t n_snapshots;
static bool profiling;          /* the `profile` directive */
static bool sharing;            /* the `share` directive */

/* `share`: a cache line's state, and the moves each instruction caused */
#define LINE_SHIFT      6
#define LINE_HASH_BITS  20
struct line {
	struct line *next;
	uint64_t addr;          /* >> LINE_SHIFT */
	uint64_t holders;       /* the vCPUs with a copy, a bit each */
	int dirty;              /* the vCPU that modified it, or -1 */
};
struct line_move {
	struct line_move *next;
	uint64_t line, pc;
	uint64_t moves, dumped;
};
static struct line *line_table[1u << LINE_HASH_BITS];
static struct line_move *move_table[1u << LINE_HASH_BITS];
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* out, the table */
static struct tb_count *tb_table[1u << TB_HASH_BITS];

/* ---- the configuration ------------------------------------------------ */

static int group_index(const char *name)
{
	for (int i = 0; i < n_groups; i++)
		if (!strcmp(group_name[i], name))
			return i;
	if (n_groups == MAX_GROUPS || strlen(name) >= MAX_NAME)
		return -1;
	strcpy(group_name[n_groups], name);
	return n_groups++;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void *grow(void *array, size_t n, size_t size)
{
	void *p = realloc(array, (n + 1) * size);

	if (!p) {
		fprintf(stderr, "insncount: out of memory\n");
		exit(1);
	}
	return p;
}

/* Reads the directives of path; 0, or -1 with a message on stderr. */
static int read_conf(const char *path)
{
	char line[256], word[16], name[MAX_NAME + 1];
	uint64_t a, b;
	int lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "insncount: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		int g;

		lineno++;
		if (hash)
			*hash = '\0';
		if (sscanf(line, "%15s", word) != 1)
			continue;                       /* blank */
		if (!strcmp(word, "mark") && sscanf(line, "%*s %" SCNx64, &a) == 1) {
			marks = grow(marks, n_marks, sizeof(*marks));
			marks[n_marks++] = a;
		} else if (!strcmp(word, "range") &&
			   sscanf(line, "%*s %32s %" SCNx64 " %" SCNx64, name, &a, &b) == 3 &&
			   a < b && (g = group_index(name)) >= 0) {
			ranges = grow(ranges, n_ranges, sizeof(*ranges));
			ranges[n_ranges++] = (struct range){ a, b, g };
		} else if (!strcmp(word, "loop") &&
			   sscanf(line, "%*s %32s %" SCNx64 " %" SCNx64, name, &a, &b) == 3 &&
			   a < b && (g = group_index(name)) >= 0) {
			loops = grow(loops, n_loops, sizeof(*loops));
			loops[n_loops++] = (struct range){ a, b, g };
		} else if (!strcmp(word, "profile")) {
			profiling = true;
		} else if (!strcmp(word, "share")) {
			sharing = true;
		} else if (!strcmp(word, "entry") &&
			   sscanf(line, "%*s %32s %" SCNx64, name, &a) == 2 &&
			   (g = group_index(name)) >= 0) {
			entries = grow(entries, n_entries, sizeof(*entries));
			entries[n_entries++] = (struct entry){ a, g };
		} else {
			fprintf(stderr, "insncount: %s:%d: not a directive, or over %d groups: %s",
				path, lineno, MAX_GROUPS, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	qsort(ranges, n_ranges, sizeof(*ranges), range_cmp);
	for (size_t i = 1; i < n_ranges; i++) {
		if (ranges[i].start < ranges[i - 1].end) {
			uint64_t a = ranges[i - 1].start, b = ranges[i].start;

			fprintf(stderr, "insncount: %s: ranges %#" PRIx64 " and %#" PRIx64 " overlap\n",
				path, a, b);
			return -1;
		}
	}
	return 0;
}

/* the group of the instruction at addr, or -1 (binary search) */
static int group_of(uint64_t addr)
{
	size_t lo = 0, hi = n_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < ranges[mid].start)
			hi = mid;
		else if (addr >= ranges[mid].end)
			lo = mid + 1;
		else
			return ranges[mid].group;
	}
	return -1;
}

static int entry_of(uint64_t addr)
{
	for (size_t i = 0; i < n_entries; i++)
		if (entries[i].addr == addr)
			return entries[i].group;
	return -1;
}

/* the site of a block starting at addr, made on first sight; NULL if
 * addr is in no loop range (caller holds lock) */
static struct site *site_of(uint64_t addr)
{
	struct site *s;
	size_t i;

	for (i = 0; i < n_loops; i++)
		if (addr >= loops[i].start && addr < loops[i].end)
			break;
	if (i == n_loops)
		return NULL;
	for (s = sites; s; s = s->next)
		if (s->addr == addr)
			return s;
	s = calloc(1, sizeof(*s) + n_vcpus * sizeof(s->vcpu[0]));
	if (!s)
		return NULL;
	s->addr = addr;
	s->group = loops[i].group;
	for (int v = 0; v < n_vcpus; v++)
		s->vcpu[v].min_gap = UINT64_MAX;
	s->next = sites;
	sites = s;
	return s;
}

static bool is_mark(uint64_t addr)
{
	for (size_t i = 0; i < n_marks; i++)
		if (marks[i] == addr)
			return true;
	return false;
}

/* ---- counting ------------------------------------------------------------ */

/* x86-64 kernels (Spindle's, Linux's) live in the upper canonical half */
static bool is_kernel(uint64_t addr)
{
	return addr >> 63;
}

/* the blocks run since the last snapshot (caller holds lock) */
static void dump_profile(const char *label)
{
	for (size_t b = 0; b < ARRAY_SIZE(tb_table); b++) {
		for (struct tb_count *t = tb_table[b]; t; t = t->next) {
			uint64_t execs = __atomic_load_n(&t->execs, __ATOMIC_RELAXED);

			if (execs == t->dumped)
				continue;
			fprintf(out, "INSNPROF mark=%s %" PRIx64 " %" PRIu32 " %" PRIu64 "\n", label,
				t->vaddr, t->n_insns, execs - t->dumped);
			t->dumped = execs;
		}
	}
}

/* the lines moved since the last snapshot (caller holds lock) */
static void dump_moves(const char *label)
{
	pthread_mutex_lock(&share_lock);
	for (size_t b = 0; b < ARRAY_SIZE(move_table); b++) {
		for (struct line_move *m = move_table[b]; m; m = m->next) {
			if (m->moves == m->dumped)
				continue;
			fprintf(out, "INSNSHARE mark=%s %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", label,
				m->line << LINE_SHIFT, m->pc, m->moves - m->dumped);
			m->dumped = m->moves;
		}
	}
	pthread_mutex_unlock(&share_lock);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	return x ^ (x >> 33);
}

/* one move of line by the instruction at pc (caller holds share_lock) */
static void count_move(uint64_t line, uint64_t pc)
{
	struct line_move **bucket, *m;

	bucket = &move_table[mix(line ^ (pc << 20)) & (ARRAY_SIZE(move_table) - 1)];
	for (m = *bucket; m; m = m->next)
		if (m->line == line && m->pc == pc)
			break;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return;
		m->line = line;
		m->pc = pc;
		m->next = *bucket;
		*bucket = m;
	}
	m->moves++;
}

/* a kernel-mode instruction's access: udata is the instruction's address */
static void mem_access(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
		       void *udata)
{
	uint64_t line = vaddr >> LINE_SHIFT, me = 1ull << (vcpu_index & 63);
	bool store = qemu_plugin_mem_is_store(info);
	struct qemu_plugin_hwaddr *hw;
	struct line **bucket, *l;

	if (!is_kernel(vaddr))
		return;                 /* a user address: one process's, not shared */
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;                 /* a device's register: never cached */
	pthread_mutex_lock(&share_lock);
	bucket = &line_table[mix(line) & (ARRAY_SIZE(line_table) - 1)];
	for (l = *bucket; l; l = l->next)
		if (l->addr == line)
			break;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l)
			goto out;
		l->addr = line;
		l->dirty = -1;
		l->next = *bucket;
		*bucket = l;
	}
	if (store) {
		/* the others' copies are invalidated, a modified one comes over */
		if (l->holders & ~me)
			count_move(line, (uintptr_t)udata);
		l->holders = me;
		l->dirty = (int)vcpu_index;
	} else {
		if (l->dirty >= 0 && l->dirty != (int)vcpu_index) {
			count_move(line, (uintptr_t)udata);
			l->dirty = -1;  /* written back: shared now */
		}
		l->holders |= me;
	}
out:
	pthread_mutex_unlock(&share_lock);
}

static void snapshot(const char *label, const struct mark_at *rest, unsigned int vcpu_index)
{
	pthread_mutex_lock(&lock);
	for (int v = 0; v < n_vcpus; v++) {
		const struct vcpu_count *c = &vcpus[v];
		/* the marked vCPU's block has been counted whole: take off what
		 * of it has not run yet */
		bool self = (unsigned int)v == vcpu_index;

		uint64_t insns = c->insns - (self ? rest->rest_insns : 0);
		uint64_t kernel = c->kernel - (self ? rest->rest_kernel : 0);
		uint64_t halts = c->halts - (self ? rest->rest_halts : 0);
		uint64_t atomics = c->atomics - (self ? rest->rest_atomics : 0);

		fprintf(out, "INSNCOUNT mark=%s vcpu=%d", label, v);
		fprintf(out, " insns=%" PRIu64 " kernel=%" PRIu64 " halts=%" PRIu64
			" atomics=%" PRIu64, insns, kernel, halts, atomics);
		for (int g = 0; g < n_groups; g++)
			fprintf(out, " %s=%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64, group_name[g],
				c->group_insns[g] - (self ? rest->rest_group[g] : 0),
				c->group_entries[g], c->min_gap[g] == UINT64_MAX ? 0 : c->min_gap[g],
				c->at_min[g]);
		fputc('\n', out);
	}
	for (struct site *s = sites; s; s = s->next) {
		for (int v = 0; v < n_vcpus; v++) {
			struct site_count *sc = &s->vcpu[v];

			if (sc->entries)
				fprintf(out, "INSNLOOP mark=%s vcpu=%d %s %" PRIx64 " %" PRIu64
					" %" PRIu64 " %" PRIu64 "\n", label, v, group_name[s->group],
					s->addr, sc->entries,
					sc->min_gap == UINT64_MAX ? 0 : sc->min_gap, sc->at_min);
			sc->min_gap = UINT64_MAX;
			sc->at_min = 0;
		}
	}
	if (profiling)
		dump_profile(label);
	if (sharing)
		dump_moves(label);
	for (int v = 0; v < n_vcpus; v++) {
		for (int g = 0; g < MAX_GROUPS; g++) {
			vcpus[v].min_gap[g] = UINT64_MAX;
			vcpus[v].at_min[g] = 0;
		}
	}
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void tb_exec(unsigned int vcpu_index, void *udata)
{
	struct tb_count *t = udata;
	struct vcpu_count *c;

	if ((int)vcpu_index >= n_vcpus)
		return;
	c = &vcpus[vcpu_index];
	for (uint32_t i = 0; i < t->n_groups; i++) {
		uint32_t g = t->group[i].group;

		c->group_insns[g] += t->group[i].insns;
		c->group_entries[g] += t->group[i].entries;
		if (t->group[i].entries) {
			/* the distance from the previous entry, in instructions */
			uint64_t at = c->insns + t->group[i].entry_at;

			if (c->last_entry[g]) {
				uint64_t gap = at - c->last_entry[g];

				if (gap < c->min_gap[g]) {
					c->min_gap[g] = gap;
					c->at_min[g] = 0;
				}
				c->at_min[g] += gap == c->min_gap[g];
			}
			c->last_entry[g] = at;
		}
	}
	if (t->site) {
		struct site_count *sc = &t->site->vcpu[vcpu_index];

		if (sc->last) {
			uint64_t gap = c->insns - sc->last;

			if (gap < sc->min_gap) {
				sc->min_gap = gap;
				sc->at_min = 0;
			}
			sc->at_min += gap == sc->min_gap;
		}
		sc->last = c->insns;
		sc->entries++;
	}
	if (profiling)
		__atomic_fetch_add(&t->execs, 1, __ATOMIC_RELAXED);
	c->insns += t->n_insns;
	c->kernel += t->kernel;
	c->halts += t->halts;
	c->atomics += t->atomics;
}

static void mark_exec(unsigned int vcpu_index, void *udata)
{
	char label[24];

	pthread_mutex_lock(&lock);
	snprintf(label, sizeof(label), "%" PRIu64, n_snapshots++);
	pthread_mutex_unlock(&lock);
	snapshot(label, udata, vcpu_index);
}

/*
 * An atomic read-modify-write: an instruction with the LOCK prefix
 * (lock cmpxchg, lock xadd, lock inc ...), or XCHG with a memory operand,
 * which locks without one.  A CPU pays for these in cache-line ownership;
 * QEMU's TCG, once it runs more than one vCPU, must make each atomic on
 * the host too.  The legacy prefixes come first, then an optional REX.
 */
static bool is_atomic(const unsigned char *d, size_t n)
{
	size_t i = 0;
	bool lock = false;

	for (; i < n; i++) {
		unsigned char b = d[i];

		if (b == 0xf0)
			lock = true;
		else if (!(b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
			   b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65))
			break;
	}
	if (lock)
		return true;
	if (i < n && (d[i] & 0xf0) == 0x40)        /* REX */
		i++;
	/* xchg r/m, r (0x86, 0x87) with a memory operand: ModRM.mod != 3 */
	return i + 1 < n && (d[i] == 0x86 || d[i] == 0x87) && (d[i + 1] >> 6) != 3;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/*
 * A block is translated: sort its instructions into groups, find its
 * halts, entries and marks, and have tb_exec() add them up each time it
 * runs.
 */
static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint32_t insns[MAX_GROUPS] = { 0 }, entered[MAX_GROUPS] = { 0 }, entry_at[MAX_GROUPS];
	uint32_t halts = 0, kernel = 0, atomics = 0, used = 0;
	uint64_t hash = 0xcbf29ce484222325ull, vaddr;
	struct tb_count *t, **bucket;

	(void)id;
	if (!n)
		return;
	vaddr = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		const unsigned char *data = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);
		int g = group_of(addr), e = entry_of(addr);

		hash = fnv1a(hash, data, size);
		if (size == 1 && data[0] == OPCODE_HLT)
			halts++;
		if (is_kernel(addr)) {
			kernel++;
			atomics += is_atomic(data, size);
		}
		if (g >= 0)
			insns[g]++;
		if (e >= 0 && !entered[e]++)
			entry_at[e] = i;
		if (sharing && is_kernel(addr))
			qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)addr);
		if (is_mark(addr)) {
			/* what this block counts from the mark on, which at the
			 * mark has not run yet */
			struct mark_at *m = calloc(1, sizeof(*m));

			if (!m)
				continue;
			for (size_t j = i; j < n; j++) {
				struct qemu_plugin_insn *r = qemu_plugin_tb_get_insn(tb, j);
				const unsigned char *d = qemu_plugin_insn_data(r);
				int rg = group_of(qemu_plugin_insn_vaddr(r));

				m->rest_insns++;
				if (is_kernel(qemu_plugin_insn_vaddr(r))) {
					m->rest_kernel++;
					m->rest_atomics += is_atomic(d, qemu_plugin_insn_size(r));
				}
				if (qemu_plugin_insn_size(r) == 1 && d[0] == OPCODE_HLT)
					m->rest_halts++;
				if (rg >= 0)
					m->rest_group[rg]++;
			}
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
							       QEMU_PLUGIN_CB_NO_REGS, m);
		}
	}
	for (int g = 0; g < n_groups; g++)
		used += insns[g] || entered[g];

	pthread_mutex_lock(&lock);
	bucket = &tb_table[(vaddr ^ hash ^ n) & ((1u << TB_HASH_BITS) - 1)];
	for (t = *bucket; t; t = t->next)
		if (t->vaddr == vaddr && t->hash == hash && t->n_insns == n)
			break;
	if (!t) {
		t = calloc(1, sizeof(*t) + used * sizeof(t->group[0]));
		if (!t) {
			pthread_mutex_unlock(&lock);
			return;
		}
		t->vaddr = vaddr;
		t->hash = hash;
		t->n_insns = n;
		t->kernel = kernel;
		t->halts = halts;
		t->atomics = atomics;
		t->site = site_of(vaddr);
		for (int g = 0; g < n_groups; g++) {
			if (!insns[g] && !entered[g])
				continue;
			t->group[t->n_groups].group = g;
			t->group[t->n_groups].insns = insns[g];
			t->group[t->n_groups].entries = entered[g];
			t->group[t->n_groups].entry_at = entered[g] ? entry_at[g] : 0;
			t->n_groups++;
		}
		t->next = *bucket;
		*bucket = t;
	}
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	static const struct mark_at nothing_left;   /* not at a marked instruction */

	(void)id;
	(void)udata;
	snapshot("exit", &nothing_left, 0);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *conf = NULL, *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "conf=", 5)) {
			conf = argv[i] + 5;
		} else if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr, "insncount: unknown argument %s (conf=FILE, out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!path || !info->system_emulation) {
		fprintf(stderr, "insncount: needs out=FILE, and system emulation\n");
		return -1;
	}
	if (conf && read_conf(conf))
		return -1;
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "insncount: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n_vcpus = info->system.max_vcpus;
	vcpus = calloc(n_vcpus, sizeof(*vcpus));
	if (!vcpus)
		return -1;
	for (int v = 0; v < n_vcpus; v++)
		for (int g = 0; g < MAX_GROUPS; g++)
			vcpus[v].min_gap[g] = UINT64_MAX;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
