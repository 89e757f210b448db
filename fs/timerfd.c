// SPDX-License-Identifier: MIT
/*
 * timerfd.c - a timer read through a file descriptor: timerfd_create
 * (283), timerfd_settime (286), timerfd_gettime (287) -- Linux's
 * fs/timerfd.c, on CLOCK_REALTIME, CLOCK_MONOTONIC and CLOCK_BOOTTIME.
 * fio's helper thread polls one to know when to print and sample.
 *
 * read() returns, as a u64, how many times the timer expired since the
 * last read, and sleeps while that is 0 (EAGAIN with TFD_NONBLOCK);
 * poll() says POLLIN when a read would not sleep.  Setting the timer
 * forgets the expirations not read yet, as Linux does.
 *
 * The timer is a timer_list, as setitimer's (kernel/itimer.c): times are
 * kept in CLOCK_MONOTONIC nanoseconds and the tick is 1 ms, so an
 * expiry comes up to a tick late, never early -- the function checks
 * the clock and waits out the rest if the tick ran ahead.  A periodic
 * timer counts every period missed, as Linux's hrtimer_forward().  An
 * absolute CLOCK_REALTIME time is turned into a monotonic one when it
 * is set; Spindle's wall clock is never stepped (clock_settime does not
 * exist), so the two cannot drift apart afterwards.
 *
 * Locking: ctx->lock, with interrupts off, between the system calls and
 * the timer's function, which runs in the tick's interrupt on CPU 0
 * while the caller may run on any CPU.  The last close waits for a
 * running function (del_timer_sync) before the context is freed.
 *
 * Not here: CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM (EINVAL: no wake
 * alarm), TFD_TIMER_CANCEL_ON_SET (EINVAL: nothing sets the clock, so
 * nothing would ever cancel), the TFD_IOC_SET_TICKS ioctl.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/sched.h>
#include <spindle/signal.h>
#include <spindle/wait.h>
#include <spindle/time.h>
#include <spindle/spinlock.h>
#include <spindle/errno.h>
#include <spindle/uaccess.h>
#include <spindle/syscalls.h>
#include <uapi/linux/fcntl.h>
#include <uapi/linux/time.h>

#define TFD_TIMER_ABSTIME       (1 << 0)
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#define TFD_CLOEXEC             O_CLOEXEC
#define TFD_NONBLOCK            O_NONBLOCK
#define KTIME_MAX               ((u64)0x7fffffffffffffffULL)

struct timerfd_ctx {
	spinlock_t lock;
	struct timer_list t;
	struct wait_queue_head wqh;     /* readers waiting for an expiry */
	int clockid;
	u64 expires;                    /* next expiry, monotonic ns; 0: disarmed */
	u64 interval;                   /* ns; 0: once */
	u64 ticks;                      /* expirations not read yet */
};

/* Arm the timer_list for ctx->expires: one tick more than the distance,
 * so as not to fire early (jiffies counts from inside a tick).  Locked. */
static void timerfd_arm(struct timerfd_ctx *ctx, u64 now)
{
	u64 delta = ctx->expires > now ? ctx->expires - now : 0;

	mod_timer(&ctx->t, jiffies + DIV_ROUND_UP(delta, NSEC_PER_SEC / HZ) + 1);
}

/* The tick's interrupt, CPU 0: count the expirations and wake readers. */
static void timerfd_fn(struct timer_list *t)
{
	struct timerfd_ctx *ctx = container_of(t, struct timerfd_ctx, t);
	unsigned long flags;
	bool woke = false;
	u64 now;

	spin_lock_irqsave(&ctx->lock, flags);
	if (!ctx->expires || timer_pending(t))
		goto out;               /* disarmed, or set again, meanwhile */
	now = ktime_get_ns();
	if (now < ctx->expires) {
		timerfd_arm(ctx, now);  /* the tick ran ahead of the clock */
		goto out;
	}
	if (ctx->interval) {
		u64 missed = (now - ctx->expires) / ctx->interval + 1;

		ctx->ticks += missed;
		ctx->expires = ctx->expires + missed * ctx->interval > KTIME_MAX ?
			       KTIME_MAX : ctx->expires + missed * ctx->interval;
		timerfd_arm(ctx, now);
	} else {
		ctx->ticks++;
		ctx->expires = 0;
	}
	woke = true;
out:
	spin_unlock_irqrestore(&ctx->lock, flags);
	if (woke) {
		wake_up(&ctx->wqh);
		poll_notify();
	}
}

static ssize_t timerfd_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct timerfd_ctx *ctx = f->private_data;
	unsigned long flags;
	u64 ticks;

	(void)pos;
	if (iov_iter_count(to) < sizeof(u64))
		return -EINVAL;
	for (;;) {
		spin_lock_irqsave(&ctx->lock, flags);
		ticks = ctx->ticks;
		ctx->ticks = 0;
		spin_unlock_irqrestore(&ctx->lock, flags);
		if (ticks)
			break;
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		wait_event_interruptible(ctx->wqh, READ_ONCE(ctx->ticks) || signal_pending(current));
		if (!READ_ONCE(ctx->ticks) && signal_pending(current))
			return -EINTR;
	}
	if (copy_to_iter(&ticks, sizeof(ticks), to) != sizeof(ticks)) {
		/* not lost: the next read returns them */
		spin_lock_irqsave(&ctx->lock, flags);
		ctx->ticks += ticks;
		spin_unlock_irqrestore(&ctx->lock, flags);
		return -EFAULT;
	}
	return sizeof(ticks);
}

