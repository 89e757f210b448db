/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/reboot.h - reboot(2)'s magic numbers and commands, Linux's
 * values: the one list the kernel (include/spindle/syscalls.h) and the C
 * library (user/include/sys/reboot.h) both include.  The two magic
 * numbers come first in every call, so that a stray one cannot stop the
 * machine.
 */
#ifndef _UAPI_LINUX_REBOOT_H
#define _UAPI_LINUX_REBOOT_H

#define LINUX_REBOOT_MAGIC1         0xfee1dead
#define LINUX_REBOOT_MAGIC2         672274793
#define LINUX_REBOOT_MAGIC2A        85072278
#define LINUX_REBOOT_MAGIC2B        369367448
#define LINUX_REBOOT_MAGIC2C        537993216

#define LINUX_REBOOT_CMD_RESTART    0x01234567
#define LINUX_REBOOT_CMD_HALT       0xcdef0123
#define LINUX_REBOOT_CMD_POWER_OFF  0x4321fedc
#define LINUX_REBOOT_CMD_CAD_ON     0x89abcdef
#define LINUX_REBOOT_CMD_CAD_OFF    0x00000000

#endif /* _UAPI_LINUX_REBOOT_H */
