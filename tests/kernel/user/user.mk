# SPDX-License-Identifier: MIT
# The user test suite's programs (tests/kernel/user/), built as static,
# non-PIE x86-64 executables at 0x400000 -- what Spindle's exec loads --
# and linked into the kernel image by embed.S (.incbin), where exec finds
# them as /ktest/<name>.  Freestanding: no libc, their own syscall stubs.

UT      := tests/kernel/user
UT_OUT  := $(BUILD)/$(UT)
UT_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-nostdlib -static -fno-pie -no-pie -fno-stack-protector \
	-fcf-protection=none -fno-asynchronous-unwind-tables \
	-Wl,-z,max-page-size=4096 -Wl,--build-id=none -Wl,-z,noexecstack

$(UT_OUT)/usertest.elf: $(UT)/usertest.c $(UT)/start.S $(UT)/user.mk
	@mkdir -p $(dir $@)
	$(quiet) UCC $@
	$(Q)$(CC) $(UT_CFLAGS) -o $@ $(UT)/start.S $(UT)/usertest.c

# embed.S names the ELF by its file name; the assembler finds it in this
# build's folder (so BUILD=build/own embeds its own), and make knows the
# dependency from here.
$(BUILD)/$(UT)/embed.o: $(UT_OUT)/usertest.elf
$(BUILD)/$(UT)/embed.o: ASFLAGS += -Wa,-I$(UT_OUT)
