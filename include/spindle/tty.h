/* SPDX-License-Identifier: MIT */
/*
 * tty.h - what the console terminal (fs/tty.c) asks of the hardware under
 * it, as Linux's struct tty_operations: a driver fills in the table and
 * registers it; the tty calls nothing of the driver but through it, so a
 * second kind of console plugs in the same way.
 *
 *   the driver (drivers/char/serial.c, COM1):
 *     tty_register_driver(&my_tty_ops);   at its init, before device_initcall
 *     tty_insert_flip_char(c);            from its interrupt, each byte
 *                                         received, once startup() has run
 *   the tty (fs/tty.c):
 *     ops->startup() at its init; the other ops from its ioctls.
 *
 * Output is not here: what the tty writes goes to every console
 * (console_write_raw, include/spindle/console.h), the screen's mirror
 * included, as the kernel's own messages do.
 */
#ifndef SPINDLE_TTY_H
#define SPINDLE_TTY_H

#include <spindle/types.h>

struct tty_operations {
	const char *name;               /* "ttyS0" */
	/* Start delivering received bytes with tty_insert_flip_char()
	 * (Linux's uart startup(): the receive interrupt on).  0 or -errno.
	 * May sleep. */
	int (*startup)(void);
	/* Send c ahead of any output: TCIOFF's STOP and TCION's START
	 * (Linux's send_xchar).  Does not sleep. */
	void (*send_xchar)(char c);
	/* Return once every byte written has left the hardware: tcdrain()
	 * (Linux's wait_until_sent).  Does not sleep (it polls). */
	void (*wait_until_sent)(void);
	/* Hold the line in a break (on), or end it; the tty times it
	 * (Linux's break_ctl).  Does not sleep. */
	void (*break_ctl)(bool on);
};

/* The console tty's driver: the last one registered.  Does not sleep. */
void tty_register_driver(const struct tty_operations *ops);
/* One byte received, from the driver's interrupt (or any context): into
 * the tty's raw ring, for its thread to edit and echo.  Does not sleep. */
void tty_insert_flip_char(char c);

#endif /* SPINDLE_TTY_H */
