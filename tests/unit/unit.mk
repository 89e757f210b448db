# SPDX-License-Identifier: MIT
# Host unit tests: Check suites run as ordinary Linux programs.
#
# Included by the top-level Makefile; also works alone:
#     make -f tests/unit/unit.mk check
# Every program is build/unit/check_<name>, made of tests/unit/check_<name>.c,
# the shared unit_main.c, the shim, and all of UNIT_LIB_SRCS (the kernel
# sources under test), compiled for the host with tests/unit/shim/host.h
# forced in (see its comment for why).  "check" runs them all, even after one
# fails, and fails if any did.
#
# To add a kernel source: append it to UNIT_LIB_SRCS.  To add a suite: write
# tests/unit/check_<name>.c (defining unit_suite()), add check_<name> to
# UNIT_TESTS.  Both must be added here, before the rules below read them.

BUILD ?= build

# Alone, "check" is the default goal; included, the including Makefile
# keeps its own (saved here, restored at the end).
UNIT_STANDALONE := $(filter 1,$(words $(MAKEFILE_LIST)))
UNIT_SAVED_GOAL := $(if $(UNIT_STANDALONE),check,$(.DEFAULT_GOAL))

UNIT_BUILD := $(BUILD)/unit
UNIT_CC ?= gcc
# UNIT_SAN=1 (make check-asan): the same suites under AddressSanitizer and
# UndefinedBehaviorSanitizer, built apart in build/unit-asan; any report
# fails the test it happens in.
ifeq ($(UNIT_SAN),1)
UNIT_BUILD := $(BUILD)/unit-asan
UNIT_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
endif

# Kernel sources compiled into every unit-test program.
UNIT_LIB_SRCS := lib/string.c lib/vsprintf.c lib/crc32.c lib/errseq.c lib/taint.c \
	kernel/mm/page_alloc.c kernel/mm/slab.c kernel/mm/dma.c \
	block/partitions/check.c block/partitions/msdos.c block/partitions/efi.c \
	lib/pattern.c lib/ratelimit.c lib/fault-inject.c kernel/mm/mempool.c \
	kernel/sched/wait.c kernel/sched/mutex.c kernel/sched/completion.c \
	block/bio.c block/blk-core.c block/genhd.c block/partition.c block/blk-plug.c block/blk-mq.c \
	block/blk-flush.c
# Host stand-ins for kernel services, and the shared main().
UNIT_SHIM_SRCS := tests/unit/shim/host.c tests/unit/shim/host_kernel.c \
	tests/unit/unit_main.c
# Test programs, each from tests/unit/<name>.c.
UNIT_TESTS := check_string check_vsprintf check_list check_page_alloc check_slab \
	check_crc32 check_partitions check_bio check_pattern check_plug check_blk_mq \
	check_fault_inject
# The elevators (block/elevator.c and the three policies).
UNIT_LIB_SRCS += block/elevator.c block/noop-iosched.c block/mq-deadline.c \
	block/cscan-iosched.c
UNIT_TESTS += check_elevator
# lib/sort.c, and the benchmark's statistics that use it.
UNIT_LIB_SRCS += lib/sort.c block/blk-bench.c block/blk-trace.c
# The block layer's files and ioctls, which fs/'s sysfs and device files call.
UNIT_LIB_SRCS += block/blk-sysfs.c block/ioctl.c
UNIT_TESTS += check_sort
# The shared ATA layer both disk drivers use (IDENTIFY, taskfiles, decoding).
UNIT_LIB_SRCS += drivers/ata/libata-core.c
UNIT_TESTS += check_ata
# The parsers of outside data that live beside kernel-only code, split
# out so that they run here and under the fuzzer (tests/fuzz/).
UNIT_LIB_SRCS += drivers/md/dm-init.c lib/cmdline.c kernel/elf_check.c
UNIT_TESTS += check_dm_init check_cmdline check_elf
# The SMP primitives (ticket lock, atomic_t, refcount_t), with host threads.
UNIT_LIB_SRCS += lib/refcount.c
UNIT_TESTS += check_atomic
$(UNIT_BUILD)/check_atomic: UNIT_LDLIBS += -pthread
# Sets of CPUs as text: /proc/irq/N/smp_affinity's hex, irqaffinity='s list.
UNIT_LIB_SRCS += lib/cpumask.c
UNIT_TESTS += check_cpumask
# The load average's arithmetic and /proc/loadavg's text.
UNIT_LIB_SRCS += lib/loadavg.c
UNIT_TESTS += check_loadavg
# The kernel log's ring of text, which syslog(2) reads.
UNIT_LIB_SRCS += lib/log_buf.c
UNIT_TESTS += check_log_buf
# check_elf's oracle: programs built by the host's gcc, and readelf's view.
UNIT_ELF_DIR := $(UNIT_BUILD)/elf
UNIT_ELF_STAMP := $(UNIT_ELF_DIR)/made
$(UNIT_ELF_STAMP): tests/unit/elf/make_elves.sh
	bash $< $(UNIT_ELF_DIR)
	touch $@
