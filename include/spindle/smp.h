/* SPDX-License-Identifier: MIT */
/*
 * smp.h - how many CPUs there are (kernel/arch/x86/smpboot.c).
 *
 * Today the other CPUs are woken and counted, then parked with interrupts
 * off: all kernel and user code still runs on the boot CPU.
 */
#ifndef SPINDLE_SMP_H
#define SPINDLE_SMP_H

#define NR_CPUS 8 /* Linux's CONFIG_NR_CPUS: the most Spindle wakes */

/* CPUs that answered at boot, the boot CPU included (Linux's
 * num_online_cpus()) */
unsigned int num_online_cpus(void);

#endif /* SPINDLE_SMP_H */
