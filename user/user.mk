# SPDX-License-Identifier: MIT
# User space: the libc, the programs, and the initramfs that carries them.
#
# Included by the top-level Makefile.  Programs are built with the host's gcc
# as freestanding, static, non-PIE x86-64 ELF executables laid out by
# user/user.ld (ET_EXEC, two PT_LOAD segments, nothing else), against our
# own libc in user/lib/ and headers in user/include/.  Because Spindle's
# system-call ABI is Linux's, the same binaries also run on the build host:
# that is how `make check-user` tests them (tests/user/run.sh).
#
#   build/user/bin/<name>     each program of user/bin/<name>.c
#   build/user/tests/<name>   each test program of tests/user/<name>.c
#   build/rootfs/             the staging tree: /init, /bin, /tests, /etc,
#                             and the empty mount points /dev /proc /sys /tmp
#   build/initramfs.cpio      that tree as a "newc" cpio archive; GRUB loads
#                             it as a multiboot2 module (tools/grub.cfg)
#
# To add a program: write user/bin/<name>.c with a main(); add <name> to
# SPINDLE_PROGS below.  A user-side test goes to tests/user/ and USER_TESTS
# (docs/testing.md, "Where tests live").

U        := user
UTEST    := tests/user
UBUILD   := $(BUILD)/user
ROOTFS   := $(BUILD)/rootfs
INITRAMFS := $(BUILD)/initramfs.cpio

# SPINDLE_PROGS go into both userlands: the I/O path's tools, and the
# programs whose exact behaviour a test depends on (docs/user.md says why
# each); every general tool is busybox's.  OWN_PROGS only into
# USERLAND=own, where busybox is absent: Spindle's own shell.
SPINDLE_PROGS := init dd blkstat pattern bench blktrace elevator poweroff reboot \
	readprofile cksum
OWN_PROGS  := sh
USER_PROGS := $(SPINDLE_PROGS) $(OWN_PROGS)
USER_TESTS := syscalls mmap fuzz hostile_oom_io hostile_dio_leak blkrrpart blkzeroout \
	hostile_exec hostile_fill_tmp hostile_getdents hostile_fifo hostile_deep_tree \
	hostile_leaks hostile_init hostile_forkbomb hostile_console hostile_traps \
	dio_zerocopy faultcheck powercut aio writeback treewalk soak jobctl links access \
	exec_template ttyctl printf_table rwf itimer

# USERLAND=busybox (the default): Debian's busybox-static (make deps
# installs it) joins the initramfs as the shell and the general tools;
# USERLAND=own: Spindle's programs alone, so the kernel is never tested
# only through a program it did not build.
USERLAND ?= busybox
BUSYBOX  ?= /bin/busybox
BUSYBOX_COPYRIGHT ?= /usr/share/doc/busybox-static/copyright
ifeq ($(filter busybox own,$(USERLAND)),)
$(error USERLAND=$(USERLAND): busybox or own)
endif

# Applet links: /bin/<applet> -> busybox for every applet `busybox --list`
# names, except where Spindle has a program of that name (those stay
# Spindle's: docs/user.md says why).  So any program -- an exec from C,
# env, xargs -- finds grep or mv in /bin; busybox picks the applet from
# the name it was run by.  /bin/sh is busybox's ash, which runs the
# scripts of the tests and labs as well as the console.

USER_LIB_OBJS := $(addprefix $(UBUILD)/lib/, crt0.o syscalls.o string.o ctype.o \
	stdlib.o malloc.o printf.o stdio.o errno.o getopt.o unistd.o dirent.o signal.o \
	vsprintf.o kstring.o vdso.o)

# -mgeneral-regs-only: no SSE/x87 registers, so a kernel that does not yet
# save the FPU state across a context switch runs these programs safely.
# -fno-tree-loop-distribute-patterns: keep gcc from turning memset's own
# loop into a call to memset.
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns \
	-fno-pie -fno-pic -fno-stack-protector -fcf-protection=none \
	-fno-asynchronous-unwind-tables -mgeneral-regs-only \
	-nostdinc -isystem $(shell $(CC) -print-file-name=include) -I$(U)/include -Iinclude/uapi \
	-MMD -MP
USER_LDFLAGS := -static -nostdlib -no-pie -Wl,-T,$(U)/user.ld -Wl,--build-id=none \
	-Wl,-z,noexecstack

USER_BINS  := $(USER_PROGS:%=$(UBUILD)/bin/%)
USER_TBINS := $(USER_TESTS:%=$(UBUILD)/tests/%)

