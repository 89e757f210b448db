/* SPDX-License-Identifier: MIT */
/*
 * uapi/linux/sysinfo.h - struct sysinfo, what sysinfo(2) answers, in
 * Linux's x86-64 layout (112 bytes): uptime, load, memory in units of
 * mem_unit bytes, and the number of processes.  busybox's ls, free, top
 * and uptime ask for it.
 */
#ifndef _UAPI_LINUX_SYSINFO_H
#define _UAPI_LINUX_SYSINFO_H

#define SI_LOAD_SHIFT 16                /* loads[] are fixed point, 1 << 16 = 1.0 */

struct sysinfo {
	long uptime;                    /* seconds since boot */
	unsigned long loads[3];         /* 1, 5 and 15 minute load averages */
	unsigned long totalram;
	unsigned long freeram;
	unsigned long sharedram;
	unsigned long bufferram;
	unsigned long totalswap;
	unsigned long freeswap;
	unsigned short procs;
	unsigned short pad;
	unsigned long totalhigh;
	unsigned long freehigh;
	unsigned int mem_unit;          /* the memory fields count in these bytes */
	char _f[20 - 2 * sizeof(unsigned long) - sizeof(unsigned int)];
};

#endif
