// SPDX-License-Identifier: MIT
/*
 * tty.c - the console terminal, /dev/console (5:1): COM1 in, printk's
 * consoles (COM1 and the VGA mirror) out, with a canonical line
 * discipline in between.  The hardware is reached only through its
 * driver's struct tty_operations (include/spindle/tty.h; COM1's is
 * drivers/char/serial.c's): its receive interrupt, the drain and the
 * break of tcdrain() and tcsendbreak(), tcflow()'s STOP and START.
 *
 * Input takes two steps, as Linux's flip buffer and its work queue do:
 *
 *   COM1 interrupt  -> tty_insert_flip_char(): the byte goes into a small
 *                      raw ring (interrupt context: no echo, no signals);
 *   "tty" thread    -> n_tty_receive_char(), one byte at a time, in task
 *                      context: editing, echo, ^C -> kill_pgrp(SIGINT).
 *
 * Canonical mode ("cooked"): the line is edited in line[] and readers see
 * it only when it is finished:
 *
 *   Enter (CR or LF)   the line + '\n' becomes readable
 *   Backspace / DEL    erase one character (echo "\b \b")
 *   ^U                 erase the whole line
 *   ^C                 drop the line, echo "^C", SIGINT to the foreground
 *                      process group (TIOCSPGRP sets it)
 *   ^D                 the line so far becomes readable without '\n'; on
 *                      an empty line a read returns 0: end of file
 *   ^S / ^Q            (IXON, in both modes) stop / restart output:
 *                      writers wait meanwhile; not input
 *
 * A read returns at most one line.  Output is written to the consoles raw
 * (console_write_raw: no printk timestamp).
 *
 * Raw mode (TCSETS without ICANON, as a line editor or vi sets it): no
 * editing, every byte readable as it arrives, echoed only with ECHO; a
 * read returns what is there once there is VMIN byte (VMIN 0: at once,
 * or after VTIME tenths of a second).  The signal keys (ISIG) work in
 * both modes: ^C SIGINT, ^\ SIGQUIT, ^Z SIGTSTP to the foreground group.
 *
 * Job control: only the foreground process group (TIOCSPGRP, the shell
 * sets it) reads the terminal.  A process of the same session in another
 * group that reads gets SIGTTIN to its group, which stops it, and its
 * read is made again once it is continued; one that changes the terminal
 * (TCSETS, TCSETSW, TCSETSF, TIOCSPGRP, TCFLSH, TCXONC, TCSBRK) gets
 * SIGTTOU the same way, and, with TOSTOP set, so does a write.  TIOCSCTTY
 * makes the console the controlling terminal of the caller's session (its
 * group the foreground), as getty or busybox's cttyhack ask.  When that
 * session's leader exits, disassociate_ctty() hangs the console up for
 * it: SIGHUP and SIGCONT to its foreground group, and the console is
 * nobody's until a session takes it again.
 *
 * The other calls: the window size (TIOCGWINSZ, TIOCSWINSZ: SIGWINCH to
 * the foreground group on a change), tcflush (TCFLSH), tcdrain and
 * tcsendbreak (TCSBRK, TCSBRKP: COM1's break bit) and tcflow (TCXONC:
 * writers wait while output is stopped).  Interface for the rest of the
 * kernel: tty_open_console() for init's descriptors, disassociate_ctty()
 * from exit.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/blkdev.h>
#include <spindle/sched.h>
#include <spindle/console.h>
#include <spindle/tty.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include <spindle/init.h>
#include <spindle/printk.h>
#include <spindle/time.h>
#include <uapi/asm/ioctls.h>
#include "internal.h"

#define TTY_LINE_MAX    255     /* characters in one line being edited */
#define TTY_COOKED      1024    /* finished input waiting for a reader */
#define TTY_FLIP        256     /* raw bytes from the interrupt handler */
#define TTY_EOF         (-1)    /* in cooked[]: ^D on an empty line */
#define TTY_BREAK       (-2)    /* in cooked[]: end of a ^D-pushed line */
#define TTY_BREAK_STEP_MS 10    /* a break looks for signals this often */

#define CTRL(c)         ((c) & 0x1f)

