#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - build the example project through mcount-cc and show its
# __mcount_loc tables (what `make demo` runs).  Builds a copy of examples/
# in a temporary directory; nothing in the source tree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
work=$(mktemp -d "${TMPDIR:-/tmp}/mcount-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cp -R "$here/." "$work"
rm -rf "$work/build" "$work/config.mk" "$work/config.h"
cd "$work"

step() { printf '\n== %s\n' "$*"; }

step "build with make -j2 CC=\"mcount-cc gcc\" (every -c compile gets -pg and a table; the link runs gcc unchanged)"
make -j2 V=1 CC="$top/bin/mcount-cc gcc"

step "the table of lib/calc/arith.o (divide and power are static)"
"$top/bin/mcount-record" --list build/lib/calc/arith.o

step "the table of the linked program"
"$top/bin/mcount-record" --list build/rpncalc

step "verify: every entry is a call to mcount and every call has an entry"
"$top/bin/mcount-record" --verify build/lib/calc/arith.o build/lib/calc/stack.o \
	build/app/main.o build/app/format.o build/rpncalc

step "the program still works"
make check CC="$top/bin/mcount-cc gcc"
