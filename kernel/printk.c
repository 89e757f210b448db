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
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <asm/cpu.h>

#define PRINTK_BUF      1024
#define DEFAULT_LOGLEVEL 7          /* everything but KERN_DEBUG */

static struct console *consoles;
static int console_loglevel = DEFAULT_LOGLEVEL;
static bool printk_at_line_start = true;

void register_console(struct console *con)
{
	unsigned long flags = local_irq_save();
	struct console **p = &consoles;

	while (*p)
		p = &(*p)->next;
	con->next = NULL;
	*p = con;
	local_irq_restore(flags);
}

void unregister_console(struct console *con)
{
	unsigned long flags = local_irq_save();

	for (struct console **p = &consoles; *p; p = &(*p)->next) {
		if (*p == con) {
			*p = con->next;
			break;
		}
	}
	local_irq_restore(flags);
}

static void console_write(const char *s, size_t len)
{
	for (struct console *c = consoles; c; c = c->next)
		c->write(c, s, len);
}

void console_write_raw(const char *s, size_t len)
{
	unsigned long flags = local_irq_save();

	console_write(s, len);
	local_irq_restore(flags);
}

int vprintk(const char *fmt, va_list ap)
{
	static char buf[PRINTK_BUF];       /* protected by disabling interrupts */
	unsigned long flags;
	int level = 6;                      /* KERN_INFO unless told otherwise */
	int len, hdr = 0;
	char *text;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}

	flags = local_irq_save();
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
	local_irq_restore(flags);
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

