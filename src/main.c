/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - mcount-scan: read one object's objdump listing, write the
 * assembly for its __mcount_loc table and the plan the pipeline follows. */
#define _POSIX_C_SOURCE 200809L
#include "scan.h"
#include "linkonce.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the greatest --placeholder: 64 Mi entries (a Linux kernel has about 60,000) */
#define MAX_PLACEHOLDER (1ul << 26)

#ifndef VERSION
#define VERSION "unknown"
#endif

/* What the command line asks for. */
struct options {
	const char *arch_name;  /* --arch, or NULL */
	unsigned bits;          /* --bits, or 0 */
	const char *endian;     /* --endian ("big", "little"), or NULL */
	enum entry_mode mode;
	const char *sections;   /* --sections spec */
	const char *object;     /* --object, or NULL */
	const char *output;     /* --output, or NULL */
	const char *file_name;  /* --file-name, or NULL */
	const char *listing;    /* the listing's path, "-" for stdin */
	bool plan, identify, writable;
	bool linked;            /* --linked: the object is a linked image */
	bool pass_over;         /* --pass-over */
	const char *tabled;             /* --tabled=FILE, or NULL */
	const char *placeholder;        /* --placeholder=N, or NULL */
	bool bound;                     /* --bound FILE... */
	unsigned long long at_least;    /* --at-least=N: the bound no less */
	const char *fill_map;           /* --fill-linked=MAP, or NULL */
	const char *build_id;           /* --build-id=bfd|gold|lld|lld-fast, or NULL */
	char **lto;                     /* --lto-object=FILE, each */
	int nlto;
	const char *dropped;            /* --dropped=FILE, or NULL */
	unsigned long nplaceholder;
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: %s [OPTION]... [LISTING]\n"
"Read the output of `LC_ALL=C objdump -h -t -r OBJECT` (or -h -t -dr) from\n"
"LISTING or standard input, find the calls to the profiling hook, and write\n"
"the assembly of the object's __mcount_loc table.\n"
"\n"
"  -a, --arch=NAME        target (see --list-arches), or a kernel ARCH name\n"
"                         (x86, arm64, arm, riscv, powerpc, s390, mips, ...)\n"
"      --bits=32|64       word size, to resolve a kernel ARCH name\n"
"      --endian=big|little  byte order, checked against the object\n"
"  -e, --entry=call|reloc entries point at the call (default) or at the\n"
"                         relocated field inside it (the 2008 convention)\n"
"  -s, --sections=SPEC    'kernel' (default: the Linux 6.1 list and every\n"
"                         .text.*), 'all' (every executable section), or a\n"
"                         comma-separated list of names; NAME* is a prefix\n"
"  -O, --object=FILE      the object the listing is of: its ELF header is\n"
"                         checked, its call instructions verified and its\n"
"                         .note.gnu.property copied into the table's object\n"
"  -o, --output=FILE      write the assembly to FILE ('-' or none: stdout)\n"
"      --writable         make the table section writable (\"aw\"), so that a\n"
"                         PIE or shared library needs no text relocations,\n"
"                         and anchor no entry on a global symbol of default\n"
"                         visibility (preemptible in a shared library)\n"
"      --pass-over        pass over a reference to the hook that is no call\n"
"                         (a note each, counted in the plan's passed-over)\n"
"                         instead of refusing the object: for a whole image\n"
"                         such as the kernel's vmlinux.o\n"
"  -p, --plan             print the plan (anchors to globalize, symbols to\n"
"                         add, counts) on stdout\n"
"      --name=PROG        program name to use in messages\n"
"      --file-name=NAME   file name to use in messages and comments\n"
"      --identify         with --object: print the architecture facts of the\n"
"                         object (for choosing tools) and exit\n"
"      --linked           the --object is an executable or shared object\n"
"                         linked with -q (--emit-relocs) and a placeholder\n"
"                         table: write the table of its calls to the hook,\n"
"                         entries `__ehdr_start + OFFSET` in a writable\n"
"                         section (none of --entry, --sections, --writable\n"
"                         apply); the plan adds passed-over (references to\n"
"                         the hook that are no call), tabled and entry-base\n"
"      --tabled=FILE      with --linked: the addresses (hex, one a line) the\n"
"                         image's own tables already hold (objects recorded\n"
"                         one by one): their calls get no entry, counted in\n"
"                         the plan's tabled\n"
"      --placeholder=N    read no listing: write a table of N entries\n"
"                         `__ehdr_start`, laid out as --linked's table of N\n"
"                         calls (for the first link); needs --arch or --object\n"
"      --bound FILE...    read no listing: print the calls to the hook that the\n"
"                         objects and archives FILE can bring to a link (calls),\n"
"                         the table's bound (more where GCC's LTO objects make\n"
"                         the code again: lto, lto-calls, slim), and whether\n"
"                         one brings a table (tabled); with -o, write\n"
"                         --placeholder's table of that many entries there too,\n"
"                         as an object where the target's row allows\n"
"                         (placeholder: object) or as assembly (placeholder:\n"
"                         assembly); the facts of the --object (without --arch\n"
"                         or --object, of the first ELF object among FILE) are\n"
"                         printed as --identify prints them (no such object:\n"
"                         refused and why)\n"
"      --at-least=N       with --bound: a bound of N at least (a link whose LTO\n"
"                         made more calls than the inputs' bound, linked again)\n"
"      --fill-linked=MAP  read no listing: the --object image was linked with a\n"
"                         placeholder and wrote the map MAP: fill in its table\n"
"                         (the calls of the input sections MAP places, sorted,\n"
"                         the rest 0) and its dynamic relocations' addends in\n"
"                         place; print sites, slots, dropped (calls in overridden\n"
"                         weak copies), or refused and why (nothing written)\n"
"      --build-id=LINKER  with --fill-linked: compute the image's build ID again\n"
"                         as LINKER computes it: bfd, gold, lld (sha1), lld-fast\n"
"                         (lld's xxHash64 of a bare --build-id)\n"
"      --lto-object=FILE  with --fill-linked: an object lld's LTO wrote (kept by\n"
"                         the link): the map's lto.tmp sections are read from\n"
"                         them, by name and size\n"
"      --dropped=FILE     with --fill-linked: write the addresses of the calls\n"
"                         left out (overridden weak copies) to FILE, hex, one a\n"
"                         line, and print sites and dropped; the image and its\n"
"                         table are left as they are (an image linked with -q)\n"
"      --list-arches      list the architectures and call forms known\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Exit status: %d success (including nothing to record), %d bad input, %d bad usage,\n"
"%d the listing is empty or not objdump output.\n",
		diag_prog, HELPER_OK, HELPER_BAD_INPUT, HELPER_USAGE, HELPER_NO_LISTING);
}

