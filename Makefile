# SPDX-License-Identifier: MIT
# Spindle - a small x86-64 teaching kernel about the disk I/O path.
#
#   make            build build/spindle.iso (GRUB + multiboot2 kernel)
#   make qemu       boot it in QEMU, serial console on this terminal
#                   (Ctrl-A X quits); ARGS='opt=val ...' adds kernel options;
#                   NVME=1 adds an NVMe disk (nvme0n1)
#   make qemu-gdb   the same, halted, with a GDB stub on :$(GDBPORT);
#                   then `make gdb` in another terminal (.gdbinit and the
#                   sp-* commands of tools/gdb/, docs/debugging.md)
#   make check      host unit tests (Check), the user programs' tests and
#                   the benchmark tools' parsers and the graders' failure
#                   lines (check-tools)
#   make check-asan the host unit tests under AddressSanitizer and UBSan
#   make fuzz       the parsers of outside data under libFuzzer, 180 s each
#                   (FUZZ_SECONDS=, FUZZ_TARGETS=); make fuzz-smoke: 8 s each
#   make user       the user programs (user/user.mk); make initramfs: their cpio
#   make test       make check, then every QEMU scenario in tests/qemu/,
#                   make test-own, then the GDB helpers' tests (make test-gdb)
#   make test-qemu KARGS='opt=val ...'  the scenarios with extra kernel options
#                   (QJOBS=2 guests at once; QJOBS=1: one by one)
#   make test-own   the USERLAND=own image (no busybox, build/own) boots to
#                   Spindle's sh and runs the scenarios of tests/qemu/own/
#   make test-debug every scenario with slab_debug=1 page_poison=1 lockdep=1, on 4 CPUs
#   make deps       install the Debian packages the build needs (as root)
#   make lab N=3 DIR=<path>   write a student's tree for lab 3 (labs/)
#   make grade      grade this tree's lab, or LAB=<n> (every lab in main)
#   make test-labs  every lab's skeleton: builds, fails only its own lab;
#                   every lab's mutants (wrong solutions): each loses points
#   make replay R=<dir>   run a recorded scenario again, exactly
#   make soak MINUTES=10  every disk kind at once under a checked load, the
#                   memory compared before and after (MINUTES=1: the CI run)
#   make soak-forkbomb  the fork bomb, 200 rounds (tests/qemu/soak/)
#   make stress N=20  the QEMU suite N times, 4 guests at once; verdicts
#                   tallied per scenario (T=, LOAD=, DEBUG=1: tools/stress.py)
#   make fault-matrix  read/write/flush errors on AHCI, IDE and NVMe, raw, dm-linear,
#                   dm-raid1 and ext2, once and sticky (SHORT=1: the CI subset)
#   make powercut N=50  cut the power N times under a writing guest; no
#                   write it was told is durable may be lost (FS=ext2:
#                   fsynced files on ext2, e2fsck -fy then debugfs; FS=ext3:
#                   name-space changes on ext3 over a disk whose cache the
#                   cut loses, barrier=1 and barrier=0 side by side, BARRIER=)
#   make ext3-linux Linux 6.1 replays a journal Spindle's ext3 left after a
#                   cut, Spindle replays one Linux left (tools/ext3-linux.py)
#   make jimages    e2fsprogs' journal test images replayed by Spindle's
#                   recovery on the host, compared with e2fsck's replay
#   make tools-linux lsblk, blkid, findmnt, sfdisk -g on Spindle and Linux 6.1,
#                   the same machine and disks, outputs diffed (M=q35|pc)
#   make jcost      the blocks and flushes each ext3 operation costs on the
#                   disk, Spindle against Linux 6.1 (tools/jcost.py)
#   make perf       instructions per I/O (under -icount) and IOPS, MB/s
#                   (docs/performance.md; RUNS=<n> wall-clock boots)
#   make perf-linux the same workloads on Debian's Linux + fio, side by
#                   side with Spindle's, NVMe's rows (counted by a QEMU
#                   plugin, tools/insncount/), and fio on both kernels
#                   (tools/compare-linux, RUNS=<n>)
#   make check-insncount  that plugin against QEMU's -icount clock on
#                   null_blk, where the two must agree
#   make perf-scaling  IOPS against 1, 2 and 4 CPUs, Spindle and Linux,
#                   null_blk under multi-threaded TCG (tools/scaling.py,
#                   RUNS=<n>, PNG=<file>)
#   make perf-ext2  a 64 MiB ext2 file written, synced and read back cold
#                   on AHCI and IDE: request counts and sizes from the block
#                   trace, MB/s under -icount, bench on the file (docs/fs.md)
#   make compile_commands.json   the compilation database for clangd and
#                   other editors' tools (bear, on a build of its own)
#   make format-check  clang-format on the lines changed since main
#   make lint       the tree's includes and named paths, then gcc -fanalyzer
#                   and cppcheck over the kernel (tools/lint/)

K       := kernel
A       := kernel/arch/x86
B       := block
KT      := tests/kernel
D       := drivers
BUILD   ?= build

CC      := gcc
LD      := ld
NM      := nm
OBJCOPY := objcopy
QEMU    ?= qemu-system-x86_64
PYTHON  ?= python3

CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Werror \
           -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns \
           -mno-red-zone -mno-sse -mno-sse2 -mno-mmx -mno-80387 \
           -mcmodel=kernel -fno-pic -fno-pie -fno-stack-protector \
           -fno-omit-frame-pointer -fno-optimize-sibling-calls \
           -fno-asynchronous-unwind-tables -fcf-protection=none \
           -Iinclude -I$(A)/include -I$(BUILD)/include -MMD -MP
