/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linkonce.h - the one-link method's reading of ELF files (see linkonce.c). */
#ifndef MCOUNT_LINKONCE_H
#define MCOUNT_LINKONCE_H

#include "arch.h"
#include "util.h"

/* --bound: what the n objects and archives at paths can bring to a link
 * of row a: the calls to its hooks (those of GCC's LTO objects' code,
 * -ffat-lto-objects, counted apart too), the bound of the table (more
 * than the calls where LTO generates the code again), whether one brings
 * a table of its own, how many are LTO objects and slim ones. */
struct link_bound {
	unsigned long long calls, lto_calls, bound;
	unsigned long lto, slim;
	bool tabled;
	/* LLVM bitcode objects (clang -flto): how many, their functions with
	 * a body, how many with a ThinLTO summary */
	unsigned long bitcode, thin;
	unsigned long long bitcode_functions;
};
/* (the bound's slack for LTO's clones, over twice the fat objects' calls) */
#define LTO_SLACK 16
void link_bound(const struct arch *a, int n, char **paths, struct link_bound *r);
/* --bound -o PATH: the placeholder of n entries as row a's relocatable
 * object, where the row names the relocation of its words (word_reloc);
 * false where it does not (the caller writes the assembly instead). */
bool link_placeholder_object(const struct arch *a, unsigned long n, const char *path);
/* --fill-linked: fill in the table of the image at path, linked with the
 * placeholder and writing the map at map, and (bid: "bfd", "gold",
 * "lld", "lld-fast", or NULL for none) its build ID as that linker
 * computes it; the nlto objects at lto are those lld's LTO wrote (its
 * map names each lto.tmp); print sites, slots, dropped, build-id and
 * relocated, or refused and why.  dropped: a file for the addresses of
 * the calls left out, the image left as it is (the links with -q: their
 * images' tables are not filled); NULL: none. */
int link_fill(const struct arch *a, const char *map, const char *path, const char *bid, char **lto, int nlto,
	      const char *dropped);

#endif