/* struct termios as the kernel's TCGETS writes it (36 bytes on x86-64). */
struct kernel_termios {
	u32 c_iflag, c_oflag, c_cflag, c_lflag;
	u8 c_line;
	u8 c_cc[19];
};
#define TTY_ICRNL 0000400
#define TTY_IXON 0002000
#define TTY_OPOST 0000001
#define TTY_ONLCR 0000004
#define TTY_B115200 0010002
#define TTY_CS8 0000060
#define TTY_CREAD 0000200
#define TTY_ISIG 0000001
#define TTY_ICANON 0000002
#define TTY_ECHO 0000010
#define TTY_ECHOE 0000020
#define TTY_TOSTOP 0000400
#define VINTR 0 /* c_cc[]: which byte does what */
#define VQUIT 1
#define VERASE 2
#define VKILL 3
#define VEOF 4
#define VTIME 5
#define VMIN 6
#define VSTART 8
#define VSTOP 9
#define VSUSP 10

/* What the console starts as, and TCGETS shows until a TCSETS: cooked */
static const struct kernel_termios tty_std_termios = {
	.c_iflag = TTY_ICRNL | TTY_IXON,
	.c_oflag = TTY_OPOST | TTY_ONLCR,
	.c_cflag = TTY_B115200 | TTY_CS8 | TTY_CREAD,
	.c_lflag = TTY_ISIG | TTY_ICANON | TTY_ECHO | TTY_ECHOE,
	.c_cc = { [VINTR] = CTRL('C'), [VQUIT] = 0x1c, [VERASE] = 0x7f, [VKILL] = CTRL('U'), [VEOF] = CTRL('D'), [VTIME] = 0, [VMIN] = 1, [VSTART] = CTRL('Q'), [VSTOP] = CTRL('S'), [VSUSP] = CTRL('Z') },
};

/* TIOCGWINSZ/TIOCSWINSZ: the size a full-screen program lays itself out by */
struct winsize {
	u16 ws_row, ws_col;
	u16 ws_xpixel, ws_ypixel;       /* unused by Linux's tty layer too */
};

/* tty->session after a hangup: nobody's, until a session takes it */
#define TTY_SESSION_HUNG_UP (-1)

struct tty_struct {
	/* the line being edited; under termios_mutex */
	char line[TTY_LINE_MAX];
	int line_len;
	/* finished input: bytes, TTY_EOF and TTY_BREAK marks; under lock */
	short cooked[TTY_COOKED];
	unsigned int c_head, c_tail;
	/* raw bytes from the interrupt handler; under lock (irqsave) */
	char flip[TTY_FLIP];
	unsigned int f_head, f_tail;
	spinlock_t lock;
	struct wait_queue_head read_wait;       /* readers: a line is ready */
	struct wait_queue_head flip_wait;       /* the tty thread: raw input */
	int pgrp;                               /* foreground process group */
	int session; /* which holds it: 0 none yet, or TTY_SESSION_HUNG_UP */
	struct winsize winsize;                 /* under lock */
	bool stopped;                           /* TCOOFF or ^S: writers wait */
	bool tco_stopped;                       /* by TCOOFF: for TCOON to end */
	struct wait_queue_head write_wait;      /* writers: output restarted */
	struct kernel_termios termios;		/* the modes (TCGETS/TCSETS) */
	/* the line discipline's state -- line[], line_len, termios -- as
	 * the tty thread edits input and TCSETS/TCFLSH change or drop it
	 * from any CPU (Linux's termios_rwsem, a mutex here).  Readers and
	 * writers test single termios flags without it. */
	struct mutex termios_mutex;
	struct mutex read_lock;                 /* one reader moves c_tail at a time */
	struct mutex write_lock;
};

static struct tty_struct console_tty = {
	.termios = tty_std_termios,
	.lock = __SPIN_LOCK_UNLOCKED(console_tty.lock),
	.read_wait = __WAIT_QUEUE_HEAD_INITIALIZER(console_tty.read_wait),
	.flip_wait = __WAIT_QUEUE_HEAD_INITIALIZER(console_tty.flip_wait),
	.write_wait = __WAIT_QUEUE_HEAD_INITIALIZER(console_tty.write_wait),
	.winsize = { .ws_row = 25, .ws_col = 80 }, /* the VGA text screen */
	.read_lock = __MUTEX_INITIALIZER(console_tty.read_lock),
	.write_lock = __MUTEX_INITIALIZER(console_tty.write_lock),
	.termios_mutex = __MUTEX_INITIALIZER(console_tty.termios_mutex),
};

/*
 * The hardware under the console (include/spindle/tty.h): COM1's driver
 * registers itself at boot.  Set before the tty's init and never changed
 * after, so read without a lock.
 */
static const struct tty_operations *tty_driver;

void tty_register_driver(const struct tty_operations *ops)
{
	tty_driver = ops;
}

