/* SPDX-License-Identifier: MIT */
/*
 * Human-readable names for PCI devices, private to drivers/pci.
 *
 * The boot listing prints each function the way `lspci -nn` does, so a
 * student can diff Spindle's view of the machine against a Linux guest's:
 *
 *   00:1f.2 SATA controller [0106]: Intel Corporation 82801IR/IO/IH ... [8086:2922] (rev 02)
 *
 * The names come from small tables in pci_names.c (the class codes, and
 * the devices QEMU's pc and q35 machines carry), not from the full pci.ids
 * database; a device missing from them prints as lspci prints one missing
 * from pci.ids ("Intel Corporation Device [8086:1234]", "Device [1234:1111]").
 */
#ifndef DRIVERS_PCI_NAMES_H
#define DRIVERS_PCI_NAMES_H

#include <spindle/pci.h>

/* Write dev's `lspci -nn` line (without a newline) into buf. */
void pci_format_lspci(const struct pci_dev *dev, char *buf, size_t size);

/* The name lspci -v gives a capability ID (PCI_CAP_ID_*), or NULL. */
const char *pci_cap_name(u8 cap_id);

#endif /* DRIVERS_PCI_NAMES_H */
