// SPDX-License-Identifier: MIT
/*
 * lib/vsprintf.c: printf-style formatting into a buffer, the engine under
 * printk() and every snprintf() in the kernel.
 *
 * Interface (<spindle/printk.h>): vsnprintf(buf, size, fmt, ap) stores at
 * most size bytes, NUL-terminated whenever size > 0, and returns the length
 * the whole output would have had (C99), so a caller detects truncation as
 * "ret >= size" and may pass size 0 to measure.  scnprintf()/vscnprintf()
 * return what was actually stored instead, which is what code that appends
 * to a buffer piece by piece wants: "len += scnprintf(buf + len, size - len,
 * ...)" can never step past the end.
 *
 * Supported, with C99's meaning: %d %i %u %x %X %o %c %s %p %%, the flags
 * '-' '0' ' ' '+' '#', a width and a precision (digits or '*'), and the
 * length modifiers hh h l ll z t j.  Differences from C: %s of NULL prints
 * "(null)"; %p prints the pointer as 0x-prefixed hex, and NULL as "(nil)"
 * (glibc's spellings, the user libc's printf being this code too); an
 * unknown conversion is copied to the output as written, so the mistake
 * shows in the log instead of silently eating an argument.  Left out on
 * purpose: floating point (the kernel does not touch the FPU), %n (a write
 * through a pointer, the classic format-string exploit) and %1$d.
 *
 * Portable C, no allocation, no locks: callable from any context, never
 * sleeps.  Also compiled into the user libc (user/user.mk), as the engine
 * of its printf family.  Tested on the host by tests/unit/check_vsprintf.c,
 * partly against the host C library's printf, and through the libc by
 * tests/user/printf_table.c against glibc's.
 */
#include <spindle/printk.h>
#include <spindle/string.h>

/*
 * Widths and precisions are clamped to this many characters: no real
 * format needs more, and it keeps the int arithmetic below from overflowing
 * on a format such as "%99999999999d".
 */
#define FMT_MAX_FIELD 4096

/* Where the output goes: stores stop at the end of buf, counting does not. */
struct outbuf {
	char *buf;
	size_t size;	/* bytes of buf, including the one kept for the NUL */
	size_t len;	/* characters produced so far, stored or not */
};

/* What one conversion asked for, between the '%' and the letter. */
struct fmt_spec {
	unsigned int flags;	/* FMT_* below */
	int width;		/* minimum field width; 0 if none */
	int precision;		/* -1 if none */
	unsigned int base;	/* 8, 10 or 16 */
};

#define FMT_LEFT	0x01	/* '-': pad on the right instead of the left */
#define FMT_ZEROPAD	0x02	/* '0': pad numbers with zeros after the sign */
#define FMT_SPACE	0x04	/* ' ': a space where a '+' would go */
#define FMT_PLUS	0x08	/* '+': a sign even on positive numbers */
#define FMT_SPECIAL	0x10	/* '#': 0 before octal, 0x before hex */
#define FMT_SIGNED	0x20	/* %d %i: ' ' and '+' apply */
#define FMT_UPPER	0x40	/* %X: upper-case digits and 0X */

enum fmt_length { LEN_INT, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T, LEN_J };

static void out_char(struct outbuf *out, char c)
{
	if (out->len + 1 < out->size)	/* the last byte is the NUL's */
		out->buf[out->len] = c;
	out->len++;
}

static void out_repeat(struct outbuf *out, char c, int n)
{
	for (; n > 0; n--)
		out_char(out, c);
}

/* n characters of s, padded with spaces to the field width. */
static void out_string(struct outbuf *out, const char *s, size_t n,
		       const struct fmt_spec *spec)
{
	int pad = spec->width - (int)n;

	if (!(spec->flags & FMT_LEFT))
		out_repeat(out, ' ', pad);
	while (n--)
		out_char(out, *s++);
	if (spec->flags & FMT_LEFT)
		out_repeat(out, ' ', pad);
}

/*
 * One integer, its magnitude in num and its sign in negative.  The field is
 * laid out as  [spaces] [sign] [0x] [zeros] digits [spaces]:  the zeros come
 * from the precision (a minimum number of digits) or, with '0' and no
 * precision, from the width.
 */
