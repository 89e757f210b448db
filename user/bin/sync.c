// SPDX-License-Identifier: MIT
/* sync - write every dirty buffer out to its disk, and wait for it. */
#include <unistd.h>

int main(void)
{
	sync();
	return 0;
}
