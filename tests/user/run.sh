#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/user/run.sh BUILD_USER_DIR - test Spindle's user programs on the host.
#
# Spindle's system calls are Linux's (Linux's x86-64 ABI), so the static binaries in
# build/user/bin run here unchanged.  Each case compares a program's output
# with an oracle: a file of expected output (the shell scripts), or the
# host's own tool (GNU dd, GNU cksum, glibc's printf,
# tools/pattern-check.py).  Everything runs in a temporary directory and
# takes a second or two.
#
# Prints the test-output lines of docs/testing.md: "TEST user.<case> PASS" or "... FAIL: <why>",
# then "<N> passed, <M> failed"; exit status 0 only if nothing failed.
# Called by `make check-user` (and so by `make check`).

UB=$(cd "${1:-build/user}" && pwd)
BIN=$UB/bin
SRC=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$SRC/../.." && pwd)
T=$(mktemp -d /tmp/spindle-user.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0

pass() { echo "TEST user.$1 PASS"; passed=$((passed + 1)); }
fail() { echo "TEST user.$1 FAIL: $2"; failed=$((failed + 1)); }

# check NAME EXPECTED_FILE ACTUAL_FILE: pass if equal, else show the diff
check() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "output differs (diff expected actual below)"
		diff "$2" "$3" | head -20 | sed 's/^/    /'
	fi
}

# --- the shell, on scripts with known output --------------------------------
# Each tests/user/sh/NAME.sh runs with our sh and only our programs on
# PATH (the scripts use the shell's builtins and dd, as USERLAND=own has
# them), in an empty directory; stdout+stderr and the exit status must equal
# NAME.out (the status is its last line, "exit N").
for script in "$SRC"/sh/*.sh; do
	name=$(basename "$script" .sh)
	mkdir -p "$T/sh-$name"
	(cd "$T/sh-$name" && PATH="$BIN" HOME="$T" "$BIN/sh" "$script" arg1 arg2 \
		> "$T/sh-$name.out" 2>&1; echo "exit $?" >> "$T/sh-$name.out")
	check "sh_$name" "$SRC/sh/$name.out" "$T/sh-$name.out"
done

# sh -c, and $? of a signal death (128 + 15; the host's kill sends it)
out=$(PATH="$BIN:$PATH" "$BIN/sh" -c 'echo "a  b"; kill -TERM $$' 2>/dev/null; echo "st=$?")
if [ "$out" = "a  b
st=143" ]; then pass sh_dash_c; else fail sh_dash_c "got: $out"; fi

# --- printf: our libc against glibc, the same table built twice -------------
"$UB/tests/printf_table" > "$T/printf.ours"
"$UB/printf_glibc" > "$T/printf.glibc"
check printf_table "$T/printf.glibc" "$T/printf.ours"

# --- test data: random bytes, and text with a long run of zeros ---------------
head -c 200000 /dev/urandom > "$T/rand.bin"
head -c 1500 /dev/urandom > "$T/small.bin"
{ printf 'Hello, Spindle!\n'; head -c 4096 /dev/zero; printf 'tail\001\377 end'; } > "$T/text.bin"
: > "$T/empty"

# --- dd: the same operands through GNU dd and ours, the outputs byte for byte --
dd_case() {         # dd_case NAME OPERANDS... (if=/of= are added here)
	name=$1; shift
	rm -f "$T/dd.gnu" "$T/dd.ours"
	head -c 30000 /dev/urandom > "$T/dd.old"     # a previous content, for notrunc/seek
	cp "$T/dd.old" "$T/dd.gnu"; cp "$T/dd.old" "$T/dd.ours"
	dd if="$T/rand.bin" of="$T/dd.gnu" "$@" 2> "$T/dd.gnu.err"; st_gnu=$?
	"$BIN/dd" if="$T/rand.bin" of="$T/dd.ours" "$@" 2> "$T/dd.ours.err"; st_ours=$?
	# the records lines and the byte count must be equal; the times not
	sed -E 's/copied, .*/copied/' "$T/dd.gnu.err" > "$T/dd.gnu.sum"
	sed -E 's/copied, .*/copied/' "$T/dd.ours.err" > "$T/dd.ours.sum"
	if ! cmp -s "$T/dd.gnu" "$T/dd.ours"; then
		fail "dd_$name" "output files differ: $(cmp "$T/dd.gnu" "$T/dd.ours" 2>&1)"
	elif [ "$st_gnu" != "$st_ours" ]; then
		fail "dd_$name" "exit status $st_ours, GNU dd's $st_gnu"
	elif ! cmp -s "$T/dd.gnu.sum" "$T/dd.ours.sum"; then
		fail "dd_$name" "summary differs: $(diff "$T/dd.gnu.sum" "$T/dd.ours.sum" | tr '\n' ' ')"
	else
		pass "dd_$name"
	fi
}
dd_case bs4k bs=4096
dd_case bs1M_count bs=1M count=1
dd_case odd_bs bs=777 count=100
dd_case default_bs count=50
dd_case skip_seek bs=1000 skip=3 seek=5 count=7
dd_case notrunc bs=512 count=2 conv=notrunc
dd_case seek_notrunc bs=512 seek=3 count=2 conv=notrunc
dd_case suffix bs=2x1k count=3 conv=fsync
dd_case ibs_obs ibs=1000 obs=3000
dd_case status_none bs=64k status=none
dd_case noxfer bs=64k status=noxfer
dd_case past_end bs=64k skip=100