static void out_number(struct outbuf *out, unsigned long long num,
		       bool negative, const struct fmt_spec *spec)
{
	const char *digits = spec->flags & FMT_UPPER ? "0123456789ABCDEF"
						      : "0123456789abcdef";
	char tmp[22];		/* 64 bits in octal: the most digits */
	int ndigits = 0, precision = spec->precision, zeros, pad;
	const char *prefix = "";
	char sign = 0;

	if (negative)
		sign = '-';
	else if (spec->flags & FMT_SIGNED && spec->flags & FMT_PLUS)
		sign = '+';
	else if (spec->flags & FMT_SIGNED && spec->flags & FMT_SPACE)
		sign = ' ';

	if (spec->flags & FMT_SPECIAL && spec->base == 16 && num != 0)
		prefix = spec->flags & FMT_UPPER ? "0X" : "0x";

	/* Digits, least significant first.  C99: 0 with precision 0 is "". */
	if (num != 0 || precision != 0) {
		do {
			tmp[ndigits++] = digits[num % spec->base];
			num /= spec->base;
		} while (num != 0);
	}

	/* "%#o" must start with a 0: raise the precision if need be. */
	if (spec->flags & FMT_SPECIAL && spec->base == 8 &&
	    (ndigits == 0 || tmp[ndigits - 1] != '0') && precision <= ndigits)
		precision = ndigits + 1;

	zeros = precision > ndigits ? precision - ndigits : 0;
	pad = spec->width - (sign != 0) - (int)strlen(prefix) - zeros - ndigits;
	if (spec->flags & FMT_ZEROPAD && !(spec->flags & FMT_LEFT) &&
	    spec->precision < 0 && pad > 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(spec->flags & FMT_LEFT))
		out_repeat(out, ' ', pad);
	if (sign)
		out_char(out, sign);
	while (*prefix)
		out_char(out, *prefix++);
	out_repeat(out, '0', zeros);
	while (ndigits > 0)
		out_char(out, tmp[--ndigits]);
	if (spec->flags & FMT_LEFT)
		out_repeat(out, ' ', pad);
}

/*
 * The helpers below take the argument list by pointer so that what they
 * consume stays consumed.  They get a va_copy() made in vsnprintf(): on
 * x86-64 a va_list parameter is secretly a pointer, and taking its address
 * would not give a va_list *.
 */
static unsigned long long fetch_unsigned(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH:	return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:	return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:	return va_arg(*ap, unsigned long);
	case LEN_LL:	return va_arg(*ap, unsigned long long);
	case LEN_Z:	return va_arg(*ap, size_t);
	case LEN_T:	return (unsigned long long)va_arg(*ap, ptrdiff_t);
	case LEN_J:	return va_arg(*ap, uintmax_t);
	default:	return va_arg(*ap, unsigned int);
	}
}

static long long fetch_signed(va_list *ap, enum fmt_length len)
{
	switch (len) {
	case LEN_HH:	return (signed char)va_arg(*ap, int);
	case LEN_H:	return (short)va_arg(*ap, int);
	case LEN_L:	return va_arg(*ap, long);
	case LEN_LL:	return va_arg(*ap, long long);
	case LEN_Z:	return va_arg(*ap, ssize_t);
	case LEN_T:	return va_arg(*ap, ptrdiff_t);
	case LEN_J:	return va_arg(*ap, intmax_t);
	default:	return va_arg(*ap, int);
	}
}

/* A width or precision written as digits, clamped to FMT_MAX_FIELD. */
static int parse_field(const char **fmtp)
{
	const char *fmt = *fmtp;
	int n = 0;

	for (; *fmt >= '0' && *fmt <= '9'; fmt++) {
		n = n * 10 + (*fmt - '0');
		if (n > FMT_MAX_FIELD)
			n = FMT_MAX_FIELD;
	}
	*fmtp = fmt;
	return n;
}

/*
 * Read flags, width, precision and length of one conversion, fmt being just
 * past the '%'.  Returns a pointer to the conversion letter.
 */
static const char *parse_spec(const char *fmt, struct fmt_spec *spec,
			      enum fmt_length *len, va_list *ap)
{
	spec->flags = 0;
	spec->width = 0;
	spec->precision = -1;
	spec->base = 10;

