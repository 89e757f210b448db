// SPDX-License-Identifier: MIT
/*
 * select.c - poll(2), ppoll, select(2) and pselect6: wait until one of
 * several descriptors is ready, or a timeout passes.  A shell's line
 * editor and vi wait for a key this way; a pipeline's reader may too.
 *
 * A file says whether it is ready through f_op->poll(), which answers at
 * once (POLLIN: a read would not block; POLLOUT: a write would not;
 * POLLHUP: the other end is gone).  A file without one -- a regular file,
 * a block device -- is always ready for both, as Linux's DEFAULT_POLLMASK.
 *
 * Waiting: Linux hangs the poller on the wait queue of every file it
 * watches.  Spindle keeps one queue for all pollers, poll_wait_all, which
 * the tty and the pipes wake whenever something changes (poll_notify());
 * each poller wakes, asks its files again, and sleeps again if none is
 * ready.  Simpler, and costs only spurious wake-ups, which at this scale
 * (a shell and a pipeline or two) are few.
 */
#include <spindle/fs.h>
#include <spindle/sched.h>
#include <spindle/wait.h>
#include <spindle/time.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include "internal.h"

static DECLARE_WAIT_QUEUE_HEAD(poll_wait_all);
static unsigned long poll_events; /* changes so far: a poller's "anything new?" */

void poll_notify(void)
{
	WRITE_ONCE(poll_events, poll_events + 1);
	wake_up(&poll_wait_all);
}

struct pollfd {
	int fd;
	short events, revents;
};

#define POLL_MAX NR_OPEN_DEFAULT /* one entry per descriptor */
#define POLLIN_SET (POLLIN | POLLRDNORM | POLLHUP | POLLERR)
#define POLLOUT_SET (POLLOUT | POLLWRNORM | POLLERR)

static unsigned int file_poll(unsigned int fd)
{
	struct file *f = fget(fd);
	unsigned int mask;

	if (!f)
		return POLLNVAL;
	mask = f->f_op->poll ? f->f_op->poll(f) : DEFAULT_POLLMASK;
	fput(f);
	return mask;
}

