// SPDX-License-Identifier: MIT
/*
 * dd - copy blocks, with GNU coreutils dd's operands and closing report.
 *
 *   dd [if=FILE] [of=FILE] [bs=N] [ibs=N] [obs=N] [count=N] [skip=N] [seek=N]
 *      [iflag=direct,fullblock] [oflag=direct] [conv=fsync,fdatasync,notrunc]
 *      [status=none|noxfer|progress]
 *
 * N takes GNU's suffixes: c (1), w (2), b (512), kB K KiB, MB M MiB, GB G
 * GiB, TB T TiB (kB = 1000, K = KiB = 1024 ...), and products like 2x512.
 *
 * How it copies.  With bs= each block read is written as it came, whole
 * or short; without it, input blocks of ibs are gathered into output
 * blocks of obs (POSIX's rule, GNU's behaviour).  A block is "full" when it
 * has the whole block size, "partial" otherwise; the report counts both:
 *
 *   16+0 records in
 *   16+0 records out
 *   16777216 bytes (17 MB, 16 MiB) copied, 0.0402 s, 417 MB/s
 *
 * The third line is laid out exactly as GNU dd lays it out: the size in
 * powers of 1000 and of 1024 rounded to 2-3 digits (tenths below 10), the
 * time with printf's %g, and the rate.  Students compare Spindle's numbers
 * with the host's, so the format must be the same; tests/user/run.sh
 * checks it against the host's dd.
 *
 * O_DIRECT (iflag=direct, oflag=direct) needs page-aligned buffers: they
 * come from mmap.  GNU's special cases kept: a final short read that fails
 * with EINVAL under iflag=direct (the file's unaligned tail) ends the copy
 * quietly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define DEFAULT_BS 512

struct dd_opts {
	const char *in_name, *out_name;
	uint64_t bs, ibs, obs, count, skip, seek;
	int bs_given;
	int iflags, oflags;             /* O_DIRECT */
	int fullblock;
	int conv_fsync, conv_fdatasync, conv_notrunc;
	int status;                     /* 0 default, 1 noxfer, 2 none */
};

struct dd_stats {
	uint64_t r_full, r_partial, w_full, w_partial, bytes;
	struct timespec start;
};

static struct dd_opts o = { .ibs = DEFAULT_BS, .obs = DEFAULT_BS, .count = UINT64_MAX };
static struct dd_stats s;
static int in_fd = 0, out_fd = 1;

/* --- numbers with GNU's suffixes --- */

static const struct {
	const char *suffix;
	uint64_t mult;
} suffixes[] = {
	{ "c", 1 }, { "w", 2 }, { "b", 512 },
	{ "kB", 1000ULL }, { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "k", 1ULL << 10 },
	{ "MB", 1000000ULL }, { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "GB", 1000000000ULL }, { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "TB", 1000000000000ULL }, { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
};

/* parse N[suffix][xN...]; 0 on success */
static int parse_number(const char *str, uint64_t *out)
{
	const char *p = str;
	uint64_t n = 0, mult = 1;
	char *x;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (unsigned)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (unsigned)(*p - '0');
	}
	x = strchr(p, 'x');
	if (p != (x ? x : p + strlen(p))) {
		size_t len = (size_t)((x ? x : p + strlen(p)) - p);
		unsigned i;

		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (strlen(suffixes[i].suffix) == len && !strncmp(p, suffixes[i].suffix, len))
				break;
		if (i == sizeof(suffixes) / sizeof(suffixes[0]))
			return -1;
		mult = suffixes[i].mult;
	}
	if (mult && n > UINT64_MAX / mult)
		return -1;
	n *= mult;
	if (x) {
		uint64_t rest;

		if (parse_number(x + 1, &rest) || (rest && n > UINT64_MAX / rest))
			return -1;
		n *= rest;
	}
	*out = n;
	return 0;
}

/* --- operands --- */

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "dd: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'dd --help' for more information.\n");
	exit(1);
}

