/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfe_lib.c - a shared library for t/113-trace-patchable.t, built
 * with -fpatchable-function-entry=16,14 (as openSUSE builds glibc and
 * OpenSSL) and -finstrument-functions: every function logs its entry
 * (cyg.c, in the program) and has a site of the compiler's own. */
#define F __attribute__((noipa))

F int lib_leaf(int x) { return x * 5 + 2; }
F int lib_mid(int x) { return lib_leaf(x) - lib_leaf(x - 1); }
F int lib_rec(int n) { return n > 0 ? lib_rec(n - 1) + 2 : 0; }
F static int twice(int v) { return v * 2; }   /* (no dynamic symbol: stripped, its frame description) */
F int lib_call(int (*fn)(int), int x) { return twice(fn(x)); }
