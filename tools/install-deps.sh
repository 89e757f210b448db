#!/bin/sh
# SPDX-License-Identifier: MIT
# install-deps.sh PACKAGE... - install the Debian packages Spindle needs.
# As root, missing packages are installed with apt-get; otherwise the
# exact command to run is printed and the script fails.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing"
	echo "deps: run as root:  apt-get update && apt-get install -y$missing"
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q && apt-get install -y -q --no-install-recommends $missing