static void tty_echo(const char *s, size_t len)
{
	if (console_tty.termios.c_lflag & TTY_ECHO)
		console_write_raw(s, len);
}

/* Make n bytes of the edited line (and an optional mark) readable. */
static void tty_push_line(struct tty_struct *tty, bool newline, short mark)
{
	unsigned long flags;

	spin_lock_irqsave(&tty->lock, flags);
	for (int i = 0; i < tty->line_len && tty->c_head - tty->c_tail < TTY_COOKED; i++)
		tty->cooked[tty->c_head++ % TTY_COOKED] = (unsigned char)tty->line[i];
	if (newline && tty->c_head - tty->c_tail < TTY_COOKED)
		tty->cooked[tty->c_head++ % TTY_COOKED] = '\n';
	if (mark && tty->c_head - tty->c_tail < TTY_COOKED)
		tty->cooked[tty->c_head++ % TTY_COOKED] = mark;
	spin_unlock_irqrestore(&tty->lock, flags);
	tty->line_len = 0;
	wake_up(&tty->read_wait);
	poll_notify();
}

/* ISIG: the signal keys reach the foreground process group */
static bool tty_signal_char(struct tty_struct *tty, char c)
{
	const u8 *cc = tty->termios.c_cc;
	int sig;

	if (!(tty->termios.c_lflag & TTY_ISIG))
		return false;
	if (c == cc[VINTR])
		sig = SIGINT;
	else if (c == cc[VQUIT])
		sig = SIGQUIT;
	else if (c == cc[VSUSP])
		sig = SIGTSTP;
	else
		return false;
	tty->line_len = 0;
	if (sig == SIGINT)
		tty_echo("^C\n", 3);
	else
		tty_echo(sig == SIGQUIT ? "^\\\n" : "^Z\n", 3);
	if (tty->pgrp > 0)
		kill_pgrp(tty->pgrp, sig);
	return true;
}

/* Raw (non-canonical) input: each byte is readable at once, unedited. */
static void tty_push_raw(struct tty_struct *tty, char c)
{
	unsigned long flags;

	spin_lock_irqsave(&tty->lock, flags);
	if (tty->c_head - tty->c_tail < TTY_COOKED)
		tty->cooked[tty->c_head++ % TTY_COOKED] = (unsigned char)c;
	spin_unlock_irqrestore(&tty->lock, flags);
	tty_echo(&c, 1);
	wake_up(&tty->read_wait);
	poll_notify();
}

/*
 * Output stopped or restarted, by TCXONC (tco) or by ^S/^Q: Linux's
 * stop_tty() and start_tty(); writers wait in tty_write() meanwhile.  A
 * program's TCOOFF is ended by its TCOON only, not by a ^Q typed at it
 * (Linux's tco_stopped).
 */
static void tty_set_stopped(struct tty_struct *tty, bool stop, bool tco)
{
	if (tco)
		tty->tco_stopped = stop;
	else if (tty->tco_stopped)
		return;
	WRITE_ONCE(tty->stopped, stop);
	if (!stop)
		wake_up(&tty->write_wait);
	poll_notify(); /* writable or not: poll's answer changed */
}

/*
 * The line discipline: one input byte, in task context.  Canonical mode
 * (ICANON) edits a line as the top of this file says; raw mode, which a
 * line editor (busybox's) or vi asks for, hands every byte to the reader
 * as it comes and does its own echo.  ISIG makes ^C, ^\ and ^Z signals
 * in both modes.  termios_mutex held.
 */
static void __n_tty_receive_char(struct tty_struct *tty, char c)
{
	if (c == '\r' && (tty->termios.c_iflag & TTY_ICRNL))
		c = '\n';
	/* IXON: ^S and ^Q stop and restart output, as TCXONC does; they
	 * are not input (Linux's n_tty_receive_char_flow_ctrl()) */
	if ((tty->termios.c_iflag & TTY_IXON) && c &&
	    (c == tty->termios.c_cc[VSTOP] || c == tty->termios.c_cc[VSTART])) {
		tty_set_stopped(tty, c == tty->termios.c_cc[VSTOP], false);
		return;
	}
	if (tty_signal_char(tty, c))
		return;
	if (!(tty->termios.c_lflag & TTY_ICANON)) {
		tty_push_raw(tty, c);
		return;
	}
	switch (c) {
	case '\n':
		tty_echo("\n", 1);
		tty_push_line(tty, true, 0);
		break;
	case '\b':
	case 0x7f:                                      /* VERASE */
		if (tty->line_len) {
			tty->line_len--;
			tty_echo("\b \b", 3);
		}
		break;
	case CTRL('U'):                                 /* VKILL */
		while (tty->line_len) {
			tty->line_len--;
			tty_echo("\b \b", 3);
		}
		break;
	case CTRL('D'):                                 /* VEOF */
		tty_push_line(tty, false, tty->line_len ? TTY_BREAK : TTY_EOF);
		break;
	default:
		if ((unsigned char)c < ' ' && c != '\t')
			break;                          /* other controls: ignored */
		if (tty->line_len < TTY_LINE_MAX - 1) {
			tty->line[tty->line_len++] = c;
			tty_echo(&c, 1);
		}
		break;
	}
}

