// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/crc32.c.
 *
 * "Core": the published check values of CRC-32/IEEE (the "123456789"
 * value every CRC catalogue lists, and a few well-known strings), and
 * feeding a buffer in pieces.  "Limits": the nibble-table code against the
 * bit-at-a-time definition written out here, over random buffers of every
 * length up to a few sectors and every starting CRC class.
 *
 * The same for CRC-32C (__crc32c_le, the jbd2 journal's checksum): the
 * catalogue value and RFC 3720's (iSCSI) test patterns, and the bitwise
 * definition with Castagnoli's polynomial.
 */
#include <check.h>
#include <spindle/compiler.h>
#include <spindle/crc32.h>

/* The definition (see lib/crc32.c): one bit per step.  The oracle. */
static u32 crc_bitwise(u32 poly, u32 crc, const u8 *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ poly : crc >> 1;
	}
	return crc;
}

static u32 crc32_bitwise(u32 crc, const u8 *p, size_t len)
{
	return crc_bitwise(CRC32_POLY_LE, crc, p, len);
}

static u64 rng_state;

static u32 rng_next(void)
{
	/* xorshift64: deterministic, so a failure repeats. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (u32)(rng_state >> 16);
}

/* Core ------------------------------------------------------------------ */

static const struct {
	const char *text;
	u32 crc;
} known[] = {
	{ "", 0x00000000 },
	{ "a", 0xe8b7be43 },
	{ "abc", 0x352441c2 },
	{ "123456789", 0xcbf43926 },    /* the catalogue "check" value */
	{ "The quick brown fox jumps over the lazy dog", 0x414fa339 },
};

START_TEST(known_values)
{
	const char *t = known[_i].text;
	size_t len = 0;

	while (t[len])
		len++;
	ck_assert_msg(efi_crc32(t, len) == known[_i].crc,
		      "efi_crc32(\"%s\") = %#x, want %#x", t,
		      efi_crc32(t, len), known[_i].crc);
}
END_TEST

START_TEST(pieces_chain)
{
	const char *t = "123456789";

	/* Every split point gives the CRC of the whole. */
	for (size_t cut = 0; cut <= 9; cut++) {
		u32 crc = crc32_le(~0u, t, cut);

		crc = crc32_le(crc, t + cut, 9 - cut);
		ck_assert_uint_eq(crc ^ ~0u, 0xcbf43926);
	}
	/* No inversion inside crc32_le: a zero CRC over zero bytes stays zero. */
	ck_assert_uint_eq(crc32_le(0, "\0\0\0\0", 4), 0);
}
END_TEST

/* CRC-32C, started from all ones and inverted at the end, as iSCSI
 * stores it: RFC 3720 B.4's patterns of 32 bytes and the catalogue value. */
static u8 rfc3720_pattern[4][32];

static const struct {
	const char *name;
	int pattern; /* -1: text */
	const char *text;
	u32 crc;
} known_c[] = {
	{ "empty", -1, "", 0x00000000 },
	{ "a", -1, "a", 0xc1d04330 },
	{ "123456789", -1, "123456789", 0xe3069283 },
	{ "32 zeros", 0, NULL, 0x8a9136aa },
	{ "32 0xff", 1, NULL, 0x62a8ab43 },
	{ "0..31", 2, NULL, 0x46dd794e },
	{ "31..0", 3, NULL, 0x113fdb5c },
};

START_TEST(crc32c_known_values)
{
	const u8 *p;
	size_t len = 32;

	for (int i = 0; i < 32; i++) {
		rfc3720_pattern[0][i] = 0;
		rfc3720_pattern[1][i] = 0xff;
		rfc3720_pattern[2][i] = (u8)i;
		rfc3720_pattern[3][i] = (u8)(31 - i);
	}
	if (known_c[_i].pattern < 0) {
		p = (const u8 *)known_c[_i].text;
		for (len = 0; p[len];)
			len++;
	} else {
		p = rfc3720_pattern[known_c[_i].pattern];
	}
	ck_assert_msg((__crc32c_le(~0u, p, len) ^ ~0u) == known_c[_i].crc,
		      "crc32c(%s) = %#x, want %#x", known_c[_i].name,
		      __crc32c_le(~0u, p, len) ^ ~0u, known_c[_i].crc);
}
END_TEST

/* Limits ---------------------------------------------------------------- */

#define MAX_LEN 1100            /* a little over two sectors */

START_TEST(matches_bitwise)
{
	static u8 buf[MAX_LEN];
	static const u32 seeds[] = { 0, ~0u, 0x80000000u, 1, 0x12345678u };

	rng_state = 0x9e3779b97f4a7c15ull + _i;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)rng_next();
	for (size_t len = 0; len <= MAX_LEN; len++) {
		u32 seed = seeds[len % ARRAY_SIZE(seeds)];

		ck_assert_msg(crc32_le(seed, buf, len) == crc32_bitwise(seed, buf, len),
			      "len %zu seed %#x", len, seed);
		ck_assert_msg(__crc32c_le(seed, buf, len) ==
				      crc_bitwise(CRC32C_POLY_LE, seed, buf, len),
			      "crc32c: len %zu seed %#x", len, seed);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("CRC32");
	TCase *core = tcase_create("Core");
	TCase *limits = tcase_create("Limits");

	tcase_add_loop_test(core, known_values, 0, ARRAY_SIZE(known));
	tcase_add_test(core, pieces_chain);
	tcase_add_loop_test(core, crc32c_known_values, 0, ARRAY_SIZE(known_c));
	suite_add_tcase(s, core);

	tcase_add_loop_test(limits, matches_bitwise, 0, 4);
	suite_add_tcase(s, limits);
	return s;
}