ASFLAGS := -g -Iinclude -I$(A)/include -MMD -MP
LDFLAGS := -nostdlib -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments

# Boot, CPU and platform (the only code that knows it is on x86).
ARCH_OBJS := \
	$(A)/boot.o \
	$(A)/entry.o \
	$(A)/switch.o \
	$(A)/gdt.o \
	$(A)/cpu.o \
	$(A)/traps.o \
	$(A)/multiboot.o \
	$(A)/paging.o \
	$(A)/acpi.o \
	$(A)/apic.o \
	$(A)/irq.o \
	$(A)/time.o \
	$(A)/uaccess.o \
	$(A)/usercopy.o \
	$(A)/memcpy.o \
	$(A)/syscall.o \
	$(A)/process.o \
	$(A)/rtc.o \
	$(A)/smpboot.o \
	$(A)/setup_percpu.o \
	$(A)/trampoline.o

# The vDSO (kernel/arch/x86/vdso/): its mapping, and its image, built below.
ARCH_OBJS += \
	$(A)/vdso/vma.o \
	$(A)/vdso/vdso-image.o

# Core kernel services.
KERNEL_OBJS := \
	$(K)/main.o \
	$(K)/printk.o \
	$(K)/profile.o \
	$(K)/cmdline.o \
	$(K)/ksyms.o \
	$(K)/ktest.o \
	$(K)/mm/page_alloc.o \
	$(K)/mm/slab.o \
	$(K)/mm/dma.o \
	$(K)/sched/core.o \
	$(K)/sched/cputime.o \
	$(K)/sched/wait.o \
	$(K)/sched/mutex.o \
	$(K)/sched/completion.o \
	$(K)/sched/debug.o \
	$(K)/sched/lockdep.o \
	$(K)/hung_task.o \
	$(K)/mm/mempool.o \
	$(K)/timer.o \
	$(K)/smp.o \
	$(K)/watchdog.o \
	$(K)/version.o

# Processes and system calls (docs/processes.md).
KERNEL_OBJS += \
	$(K)/mm/mmap.o \
	$(K)/fork.o \
	$(K)/exec.o \
	$(K)/elf_check.o \
	$(K)/exit.o \
	$(K)/signal.o \
	$(K)/itimer.o \
	$(K)/futex.o \
	$(K)/sys.o \
	ipc/shm.o

# In-kernel test suites (run with test=<suite>), and their helpers.
KTEST_OBJS := \
	$(KT)/boot_test.o \
	$(KT)/mm_test.o \
	$(KT)/sched_test.o \
	$(KT)/time_test.o \
	$(KT)/pci_test.o \
	$(KT)/block_test.o \
	$(KT)/hung_task_test.o \
	$(KT)/plug_test.o \
	$(KT)/dm_test.o \
	$(KT)/ata_test.o \
	$(KT)/ahci_test.o \
	$(KT)/nvme_test.o \
	$(KT)/user_test.o \
	$(KT)/user/embed.o \
	$(KT)/fs_test.o \
	$(KT)/debug_test.o \
	$(KT)/ktest_block.o \
	$(KT)/ktest_sched.o \
	$(KT)/smp_test.o \
	$(KT)/smp_mm_test.o \
	$(KT)/smp_block_test.o \
	$(KT)/mq_test.o

# The block layer: bios, the plug, the request layer and its elevators.
BLOCK_OBJS := \
	$(B)/bio.o \
	$(B)/blk-core.o \
	$(B)/blk-plug.o \
	$(B)/blk-mq.o \
	$(B)/blk-flush.o \
	$(B)/blk-bench.o \
	$(B)/blk-trace.o \
	$(B)/blk-sysfs.o \
	$(B)/ioctl.o \
	$(B)/elevator.o \
	$(B)/noop-iosched.o \
	$(B)/mq-deadline.o \
	$(B)/cscan-iosched.o \
	$(B)/genhd.o \
	$(B)/partition.o \
	$(B)/partitions/check.o \
	$(B)/partitions/msdos.o \
	$(B)/partitions/efi.o \
	$(B)/blk-boot.o

LIB_OBJS := \
	lib/string.o \
	lib/vsprintf.o \
	lib/cmdline.o \
	lib/crc32.o \
	lib/errseq.o \
	lib/fault-inject.o \
	lib/pattern.o \
	lib/ratelimit.o \
	lib/sort.o \
	lib/loadavg.o \
	lib/taint.o \
	lib/refcount.o \
	lib/cpumask.o \
	lib/log_buf.o

DRIVER_OBJS := \
	$(D)/char/serial.o \
	$(D)/char/vga.o \
	$(D)/firmware/qemu_fw_cfg.o \
	$(D)/pci/pci.o \
	$(D)/pci/pci_names.o \
	$(D)/block/brd.o \
	$(D)/block/null_blk.o \
	$(D)/ata/libata-core.o \
	$(D)/ata/ata_piix.o \
	$(D)/ahci/ahci.o \
	$(D)/nvme/host/core.o \
	$(D)/nvme/host/pci.o \
	$(D)/nvme/host/ring.o

# Device-mapper, after every block driver: its device_initcall builds the
# dm-mod.create= devices on the disks registered above (link order).
DRIVER_OBJS += \
	$(D)/md/dm-init.o \
	$(D)/md/dm.o \
	$(D)/md/dm-linear.o \
	$(D)/md/dm-stripe.o \
	$(D)/md/dm-flakey.o \
	$(D)/md/dm-delay.o \
	$(D)/md/dm-raid1.o