/* a comma-separated list of flags: each must be in `names` */
static void parse_flags(const char *list, const char *what, void (*set)(const char *name))
{
	char buf[256], *p = buf, *name;

	snprintf(buf, sizeof(buf), "%s", list);
	while ((name = strsep(&p, ",")) != NULL) {
		if (!*name)
			continue;
		set(name);
	}
	(void)what;
}

static void set_iflag(const char *f)
{
	if (!strcmp(f, "direct"))
		o.iflags |= O_DIRECT;
	else if (!strcmp(f, "fullblock"))
		o.fullblock = 1;
	else
		usage_error("invalid input flag: '%s'", f);
}

static void set_oflag(const char *f)
{
	if (!strcmp(f, "direct"))
		o.oflags |= O_DIRECT;
	else
		usage_error("invalid output flag: '%s'", f);
}

static void set_conv(const char *f)
{
	if (!strcmp(f, "fsync"))
		o.conv_fsync = 1;
	else if (!strcmp(f, "fdatasync"))
		o.conv_fdatasync = 1;
	else if (!strcmp(f, "notrunc"))
		o.conv_notrunc = 1;
	else
		usage_error("invalid conversion: '%s'", f);
}

static void parse_operand(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *val;
	size_t klen;
	uint64_t n;

	if (!eq)
		usage_error("unrecognized operand '%s'", arg);
	val = eq + 1;
	klen = (size_t)(eq - arg);
#define KEY(k) (klen == strlen(k) && !strncmp(arg, k, klen))
	if (KEY("if")) {
		o.in_name = val;
	} else if (KEY("of")) {
		o.out_name = val;
	} else if (KEY("iflag")) {
		parse_flags(val, "input flag", set_iflag);
	} else if (KEY("oflag")) {
		parse_flags(val, "output flag", set_oflag);
	} else if (KEY("conv")) {
		parse_flags(val, "conversion", set_conv);
	} else if (KEY("status")) {
		if (!strcmp(val, "none"))
			o.status = 2;
		else if (!strcmp(val, "noxfer"))
			o.status = 1;
		else if (strcmp(val, "progress"))
			usage_error("invalid status level: '%s'", val);
	} else if (KEY("bs") || KEY("ibs") || KEY("obs") || KEY("count") ||
		   KEY("skip") || KEY("seek") || KEY("iseek") || KEY("oseek")) {
		if (parse_number(val, &n)) {
			fprintf(stderr, "dd: invalid number: '%s'\n", val);
			exit(1);
		}
		if ((KEY("bs") || KEY("ibs") || KEY("obs")) && n == 0) {
			fprintf(stderr, "dd: invalid number: '%s'\n", val);
			exit(1);
		}
		if (KEY("bs")) {
			o.bs = n;               /* wins over ibs=/obs=, in any order */
			o.bs_given = 1;
		} else if (KEY("ibs")) {
			o.ibs = n;
		} else if (KEY("obs")) {
			o.obs = n;
		} else if (KEY("count")) {
			o.count = n;
		} else if (KEY("skip") || KEY("iseek")) {
			o.skip = n;
		} else {
			o.seek = n;
		}
	} else {
		usage_error("unrecognized operand '%s'", arg);
	}
#undef KEY
}

/* --- the closing report, in GNU dd's format --- */

static const char si_letters[] = " kMGTPEZY";
static const char iec_letters[] = " KMGTPEZY";

/*
 * An exact byte count in powers of `base` (1000 or 1024), as GNU's
 * human_readable() prints it for dd: below 10 units one decimal ("1.5"),
 * otherwise a whole number; halfway cases go to the even neighbour, and
 * a number that rounds up to `base` moves to the next unit ("1.0 MB").
 * `rounding` tracks what was cut off below the tenths digit: 0 nothing,
 * 1 less than half, 2 exactly half, 3 more than half.
 */
