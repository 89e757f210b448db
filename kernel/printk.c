// SPDX-License-Identifier: MIT
/*
 * printk: format a message, stamp it with the time since boot, and write it
 * to every registered console.
 *
 * Each line starts "[    5.123456] " as in Linux's dmesg, so a student can
 * read a serial log from Spindle the same way.  The optional level prefix
 * (KERN_ERR = "\0013" ...) is stripped; a message reaches the consoles only
 * if its level is below the console loglevel (boot option loglevel=N,
 * default 7), as Linux's suppress_message_printing(): loglevel=1 shows
 * KERN_EMERG alone, 8 shows KERN_DEBUG too.
 * Consoles are written with interrupts disabled, so printk works from
 * interrupt handlers and with any lock held; it never sleeps.
 * A message without a trailing newline continues on the same line.
 *
 * Every message, shown or not, also goes into the kernel log (log_buf,
 * lib/log_buf.c) as syslog(2) hands it out: "<level>[time] text".
 * sys_syslog() below is that call (busybox's dmesg is its user: it reads
 * with SYSLOG_ACTION_READ_ALL, never /dev/kmsg).
 */
#include <spindle/printk.h>
#include <spindle/console.h>
#include <spindle/irqflags.h>
#include <spindle/spinlock.h>
#include <spindle/smp.h>
#include <spindle/string.h>
#include <spindle/time.h>
#include <spindle/init.h>
#include <spindle/log_buf.h>
#include <spindle/sched.h>
#include <spindle/signal.h>
#include <spindle/uaccess.h>
#include <spindle/mm.h>
#include <spindle/syscalls.h>
#include <asm/cpu.h>

#define PRINTK_BUF      1024
#define DEFAULT_LOGLEVEL 7          /* everything but KERN_DEBUG */
#define MINIMUM_CONSOLE_LOGLEVEL 1  /* syslog can silence all but KERN_EMERG */
#define LOG_BUF_LEN     (1u << 17)  /* Linux's default CONFIG_LOG_BUF_SHIFT=17 */

static struct console *consoles;
static int console_loglevel = DEFAULT_LOGLEVEL;
/* the level SYSLOG_ACTION_CONSOLE_OFF saved, -1 when none is saved */
static int saved_console_loglevel = -1;

/*
 * The kernel log and its two readers' positions, all under printk_lock:
 * syslog_seq is where SYSLOG_ACTION_READ goes on (what it returns is
 * consumed), clear_seq where READ_ALL starts (CLEAR moves it to the end).
 */
static char log_text[LOG_BUF_LEN];
static struct log_buf log_buf = { .text = log_text, .size = LOG_BUF_LEN };
static u64 syslog_seq, clear_seq;
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
	if (len > 0) {
		if (printk_at_line_start) {
			char pfx[4] = { '<', (char)('0' + level), '>', 0 };

			log_buf_write(&log_buf, pfx, 3);
		}
		log_buf_write(&log_buf, buf, hdr + len);
		printk_at_line_start = text[len - 1] == '\n';
	}
	/* strictly below, as Linux: console_loglevel N shows levels 0..N-1 */
	if (level < console_loglevel && len > 0)
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

/* loglevel=N: the console shows levels below N (0 or less: nothing, 8
 * and more: all).  Any number, as Linux's; not a number is EINVAL. */
static int __init loglevel_setup(const char *val)
{
	int lvl;

	if (kstrtoint(val, 10, &lvl))
		return -EINVAL;
	console_loglevel = lvl;
	return 0;
}
__setup("loglevel=", loglevel_setup);

/*
 * loglevel= from the raw command line, before the first boot line is
 * printed (Linux's early_param(), whose boot lines wait in the log for
 * the console and then pass its level): so loglevel=1 hides the boot's
 * lines too.  parse_args() runs loglevel_setup() again later, and says
 * there if the value is malformed.
 */
void __init console_loglevel_init(void)
{
	char val[16];

	if (cmdline_get("loglevel", val, sizeof(val)))
		loglevel_setup(val);
}


/* --- syslog(2) ------------------------------------------------------------------ */

#define SYSLOG_CHUNK    1024    /* bytes copied out per hold of printk_lock */

static u64 log_unread(void)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);
	u64 n = log_buf.next - max(syslog_seq, log_buf.first);

	printk_unlock_irqrestore(locked, flags);
	return n;
}

/*
 * Copy the log from *seq up to `end` (or len bytes) to the user, a chunk
 * at a time: the copy may fault, so it is done outside printk_lock from
 * a bounce buffer.  Lines the writers push out meanwhile are skipped
 * (log_buf_copy starts at the oldest kept).  Returns the bytes copied
 * or -EFAULT; *seq ends past them.
 */
