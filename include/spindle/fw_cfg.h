/* SPDX-License-Identifier: MIT */
/*
 * QEMU's firmware configuration device (fw_cfg): named files the host puts
 * in the guest with `-fw_cfg name=opt/...,file=PATH|string=...`.
 * Tests use opt/spindle/cmdline to pass kernel options without rebuilding
 * the ISO.
 */
#ifndef SPINDLE_FW_CFG_H
#define SPINDLE_FW_CFG_H

#include <spindle/types.h>

/* True when the fw_cfg device answers with its "QEMU" signature. */
bool fw_cfg_present(void);
/*
 * Copy the file `name` into buf (at most size bytes).  Returns the file's
 * full length (which may exceed size: the copy is then truncated), or
 * -ENOENT when there is no such file or no fw_cfg device.
 */
long fw_cfg_read_file(const char *name, void *buf, size_t size);

#endif /* SPINDLE_FW_CFG_H */
