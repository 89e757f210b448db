/* SPDX-License-Identifier: MIT */
/*
 * threads.h - how many CPUs Spindle can use (Linux's linux/threads.h).
 */
#ifndef SPINDLE_THREADS_H
#define SPINDLE_THREADS_H

#define NR_CPUS 8 /* Linux's CONFIG_NR_CPUS: the most Spindle wakes */

#endif /* SPINDLE_THREADS_H */
