#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh BUILD NAME SECONDS - run one fuzz target (make fuzz, tests/fuzz/fuzz.mk)
# and print its summary line:
#
#   fuzz dm: 1524548 execs, cov 187 edges (last new at exec 205607), corpus 410, crashes 0
#
# The fuzzer reads the committed seeds (tests/fuzz/corpus/NAME/) and the
# corpus of earlier runs, and writes what it finds only to
# BUILD/corpus/NAME/: the repository is never written.  A crash, leak or
# timeout stops the target; its input is kept in BUILD/crashes/NAME/, and
# the summary ends with the command that replays it.  The whole output is
# in BUILD/NAME.log.  Exit status: 0, or 1 when the target found something.
set -uo pipefail

build=$1 name=$2 seconds=$3
prog=$build/fuzz_$name
corpus=$build/corpus/$name
crashes=$build/crashes/$name
seeds=tests/fuzz/corpus/$name
log=$build/$name.log

stamp=$build/$name.started
mkdir -p "$corpus" "$crashes"
touch "$stamp"
# One process, one job (the machine is shared); -timeout: an input that
# takes a second is a hang in a parser whose every loop should be bounded.
"$prog" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$crashes/" \
	"$corpus" "$seeds" > "$log" 2>&1
status=$?

# libFuzzer's own figures: the executions from its final statistics, the
# edges ("cov:") and corpus ("corp: <units>/<bytes>") from its last
# status line, and the execution count of the last line that found a new
# edge -- late or early tells whether coverage was still growing.
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
corp=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
last_new=$(awk '$1 ~ /^#[0-9]+$/ && /cov: / {
	for (i = 1; i <= NF; i++) if ($i == "cov:") c = $(i + 1)
	if (c != prev) { at = substr($1, 2); prev = c } }
	END { print at + 0 }' "$log")
# What this run left (older inputs in the folder were reported before).
new_crashes() {
	find "$crashes" -type f -newer "$stamp" \( -name 'crash-*' -o \
		-name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort
}
ncrash=$(new_crashes | wc -l)
found=$(new_crashes | tail -n 1)

line="fuzz $name: ${execs:-?} execs, cov ${cov:-?} edges (last new at exec ${last_new:-?}), corpus ${corp:-?}, crashes $ncrash"
if [ "$status" -ne 0 ] || [ "$ncrash" -ne 0 ]; then
	if [ -n "$found" ]; then
		line="$line; replay: $prog $found"
	else
		line="$line; fuzzer exited $status, see $log"
	fi
	echo "$line"
	exit 1
fi
echo "$line"
