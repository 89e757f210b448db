# GDB setup for `make qemu-gdb` (as in xv6): load the kernel's symbols and
# the Spindle commands (tools/gdb/spindle.py: sp-help lists them), and
# connect to QEMU's GDB stub.
#
# GDB reads a project's .gdbinit only when allowed.  Either allow this one
# once:
#     echo "add-auto-load-safe-path $(pwd)/.gdbinit" >> ~/.gdbinit
# and run `gdb` here, or run `make gdb`, which passes this file explicitly
# (gdb -nx -x .gdbinit) and needs no permission.  docs/debugging.md has a
# walk-through.
set confirm off
set pagination off
set architecture i386:x86-64
file build/spindle.elf
source tools/gdb/spindle.py
target remote localhost:1234
echo + target remote localhost:1234\n
echo + symbols from build/spindle.elf; try: break start_kernel, continue; sp-ps\n