void n_tty_receive_char(struct tty_struct *tty, char c)
{
	mutex_lock(&tty->termios_mutex);
	__n_tty_receive_char(tty, c);
	mutex_unlock(&tty->termios_mutex);
}

/* From the COM1 interrupt handler: queue the byte for the tty thread. */
void tty_insert_flip_char(char c)
{
	struct tty_struct *tty = &console_tty;
	unsigned long flags;

	spin_lock_irqsave(&tty->lock, flags);
	if (tty->f_head - tty->f_tail < TTY_FLIP)
		tty->flip[tty->f_head++ % TTY_FLIP] = c;
	spin_unlock_irqrestore(&tty->lock, flags);
	wake_up(&tty->flip_wait);
}

/* Take one raw byte, or -1. */
static int tty_flip_pop(struct tty_struct *tty)
{
	unsigned long flags;
	int c = -1;

	spin_lock_irqsave(&tty->lock, flags);
	if (tty->f_head != tty->f_tail)
		c = (unsigned char)tty->flip[tty->f_tail++ % TTY_FLIP];
	spin_unlock_irqrestore(&tty->lock, flags);
	return c;
}

static int tty_thread(void *unused)
{
	struct tty_struct *tty = &console_tty;

	(void)unused;
	for (;;) {
		int c;

		wait_event_interruptible(tty->flip_wait,
			READ_ONCE(tty->f_head) != READ_ONCE(tty->f_tail));
		while ((c = tty_flip_pop(tty)) >= 0)
			n_tty_receive_char(tty, (char)c);
	}
	return 0;
}

/*
 * Copy out at most one line.  Returns bytes copied, 0 at an EOF mark,
 * -EAGAIN when nothing is ready.
 *
 * Bytes leave cooked[] only once they are in the reader's buffer: each
 * chunk is gathered with a private tail, copied, and then the tail moves
 * past what the copy took.  A buffer that runs into an unmapped page gets
 * what fits (or -EFAULT if nothing did) and the rest of the line stays
 * for the next read -- a typed line is not lost to a bad pointer.  Readers
 * hold read_lock, so nobody else moves the tail meanwhile.
 */
static ssize_t tty_take(struct tty_struct *tty, struct iov_iter *to)
{
	char buf[64];
	unsigned int after[64];         /* the tail just past buf[i] */
	ssize_t done = 0;

	for (;;) {
		unsigned long flags;
		unsigned int tail, start;
		size_t n = 0, copied;
		bool stop = false, eof = false;

		spin_lock_irqsave(&tty->lock, flags);
		tail = start = tty->c_tail;
		while (tty->c_head != tail && n < sizeof(buf) && n < iov_iter_count(to)) {
			short v = tty->cooked[tail % TTY_COOKED];

			if (v == TTY_BREAK) {           /* end of a ^D-pushed line */
				if (done || n) {
					tail++;
					stop = true;
					break;
				}
				start = ++tail;         /* a leftover mark: drop it */
				continue;
			}
			if (v == TTY_EOF) {             /* alone, it is the read: 0 */
				if (!done && !n) {
					start = ++tail;
					eof = true;
				}
				stop = true;
				break;
			}
			buf[n] = (char)v;
			after[n++] = ++tail;
			if (v == '\n') {
				stop = true;
				break;
			}
		}
		if (tty->c_head == tail)
			stop = true;
		tty->c_tail = start;            /* marks dropped above are gone */
		spin_unlock_irqrestore(&tty->lock, flags);
		if (eof)
			return 0;
		copied = n ? copy_to_iter(buf, n, to) : 0;
		spin_lock_irqsave(&tty->lock, flags);
		if (copied == n)
			tty->c_tail = tail;     /* and a closing mark, if any */
		else if (copied)
			tty->c_tail = after[copied - 1];
		spin_unlock_irqrestore(&tty->lock, flags);
		done += copied;
		if (copied < n)
			return done ? done : -EFAULT;
		if (stop || !iov_iter_count(to))
			return done ? done : -EAGAIN;
	}
}

