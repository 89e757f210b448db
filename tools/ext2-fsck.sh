#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ext2-fsck.sh IMG - the host's e2fsck on the ext2 file system in IMG's
# first partition (tools/ext2-image.sh's layout: 1 MiB on), read-only
# (-fn: a full check, nothing changed).  Copies the partition to IMG.fs,
# where debugfs can then look (debugfs -R 'dump /f out' IMG.fs).  Exit
# status: e2fsck's (0 only for a clean file system).
set -euo pipefail
img=$1
dd if="$img" of="$img.fs" bs=1M skip=1 status=none
e2fsck -fn "$img.fs"
