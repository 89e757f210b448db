// SPDX-License-Identifier: MIT
/*
 * The kernel's copy routines, the very assembly it runs
 * (kernel/arch/x86/memcpy.S, usercopy.S), on the host: memcpy, memset,
 * __copy_user and __clear_user, in both of their forms (x86_erms = 1:
 * one `rep movsb`; 0: `rep movsq` and a byte tail), for every alignment
 * of source and destination within 16 bytes and every length class --
 * 0, below a quadword, around quadword and page multiples, large.  Each
 * result is checked byte by byte, with guard bytes on both sides that
 * must stay as they were.  (A fault part way through a user copy needs
 * the kernel's page tables: the QEMU scenarios check that, e.g. reads into
 * a buffer with an unmapped page.)
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/types.h>

void *arch_memcpy(void *dst, const void *src, size_t n);
void *arch_memset(void *s, int c, size_t n);
unsigned long __copy_user(void *to, const void *from, unsigned long n);
unsigned long __clear_user(void *to, unsigned long n);
extern bool x86_erms;
bool x86_smap_enabled;          /* usercopy.S asks; the host has no SMAP */

#define GUARD   64
#define MAXLEN  (3 * 4096 + 40)
#define GUARD_BYTE 0xa5

static unsigned char src[MAXLEN + 2 * GUARD], dst[MAXLEN + 2 * GUARD];

static const size_t lengths[] = {
	0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 256, 511, 512,
	4095, 4096, 4097, 8191, 8192, 3 * 4096 + 31, MAXLEN,
};

static void fill(void)
{
	for (size_t i = 0; i < sizeof(src); i++) {
		src[i] = (unsigned char)(i * 131 + 7);
		dst[i] = GUARD_BYTE;
	}
}

/*
 * dst[GUARD + doff, + n) must be want[] (or c, without want), every other
 * byte the guard.  (One assertion per call: Check logs each one it makes.)
 */
static void check_dst(size_t doff, size_t n, const unsigned char *want, int c, const char *what)
{
	size_t i;
	unsigned char expect = 0;

	for (i = 0; i < sizeof(dst); i++) {
		bool inside = i >= GUARD + doff && i < GUARD + doff + n;

		expect = !inside ? GUARD_BYTE : want ? want[i - GUARD - doff] : (unsigned char)c;
		if (dst[i] != expect)
			break;
	}
	ck_assert_msg(i == sizeof(dst), "%s: erms %d, dst+%zu, len %zu: byte %zu is %#x, not %#x",
		      what, x86_erms, doff, n, i, i < sizeof(dst) ? dst[i] : 0, expect);
}

/* _i: erms (0, 1) x length */
START_TEST(memcpy_every_alignment)
{
	size_t n = lengths[_i % ARRAY_SIZE(lengths)];

	x86_erms = _i / ARRAY_SIZE(lengths);
	for (size_t soff = 0; soff < 16; soff++)
		for (size_t doff = 0; doff < 16; doff++) {
			fill();
			ck_assert_ptr_eq(arch_memcpy(dst + GUARD + doff, src + GUARD + soff, n),
					 dst + GUARD + doff);
			check_dst(doff, n, src + GUARD + soff, 0, "memcpy");
		}
}
END_TEST

START_TEST(memset_every_alignment)
{
	static const int values[] = { 0, 0xff, 0x5a, 0x1234 /* only the low byte counts */ };
	size_t n = lengths[_i % ARRAY_SIZE(lengths)];

	x86_erms = _i / ARRAY_SIZE(lengths);
	for (size_t v = 0; v < ARRAY_SIZE(values); v++)
		for (size_t doff = 0; doff < 16; doff++) {
			fill();
			ck_assert_ptr_eq(arch_memset(dst + GUARD + doff, values[v], n), dst + GUARD + doff);
			check_dst(doff, n, NULL, values[v] & 0xff, "memset");
		}
}
END_TEST

START_TEST(copy_user_every_alignment)
{
	size_t n = lengths[_i % ARRAY_SIZE(lengths)];

	x86_erms = _i / ARRAY_SIZE(lengths);
	for (size_t soff = 0; soff < 16; soff++)
		for (size_t doff = 0; doff < 16; doff += 3) {
			fill();
			ck_assert_uint_eq(__copy_user(dst + GUARD + doff, src + GUARD + soff, n), 0);
			check_dst(doff, n, src + GUARD + soff, 0, "__copy_user");
			fill();
			ck_assert_uint_eq(__clear_user(dst + GUARD + doff, n), 0);
			check_dst(doff, n, NULL, 0, "__clear_user");
		}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("memcpy");
	TCase *core = tcase_create("Core");

	tcase_add_loop_test(core, memcpy_every_alignment, 0, 2 * ARRAY_SIZE(lengths));
	tcase_add_loop_test(core, memset_every_alignment, 0, 2 * ARRAY_SIZE(lengths));
	tcase_add_loop_test(core, copy_user_every_alignment, 0, 2 * ARRAY_SIZE(lengths));
	suite_add_tcase(s, core);
	return s;
}
