/* SPDX-License-Identifier: MIT */
/*
 * sys/reboot.h - reboot(169).  The system call takes two magic numbers
 * first, so that a stray call cannot power the machine off.
 *
 * Spindle extension (docs/user.md): with LINUX_REBOOT_CMD_POWER_OFF the
 * fourth argument is an exit status, which the kernel hands to QEMU's
 * isa-debug-exit so a test run reports success or failure.  Linux
 * ignores that argument for POWER_OFF, so the same call works there.
 */
#ifndef _SYS_REBOOT_H
#define _SYS_REBOOT_H

#include <linux/reboot.h> /* the magic and commands: include/uapi/linux/reboot.h */

#define RB_AUTOBOOT   LINUX_REBOOT_CMD_RESTART
#define RB_HALT_SYSTEM LINUX_REBOOT_CMD_HALT
#define RB_POWER_OFF  LINUX_REBOOT_CMD_POWER_OFF

int reboot(int cmd);
int spindle_reboot(int cmd, int status);

#endif
