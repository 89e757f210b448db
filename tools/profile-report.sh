#!/bin/sh
# SPDX-License-Identifier: MIT
# profile-report.sh IMG LOG [N] - the kernel profile a guest saved, read by
# util-linux's readprofile(8) with the kernel's System.map.
#
# The guest (booted with profile=<shift>) copied /proc/profile to the
# start of a disk whose raw image is IMG, e.g.
#     dd if=/proc/profile of=/dev/sdb bs=64k conv=fsync
# and its serial log LOG has the profiler's boot line ("... N buckets of B
# bytes ..."), which says how many bytes of IMG are the profile.  Prints
# the N (default 20) functions with the most samples, as readprofile does:
# samples, function, samples per byte of the function ("load").
set -eu
img=$1 log=$2 top=${3:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
map=$root/build/System.map
buckets=$(sed -n 's/.*kernel profiling on: \([0-9]*\) buckets.*/\1/p' "$log" | head -n 1)
if [ -z "$buckets" ]; then
	echo "profile-report: no profiler boot line in $log (booted without profile=?)" >&2
	exit 1
fi
prof=$(mktemp)
trap 'rm -f "$prof"' EXIT
head -c $(( (buckets + 1) * 4 )) "$img" > "$prof"
readprofile -p "$prof" -m "$map" | sort -k1,1nr | head -n "$top"