static void human_size(uint64_t amt, unsigned base, char *out, size_t size)
{
	const char *letters = base == 1000 ? si_letters : iec_letters;
	unsigned tenths = 0, rounding = 0, exponent = 0;
	char frac[4] = "";

	if (amt >= base) {
		do {
			unsigned r10 = (unsigned)(amt % base) * 10 + tenths;
			unsigned r2 = (r10 % base) * 2 + (rounding >> 1);

			amt /= base;
			tenths = r10 / base;
			rounding = r2 < base ? (r2 + rounding) != 0 : 2 + (base < r2 + rounding);
			exponent++;
		} while (amt >= base && exponent < 8);
		if (amt < 10) {
			if (2 < rounding + (tenths & 1)) {      /* round the tenths */
				tenths++;
				rounding = 0;
				if (tenths == 10) {
					amt++;
					tenths = 0;
				}
			}
			if (amt < 10) {
				snprintf(frac, sizeof(frac), ".%u", tenths);
				tenths = rounding = 0;
			}
		}
	}
	/* round the units digit */
	if (5 < tenths + (0 < rounding + (amt & 1))) {
		amt++;
		if (amt == base && exponent < 8) {
			exponent++;
			amt = 1;
			strcpy(frac, ".0");
		}
	}
	if (exponent)
		snprintf(out, size, "%llu%s %c%sB", (unsigned long long)amt, frac,
			 letters[exponent], base == 1024 ? "i" : "");
	else
		snprintf(out, size, "%llu%s B", (unsigned long long)amt, frac);
}

/* n / d rounded to the nearest integer, in 128 bits */
static unsigned __int128 div_round(unsigned __int128 n, unsigned __int128 d)
{
	return (n + d / 2) / d;
}

/*
 * The rate, bytes per second in powers of 1000, at least "k": GNU
 * computes it in floating point and prints "%.1f", falling back to a whole
 * number when that is wider than 4 characters ("24.3 GB/s", "417 MB/s").
 */
static void human_rate(uint64_t bytes, uint64_t ns, char *out, size_t size)
{
	unsigned __int128 num = (unsigned __int128)bytes * 1000000000u;  /* bytes/s * ns */
	unsigned __int128 e = 1000;
	unsigned exponent = 1, v10;

	if (!ns) {
		snprintf(out, size, "Infinity B/s");
		return;
	}
	while (e * 1000 * ns <= num && exponent < 8) {
		e *= 1000;
		exponent++;
	}
	v10 = (unsigned)div_round(num * 10, e * ns);
	if (v10 < 1000)
		snprintf(out, size, "%u.%u %cB/s", v10 / 10, v10 % 10, si_letters[exponent]);
	else
		snprintf(out, size, "%llu %cB/s", (unsigned long long)div_round(num, e * ns),
			 si_letters[exponent]);
}

/*
 * Seconds as printf's "%g" prints them: 6 significant digits, trailing
 * zeros dropped, and the e-notation for values below 0.0001 (1.9587e-05).
 */
static void format_seconds(uint64_t ns, char *out, size_t size)
{
	char digits[32], mant[16];
	uint64_t sig = ns;
	int nd, exp10, len;

	if (!ns) {
		snprintf(out, size, "0");
		return;
	}
	nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)ns);
	exp10 = nd - 1 - 9;                     /* value = d.ddd x 10^exp10 s */
	if (nd > 6) {
		uint64_t div = 1;

		for (int i = 0; i < nd - 6; i++)
			div *= 10;
		sig = (ns + div / 2) / div;
		if (sig == 1000000) {           /* 9.999996 -> 10.0000 */
			sig = 100000;
			exp10++;
		}
	}
	len = snprintf(mant, sizeof(mant), "%llu", (unsigned long long)sig);
	while (len > 1 && mant[len - 1] == '0')
		mant[--len] = '\0';             /* significant digits, no trailing 0 */
	if (exp10 < -4 || exp10 >= 6) {
		snprintf(out, size, "%c%s%se%c%02d", mant[0], len > 1 ? "." : "", mant + 1,
			 exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
	} else if (exp10 >= 0) {
		/* mant = the digits; the point goes after exp10 + 1 of them */
		int ip = exp10 + 1;

		if (len <= ip)
			snprintf(out, size, "%s%.*s", mant, ip - len, "000000");
		else
			snprintf(out, size, "%.*s.%s", ip, mant, mant + ip);
	} else {
		snprintf(out, size, "0.%.*s%s", -exp10 - 1, "0000", mant);
	}
}

