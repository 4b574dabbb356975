// SPDX-License-Identifier: GPL-2.0-or-later
// cxx.cc - C++ names for the tracer: a namespace, a class with virtual
// and overloaded members, a template instantiated twice, an operator.
// Prints a checksum that does not depend on tracing.
#include <cstdio>
#include <cstdlib>

namespace geo {

struct Shape {
	virtual ~Shape() {}
	virtual long area() const = 0;
};

struct Rect : Shape {
	long w, h;
	Rect(long w_, long h_) : w(w_), h(h_) {}
	long area() const override;
	long scale(long k) const;
	long scale(long k, long m) const;
};

__attribute__((noinline)) long Rect::area() const { return w * h; }
__attribute__((noinline)) long Rect::scale(long k) const { return area() * k; }
__attribute__((noinline)) long Rect::scale(long k, long m) const { return scale(k) + m; }

template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }

struct Vec {
	long x, y;
};
__attribute__((noinline)) Vec operator+(Vec a, Vec b) { return Vec{ a.x + b.x, a.y + b.y }; }

} // namespace geo

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 3;
	long sum = 0;
	geo::Vec v{ 0, 0 };
	for (long i = 1; i <= n; i++) {
		geo::Rect r(i, i + 1);
		const geo::Shape &s = r;
		sum += s.area() + r.scale(2) + r.scale(3, i);
		sum += geo::twice<long>(i) + (long)geo::twice<double>((double)i);
		v = v + geo::Vec{ i, 2 * i };
	}
	std::printf("sum %ld vec %ld %ld\n", sum, v.x, v.y);
	// Where the code is, for whoever reads the trace's addresses.
	std::fprintf(stderr, "twice %p\n", reinterpret_cast<void *>(&geo::twice<long>));
	return 0;
}
