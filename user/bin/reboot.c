// SPDX-License-Identifier: MIT
/* reboot - sync the disks and restart the machine. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/reboot.h>

int main(void)
{
	sync();
	reboot(LINUX_REBOOT_CMD_RESTART);
	fprintf(stderr, "reboot: %s\n", strerror(errno));
	return 1;
}