$(UNIT_BUILD)/tests/unit/check_elf.o: UNIT_CFLAGS += \
	-DELF_DIR='"$(abspath $(UNIT_ELF_DIR))"'
# The file layer (fs/fs.mk lists its sources) and its suites.
include fs/fs.mk
UNIT_LIB_SRCS += $(FS_UNIT_SRCS)
UNIT_SHIM_SRCS += tests/unit/shim/host_fs.c
UNIT_TESTS += check_vfs check_initramfs check_block_dev check_aio check_io_uring check_pagecache
# The text of /proc/<pid>/maps against the host's own.
UNIT_TESTS += check_proc
# ext2 (fs/ext2/, in FS_UNIT_SRCS) over images the host's mke2fs made.
UNIT_TESTS += check_ext2
# ext2 directory blocks edited in place (fs/ext2/dirent.c).
UNIT_TESTS += check_ext2_dir
# ext2's hashed directories (fs/ext2/htree.c) against debugfs and e2fsck -D.
UNIT_TESTS += check_ext2_htree
# ext3's journal recovery (fs/jbd2/) over journals written in the test.
UNIT_TESTS += check_jbd2
# ext3's journal writes (fs/jbd2/transaction.c, commit.c): the log read
# back by hand, crashes before and after the commit block, a full log.
UNIT_TESTS += check_jbd2_commit
UNIT_EXT2_DIR := $(UNIT_BUILD)/ext2
UNIT_EXT2_STAMP := $(UNIT_EXT2_DIR)/made
$(UNIT_EXT2_STAMP): tests/unit/ext2/make_images.sh
	bash $< $(UNIT_EXT2_DIR)
	touch $@
$(UNIT_BUILD)/tests/unit/check_ext2.o $(UNIT_BUILD)/tests/unit/check_ext2_htree.o: \
	UNIT_CFLAGS += -DEXT2_IMAGE_DIR='"$(abspath $(UNIT_EXT2_DIR))"'
# An NVMe queue pair's rings (drivers/nvme/host/ring.c) against a model
# controller: ring.c alone, with tests/unit/nvme/asm/io.h forced in, so
# that its doorbell writes and barriers are the model's.
UNIT_TESTS += check_nvme_ring
UNIT_NVME_OBJS := $(UNIT_BUILD)/drivers/nvme/host/ring.o
$(UNIT_BUILD)/check_nvme_ring: $(UNIT_NVME_OBJS)
$(UNIT_NVME_OBJS): $(UNIT_BUILD)/%.o: %.c tests/unit/unit.mk
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -Itests/unit/nvme -include tests/unit/nvme/asm/io.h -c -o $@ $<
# io_uring's CQE posting (fs/io_uring_cq.c) against a model process that
# sees the CQ only through the barriers: a second copy of the file, built
# with tests/unit/uring_cq/model.h forced in (the model's barriers and
# allocator, its functions renamed model_*: the kernel's own copy is in
# every program, for fs/io_uring.c).
UNIT_TESTS += check_io_uring_cq
UNIT_URING_CQ_OBJS := $(UNIT_BUILD)/uring_cq/fs/io_uring_cq.o
$(UNIT_BUILD)/check_io_uring_cq: $(UNIT_URING_CQ_OBJS)
$(UNIT_URING_CQ_OBJS): $(UNIT_BUILD)/uring_cq/%.o: %.c tests/unit/unit.mk tests/unit/uring_cq/model.h
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -include tests/unit/uring_cq/model.h -c -o $@ $<
# io_uring's TIMEOUT (fs/io_uring_timeout.c) against a tick the test
# plays: a second copy of the file with tests/unit/uring_timeout/model.h
# forced in (the test's mod_timer, del_timer and CQE posting, the file's
# functions renamed model_*), to put a cancel between a timer taken off
# the list and its function.
UNIT_TESTS += check_io_uring_timeout
UNIT_URING_TIMEOUT_OBJS := $(UNIT_BUILD)/uring_timeout/fs/io_uring_timeout.o
$(UNIT_BUILD)/check_io_uring_timeout: $(UNIT_URING_TIMEOUT_OBJS)
$(UNIT_URING_TIMEOUT_OBJS): $(UNIT_BUILD)/uring_timeout/%.o: %.c tests/unit/unit.mk \
		tests/unit/uring_timeout/model.h
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -include tests/unit/uring_timeout/model.h -c -o $@ $<
# The kernel's copy routines (kernel/arch/x86/memcpy.S, usercopy.S),
# assembled for the host -- memcpy and memset under other names, the
# host's libc has its own -- and checked at every alignment and length.
UNIT_TESTS += check_memcpy
UNIT_ARCH_OBJS := $(UNIT_BUILD)/arch/memcpy.o $(UNIT_BUILD)/arch/usercopy.o
$(UNIT_BUILD)/check_memcpy: $(UNIT_ARCH_OBJS)
# the exception table's absolute addresses: not position-independent
$(UNIT_BUILD)/check_memcpy: UNIT_LDLIBS += -no-pie
$(UNIT_BUILD)/arch/memcpy.o: kernel/arch/x86/memcpy.S tests/unit/unit.mk
	@mkdir -p $(@D)
	$(UNIT_CC) -DMEMCPY=arch_memcpy -DMEMSET=arch_memset -c -o $@ $<