# The file layer: VFS, ramfs, devtmpfs, proc, sysfs, block-device files.
include fs/fs.mk

OBJS := $(addprefix $(BUILD)/,$(ARCH_OBJS) $(KERNEL_OBJS) $(KTEST_OBJS) \
	$(BLOCK_OBJS) $(LIB_OBJS) $(FS_OBJS) $(DRIVER_OBJS))

# `make V=1` shows every command; by default one short line per file.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-8s %s\n'
endif

KERNEL_ELF := $(BUILD)/spindle.elf
ISO        := $(BUILD)/spindle.iso

.PHONY: all iso qemu qemu-gdb gdb check test test-qemu test-own test-debug test-gdb deps clean lab grade test-labs test-grade-ssh replay check-asan soak soak-forkbomb stress perf perf-linux perf-scaling perf-ext2 check-insncount check-tools fault-matrix powercut ext3-linux jcost jimages tools-linux
.PHONY: compile_commands.json format-check lint check-syscall-table check-reading-map \
	check-docs-figures docs-figures
all: deps $(ISO)
iso: deps $(ISO)

# live-deps: the .d files to include; one naming a source that has moved
# is left out and its object rebuilt (tools/deps.mk says why).
include tools/deps.mk

# User space: the libc, the programs and build/initramfs.cpio.
include user/user.mk

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	$(quiet) AS $<
	$(Q)$(CC) $(ASFLAGS) -c $< -o $@

# The vDSO: user-space code (vclock_gettime.c, vgetcpu.c), built -fPIC
# with no libc into a shared object of its own laid out by vdso.lds, its
# debug information stripped (objcopy -S, as Linux's vdso64.so), and
# embedded in the kernel image by vdso-image.S.  Refused if it has a
# relocation (nobody would apply it), more than its one read+exec
# PT_LOAD, or a data section (.data, .bss, .got: the one copy of the page
# would serve every process, and it is mapped read-only anyway).
VDSO_DIR    := $(BUILD)/$(A)/vdso
VDSO_SO     := $(VDSO_DIR)/vdso.so
VDSO_OBJS   := $(VDSO_DIR)/vclock_gettime.vdso.o $(VDSO_DIR)/vgetcpu.vdso.o
VDSO_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -ffreestanding -fno-builtin \
               -fno-stack-protector -fcf-protection=none -mno-sse -mno-mmx -mno-80387 \
               -Iinclude -I$(A)/include -MMD -MP
VDSO_LDFLAGS := -nostdlib -shared -Wl,-T,$(A)/vdso/vdso.lds -Wl,--hash-style=both \
               -Wl,-soname=linux-vdso.so.1 -Wl,--eh-frame-hdr -Wl,--build-id=none \
               -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack
$(VDSO_DIR)/%.vdso.o: $(A)/vdso/%.c
	@mkdir -p $(@D)
	$(quiet) VDSOCC $<
	$(Q)$(CC) $(VDSO_CFLAGS) -c $< -o $@
$(VDSO_SO).dbg: $(VDSO_OBJS) $(A)/vdso/vdso.lds
	$(quiet) VDSOLD $@
	$(Q)$(CC) $(VDSO_LDFLAGS) -o $@ $(VDSO_OBJS)
	$(Q)LC_ALL=C readelf -rW $@ | grep -q 'There are no relocations' || \
		{ echo "$@: the vDSO has relocations"; readelf -rW $@; rm -f $@; exit 1; }
	$(Q)LC_ALL=C readelf -lW $@ | awk '$$1 == "LOAD" { n++; if ($$7 != "R" || $$8 != "E") bad = 1 } \
		END { exit !(n == 1 && !bad) }' || \
		{ echo "$@: the vDSO must be one read+exec PT_LOAD"; rm -f $@; exit 1; }
	$(Q)! LC_ALL=C readelf -SW $@ | grep -E ' \.(data|bss|got)' || \
		{ echo "$@: the vDSO may not have data: one page would serve every process"; rm -f $@; exit 1; }
$(VDSO_SO): $(VDSO_SO).dbg
	$(Q)$(OBJCOPY) -S $< $@
$(BUILD)/$(A)/vdso/vdso-image.o: $(VDSO_SO)
$(BUILD)/$(A)/vdso/vdso-image.o: ASFLAGS += -DVDSO_SO='"$(VDSO_SO)"'
-include $(call live-deps,$(VDSO_OBJS:.o=.d))

# The names of Linux's system calls, by number, from the one list of
# numbers (include/uapi/asm/unistd_64.h): the kernel names a call it does
# not implement (kernel/arch/x86/syscall.c).
SYSCALL_NAMES := $(BUILD)/include/generated/syscall_names.h
$(SYSCALL_NAMES): include/uapi/asm/unistd_64.h
	@mkdir -p $(dir $@)
	$(quiet) GEN $@
	$(Q)sed -n 's/^#define __NR_\([a-z0-9_]*\) *\([0-9]*\)$$/\t[\2] = "\1",/p' $< > $@.tmp
	$(Q)mv $@.tmp $@
$(BUILD)/$(A)/syscall.o: $(SYSCALL_NAMES)

