#!/bin/sh
# SPDX-License-Identifier: MIT
# deb-src.sh - a deb-src source for `apt-get source`, beside the image's
# binary-only sources (their files say `Types: deb`).  `make jimages`
# fetches e2fsprogs' source package for its journal test images with it.
#
# Writes /etc/apt/sources.list.d/spindle-deb-src.sources (Debian's main
# archive, this release) and runs apt-get update, once: when the file is
# already there as written, nothing happens.  Not as root, the command is
# printed and the script succeeds: the build does not need it, and
# tools/jimages.py says so when its fetch fails.
LIST=/etc/apt/sources.list.d/spindle-deb-src.sources
# shellcheck disable=SC1091 # the running system's, not ours to follow
[ -r /etc/os-release ] && . /etc/os-release
SUITE=${VERSION_CODENAME:-bookworm}
WANT="Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"

[ -f "$LIST" ] && [ "$(cat "$LIST")" = "$WANT" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: no deb-src source for make jimages; as root: make deps"
	exit 0
fi
echo "deps: writing $LIST (deb-src for apt-get source)"
printf '%s\n' "$WANT" >"$LIST" && apt-get update -q
