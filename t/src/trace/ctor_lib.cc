// SPDX-License-Identifier: GPL-2.0-or-later
// ctor_lib.cc - a shared library whose initialisers and finalisers call
// a traced function (t/103): a constructor, static objects (their
// constructors run by _GLOBAL__sub_I_*, their destructors by __tcf_0), a
// destructor and an atexit handler.  lib_work(PHASE) writes "lib_work
// PHASE" to standard output, one write a call: the library's own count.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#define F __attribute__((noipa))

extern "C" F void lib_work(long phase)
{
	char b[32];
	int n = snprintf(b, sizeof b, "lib_work %ld\n", phase);
	if (write(1, b, (size_t)n) != n)
		abort();
}

// 1 constructor, 2 static objects' constructors, 3 main, 4 static
// objects' destructors, 5 destructor, 6 atexit handler
struct Lobj {
	F Lobj() { lib_work(2); }
	F ~Lobj() { lib_work(4); }
};
static Lobj lobjs[2];

F static void lib_atexit() { lib_work(6); }

__attribute__((constructor)) F static void lib_ctor()
{
	lib_work(1);
	atexit(lib_atexit);
}

__attribute__((destructor)) F static void lib_dtor() { lib_work(5); }