static unsigned int timerfd_poll(struct file *f)
{
	struct timerfd_ctx *ctx = f->private_data;

	return READ_ONCE(ctx->ticks) ? POLLIN | POLLRDNORM : 0;
}

static int timerfd_release(struct inode *inode, struct file *f)
{
	struct timerfd_ctx *ctx = f->private_data;
	unsigned long flags;

	(void)inode;
	spin_lock_irqsave(&ctx->lock, flags);
	ctx->expires = 0;               /* a running function will not re-arm */
	spin_unlock_irqrestore(&ctx->lock, flags);
	del_timer_sync(&ctx->t);
	kfree(ctx);
	return 0;
}

static const struct file_operations timerfd_fops = {
	.llseek = no_llseek,
	.read_iter = timerfd_read,
	.poll = timerfd_poll,
	.release = timerfd_release,
};

/* The file behind a descriptor, if it is a timerfd (referenced). */
static struct file *timerfd_fget(int fd)
{
	struct file *f = fget((unsigned int)fd);

	if (f && f->f_op != &timerfd_fops) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	return f ? f : ERR_PTR(-EBADF);
}

long sys_timerfd_create(int clockid, int flags)
{
	struct timerfd_ctx *ctx;
	struct file *f;
	int fd;

	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return -EINVAL;
	if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME)
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->wqh);
	timer_setup(&ctx->t, timerfd_fn);
	ctx->clockid = clockid;
	f = anon_inode_getfile("[timerfd]", &timerfd_fops, ctx, O_RDWR | (flags & TFD_NONBLOCK));
	if (IS_ERR(f)) {
		kfree(ctx);
		return PTR_ERR(f);
	}
	fd = get_unused_fd_flags((unsigned int)flags & TFD_CLOEXEC);
	if (fd < 0) {
		fput(f);                /* its release frees ctx */
		return fd;
	}
	fd_install((unsigned int)fd, f);
	return fd;
}

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)NSEC_PER_SEC;
}

static u64 timespec_to_ns(const struct timespec *ts)
{
	if ((u64)ts->tv_sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return (u64)ts->tv_sec * NSEC_PER_SEC + (u64)ts->tv_nsec;
}

static struct timespec ns_to_timespec(u64 ns)
{
	return (struct timespec){ .tv_sec = (long)(ns / NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % NSEC_PER_SEC) };
}

/* timerfd_gettime's answer; locked.  A timer whose moment has come but
 * whose tick has not has 1 ns left, never 0 (0 means disarmed). */
static struct itimerspec timerfd_get(struct timerfd_ctx *ctx, u64 now)
{
	u64 left = !ctx->expires ? 0 : ctx->expires > now ? ctx->expires - now : 1;

	return (struct itimerspec){ .it_interval = ns_to_timespec(ctx->interval),
				    .it_value = ns_to_timespec(left) };
}

long sys_timerfd_settime(int fd, int flags, const struct itimerspec __user *utmr,
			 struct itimerspec __user *otmr)
{
	struct itimerspec new, old;
	struct timerfd_ctx *ctx;
	unsigned long irqflags;
	struct file *f;
	u64 now, value;

	if (copy_from_user(&new, utmr, sizeof(new)))
		return -EFAULT;
	if ((flags & ~TFD_TIMER_ABSTIME) || !timespec_valid(&new.it_value) ||
	    !timespec_valid(&new.it_interval))
		return -EINVAL;
	f = timerfd_fget(fd);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ctx = f->private_data;
	spin_lock_irqsave(&ctx->lock, irqflags);
	now = ktime_get_ns();
	old = timerfd_get(ctx, now);
	del_timer(&ctx->t);
	ctx->ticks = 0;
	value = timespec_to_ns(&new.it_value);
	ctx->interval = timespec_to_ns(&new.it_interval);
	if (!value) {
		ctx->expires = 0;
		ctx->interval = 0;
	} else if (flags & TFD_TIMER_ABSTIME) {
		u64 offset = ctx->clockid == CLOCK_REALTIME ? realtime_offset_ns() : 0;

		/* a time already past expires at the next tick */
		ctx->expires = value > offset ? value - offset : 1;
		if (!ctx->expires)
			ctx->expires = 1;
		timerfd_arm(ctx, now);
	} else {
		ctx->expires = value > KTIME_MAX - now ? KTIME_MAX : now + value;
		timerfd_arm(ctx, now);
	}
	spin_unlock_irqrestore(&ctx->lock, irqflags);
	fput(f);
	if (otmr && copy_to_user(otmr, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timerfd_gettime(int fd, struct itimerspec __user *otmr)
{
	struct itimerspec cur;
	struct timerfd_ctx *ctx;
	unsigned long flags;
	struct file *f = timerfd_fget(fd);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ctx = f->private_data;
	spin_lock_irqsave(&ctx->lock, flags);
	cur = timerfd_get(ctx, ktime_get_ns());
	spin_unlock_irqrestore(&ctx->lock, flags);
	fput(f);
	return copy_to_user(otmr, &cur, sizeof(cur)) ? -EFAULT : 0;
}
