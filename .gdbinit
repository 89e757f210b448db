# GDB setup for `make qemu-gdb` (as in xv6): load the kernel's symbols and
# connect to QEMU's GDB stub.  GDB only reads a project's .gdbinit when
# allowed; once, run:
#     echo "add-auto-load-safe-path $(pwd)/.gdbinit" >> ~/.gdbinit
set confirm off
set architecture i386:x86-64
file build/spindle.elf
target remote localhost:1234
echo + target remote localhost:1234\n
echo + symbols from build/spindle.elf; try: break start_kernel, continue\n