# Who built the kernel, with what, from which commit: /proc/version and
# uname -v (kernel/version.c), as Linux's include/generated/compile.h.
# The time is the commit's, so that a rebuild of the same tree makes the
# same kernel; the file is rewritten only when a line changes.
# KBUILD_BUILD_USER, KBUILD_BUILD_HOST and KBUILD_BUILD_TIMESTAMP set
# them, as on Linux.
COMPILE_H := $(BUILD)/include/generated/compile.h
KBUILD_BUILD_USER ?= $(shell whoami 2>/dev/null || echo unknown)
KBUILD_BUILD_HOST ?= $(shell hostname 2>/dev/null || echo unknown)
KBUILD_BUILD_TIMESTAMP ?= $(shell TZ=UTC git log -1 --date=format-local:'%a %b %e %H:%M:%S UTC %Y' \
	--format=%cd 2>/dev/null || TZ=UTC date '+%a %b %e %H:%M:%S UTC %Y')
$(COMPILE_H): FORCE
	@mkdir -p $(dir $@)
	$(Q){ echo '#define UTS_VERSION "#1 SMP $(KBUILD_BUILD_TIMESTAMP)"'; \
	  echo '#define SPINDLE_COMPILE_BY "$(KBUILD_BUILD_USER)"'; \
	  echo '#define SPINDLE_COMPILE_HOST "$(KBUILD_BUILD_HOST)"'; \
	  echo "#define SPINDLE_COMPILER \"$$($(CC) --version | head -n 1), $$($(LD) --version | head -n 1)\""; \
	} > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/$(K)/version.o: $(COMPILE_H)

# The kernel is linked twice: the first link's symbols become the .ksyms
# table (for symbolised backtraces) of the second.  .ksyms is the last
# section, so adding it moves no other symbol.
$(BUILD)/ksyms0.S: tools/gen_ksyms.sh
	@mkdir -p $(BUILD)
	$(Q)sh tools/gen_ksyms.sh > $@

$(BUILD)/ksyms0.o $(BUILD)/ksyms.o: $(BUILD)/%.o: $(BUILD)/%.S
	$(Q)$(CC) -c $< -o $@

$(BUILD)/spindle.elf.0: $(OBJS) $(BUILD)/ksyms0.o linker.ld
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -T linker.ld -o $@ $(OBJS) $(BUILD)/ksyms0.o

$(BUILD)/ksyms.S: $(BUILD)/spindle.elf.0 tools/gen_ksyms.sh
	$(quiet) KSYMS $@
	$(Q)$(NM) -n $< > $(BUILD)/spindle.nm.0
	$(Q)sh tools/gen_ksyms.sh $(BUILD)/spindle.nm.0 > $@

$(KERNEL_ELF): $(OBJS) $(BUILD)/ksyms.o linker.ld
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -T linker.ld -o $@ $(OBJS) $(BUILD)/ksyms.o
	@$(NM) -n $@ | grep -v -e ksyms -e ' _end$$' > $(BUILD)/spindle.nm.1; \
	 grep -v -e ksyms -e ' _end$$' $(BUILD)/spindle.nm.0 | cmp -s - $(BUILD)/spindle.nm.1 || \
	 { echo "ksyms: symbols moved between the two links"; exit 1; }
	@$(NM) -n $@ > $(BUILD)/System.map     # for readprofile(8) and people

$(ISO): $(KERNEL_ELF) $(INITRAMFS) tools/grub.cfg
	@mkdir -p $(BUILD)/isodir/boot/grub
	$(quiet) ISO $@
	$(Q)cp $(KERNEL_ELF) $(BUILD)/isodir/boot/spindle.elf
	$(Q)cp $(INITRAMFS) $(BUILD)/isodir/boot/initramfs.cpio
	$(Q)cp tools/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# The user suite's test programs, linked into the kernel (user.mk).
include tests/kernel/user/user.mk

# --- running it ---------------------------------------------------------

# SMP=N: the CPUs QEMU gives the guest (default 2; make qemu SMP=4)
SMP ?= 2
QEMUOPTS  = -M q35 -m 256M -smp $(SMP) -no-reboot
QEMUOPTS += -drive if=none,id=cd,file=$(ISO),media=cdrom,format=raw
QEMUOPTS += -device ide-cd,drive=cd,bus=ide.2
QEMUOPTS += -device isa-debug-exit,iobase=0xf4,iosize=4
QEMUOPTS += -fw_cfg name=opt/spindle/cmdline,file=$(BUILD)/cmdline
QEMUOPTS += -nographic
# Disks for the drivers to find: two on AHCI ports 0 and 1 (sda, sdb), one
# on a PIIX3 IDE controller (hda).  Sparse images, kept between runs.
# And on AHCI port 3 (after the CD on port 2: sdc) a disk of two ext2
# partitions: sdc1 holds docs/, ready for
# `mount -t ext2 -o ro /dev/sdc1 /mnt` (docs/ext2.md), and sdc2 the
# initramfs's own tree, a root for `make qemu ARGS=root=/dev/sdc2`, with
# Debian's own tools added (DEBIAN_TOOLS, their libraries with them:
# tools/copy-progs.sh) -- fio, iostat, lsblk, top and the rest, run
# unmodified.  top's libproc2 dlopen()s libnuma (ldd cannot see it) and
# reads the terminfo entries.
DISK_SIZE ?= 256M
DISKS     := $(BUILD)/disk-sda.img $(BUILD)/disk-sdb.img $(BUILD)/disk-hda.img \
	$(BUILD)/disk-ext2.img