# Test programs built with the host's glibc (Debian's libc6-dev), static,
# instead of our libc: the kernel driven by the code real programs use --
# threads and futexes through glibc's pthreads (tests/user/threads.c), the
# rings through Debian's liburing (liburing-dev, installed by make deps),
# so that they are set up and read by liburing itself; /proc/self/auxv
# against glibc's getauxval() (tests/user/auxv.c); futex's requeue and
# wake-op calls between pthreads (tests/user/futex.c); shared memory,
# timerfd, getrusage and the rest fio needs (tests/user/ipc.c); glibc's
# clocks through the vDSO (tests/user/vdso.c); random SQEs
# (tests/user/uring_fuzz.c).  Into /tests too.
GLIBC_TESTS := io_uring io_uring_poll io_uring_cq io_uring_wq io_uring_ops uring_fuzz threads auxv futex ipc vdso
GLIBC_TBINS := $(GLIBC_TESTS:%=$(UBUILD)/glibc/%)
USER_LIBC  := $(UBUILD)/libc.a

# A dynamically linked program, as Debian builds them (a PIE started by
# ld.so) and the library it dlopen()s, with copies whose PT_INTERP is
# damaged (tests/user/dynelf_bad.py); into /tests.  The initramfs gets
# the libraries they need from the host too, at the host's paths: the
# closure that `ldd` (the host's ld.so --list) names, so that a new
# glibc's new file is found without a change here.
DYN      := $(UBUILD)/dyn
DYN_BINS := $(DYN)/dynelf $(DYN)/libdynelf.so $(DYN)/bad.stamp
LDD      ?= ldd

.PHONY: user initramfs check-user
user: $(USER_BINS) $(USER_TBINS) $(GLIBC_TBINS) $(DYN_BINS)
initramfs: $(INITRAMFS)

$(UBUILD)/lib/%.o: $(U)/lib/%.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# The formatter is the kernel's (lib/vsprintf.c: vsnprintf, snprintf), built
# here with the user flags; it needs only the kernel's type and string
# headers, whose names (<spindle/...>) cannot clash with the libc's.
$(UBUILD)/lib/vsprintf.o: lib/vsprintf.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -Iinclude -c $< -o $@

# So are memcpy, strlen and the other C string routines the kernel has, and
# memparse (user/include/memparse.h): lib/string.c, as kstring.o.
$(UBUILD)/lib/kstring.o: lib/string.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -DSPINDLE_USER -Iinclude -c $< -o $@

$(UBUILD)/lib/%.o: $(U)/lib/%.S $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UAS $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(USER_LIBC): $(USER_LIB_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(UBUILD)/bin/%.o: $(U)/bin/%.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(UBUILD)/tests/%.o: $(UTEST)/%.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# crt0.o first (it holds _start), the libc archive, then libgcc for the
# 128-bit divisions gcc may call (__udivti3): it needs no C library.
USER_LINK = $(CC) $(USER_LDFLAGS) -o $@ $(UBUILD)/lib/crt0.o $< $(USER_LIBC) -lgcc
$(UBUILD)/bin/%: $(UBUILD)/bin/%.o $(USER_LIBC) $(U)/user.ld
	$(quiet) ULD $@
	$(Q)$(USER_LINK)

$(UBUILD)/tests/%: $(UBUILD)/tests/%.o $(USER_LIBC) $(U)/user.ld
	$(quiet) ULD $@
	$(Q)$(USER_LINK)

$(UBUILD)/glibc/io_uring: $(UTEST)/io_uring.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/io_uring_wq: $(UTEST)/io_uring_wq.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/io_uring_poll: $(UTEST)/io_uring_poll.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/io_uring_ops: $(UTEST)/io_uring_ops.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/io_uring_cq: $(UTEST)/io_uring_cq.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/threads: $(UTEST)/threads.c $(UTEST)/testline.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -pthread -o $@ $<

$(UBUILD)/glibc/futex: $(UTEST)/futex.c $(UTEST)/testline.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -pthread -o $@ $<

$(UBUILD)/glibc/uring_fuzz: $(UTEST)/uring_fuzz.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $< -luring

$(UBUILD)/glibc/ipc: $(UTEST)/ipc.c $(UTEST)/hostile.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -pthread -o $@ $<

$(UBUILD)/glibc/auxv: $(UTEST)/auxv.c $(UTEST)/testline.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $<

$(UBUILD)/glibc/vdso: $(UTEST)/vdso.c $(UTEST)/testline.h $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static -o $@ $<

$(DYN)/dynelf: $(UTEST)/dynelf.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -pthread -o $@ $<

$(DYN)/libdynelf.so: $(UTEST)/dynelf_lib.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) GLIBCC $<
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -shared -fPIC -o $@ $<

$(DYN)/bad.stamp: $(DYN)/dynelf $(UTEST)/dynelf_bad.py
	$(Q)python3 $(UTEST)/dynelf_bad.py $< $(DYN)
	$(Q)touch $@