static int syslog_copy(char __user *ubuf, int len, u64 *seq, u64 end)
{
	char *bounce = kmalloc(SYSLOG_CHUNK, GFP_KERNEL);
	int done = 0;

	if (!bounce)
		return -ENOMEM;
	while (done < len) {
		unsigned long flags;
		bool locked = printk_lock_irqsave(&flags);
		size_t want = min((size_t)(len - done), (size_t)SYSLOG_CHUNK), n = 0;

		if (*seq < end) {
			want = min(want, (size_t)(end - *seq));
			n = log_buf_copy(&log_buf, seq, bounce, want);
		}
		printk_unlock_irqrestore(locked, flags);
		if (!n)
			break;
		if (copy_to_user(ubuf + done, bounce, n)) {
			kfree(bounce);
			return -EFAULT;
		}
		done += (int)n;
	}
	kfree(bounce);
	return done;
}

/*
 * SYSLOG_ACTION_READ: wait for unread text, then consume up to len bytes
 * of it.  Linux's printk wakes the reader (through irq_work, as printk
 * may run under the scheduler's own locks); Spindle's printk wakes no
 * one, for the same reason, so the reader looks again every tick.
 */
static int syslog_read(char __user *ubuf, int len)
{
	unsigned long flags;
	bool locked;
	u64 seq, end;
	int n;

	while (!log_unread()) {
		if (signal_pending(current))
			return -EINTR;
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_timeout(1);
	}
	locked = printk_lock_irqsave(&flags);
	seq = max(syslog_seq, log_buf.first);
	end = log_buf.next;
	printk_unlock_irqrestore(locked, flags);
	n = syslog_copy(ubuf, len, &seq, end);
	if (n > 0) {
		locked = printk_lock_irqsave(&flags);
		syslog_seq = max(syslog_seq, seq);
		printk_unlock_irqrestore(locked, flags);
	}
	return n;
}

/* SYSLOG_ACTION_READ_ALL, READ_CLEAR: the newest whole lines since the
 * last CLEAR that fit in len; the log is not consumed. */
static int syslog_read_all(char __user *ubuf, int len, bool clear)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);
	u64 end = log_buf.next;
	u64 seq = log_buf_tail(&log_buf, clear_seq, (size_t)len);
	int n;

	printk_unlock_irqrestore(locked, flags);
	n = syslog_copy(ubuf, len, &seq, end);
	if (n >= 0 && clear) {
		locked = printk_lock_irqsave(&flags);
		clear_seq = max(clear_seq, end);
		printk_unlock_irqrestore(locked, flags);
	}
	return n;
}

static void syslog_set_loglevel(int level, int saved)
{
	unsigned long flags;
	bool locked = printk_lock_irqsave(&flags);

	console_loglevel = level;
	saved_console_loglevel = saved;
	printk_unlock_irqrestore(locked, flags);
}

/*
 * syslog(2), Linux's do_syslog(): the kernel log for dmesg and klogd.
 * Spindle has no capabilities, so every caller may do everything (Linux
 * asks CAP_SYSLOG, or CAP_SYS_ADMIN, unless dmesg_restrict is 0).
 */
long sys_syslog(int type, char __user *buf, int len)
{
	unsigned long flags;
	bool locked;
	long ret = 0;

	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
		return 0;
	case SYSLOG_ACTION_READ:
	case SYSLOG_ACTION_READ_ALL:
	case SYSLOG_ACTION_READ_CLEAR:
		if (!buf || len < 0)
			return -EINVAL;
		if (!len)
			return 0;
		if (!access_ok(buf, (unsigned long)len))
			return -EFAULT;
		if (type == SYSLOG_ACTION_READ)
			return syslog_read(buf, len);
		return syslog_read_all(buf, len, type == SYSLOG_ACTION_READ_CLEAR);
	case SYSLOG_ACTION_CLEAR:
		locked = printk_lock_irqsave(&flags);
		clear_seq = log_buf.next;
		printk_unlock_irqrestore(locked, flags);
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
		if (saved_console_loglevel == -1)
			syslog_set_loglevel(MINIMUM_CONSOLE_LOGLEVEL, console_loglevel);
		return 0;
	case SYSLOG_ACTION_CONSOLE_ON:
		if (saved_console_loglevel != -1)
			syslog_set_loglevel(saved_console_loglevel, -1);
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		if (len < 1 || len > 8)
			return -EINVAL;
		/* 8 shows everything, as Linux's console_loglevel 8 */
		syslog_set_loglevel(max(len, MINIMUM_CONSOLE_LOGLEVEL), -1);
		return 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		ret = (long)log_unread();
		return ret;
	case SYSLOG_ACTION_SIZE_BUFFER:
		return LOG_BUF_LEN;
	default:
		return -EINVAL;
	}
}
