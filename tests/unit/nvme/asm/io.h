/* SPDX-License-Identifier: MIT */
/*
 * asm/io.h for drivers/nvme/host/ring.c compiled on the host: the MMIO
 * store and the device barriers go to the model controller of
 * tests/unit/check_nvme_ring.c instead of the hardware.  The unit build
 * forces it in before ring.c's own includes (tests/unit/unit.mk), so
 * these win over include/spindle/barrier.h's and the kernel's asm/io.h.
 *
 *   writel(v, a)   a store to BAR 0: the model decodes the doorbell
 *   wmb()          the model's view of the SQ catches up with memory
 *   rmb(), dma_rmb()  the host's view of the CQ catches up with the
 *                  entries the controller finished writing
 */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <spindle/types.h>

void writel(u32 v, volatile void *addr);
u32 readl(const volatile void *addr);
void nvme_model_wmb(void);
void nvme_model_rmb(void);

#undef wmb
#undef rmb
#undef dma_rmb
#define wmb()     nvme_model_wmb()
#define rmb()     nvme_model_rmb()
#define dma_rmb() nvme_model_rmb()

#endif /* ASM_IO_H */