static _Noreturn __attribute__((format(printf, 1, 2))) void bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", diag_prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", diag_prog);
	exit(HELPER_USAGE);
}

/* Open the --object file and check its ELF header against the options;
 * an object of another row that a shared kernel ARCH name also selects
 * replaces obj->arch. */
static void check_object(struct object *obj, const struct options *opt, bool need_rel,
			 bool need_linked)
{
	const char *endian = opt->endian;
	unsigned bits = opt->bits;
	struct elf_ident id;
	const char *why;
	obj->fd = open(obj->path, O_RDONLY);
	if (obj->fd < 0)
		fatal("%s", strerror(errno));
	if ((why = elf_read_ident(obj->fd, &id)))
		fatal("%s", why);
	if (need_rel && id.type != 1)
		fatal("not a relocatable object (ELF type %s)",
		      id.type == 2 ? "EXEC, an executable" : id.type == 3 ? "DYN, a shared object or PIE" :
		      id.type == 4 ? "CORE, a core dump" : "unknown");
	if (need_linked && id.type == 1)
		fatal("a relocatable object (ELF type REL): --linked reads an executable or shared "
		      "object linked with -q");
	if (need_linked && id.type != 2 && id.type != 3)
		fatal("not a linked executable or shared object (ELF type %s)",
		      id.type == 4 ? "CORE, a core dump" : "unknown");
	const struct arch *a = arch_by_machine(id.machine, id.elf_class, id.big_endian);
	/* the object's machine in messages: "NAME, 64-bit little-endian" */
	char number[32];	/* "machine N": N is at most 65535 */
	const char *mname = arch_machine_name(id.machine, id.elf_class, id.big_endian);
	if (!mname) {
		snprintf(number, sizeof(number), "machine %u", id.machine);
		mname = number;
	}
	const char *byte_order = id.big_endian ? "big" : "little";
	/* a kernel ARCH name shared by several rows (powerpc, mips) means
	 * whichever of them the object is */
	if (obj->arch && a && a != obj->arch && arch_has_name(a, opt->arch_name) &&
	    (!bits || bits == a->elf_class) &&
	    (!endian || (strcmp(endian, "big") == 0) == a->big_endian))
		obj->arch = a;
	if (obj->arch && a != obj->arch)
		fatal("object is for %s, %u-bit %s-endian, not %s", mname, id.elf_class, byte_order,
		      obj->arch->name);
	if (!a)
		fatal("unsupported architecture (%s, %u-bit %s-endian)", mname, id.elf_class,
		      byte_order);
	if (bits && bits != id.elf_class)
		fatal("object is %u-bit, not %u-bit", id.elf_class, bits);
	if (endian && (strcmp(endian, "big") == 0) != id.big_endian)
		fatal("object is %s-endian, not %s-endian", byte_order, endian);
	obj->arch = a;
	obj->elf_flags = id.flags;
}

