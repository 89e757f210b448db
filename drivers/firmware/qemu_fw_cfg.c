// SPDX-License-Identifier: MIT
/*
 * QEMU fw_cfg, the port I/O interface (QEMU's docs/specs/fw_cfg.txt).
 *
 * Write a 16-bit key to the selector port, then read the item's bytes one
 * at a time from the data port.  Key 0x0000 holds the signature "QEMU";
 * key 0x0019 holds the file directory: a big-endian u32 count, then per
 * file {be32 size, be16 select, u16 reserved, char name[56]}.  Selecting a
 * key rewinds it to offset 0.  Used only at boot, single-threaded.
 */
#include <spindle/fw_cfg.h>
#include <spindle/compiler.h>
#include <spindle/string.h>
#include <spindle/errno.h>
#include <asm/io.h>

#define FW_CFG_PORT_SEL     0x510
#define FW_CFG_PORT_DATA    0x511
#define FW_CFG_SIGNATURE    0x0000
#define FW_CFG_FILE_DIR     0x0019
#define FW_CFG_NAME_LEN     56

struct fw_cfg_file {
	u32 size;               /* big-endian */
	u16 select;             /* big-endian */
	u16 reserved;
	char name[FW_CFG_NAME_LEN];
} __packed;

static void fw_cfg_select(u16 key)
{
	outw(FW_CFG_PORT_SEL, key);
}

static void fw_cfg_read(void *buf, size_t len)
{
	u8 *p = buf;

	while (len--)
		*p++ = inb(FW_CFG_PORT_DATA);
}

static u32 be32(u32 v) { return __builtin_bswap32(v); }
static u16 be16(u16 v) { return __builtin_bswap16(v); }

bool fw_cfg_present(void)
{
	char sig[4];

	fw_cfg_select(FW_CFG_SIGNATURE);
	fw_cfg_read(sig, sizeof(sig));
	return memcmp(sig, "QEMU", 4) == 0;
}

long fw_cfg_read_file(const char *name, void *buf, size_t size)
{
	struct fw_cfg_file f;
	u32 count;

	if (!fw_cfg_present())
		return -ENOENT;
	fw_cfg_select(FW_CFG_FILE_DIR);
	fw_cfg_read(&count, sizeof(count));
	count = be32(count);
	for (u32 i = 0; i < count; i++) {
		fw_cfg_read(&f, sizeof(f));
		f.name[FW_CFG_NAME_LEN - 1] = '\0';
		if (strcmp(f.name, name) != 0)
			continue;
		fw_cfg_select(be16(f.select));
		fw_cfg_read(buf, min((size_t)be32(f.size), size));
		return be32(f.size);
	}
	return -ENOENT;
}
