// SPDX-License-Identifier: MIT
/*
 * 16550 UART on COM1 (I/O base 0x3f8): the primary console.
 *
 * The test harness and `make qemu` both read the kernel through this port,
 * so it is set up before anything else can print.  Output is polled: wait
 * for the transmit holding register to empty (LSR.THRE), write a byte.
 * A "\n" is sent as "\r\n" so that terminals start a new line.
 * COM1 is also the console tty's hardware: serial_init() registers its
 * struct tty_operations (include/spindle/tty.h) -- input by interrupt
 * once the tty starts it, the drain, the break, the flow characters.
 * Registers: PC16550D data sheet, table II.
 */
#include <spindle/console.h>
#include <spindle/tty.h>
#include <spindle/irq.h>
#include <asm/io.h>

#define COM1            0x3f8
#define UART_RBR(b)     ((b) + 0)   /* receive buffer (DLAB=0, read) */
#define UART_THR(b)     ((b) + 0)   /* transmit holding (DLAB=0, write) */
#define UART_DLL(b)     ((b) + 0)   /* divisor latch low (DLAB=1) */
#define UART_IER(b)     ((b) + 1)   /* interrupt enable (DLAB=0) */
#define UART_DLM(b)     ((b) + 1)   /* divisor latch high (DLAB=1) */
#define UART_IIR(b)     ((b) + 2)   /* interrupt identification (read) */
#define UART_FCR(b)     ((b) + 2)   /* FIFO control (write) */
#define UART_LCR(b)     ((b) + 3)   /* line control */
#define UART_MCR(b)     ((b) + 4)   /* modem control */
#define UART_LSR(b)     ((b) + 5)   /* line status */

#define LCR_8N1         0x03        /* 8 data bits, no parity, 1 stop bit */
#define LCR_SBC         0x40        /* set break: hold TX at space (0) */
#define LCR_DLAB        0x80        /* divisor latch access */
#define FCR_ENABLE      0x07        /* enable FIFOs, clear both */
#define MCR_DTR_RTS_OUT2 0x0b       /* OUT2 gates the IRQ line on PCs */
#define LSR_DR          0x01        /* data ready */
#define LSR_THRE        0x20        /* transmit holding register empty */
#define LSR_TEMT        0x40        /* THR and the shift register both empty */
#define IER_RDI         0x01        /* interrupt when received data is available */
#define IIR_NO_INT      0x01        /* no interrupt pending */
#define COM1_IRQ        4           /* ISA IRQ of COM1 */

#define UART_CLOCK      115200      /* divisor 1 = 115200 baud */
#define BAUD            115200

static void serial_console_write(struct console *con, const char *s, size_t len)
{
	(void)con;
	while (len--)
		serial_putc(*s++);
}

static struct console serial_console = {
	.name = "ttyS0",
	.write = serial_console_write,
};

void serial_putc(char c)
{
	if (c == '\n')
		serial_putc('\r');
	while (!(inb(UART_LSR(COM1)) & LSR_THRE))
		;
	outb(UART_THR(COM1), (u8)c);
}

int serial_getc(void)
{
	if (!(inb(UART_LSR(COM1)) & LSR_DR))
		return -1;
	return inb(UART_RBR(COM1));
}

/*
 * tcdrain() on the console (Linux's uart_wait_until_sent): serial_putc
 * returns once its byte is in the transmitter, which then still takes
 * ~87 us at 115200 baud to shift it out; wait until it has (LSR.TEMT).
 */
static void serial_wait_until_sent(void)
{
	while (!(inb(UART_LSR(COM1)) & LSR_TEMT))
		;
}

/*
 * A break (tcsendbreak(), Linux's serial8250_break_ctl): while LCR.SBC is
 * set the line is held at space, which the far end sees as a break
 * condition rather than bytes.  The caller times it; LCR's other bits
 * (8N1) are kept.
 */
static void serial_break_ctl(bool on)
{
	u8 lcr = inb(UART_LCR(COM1));

	outb(UART_LCR(COM1), on ? lcr | LCR_SBC : lcr & ~LCR_SBC);
}

/*
 * Input by interrupt (the console tty, fs/tty.c): each received byte is
 * handed to tty_insert_flip_char().  Reading RBR until LSR.DR clears
 * empties the FIFO and acknowledges the interrupt (PC16550D: "received
 * data available" is cleared by reading the receiver buffer).
 */
static irqreturn_t serial_interrupt(int irq, void *dev_id)
{
	int c;

	(void)irq; (void)dev_id;
	/*
	 * Ours if the UART says an interrupt is pending.  With the FIFO on,
	 * that may be the "character timeout" one whose bytes an earlier
	 * interrupt already took: still ours, handled by reading IIR.
	 */
	if (inb(UART_IIR(COM1)) & IIR_NO_INT)
		return IRQ_NONE;
	while ((c = serial_getc()) >= 0)
		tty_insert_flip_char((char)c);
	return IRQ_HANDLED;
}

/* The tty's startup (Linux's uart startup()): input by interrupt from now. */
static int serial_startup(void)
{
	int err = request_irq(COM1_IRQ, serial_interrupt, 0, "ttyS0", &serial_console);

	if (err)
		return err;
	outb(UART_IER(COM1), IER_RDI);
	return 0;
}

/* TCIOFF's STOP, TCION's START: the THR is the only queue, so a byte
 * written now goes ahead of everything not yet written. */
static void serial_send_xchar(char c)
{
	serial_putc(c);
}

/* COM1 as the console tty's hardware (include/spindle/tty.h). */
static const struct tty_operations serial_tty_ops = {
	.name = "ttyS0",
	.startup = serial_startup,
	.send_xchar = serial_send_xchar,
	.wait_until_sent = serial_wait_until_sent,
	.break_ctl = serial_break_ctl,
};

void serial_init(void)
{
	u16 div = UART_CLOCK / BAUD;

	outb(UART_IER(COM1), 0);                /* polled until the tty's startup */
	outb(UART_LCR(COM1), LCR_DLAB);
	outb(UART_DLL(COM1), div & 0xff);
	outb(UART_DLM(COM1), div >> 8);
	outb(UART_LCR(COM1), LCR_8N1);
	outb(UART_FCR(COM1), FCR_ENABLE);
	outb(UART_MCR(COM1), MCR_DTR_RTS_OUT2);
	register_console(&serial_console);
	tty_register_driver(&serial_tty_ops);
}
