#!/bin/sh
# tests/user/run.sh BUILD_USER_DIR - test Spindle's user programs on the host.
#
# Spindle's system calls are Linux's (contract 1), so the static binaries in
# build/user/bin run here unchanged.  Each case compares a program's output
# with an oracle: a file of expected output (the shell scripts), or the
# host's own tool (GNU dd, util-linux hexdump, cmp, glibc's printf,
# tools/pattern-check.py).  Everything runs in a temporary directory and
# takes a second or two.
#
# Prints DESIGN.md's lines: "TEST user.<case> PASS" or "... FAIL: <why>",
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
# Each tests/user/sh/NAME.sh runs with our sh, our programs first on PATH,
# in an empty directory; stdout+stderr and the exit status must equal
# NAME.out (the status is its last line, "exit N").
for script in "$SRC"/sh/*.sh; do
	name=$(basename "$script" .sh)
	mkdir -p "$T/sh-$name"
	(cd "$T/sh-$name" && PATH="$BIN" HOME="$T" "$BIN/sh" "$script" arg1 arg2 \
		> "$T/sh-$name.out" 2>&1; echo "exit $?" >> "$T/sh-$name.out")
	check "sh_$name" "$SRC/sh/$name.out" "$T/sh-$name.out"
done

# sh -c, and $? of a signal death (128 + 15)
out=$(PATH="$BIN" "$BIN/sh" -c 'echo "a  b"; kill -TERM $$' 2>/dev/null; echo "st=$?")
if [ "$out" = "a  b
st=143" ]; then pass sh_dash_c; else fail sh_dash_c "got: $out"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