# pipes: short reads are partial records; without bs=, output is reblocked.
# How a pipe's writer and reader interleave is up to the host's scheduler,
# so the split between full and partial records may differ from run to run
# (5+0 or 4+2 records for the same 5000 bytes): compare the data and the
# bytes line, and only the shape of the records lines.
for args in "bs=1000" ""; do
	head -c 5000 "$T/rand.bin" | dd of="$T/p.gnu" $args 2> "$T/p.gnu.err"
	head -c 5000 "$T/rand.bin" | "$BIN/dd" of="$T/p.ours" $args 2> "$T/p.ours.err"
	for w in gnu ours; do
		sed -E 's/copied, .*/copied/; s/^[0-9]+\+[0-9]+ records (in|out)$/N+M records \1/' \
			"$T/p.$w.err" > "$T/p.$w.sum"
	done
	if cmp -s "$T/p.gnu" "$T/p.ours" && cmp -s "$T/p.gnu.sum" "$T/p.ours.sum"; then
		pass "dd_pipe${args:+_bs}"
	else
		fail "dd_pipe${args:+_bs}" "$(diff "$T/p.gnu.sum" "$T/p.ours.sum" | tr '\n' ' ')"
	fi
done

# the third line's layout, sizes from 0 bytes to 1 GiB: "N bytes (X, Y) copied,
# T s, R/s" -- same words and units, T a %g number, R a number and unit
layout() {
	sed -E -e 's/copied, [0-9.e+-]+ s, [0-9.]+ [kMGT]?B\/s$/copied, T s, R/' \
	       -e 's/copied, [0-9.e+-]+ s, Infinity B\/s$/copied, T s, R/'
}
bad=""
for spec in "bs=1 count=0" "bs=1 count=1" "bs=999 count=1" "bs=1000 count=1" \
	    "bs=1024 count=1" "bs=1500 count=1" "bs=4k count=3" "bs=1M count=1" \
	    "bs=1M count=16" "bs=1000000 count=3" "bs=1M count=1000" "bs=64k count=16384"; do
	dd if=/dev/zero of=/dev/null $spec 2>&1 | layout > "$T/l.gnu"
	"$BIN/dd" if=/dev/zero of=/dev/null $spec 2>&1 | layout > "$T/l.ours"
	cmp -s "$T/l.gnu" "$T/l.ours" || bad="$bad [$spec: $(tail -1 "$T/l.ours") vs $(tail -1 "$T/l.gnu")]"
done
if [ -z "$bad" ]; then pass dd_summary_layout; else fail dd_summary_layout "$bad"; fi

# error messages and statuses
"$BIN/dd" if="$T/nonexistent" of=/dev/null 2> "$T/e1"; s1=$?
"$BIN/dd" if=/dev/zero bogus=1 2> "$T/e2"; s2=$?
"$BIN/dd" if=/dev/zero bs=12x 2> "$T/e3"; s3=$?
if [ $s1 = 1 ] && [ $s2 = 1 ] && [ $s3 = 1 ] &&
   grep -qx "dd: failed to open '$T/nonexistent': No such file or directory" "$T/e1" &&
   grep -qx "dd: unrecognized operand 'bogus=1'" "$T/e2" &&
   grep -qx "dd: invalid number: '12x'" "$T/e3"; then
	pass dd_errors
else
	fail dd_errors "statuses $s1 $s2 $s3: $(cat "$T/e1" "$T/e2" "$T/e3" | tr '\n' ' ')"