/* OPTION's value ARG: a number of table entries, 0 to MAX_PLACEHOLDER. */
static unsigned long entries_arg(const char *option, const char *arg)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || *end || errno || n > MAX_PLACEHOLDER)
		bad_usage("%s must be a number of entries from 0 to %lu, not '%s'", option,
			  (unsigned long)MAX_PLACEHOLDER, arg);
	return n;
}

/* The command line, parsed; -h, -V and --list-arches are done here. */
static void parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "bits", required_argument, NULL, 'b' },
		{ "endian", required_argument, NULL, 'E' },
		{ "entry", required_argument, NULL, 'e' },
		{ "sections", required_argument, NULL, 's' },
		{ "object", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "plan", no_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "file-name", required_argument, NULL, 'F' },
		{ "list-arches", no_argument, NULL, 'L' },
		{ "identify", no_argument, NULL, 'I' },
		{ "writable", no_argument, NULL, 'W' },
		{ "linked", no_argument, NULL, 'K' },
		{ "pass-over", no_argument, NULL, 'v' },
		{ "tabled", required_argument, NULL, 'T' },
		{ "placeholder", required_argument, NULL, 'P' },
		{ "bound", no_argument, NULL, 'B' },
		{ "at-least", required_argument, NULL, 'A' },
		{ "fill-linked", required_argument, NULL, 'M' },
		{ "build-id", required_argument, NULL, 'D' },
		{ "dropped", required_argument, NULL, 'X' },
		{ "lto-object", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*opt = (struct options){ .sections = "kernel", .mode = ENTRY_CALL };
	argv[0] = (char *)diag_prog; /* getopt's messages name the program by argv[0] */
	while ((c = getopt_long(argc, argv, "a:e:s:O:o:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': opt->arch_name = optarg; break;
		case 'b':
			if (strcmp(optarg, "32") && strcmp(optarg, "64"))
				bad_usage("--bits must be 32 or 64, not '%s'", optarg);
			opt->bits = (unsigned)atoi(optarg);
			break;
		case 'E':
			if (strcmp(optarg, "big") && strcmp(optarg, "little"))
				bad_usage("--endian must be big or little, not '%s'", optarg);
			opt->endian = optarg;
			break;
		case 'e':
			if (strcmp(optarg, "call") == 0)
				opt->mode = ENTRY_CALL;
			else if (strcmp(optarg, "reloc") == 0)
				opt->mode = ENTRY_RELOC;
			else
				bad_usage("--entry must be call or reloc, not '%s'", optarg);
			break;
		case 's':
			if (!sections_spec_valid(optarg))
				bad_usage("bad --sections list '%s'", optarg);
			opt->sections = optarg;
			break;
		case 'O': opt->object = optarg; break;
		case 'o': opt->output = optarg; break;
		case 'p': opt->plan = true; break;
		case 'n': diag_prog = optarg; break;
		case 'F': opt->file_name = optarg; break;
		case 'L': arch_list(); exit(HELPER_OK);
		case 'I': opt->identify = true; break;
		case 'W': opt->writable = true; break;
		case 'K': opt->linked = true; break;
		case 'v': opt->pass_over = true; break;
		case 'T': opt->tabled = optarg; break;
		case 'B': opt->bound = true; break;
		case 'A': opt->at_least = entries_arg("--at-least", optarg); break;
		case 'M': opt->fill_map = optarg; break;
		case 'X': opt->dropped = optarg; break;
		case 'D':
			if (strcmp(optarg, "bfd") && strcmp(optarg, "gold") && strcmp(optarg, "lld") &&
			    strcmp(optarg, "lld-fast"))
				bad_usage("--build-id must be bfd, gold, lld or lld-fast, not '%s'", optarg);
			opt->build_id = optarg;
			break;
		case 'J': {
			char **n = realloc(opt->lto, (size_t)(opt->nlto + 1) * sizeof(*n));
			if (!n)
				fatal("out of memory");
			opt->lto = n;
			opt->lto[opt->nlto++] = optarg;
			break;
		}
		case 'P':
			opt->placeholder = optarg;
			opt->nplaceholder = entries_arg("--placeholder", optarg);
			break;
		case 'h': usage(stdout); exit(HELPER_OK);
		case 'V': printf("mcount-scan (recordmcount) %s\n", VERSION); exit(HELPER_OK);
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n", diag_prog);
			exit(HELPER_USAGE);
		}
	}
	if (opt->at_least && !opt->bound)
		bad_usage("%s", "--at-least needs --bound");
	if (opt->build_id && !opt->fill_map)
		bad_usage("%s", "--build-id needs --fill-linked");
	if (opt->dropped && (!opt->fill_map || opt->build_id))
		bad_usage("%s", "--dropped goes with --fill-linked, and without --build-id");
	if (opt->nlto && !opt->fill_map)
		bad_usage("%s", "--lto-object needs --fill-linked");
	if (opt->bound || opt->fill_map) {
		if (opt->bound && opt->fill_map)
			bad_usage("%s", "--bound and --fill-linked are two steps: give one");
		if (opt->linked || opt->plan || opt->identify || opt->placeholder || opt->tabled)
			bad_usage("%s", "--bound and --fill-linked take only --arch or --object");
		if (opt->fill_map && (!opt->object || optind < argc))
			bad_usage("%s", "--fill-linked needs --object and no other file");
		return;
	}
	if (argc - optind > 1)
		bad_usage("too many arguments: '%s'", argv[optind + 1]);
	opt->listing = optind < argc ? argv[optind] : "-";
	if (opt->placeholder && (opt->linked || opt->plan || opt->identify || optind < argc))
		bad_usage("%s", "--placeholder reads no listing and prints no plan: give only --arch "
			  "or --object, and -o");
	if (opt->placeholder && !opt->arch_name && !opt->object)
		bad_usage("%s", "--placeholder needs --arch or --object");
	if (opt->linked && !opt->object)
		bad_usage("%s", "--linked needs --object");
	if (opt->tabled && !opt->linked)
		bad_usage("%s", "--tabled needs --linked");
}

/* The row --arch (with --bits and --endian) names, or NULL without --arch. */
static const struct arch *resolve_arch(const struct options *opt)
{
	const char *name = opt->arch_name, *endian = opt->endian;
	unsigned bits = opt->bits;
	if (!name)
		return NULL;
	const struct arch *a = arch_lookup(name, bits, endian ? strcmp(endian, "big") == 0 : -1);
	/* one line that any front end can pass on as it is */
	if (!a && arch_lookup(name, 0, -1))
		bad_usage("architecture '%s' is not supported%s%s%s%s (supported: %s)",
			  name, bits ? (bits == 32 ? " as 32-bit" : " as 64-bit") : "",
			  endian ? (bits ? " " : " as ") : "", endian ? endian : "",
			  endian ? "-endian" : "", arch_variants(name));
	if (!a)
		bad_usage("unknown architecture '%s' (known: %s)", name, arch_known_names());
	return a;
}

/* The first of the n files that is an ELF relocatable object of a known
 * row (archives and the rest passed over), or NULL. */
static const char *first_relocatable(int n, char **paths)
{
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDONLY);
		if (fd < 0)
			continue;
		struct elf_ident id;
		bool ok = !elf_read_ident(fd, &id) && id.type == 1 &&
			  arch_by_machine(id.machine, id.elf_class, id.big_endian);
		close(fd);
		if (ok)
			return paths[i];
	}
	return NULL;
}

