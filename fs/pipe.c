// SPDX-License-Identifier: MIT
/*
 * pipe.c - pipe(2) and pipe2(2): a ring of pages between two descriptors.
 *
 * The pipe's buffer is PIPE_PAGES pages used as one circular byte ring:
 * byte number n (counted since the pipe was made) lives at offset
 * n % PIPE_SIZE.  `head` counts bytes written, `tail` bytes read, so
 * head - tail is what is waiting.
 *
 *   read   blocks while the ring is empty and a writer exists; returns
 *          what is there (at most what was asked); 0 = end of file once
 *          every writer has closed
 *   write  blocks while the ring is full; EPIPE once every reader has
 *          closed (Linux also sends SIGPIPE: that belongs to the process
 *          layer, see the report); a write of at most PIPE_BUF bytes goes
 *          in one piece, never interleaved with another writer's
 *
 * Readers and writers sleep on one wait queue, woken at every change.
 * The ring and the counts are under pipe->mutex, released before sleeping.
 *
 * Lifetime, as Linux's put_pipe_info: the buffer lives while a file is
 * open on it (pipe->files).  The last close frees it -- for a FIFO too,
 * whose inode stays in its directory with no buffer until the next open
 * makes a fresh one (the data of a FIFO nobody has open is gone, as in
 * Linux).  inode->i_pipe is set and cleared under the inode's i_mutex, so
 * an open racing with the last close either joins the old buffer before
 * it is counted out or makes a new one.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/string.h>
#include <spindle/uaccess.h>
#include "internal.h"

#define PIPE_PAGES      4                       /* 16 KiB of buffer */
#define PIPE_SIZE       (PIPE_PAGES * PAGE_SIZE)
#define PIPE_BUF        4096                    /* POSIX: atomic writes up to this */

struct pipe_inode_info {
	struct mutex mutex;
	struct wait_queue_head wait;
	struct page *pages[PIPE_PAGES];
	u64 head, tail;                         /* bytes written, bytes read */
	unsigned int readers, writers;
	unsigned int r_counter, w_counter;      /* opens for reading, writing, ever */
	unsigned int files;                     /* open files: the last frees it */
};

/* Wake the pipe's sleepers, and the pollers, which may be waiting for it too. */
static void pipe_wake(struct pipe_inode_info *pipe)
{
	wake_up(&pipe->wait);
	poll_notify();
}

static struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe), GFP_KERNEL);

	if (!pipe)
		return NULL;
	mutex_init(&pipe->mutex);
	init_waitqueue_head(&pipe->wait);
	for (int i = 0; i < PIPE_PAGES; i++) {
		pipe->pages[i] = alloc_page(GFP_KERNEL);
		if (!pipe->pages[i]) {
			while (i--)
				__free_page(pipe->pages[i]);
			kfree(pipe);
			return NULL;
		}
	}
	return pipe;
}

void free_pipe_info(struct pipe_inode_info *pipe)
{
	for (int i = 0; i < PIPE_PAGES; i++)
		__free_page(pipe->pages[i]);
	kfree(pipe);
}

/* Where ring byte n lives, and how many bytes follow it in that page. */
static char *pipe_byte(struct pipe_inode_info *pipe, u64 n, size_t *room)
{
	size_t off = n % PIPE_SIZE;

	*room = PAGE_SIZE - (off & (PAGE_SIZE - 1));
	return (char *)page_address(pipe->pages[off >> PAGE_SHIFT]) + (off & (PAGE_SIZE - 1));
}

