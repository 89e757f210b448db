# SPDX-License-Identifier: MIT
# Coverage-guided fuzzing of the parsers of outside data (host side).
#
# Included by the top-level Makefile.  Every target is
# build/fuzz/fuzz_<name>, made of tests/fuzz/fuzz_<name>.c, the kernel
# sources it parses with (FUZZ_SRCS_<name>) and the host shim of the unit
# tests (tests/unit/shim/host.c: printk into a buffer, panic = abort),
# compiled by clang with libFuzzer, AddressSanitizer and UBSan.
#
#   make fuzz                       every target, FUZZ_SECONDS (180) each
#   make fuzz FUZZ_TARGETS=dm FUZZ_SECONDS=600
#   make fuzz-smoke                 every target a few seconds; fails on a crash
#   make fuzz-build                 build them only
#
# The corpus grows in build/fuzz/corpus/<name>/ (seeded from the committed
# tests/fuzz/corpus/<name>/ on every run, never written back); a crash
# leaves its input in build/fuzz/crashes/<name>/.  tests/fuzz/run.sh runs
# one target and prints its summary line.  docs/testing.md, "Fuzzing",
# says how to add a target.

FUZZ_BUILD    := $(BUILD)/fuzz
FUZZ_CC       ?= clang-14
FUZZ_SECONDS  ?= 180
FUZZ_SMOKE_SECONDS ?= 8
FUZZ_ALL      := partitions dm cmdline elf initramfs ext2 jbd2
FUZZ_TARGETS  ?= $(FUZZ_ALL)

# The same forced-in host.h as the unit tests (tests/unit/unit.mk): the
# kernel's memcpy, snprintf ... are the ones under test, libc's stay apart.
# -fno-sanitize-recover: a UBSan report is a crash the fuzzer keeps.
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude \
	-DSPINDLE_HOST -DSPINDLE_FUZZ -include tests/unit/shim/host.h \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -MMD -MP
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined

FUZZ_SHIM := tests/unit/shim/host.c lib/string.c lib/vsprintf.c

# What each target parses with.
FUZZ_SRCS_partitions := block/partitions/check.c block/partitions/msdos.c \
	block/partitions/efi.c lib/crc32.c
FUZZ_SRCS_dm         := drivers/md/dm-init.c
FUZZ_SRCS_cmdline    := lib/cmdline.c
FUZZ_SRCS_elf        := kernel/elf_check.c
FUZZ_SRCS_initramfs  := fs/initramfs.c
FUZZ_SRCS_ext2       := fs/ext2/check.c fs/ext2/htree.c lib/ratelimit.c
FUZZ_SRCS_jbd2       := fs/jbd2/journal.c fs/jbd2/recovery.c fs/jbd2/revoke.c lib/crc32.c

FUZZ_PROGS := $(FUZZ_ALL:%=$(FUZZ_BUILD)/fuzz_%)

# Objects of one target: its own file, its sources, the shim.
fuzz_objs = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,tests/fuzz/fuzz_$(1).c \
	$(FUZZ_SRCS_$(1)) $(FUZZ_SHIM))

$(foreach t,$(FUZZ_ALL),$(eval $(FUZZ_BUILD)/fuzz_$(t): $(call fuzz_objs,$(t))))
$(FUZZ_PROGS):
	$(FUZZ_CC) -o $@ $^ $(FUZZ_LDFLAGS)

FUZZ_OBJS := $(sort $(foreach t,$(FUZZ_ALL),$(call fuzz_objs,$(t))))
$(FUZZ_OBJS): $(FUZZ_BUILD)/obj/%.o: %.c tests/fuzz/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

-include $(call live-deps,$(FUZZ_OBJS:.o=.d))

.PHONY: fuzz fuzz-smoke fuzz-build
fuzz-build: deps $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# One target after the other (-j1 style: one core for the fuzzer, one for
# whoever else uses the machine); every target runs even after one crashed,
# and the run fails if any did.
fuzz_run = failed=0; \
	for t in $(FUZZ_TARGETS); do \
		bash tests/fuzz/run.sh $(FUZZ_BUILD) $$t $(1) || failed=1; \
	done; \
	exit $$failed

fuzz: fuzz-build
	@$(call fuzz_run,$(FUZZ_SECONDS))

fuzz-smoke: fuzz-build
	@$(call fuzz_run,$(FUZZ_SMOKE_SECONDS))

# The fuzzing toolchain: clang and its compiler-rt (libFuzzer and the
# sanitizer runtimes), Debian 12's LLVM 14.
DEB_PACKAGES += clang-14 libclang-rt-14-dev
