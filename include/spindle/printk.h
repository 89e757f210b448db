/* SPDX-License-Identifier: MIT */
/*
 * printk: the kernel's log, and the formatting routines behind it.
 *
 * printk() writes one message to every console (the 16550 serial port the
 * test harness reads, mirrored on the VGA text screen), prefixed with the
 * time since boot as Linux prints it: "[    0.123456] ".  A message may
 * start with a level (KERN_ERR ...); only messages whose level is below the
 * console loglevel (boot option "loglevel=", default 7: everything but
 * debug) are shown.
 *
 * vsnprintf() and friends are portable (lib/vsprintf.c) and unit-tested on
 * the host.  Supported conversions: %d %i %u %x %X %o %c %s %p %%, with the
 * flags '-', '0', ' ', '+', '#', a width and a precision (also '*'), and
 * the length modifiers hh h l ll z t j.
 */
#ifndef SPINDLE_PRINTK_H
#define SPINDLE_PRINTK_H

#include <spindle/types.h>
#include <spindle/compiler.h>

#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"
#define KERN_ALERT   KERN_SOH "1"
#define KERN_CRIT    KERN_SOH "2"
#define KERN_ERR     KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"
#define KERN_DEBUG   KERN_SOH "7"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
/* Like snprintf, but returns the number of characters actually stored. */
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap);

int printk(const char *fmt, ...) __printf(1, 2);
/* Apply loglevel= from the command line (boot, once it is read). */
void console_loglevel_init(void);

/* syslog(2)'s actions (Linux's include/linux/syslog.h), sys_syslog() */
#define SYSLOG_ACTION_CLOSE          0
#define SYSLOG_ACTION_OPEN           1
#define SYSLOG_ACTION_READ           2  /* wait for and consume new text */
#define SYSLOG_ACTION_READ_ALL       3  /* the whole log since the last clear */
#define SYSLOG_ACTION_READ_CLEAR     4  /* READ_ALL, then CLEAR */
#define SYSLOG_ACTION_CLEAR          5
#define SYSLOG_ACTION_CONSOLE_OFF    6
#define SYSLOG_ACTION_CONSOLE_ON     7
#define SYSLOG_ACTION_CONSOLE_LEVEL  8
#define SYSLOG_ACTION_SIZE_UNREAD    9
#define SYSLOG_ACTION_SIZE_BUFFER   10
int vprintk(const char *fmt, va_list ap);

#define pr_emerg(fmt, ...)  printk(KERN_EMERG   pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)    printk(KERN_ERR     pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)   printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE  pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)   printk(KERN_INFO    pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)  printk(KERN_DEBUG   pr_fmt(fmt), ##__VA_ARGS__)

/* A file may define pr_fmt before including this header to prefix its
 * messages, e.g. #define pr_fmt(fmt) "pci: " fmt */
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

/*
 * Taint (Linux's kernel/panic.c): once a detector has seen the kernel's
 * memory corrupted (slab_debug, page_poison), every later report says
 * "Tainted: B", so nobody trusts a crash that may be its consequence.
 */
#define TAINT_BAD_PAGE 5
void add_taint(unsigned int flag);
/* "Not tainted" or "Tainted: B", for the head of a report. */
const char *print_tainted(void);

/* A broken invariant: print the message, registers and backtrace, stop. */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

#define BUG_ON(cond) do { \
	if (unlikely(cond)) \
		panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond); \
} while (0)

#define WARN_ON(cond) ({ \
	bool __w = !!(cond); \
	if (unlikely(__w)) \
		printk(KERN_WARNING "WARNING at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	__w; \
})

#endif /* SPINDLE_PRINTK_H */
