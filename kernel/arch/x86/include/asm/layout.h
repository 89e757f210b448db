/* SPDX-License-Identifier: MIT */
/*
 * The kernel's virtual memory layout (x86-64, 4-level paging, 48-bit).
 *
 *   0x0000000000000000 - 0x00007fffffffffff  user space (per process)
 *   0xffff888000000000 - ...                 direct map of all physical RAM
 *                                            (PAGE_OFFSET, as in Linux):
 *                                            __va(phys) = phys + PAGE_OFFSET
 *   0xffffc90000000000 - 0xffffe8ffffffffff  ioremap space: device registers
 *                                            mapped uncached (MMIO_BASE)
 *   0xffffe90000000000 - 0xffffe9ffffffffff  kernel stacks (KSTACK_BASE), each
 *                                            below an unmapped guard page, so
 *                                            an overflow faults instead of
 *                                            corrupting its neighbour
 *   0xffffffff80000000 - 0xffffffffbfffffff  the kernel image, linked here
 *                                            and loaded at physical 1 MiB
 *                                            (KERNEL_VMA, -mcmodel=kernel)
 *
 * Drivers turn a kernel virtual address into the physical address a DMA
 * engine needs with __pa(); that is why all RAM is direct-mapped.
 * This header is included from assembly too, so it holds only #defines.
 */
#ifndef ASM_LAYOUT_H
#define ASM_LAYOUT_H

#define KERNEL_VMA      0xffffffff80000000
#define KERNEL_PHYS     0x100000
#define PAGE_OFFSET     0xffff888000000000
#define MMIO_BASE       0xffffc90000000000
#define MMIO_END        0xffffe90000000000
#define KSTACK_BASE     0xffffe90000000000
#define KSTACK_SLOTS    4096        /* at most this many tasks at once */

#define BOOT_STACK_SIZE 16384

#endif /* ASM_LAYOUT_H */