fi

# --- cksum against GNU cksum: files (lengths of 0, 1..3 length bytes), stdin, a missing file
for f in empty small.bin text.bin rand.bin; do
	(cd "$T" && cksum "$f" > ck.host && "$BIN/cksum" "$f" > ck.ours)
	check "cksum_${f%.bin}" "$T/ck.host" "$T/ck.ours"
done
(cd "$T" && cksum small.bin empty rand.bin > ck.host && "$BIN/cksum" small.bin empty rand.bin > ck.ours)
check cksum_several "$T/ck.host" "$T/ck.ours"
cksum < "$T/rand.bin" > "$T/ck.host"; "$BIN/cksum" < "$T/rand.bin" > "$T/ck.ours"
check cksum_stdin "$T/ck.host" "$T/ck.ours"
head -c 70000 /dev/zero > "$T/zeros.bin"    # three length bytes, a 64 KiB read and a short one
(cd "$T" && cksum zeros.bin > ck.host && "$BIN/cksum" zeros.bin > ck.ours)
check cksum_zeros "$T/ck.host" "$T/ck.ours"
(cd "$T" && "$BIN/cksum" nonexistent small.bin > ck.ours 2> ck.err; echo "status $?" >> ck.ours)
if grep -qx "cksum: nonexistent: No such file or directory" "$T/ck.err" &&
   grep -q "^status 1$" "$T/ck.ours" && grep -q " small.bin$" "$T/ck.ours"; then
	pass cksum_missing_file
else
	fail cksum_missing_file "$(cat "$T/ck.err" "$T/ck.ours" | tr '\n' ' ')"
fi

# --- pattern: ours writes, tools/pattern-check.py (the outside oracle) reads ----
truncate -s 8M "$T/disk.img"
out=$("$BIN/pattern" write "$T/disk.img" 1M 2M 42)
if [ "$out" = "PATTERN write $T/disk.img 1048576 2097152 OK" ] &&
   python3 "$ROOT/tools/pattern-check.py" "$T/disk.img" 1M 2M 42 > /dev/null &&
   python3 "$ROOT/tools/pattern-check.py" "$T/disk.img" 0 1M 0 --zero > /dev/null; then
	pass pattern_write
else
	fail pattern_write "$out / pattern-check: $(python3 "$ROOT/tools/pattern-check.py" "$T/disk.img" 1M 2M 42 2>&1 | head -2)"
fi
out=$("$BIN/pattern" verify "$T/disk.img" 1M 2M 42)
[ "$out" = "PATTERN verify $T/disk.img 1048576 2097152 OK" ] && pass pattern_verify ||
	fail pattern_verify "$out"
printf '\125' | dd of="$T/disk.img" bs=1 seek=$((1048576 + 4100)) conv=notrunc 2>/dev/null
out=$("$BIN/pattern" verify "$T/disk.img" 1M 2M 42); st=$?
[ "$out" = "PATTERN verify $T/disk.img 1048576 2097152 FAIL: 1052676" ] && [ $st = 1 ] &&
	pass pattern_detects || fail pattern_detects "$out (status $st)"

# --- fixes a review found, each against what GNU/POSIX do --------------------
# dd: bs= wins over ibs=/obs= in any order; seek= on standard output
"$BIN/dd" if="$T/rand.bin" of="$T/bsw.ours" bs=1024 ibs=10 count=3 2>/dev/null
dd if="$T/rand.bin" of="$T/bsw.gnu" bs=1024 ibs=10 count=3 2>/dev/null
cmp -s "$T/bsw.ours" "$T/bsw.gnu" && pass dd_bs_wins || fail dd_bs_wins \
	"$(stat -c %s "$T/bsw.ours") bytes, GNU $(stat -c %s "$T/bsw.gnu")"
printf XXXXXXXX > "$T/so.ours"; printf XXXXXXXX > "$T/so.gnu"; printf abcdef > "$T/so.in"
"$BIN/dd" if="$T/so.in" bs=1 seek=2 status=none 1<>"$T/so.ours"
dd if="$T/so.in" bs=1 seek=2 status=none 1<>"$T/so.gnu"
cmp -s "$T/so.ours" "$T/so.gnu" && pass dd_seek_stdout || fail dd_seek_stdout "$(cat "$T/so.ours")"
# sh: $# past 9; builtins with redirections run in the shell; a too-long
# line is refused whole, not run as two commands
out=$(cd "$T" && PATH="$BIN" "$BIN/sh" -c 'echo $#; cd / >/dev/null; pwd; exit 3 2>/dev/null; echo no' \
	x 1 2 3 4 5 6 7 8 9 10 11; echo "st=$?")
