/* SPDX-License-Identifier: MIT */
/*
 * Consoles: where printk() output goes.
 *
 * A console is a write function with a name.  The 16550 UART on COM1 is
 * registered first (the test harness reads it); the VGA text screen mirrors
 * it.  write() is called with interrupts disabled and must not sleep.
 */
#ifndef SPINDLE_CONSOLE_H
#define SPINDLE_CONSOLE_H

#include <spindle/types.h>

struct console {
	const char *name;
	void (*write)(struct console *con, const char *s, size_t len);
	struct console *next;
};

void register_console(struct console *con);
/* Take con off the list: printk() no longer calls it once this returns
 * (a test that read the log through a console of its own). */
void unregister_console(struct console *con);
/* Write to every console as is: no timestamp, no loglevel (the console
 * tty's output, fs/tty.c).  Does not sleep. */
void console_write_raw(const char *s, size_t len);

/* drivers/char/serial.c (which also registers COM1 as the console tty's
 * driver, include/spindle/tty.h) and vga.c */
void serial_init(void);
void serial_putc(char c);
int serial_getc(void);          /* -1 when no character is waiting */
void vga_init(void);

#endif /* SPINDLE_CONSOLE_H */
