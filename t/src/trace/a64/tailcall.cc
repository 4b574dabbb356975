// SPDX-License-Identifier: GPL-2.0-or-later
// tailcall.cc - tail calls between traced functions under the
// function_graph tracer (the aarch64 guest): a hijacked function whose last act is a
// jump to another traced function leaves its frame to that one, which
// saves the trampoline as its own return address.  Both ways round (the
// caller's frame larger, and smaller, than the callee's: on aarch64 the
// frame records, and so the return-address slots, differ), and an
// exception thrown below such a callee and caught in main (the unwinder
// must find the real return address in the callee's frame).  Built
// without -finstrument-functions (its exit hook would follow every call:
// no tail call), so the aarch64 guest checks the compiler made each tail call, and the
// trace against the calls this source makes.  Prints what it computed.
#include <cstdio>
#include <stdexcept>

#define F __attribute__((noipa))

F int leaf(int x) { return x * 3 + 1; }

F int callee_small(int x) { return leaf(x) + 1; }

F int caller_big(int x)
{
	volatile int pad[64];
	for (int i = 0; i < 64; i++)
		pad[i] = x + i;
	return callee_small(pad[x & 63]);
}

F int callee_big(int x)
{
	volatile int pad[64];
	for (int i = 0; i < 64; i++)
		pad[i] = x * i;
	return pad[x & 63] + leaf(x);
}

F int caller_small(int x) { return callee_big(x + 1); }

F int boom(int x)
{
	if (x > 0)
		throw std::runtime_error("boom");
	return x;
}

F int throws_small(int x) { return boom(x) + 1; }

F int thrower_big(int x)
{
	volatile int pad[64];
	for (int i = 0; i < 64; i++)
		pad[i] = x + i;
	return throws_small(pad[x & 63]);
}

int main()
{
	int r = caller_big(2) + caller_small(3);
	try {
		r += thrower_big(4);
	} catch (const std::exception &e) {
		r += leaf(5);
		std::printf("caught %s\n", e.what());
	}
	r += caller_big(6);
	std::printf("result %d\n", r);
	return 0;
}
