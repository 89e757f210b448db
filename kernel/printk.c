// SPDX-License-Identifier: MIT
/*
 * printk: format a message, stamp it with the time since boot, and write it
 * to every registered console.
 *
 * Each line starts "[    5.123456] " as in Linux's dmesg, so a student can
 * read a serial log from Spindle the same way.  The optional level prefix
 * (KERN_ERR = "\0013" ...) is stripped; messages whose level is above the
 * console loglevel (boot option loglevel=N, default 7) are not shown.
 * Consoles are written with interrupts disabled, so printk works from
 * interrupt handlers and with any lock held; it never sleeps.
 * A message without a trailing newline continues on the same line.
 */
#include <spindle/printk.h>
#include <spindle/console.h>
#include <spindle/irqflags.h>
#include <spindle/spinlock.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <asm/cpu.h>

#define PRINTK_BUF      1024
#define DEFAULT_LOGLEVEL 7          /* everything but KERN_DEBUG */

static struct console *consoles;
static int console_loglevel = DEFAULT_LOGLEVEL;
static bool printk_at_line_start = true;

/*
 * One CPU at a time writes to the consoles, changes their list or uses
 * vprintk's buffer, so lines from two CPUs do not interleave mid-line.
 * A bare ticket lock (include/spindle/spinlock.h): lockdep reports
 * through printk, so printk
 * must not go through lockdep.  A CPU that faults while holding it (a
 * panic inside printk) must still be able to print: it goes on without
 * the lock, as Linux's printk does for its own recursion.
 */
static arch_spinlock_t printk_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static int printk_owner = -1;           /* the CPU holding printk_lock */

static bool printk_lock_irqsave(unsigned long *flags)
{
	int me;

	*flags = local_irq_save();
	me = (int)smp_processor_id();
	if (READ_ONCE(printk_owner) == me)
		return false;                   /* recursion: print anyway */
	arch_spin_lock(&printk_lock);
	WRITE_ONCE(printk_owner, me);
	return true;
}

static void printk_unlock_irqrestore(bool locked, unsigned long flags)
{
	if (locked) {
		WRITE_ONCE(printk_owner, -1);
		arch_spin_unlock(&printk_lock);
	}
	local_irq_restore(flags);
}

void register_console(struct console *con)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);
	struct console **p = &consoles;

	while (*p)
		p = &(*p)->next;
	con->next = NULL;
	*p = con;
	printk_unlock_irqrestore(locked, flags);
}

void unregister_console(struct console *con)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);

	for (struct console **p = &consoles; *p; p = &(*p)->next) {
		if (*p == con) {
			*p = con->next;
			break;
		}
	}
	printk_unlock_irqrestore(locked, flags);
}

static void console_write(const char *s, size_t len)
{
	for (struct console *c = consoles; c; c = c->next)
		c->write(c, s, len);
}

void console_write_raw(const char *s, size_t len)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);

	console_write(s, len);
	printk_unlock_irqrestore(locked, flags);
}

int vprintk(const char *fmt, va_list ap)
{
	static char buf[PRINTK_BUF];       /* protected by printk_lock */
	unsigned long flags;
	bool locked;
	int level = 6;                      /* KERN_INFO unless told otherwise */
	int len, hdr = 0;
	char *text;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}

	locked = printk_lock_irqsave(&flags);
	if (printk_at_line_start) {
		u64 ns = ktime_get_ns();

		hdr = scnprintf(buf, sizeof(buf), "[%5llu.%06llu] ",
				(unsigned long long)(ns / NSEC_PER_SEC),
				(unsigned long long)(ns % NSEC_PER_SEC) / 1000);
	}
	text = buf + hdr;
	len = vscnprintf(text, sizeof(buf) - hdr, fmt, ap);
	if (len > 0)
		printk_at_line_start = text[len - 1] == '\n';
	if (level <= console_loglevel && len > 0)
		console_write(buf, hdr + len);
	printk_unlock_irqrestore(locked, flags);
	return len;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

static int __init loglevel_setup(const char *val)
{
	int lvl;

	if (kstrtoint(val, 10, &lvl) || lvl < 0 || lvl > 7)
		return -EINVAL;
	console_loglevel = lvl;
	return 0;
}
__setup("loglevel=", loglevel_setup);