/*
 * May current use the terminal now?  Not if it is a background process
 * of the foreground group's session (Spindle's one terminal belongs to
 * that session; Linux's __tty_check_change() asks the same of the
 * caller's controlling terminal): its group gets sig (SIGTTIN for a read,
 * SIGTTOU for a write under TOSTOP or a change of the terminal's modes or
 * foreground group) and stops, and -ERESTARTNOHAND makes the call again
 * once it is continued -- so a backgrounded `cat` waits instead of taking
 * the shell's input, and a background job cannot switch the terminal to
 * raw mode under the shell.  If nothing could continue it (sig ignored or
 * blocked, the group orphaned), a read fails with -EIO and a call under
 * SIGTTOU ignored or blocked just goes ahead (a shell taking the terminal
 * back from a finished job ignores SIGTTOU for that); in an orphaned
 * group, -EIO.  Kernel threads have no session here and always may.
 */
static int tty_check_change(struct tty_struct *tty, int sig)
{
	int pgrp = READ_ONCE(tty->pgrp);

	if (!current->mm || pgrp <= 0 || current->pgid == pgrp ||
	    session_of_pgrp(pgrp) != current->sid)
		return 0;
	if (is_ignored(sig))
		return sig == SIGTTOU ? 0 : -EIO;
	if (is_current_pgrp_orphaned())
		return -EIO;
	kill_pgrp(current->pgid, sig);
	/* not sent after all (init takes only signals it handles): made
	 * again, the call would come straight back here */
	if (!signal_pending(current))
		return -EIO;
	return -ERESTARTNOHAND;
}

static ssize_t tty_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct tty_struct *tty = f->private_data;

	(void)pos;
	for (;;) {
		ssize_t n = tty_check_change(tty, SIGTTIN);

		if (n)
			return n;
		mutex_lock(&tty->read_lock);
		n = tty_take(tty, to);
		mutex_unlock(&tty->read_lock);
		if (n != -EAGAIN || (f->f_flags & O_NONBLOCK))
			return n;
		/* raw mode with VMIN 0: no byte needed; wait VTIME at most */
		if (!(tty->termios.c_lflag & TTY_ICANON) && !tty->termios.c_cc[VMIN]) {
			long t = msecs_to_jiffies(tty->termios.c_cc[VTIME] * 100);

			if (!t || !wait_event_interruptible_timeout(tty->read_wait,
								    READ_ONCE(tty->c_head) != READ_ONCE(tty->c_tail) ||
									    fs_signal_pending(),
								    t))
				return 0;
			continue;
		}
		wait_event_interruptible(tty->read_wait,
			READ_ONCE(tty->c_head) != READ_ONCE(tty->c_tail) || fs_signal_pending());
		/* -EINTR to a handler; after ^Z and fg, the read goes on */
		if (fs_signal_pending())
			return -ERESTARTNOHAND;
	}
}

static ssize_t tty_write(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct tty_struct *tty = f->private_data;
	char buf[128];
	ssize_t done = 0;

	(void)pos;
	if (tty->termios.c_lflag & TTY_TOSTOP) {
		ssize_t ret = tty_check_change(tty, SIGTTOU);

		if (ret)
			return ret;
	}
	/* another writer may hold it for seconds: wait killably (Linux's
	 * tty_write_lock() waits interruptibly too) */
	if (mutex_lock_interruptible(&tty->write_lock))
		return -EINTR;
	while (iov_iter_count(from)) {
		size_t want = min(sizeof(buf), iov_iter_count(from));
		size_t n;

		/* TCOOFF or ^S: hold the bytes until output restarts, as
		 * Linux's stop_tty() does (its driver takes none, and
		 * n_tty_write() sleeps) */
		wait_event_interruptible(tty->write_wait,
					 !READ_ONCE(tty->stopped) || fs_signal_pending());
		/*
		 * A console write of megabytes takes seconds (every byte goes
		 * out through the UART and the VGA mirror).  Stop for a
		 * signal, as Linux's n_tty_write() does: a dying task at once,
		 * another with the count written so far (or -EINTR if none;
		 * Linux would restart the call under SA_RESTART).
		 */
		if (signal_pending(current)) {
			if (!done)
				done = -EINTR;
			break;
		}
		n = copy_from_iter(buf, want, from);

		if (n)
			console_write_raw(buf, n);
		done += n;
		if (n < want) {
			if (!done)
				done = -EFAULT;
			break;
		}
	}
	mutex_unlock(&tty->write_lock);
	return done;
}

