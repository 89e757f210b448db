// SPDX-License-Identifier: MIT
/*
 * errno.c - strerror() and perror(), with the messages Linux systems
 * print (glibc's wording), so a Spindle tool's error reads the same as the
 * host's: "cat: /nope: No such file or directory".
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

static const char *const messages[] = {
	[0]            = "Success",
	[EPERM]        = "Operation not permitted",
	[ENOENT]       = "No such file or directory",
	[ESRCH]        = "No such process",
	[EINTR]        = "Interrupted system call",
	[EIO]          = "Input/output error",
	[ENXIO]        = "No such device or address",
	[E2BIG]        = "Argument list too long",
	[ENOEXEC]      = "Exec format error",
	[EBADF]        = "Bad file descriptor",
	[ECHILD]       = "No child processes",
	[EAGAIN]       = "Resource temporarily unavailable",
	[ENOMEM]       = "Cannot allocate memory",
	[EACCES]       = "Permission denied",
	[EFAULT]       = "Bad address",
	[ENOTBLK]      = "Block device required",
	[EBUSY]        = "Device or resource busy",
	[EEXIST]       = "File exists",
	[EXDEV]        = "Invalid cross-device link",
	[ENODEV]       = "No such device",
	[ENOTDIR]      = "Not a directory",
	[EISDIR]       = "Is a directory",
	[EINVAL]       = "Invalid argument",
	[ENFILE]       = "Too many open files in system",
	[EMFILE]       = "Too many open files",
	[ENOTTY]       = "Inappropriate ioctl for device",
	[ETXTBSY]      = "Text file busy",
	[EFBIG]        = "File too large",
	[ENOSPC]       = "No space left on device",
	[ESPIPE]       = "Illegal seek",
	[EROFS]        = "Read-only file system",
	[EMLINK]       = "Too many links",
	[EPIPE]        = "Broken pipe",
	[EDOM]         = "Numerical argument out of domain",
	[ERANGE]       = "Numerical result out of range",
	[EDEADLK]      = "Resource deadlock avoided",
	[ENAMETOOLONG] = "File name too long",
	[ENOLCK]       = "No locks available",
	[ENOSYS]       = "Function not implemented",
	[ENOTEMPTY]    = "Directory not empty",
	[ELOOP]        = "Too many levels of symbolic links",
	[EBADR]        = "Invalid request descriptor",
	[ENODATA]      = "No data available",
	[EOVERFLOW]    = "Value too large for defined data type",
	[ELIBBAD]      = "Accessing a corrupted shared library",
	[EILSEQ]       = "Invalid or incomplete multibyte or wide character",
	[ENOTSUP]      = "Operation not supported",
	[ETIMEDOUT]    = "Connection timed out",
	[EALREADY]     = "Operation already in progress",
	[ESTALE]       = "Stale file handle",
	[EUCLEAN]      = "Structure needs cleaning",
	[EREMOTEIO]    = "Remote I/O error",
	[EDQUOT]       = "Disk quota exceeded",
	[ECANCELED]    = "Operation canceled",
};

char *strerror(int e)
{
	static char unknown[32];

	if (e >= 0 && e < (int)(sizeof(messages) / sizeof(messages[0])) && messages[e])
		return (char *)messages[e];
	snprintf(unknown, sizeof(unknown), "Unknown error %d", e);
	return unknown;
}

void perror(const char *s)
{
	const char *msg = strerror(errno);

	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, msg);
	else
		fprintf(stderr, "%s\n", msg);
}
