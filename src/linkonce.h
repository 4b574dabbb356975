/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linkonce.h - the one-link method's reading of ELF files (see linkonce.c). */
#ifndef MCOUNT_LINKONCE_H
#define MCOUNT_LINKONCE_H

#include "arch.h"
#include "util.h"

/* --bound: the calls to row a's hook the n objects and archives at
 * paths can bring, and whether one brings a table of its own. */
void link_bound(const struct arch *a, int n, char **paths, unsigned long long *calls, bool *tabled);
/* --fill-linked: fill in the table of the image at path, linked with the
 * placeholder and writing the map at map, and (bid: "bfd", "gold", or
 * NULL for none) its sha1 build ID as that linker computes it; print
 * sites, slots, dropped and build-id, or refused and why. */
int link_fill(const struct arch *a, const char *map, const char *path, const char *bid);

#endif
