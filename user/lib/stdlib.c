// SPDX-License-Identifier: MIT
/*
 * stdlib.c - program start and end, numbers from text, the environment.
 *
 * __libc_start_main is what _start (crt0.S) calls: it records envp,
 * finds the vDSO (vdso.c), runs main() and passes its return value to exit(), which flushes the
 * stdio buffers (atexit functions first) and ends the process.
 */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>

char **environ;

int main(int argc, char **argv, char **envp);
void __stdio_exit(void);
void __vdso_init(char **envp);

#define ATEXIT_MAX 32
static void (*atexit_fns[ATEXIT_MAX])(void);
static int atexit_count;

void __libc_start_main(int argc, char **argv, char **envp)
{
	environ = envp;
	__vdso_init(envp);      /* clock_gettime in user space (vdso.c) */
	exit(main(argc, argv, envp));
}

int atexit(void (*fn)(void))
{
	if (atexit_count == ATEXIT_MAX)
		return -1;
	atexit_fns[atexit_count++] = fn;
	return 0;
}

void exit(int status)
{
	while (atexit_count > 0)
		atexit_fns[--atexit_count]();
	__stdio_exit();
	_exit(status);
}

void _Exit(int status)
{
	_exit(status);
}

/* SIGABRT with its default action; if that is caught or ignored, exit 127 */
void abort(void)
{
	signal(SIGABRT, SIG_DFL);
	kill(getpid(), SIGABRT);
	_exit(127);
}

int abs(int x)   { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }

static int digit_value(int c)
{
	if (isdigit(c))
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * The engine of every strto*: skip spaces, read a sign, find the base
 * (0 means "from the prefix": 0x hex, 0 octal, else decimal), then
 * accumulate digits, noting overflow past `limit`.  *neg says whether a
 * '-' was seen; the callers decide what that means for their type.
 */
static unsigned long long parse_unsigned(const char *s, char **end, int base,
					 unsigned long long limit, int *neg)
{
	const char *p = s;
	unsigned long long v = 0;
	int overflow = 0, any = 0;

	while (isspace((unsigned char)*p))
		p++;
	*neg = 0;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	for (;; p++) {
		int d = digit_value((unsigned char)*p);

		if (d >= base)
			break;
		any = 1;
		if (v > (limit - (unsigned)d) / (unsigned)base)
			overflow = 1;
		else
			v = v * (unsigned)base + (unsigned)d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	if (overflow) {
		errno = ERANGE;
		return limit;
	}
	return v;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	int neg;
	int saved = errno;
	unsigned long long v;

	errno = 0;
	v = parse_unsigned(s, end, base, ULLONG_MAX, &neg);
	if (errno == ERANGE)
		return ULLONG_MAX;              /* overflow: no sign applied (C11) */
	errno = saved;
	return neg ? -v : v;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

long long strtoll(const char *s, char **end, int base)
{
	int neg;
	/* the magnitude of LLONG_MIN is one more than LLONG_MAX */
	unsigned long long v = parse_unsigned(s, end, base, (unsigned long long)LLONG_MAX + 1, &neg);

	if (!neg && v > (unsigned long long)LLONG_MAX) {
		errno = ERANGE;
		return LLONG_MAX;
	}
	return neg ? (long long)-v : (long long)v;
}

long strtol(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

long atol(const char *s)
{
	return strtol(s, NULL, 10);
}

/* --- the environment: environ is a NULL-terminated array of "NAME=value" --- */

static char **env_find(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return e;
	return NULL;
}

char *getenv(const char *name)
{
	char **e = env_find(name);

	return e ? *e + strlen(name) + 1 : NULL;
}

/* environ is replaced by a malloc'ed copy the first time it grows */
static int env_owned;

int setenv(const char *name, const char *value, int overwrite)
{
	size_t nl = strlen(name), vl = strlen(value), count = 0;
	char **e = env_find(name), **ne;
	char *entry;

	if (!nl || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	if (e && !overwrite)
		return 0;
	entry = malloc(nl + vl + 2);
	if (!entry)
		return -1;
	memcpy(entry, name, nl);
	entry[nl] = '=';
	memcpy(entry + nl + 1, value, vl + 1);
	if (e) {
		*e = entry;             /* the old string may be anyone's: leak it */
		return 0;
	}
	while (environ && environ[count])
		count++;
	ne = env_owned ? realloc(environ, (count + 2) * sizeof(*ne))
		       : malloc((count + 2) * sizeof(*ne));
	if (!ne)
		return -1;
	if (!env_owned && count)
		memcpy(ne, environ, count * sizeof(*ne));
	env_owned = 1;
	ne[count] = entry;
	ne[count + 1] = NULL;
	environ = ne;
	return 0;
}

int unsetenv(const char *name)
{
	char **e;

	while ((e = env_find(name)) != NULL)
		for (; *e; e++)
			e[0] = e[1];
	return 0;
}

/*
 * --- qsort: a stable merge sort ---
 * Runs of QSORT_RUN elements are put in order by insertion, then merged
 * pairwise, bottom up, between the array and a buffer as large: n log n
 * comparisons, so bench can sort its 65536 latency samples (an insertion
 * sort took billions of instructions there).  Stable, as the insertion
 * sort was: equal elements keep their order (ls, ps, readprofile's ties).
 * Without memory for the buffer, the insertion sort does it all.
 */
#define QSORT_RUN 16

static void swap_bytes(char *a, char *b, size_t size)
{
	while (size--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

static void insertion_sort(char *b, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
			swap_bytes(b + (j - 1) * size, b + j * size, size);
}

/* src[lo, mid) and src[mid, hi), each in order, into dst[lo, hi) */
static void merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
		  int (*cmp)(const void *, const void *))
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi) {
		/* the right one only if strictly smaller: stable */
		size_t from = cmp(src + j * size, src + i * size) < 0 ? j++ : i++;

		memcpy(dst + k++ * size, src + from * size, size);
	}
	memcpy(dst + k * size, src + i * size, (mid - i) * size);
	k += mid - i;
	memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base, *buf = NULL, *src, *dst;

	if (n > QSORT_RUN && size && n <= (size_t)-1 / size)
		buf = malloc(n * size);
	if (!buf) {
		insertion_sort(b, n, size, cmp);
		return;
	}
	for (size_t i = 0; i < n; i += QSORT_RUN)
		insertion_sort(b + i * size, n - i < QSORT_RUN ? n - i : QSORT_RUN, size, cmp);
	src = b;
	dst = buf;
	for (size_t w = QSORT_RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;

			merge(src, dst, lo, mid, hi, size, cmp);
		}
		char *t = src;

		src = dst;
		dst = t;
	}
	if (src != b)
		memcpy(b, src, n * size);
	free(buf);
}

static unsigned long rand_state = 1;

void srand(unsigned int seed)
{
	rand_state = seed;
}

/* a 64-bit linear congruential generator (Knuth's MMIX constants), top bits */
int rand(void)
{
	rand_state = rand_state * 6364136223846793005UL + 1442695040888963407UL;
	return (int)(rand_state >> 33);
}