QEMUOPTS += -drive if=none,id=sda,file=$(BUILD)/disk-sda.img,format=raw
QEMUOPTS += -device ide-hd,drive=sda,bus=ide.0
QEMUOPTS += -drive if=none,id=sdb,file=$(BUILD)/disk-sdb.img,format=raw
QEMUOPTS += -device ide-hd,drive=sdb,bus=ide.1
QEMUOPTS += -device piix3-ide,id=pide
QEMUOPTS += -drive if=none,id=hda,file=$(BUILD)/disk-hda.img,format=raw
QEMUOPTS += -device ide-hd,drive=hda,bus=pide.0
QEMUOPTS += -drive if=none,id=sdc,file=$(BUILD)/disk-ext2.img,format=raw
QEMUOPTS += -device ide-hd,drive=sdc,bus=ide.3
# NVME=1: also an NVMe controller (QEMU's -device nvme) with a sparse disk of
# DISK_SIZE, nvme0n1 in the guest (docs/nvme.md).
ifeq ($(NVME),1)
DISKS    += $(BUILD)/disk-nvme.img
QEMUOPTS += -drive if=none,id=nvme0,file=$(BUILD)/disk-nvme.img,format=raw
QEMUOPTS += -device nvme,drive=nvme0,serial=spindle-nvme0
endif
GDBPORT  ?= 1234

$(filter-out %/disk-ext2.img,$(DISKS)):
	@mkdir -p $(BUILD)
	truncate -s $(DISK_SIZE) $@

DEBIAN_TOOLS := /usr/bin/fio /usr/bin/iostat /usr/bin/lsblk /usr/sbin/blkid /usr/bin/findmnt \
	/usr/bin/top /usr/bin/vmstat /usr/bin/free /usr/bin/ps /usr/sbin/mke2fs /usr/sbin/e2fsck \
	/usr/sbin/debugfs /usr/sbin/dumpe2fs /usr/lib/x86_64-linux-gnu/libnuma.so.1 \
	/lib/terminfo/d/dumb /lib/terminfo/v/vt100
