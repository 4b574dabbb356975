// SPDX-License-Identifier: GPL-2.0-or-later
// unwind.cc - C++ exceptions through frames the function_graph tracer
// hijacked (t/78): thrown deep and caught in a traced frame, with
// destructors that call traced functions on the way, rethrown, caught by
// catch (...), thrown from a destructor-free chain through main's callees
// more than once.  No inline function from a header: GCC's
// instrumentation would log it where -pg leaves no call.  Prints what it computed: the output must be that of a
// plain build.
#include <cstdio>
#include <stdexcept>

#define F __attribute__((noipa))

F int leaf(int x) { return x * 3 + 1; }

struct Guard {
	int *acc;
	F explicit Guard(int *a) : acc(a) {}
	F ~Guard() { *acc += leaf(1); }
};

F int thrower(int n, int *acc)
{
	Guard g(acc);
	if (n == 0)
		throw std::runtime_error(leaf(2) > 5 ? "deep" : "shallow");
	return thrower(n - 1, acc) + leaf(n);
}

F int plain_chain(int n)
{
	if (n == 0)
		throw 7;
	return plain_chain(n - 1) + 1;
}

F int catcher(int n)
{
	int acc = 0;
	try {
		return thrower(n, &acc);
	} catch (const std::runtime_error &e) {
		std::printf("caught '%s' acc %d\n", e.what(), acc);
		return leaf(acc);
	}
}

F int rethrower(int n)
{
	try {
		return plain_chain(n);
	} catch (int v) {
		leaf(v);
		throw;
	}
}

F int outer(int n)
{
	try {
		return rethrower(n);
	} catch (...) {
		return leaf(n) + 100;
	}
}

int main()
{
	int r = 0;
	for (int i = 0; i < 3; i++) {
		r += catcher(4 + i);
		r += outer(3 + i);
	}
	std::printf("result %d after %d\n", r, leaf(5));
	return 0;
}