static ssize_t pipe_read(struct file *f, struct iov_iter *to, loff_t *pos)
{
	struct pipe_inode_info *pipe = f->f_inode->i_pipe;
	ssize_t done = 0;

	(void)pos;
	mutex_lock(&pipe->mutex);
	for (;;) {
		/* copy what is there */
		while (pipe->head != pipe->tail && iov_iter_count(to)) {
			size_t room, n, copied;
			char *src = pipe_byte(pipe, pipe->tail, &room);

			n = min(room, (size_t)(pipe->head - pipe->tail));
			n = min(n, iov_iter_count(to));
			copied = copy_to_iter(src, n, to);
			pipe->tail += copied;
			done += copied;
			if (copied < n) {
				if (!done)
					done = -EFAULT;
				goto out;
			}
		}
		if (done || !pipe->writers)
			break;                  /* something read, or end of file */
		if (f->f_flags & O_NONBLOCK) {
			done = -EAGAIN;
			break;
		}
		/* empty, a writer exists: sleep until it writes or closes */
		mutex_unlock(&pipe->mutex);
		wait_event_interruptible(pipe->wait,
			READ_ONCE(pipe->head) != READ_ONCE(pipe->tail) ||
			!READ_ONCE(pipe->writers) || fs_signal_pending());
		mutex_lock(&pipe->mutex);
		if (fs_signal_pending() && pipe->head == pipe->tail) {
			done = -EINTR;
			break;
		}
	}
out:
	mutex_unlock(&pipe->mutex);
	if (done > 0)
		pipe_wake(pipe); /* room for the writers */
	return done;
}

static ssize_t pipe_write(struct file *f, struct iov_iter *from, loff_t *pos)
{
	struct pipe_inode_info *pipe = f->f_inode->i_pipe;
	size_t total = iov_iter_count(from);
	ssize_t done = 0;

	(void)pos;
	mutex_lock(&pipe->mutex);
	for (;;) {
		size_t space = PIPE_SIZE - (size_t)(pipe->head - pipe->tail);

		if (!pipe->readers) {
			if (!done)
				done = -EPIPE;
			break;
		}
		/* small writes wait for room for all of it: atomic */
		if (space && !(total <= PIPE_BUF && space < iov_iter_count(from))) {
			while (space && iov_iter_count(from)) {
				size_t room, n, copied;
				char *dst = pipe_byte(pipe, pipe->head, &room);

				n = min(room, space);
				n = min(n, iov_iter_count(from));
				copied = copy_from_iter(dst, n, from);
				pipe->head += copied;
				space -= copied;
				done += copied;
				if (copied < n) {
					if (!done)
						done = -EFAULT;
					goto out;
				}
			}
			pipe_wake(pipe); /* data for the readers */
		}
		if (!iov_iter_count(from))
			break;
		if (f->f_flags & O_NONBLOCK) {
			if (!done)
				done = -EAGAIN;
			break;
		}
		mutex_unlock(&pipe->mutex);
		wait_event_interruptible(pipe->wait,
			PIPE_SIZE - (size_t)(READ_ONCE(pipe->head) - READ_ONCE(pipe->tail)) >=
				min_t(size_t, iov_iter_count(from), total <= PIPE_BUF ? total : 1) ||
			!READ_ONCE(pipe->readers) || fs_signal_pending());
		mutex_lock(&pipe->mutex);
		if (fs_signal_pending()) {
			if (!done)
				done = -EINTR;
			break;
		}
	}
out:
	if (done > 0)
		pipe_wake(pipe); /* even a short write brought data */
	mutex_unlock(&pipe->mutex);
	return done;
}

/* One file less on the pipe: a closing end, or a FIFO open that failed. */
static void put_pipe(struct inode *inode, struct pipe_inode_info *pipe, fmode_t mode)
{
	bool last;

	mutex_lock(&inode->i_mutex);
	mutex_lock(&pipe->mutex);
	if (mode & FMODE_READ)
		pipe->readers--;
	if (mode & FMODE_WRITE)
		pipe->writers--;
	last = --pipe->files == 0;
	if (last)
		inode->i_pipe = NULL;   /* a FIFO's next open makes a new one */
	else
		/* EOF for readers, EPIPE for writers; still under i_mutex, so
		 * the other end's release cannot free the pipe under us */
		pipe_wake(pipe);
	mutex_unlock(&pipe->mutex);
	mutex_unlock(&inode->i_mutex);
	if (last)
		free_pipe_info(pipe);   /* no file left, so no sleeper either */
}