$(BUILD)/disk-ext2.img: $(wildcard docs/*.md) $(INITRAMFS) tools/copy-progs.sh
	@mkdir -p $(BUILD)
	rm -rf $@ $(BUILD)/root-tools && cp -a $(BUILD)/rootfs $(BUILD)/root-tools
	tools/copy-progs.sh $(BUILD)/root-tools $(DEBIAN_TOOLS)
	truncate -s 256M $@
	printf 'label: dos\n1MiB,31MiB,83\n32MiB,,83\n' | PATH="$$PATH:/sbin" sfdisk -q $@
	PATH="$$PATH:/sbin" mke2fs -q -F -t ext2 -L docs -E offset=1048576 -d docs $@ 31M
	PATH="$$PATH:/sbin" mke2fs -q -F -t ext2 -L root -E offset=33554432 -d $(BUILD)/root-tools $@ 224M
	rm -rf $(BUILD)/root-tools

# ARGS reaches the file through the environment, quotes and all
# (dm-mod.create="..." keeps its double quotes).
$(BUILD)/cmdline: export SPINDLE_ARGS := $(ARGS)
$(BUILD)/cmdline: FORCE
	@mkdir -p $(BUILD)
	@printf '%s' "$$SPINDLE_ARGS" > $@.tmp; cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
FORCE:

# QEMU's status 1 is the kernel's own "success" exit through isa-debug-exit
# (poweroff, tests passed): not an error for make.
qemu: deps $(ISO) $(BUILD)/cmdline $(DISKS)
	$(QEMU) $(QEMUOPTS) || [ $$? -eq 1 ]

qemu-gdb: deps $(ISO) $(BUILD)/cmdline $(DISKS)
	@echo "*** Now run 'make gdb' in another window (Ctrl-A X quits QEMU)."
	$(QEMU) $(QEMUOPTS) -S -gdb tcp::$(GDBPORT) || [ $$? -eq 1 ]

# GDB set up as .gdbinit does, but with every step given explicitly (-nx:
# no auto-load, so this folder need not be in GDB's auto-load safe path):
# the symbols, the sp-* commands of tools/gdb/spindle.py, and a connection
# to `make qemu-gdb`'s stub.
GDBOPTS  = -q -nx -ex 'set confirm off' -ex 'set pagination off'
GDBOPTS += -ex 'file $(KERNEL_ELF)' -x tools/gdb/spindle.py
GDBOPTS += -ex 'target remote localhost:$(GDBPORT)'
gdb: deps $(KERNEL_ELF)
	gdb $(GDBOPTS)

# --- tests ----------------------------------------------------------------

include tests/unit/unit.mk

# QJOBS guests at once (default 2, one per core of CI's machine): the
# suite holds with four at once (make stress), and no verdict may depend
# on wall-clock time (docs/testing.md).  QJOBS=1 runs them one by one.
QJOBS ?= 2
test-qemu: deps $(ISO)
	$(PYTHON) tests/qemu/run.py -j $(QJOBS) $(if $(KARGS),--kargs '$(KARGS)') $(T)

# Every scenario again with the debug allocators and lockdep on: a memory
# or locking bug anywhere in what the suite exercises fails the scenario
# with the detector's report in its log (docs/testing.md).  On 2 CPUs
# (DEBUG_CPUS), where a scenario does not pin its own number (smp-torture,
# smp-mm, smp-block and smp-io-storm ask for 4): the machine CI runs on
# has two cores, and with tasks on every CPU two guests of four busy
# vCPUs overcommit them four times -- a vCPU spinning on a lock whose
# holder the host has descheduled wastes a whole host time slice, and
# user-hostile-forkbomb's killed group once took over 20 s to drain
# instead of 2.  The debug-*
# scenarios, which commit such bugs on purpose, run in test-qemu only; so
# does ide-probe-race, whose -icount shift=10 leaves a 1 ms tick under a
# thousand guest instructions: the tick with lockdep checking its three
# locks (the irq's, the timers', the run queue's) takes longer than that,
# and the guest does nothing but take ticks.  user-hostile-forkbomb-slow
# too: its limit is 60 s of -icount guest time for a killed fork bomb to
# be gone, and with page_poison and slab_debug the exits alone took 54 s
# before this wave's locks (measured on 97f3b79); user-hostile-forkbomb,
# the same bomb without the clock, runs there.  lock-stat judges
# kmalloc's per-CPU arrays, which slab_debug turns off (every object
# then goes through the checked slabs): it runs in test-qemu only.
# T= narrows it as for test-qemu.
DEBUG_KARGS := slab_debug=1 page_poison=1 lockdep=1
DEBUG_REPORTS := ^(BUG kmalloc-|BUG: sleeping function|BUG: lock held|BUG: MAX_[A-Z_]+ too low|WARNING: possible circular|WARNING: possible recursive|INFO: trying to register non-static|pagealloc: memory corruption|watchdog: BUG: soft lockup|watchdog: Watchdog detected hard LOCKUP|csd: Detected non-responsive CSD lock)
DEBUG_CPUS := 2
DEBUG_SCENARIOS := $(filter-out debug-% ide-probe-race user-hostile-forkbomb-slow lock-stat,$(basename $(notdir $(wildcard tests/qemu/scenarios/*.scn))))
test-debug: deps $(ISO)
	$(PYTHON) tests/qemu/run.py -j $(QJOBS) --cpus $(DEBUG_CPUS) --kargs '$(DEBUG_KARGS)' \
		--reject '$(DEBUG_REPORTS)' $(or $(T),$(DEBUG_SCENARIOS))

# Host unit tests first (fast, precise), then the scenarios, the same
# kernel booted without busybox, then the GDB helpers on halted guests
# (tests/gdb/, some 10 seconds).
test: deps
	$(MAKE) check
	$(MAKE) test-qemu
	$(MAKE) test-own
	$(MAKE) test-gdb

# USERLAND=own: the image without busybox, built apart in build/own (the
# default build's files stay as they are), boots to Spindle's own sh; the
# scenarios of tests/qemu/own/ need nothing else.  So the kernel is never
# tested only through a program this repository does not build.
OWN_BUILD := $(BUILD)/own
test-own: deps
	$(MAKE) BUILD=$(OWN_BUILD) USERLAND=own $(OWN_BUILD)/spindle.iso
	$(PYTHON) tests/qemu/run.py -j $(QJOBS) --iso $(OWN_BUILD)/spindle.iso $(or $(T),tests/qemu/own/*.scn)

test-gdb: deps $(ISO)
	$(PYTHON) tests/gdb/run.py $(T)

check: deps check-user check-tools check-syscall-table check-reading-map check-docs-figures

# The host-side parsers of the benchmark tools, on saved samples (no boot).
check-tools: deps
	$(PYTHON) tools/compare-linux --selftest
	$(PYTHON) tools/insncount.py --selftest
	$(PYTHON) tools/scaling.py --selftest
	$(PYTHON) tools/c2c.py --selftest
	$(PYTHON) tools/ext3-linux.py --selftest
	$(PYTHON) tools/tools-linux.py --selftest
	$(PYTHON) tools/iostat-check.py --selftest
	$(PYTHON) tools/jcost.py --selftest
	$(PYTHON) tools/jimages.py --selftest
	$(PYTHON) tools/grade.py --selftest
	$(PYTHON) tools/grade-class.py --selftest
	$(PYTHON) tools/crashstates.py --selftest

# docs/processes.md's table of system calls is the kernel's table.
check-syscall-table:
	$(Q)$(PYTHON) tools/syscall-table.py --check docs/processes.md

# docs/README.md's reading map is the tree's (groups, line counts, labs).
check-reading-map:
	$(Q)$(PYTHON) tools/reading-map.py --check docs/README.md

# docs/testing.md's counts of suites, scenarios, labs and fuzz targets.
check-docs-figures:
	$(Q)$(PYTHON) tools/docs-figures.py --check docs/testing.md
docs-figures:
	$(Q)$(PYTHON) tools/docs-figures.py --write docs/testing.md
	$(Q)$(PYTHON) tools/reading-map.py --write docs/README.md
	$(Q)$(PYTHON) tools/syscall-table.py --write docs/processes.md

# The host unit tests again under ASan and UBSan (tests/unit/unit.mk).
check-asan: deps
	$(MAKE) UNIT_SAN=1 check-unit

# --- labs (labs/README.md) --------------------------------------------------

lab:
	@test -n "$(N)" -a -n "$(DIR)" || { echo "usage: make lab N=<lab> DIR=<new folder>"; exit 2; }
	@$(PYTHON) tools/mklab.py $(N) $(DIR)

grade: deps
	@$(PYTHON) tools/grade.py $(if $(LAB),--lab $(LAB))

test-labs: deps
	@$(PYTHON) tools/test-labs.py

# The class grader on two machines over ssh (tools/test-grade-ssh.py):
# two network namespaces with their own sshd stand in for them, so it
# needs root.  Its packages are not in DEB_PACKAGES: installing
# openssh-server starts a server on most machines.  Each submission
# starts from this tree's build, so build it first.
GRADE_SSH_PACKAGES := openssh-server openssh-client iproute2
test-grade-ssh: deps
	@sh tools/install-deps.sh $(GRADE_SSH_PACKAGES)
	$(MAKE) iso unit-progs
	$(PYTHON) tools/test-grade-ssh.py

# Long runs that make test leaves out.  The disk soak (tools/soak.py):
# one boot, MINUTES of load, the images checked on the host.
MINUTES ?= 10
soak: deps $(ISO)
	$(PYTHON) tools/soak.py --minutes $(MINUTES)

# The fork-bomb soak (tests/qemu/soak/), about 6 minutes.
soak-forkbomb: deps $(ISO)
	$(PYTHON) tests/qemu/run.py $(wildcard tests/qemu/soak/*.scn)

# The QEMU suite N times, 4 guests at once, verdicts tallied per scenario
# (tools/stress.py): T=<names or globs> for a subset, LOAD=<n> busy
# background processes, DEBUG=1 booted as test-debug boots them.
stress: deps $(ISO)
	$(PYTHON) tools/stress.py -n $(N) $(if $(LOAD),--load $(LOAD)) \
		$(if $(DEBUG),--cpus $(DEBUG_CPUS) --kargs '$(DEBUG_KARGS)' --reject '$(DEBUG_REPORTS)' $(or $(T),$(DEBUG_SCENARIOS)),$(T))

# I/O errors on emulated disks, cell by cell (tools/fault-matrix.py,
# docs/testing.md); SHORT=1: the CI subset.
fault-matrix: deps $(ISO)
	$(PYTHON) tools/fault-matrix.py $(if $(SHORT),--short)

# Power cuts under a writing guest (tools/powercut.py): N=<cuts>;
# FS=ext2: under fsynced files on ext2 instead of the raw device;
# FS=ext3: under name-space changes on ext3, each cut with barrier=1 and
# barrier=0 (BARRIER=1 or 0: only that one);
# DISK=nvme: on the NVMe controller instead of AHCI (FS=ext3: the cache
# disk too).
N ?= 10
powercut: deps $(ISO)
	$(PYTHON) tools/powercut.py -n $(N) $(if $(FS),--fs $(FS)) $(if $(DISK),--disk $(DISK)) \
		$(if $(BARRIER),--barrier $(BARRIER))

# ext3's journal against Linux's, both ways (tools/ext3-linux.py): Linux
# 6.1 (Debian's packages, fetched as for perf-linux) replays a log Spindle
# left, Spindle one Linux left; trees and e2fsck compared.
ext3-linux: deps $(ISO)
	$(PYTHON) tools/ext3-linux.py

# e2fsprogs' journal test images (tests/j_* of its Debian source package,
# fetched into build/jimages/src) replayed by fs/jbd2 built for the host
# and by e2fsck, the two results compared block by block
# (tools/jimages.py; docs/ext2.md, "ext3: the journal").  No QEMU.
JIMAGES_SRCS := tests/jimages/jbd2_replay.c fs/jbd2/journal.c fs/jbd2/recovery.c \
	fs/jbd2/revoke.c fs/ext2/check.c lib/crc32.c lib/ratelimit.c lib/string.c \
	lib/vsprintf.c tests/unit/shim/host.c
$(BUILD)/jimages/jbd2_replay: $(JIMAGES_SRCS) $(wildcard include/spindle/*.h) \
		fs/ext2/ext2.h tests/unit/shim/host.h
	@mkdir -p $(@D)
	$(UNIT_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -DSPINDLE_HOST \
		-include tests/unit/shim/host.h $(UNIT_SANITIZE) -o $@ $(JIMAGES_SRCS)
jimages: deps $(BUILD)/jimages/jbd2_replay
	$(PYTHON) tools/jimages.py
# lsblk, blkid, findmnt and sfdisk -g, Debian's binaries, on Spindle and
# on Linux 6.1 booted on the same QEMU machine (q35 AHCI, pc IDE) with the
# same GPT, MBR and root disks; outputs diffed (tools/tools-linux.py).
# M=q35 or M=pc: one machine.
tools-linux: deps $(ISO)
	$(PYTHON) tools/tools-linux.py $(if $(M),--machine $(M))

# What the ext3 journal writes per operation, on the disk, Spindle and
# Linux 6.1 running the same script over tools/nbdcache.py's recording
# disk; every block classified on the host by e2fsprogs (tools/jcost.py).
# PNG=FILE also draws the write2 window of both kernels with gnuplot
# (docs/ext3-commit.png: make jcost PNG=docs/ext3-commit.png).
jcost: deps $(ISO)
	$(PYTHON) tools/jcost.py --picture write2 $(if $(PNG),--png $(PNG))

# Performance figures (tools/perf.py, docs/performance.md): shown, never
# asserted by a test.
RUNS ?= 3
perf: deps $(ISO)
	$(PYTHON) tools/perf.py --runs $(RUNS)

# A QEMU TCG plugin that counts the instructions a guest executes, with
# a kernel's idle and poll loops counted apart (tools/insncount/): built
# by the host's compiler as a shared object QEMU loads with -plugin.
INSNCOUNT = $(BUILD)/tools/insncount.so
$(INSNCOUNT): tools/insncount/insncount.c tools/insncount/qemu-plugin.h
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -o $@ $< -lpthread

# The plugin checked against QEMU's own instruction clock where the two
# must agree: Spindle's null_blk rows under -icount, no halts, no host
# time (tools/compare-linux --insn-check; one boot, half a minute).
check-insncount: deps $(ISO) $(INSNCOUNT)
	$(PYTHON) tools/compare-linux --insn-check

# The same workloads on Debian's Linux and fio, booted on the same QEMU
# devices (tools/compare-linux; packages fetched into build/compare-linux,
# never installed): both sides and their ratio, row by row; then the NVMe
# rows (tests/qemu/perf/perf-nvme.scn, q35), as the instructions each
# kernel executes, counted by the plugin (RUNS=<n> boots of each): under
# -icount alone QEMU's NVMe makes the counts the host's waiting, and in a
# wall-clock boot Linux's fio at depth 32 on QEMU's NVMe stalled until
# the runner's 10-minute limit (docs/performance.md, "NVMe against Linux");
# then io_uring's SQPOLL rows (tests/qemu/perf/perf-sqpoll.scn) the same
# way, the SQ thread's spin left out on both kernels (docs/performance.md,
# "io_uring against psync and aio"); and NVMe's QD1 rows with both
# kernels booted idle=poll, so that neither halts while QEMU completes a
# command in host time (tests/qemu/perf/perf-nvme-poll.scn).
perf-linux: deps $(ISO) $(INSNCOUNT)
	$(PYTHON) tools/compare-linux --runs $(RUNS)
	$(PYTHON) tools/compare-linux --insn-plugin --insn-runs $(RUNS) --scenario tests/qemu/perf/perf-nvme.scn
	$(PYTHON) tools/compare-linux --insn-plugin --insn-runs $(RUNS) --append idle=poll --scenario tests/qemu/perf/perf-nvme-poll.scn
	$(PYTHON) tools/compare-linux --insn-plugin --insn-runs $(RUNS) --scenario tests/qemu/perf/perf-sqpoll.scn
	$(PYTHON) tools/compare-linux --fio --runs $(RUNS)

# IOPS against CPUs (1, 2, 4) under multi-threaded TCG, Spindle's bench
# numjobs=N against Linux's fio numjobs=N on null_blk, interleaved
# (tools/scaling.py, docs/performance.md "Scaling with CPUs"); PNG=<file>
# draws it; DEVICE=nvme: on QEMU's NVMe, a queue pair per CPU.
# HOSTPROF=1: where the host's CPU time goes per guest I/O instead (perf
# record on QEMU while the job runs; root).
perf-scaling: deps $(ISO)
	$(PYTHON) tools/scaling.py --runs $(RUNS) $(if $(DEVICE),--device $(DEVICE)) $(if $(PNG),--png $(PNG)) $(if $(HOSTPROF),--host-profile)

# ext2's write-back and readahead in requests (tools/ext2-perf.py, the
# "Measured" section of docs/fs.md); PNG=<dir> draws the AHCI run's writes.
perf-ext2: deps $(ISO)
	$(PYTHON) tools/ext2-perf.py --excerpt $(if $(PNG),--png $(PNG))

# A recorded run (a scenario with `record: yes`, or RECORD=1): boot it
# again instruction for instruction, e.g. R=build/grade/qemu/lab1-linear
replay: deps
	@test -n "$(R)" || { echo "usage: make replay R=<a scenario's folder under build/>"; exit 2; }
	@$(PYTHON) tests/qemu/run.py --replay $(R)

# --- developer tools --------------------------------------------------------

# bear records every compiler call of a build; to see them all it needs a
# build that compiles everything, so it gets a fresh folder of its own
# (the kernel and the user programs, as built for the guest).
COMPDB_BUILD := $(BUILD)/compdb
compile_commands.json: deps
	rm -rf $(COMPDB_BUILD)
	bear --output $@.tmp -- $(MAKE) BUILD=$(COMPDB_BUILD) $(COMPDB_BUILD)/spindle.elf user
	mv $@.tmp $@

# clang-format (.clang-format) on the lines changed since main only.
format-check: deps
	@$(PYTHON) tools/lint/format-check.py

# First the tree: no folder includes another's private header, every path
# a comment or a document names exists (tools/lint/tree.py, after its own
# tests).  Then GCC's -fanalyzer and cppcheck over the kernel's C sources,
# built as the kernel is (tools/lint/lint.py; its suppression lists say
# why for each).
LINT_SRCS = $(patsubst $(BUILD)/%.o,%.c,$(filter-out $(BUILD)/$(KT)/user/embed.o,$(OBJS)))
lint: deps $(SYSCALL_NAMES) $(COMPILE_H)
	@$(PYTHON) tools/lint/tree.py --selftest
	@$(PYTHON) tools/lint/tree.py
	@LINT_CFLAGS='$(CFLAGS)' $(PYTHON) tools/lint/lint.py -j 2 $(wildcard $(LINT_SRCS))

# --- dependencies ---------------------------------------------------------

DEB_PACKAGES := gcc make binutils grub-pc-bin grub-common xorriso mtools \
	qemu-system-x86 qemu-utils check pkg-config python3 e2fsprogs fdisk gdisk \
	gnuplot-nox cpio bsdextrautils parallel gdb bear clang-format cppcheck \
	blktrace util-linux busybox-static patch liburing-dev libc6-dev \
	sysstat procps coreutils fio linux-perf

# Every top-level target checks for these first: as root, what is missing
# is installed; otherwise the exact apt-get line is printed.
deps:
	@sh tools/install-deps.sh $(DEB_PACKAGES)
	@sh tools/deb-src.sh

# Fuzzing (tests/fuzz/fuzz.mk; adds its toolchain to DEB_PACKAGES).
include tests/fuzz/fuzz.mk

clean:
	rm -rf $(BUILD)

-include $(call live-deps,$(OBJS:.o=.d))