/* One pass over the set: how many entries have something to report. */
static int poll_once(struct pollfd *fds, unsigned int nfds)
{
	int ready = 0;

	for (unsigned int i = 0; i < nfds; i++) {
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue; /* POSIX: ignored */
		fds[i].revents = file_poll(fds[i].fd) &
				 (fds[i].events | POLLERR | POLLHUP | POLLNVAL);
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

/*
 * The loop both calls share: pass over the set; if nothing is ready,
 * sleep until a change is notified, the deadline (jiffies; -1: none)
 * passes, or a signal comes.  The event count is read before the pass,
 * so a change during the pass is not slept through.
 */
static int do_poll(struct pollfd *fds, unsigned int nfds, long timeout)
{
	for (;;) {
		unsigned long seen = READ_ONCE(poll_events);
		int ready = poll_once(fds, nfds);

		if (ready || !timeout)
			return ready;
		if (fs_signal_pending())
			return -EINTR;
		if (timeout < 0) {
			wait_event_interruptible(poll_wait_all,
						 READ_ONCE(poll_events) != seen || fs_signal_pending());
		} else {
			timeout = wait_event_interruptible_timeout(poll_wait_all,
								   READ_ONCE(poll_events) != seen || fs_signal_pending(), timeout);
			if (!timeout)
				return poll_once(fds, nfds); /* the last look */
		}
	}
}

/* ms (negative: forever) to jiffies, rounded up so no wait ends early */
static long ms_to_timeout(long ms)
{
	if (ms < 0)
		return -1;
	return ms ? (long)msecs_to_jiffies(ms) + 1 : 0;
}

static long ts_to_timeout(const struct timespec __user *uts)
{
	struct timespec ts;

	if (!uts)
		return -1;
	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -EINVAL;
	if (ts.tv_sec > 1000000)
		return -1; /* over ten days: forever, here */
	return ms_to_timeout(ts.tv_sec * 1000 + (ts.tv_nsec + 999999) / 1000000);
}

static long poll_user(struct pollfd __user *ufds, unsigned int nfds, long timeout)
{
	struct pollfd fds[POLL_MAX];
	long ret;

	if (nfds > POLL_MAX)
		return -EINVAL;
	if (copy_from_user(fds, ufds, nfds * sizeof(fds[0])))
		return -EFAULT;
	ret = do_poll(fds, nfds, timeout);
	if (ret >= 0 && copy_to_user(ufds, fds, nfds * sizeof(fds[0])))
		return -EFAULT;
	return ret;
}

long sys_poll(struct pollfd __user *ufds, unsigned int nfds, int timeout_msecs)
{
	return poll_user(ufds, nfds, ms_to_timeout(timeout_msecs));
}

/* The p-variants set a signal mask for the wait, as rt_sigsuspend does:
 * the old one comes back after the handler of the signal that ends it.
 * io_uring_enter's wait does the same (Linux's set_user_sigmask). */
int set_user_sigmask(const void __user *umask, size_t sigsetsize)
{
	const sigset_t __user *sigmask = umask;
	sigset_t mask;

	if (!sigmask)
		return 0;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (copy_from_user(&mask, sigmask, sizeof(mask)))
		return -EFAULT;
	set_restore_sigmask(mask);
	return 0;
}

long sys_ppoll(struct pollfd __user *ufds, unsigned int nfds,
	       const struct timespec __user *tsp, const sigset_t __user *sigmask,
	       size_t sigsetsize)
{
	long timeout = ts_to_timeout(tsp);
	long err = timeout < -1 ? timeout : set_user_sigmask(sigmask, sigsetsize);

	return err ? err : poll_user(ufds, nfds, timeout);
}

/*
 * select: the same wait, with the sets as bitmaps of descriptors below
 * nfds.  Each set is rewritten to hold only the ready descriptors.
 */
static long do_select(int n, u64 __user *inp, u64 __user *outp, u64 __user *exp, long timeout)
{
	u64 in = 0, out = 0, ex = 0;
	struct pollfd fds[POLL_MAX];
	unsigned int nfds = 0;
	long ret;

	if (n < 0)
		return -EINVAL;
	if (n > POLL_MAX)
		n = POLL_MAX; /* no descriptor above the table */
	if ((inp && copy_from_user(&in, inp, sizeof(in))) ||
	    (outp && copy_from_user(&out, outp, sizeof(out))) ||
	    (exp && copy_from_user(&ex, exp, sizeof(ex))))
		return -EFAULT;
	for (int fd = 0; fd < n; fd++) {
		short events = ((in >> fd) & 1 ? POLLIN_SET : 0) | ((out >> fd) & 1 ? POLLOUT_SET : 0);

		if (events || ((ex >> fd) & 1))
			fds[nfds++] = (struct pollfd){ .fd = fd, .events = events };
	}
	ret = do_poll(fds, nfds, timeout);
	if (ret < 0)
		return ret;
	in = out = ex = 0;
	ret = 0;
	for (unsigned int i = 0; i < nfds; i++) {
		if (fds[i].revents & POLLNVAL)
			return -EBADF;
		if (fds[i].revents & fds[i].events & POLLIN_SET)
			in |= 1ull << fds[i].fd, ret++;
		if (fds[i].revents & fds[i].events & POLLOUT_SET)
			out |= 1ull << fds[i].fd, ret++;
	}
	if ((inp && copy_to_user(inp, &in, sizeof(in))) ||
	    (outp && copy_to_user(outp, &out, sizeof(out))) ||
	    (exp && copy_to_user(exp, &ex, sizeof(ex))))
		return -EFAULT;
	return ret;
}

long sys_select(int n, u64 __user *inp, u64 __user *outp, u64 __user *exp,
		void __user *tvp)
{
	struct {
		long tv_sec, tv_usec;
	} tv;
	long timeout = -1;

	if (tvp) {
		if (copy_from_user(&tv, tvp, sizeof(tv)))
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
			return -EINVAL;
		timeout = tv.tv_sec > 1000000 ? -1 : ms_to_timeout(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
	}
	return do_select(n, inp, outp, exp, timeout);
}

/* pselect6's sixth argument: a pointer to { const sigset_t *ss; size_t ss_len; } */
long sys_pselect6(int n, u64 __user *inp, u64 __user *outp, u64 __user *exp,
		  const struct timespec __user *tsp, void __user *sig)
{
	struct {
		const sigset_t __user *ss;
		size_t len;
	} s = { NULL, 0 };
	long timeout = ts_to_timeout(tsp);
	long err = timeout < -1 ? timeout : 0;

	if (!err && sig && copy_from_user(&s, sig, sizeof(s)))
		err = -EFAULT;
	if (!err)
		err = set_user_sigmask(s.ss, s.len);
	return err ? err : do_select(n, inp, outp, exp, timeout);
}