static uint64_t elapsed_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - s.start.tv_sec) * 1000000000u +
	       (uint64_t)now.tv_nsec - (uint64_t)s.start.tv_nsec;
}

static void print_stats(void)
{
	char si[32], iec[32], rate[32], secs[32];
	uint64_t ns;

	if (o.status == 2)
		return;
	fprintf(stderr, "%llu+%llu records in\n%llu+%llu records out\n",
		(unsigned long long)s.r_full, (unsigned long long)s.r_partial,
		(unsigned long long)s.w_full, (unsigned long long)s.w_partial);
	if (o.status == 1)
		return;
	ns = elapsed_ns();
	human_size(s.bytes, 1000, si, sizeof(si));
	human_size(s.bytes, 1024, iec, sizeof(iec));
	human_rate(s.bytes, ns, rate, sizeof(rate));
	format_seconds(ns, secs, sizeof(secs));
	/* " B" at the end: no unit prefix, so the bytes alone say it all */
	if (si[strlen(si) - 2] == ' ')
		fprintf(stderr, "%llu byte%s copied, %s s, %s\n", (unsigned long long)s.bytes,
			s.bytes == 1 ? "" : "s", secs, rate);
	else if (iec[strlen(iec) - 2] == ' ')
		fprintf(stderr, "%llu bytes (%s) copied, %s s, %s\n",
			(unsigned long long)s.bytes, si, secs, rate);
	else
		fprintf(stderr, "%llu bytes (%s, %s) copied, %s s, %s\n",
			(unsigned long long)s.bytes, si, iec, secs, rate);
}

/* an error during the copy: say what, report what was done, exit 1 */
static void fail(const char *what, const char *name)
{
	fprintf(stderr, "dd: %s '%s': %s\n", what, name, strerror(errno));
	print_stats();
	exit(1);
}

/* an error before the copy: no report, as GNU dd */
static void fail_early(const char *what, const char *name)
{
	fprintf(stderr, "dd: %s '%s': %s\n", what, name, strerror(errno));
	exit(1);
}

/* --- the copy --- */

static void *alloc_buffer(uint64_t size)
{
	/* page-aligned, as O_DIRECT requires of the memory too */
	void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "dd: memory exhausted by a buffer of %llu bytes\n",
			(unsigned long long)size);
		exit(1);
	}
	return p;
}

/* one read of up to n bytes (all n with iflag=fullblock); 0 at the end */
static ssize_t read_block(char *buf, size_t n)
{
	static ssize_t prev = 0;
	size_t got = 0;

	for (;;) {
		ssize_t r = read(in_fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;               /* a signal: read again, not the end */
		/* GNU: under O_DIRECT, the read after a short one may fail
		 * with EINVAL (an unaligned offset): that is the end */
		if (r < 0 && errno == EINVAL && (o.iflags & O_DIRECT) && prev > 0 &&
		    (size_t)prev < n)
			r = 0;
		if (r < 0)
			return -1;
		prev = r;
		if (r == 0)
			break;
		got += (size_t)r;
		if (!o.fullblock || got >= n)
			break;
	}
	return (ssize_t)got;
}

static void write_block(const char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(out_fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			s.bytes += done;
			if (done)
				s.w_partial++;
			fail("error writing", o.out_name ? o.out_name : "standard output");
		}
		done += (size_t)w;
	}
	s.bytes += n;
	if (n == o.obs)
		s.w_full++;
	else
		s.w_partial++;
}

