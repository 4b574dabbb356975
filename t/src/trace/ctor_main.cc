// SPDX-License-Identifier: GPL-2.0-or-later
// ctor_main.cc - a program whose static object's destructor, destructor
// and atexit handler call a traced function, linked with ctor_lib.cc's
// library (t/103).  main_work(PHASE) writes "main_work PHASE" to
// standard output, one write a call: the program's own count.
// Usage: ctor_main [COMMAND]: main runs COMMAND with system() too.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#define F __attribute__((noipa))

extern "C" void lib_work(long phase);

extern "C" F void main_work(long phase)
{
	char b[32];
	int n = snprintf(b, sizeof b, "main_work %ld\n", phase);
	if (write(1, b, (size_t)n) != n)
		abort();
}

// 2 the static object's constructor, 3 main, 4 its destructor,
// 5 destructor, 6 atexit handler
struct Mobj {
	F Mobj() { main_work(2); }
	F ~Mobj() { main_work(4); }
};
static Mobj mobj;

F static void main_atexit() { main_work(6); }

__attribute__((destructor)) F static void main_dtor() { main_work(5); }

int main(int argc, char **argv)
{
	atexit(main_atexit);
	main_work(3);
	lib_work(3);
	return argc > 1 && system(argv[1]) != 0;
}
