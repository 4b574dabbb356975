// SPDX-License-Identifier: GPL-2.0-or-later
// leaves_eh.cc - C++ exceptions through the frames of functions that
// keep their return address in lr (the arm guest): tailer, which pushes nothing
// and ends in a tail call to thrower (at -O2), and va_thrower, variadic,
// which saves lr after its argument registers.  Each round throws
// through both, and catcher catches; leaf returns in between.
// Usage: leaves_eh [ROUNDS]; prints one line a round and a result.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#define F __attribute__((noipa))

F long leaf(long x) { return x * 3 + 1; }
F void thrower(int x) { if (x >= 0) throw x; }
F void tailer(int x) { thrower(x + 1); }

F long va_thrower(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	long s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	tailer((int)s);
	return s;
}

F int catcher(int x)
{
	try {
		va_thrower(2, x, 10);
	} catch (int v) {
		return v + (int)leaf(v);
	}
	return -1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	long r = 0;
	for (int i = 0; i < rounds; i++) {
		int c = catcher(i);
		std::printf("round %d caught %d\n", i, c);
		r += c + leaf(i);
	}
	std::printf("result %ld\n", r);
	return 0;
}
