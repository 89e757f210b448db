// SPDX-License-Identifier: MIT
/*
 * VGA text mode (80x25 at physical 0xb8000): a mirror of the serial console
 * for whoever watches the QEMU window.  Each cell is a character byte and
 * an attribute byte; the screen scrolls up by one line when full.  The
 * hardware cursor is moved through the CRT controller (ports 0x3d4/0x3d5).
 */
#include <spindle/console.h>
#include <spindle/string.h>
#include <spindle/mm.h>
#include <asm/io.h>

#define VGA_PHYS        0xb8000
#define VGA_COLS        80
#define VGA_ROWS        25
#define VGA_ATTR        0x07        /* light grey on black */
#define CRTC_INDEX      0x3d4
#define CRTC_DATA       0x3d5
#define CRTC_CURSOR_HI  0x0e
#define CRTC_CURSOR_LO  0x0f

static volatile u16 *vga_buf;
static unsigned int vga_row, vga_col;

static void vga_scroll(void)
{
	for (int i = 0; i < (VGA_ROWS - 1) * VGA_COLS; i++)
		vga_buf[i] = vga_buf[i + VGA_COLS];
	for (int i = 0; i < VGA_COLS; i++)
		vga_buf[(VGA_ROWS - 1) * VGA_COLS + i] = (VGA_ATTR << 8) | ' ';
	vga_row = VGA_ROWS - 1;
}

static void vga_putc(char c)
{
	if (c == '\n') {
		vga_col = 0;
		vga_row++;
	} else if (c == '\r') {
		vga_col = 0;
	} else if (c == '\b') {
		if (vga_col)
			vga_col--;
	} else {
		vga_buf[vga_row * VGA_COLS + vga_col] = (VGA_ATTR << 8) | (u8)c;
		if (++vga_col == VGA_COLS) {
			vga_col = 0;
			vga_row++;
		}
	}
	if (vga_row == VGA_ROWS)
		vga_scroll();
}

static void vga_console_write(struct console *con, const char *s, size_t len)
{
	u16 pos;

	(void)con;
	while (len--)
		vga_putc(*s++);
	pos = vga_row * VGA_COLS + vga_col;
	outb(CRTC_INDEX, CRTC_CURSOR_HI);
	outb(CRTC_DATA, pos >> 8);
	outb(CRTC_INDEX, CRTC_CURSOR_LO);
	outb(CRTC_DATA, pos & 0xff);
}

static struct console vga_console = {
	.name = "tty0",
	.write = vga_console_write,
};

void vga_init(void)
{
	vga_buf = __va(VGA_PHYS);
	for (int i = 0; i < VGA_ROWS * VGA_COLS; i++)
		vga_buf[i] = (VGA_ATTR << 8) | ' ';
	vga_row = vga_col = 0;
	register_console(&vga_console);
}