static int pipe_release(struct inode *inode, struct file *f)
{
	put_pipe(inode, inode->i_pipe, f->f_mode);
	return 0;
}

/* readable: data, or no writer left (a read returns EOF: POLLHUP too);
 * writable: room, or no reader left (a write fails with EPIPE at once) */
static unsigned int pipe_poll(struct file *f)
{
	struct pipe_inode_info *pipe = f->f_inode->i_pipe;
	unsigned int mask = 0;

	mutex_lock(&pipe->mutex);
	if (f->f_mode & FMODE_READ) {
		if (pipe->head != pipe->tail)
			mask |= POLLIN | POLLRDNORM;
		/* a FIFO reader that opened with no writer: no hang-up
		 * until a writer has come (and gone), as Linux */
		if (!pipe->writers && f->f_pipe != pipe->w_counter)
			mask |= POLLHUP;
	}
	if (f->f_mode & FMODE_WRITE) {
		if (pipe->head - pipe->tail < PIPE_SIZE)
			mask |= POLLOUT | POLLWRNORM;
		if (!pipe->readers)
			mask |= POLLERR;
	}
	mutex_unlock(&pipe->mutex);
	return mask;
}

static const struct file_operations pipefifo_fops = {
	.poll = pipe_poll,
	.llseek = no_llseek,
	.read_iter = pipe_read,
	.write_iter = pipe_write,
	.release = pipe_release,
};

/*
 * Sleep until *cnt moves on from what it is now: the other end was
 * opened, even if it has been closed again since.  pipe->mutex is held
 * and held again on return; -ERESTARTNOHAND if a signal came first.
 */
static int wait_for_partner(struct pipe_inode_info *pipe, unsigned int *cnt)
{
	unsigned int cur = *cnt;

	while (cur == *cnt) {
		mutex_unlock(&pipe->mutex);
		wait_event_interruptible(pipe->wait, READ_ONCE(*cnt) != cur || fs_signal_pending());
		mutex_lock(&pipe->mutex);
		if (fs_signal_pending())
			break;
	}
	return cur == *cnt ? -ERESTARTNOHAND : 0;
}

/*
 * Opening a FIFO (a named pipe made with mknod): join its pipe, and wait
 * for the other end as Linux's fifo_open does.  For reading: until a
 * writer opens it, unless one has it open or O_NONBLOCK.  For writing:
 * until a reader does, unless one has it open; with O_NONBLOCK and no
 * reader, ENXIO.  O_RDWR is both ends at once and never waits.  The
 * waiting end is counted while it waits, so the other end's open finds
 * it and does not wait in turn; a signal ends the wait (EINTR under a
 * handler, the open made again otherwise) and uncounts it.  r_counter
 * and w_counter count every open, so a partner that opens and closes
 * before the sleeper runs still wakes it.
 */
int fifo_open(struct inode *inode, struct file *f)
{
	struct pipe_inode_info *pipe;
	fmode_t mode = f->f_mode & (FMODE_READ | FMODE_WRITE);
	int ret = 0;

	mutex_lock(&inode->i_mutex);
	if (!inode->i_pipe) {
		inode->i_pipe = alloc_pipe_info();
		if (!inode->i_pipe) {
			mutex_unlock(&inode->i_mutex);
			return -ENOMEM;
		}
	}
	pipe = inode->i_pipe;
	f->f_op = &pipefifo_fops;
	mutex_lock(&pipe->mutex);
	pipe->files++;          /* i_mutex held: the last close cannot free it */
	mutex_unlock(&inode->i_mutex);
	if (mode == FMODE_WRITE && (f->f_flags & O_NONBLOCK) && !pipe->readers) {
		mutex_unlock(&pipe->mutex);
		put_pipe(inode, pipe, 0);
		return -ENXIO;
	}
	if (mode & FMODE_READ) {
		pipe->r_counter++;
		pipe->readers++;
	}
	if (mode & FMODE_WRITE) {
		pipe->w_counter++;
		pipe->writers++;
	}
	pipe_wake(pipe);        /* a sleeping partner's counter moved */
	if (mode == FMODE_READ && !pipe->writers) {
		if (f->f_flags & O_NONBLOCK)
			/* no writer yet: POLLHUP only once one has come */
			f->f_pipe = pipe->w_counter;
		else
			ret = wait_for_partner(pipe, &pipe->w_counter);
	} else if (mode == FMODE_WRITE && !pipe->readers)
		ret = wait_for_partner(pipe, &pipe->r_counter);
	mutex_unlock(&pipe->mutex);
	if (ret) {
		put_pipe(inode, pipe, mode);    /* wakes whoever saw this end */
		return ret;
	}
	return 0;
}