[ "$out" = "11
/
st=3" ] && pass sh_builtins_and_args || fail sh_builtins_and_args "$(echo "$out" | tr '\n' ' ')"
out=$(python3 -c "print('echo '+'a'*5000+' ; echo second')" | PATH="$BIN" "$BIN/sh" 2>&1; echo "st=$?")
[ "$out" = "sh: line too long
st=2" ] && pass sh_long_line || fail sh_long_line "$(echo "$out" | cut -c1-80 | tr '\n' ' ')"
# --- the user-side test programs, on Linux: the answers Spindle must match ----
# syscalls' block-device cases need a disk: a loop device over a temp file
# when this host lets us make one (root, loop driver), else they SKIP.
truncate -s 16M "$T/loop.img"
loopdev=$(losetup -f --show "$T/loop.img" 2>/dev/null) || loopdev=""
PATH="$BIN" "$UB/tests/syscalls" "${loopdev#/dev/}" > "$T/syscalls.out" 2>&1
# aio: Linux's io_submit and friends answer as Spindle's must; the data
# it wrote is checked in the image by the host's pattern-check
if [ -n "$loopdev" ]; then
	"$UB/tests/aio" "${loopdev#/dev/}" > "$T/aio.out" 2>&1
	sync
fi
[ -n "$loopdev" ] && losetup -d "$loopdev"
if grep -q '^[0-9]* passed, 0 failed' "$T/syscalls.out"; then
	pass "syscalls_on_linux${loopdev:+_with_loop}"
else
	fail syscalls_on_linux "$(grep -e FAIL -e passed "$T/syscalls.out" | tr '\n' ' ')"
fi
if [ -z "$loopdev" ]; then
	echo "TEST user.aio_on_linux SKIP: no loop device"
elif grep -q '^[0-9]* passed, 0 failed' "$T/aio.out" &&
     python3 "$ROOT/tools/pattern-check.py" "$T/loop.img" 1M 2M 11 > "$T/aio.check" 2>&1 &&
     python3 "$ROOT/tools/pattern-check.py" "$T/loop.img" 4M 128K 12 >> "$T/aio.check" 2>&1 &&
     python3 "$ROOT/tools/pattern-check.py" "$T/loop.img" 5M 4K 13 >> "$T/aio.check" 2>&1; then
	pass aio_on_linux_with_loop
else
	fail aio_on_linux "$(grep -e FAIL -e passed "$T/aio.out" "$T/aio.check" | tr '\n' ' ')"
fi
# io_uring: the liburing program (built with glibc) against Linux's
# io_uring, on a loop device of its own; its writes checked in the image
truncate -s 16M "$T/uring.img"
uringdev=$(losetup -f --show "$T/uring.img" 2>/dev/null) || uringdev=""
if [ -n "$uringdev" ]; then
	"$UB/glibc/io_uring" "${uringdev#/dev/}" > "$T/io_uring.out" 2>&1
	sync
	losetup -d "$uringdev"
fi
if [ -z "$uringdev" ]; then
	echo "TEST user.io_uring_on_linux SKIP: no loop device"
elif grep -q '^TEST io_uring.probe FAIL.*(errno \(1\|38\) ' "$T/io_uring.out"; then
	echo "TEST user.io_uring_on_linux SKIP: this host refuses io_uring"
elif grep -q '^[0-9]* passed, 0 failed' "$T/io_uring.out" &&
     python3 "$ROOT/tools/pattern-check.py" "$T/uring.img" 1M 2M 21 > "$T/io_uring.check" 2>&1 &&
     python3 "$ROOT/tools/pattern-check.py" "$T/uring.img" 4M 128K 22 >> "$T/io_uring.check" 2>&1 &&
     python3 "$ROOT/tools/pattern-check.py" "$T/uring.img" 6M 128K 24 >> "$T/io_uring.check" 2>&1 &&
     python3 "$ROOT/tools/pattern-check.py" "$T/uring.img" 7M 32K 26 >> "$T/io_uring.check" 2>&1; then
	pass io_uring_on_linux_with_loop
else
	fail io_uring_on_linux "$(grep -e FAIL -e passed "$T/io_uring.out" "$T/io_uring.check" | tr '\n' ' ')"
fi
# io_uring_cq: a full CQ's overflow list on Linux, the oracle for
# tests/qemu/scenarios/io_uring-cq.scn (the reads from a file of our own)
if grep -q '^TEST io_uring.probe FAIL.*(errno \(1\|38\) ' "$T/io_uring.out" 2>/dev/null; then
	echo "TEST user.io_uring_cq_on_linux SKIP: this host refuses io_uring"
else
	dd if=/dev/zero of="$T/uring_cq.dat" bs=64k count=1 2>/dev/null
	"$UB/glibc/io_uring_cq" "$T/uring_cq.dat" > "$T/io_uring_cq.out" 2>&1
	grep -qx '6 passed, 0 failed' "$T/io_uring_cq.out" && pass io_uring_cq_on_linux ||
		fail io_uring_cq_on_linux "$(grep -e FAIL -e passed "$T/io_uring_cq.out" | tr '\n' ' ')"
fi
# io_uring_wq: requests that would block go to io-wq, on Linux: the
# oracle for tests/qemu/scenarios/io_uring-wq.scn
if grep -q '^TEST io_uring.probe FAIL.*(errno \(1\|38\) ' "$T/io_uring.out" 2>/dev/null; then
	echo "TEST user.io_uring_wq_on_linux SKIP: this host refuses io_uring"
else
	"$UB/glibc/io_uring_wq" "$T/uring_wq.dat" > "$T/io_uring_wq.out" 2>&1
	grep -qx '8 passed, 0 failed' "$T/io_uring_wq.out" && pass io_uring_wq_on_linux ||
		fail io_uring_wq_on_linux "$(grep -e FAIL -e passed "$T/io_uring_wq.out" | tr '\n' ' ')"
fi
# io_uring_ops: TIMEOUT, TIMEOUT_REMOVE, ASYNC_CANCEL and EXT_ARG on
# Linux, the oracle for tests/qemu/scenarios/io_uring-ops.scn; the read
# in flight from a loop device of its own when there is one (dropped
# needs Spindle's fault point: it skips)
if grep -q '^TEST io_uring.probe FAIL.*(errno \(1\|38\) ' "$T/io_uring.out" 2>/dev/null; then
	echo "TEST user.io_uring_ops_on_linux SKIP: this host refuses io_uring"
else
	truncate -s 1M "$T/uring_ops.img"
	opsdev=$(losetup -f --show "$T/uring_ops.img" 2>/dev/null) || opsdev=""
	if [ -n "$opsdev" ]; then
		"$UB/glibc/io_uring_ops" "${opsdev#/dev/}" "${opsdev#/dev/}" > "$T/io_uring_ops.out" 2>&1
		losetup -d "$opsdev"
	else
		"$UB/glibc/io_uring_ops" > "$T/io_uring_ops.out" 2>&1
	fi
	grep -q '^[0-9]* passed, 0 failed' "$T/io_uring_ops.out" && pass io_uring_ops_on_linux ||
		fail io_uring_ops_on_linux "$(grep -e FAIL -e passed "$T/io_uring_ops.out" | tr '\n' ' ')"
fi
# auxv: /proc/self/auxv against getauxval() and the stack on Linux, the
# oracle for the file's format (tests/qemu/scenarios/proc-auxv.scn)
"$UB/glibc/auxv" > "$T/auxv.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/auxv.out" && pass auxv_on_linux ||
	fail auxv_on_linux "$(grep -e FAIL -e passed "$T/auxv.out" | tr '\n' ' ')"
# vdso: Linux's vDSO found, parsed and called as Spindle's is; its clock
# calls shown to make no system call by a seccomp filter that fails them
# (tests/qemu/scenarios/vdso.scn)
"$UB/glibc/vdso" > "$T/vdso.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/vdso.out" && pass vdso_on_linux ||
	fail vdso_on_linux "$(grep -e FAIL -e passed "$T/vdso.out" | tr '\n' ' ')"

# threads: glibc's pthreads and futex(2) on Linux, the oracle for what
# the same binary must see in the guest (tests/qemu/scenarios/threads.scn)
"$UB/glibc/threads" > "$T/threads.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/threads.out" && pass threads_on_linux ||
	fail threads_on_linux "$(grep -e FAIL -e passed "$T/threads.out" | tr '\n' ' ')"

# futex: FUTEX_REQUEUE, FUTEX_CMP_REQUEUE and FUTEX_WAKE_OP on Linux, the
# oracle for their counts and errnos (tests/qemu/scenarios/futex-requeue.scn)
"$UB/glibc/futex" > "$T/futex.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/futex.out" && pass futex_on_linux ||
	fail futex_on_linux "$(grep -e FAIL -e passed "$T/futex.out" | tr '\n' ' ')"

# ipc: shared memory, process-shared futexes, timerfd, getrusage, nice
# and the NUMA policy calls on Linux, the oracle for what the same binary
# must see in the guest (tests/qemu/scenarios/ipc.scn)
mkdir -p "$T/ipc"
"$UB/glibc/ipc" "$T/ipc" > "$T/ipc.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/ipc.out" && pass ipc_on_linux ||
	fail ipc_on_linux "$(grep -e FAIL -e passed "$T/ipc.out" | tr '\n' ' ')"

# dynelf: a dynamically linked PIE through the host's ld.so, the oracle
# for tests/qemu/scenarios/dynelf.scn; and execve's errno for each copy
# whose PT_INTERP is damaged (tests/user/dynelf_bad.py), which the
# scenario expects from Spindle: Linux's own answers
(cd "$UB/dyn" && DYNELF=hello ./dynelf one "two words" && ./dynelf --exec-errors) \
	> "$T/dynelf.out" 2>&1
if grep -qx 'dynelf: all checks passed' "$T/dynelf.out" &&
   [ "$(grep -c '^dynelf: execve .* (\(ENOENT\|ELIBBAD\|EIO\|EACCES\|ENOEXEC\))$' "$T/dynelf.out")" = 7 ] &&
   grep -q 'dynelf-missing-ld: .*(ENOENT)' "$T/dynelf.out" &&
   grep -q 'dynelf-text-ld: .*(ELIBBAD)' "$T/dynelf.out" &&
   grep -q 'dynelf-empty-ld: .*(EIO)' "$T/dynelf.out" &&
   grep -q 'dynelf-dir-ld: .*(EACCES)' "$T/dynelf.out" &&
   grep -q 'dynelf-unterminated: .*(ENOEXEC)' "$T/dynelf.out"; then
	pass dynelf_on_linux
else
	fail dynelf_on_linux "$(grep -e NO -e FAIL -e execve "$T/dynelf.out" | tr '\n' ' ')"
fi

# jobctl: Linux's answers for stop and continue (WUNTRACED, WCONTINUED,
# the T state, SIGCHLD and SA_NOCLDSTOP, orphaned groups, waitid)
"$UB/tests/jobctl" > "$T/jobctl.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/jobctl.out" && pass jobctl_on_linux ||
	fail jobctl_on_linux "$(grep -e FAIL -e passed "$T/jobctl.out" | tr '\n' ' ')"
# itimer: Linux's alarm, setitimer and getitimer (ITIMER_REAL) and the
# SIGALRM they send
"$UB/tests/itimer" > "$T/itimer.out" 2>&1
grep -qx '[1-9][0-9]* passed, 0 failed' "$T/itimer.out" && pass itimer_on_linux ||
	fail itimer_on_linux "$(grep -e FAIL -e passed "$T/itimer.out" | tr '\n' ' ')"
# hostile_fifo's open_* cases: opening a FIFO waits for the other end
# (ENXIO for a non-blocking writer with no reader, EINTR under a signal)
for c in open_reader_waits open_writer_waits open_nonblock open_interrupted; do
	"$UB/tests/hostile_fifo" $c "$T"
done > "$T/fifo.out" 2>&1
[ "$(grep -c '^1 passed, 0 failed$' "$T/fifo.out")" = 4 ] && pass fifo_open_on_linux ||
	fail fifo_open_on_linux "$(grep -e FAIL -e passed "$T/fifo.out" | tr '\n' ' ')"
# links: link, symlink, rename, chmod, chown, truncate -- Linux's answers
# on a tmpfs it mounts itself in $T (as root; else on $T's file system)
"$UB/tests/links" "$T" > "$T/links.out" 2>&1; st=$?
if [ $st -eq 0 ] && grep -q '^[0-9]* passed, 0 failed' "$T/links.out"; then
	pass links_on_linux
else
	fail links_on_linux "$(grep -e FAIL -e passed "$T/links.out" | tr '\n' ' ')"
fi
"$UB/tests/fuzz" 3000 1 > "$T/fuzz.out" 2>&1
grep -qx '2 passed, 0 failed' "$T/fuzz.out" && pass fuzz_on_linux ||
	fail fuzz_on_linux "$(tr '\n' ' ' < "$T/fuzz.out")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