/* skip= on the input: seek if it can, else read and throw away */
static void skip_input(char *buf)
{
	const char *name = o.in_name ? o.in_name : "standard input";
	uint64_t off = o.skip * o.ibs;
	struct stat st;

	if (!o.skip)
		return;
	if (lseek(in_fd, (off_t)off, SEEK_CUR) >= 0) {
		/* seeking past a file's end works, but GNU warns about it */
		if (fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) && off > (uint64_t)st.st_size)
			fprintf(stderr, "dd: %s: cannot skip to specified offset\n", name);
		return;
	}
	for (uint64_t i = 0; i < o.skip; i++) {
		ssize_t r = read_block(buf, (size_t)o.ibs);

		if (r < 0)
			fail("error reading", name);
		if (r == 0) {
			fprintf(stderr, "dd: %s: cannot skip to specified offset\n", name);
			return;
		}
	}
}

static void open_files(void)
{
	if (o.in_name) {
		in_fd = open(o.in_name, O_RDONLY | o.iflags);
		if (in_fd < 0)
			fail_early("failed to open", o.in_name);
	}
	if (o.out_name) {
		int trunc = o.seek || o.conv_notrunc ? 0 : O_TRUNC;
		struct stat st;

		out_fd = open(o.out_name, O_WRONLY | O_CREAT | trunc | o.oflags, 0666);
		if (out_fd < 0)
			fail_early("failed to open", o.out_name);
		/* GNU: with seek= and no notrunc, cut a regular file there */
		if (o.seek && !o.conv_notrunc && fstat(out_fd, &st) == 0 &&
		    S_ISREG(st.st_mode) && ftruncate(out_fd, (off_t)(o.seek * o.obs)) < 0)
			fail_early("failed to truncate to the seek offset in", o.out_name);
	}
	/* seek= applies to standard output too (dd ... seek=2 1<>file) */
	if (o.seek && lseek(out_fd, (off_t)(o.seek * o.obs), SEEK_SET) < 0)
		fail_early("cannot seek in", o.out_name ? o.out_name : "standard output");
}

int main(int argc, char **argv)
{
	char *ibuf, *obuf;
	uint64_t olen = 0;

	for (int i = 1; i < argc; i++)
		parse_operand(argv[i]);
	if (o.bs_given)
		o.ibs = o.obs = o.bs;
	open_files();
	ibuf = alloc_buffer(o.ibs);
	/* without bs=, input is regrouped into obs-sized output blocks */
	obuf = o.bs_given ? ibuf : alloc_buffer(o.obs);
	clock_gettime(CLOCK_MONOTONIC, &s.start);
	skip_input(ibuf);

	for (uint64_t blocks = 0; blocks < o.count; blocks++) {
		ssize_t n = read_block(ibuf, (size_t)o.ibs);

		if (n < 0)
			fail("error reading", o.in_name ? o.in_name : "standard input");
		if (n == 0)
			break;
		if ((uint64_t)n == o.ibs)
			s.r_full++;
		else
			s.r_partial++;
		if (o.bs_given) {
			write_block(ibuf, (size_t)n);
			continue;
		}
		for (ssize_t used = 0; used < n;) {
			uint64_t take = o.obs - olen < (uint64_t)(n - used) ? o.obs - olen
									 : (uint64_t)(n - used);

			memcpy(obuf + olen, ibuf + used, (size_t)take);
			olen += take;
			used += (ssize_t)take;
			if (olen == o.obs) {
				write_block(obuf, (size_t)olen);
				olen = 0;
			}
		}
	}
	if (olen)
		write_block(obuf, (size_t)olen);
	if (o.conv_fsync && fsync(out_fd) < 0)
		fail("fsync failed for", o.out_name ? o.out_name : "standard output");
	if (o.conv_fdatasync && fdatasync(out_fd) < 0)
		fail("fdatasync failed for", o.out_name ? o.out_name : "standard output");
	if (o.out_name && close(out_fd) < 0)
		fail("closing output file", o.out_name);
	print_stats();
	return 0;
}
