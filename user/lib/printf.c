// SPDX-License-Identifier: MIT
/*
 * printf.c - the formatter behind printf, fprintf, snprintf and friends.
 *
 * One function, format(), walks the format string and hands every
 * character it produces to a sink: a FILE (stdio.c), or a bounded buffer
 * (snprintf).  A conversion is
 *
 *     %[flags][width][.precision][length]conversion
 *
 * flags: '-' left-justify, '+' always a sign, ' ' a space for the sign,
 * '#' alternate form (0x, leading 0), '0' pad with zeros; width and
 * precision may be '*' (taken from the arguments); length hh h l ll z j t;
 * conversions d i u x X o s c p %.  No floating point (see stdio.h).
 * The results match C99's printf, checked against glibc's by
 * tests/user/printf_table.c.
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <stdint.h>
#include "stdio_impl.h"

struct spec {
	int left, plus, space, alt, zero;
	int width;
	int prec;                       /* -1: none given */
	int length;                     /* 'H' hh, 'h', 'l', 'L' ll/j/z/t, 0 none */
	char conv;
};

static void emit_repeat(struct sink *s, char c, int n)
{
	while (n-- > 0)
		s->put(s, c);
}

static void emit(struct sink *s, const char *p, size_t n)
{
	while (n--)
		s->put(s, *p++);
}

/*
 * Lay out one field: [sign or prefix][zeros][digits], padded to the width
 * on the left or (with '-') the right.  `zeros` counts zeros required by
 * the precision; the '0' flag adds more to reach the width, but only when
 * no precision was given (C99 7.19.6.1).
 */
static void emit_number(struct sink *s, const struct spec *sp, const char *prefix,
			const char *digits, int ndigits)
{
	int plen = (int)strlen(prefix);
	int zeros = sp->prec > ndigits ? sp->prec - ndigits : 0;
	int len = plen + zeros + ndigits;

	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > len) {
		zeros += sp->width - len;
		len = sp->width;
	}
	if (!sp->left)
		emit_repeat(s, ' ', sp->width - len);
	emit(s, prefix, (size_t)plen);
	emit_repeat(s, '0', zeros);
	emit(s, digits, (size_t)ndigits);
	if (sp->left)
		emit_repeat(s, ' ', sp->width - len);
}

static void format_integer(struct sink *s, struct spec *sp, uintmax_t v, int negative)
{
	char digits[24], prefix[3] = "";
	const char *set = sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned base = 10;
	int n = 0;

	if (sp->conv == 'o')
		base = 8;
	else if (sp->conv == 'x' || sp->conv == 'X' || sp->conv == 'p')
		base = 16;
	/* "%.0d" of 0 prints no digits at all */
	while (v || (n == 0 && sp->prec != 0)) {
		digits[sizeof(digits) - 1 - n++] = set[v % base];
		v /= base;
	}
	if (sp->conv == 'd' || sp->conv == 'i') {
		if (negative)
			strcpy(prefix, "-");
		else if (sp->plus)
			strcpy(prefix, "+");
		else if (sp->space)
			strcpy(prefix, " ");
	} else if (sp->alt && sp->conv == 'o') {
		/* '#' with %o: the first digit must be a 0 */
		if (n == 0 || digits[sizeof(digits) - n] != '0') {
			if (sp->prec <= n)
				sp->prec = n + 1;
		}
	} else if ((sp->alt && n && (sp->conv == 'x' || sp->conv == 'X') &&
		    !(n == 1 && digits[sizeof(digits) - 1] == '0')) || sp->conv == 'p') {
		strcpy(prefix, sp->conv == 'X' ? "0X" : "0x");
	}
	emit_number(s, sp, prefix, digits + sizeof(digits) - n, n);
}

static void format_string(struct sink *s, const struct spec *sp, const char *str)
{
	int n;

	if (!str)
		str = "(null)";
	n = (int)(sp->prec >= 0 ? strnlen(str, (size_t)sp->prec) : strlen(str));
	if (!sp->left)
		emit_repeat(s, ' ', sp->width - n);
	emit(s, str, (size_t)n);
	if (sp->left)
		emit_repeat(s, ' ', sp->width - n);
}