/* Bytes a read would get now (marks aside). */
static int tty_readable(struct tty_struct *tty)
{
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&tty->lock, flags);
	for (unsigned int i = tty->c_tail; i != tty->c_head; i++)
		if (tty->cooked[i % TTY_COOKED] >= 0)
			n++;
	spin_unlock_irqrestore(&tty->lock, flags);
	return n;
}

/*
 * TCSETSF and TCFLSH's TCIFLUSH: what was typed and not yet read is
 * dropped -- finished lines, the line being edited, and bytes the tty
 * thread has not yet seen (Linux's n_tty_flush_buffer() and
 * tty_buffer_flush()).
 */
static void tty_flush_input(struct tty_struct *tty)
{
	unsigned long flags;

	assert_mutex_held(&tty->termios_mutex);
	spin_lock_irqsave(&tty->lock, flags);
	tty->c_tail = tty->c_head;
	tty->f_tail = tty->f_head;
	spin_unlock_irqrestore(&tty->lock, flags);
	tty->line_len = 0;
}

/* Readable with typed input; writable unless output is stopped (TCOOFF,
 * ^S), when a write would wait in tty_write(). */
static unsigned int tty_poll(struct file *f)
{
	struct tty_struct *tty = f->private_data;

	return (READ_ONCE(tty->stopped) ? 0 : POLLOUT | POLLWRNORM) |
	       (READ_ONCE(tty->c_head) != READ_ONCE(tty->c_tail) ? POLLIN | POLLRDNORM : 0);
}

/*
 * TIOCSCTTY: a session leader makes the terminal its controlling one, its
 * group the foreground (Linux's tiocsctty()).  Spindle keeps no session
 * per terminal: the console's session is its foreground group's.  Already
 * ours: nothing to do.  Another live session's: EPERM, unless arg is 1
 * (Linux lets CAP_SYS_ADMIN steal it; everyone is root here).
 */
static int tty_set_ctty(struct tty_struct *tty, unsigned long arg)
{
	int pgrp = READ_ONCE(tty->pgrp);
	int sid = pgrp > 0 ? session_of_pgrp(pgrp) : -ESRCH;

	if (current->sid != current->pid)
		return -EPERM; /* not a session leader */
	if (sid == current->sid)
		return 0;
	if (sid >= 0 && arg != 1)
		return -EPERM;
	WRITE_ONCE(tty->pgrp, current->pgid);
	WRITE_ONCE(tty->session, current->sid);
	return 0;
}

/*
 * The session leader `leader` is exiting (Linux's disassociate_ctty(),
 * from do_exit()).  If its session holds the console, the console is
 * hung up for it: its foreground group gets SIGHUP -- a job left behind
 * has lost its user and by default dies of it -- then SIGCONT, so that
 * a stopped one wakes to act on the SIGHUP.  The console then belongs to
 * nobody: its old session's processes are told ENOTTY by TIOCGPGRP, and
 * the next session leader's TIOCSCTTY takes it without stealing.
 *
 * Linux sends that SIGHUP on a pseudo-terminal, and the SIGCONT too when
 * a leader gives its terminal up (TIOCNOTTY); on a real line such as
 * this one it hangs up every open descriptor of the session's terminal
 * instead (tty_vhangup_session()), which Spindle does not: a process
 * that survives the SIGHUP can still read and write the console.
 */
void disassociate_ctty(struct task_struct *leader)
{
	struct tty_struct *tty = &console_tty;
	unsigned long flags;
	int pgrp = 0;

	if (leader->pid != leader->sid)
		return;
	spin_lock_irqsave(&tty->lock, flags);
	if (tty->session == leader->sid) {
		pgrp = tty->pgrp;
		tty->pgrp = 0;
		tty->session = TTY_SESSION_HUNG_UP;
	}
	spin_unlock_irqrestore(&tty->lock, flags);
	if (pgrp > 0) {
		kill_pgrp(pgrp, SIGHUP);
		kill_pgrp(pgrp, SIGCONT);
	}
}

/* TIOCSWINSZ (Linux's tty_do_resize()): a new size is news to the
 * foreground group, whose full-screen program redraws on SIGWINCH */
