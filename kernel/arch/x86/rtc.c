// SPDX-License-Identifier: MIT
/*
 * rtc.c - the battery-backed clock of the PC (MC146818-compatible CMOS
 * RTC, ports 0x70/0x71), read once for CLOCK_REALTIME.
 *
 * Registers: seconds 0x00, minutes 0x02, hours 0x04, day 0x07, month
 * 0x08, year 0x09 (two digits; QEMU's century is 20xx), status A 0x0a
 * (bit 7: an update is in progress, the values may be torn), status B
 * 0x0b (bit 2: binary rather than BCD, bit 1: 24-hour mode).
 */
#include <spindle/types.h>
#include <spindle/time.h>
#include <asm/io.h>
#include <asm/cpu.h>
#include <spindle/spinlock.h>

static DEFINE_SPINLOCK(rtc_lock);

#define CMOS_INDEX      0x70
#define CMOS_DATA       0x71
#define RTC_SECONDS     0x00
#define RTC_MINUTES     0x02
#define RTC_HOURS       0x04
#define RTC_DAY         0x07
#define RTC_MONTH       0x08
#define RTC_YEAR        0x09
#define RTC_STATUS_A    0x0a
#define RTC_STATUS_B    0x0b
#define RTC_UIP         0x80    /* status A: update in progress */
#define RTC_BINARY      0x04    /* status B: values are binary, not BCD */
#define RTC_24H         0x02
#define RTC_PM          0x80    /* in the hours register, 12-hour mode */

static u8 cmos_read(u8 reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

static unsigned int bcd2bin(u8 v)
{
	return (v & 0x0f) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; the usual
 * "days from civil" arithmetic with March as the first month). */
static u64 days_from_civil(int y, unsigned int m, unsigned int d)
{
	unsigned int era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (u64)era * 146097 + doe - 719468;
}

/* Seconds since the Unix epoch, as the RTC says (UTC, as QEMU keeps it). */
u64 rtc_read_seconds(void)
{
	unsigned int sec, min, hour, day, mon, year;
	unsigned long flags;
	u8 b;
	bool pm;

	/* the index and data ports are one pair for all CPUs (Linux's rtc_lock) */
	spin_lock_irqsave(&rtc_lock, flags);
	while (cmos_read(RTC_STATUS_A) & RTC_UIP)
		cpu_relax();
	sec = cmos_read(RTC_SECONDS);
	min = cmos_read(RTC_MINUTES);
	hour = cmos_read(RTC_HOURS);
	day = cmos_read(RTC_DAY);
	mon = cmos_read(RTC_MONTH);
	year = cmos_read(RTC_YEAR);
	b = cmos_read(RTC_STATUS_B);
	spin_unlock_irqrestore(&rtc_lock, flags);

	pm = hour & RTC_PM;
	hour &= ~RTC_PM;
	if (!(b & RTC_BINARY)) {
		sec = bcd2bin(sec);
		min = bcd2bin(min);
		hour = bcd2bin(hour);
		day = bcd2bin(day);
		mon = bcd2bin(mon);
		year = bcd2bin(year);
	}
	if (!(b & RTC_24H))
		hour = hour % 12 + (pm ? 12 : 0);
	return days_from_civil(2000 + year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
}
