// SPDX-License-Identifier: MIT
/*
 * stdio.c - buffered streams over file descriptors.
 *
 * A FILE holds one 4 KiB buffer, used for input or for output.  Output is
 * buffered in one of three ways, chosen at the first write as C's
 * library traditionally does:
 *   - stderr: unbuffered, so a message appears even if the program dies;
 *   - a regular file or a pipe: fully buffered (written when the buffer
 *     fills, on fflush, and at exit);
 *   - anything else (the console): line-buffered, so a prompt or a line
 *     appears at once.
 * Reading from stdin first flushes stdout, so a prompt without a newline
 * is shown before the program waits.  A program that forks must fflush
 * first, or both processes will write the same pending output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "stdio_impl.h"

static struct _FILE std_files[3] = {
	{ .fd = 0, .readable = 1 },
	{ .fd = 1, .writable = 1, .next = &std_files[0] },
	{ .fd = 2, .writable = 1, .mode = BUF_NONE, .buf_decided = 1, .next = &std_files[1] },
};
FILE *stdin = &std_files[0];
FILE *stdout = &std_files[1];
FILE *stderr = &std_files[2];
static FILE *all_files = &std_files[2];

static void choose_buffering(FILE *f)
{
	struct stat st;

	f->buf_decided = 1;
	if (fstat(f->fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)))
		f->mode = BUF_FULL;
	else
		f->mode = BUF_LINE;
}

/* write all of it, retrying after short writes and EINTR (unistd.h) */
int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int fflush(FILE *f)
{
	int ret = 0;

	if (!f) {
		for (f = all_files; f; f = f->next)
			if (fflush(f))
				ret = EOF;
		return ret;
	}
	if (f->wlen) {
		if (write_all(f->fd, f->buf, (size_t)f->wlen)) {
			f->error = 1;
			ret = EOF;
		}
		f->wlen = 0;
	}
	return ret;
}

int fputc(int c, FILE *f)
{
	if (!f->buf_decided)
		choose_buffering(f);
	f->buf[f->wlen++] = (char)c;
	if (f->wlen == (int)sizeof(f->buf) || f->mode == BUF_NONE ||
	    (f->mode == BUF_LINE && c == '\n'))
		if (fflush(f))
			return EOF;
	return (unsigned char)c;
}

int putc(int c, FILE *f)      { return fputc(c, f); }
int putchar(int c)            { return fputc(c, stdout); }

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	const char *p = buf;
	size_t total = size * n;

	/* unbuffered: one write(2) for the lot, not one per byte */
	if (f->buf_decided && f->mode == BUF_NONE) {
		if (write_all(f->fd, p, total)) {
			f->error = 1;
			return 0;
		}
		return n;
	}
	for (size_t i = 0; i < total; i++)
		if (fputc(p[i], f) == EOF)
			return size ? i / size : 0;
	return n;
}

int fputs(const char *s, FILE *f)
{
	size_t n = strlen(s);

	return fwrite(s, 1, n, f) == n || !n ? 0 : EOF;
}

int puts(const char *s)
{
	if (fputs(s, stdout) == EOF)
		return EOF;
	return fputc('\n', stdout) == EOF ? EOF : 0;
}

/* --- formatted output into a FILE --- */

#define VFPRINTF_STACK_BYTES 1024       /* longer output is formatted in malloc'd memory */

/*
 * Format with the kernel's vsnprintf() (printf.c) into a buffer, then put
 * it out: on the stack when it fits, else measured and formatted again
 * into memory of the right size.  An unbuffered stream (stderr) still
 * gets one write per call.
 */
int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char small[VFPRINTF_STACK_BYTES], *buf = small;
	int n, unbuffered = f->buf_decided && f->mode == BUF_NONE;
	va_list again;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf) {
			va_end(again);
			f->error = 1;
			errno = ENOMEM;
			return -1;
		}
		vsnprintf(buf, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	/* gather an unbuffered stream's message into one write */
	if (unbuffered)
		f->mode = BUF_FULL;
	for (int i = 0; i < n; i++)
		fputc(buf[i], f);
	if (unbuffered) {
		f->mode = BUF_NONE;
		fflush(f);
	}
	if (buf != small)
		free(buf);
	return f->error ? -1 : n;
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	return write_all(fd, buf, (size_t)n) ? -1 : n;
}

int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

/* --- input --- */

static int refill(FILE *f)
{
	ssize_t n;

	if (f == stdin)
		fflush(stdout);
	do
		n = read(f->fd, f->buf, sizeof(f->buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n == 0)
			f->eof = 1;
		else
			f->error = 1;
		return EOF;
	}
	f->rpos = 0;
	f->rlen = (int)n;
	return 0;
}

int fgetc(FILE *f)
{
	if (f->rpos == f->rlen && refill(f))
		return EOF;
	return (unsigned char)f->buf[f->rpos++];
}

int getc(FILE *f)  { return fgetc(f); }
int getchar(void)  { return fgetc(stdin); }

char *fgets(char *buf, int size, FILE *f)
{
	int i = 0;

	while (i < size - 1) {
		int c = fgetc(f);

		if (c == EOF)
			break;
		buf[i++] = (char)c;
		if (c == '\n')
			break;
	}
	if (i == 0 || size <= 0)
		return NULL;
	buf[i] = '\0';
	return buf;
}

size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	char *p = buf;
	size_t total = size * n, got = 0;

	while (got < total) {
		int c = fgetc(f);

		if (c == EOF)
			break;
		p[got++] = (char)c;
	}
	return size ? got / size : 0;
}

int feof(FILE *f)      { return f->eof; }
int ferror(FILE *f)    { return f->error; }
int fileno(FILE *f)    { return f->fd; }
void clearerr(FILE *f) { f->eof = f->error = 0; }

/* --- opening and closing --- */

static int mode_flags(const char *mode, int *readable, int *writable)
{
	int plus = strchr(mode, '+') != NULL;

	*readable = mode[0] == 'r' || plus;
	*writable = mode[0] != 'r' || plus;
	switch (mode[0]) {
	case 'r': return plus ? O_RDWR : O_RDONLY;
	case 'w': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
	case 'a': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
	default:  return -1;
	}
}

FILE *fdopen(int fd, const char *mode)
{
	FILE *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (mode_flags(mode, &f->readable, &f->writable) < 0) {
		free(f);
		errno = EINVAL;
		return NULL;
	}
	f->fd = fd;
	f->next = all_files;
	all_files = f;
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	int r, w, flags = mode_flags(mode, &r, &w), fd;
	FILE *f;

	if (flags < 0) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, flags, 0666);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f)
		close(fd);
	return f;
}

int fclose(FILE *f)
{
	int ret = fflush(f);
	FILE **pp;

	for (pp = &all_files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	if (close(f->fd))
		ret = EOF;
	if (f < std_files || f >= std_files + 3)
		free(f);
	return ret;
}

int remove(const char *path)
{
	if (unlink(path) == 0)
		return 0;
	if (errno == EISDIR)
		return rmdir(path);
	return -1;
}

/* called by exit(): write out whatever is still buffered */
void __stdio_exit(void)
{
	fflush(NULL);
}