/* --identify: only what the ELF header says, for choosing tools. */
static int identify(const struct object *obj)
{
	emit_plan(stdout, obj, "identified");
	return fflush(stdout) == 0 ? HELPER_OK : HELPER_BAD_INPUT;
}

/* --tabled's file: hex addresses, one a line, into obj->tabled (which
 * scan_linked sorts). */
static void read_tabled(const char *path, struct object *obj)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fatal("cannot read %s: %s", path, strerror(errno));
	char line[64];
	size_t cap = 0, lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(line, &end, 16);
		if (end == line || errno || (*end && *end != '\n'))
			fatal("%s:%zu: not a hex address", path, lineno);
		grow(&obj->tabled, &cap, obj->ntabled + 1, sizeof(*obj->tabled));
		obj->tabled[obj->ntabled++] = (uint64_t)v;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad)
		fatal("read error on %s", path);
}

/* Read the listing into obj; false (said) if it holds nothing objdump prints. */
static bool read_listing(const char *listing, struct object *obj)
{
	FILE *in = stdin;
	if (strcmp(listing, "-") != 0 && !(in = fopen(listing, "r")))
		fatal("cannot open %s: %s", listing, strerror(errno));
	objdump_read(in, obj);
	if (in != stdin)
		fclose(in);
	if (!obj->bfd_format && !obj->saw_headers && !obj->saw_symtab) {
		/* nothing to read: usually objdump failed, and said why */
		fprintf(stderr, "%s: %s%sthe input is not an objdump listing\n", diag_prog,
			diag_file ? diag_file : "", diag_file ? ": " : "");
		return false;
	}
	if (!obj->arch)
		fatal("the listing does not say its object format: give --arch");
	return true;
}