/*
 * The two ends of a new pipe: res[0] reads, res[1] writes.  Both files
 * share one inode (no name, no super_block) through a nameless dentry.
 */
int create_pipe_files(struct file **res, int flags)
{
	struct inode *inode = kzalloc(sizeof(*inode), GFP_KERNEL);
	struct dentry *d;
	struct path path;
	static atomic_long_t pipe_ino;

	if (!inode)
		return -ENFILE;
	inode->i_pipe = alloc_pipe_info();
	if (!inode->i_pipe) {
		kfree(inode);
		return -ENFILE;
	}
	inode->i_mode = S_IFIFO | 0600;
	inode->i_nlink = 1;
	inode->i_count = 1;
	inode->i_ino = atomic_long_inc_return(&pipe_ino);  /* Linux's get_next_ino() */
	mutex_init(&inode->i_mutex);
	d = d_alloc(NULL, "pipe:", 5);
	if (IS_ERR(d)) {
		free_pipe_info(inode->i_pipe);
		kfree(inode);
		return PTR_ERR(d);
	}
	d_instantiate(d, inode);
	path.mnt = NULL;
	path.dentry = d;
	/* counted before the files exist: if the second cannot be made, the
	 * first one's release and the inode's eviction free the buffer */
	inode->i_pipe->readers = 1;
	inode->i_pipe->writers = 1;
	inode->i_pipe->r_counter = 1;
	inode->i_pipe->w_counter = 1;   /* the read end's f_pipe is 0: POLLHUP */
	inode->i_pipe->files = 2;

	res[0] = alloc_file(&path, O_RDONLY | (flags & O_NONBLOCK), &pipefifo_fops);
	res[1] = IS_ERR(res[0]) ? res[0] :
		 alloc_file(&path, O_WRONLY | (flags & O_NONBLOCK), &pipefifo_fops);
	dput(d);                        /* the files hold it now */
	if (IS_ERR(res[1])) {
		if (!IS_ERR(res[0]))
			fput(res[0]);
		return -ENFILE;
	}
	return 0;
}

long ksys_pipe2(int fds[2], int flags)
{
	struct file *files[2];
	int fd0, fd1, err;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	err = create_pipe_files(files, flags);
	if (err)
		return err;
	fd0 = get_unused_fd_flags(flags);
	fd1 = fd0 < 0 ? fd0 : get_unused_fd_flags(flags);
	if (fd1 < 0) {
		if (fd0 >= 0)
			fs_put_unused_fd(fd0);
		fput(files[0]);
		fput(files[1]);
		return fd1;
	}
	fd_install(fd0, files[0]);
	fd_install(fd1, files[1]);
	fds[0] = fd0;
	fds[1] = fd1;
	return 0;
}

long sys_pipe2(int __user *fildes, int flags)
{
	int fds[2];
	long err = ksys_pipe2(fds, flags);

	if (err)
		return err;
	if (copy_to_user(fildes, fds, sizeof(fds))) {
		close_fd(fds[0]);
		close_fd(fds[1]);
		return -EFAULT;
	}
	return 0;
}

long sys_pipe(int __user *fildes)
{
	return sys_pipe2(fildes, 0);
}

bool fs_signal_pending(void)
{
	return signal_pending(current);
}