	for (;; fmt++) {
		if (*fmt == '-')
			spec->flags |= FMT_LEFT;
		else if (*fmt == '0')
			spec->flags |= FMT_ZEROPAD;
		else if (*fmt == ' ')
			spec->flags |= FMT_SPACE;
		else if (*fmt == '+')
			spec->flags |= FMT_PLUS;
		else if (*fmt == '#')
			spec->flags |= FMT_SPECIAL;
		else
			break;
	}

	if (*fmt == '*') {
		/* C99: a negative width argument is a '-' flag and a width. */
		int w = va_arg(*ap, int);

		if (w < 0) {
			spec->flags |= FMT_LEFT;
			w = w < -FMT_MAX_FIELD ? FMT_MAX_FIELD : -w;
		}
		spec->width = w > FMT_MAX_FIELD ? FMT_MAX_FIELD : w;
		fmt++;
	} else {
		spec->width = parse_field(&fmt);
	}

	if (*fmt == '.') {
		fmt++;
		if (*fmt == '*') {
			/* ... and a negative precision is no precision. */
			int p = va_arg(*ap, int);

			spec->precision = p < 0 ? -1 : p > FMT_MAX_FIELD ? FMT_MAX_FIELD : p;
			fmt++;
		} else {
			spec->precision = parse_field(&fmt);	/* "." alone is 0 */
		}
	}

	*len = LEN_INT;
	switch (*fmt) {
	case 'h':
		*len = LEN_H;
		if (*++fmt == 'h') {
			*len = LEN_HH;
			fmt++;
		}
		break;
	case 'l':
		*len = LEN_L;
		if (*++fmt == 'l') {
			*len = LEN_LL;
			fmt++;
		}
		break;
	case 'z':
		*len = LEN_Z;
		fmt++;
		break;
	case 't':
		*len = LEN_T;
		fmt++;
		break;
	case 'j':
		*len = LEN_J;
		fmt++;
		break;
	}
	return fmt;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf out = { .buf = buf, .size = size, .len = 0 };
	struct fmt_spec spec;
	enum fmt_length len;
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;

		if (*fmt != '%') {
			out_char(&out, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &spec, &len, &args);

		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = fetch_signed(&args, len);

			spec.flags |= FMT_SIGNED;
			/* Negate as unsigned: -INT64_MIN does not fit a long long. */
			out_number(&out, v < 0 ? -(unsigned long long)v : (unsigned long long)v,
				   v < 0, &spec);
			break;
		}
		case 'X':
			spec.flags |= FMT_UPPER;
			/* fall through */
		case 'x':
			spec.base = 16;
			out_number(&out, fetch_unsigned(&args, len), false, &spec);
			break;
		case 'o':
			spec.base = 8;
			out_number(&out, fetch_unsigned(&args, len), false, &spec);
			break;
		case 'u':
			out_number(&out, fetch_unsigned(&args, len), false, &spec);
			break;
		case 'p': {
			const void *p = va_arg(args, const void *);

			/* NULL in glibc's spelling: the user libc formats
			 * with this code too, and its programs print what
			 * they print on Linux */
			if (!p) {
				spec.precision = -1;
				out_string(&out, "(nil)", 5, &spec);
				break;
			}
			spec.flags |= FMT_SPECIAL;
			spec.base = 16;
			out_number(&out, (uintptr_t)p, false, &spec);
			break;
		}
		case 'c': {
			char c = (char)va_arg(args, int);

			out_string(&out, &c, 1, &spec);
			break;
		}
		case 's': {
			const char *s = va_arg(args, const char *);

			if (!s)
				s = "(null)";
			/* strnlen: with a precision, s need not be terminated. */
			out_string(&out, s, spec.precision < 0 ? strlen(s)
					: strnlen(s, spec.precision), &spec);
			break;
		}
		case '%':
			out_char(&out, '%');
			break;
		default:
			/* Unknown: copy "%..." as written.  A '%' ending the
			 * format stays a '%'. */
			while (start < fmt)
				out_char(&out, *start++);
			if (*fmt == '\0')
				continue;
			out_char(&out, *fmt);
			break;
		}
		fmt++;
	}
	va_end(args);

	if (size > 0)
		buf[out.len < size ? out.len : size - 1] = '\0';
	return (int)out.len;
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (size == 0)
		return 0;
	return (size_t)n < size ? n : (int)(size - 1);
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

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
