// SPDX-License-Identifier: GPL-2.0-or-later
// gcc-sh4-treg-off.cc - a GCC plugin for Debian 12's sh4 cross compiler
// (sh4-linux-gnu-gcc-12, 12.2.0-13): it turns off the SH back end's
// sh_treg_combine passes, which there take a load that feeds a test of
// the T bit for a store of T and delete both: `if (*p)` and `if (!v)`
// (v a global) are compiled to a branch on whatever T was (at -O1 and
// above; t/50-arch.t shows it on a probe, and its -O2 programs crash
// under qemu-sh4 without the plugin).  The passes only optimise:
// without them the code is what GCC meant.  Built by make
// (build/sh4/treg-off.so); used as -fplugin=FILE.
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree-pass.h"
#include <cstring>

int plugin_is_GPL_compatible;

// Every pass asks whether it runs; these are told no.
static void gate(void *gcc_data, void *)
{
	if (current_pass && current_pass->name && !strncmp(current_pass->name, "sh_treg_combine", 15))
		*(bool *)gcc_data = false;
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version))
		return 1;
	register_callback(info->base_name, PLUGIN_OVERRIDE_GATE, gate, NULL);
	return 0;
}