/* read the flags, width, precision and length of one conversion */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')
			sp->left = 1;
		else if (*f == '+')
			sp->plus = 1;
		else if (*f == ' ')
			sp->space = 1;
		else if (*f == '#')
			sp->alt = 1;
		else if (*f == '0')
			sp->zero = 1;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {            /* a negative width means '-' */
			sp->left = 1;
			sp->width = -sp->width;
		}
		f++;
	} else {
		while (*f >= '0' && *f <= '9')
			sp->width = sp->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1;  /* as if none were given */
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp->prec = sp->prec * 10 + (*f++ - '0');
		}
	}
	if (f[0] == 'h' && f[1] == 'h') {
		sp->length = 'H';
		f += 2;
	} else if (f[0] == 'l' && f[1] == 'l') {
		sp->length = 'L';
		f += 2;
	} else if (*f == 'h' || *f == 'l') {
		sp->length = *f++;
	} else if (*f == 'z' || *f == 'j' || *f == 't') {
		sp->length = 'L';               /* all 64-bit on x86-64 */
		f++;
	}
	sp->conv = *f;
	return f;
}

static intmax_t signed_arg(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case 'H': return (signed char)va_arg(*ap, int);
	case 'h': return (short)va_arg(*ap, int);
	case 'l': return va_arg(*ap, long);
	case 'L': return va_arg(*ap, long long);
	default:  return va_arg(*ap, int);
	}
}

static uintmax_t unsigned_arg(const struct spec *sp, va_list *ap)
{
	switch (sp->length) {
	case 'H': return (unsigned char)va_arg(*ap, unsigned int);
	case 'h': return (unsigned short)va_arg(*ap, unsigned int);
	case 'l': return va_arg(*ap, unsigned long);
	case 'L': return va_arg(*ap, unsigned long long);
	default:  return va_arg(*ap, unsigned int);
	}
}

int __format(struct sink *s, const char *f, va_list ap0)
{
	struct spec sp;
	va_list ap;

	va_copy(ap, ap0);
	for (; *f; f++) {
		if (*f != '%') {
			s->put(s, *f);
			continue;
		}
		f = parse_spec(f + 1, &sp, &ap);
		switch (sp.conv) {
		case 'd':
		case 'i': {
			intmax_t v = signed_arg(&sp, &ap);

			format_integer(s, &sp, v < 0 ? -(uintmax_t)v : (uintmax_t)v, v < 0);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			format_integer(s, &sp, unsigned_arg(&sp, &ap), 0);
			break;
		case 'p': {
			void *p = va_arg(ap, void *);

			if (!p) {               /* glibc's spelling of a NULL pointer */
				sp.prec = -1;
				format_string(s, &sp, "(nil)");
			} else {
				format_integer(s, &sp, (uintptr_t)p, 0);
			}
			break;
		}
		case 's':
			format_string(s, &sp, va_arg(ap, const char *));
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);

			if (!sp.left)
				emit_repeat(s, ' ', sp.width - 1);
			s->put(s, c);
			if (sp.left)
				emit_repeat(s, ' ', sp.width - 1);
			break;
		}
		case '%':
			s->put(s, '%');
			break;
		case '\0':                      /* a lone '%' at the end */
			f--;
			break;
		default:                        /* unknown: print it as written */
			s->put(s, '%');
			s->put(s, sp.conv);
			break;
		}
	}
	va_end(ap);
	return (int)s->count;
}

/* --- the bounded-buffer sink, for snprintf --- */

struct buf_sink {
	struct sink sink;
	char *buf;
	size_t size;
};

static void buf_put(struct sink *s, char c)
{
	struct buf_sink *b = (struct buf_sink *)s;

	if (s->count + 1 < b->size)
		b->buf[s->count] = c;
	s->count++;                     /* counts what *would* be written */
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_sink b = { { buf_put, 0 }, buf, size };
	int n = __format(&b.sink, fmt, ap);

	if (size)
		buf[(size_t)n < size ? (size_t)n : size - 1] = '\0';
	return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vsprintf(char *buf, const char *fmt, va_list ap)
{
	return vsnprintf(buf, SIZE_MAX, fmt, ap);
}

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, SIZE_MAX, fmt, ap);
	va_end(ap);
	return n;
}
