/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plug.c - the shared library t/73-trace-process.t dlopen()s. */
#define F __attribute__((noipa))
F int plug_b(int x) { return x * 2; }
F int plug_a(int x) { return plug_b(x) + 1; }
