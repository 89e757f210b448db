/* SPDX-License-Identifier: MIT */
/* Host fake RAM for the memory-management unit tests (host_kernel.c). */
#ifndef HOST_KERNEL_H
#define HOST_KERNEL_H

#include <stddef.h>

void host_mm_init(size_t bytes);
void host_mm_exit(void);
/* What "sleeping" does on the host: see host_kernel.c. */
extern void (*host_schedule_hook)(void);
/* ktime_get_ns() on the host: set it to move time. */
extern unsigned long long host_clock_ns;

#endif
