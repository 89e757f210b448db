/* SPDX-License-Identifier: MIT */
/*
 * Host shim: lets portable kernel sources (lib/, block/, fs/, kernel/mm/ ...)
 * and their Check tests build and run as an ordinary Linux program.
 *
 * tests/unit/unit.mk compiles every file of a unit-test program, kernel
 * source and test alike, with "-DSPINDLE_HOST -include tests/unit/shim/host.h".
 *
 * The problem this header solves: the kernel defines memcpy(), strlen(),
 * snprintf() ... under the C library's names, and a host program also links
 * the C library, which Check and stdio need.  Two memcpy()s would either
 * clash or, worse, one would silently replace the other.  So this header
 * first reads the C library's headers (they must come first: afterwards
 * their declarations would be renamed too, and their include guards keep
 * them from being read again), then #defines each clashing name to a
 * spindle_ one.  The kernel source then defines spindle_memcpy, a test that
 * writes memcpy calls spindle_memcpy, and the C library keeps its own.
 *
 * Things to know:
 *  - Check's ck_assert_str_* and ck_assert_mem_* expand to strcmp()/memcmp()
 *    inside the test, so they use Spindle's (declared by this header for
 *    that reason); check_string.c tests those two without these macros.
 *  - libc_vsnprintf() below keeps the C library's formatter reachable, as
 *    an outside oracle for check_vsprintf.c.
 *  - A kernel source that defines another name the C library has needs a
 *    line here, even a name no header shows (a kernel write() would
 *    replace the one stdio calls).
 *
 * host.c provides what the rest of the kernel would:
 *  - printk()/vprintk() format with Spindle's vsnprintf(), drop the KERN_
 *    level, append the text to host_printk_buf (for tests to inspect; clear
 *    it with host_printk_reset()) and echo it to stderr unless
 *    host_printk_quiet is set.
 *  - panic() prints "PANIC: ..." to stderr (unless host_printk_quiet) and
 *    calls abort().  Check runs each test in a child process, so the test
 *    is reported as an error ("Received signal 6"), or passes if it was
 *    registered to expect it with tcase_add_test_raise_signal(tc, fn,
 *    SIGABRT).
 * These two are not C library names, so unlike the list below they keep
 * their own.
 */
#ifndef SPINDLE_HOST_H
#define SPINDLE_HOST_H

#ifndef SPINDLE_HOST
#error "host.h is for the host unit tests only (compile with -DSPINDLE_HOST)"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

/* glibc's <sys/cdefs.h> defines this too (same meaning); compiler.h's wins. */
#undef __always_inline

/* The C library's formatter, under a name the renames below leave alone. */
static inline int libc_vsnprintf(char *buf, size_t size, const char *fmt,
				 va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

/* lib/string.c */
#define memset		spindle_memset
#define memcpy		spindle_memcpy
#define memmove		spindle_memmove
#define memcmp		spindle_memcmp
#define memchr		spindle_memchr
#define strlen		spindle_strlen
#define strnlen		spindle_strnlen
#define strcmp		spindle_strcmp
#define strncmp		spindle_strncmp
#define strchr		spindle_strchr
#define strrchr		spindle_strrchr
#define strstr		spindle_strstr
#define strlcpy		spindle_strlcpy
#define strlcat		spindle_strlcat
#define strsep		spindle_strsep

/* lib/vsprintf.c */
#define vsnprintf	spindle_vsnprintf
#define snprintf	spindle_snprintf

/*
 * Check's ck_assert_str_* and ck_assert_mem_* expand to strcmp()/memcmp()
 * in whatever file uses them, so the renamed ones must always be declared.
 */
#include <spindle/string.h>

/*
 * A spinning waiter gives its CPU away: host threads outnumber the host's
 * cores, and a ticket lock whose next holder is not running waits for it
 * (check_atomic.c).  The kernel's cpu_relax() is the pause instruction.
 */
int sched_yield(void);
#define cpu_relax() sched_yield()

/* host.c: the printk() capture buffer. */
#define HOST_PRINTK_BUF_SIZE 65536	/* bytes; later output is dropped */
extern char host_printk_buf[HOST_PRINTK_BUF_SIZE];
extern size_t host_printk_len;
extern bool host_printk_quiet;
void host_printk_reset(void);

#endif /* SPINDLE_HOST_H */
