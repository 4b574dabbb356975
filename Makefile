# SPDX-License-Identifier: GPL-2.0-or-later
# recordmcount - build, test and install.
#   make              build the helper
#   make check        the host tests (prove -j); check-all: every test
#   make install      PREFIX=/usr/local DESTDIR=
#   make V=1          show the commands
# The version is written once, in lib/RecordMcount/Front.pm.
VERSION    := $(shell sed -n "s/^our \$$VERSION = '\(.*\)';/\1/p" lib/RecordMcount/Front.pm)
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
# The commands, their modules and the helper, laid out as in the tree
# (bin/, lib/, and libexec/ for the helper), so that each command finds
# the rest beside itself; BINDIR gets symbolic links to the commands.
PKGDIR     ?= $(PREFIX)/lib/recordmcount
MANDIR     ?= $(PREFIX)/share/man
MAN1DIR    ?= $(MANDIR)/man1
MAN3DIR    ?= $(MANDIR)/man3

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ALL_CFLAGS = $(WARN) -DVERSION='"$(VERSION)"' $(CFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS := src/main.c src/objdump.c src/scan.c src/emit.c src/arch.c src/elfpeek.c src/linkonce.c src/hash.c src/bitcode.c src/util.c
HDRS := $(wildcard src/*.h)
HELPER := build/mcount-scan
# mcount-trace attach's helper (attach/; an arch-*.h each architecture
# it knows): built where the host is one of them
ATTACH_ARCHES := x86_64
ATTACH := $(if $(filter $(shell uname -m),$(ATTACH_ARCHES)),build/mcount-attach)
# mcount-trace replay/report/info's reader of a recording (read/)
READER := build/mcount-read

.PHONY: all check check-cross check-system check-slow check-all check-all-build check-kernel bench deps install uninstall clean demo man fuzz fuzz-short rt
all: $(HELPER) man rt build/arches.ok $(ATTACH) $(READER)

# libmcount-trace (rt/): the tracer's run-time library, preloaded
# (build/libmcount-trace.so, with the interposers of -DMT_SHARED) or
# linked in (build/libmcount-trace.a).  Each architecture's files, GNU
# triple and flags are its row of arches.tab: built for the host where
# `uname -m` names a row built "host" or "both" (RT_ARCH; i686 and the
# like are i386), and with cross compilers into build/ARCH/ for the rows
# built "cross" or "both" (make rt-ARCH; i386 with i686-linux-gnu-gcc-12:
# gcc -m32 needs gcc-multilib, which Debian will not install beside the
# other cross compilers).  buffer.c is the hot path, which the hooks
# enter without saving the vector registers: general registers only,
# where the compiler has a flag for it (the row's hot= flags).  Each is
# tested under full-system emulation (doc/architectures.md).
RT_ARCH ?= $(patsubst i%86,i386,$(shell uname -m))
RT_COMMON := rt/base.c rt/elf.c rt/sites.c rt/ops.c rt/patch.c rt/args.c rt/dwarf.c rt/cfi.c rt/debugfile.c rt/inflate.c rt/trace.c rt/gfilter.c rt/argfmt.c rt/output.c rt/record.c rt/change.c rt/hooks.c rt/profile.c rt/control.c
# The rows of arches.tab, a word each (its fields joined by '|'); for
# each row with a tracer (by its tracer name T): RT_FILE_T and RT_HOOK_T
# (its rt/arch-*.c and rt/hook-*.S), RT_TRIPLE_T, and its flags
# RT_HOT_T, RT_CFLAGS_T, RT_SO_CFLAGS_T and RT_SO_LDFLAGS_T
ARCH_ROWS := $(shell sed -n '/^[a-z0-9_]/{s/[[:space:]][[:space:]]*$$//;s/[[:space:]][[:space:]]*/|/g;p;}' arches.tab)
arch_keys = $(patsubst $(1)=%,%,$(filter $(1)=%,$(2)))
define arch_row
ifneq ($(word 11,$(1)),-)
RT_FILE_$(word 2,$(1)) := $(word 11,$(1))
RT_HOOK_$(word 2,$(1)) := $(word 12,$(1))
RT_TRIPLE_$(word 2,$(1)) := $(word 8,$(1))
RT_HOT_$(word 2,$(1)) := $(call arch_keys,hot,$(1))
RT_CFLAGS_$(word 2,$(1)) := $(call arch_keys,cflags,$(1))
RT_SO_CFLAGS_$(word 2,$(1)) := $(call arch_keys,so_cflags,$(1))
RT_SO_LDFLAGS_$(word 2,$(1)) := $(call arch_keys,so_ldflags,$(1))
RT_HOST_NAMES += $(if $(filter host both,$(word 13,$(1))),$(word 2,$(1)))
RT_CROSS_NAMES += $(if $(filter cross both,$(word 13,$(1))),$(word 2,$(1)))
endif
endef
$(foreach r,$(ARCH_ROWS),$(eval $(call arch_row,$(subst |, ,$(r)))))
rt_arch_c = rt/arch-$(RT_FILE_$(1)).c
rt_hook_s = rt/hook-$(RT_HOOK_$(1)).S
RT_C    := $(RT_COMMON) $(call rt_arch_c,$(RT_ARCH))
RT_HDRS := $(wildcard rt/*.h)
RT_LIB  := build/libmcount-trace.so build/libmcount-trace.a
ifneq ($(filter $(RT_ARCH),$(RT_HOST_NAMES)),)
RT_BUILT := $(RT_LIB)
endif
# Per architecture and file: buffer.c's hot= flags (riscv64's hook is an
# ordinary call; the mips hook keeps the floating-point argument
# registers itself, rt/hook-mips.S; ppc64le, ppc64: no VSX or AltiVec;
# s390x: no vector registers, the floating-point ones the hooks keep);
# unwind tables, as a C++ exception goes through the library's wrappers
# of the unwinder (riscv64's GCC makes none for C by default); the row's
# cflags= (i386: no note that GCC 11 changed the alignment of _Atomic
# 64-bit members, the library's own structures).
rt_archflags = $(if $(filter buffer trace,$(2)),$(RT_HOT_$(1))) -fasynchronous-unwind-tables $(RT_CFLAGS_$(1))
rt: $(RT_BUILT)
RT_CFLAGS = $(WARN) -fPIC -fno-omit-frame-pointer $(CFLAGS)
build/rt/so/%.o: rt/%.c $(RT_HDRS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) -DMT_SHARED $(call rt_archflags,$(RT_ARCH),$*) -c -o $@ $<
build/rt/a/%.o: rt/%.c $(RT_HDRS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(RT_CFLAGS) $(call rt_archflags,$(RT_ARCH),$*) -c -o $@ $<
# A hook is assembled for each library as its C is, MT_SHARED for the
# shared one's (rt/hook-ppc.S: the static library's own _mcount).
build/rt/%/hook.o: $(call rt_hook_s,$(RT_ARCH)) rt/hook-table.h rt/hook-offsets.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -fPIC $(if $(filter so,$*),-DMT_SHARED) -c -o $@ $<
RT_OBJS = $(patsubst rt/%.c,build/rt/$(1)/%.o,$(RT_C) rt/buffer.c) build/rt/$(1)/hook.o
# The shared library: initialised before every other object of the
# process (initfirst: the constructors of the program's libraries are
# traced) and never unloaded (nodelete: its control thread runs in it,
# and its exit handler is the process's last; rt/control.c).
# Its SONAME, libmcount-trace.so.0, is what a program linked with
# -lmcount-trace needs: the file keeps its name, libmcount-trace.so
# (what mcount-trace preloads), and a symbolic link of the SONAME's name
# is made beside it (make install, and build/ for the tests' programs).
RT_SONAME := libmcount-trace.so.0
RT_SO_LDFLAGS := -Wl,-z,now -Wl,-z,noexecstack -Wl,-z,initfirst -Wl,-z,nodelete -Wl,-soname,$(RT_SONAME)
# The library calls nothing of libatomic (an atomic wider than the CPU's
# word: the C library does not link it in, and a static program's link
# fails): checked on every architecture's .so as it is linked.
no_libatomic = { ! readelf -W --dyn-syms $(1) | grep -q ' UND __atomic_' || \
	{ echo "$(1): calls libatomic (an atomic wider than the CPU's word)" >&2; rm -f $(1); false; }; }
# Nor has it a segment writable and executable at once (sparc64: a PLT,
# a C library function missing from rt/noplt.h).
no_wx = { ! readelf -lW $(1) | grep -Eq '^ +LOAD .* RWE ' || \
	{ echo "$(1): a segment writable and executable (sparc64: a function missing from rt/noplt.h?)" >&2; \
	  rm -f $(1); false; }; }
build/libmcount-trace.so: $(call RT_OBJS,so)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared $(RT_SO_LDFLAGS) -o $@.tmp $^ -lpthread && $(call no_libatomic,$@.tmp) && \
		$(call no_wx,$@.tmp) && mv -f $@.tmp $@ && ln -sf $(@F) $(@D)/$(RT_SONAME)
build/libmcount-trace.a: $(call RT_OBJS,a)
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(call rt_archive,,$@,$^,$(CC))

# The static library holds one object, the whole library linked -r: a
# program that calls the hook gets all of it, start-up included, though
# no file of the library calls up into the one that starts it.  The hook
# comes first, so that it is next to the program's code, as it was when
# its object was the first a link took from the archive: mips's linker
# turns a jalr to it into a bal only within 128 KiB.
# $(call rt_archive,AR-PREFIX,ARCHIVE,OBJECTS,COMPILER)
# (linked by the compiler's driver, with CFLAGS: it knows the linker and
# the emulation its objects need, and with -flto the LTO plugin)
rt_hook_objs = %/hook.o $(foreach a,$(RT_CROSS_NAMES),%/hook-$(a).o)
rt_archive = rm -f $(2).tmp $(dir $(2))mcount-trace.o && \
	$(4) $(CFLAGS) -r -nostdlib -o $(dir $(2))mcount-trace.o $(filter $(rt_hook_objs),$(3)) \
		$(filter-out $(rt_hook_objs),$(3)) && \
	$(1)ar rcs $(2).tmp $(dir $(2))mcount-trace.o && rm -f $(dir $(2))mcount-trace.o && mv -f $(2).tmp $(2)
# The library for another architecture, cross-compiled the same way into
# build/ARCH/: $(call rt_cross,ARCH,TRIPLE), for each row of arches.tab
# built "cross" or "both" (with its so_cflags= and so_ldflags=: sparc64's
# shared object has no PLT, whose code the dynamic linker would write;
# rt/noplt.h says how).  make rt-ARCH builds it.
define rt_cross
$(1)_CC ?= $(2)-gcc-12
RT_CROSS_LIBS += build/$(1)/libmcount-trace.so build/$(1)/libmcount-trace.a
.PHONY: rt-$(1)
rt-$(1): build/$(1)/libmcount-trace.so build/$(1)/libmcount-trace.a
build/$(1)/rt/so/%.o: rt/%.c $$(RT_HDRS)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$($(1)_CC) $$(RT_CFLAGS) -DMT_SHARED $$(call rt_archflags,$(1),$$*) $$(RT_SO_CFLAGS_$(1)) -c -o $$@ $$<
build/$(1)/rt/a/%.o: rt/%.c $$(RT_HDRS)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$($(1)_CC) $$(RT_CFLAGS) $$(call rt_archflags,$(1),$$*) -c -o $$@ $$<
build/$(1)/rt/%/hook-$(1).o: $(call rt_hook_s,$(1)) rt/hook-table.h rt/hook-offsets.h
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$($(1)_CC) -fPIC $$(if $$(filter so,$$*),-DMT_SHARED) -c -o $$@ $$<
build/$(1)/libmcount-trace.so: $$(patsubst rt/%.c,build/$(1)/rt/so/%.o,$$(RT_COMMON) $$(call rt_arch_c,$(1)) rt/buffer.c) \
		build/$(1)/rt/so/hook-$(1).o
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$($(1)_CC) -shared $(RT_SO_LDFLAGS) $$(RT_SO_LDFLAGS_$(1)) -o $$@.tmp $$^ -lpthread && \
		$$(call no_libatomic,$$@.tmp) && $$(call no_wx,$$@.tmp) && mv -f $$@.tmp $$@ && \
		ln -sf $$(@F) $$(@D)/$(RT_SONAME)
build/$(1)/libmcount-trace.a: $$(patsubst rt/%.c,build/$(1)/rt/a/%.o,$$(RT_COMMON) $$(call rt_arch_c,$(1)) rt/buffer.c) \
		build/$(1)/rt/a/hook-$(1).o
	@$$(if $$(Q),echo "  AR      $$@")
	$$(Q)$$(call rt_archive,$(2)-,$$@,$$^,$$($(1)_CC))
endef
$(foreach a,$(RT_CROSS_NAMES),$(eval $(call rt_cross,$(a),$(RT_TRIPLE_$(a)))))
# sh4: Debian 12's cross compiler (12.2.0-13) deletes the load and the
# test of `if (*p)` at -O1 and above; the GCC plugin of
# scripts/gcc-sh4-treg-off.cc turns the passes that do it off
# (t/50-arch.t's sh4 row builds its programs with it).
SH4_PLUGIN := build/sh4/treg-off.so
$(SH4_PLUGIN): scripts/gcc-sh4-treg-off.cc
	$(Q)mkdir -p $(@D)
	$(Q)g++-12 -Wall -Wextra -shared -fPIC -fno-rtti -O2 -I"$$(sh4-linux-gnu-gcc-12 -print-file-name=plugin)/include" \
		-o $@.tmp $< && mv -f $@.tmp $@

# The kernels the booted guests boot (t/79-trace-system.t): each row of
# guests.tab names one (its kernel column, under build/) and where it
# comes from (its source): fetch:DEBARCH, Debian's package of that
# architecture (scripts/fetch-kernel), or build:NAME, one built from
# linux-source-6.1 with t/kernel/guest.config and guest-NAME.config
# (scripts/build-kernel; Debian 12 has no big-endian mips or ppc64
# kernel, and no sparc64 one).  Guests that share a kernel (arm's
# armhf programs on arm64's, ppc's on ppc64's, i386's and la57's on
# Debian's amd64 one) name the same file and source.
GUEST_ROWS := $(shell sed -n '/^[a-z0-9_]/{s/[[:space:]][[:space:]]*$$//;s/[[:space:]][[:space:]]*/|/g;p;}' guests.tab)
GUEST_KERNELS := $(sort $(foreach r,$(GUEST_ROWS),$(word 6,$(subst |, ,$(r)))))
define guest_kernel
ifeq ($(filter $(1),$(GUEST_KERNEL_RULES)),)
GUEST_KERNEL_RULES += $(1)
ifeq ($(firstword $(subst :, ,$(2))),build)
$(1): scripts/build-kernel t/kernel/guest.config t/kernel/guest-$(lastword $(subst :, ,$(2))).config
	$$(Q)scripts/build-kernel $(lastword $(subst :, ,$(2))) $$@
else
$(1): scripts/fetch-kernel
	$$(Q)scripts/fetch-kernel $(lastword $(subst :, ,$(2))) $$@
endif
endif
endef
$(foreach r,$(GUEST_ROWS),$(eval $(call guest_kernel,$(word 6,$(subst |, ,$(r))),$(word 7,$(subst |, ,$(r))))))

# The same under ASan and UBSan, for t/75 (the hot path, buffer.c, is
# not instrumented: it runs inside any function of the program, signal
# handlers included, and keeps to general registers).
RT_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
build/rt/asan/%.o: rt/%.c $(RT_HDRS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WARN) -fPIC $(if $(filter buffer trace,$*),-O2 -g -mgeneral-regs-only,$(RT_SAN)) -c -o $@ $<
build/asan/libmcount-trace.a: $(call RT_OBJS,asan)
	$(Q)mkdir -p $(@D)
	@$(if $(Q),echo "  AR      $@ (ASan+UBSan)")
	$(Q)$(call rt_archive,,$@,$^,$(CC))

build:
	$(Q)mkdir -p build

$(HELPER): $(SRCS) $(HDRS) | build
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@.tmp $(SRCS) && mv -f $@.tmp $@

build/mcount-attach: attach/attach.c $(wildcard attach/*.h) | build
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@.tmp attach/attach.c && mv -f $@.tmp $@

$(READER): $(wildcard read/*.c read/*.h) rt/argfmt.c rt/argfmt.h | build
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) -DVERSION='"$(VERSION)"' $(CFLAGS) $(LDFLAGS) -Irt -o $@.tmp $(wildcard read/*.c) rt/argfmt.c -lm && mv -f $@.tmp $@

# src/arch.c's rows and arches.tab agree: build/arch-check says where
# not, from build/arches.h (a line per row of the table)
build/arches.h: arches.tab | build
	$(Q)awk '/^[a-z0-9_]/ { printf "ARCHES_ROW(\"%s\", \"%s\", %s, %s, %s, \"%s\")\n", \
		$$1, $$3, $$4, $$5, ($$6 == "big" ? "true" : "false"), $$8 }' arches.tab > $@.tmp && mv -f $@.tmp $@
# (run here, so built by this machine's compiler: CC may be a cross one)
HOSTCC ?= cc
build/arch-check: src/arch-check.c src/arch.c src/util.c $(HDRS) build/arches.h
	$(Q)$(HOSTCC) $(WARN) -O2 -Ibuild -o $@.tmp src/arch-check.c src/arch.c src/util.c && \
		mv -f $@.tmp $@
build/arches.ok: build/arch-check
	$(Q)build/arch-check && touch $@

build/asan/mcount-scan: $(SRCS) $(HDRS)
	$(Q)mkdir -p build/asan
	@$(if $(Q),echo "  CC      $@ (ASan+UBSan)")
	$(Q)$(CC) $(WARN) -DVERSION='"$(VERSION)"' -O1 -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -o $@.tmp $(SRCS) && mv -f $@.tmp $@

# libFuzzer target for the helper's parser (src/fuzz/fuzz_scan.c): the
# helper's sources are built so that fatal() returns to the target.
FUZZ_CC  ?= clang-14
FUZZ_SAN := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
build/fuzz/fuzz_scan: src/fuzz/fuzz_scan.c $(filter-out src/main.c,$(SRCS)) $(HDRS)
	$(Q)mkdir -p build/fuzz
	@$(if $(Q),echo "  CC      $@ (libFuzzer+ASan+UBSan)")
	$(Q)$(FUZZ_CC) $(WARN) $(FUZZ_SAN) -c -o build/fuzz/fuzz_scan.o src/fuzz/fuzz_scan.c
	$(Q)$(FUZZ_CC) $(WARN) -DVERSION='"fuzz"' $(FUZZ_SAN) -Dexit=mcount_fuzz_exit \
		-Dgetline=mcount_fuzz_getline -o $@ build/fuzz/fuzz_scan.o $(filter-out src/main.c,$(SRCS))
fuzz-short: build/fuzz/fuzz_scan
	$(Q)$(call fuzz_for,25)
fuzz: build/fuzz/fuzz_scan
	$(Q)$(call fuzz_for,1800)

# doc/NAME.pod: a command's page (section 1); doc/NAME.3.pod: the
# library's C API (section 3).
MANS3 := $(patsubst doc/%.pod,build/man/%,$(wildcard doc/*.3.pod))
MANS1 := $(patsubst doc/%.pod,build/man/%.1,$(filter-out %.3.pod,$(wildcard doc/*.pod)))
MANS := $(MANS1) $(MANS3)
man: $(MANS)
build/man/%.1: doc/%.pod
	$(Q)mkdir -p build/man
	$(Q)pod2man --section=1 --center="recordmcount" --release="recordmcount $(VERSION)" \
		--name=$(shell echo $* | tr a-z A-Z) $< $@
build/man/%.3: doc/%.3.pod
	$(Q)mkdir -p build/man
	$(Q)pod2man --section=3 --center="recordmcount" --release="recordmcount $(VERSION)" \
		--name=$(shell echo $* | tr a-z A-Z) $< $@

# The tests, in tiers: each t/*.t names its own in its header (a line
# "# tier: NAME"):
#   host    make check: every command and the library on this machine,
#           in parallel (prove -j, JOBS of them; default: the CPUs)
#   cross   make check-cross: the other architectures under qemu-user
#   system  make check-system: the tracer in booted guests (the guest
#           kernels are made for this tier only)
#   slow    make check-slow: real projects built from source, and the
#           stress tests at their full counts (STRESS_FULL=1: t/72, t/75,
#           t/106, t/112)
# make check-all runs them all (CI, with check-kernel);
# TESTS=t/NN-x.t runs those files only, with what the host tier needs.
tier_tests = $(shell grep -l '^\# tier: $(1)$$' t/*.t)
PROVE := prove -I lib -I t/lib $(if $(filter 1,$(V)),-v)
JOBS ?= $(shell nproc)
# (a test file that names no tier would run in check-all only: refused)
untiered = $(filter-out $(foreach t,host cross system slow,$(call tier_tests,$(t))),$(wildcard t/*.t))
tiered = test -z "$(untiered)" || { echo "tests that name no tier (\# tier: host|cross|system|slow): $(untiered)"; exit 1; }
# (nothing for another architecture: the host tier needs no cross
# compiler; the cross tier builds the other architectures' libraries)
CHECK_HOST := all build/asan/mcount-scan $(if $(RT_BUILT),build/asan/libmcount-trace.a) build/fuzz/fuzz_scan
# (the fuzzer on mcount-scan's parser, SECONDS of it, FUZZ_SECONDS if set:
# 10 in make check, 25 in check-slow and check-all, in the time said)
fuzz_for = src/fuzz/run $(or $(FUZZ_SECONDS),$(1))
# (the time a tier took, said at its end; its status kept)
timed = start=$$(date +%s); $(1); st=$$?; echo "$(2): $$(( $$(date +%s) - start )) s"; exit $$st
# (prove -j starts the files in the order given: the longest first, so
# that none of them is left running alone at the end; t/99 mostly waits,
# beside t/72, which keeps both processors of a 2-core machine busy)
HOST_FIRST := t/72-trace-stress.t t/99-trace-robust.t t/20-gcc-oracle.t t/106-trace-hooks.t t/35-cc-link-mode.t \
	t/62-input.t t/75-trace-sanitizers.t t/39-link-mode-edges.t t/22-runtime.t t/100-trace-sites.t t/34-link-mode.t \
	t/91-trace-cfi.t t/60-faults.t t/78-trace-graph.t t/82-trace-dwarf.t t/85-trace-inflate.t \
	t/84-trace-debugfile.t t/105-trace-json.t
first_of = $(foreach t,$(1),$(filter $(t),$(2))) $(filter-out $(1),$(2))
check: $(CHECK_HOST)
	@$(tiered)
	@$(call timed,$(if $(TESTS),,$(call fuzz_for,10) && )$(PROVE) -j$(JOBS) $(or $(TESTS),$(call first_of,$(HOST_FIRST),$(call tier_tests,host))),make check)
check-cross: all $(RT_CROSS_LIBS) $(SH4_PLUGIN)
	@$(call timed,$(PROVE) $(call tier_tests,cross),make check-cross)
check-system: all $(RT_CROSS_LIBS) $(GUEST_KERNELS)
	@$(call timed,$(PROVE) $(call tier_tests,system),make check-system)
# (and the host tier's stress tests at their full counts)
check-slow: $(CHECK_HOST)
	@$(call timed,$(call fuzz_for,25) && STRESS_FULL=1 $(PROVE) $(call tier_tests,slow) t/72-trace-stress.t \
		t/75-trace-sanitizers.t t/106-trace-hooks.t t/112-trace-attach-cycles.t,make check-slow)
# (every file once, in two streams side by side: the booted guests one
# at a time, their output kept in build/check-system.log and shown at
# the end; the host, cross and slow tiers one at a time beside them.
# Two guests at once on two cores outran a boot's time limit and lost
# bytes of the files a guest sends over its console.)
# (what every tier needs, built JOBS at a time even when make was not
# given -j: a dozen libraries for other architectures)
check-all-build: $(CHECK_HOST) $(RT_CROSS_LIBS) $(SH4_PLUGIN) $(GUEST_KERNELS)
check-all:
	@$(tiered)
	@$(MAKE) --no-print-directory -j$(JOBS) check-all-build
	@$(call timed,{ $(PROVE) $(call tier_tests,system) > build/check-system.log 2>&1; \
		echo $$? > build/check-system.status; } & \
		st=0; $(call fuzz_for,25) || st=1; $(PROVE) $(foreach t,host cross slow,$(call tier_tests,$(t))) || st=1; wait; \
		echo '---- the system tier (build/check-system.log) ----'; cat build/check-system.log; \
		test "$$(cat build/check-system.status)" = 0 || st=1; test $$st = 0,make check-all)

deps:
	scripts/install-deps

# The Debian packages (debian/; needs scripts/deps/deb.list: make deps):
# built from a copy of the tree in build/deb/ (not the tree: the build
# starts with its clean), the .debs left there, and lintian run on them
# (no error, no warning: the overrides say why).  make version: the
# version, as debian/rules reads it.
.PHONY: deb version
version:
	@echo $(VERSION)
DEB_SRC := build/deb/recordmcount-$(VERSION)
deb:
	$(Q)rm -rf build/deb && mkdir -p $(DEB_SRC)
	$(Q)tar -cf - --exclude=./build --exclude=./.git . | tar -xf - -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc -J$(JOBS)
	$(Q)rm -rf $(DEB_SRC)
	$(Q)lintian --fail-on error,warning build/deb/*.changes
	@ls build/deb/*.deb

demo: all
	examples/demo.sh

# Build a Linux 6.1 kernel whose every table comes from recordmcount.pl,
# boot it under QEMU and check ftrace (see doc/kernel.md).
check-kernel: all
	t/kernel/check-kernel

bench: all
	bench/run
	bench/build

COMMANDS := recordmcount.pl bin/mcount-cc bin/mcount-record bin/mcount-trace

# (the libraries of the other architectures that were built here are
# installed, each made up to date first: a .so without its .a, or older
# than the sources, is never installed as it is)
RT_CROSS_HERE = $(foreach a,$(RT_CROSS_NAMES),$(if $(wildcard build/$(a)/libmcount-trace.so),$(a)))
install: all $(foreach a,$(RT_CROSS_HERE),rt-$(a))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGDIR)/bin $(DESTDIR)$(PKGDIR)/libexec \
		$(DESTDIR)$(PKGDIR)/lib/RecordMcount $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(MAN3DIR)
	install -m 755 $(HELPER) $(DESTDIR)$(PKGDIR)/libexec/mcount-scan
	$(if $(ATTACH),install -m 755 $(ATTACH) $(DESTDIR)$(PKGDIR)/libexec/mcount-attach)
	install -m 755 $(READER) $(DESTDIR)$(PKGDIR)/libexec/mcount-read
	$(if $(RT_BUILT),install -m 644 $(RT_BUILT) rt/mcount-trace.h rt/mcount-hooks.h $(DESTDIR)$(PKGDIR)/libexec/ && \
		ln -sf libmcount-trace.so $(DESTDIR)$(PKGDIR)/libexec/$(RT_SONAME))
	for a in $(RT_CROSS_HERE); do \
		install -d $(DESTDIR)$(PKGDIR)/libexec/$$a && \
		install -m 644 build/$$a/libmcount-trace.so build/$$a/libmcount-trace.a \
			$(DESTDIR)$(PKGDIR)/libexec/$$a/ && \
		ln -sf libmcount-trace.so $(DESTDIR)$(PKGDIR)/libexec/$$a/$(RT_SONAME) || exit 1; \
	done
	install -m 644 lib/RecordMcount/*.pm $(DESTDIR)$(PKGDIR)/lib/RecordMcount/
	install -m 644 arches.tab $(DESTDIR)$(PKGDIR)/
	for f in $(COMMANDS); do \
		install -m 755 $$f $(DESTDIR)$(PKGDIR)/$$f && \
		ln -sf $(PKGDIR)/$$f $(DESTDIR)$(BINDIR)/$$(basename $$f) || exit 1; \
	done
	install -m 644 $(MANS1) $(DESTDIR)$(MAN1DIR)/
	install -m 644 $(MANS3) $(DESTDIR)$(MAN3DIR)/

uninstall:
	for f in $(COMMANDS); do rm -f $(DESTDIR)$(BINDIR)/$$(basename $$f); done
	for f in $(MANS1); do rm -f $(DESTDIR)$(MAN1DIR)/$$(basename $$f); done
	for f in $(MANS3); do rm -f $(DESTDIR)$(MAN3DIR)/$$(basename $$f); done
	rm -rf $(DESTDIR)$(PKGDIR)

clean:
	rm -rf build

# What libmcount-trace costs, against plain code, uftrace and XRay
# (bench/trace; needs scripts/deps/bench.list: make deps).
.PHONY: bench-trace
bench-trace: all
	bench/trace

# What mcount-trace record costs and keeps, against uftrace record, and
# how fast a recording is read back (bench/record; needs
# scripts/deps/bench.list).
.PHONY: bench-record
bench-record: all
	bench/record

# What mcount-trace attach costs: the pause it makes, and the command end
# to end (bench/attach; needs hyperfine, scripts/deps/bench.list).
.PHONY: bench-attach
bench-attach: all
	bench/attach

# What a link through the link-time pass costs against the plain link of
# the same objects, one link and the links with -q: time, and the
# instructions callgrind counts, which the machine's load does not move
# (bench/link; needs hyperfine, scripts/deps/bench.list, and valgrind,
# core.list).
.PHONY: bench-link
bench-link: all
	bench/link

# Whole builds through mcount-cc against the same builds with the hook
# flags alone, in pairs of one of each: googletest, JsonCpp with Debian's
# LTO flags, a generated C++ project; and the cost their compiles' and
# links' parts predict (bench/build, also the end of make bench; needs
# hyperfine, scripts/deps/bench.list and cc.list; BENCH_BUILD_ONLY=cxx
# for the generated project alone).
.PHONY: bench-build
bench-build: all
	bench/build