static int tty_set_winsize(struct tty_struct *tty, const struct winsize __user *p)
{
	struct winsize ws;
	unsigned long flags;
	bool changed;

	if (copy_from_user(&ws, p, sizeof(ws)))
		return -EFAULT;
	spin_lock_irqsave(&tty->lock, flags);
	changed = memcmp(&ws, &tty->winsize, sizeof(ws)) != 0;
	tty->winsize = ws;
	spin_unlock_irqrestore(&tty->lock, flags);
	if (changed && READ_ONCE(tty->pgrp) > 0)
		kill_pgrp(READ_ONCE(tty->pgrp), SIGWINCH);
	return 0;
}

static int tty_get_winsize(struct tty_struct *tty, struct winsize __user *p)
{
	struct winsize ws;
	unsigned long flags;

	spin_lock_irqsave(&tty->lock, flags);
	ws = tty->winsize;
	spin_unlock_irqrestore(&tty->lock, flags);
	return copy_to_user(p, &ws, sizeof(ws)) ? -EFAULT : 0;
}

/* TCFLSH: tcflush(fd, queue) */
static int tty_perform_flush(struct tty_struct *tty, unsigned long arg)
{
	switch (arg) {
	case TCIFLUSH:
	case TCIOFLUSH:
		mutex_lock(&tty->termios_mutex);
		tty_flush_input(tty);
		mutex_unlock(&tty->termios_mutex);
		return 0;
	case TCOFLUSH:
		/* no output queue to drop: a write() hands every byte to
		 * the consoles (the UART waits for each) before it returns */
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * TCSBRK and TCSBRKP: first wait until what was written has left the
 * UART (tcdrain() is TCSBRK with a non-zero argument and stops there);
 * then hold a break on the line (the driver's break_ctl) for ms milliseconds (Linux's send_break():
 * TCSBRK 0 is 250 ms, TCSBRKP n is n tenths of a second).  Writers wait
 * meanwhile (write_lock); printk's output would go into the break.  A
 * signal ends the break early: -EINTR.
 */
static int tty_send_break(struct tty_struct *tty, unsigned int cmd, unsigned long arg)
{
	unsigned long ms = 250;

	if (cmd == TCSBRKP && arg)
		ms = min(arg, 3000UL) * 100;    /* 5 minutes at most */
	if (mutex_lock_interruptible(&tty->write_lock))
		return -EINTR;
	if (tty_driver)
		tty_driver->wait_until_sent();
	/* tcdrain() stops here; so does a break with no line to hold */
	if ((cmd == TCSBRK && arg) || !tty_driver) {
		mutex_unlock(&tty->write_lock);
		return 0;
	}
	tty_driver->break_ctl(true);
	/* in steps of TTY_BREAK_STEP_MS, to end early for a signal (as
	 * Linux's msleep_interruptible() would) */
	while (ms && !fs_signal_pending()) {
		unsigned long step = min(ms, (unsigned long)TTY_BREAK_STEP_MS);

		msleep(step);
		ms -= step;
	}
	tty_driver->break_ctl(false);
	mutex_unlock(&tty->write_lock);
	return fs_signal_pending() ? -EINTR : 0;
}

/*
 * TCXONC: tcflow(fd, action).  TCOOFF stops output -- writers wait until
 * TCOON (Linux's stop_tty()/start_tty()); the kernel's own messages and
 * the echo of typed keys still go out.  TCIOFF and TCION send the STOP
 * and START characters to the far end, ahead of any output, as Linux's
 * send_xchar does, to ask it to pause and resume sending.
 */
static int tty_flow(struct tty_struct *tty, unsigned long arg)
{
	u8 c;

	switch (arg) {
	case TCOOFF:
	case TCOON:
		tty_set_stopped(tty, arg == TCOOFF, true);
		return 0;
	case TCIOFF:
	case TCION:
		c = tty->termios.c_cc[arg == TCIOFF ? VSTOP : VSTART];
		if (c && tty_driver) /* 0 is _POSIX_VDISABLE: none */
			tty_driver->send_xchar((char)c);
		return 0;
	default:
		return -EINVAL;
	}
}

static long tty_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct tty_struct *tty = f->private_data;
	void __user *p = (void __user *)arg;

	switch (cmd) {
	case TCGETS: {
		struct kernel_termios t;

		mutex_lock(&tty->termios_mutex);        /* a whole one, not half a TCSETS */
		t = tty->termios;
		mutex_unlock(&tty->termios_mutex);
		return copy_to_user(p, &t, sizeof(t)) ? -EFAULT : 0;
	}
	case TCSETS:
	case TCSETSW: /* output is never queued: no wait */
	case TCSETSF: {
		struct kernel_termios t;
		int ret = tty_check_change(tty, SIGTTOU);

		if (ret)
			return ret;
		if (copy_from_user(&t, p, sizeof(t)))
			return -EFAULT;
		mutex_lock(&tty->termios_mutex);
		if (cmd == TCSETSF)
			tty_flush_input(tty);
		/* leaving canonical mode: what was typed of a line is input
		 * now (Linux's n_tty_set_termios()), so a key pressed
		 * before vi or less turned raw mode on is not lost */
		if ((tty->termios.c_lflag & TTY_ICANON) && !(t.c_lflag & TTY_ICANON) &&
		    tty->line_len)
			tty_push_line(tty, false, 0);
		/* IXON off: ^Q could not end a ^S any more (a program
		 * turning raw mode on), so output goes on */
		if ((tty->termios.c_iflag & TTY_IXON) && !(t.c_iflag & TTY_IXON))
			tty_set_stopped(tty, false, false);
		tty->termios = t;
		mutex_unlock(&tty->termios_mutex);
		return 0;
	}
	case FIONREAD: {
		int n = tty_readable(tty);

		return copy_to_user(p, &n, sizeof(n)) ? -EFAULT : 0;
	}
	case TIOCGPGRP: {
		int session = READ_ONCE(tty->session);

		/* Linux's tiocgpgrp(): ENOTTY unless it is the caller's
		 * controlling terminal -- once another session holds it, or
		 * once it was hung up */
		if (session == TTY_SESSION_HUNG_UP || (session > 0 && session != current->sid))
			return -ENOTTY;
		return copy_to_user(p, &tty->pgrp, sizeof(int)) ? -EFAULT : 0;
	}
	case TIOCSPGRP: {
		int pgrp, sid, ret = tty_check_change(tty, SIGTTOU);

		/* Linux's tiocspgrp(): an orphaned group's -EIO reads ENOTTY */
		if (ret)
			return ret == -EIO ? -ENOTTY : ret;
		if (copy_from_user(&pgrp, p, sizeof(pgrp)))
			return -EFAULT;
		if (pgrp < 0)
			return -EINVAL;
		/* as Linux's tiocspgrp(): a group that exists, in our session */
		sid = session_of_pgrp(pgrp);
		if (sid < 0)
			return -ESRCH;
		if (sid != current->sid)
			return -EPERM;
		tty->pgrp = pgrp;
		tty->session = sid;
		return 0;
	}
	case TIOCSCTTY:
		return tty_set_ctty(tty, arg);
	case TIOCGWINSZ:
		return tty_get_winsize(tty, p);
	case TIOCSWINSZ:
		return tty_set_winsize(tty, p);
	case TCFLSH:
	case TCXONC:
	case TCSBRK:
	case TCSBRKP: {
		/* each changes the terminal: not from the background */
		int ret = tty_check_change(tty, SIGTTOU);

		if (ret)
			return ret;
		if (cmd == TCFLSH)
			return tty_perform_flush(tty, arg);
		if (cmd == TCXONC)
			return tty_flow(tty, arg);
		return tty_send_break(tty, cmd, arg);
	}
	default:
		return -ENOTTY;
	}
}

static int tty_open(struct inode *inode, struct file *f)
{
	(void)inode;
	f->private_data = &console_tty;
	return 0;
}

const struct file_operations tty_fops = {
	.llseek = NULL,
	.read_iter = tty_read,
	.write_iter = tty_write,
	.unlocked_ioctl = tty_ioctl,
	.open = tty_open,
	.poll = tty_poll,
};

/* The console as a file with no path (the first process's 0, 1, 2). */
struct file *tty_open_console(void)
{
	struct inode *inode = kzalloc(sizeof(*inode), GFP_KERNEL);
	struct file *f;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_count = 1;
	inode->i_nlink = 1;
	inode->i_mode = S_IFCHR | 0600;
	inode->i_rdev = MKDEV(TTYAUX_MAJOR, 1);
	mutex_init(&inode->i_mutex);
	f = alloc_file_pseudo(inode, "console", O_RDWR, &tty_fops);
	if (!IS_ERR(f))
		tty_open(inode, f);
	return f;
}

/* Test hooks: the console tty itself, and its foreground group. */
struct tty_struct *tty_console(void) { return &console_tty; }

#ifndef SPINDLE_HOST
static int tty_init(void)
{
	if (!kthread_run(tty_thread, NULL, "tty"))
		return -ENOMEM;
	return tty_driver ? tty_driver->startup() : 0;
}
device_initcall(tty_init);
#else
int tty_thread_fn(void *unused) { return tty_thread(unused); }
#endif