# The staging tree is rebuilt from scratch each time, so a program removed
# from the lists does not linger in the archive.  Its copies lose their
# debug information (gdb reads the ones in build/user/bin).  cpio is given the names in
# sorted order with -0 (NUL-separated), `--owner 0:0` so the files are
# root's, and -H newc: the format the kernel's unpacker reads (fs part).
# The userland chosen last, so that changing USERLAND rebuilds the archive.
$(BUILD)/userland: FORCE
	@mkdir -p $(BUILD)
	@echo $(USERLAND) > $@.tmp; cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(INITRAMFS): $(USER_BINS) $(USER_TBINS) $(GLIBC_TBINS) $(DYN_BINS) $(U)/user.mk $(wildcard $(U)/etc/*) \
		$(wildcard $(UTEST)/sh/*) $(wildcard $(UTEST)/ash/*) $(BUILD)/userland
	$(quiet) CPIO $@
	$(Q)rm -rf $(ROOTFS)
	$(Q)mkdir -p $(ROOTFS)/bin $(ROOTFS)/tests $(ROOTFS)/etc $(ROOTFS)/dev \
		$(ROOTFS)/proc $(ROOTFS)/sys $(ROOTFS)/tmp
	$(Q)cp $(SPINDLE_PROGS:%=$(UBUILD)/bin/%) $(ROOTFS)/bin/
	$(Q)if [ $(USERLAND) = own ]; then cp $(OWN_PROGS:%=$(UBUILD)/bin/%) $(ROOTFS)/bin/; fi
	$(Q)cp $(USER_TBINS) $(GLIBC_TBINS) $(ROOTFS)/tests/
	$(Q)cp $(UBUILD)/bin/init $(ROOTFS)/init
	$(Q)strip --strip-debug $(ROOTFS)/init $(ROOTFS)/bin/* $(ROOTFS)/tests/*
	$(Q)cp $(filter-out %.stamp,$(DYN_BINS)) $(DYN)/dynelf-* $(ROOTFS)/tests/
	$(Q)$(LDD) $(DYN)/dynelf $(DYN)/libdynelf.so | \
		awk '$$2 == "=>" && $$3 ~ /^\// { print $$3 } $$1 ~ /^\// { print $$1 }' | sort -u | \
		while read -r lib; do \
			mkdir -p $(ROOTFS)$$(dirname $$lib) && cp -L $$lib $(ROOTFS)$$lib || exit 1; \
		done
	$(Q)mkdir -p $(ROOTFS)/tests/ash && cp $(UTEST)/ash/* $(ROOTFS)/tests/ash/
	$(Q)if [ $(USERLAND) = own ]; then \
		mkdir -p $(ROOTFS)/tests/sh && cp $(UTEST)/sh/* $(ROOTFS)/tests/sh/; \
	fi
	$(Q)if [ $(USERLAND) = busybox ]; then \
		test -x $(BUSYBOX) || { echo "$(BUSYBOX) missing: make deps (busybox-static), or USERLAND=own"; exit 1; }; \
		cp $(BUSYBOX) $(ROOTFS)/bin/busybox && \
		for a in $$($(BUSYBOX) --list); do \
			[ -e $(ROOTFS)/bin/$$a ] || ln -s busybox $(ROOTFS)/bin/$$a || exit 1; \
		done && \
		mkdir -p $(ROOTFS)/usr/share/doc/busybox && \
		cp $(BUSYBOX_COPYRIGHT) $(ROOTFS)/usr/share/doc/busybox/copyright && \
		cp $(U)/etc/profile $(U)/etc/passwd $(U)/etc/group $(ROOTFS)/etc/; \
	fi
	$(Q)cd $(ROOTFS) && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc --owner 0:0 --quiet > $(abspath $@).tmp
	$(Q)mv $@.tmp $@

# Run on the host: the programs are Linux binaries too (Spindle's system calls are Linux's x86-64 ABI).
check-user: $(USER_BINS) $(USER_TBINS) $(GLIBC_TBINS) $(DYN_BINS) $(UBUILD)/printf_glibc
	$(Q)sh $(UTEST)/run.sh $(UBUILD)

# The printf table test: one source, built once with our libc (as a user
# test) and once with the host's glibc, whose output is the oracle.
# (-Wno-format: the table tries odd flag mixes on purpose, e.g. "%-08x")
$(UBUILD)/tests/printf_table.o: $(UTEST)/printf_table.c $(U)/user.mk
	@mkdir -p $(@D)
	$(quiet) UCC $<
	$(Q)$(CC) $(USER_CFLAGS) -Wno-format -c $< -o $@
$(UBUILD)/printf_glibc: $(UTEST)/printf_table.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O1 -Wno-format -o $@ $<

-include $(call live-deps,$(USER_LIB_OBJS:.o=.d) $(USER_BINS:=.d) $(USER_TBINS:=.d))

# The programs' objects are intermediate files: keep them (make would
# otherwise delete them and relink every program each time).
.SECONDARY: $(USER_BINS:=.o) $(USER_TBINS:=.o)