/* Open -o's file (stdout for none or '-'). */
static FILE *open_output(const char *output)
{
	FILE *out = stdout;
	if (output && strcmp(output, "-") != 0 && !(out = fopen(output, "w")))
		fatal("cannot write %s: %s", output, strerror(errno));
	return out;
}

static void close_output(FILE *out, const char *output)
{
	if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0))
		fatal("write error on %s: %s", output ? output : "standard output", strerror(errno));
}

/* Scan the read listing; write the table's assembly and the plan.  A
 * linked image's table is written even when empty: it takes the place
 * of the placeholder the image was linked with. */
static void scan_and_write(struct object *obj, const struct options *opt)
{
	const char *status = opt->linked ? scan_linked(obj)
					 : scan_object(obj, opt->sections, opt->mode);
	const char *output = opt->output;
	if ((obj->nsites || opt->linked) && (output || !opt->plan)) {
		FILE *out = open_output(output);
		if (opt->linked)
			emit_linked_assembly(out, obj);
		else
			emit_assembly(out, obj);
		close_output(out, output);
	}
	if (opt->plan && opt->linked)
		emit_linked_plan(stdout, obj, status);
	else if (opt->plan)
		emit_plan(stdout, obj, status);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatal("write error on standard output");
}

int main(int argc, char **argv)
{
	struct options opt;
	struct object obj;
	int status = HELPER_OK;

	parse_options(argc, argv, &opt);
	object_init(&obj);
	obj.arch = resolve_arch(&opt);
	if (opt.bound || opt.fill_map) {
		/* (--bound of a link: its first ELF object says the target) */
		bool facts = opt.bound && !obj.arch;
		if (facts && !opt.object && !(opt.object = first_relocatable(argc - optind, argv + optind))) {
			puts("refused\tno input is an ELF object of a known architecture");
			return fflush(stdout) == 0 ? HELPER_OK : HELPER_BAD_INPUT;
		}
		const struct arch *a = obj.arch;
		if (opt.object) {
			/* (--bound's placeholder restates the object's flags as
			 * --placeholder's does) */
			obj.path = opt.object;
			diag_file = opt.object;
			check_object(&obj, &opt, opt.bound, opt.fill_map != NULL);
			a = obj.arch;
			diag_file = NULL;
		}
		if (!a->reloc_names)
			bad_usage("%s reads %s's relocations through objdump only",
				  opt.bound ? "--bound" : "--fill-linked", a->name);
		if (opt.fill_map) {
			status = link_fill(a, opt.fill_map, opt.object, opt.build_id, opt.lto, opt.nlto, opt.dropped);
			free(opt.lto);
		} else {
			struct link_bound b;
			link_bound(a, argc - optind, argv + optind, &b);
			if (b.bound < opt.at_least)
				b.bound = opt.at_least;
			if (facts)
				emit_plan(stdout, &obj, "identified");
			if (opt.output) {
				if (b.bound > MAX_PLACEHOLDER)
					fatal("more calls to the hook than a placeholder holds: %llu", b.bound);
				bool as_object = strcmp(opt.output, "-") != 0 &&
						 link_placeholder_object(a, (unsigned long)b.bound, opt.output);
				if (!as_object) {
					FILE *out = open_output(opt.output);
					emit_placeholder(out, &obj, (unsigned long)b.bound);
					close_output(out, opt.output);
				}
				printf("placeholder\t%s\n", as_object ? "object" : "assembly");
			}
			printf("bound\t%llu\ncalls\t%llu\ntabled\t%d\nlto\t%lu\nlto-calls\t%llu\nslim\t%lu\n"
			       "bitcode\t%lu\nbitcode-functions\t%llu\nthin\t%lu\n",
			       b.bound, b.calls, b.tabled, b.lto, b.lto_calls, b.slim, b.bitcode,
			       b.bitcode_functions, b.thin);
			status = fflush(stdout) == 0 ? HELPER_OK : HELPER_BAD_INPUT;
		}
		object_free(&obj);
		return status;
	}
	if (opt.identify && !opt.object)
		bad_usage("%s", "--identify needs --object");
	obj.path = opt.object;
	obj.writable_table = opt.writable;
	obj.pass_over = opt.pass_over;
	diag_file = opt.file_name ? opt.file_name : opt.object ? opt.object :
		    strcmp(opt.listing, "-") ? opt.listing : NULL;
	obj.label = diag_file;
	if (obj.path)
		check_object(&obj, &opt, !opt.identify && !opt.placeholder && !opt.linked,
			     opt.linked && !opt.identify);
	obj.linked = opt.linked;
	if (opt.tabled)
		read_tabled(opt.tabled, &obj);
	if (opt.placeholder) {
		FILE *out = open_output(opt.output);
		emit_placeholder(out, &obj, opt.nplaceholder);
		close_output(out, opt.output);
	} else if (opt.identify)
		status = identify(&obj);
	else if (!read_listing(opt.listing, &obj))
		status = HELPER_NO_LISTING;
	else
		scan_and_write(&obj, &opt);
	/* release everything, so valgrind and LeakSanitizer see a clean exit */
	object_free(&obj);
	return status;
}
