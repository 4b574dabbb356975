// SPDX-License-Identifier: GPL-2.0-or-later
// names.cc - C++ functions whose demangled names have what a glob takes
// for its own syntax (t/101-trace-names.t): spaces (const members, a
// return type, operator new), commas (argument and template lists),
// * and [ ] (pointers, operator*, operator[], an array reference),
// brackets that are not brackets (operator<, operator(), operator,),
// overloads that one wildcard would join (f(char*), f(char const*)), a
// namespace called mod (a::mod::f is no :mod:).  tick() calls each of
// them; main calls tick every millisecond until DIR/go exists (60 s at
// most), after creating DIR/ready.
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <new>
#include <unistd.h>

#define F __attribute__((noipa))

volatile long sink;

namespace geo {
struct Vec {
	int x, y;
	F int dot(Vec const &o) const { return x * o.x + y * o.y; }
	F Vec operator*(int k) const { return Vec{ x * k, y * k }; }
	F Vec &operator*=(int k) { x *= k; y *= k; return *this; }
	F int operator[](int i) const { return i ? y : x; }
	F int operator()(int a, int &b) const { b += a; return x + b; }
	F bool operator<(Vec const &o) const { return x < o.x; }
	F Vec operator,(Vec const &o) const { return o; }
	F static void *operator new(std::size_t n) { static long pool[64]; (void)n; return pool; }
	F static void operator delete(void *) {}
	F operator int() const { return x + y; }
};

template <typename T, typename U> F T pair_sum(T a, U b) { return a + (T)b; }
}

namespace a {
namespace mod {
F int f(int x) { return x + 7; }
}
}

namespace {
F int hidden(int x) { return x - 1; }
}

F int deep(int a, int &b) { b += a; return b; }
F long deep(int a, long b) { return a - b; }
F long f(char *p) { return p[0]; }
F long f(char const *p) { return p[1]; }
F int arr(int (&v)[3]) { return v[0] + v[2]; }
F int fp(int (*g)(int), int v) { return g(v); }

F void tick(int i)
{
	geo::Vec v{ i, 2 }, w{ 3, i };
	int k = i;
	long s = v.dot(w) + (v * 2).x + (w *= 3).y + v[1] + v(1, k) + (v < w) + (v, w).x + (int)v;
	geo::Vec *h = new geo::Vec{ 1, 1 };
	s += h->x;
	delete h;
	s += geo::pair_sum<int, long>(i, 2L) + geo::pair_sum<long, int>(3L, i);
	s += a::mod::f(i) + hidden(i) + deep(i, k) + deep(i, 2L);
	char buf[4] = "ab";
	s += f(buf) + f((char const *)buf);
	int three[3] = { 1, 2, 3 };
	s += arr(three) + fp(a::mod::f, i);
	sink += s;
}

int main(int argc, char **argv)
{
	try {                         // (the C++ runtime, whose demangler the library uses)
		if (argc > 100)
			throw argc;
	} catch (int) {
		return 1;
	}
	if (argc < 2) {
		tick(1);
		printf("%ld\n", (long)sink);
		return 0;
	}
	char p[4096];
	snprintf(p, sizeof p, "%s/ready", argv[1]);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	snprintf(p, sizeof p, "%s/go", argv[1]);
	struct timespec d = { 0, 1000000 };
	for (int i = 0; i < 60000 && access(p, F_OK); i++) {
		tick(i);
		nanosleep(&d, NULL);
	}
	return 0;
}
