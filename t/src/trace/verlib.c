/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verlib.c - a library with symbol versions (verlib.map), as xz's
 * liblzma has them (t/101-trace-names.t):
 *   vfun    two implementations: vfun@VL_1.0 (a hidden, older one) and
 *           vfun@@VL_2.0 (the default, what a plain reference binds to)
 *   valias  one function, two names: valias@@VL_2.0 and its
 *           compatibility alias valias@VL_1.0
 *   vplain  a default version from the version script alone (VL_1.0)
 * Built with -g: its functions' arguments can be recorded by their
 * DWARF, and no version's dot may be taken for a compiler's clone.
 */
#define F __attribute__((noipa))

__attribute__((symver("vfun@VL_1.0"))) F int vfun_1(int x) { return x + 1; }
__attribute__((symver("vfun@@VL_2.0"))) F int vfun_2(int x) { return x + 2; }

__attribute__((symver("valias@@VL_2.0"))) F int valias_2(int x) { return x * 3; }
extern int valias_1(int x) __attribute__((alias("valias_2"), symver("valias@VL_1.0")));

F int vplain(int x) { return x * 2; }
