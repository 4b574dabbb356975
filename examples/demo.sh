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

# The tracer: rpncalc reads expressions from a pipe while mcount-trace
# switches one function on and off in the running process.
if [ -x "$top/build/libmcount-trace.so" ] || [ -f "$top/build/libmcount-trace.so" ]; then
	step "trace it live: rpncalc reads expressions from a pipe, every call site a NOP"
	mkfifo in
	"$top/bin/mcount-trace" run -o '' --pid-file=rpncalc.pid -- build/rpncalc - < in > out &
	exec 3> in
	while [ ! -s rpncalc.pid ] || ! "$top/bin/mcount-trace" status "$(cat rpncalc.pid)" >/dev/null 2>&1; do
		sleep 0.1
	done
	pid=$(cat rpncalc.pid)
	echo "rpncalc runs as process $pid; some of what can be traced:"
	"$top/bin/mcount-trace" list "$pid" | grep calc_ | sed 's/^/    /'
	lines() { while [ "$(wc -l < out)" -lt "$1" ]; do sleep 0.05; done; }
	echo '2 3 + 4 *' >&3
	lines 1
	echo "mcount-trace enable $pid 'calc_apply'"
	"$top/bin/mcount-trace" -v enable "$pid" calc_apply
	echo '2 10 ^ 24 -' >&3
	echo '7 2 - 9 *' >&3
	lines 3
	echo "mcount-trace show $pid   (calc_apply, once per operator since it was enabled)"
	"$top/bin/mcount-trace" show "$pid"
	echo "mcount-trace event $pid 'calc_apply(char op, long a, long b)'   (with its arguments)"
	"$top/bin/mcount-trace" event "$pid" 'calc_apply(char op, long a, long b)'
	echo '6 7 * 2 /' >&3
	lines 4
	"$top/bin/mcount-trace" show "$pid"
	"$top/bin/mcount-trace" -v disable "$pid" calc_apply
	echo '1 5 -' >&3
	exec 3>&-
	wait
	echo "what rpncalc printed meanwhile:"
	sed 's/^/    /' out
fi