$(UNIT_BUILD)/arch/usercopy.o: kernel/arch/x86/usercopy.S tests/unit/unit.mk
	@mkdir -p $(@D)
	$(UNIT_CC) -Iinclude -Ikernel/arch/x86/include -c -o $@ $<
# check_initramfs's oracle: archives written by the host's cpio.
UNIT_CPIO_DIR := $(UNIT_BUILD)/cpio
UNIT_CPIO_STAMP := $(UNIT_CPIO_DIR)/made
$(UNIT_CPIO_STAMP): tests/unit/cpio/make_archives.sh
	bash $< $(UNIT_CPIO_DIR)
	touch $@
$(UNIT_BUILD)/tests/unit/check_initramfs.o: UNIT_CFLAGS += \
	-DCPIO_DIR='"$(abspath $(UNIT_CPIO_DIR))"'

# UBSan turns undefined behaviour in the code under test (a signed
# overflow in position arithmetic, a shift past the width) into a failed
# test instead of a silent wrong answer.  UNIT_SANITIZE= builds without it.
UNIT_SANITIZE ?= -fsanitize=undefined -fno-sanitize-recover=undefined
# Recursive (=) so that pkg-config runs only when a unit test is built.
UNIT_CFLAGS = -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude \
	-DSPINDLE_HOST -include tests/unit/shim/host.h $(UNIT_SANITIZE) \
	$(shell pkg-config --cflags check) -MMD -MP $(UNIT_SAN_FLAGS)
UNIT_LDLIBS = $(UNIT_SANITIZE) $(shell pkg-config --libs check) $(UNIT_SAN_FLAGS)

UNIT_COMMON_OBJS := $(patsubst %.c,$(UNIT_BUILD)/%.o,$(UNIT_LIB_SRCS) $(UNIT_SHIM_SRCS))
UNIT_TEST_OBJS := $(UNIT_TESTS:%=$(UNIT_BUILD)/tests/unit/%.o)
UNIT_PROGS := $(UNIT_TESTS:%=$(UNIT_BUILD)/%)
UNIT_OBJS := $(UNIT_COMMON_OBJS) $(UNIT_TEST_OBJS)

# The outside oracle of check_partitions: disk images made by the host's
# sfdisk, each with sfdisk --json's view of it as plain text (see the
# script).  Made before the tests run; the program finds them through
# PART_IMAGE_DIR, compiled in (an environment variable of that name wins).
UNIT_PART_DIR := $(UNIT_BUILD)/partitions
UNIT_PART_STAMP := $(UNIT_PART_DIR)/made
$(UNIT_PART_STAMP): tests/unit/partitions/make_images.sh
	bash $< $(UNIT_PART_DIR)
	touch $@
$(UNIT_BUILD)/tests/unit/check_partitions.o: UNIT_CFLAGS += \
	-DPART_IMAGE_DIR='"$(abspath $(UNIT_PART_DIR))"'

.PHONY: check check-unit unit-progs
# Every program and the data it reads, built but not run (the lab grader).
unit-progs: $(UNIT_PROGS) $(UNIT_PART_STAMP) $(UNIT_CPIO_STAMP) $(UNIT_ELF_STAMP) \
	$(UNIT_EXT2_STAMP)

check: check-unit
# Check gives each test 4 s, there to catch a hang, not to judge speed:
# on a loaded 2-core machine, and three times slower under the
# sanitizers, some tests (check_ext2_dir's 3000 random edits, the ext2
# hole walks) took more than 1 s, so the limit is stretched (the
# environment's CK_TIMEOUT_MULTIPLIER wins).
UNIT_TIMEOUT_MULTIPLIER := $(if $(filter 1,$(UNIT_SAN)),10,4)
check-unit: unit-progs
	@failed=0; \
	for t in $(UNIT_PROGS); do \
		echo "== $$t"; \
		CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-$(UNIT_TIMEOUT_MULTIPLIER)} $$t || failed=1; \
	done; \
	exit $$failed

$(UNIT_PROGS): $(UNIT_BUILD)/%: $(UNIT_BUILD)/tests/unit/%.o $(UNIT_COMMON_OBJS)
	$(UNIT_CC) -o $@ $^ $(UNIT_LDLIBS)

# A static pattern rule, so it cannot compete with the kernel's %.o rules.
$(UNIT_OBJS): $(UNIT_BUILD)/%.o: %.c tests/unit/unit.mk
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -c -o $@ $<

ifndef live-deps
include tools/deps.mk
endif
# every object's headers, the copies built with a model forced in too (a
# header change must rebuild them, or a test links against a stale object)
-include $(call live-deps,$(UNIT_OBJS:.o=.d) $(UNIT_NVME_OBJS:.o=.d) \
	$(UNIT_URING_CQ_OBJS:.o=.d) $(UNIT_URING_TIMEOUT_OBJS:.o=.d))

.DEFAULT_GOAL := $(UNIT_SAVED_GOAL)
