// SPDX-License-Identifier: MIT
/*
 * poweroff [STATUS] - sync the disks and turn the machine off.  On Spindle
 * the STATUS (default 0) becomes QEMU's verdict (docs/user.md, "Non-interactive runs").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/reboot.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;

	sync();
	spindle_reboot(LINUX_REBOOT_CMD_POWER_OFF, status);
	fprintf(stderr, "poweroff: %s\n", strerror(errno));
	return 1;
}
