# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::LinkOnce;
# The link-time pass in one link (GNU ld on every row of arches.tab,
# riscv64's linked with --no-relax; gold and lld on x86_64 and i386;
# GCC's LTO of fat objects and clang's, the objects LTO writes kept for
# the table):
#
#   mcount-scan --bound INPUTS   -> the calls to the hook the inputs (their
#                                   relocations) can bring: the bound N,
#                                   the placeholder of N entries (its
#                                   object, or assembly for `as` where
#                                   the target's row says so), the
#                                   target's facts (the first ELF object)
#   link  CMD placeholder(N) -Map  -> output (the command's own link: no -q)
#   mcount-scan --fill-linked=MAP --object OUTPUT
#        the map: where each input section went (an input it names that
#        is not on the command line, the driver's own files and -l found
#        by ld, read too); entries = output address of the section + the
#        call's offset in it (less the form's field offset and lead),
#        each checked against the output's bytes (a call, or the form
#        the linker relaxed it to; src/arch.c's forms and relocation
#        numbers, the per-architecture facts); none outside every
#        function symbol (an overridden weak copy); sorted, the rest
#        holes; the slots and the addends of their dynamic relocations
#        written in place
#   the build ID computed again as the linker computes it (lld's:
#   checked first against the one it wrote)
#
# A hole is a slot of 0: in a program or library the loader relocates,
# it reads as the load base at run time.  Holes come after the entries.
#
# try_one_link returns a reason where it cannot make the table
# (RecordMcount::LinkMulti then links as before, three times): the caller
# says which ran.  Loaded at each link, it loads little: the record
# pipeline only for a placeholder that needs assembling.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool basename temp_path register_temp forget_temp run_step);
use RecordMcount::Message qw(throw caught);
use RecordMcount::LinkCmd qw(is_ld ld_words linker_of lto_words lto_link link_cmd start_link mend_side_files);

our @EXPORT_OK = qw(try_one_link remove_lto_temps);

# (every row of arches.tab: build/arch-check holds each row's call forms
# to relocation numbers, which mcount-scan --bound and --fill-linked read)
my %X86 = map { $_ => 1 } qw(x86_64 i386);

# A symbol's name as the linker prints it without demangling (C++'s and
# Rust's: GNU ld, gold and lld demangle these).
my $MANGLED = qr/(?<![A-Za-z0-9_\$.])_+[ZR][A-Za-z0-9_]/;

# Why the command cannot be linked once (a reason), or undef, as far as
# its words tell (the target: from the bound's step).
sub one_link_refusal {
    my ($cmd, $is_ld) = @_;
    my $ld = linker_of($cmd, $is_ld);
    return "the linker is $ld, not GNU ld, gold or lld" unless $ld eq 'bfd' || $ld eq 'gold' || $ld eq 'lld';
    if (lto_link($cmd, $is_ld)) {
        # (the objects LTO writes are kept by the linker plugin's option)
        return 'an LTO link without the linker plugin (-fno-use-linker-plugin)'
            if grep { $_ eq '-fno-use-linker-plugin' } @$cmd;
    }
    for (ld_words($cmd)) {
        return 'the command writes its own map (-Map)' if /^--?Map(?:=|\z)/ || /^-M\z/ || /^--print-map\z/;
        return 'the command keeps relocations (-q)' if /^(?:-q|--?emit-relocs)\z/;
        return 'a relocatable link (-r)' if /^(?:-r|-i|--relocatable)\z/;
        return 'a linker plugin' if /^-plugin\z/ && $is_ld;
        return 'the command keeps LTO\'s files itself'
            if /^--?(?:save-temps|lto-obj-path=|thinlto-cache-dir=|plugin-opt=(?:obj-path=|save-temps))/;
    }
    return 'a relocatable link (-r)' if !$is_ld && grep { $_ eq '-r' } @$cmd[1 .. $#$cmd];
    return undef;
}

# Why the target (the bound's facts ID) cannot be linked once by CMD, or
# undef.
sub _target_refusal {
    my ($cmd, $id, $is_ld) = @_;
    # (riscv64: the linker relaxes each call into a shorter one and moves
    # the code after it inside its input section, so that a call is no
    # longer at its offset in the input, which is all the map and the
    # input's relocations tell; the row's object-link-flags, --no-relax,
    # keep it there, as per-object tables need too: each the last word of
    # its kind, --no-X after any --X)
    my @w = map { $is_ld ? $_ : /^-Wl,(.*)\z/s ? map({ "-Wl,$_" } split(/,/, $1)) : $_ } @$cmd[1 .. $#$cmd];
    my %last;
    @last{@w} = (0 .. $#w);
    my @need = grep {
        my $f = $is_ld ? s/^-Wl,//r : $_;
        my $undo = $f =~ s/^((?:-Wl,)?)--?no-/$1--/r;
        !defined $last{$f} || ($undo ne $f && ($last{$undo} // -1) > $last{$f});
    } split ' ', $id->{'object-link-flags'} // '';
    return "a link of $id->{arch} moves code inside its input sections (linker relaxation) "
        . 'unless it has ' . join(' ', map { $is_ld ? s/^-Wl,//r : $_ } @need) if @need;
    # (gold's stubs and maps were tried on x86 alone: on aarch64 its map
    # gives the input sections of .ref.text, .sched.text... the address
    # 0xffffffffffffffff, and on arm its -q links fail; lld's on x86 alone)
    my $ld = linker_of($cmd, $is_ld);
    return "$ld links $id->{arch}, where the one link knows GNU ld only"
        if ($ld eq 'gold' || $ld eq 'lld') && !$X86{ $id->{arch} };
    return undef;
}

# The inputs a link names (objects and archives, -l found in the -L
# directories), each once as it is named.  (A file named two ways counts
# twice: a larger bound, still one.  Cwd's abs_path cost more at each
# start than it saved.)
sub _inputs {
    my ($cmd, $is_ld) = @_;
    my (@files, @libs, @dirs);
    my $static = 0;
    my @a = @$cmd[1 .. $#$cmd];
    for (my $i = 0; $i <= $#a; $i++) {
        my $w = $a[$i];
        if (!$is_ld && $w =~ /^-Wl,(.*)\z/s) {
            for (split /,/, $1) {
                push @dirs, $1 if /^-L(.+)\z/s;
                $static = 1 if /^-B?static\z/ || /^-Bstatic\z/ || /^-dn\z/;
                $static = 0 if /^-Bdynamic\z/ || /^-dy\z/;
            }
            next;
        }
        if ($w =~ /^-(?:o|T|Map|MF|MT|MQ|x|Xlinker|-dependency-file|soname|h|e|-entry|rpath|z)\z/) { $i++; next }
        if ($w eq '-static' || $w eq '-Bstatic') { $static = 1; next }
        if ($w eq '-Bdynamic') { $static = 0; next }
        if ($w =~ /^-L(.*)\z/s) { push @dirs, length $1 ? $1 : $a[++$i] // ''; next }
        if ($w =~ /^-l(.*)\z/s) { push @libs, [length $1 ? $1 : $a[++$i] // '', $static]; next }
        next if $w =~ /^-/;
        push @files, $w if -f $w;
    }
    for my $l (@libs) {
        my ($name, $st) = @$l;
        my @want = $name =~ /^:(.*)\z/s ? ($1) : $st ? ("lib$name.a") : ("lib$name.so", "lib$name.a");
        DIR: for my $d (@dirs) {
            for my $f (@want) {
                next unless -f "$d/$f";
                push @files, "$d/$f";
                last DIR;
            }
        }
    }
    my %seen;
    return grep { _is_input($_) } grep { !$seen{$_}++ } @files;
}

# LLVM bitcode's first bytes: raw, or in its wrapper (clang -flto's objects).
my $BITCODE = qr/\A(?:BC\xc0\xde|\xde\xc0\x17\x0b)/;

# An ELF relocatable object, an archive, or LLVM bitcode.
sub _is_input {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or return 0;
    my $n = read($fh, my $b, 18) // 0;
    return 1 if $n >= 8 && substr($b, 0, 8) eq "!<arch>\n";
    return 1 if $n >= 4 && $b =~ $BITCODE;
    return 0 unless $n >= 18 && substr($b, 0, 4) eq "\x7fELF";
    my $type = unpack(substr($b, 5, 1) eq "\2" ? 'n' : 'v', substr($b, 16, 2));
    return $type == 1;
}

# mcount-scan's key/value lines for ARGS (the steps around the link).
sub _helper {
    my ($o, $what, @args) = @_;
    my ($st, $err, $out) = run_tool(cmd => [$o->{helper}, @args], capture_stdout => 1);
    throw("$what: " . ($err =~ /^(?:[^:\n]*: )?(.*)/ ? $1 : 'failed')) if $st != 0;
    return map { /^(\S+)\t(.*)\z/ ? ($1 => $2) : () } split /\n/, $out;
}

# --- the method -------------------------------------------------------------

# clang's LTO of the command (the bound's words B: LLVM bitcode among its
# inputs, how many with a ThinLTO summary): how its objects are kept
# (cache: lld's ThinLTO cache; else the plugin's obj-path), what it is
# (for -v), or refused => why not.
sub _clang_lto {
    my ($cmd, $is_ld, $linker, $b) = @_;
    my $thin = $b->{thin} == $b->{bitcode};
    my $what = $thin ? 'clang\'s ThinLTO' : $b->{thin} ? 'clang\'s LTO and ThinLTO' : 'clang\'s LTO';
    my $no = sub { return { refused => $_[0] } };
    if ($is_ld) {
        return $no->("LLVM bitcode given to $linker without its plugin's options") unless $linker eq 'lld';
    } else {
        return $no->("LLVM bitcode linked by $cmd->[0], not clang") unless basename($cmd->[0]) =~ /clang/;
        # (without it clang gives GNU ld and gold no plugin)
        return $no->('LLVM bitcode without -flto on the link') unless $linker eq 'lld' || lto_link($cmd, 0);
    }
    # (gold adds the object of the LTO part it has no module for)
    return $no->('clang\'s ThinLTO through gold (keeping its objects adds one to the link)')
        if $thin && $linker eq 'gold';
    return { what => $what, cache => $thin && $linker eq 'lld' };
}

# The objects LTO wrote into DIR: lld's obj-path's (lto.o, lto.o1, ...),
# or its cache's entries.
sub _kept_objects {
    my ($dir) = @_;
    opendir(my $dh, $dir) or return ();
    my @f = grep { /^(?:lto\.o\d*|llvmcache-[0-9A-Fa-f]+)\z/ } readdir $dh;
    closedir $dh;
    return map { "$dir/$_" } sort @f;
}

# A link of LLVM bitcode alone by clang names no ELF object to take the
# target from: an empty one, assembled at PATH by the command's compiler
# with its target's options (its path), else undef.
sub stand_in_object {
    my ($cmd, $path) = @_;
    return undef unless basename($cmd->[0]) =~ /clang/;
    my @a = @$cmd[1 .. $#$cmd];
    my @t;
    for (my $i = 0; $i <= $#a; $i++) {
        push @t, $a[$i] if $a[$i] =~ /^(?:-m(?:32|64|x32)|--target=.*|-target=.*)\z/s;
        push @t, @a[$i, $i + 1] if $a[$i] eq '-target' && $i < $#a;
    }
    return undef unless grep { !/^-/ && _is_bitcode($_) } @a;
    my ($st) = run_tool(cmd => [$cmd->[0], @t, '-c', '-x', 'assembler', '/dev/null', '-o', $path], capture_stdout => 1);
    return $st == 0 && -f $path ? $path : undef;
}

sub _is_bitcode {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or return 0;
    read($fh, my $b, 4);
    return ($b // '') =~ $BITCODE;
}

# A directory of the pass's own beside OUT (its temporary files' rule).
sub _temp_dir {
    my ($out) = @_;
    my $d = temp_path($out, 'lto');
    mkdir $d, 0700 or throw("$d: cannot make a directory: $!");
    # (absolute: LTO's processes need not run where this one does; Cwd
    # loaded for an LTO link alone)
    require Cwd;
    return $d =~ m{^/} ? $d : Cwd::getcwd() . '/' . ($d =~ s{^\./}{}r);
}

# The LTO link's kept files gone (the job's cleanup removes files only).
sub remove_lto_temps {
    my ($job) = @_;
    if (defined(my $args = delete $job->{tmp}{ltoargs})) { unlink $args; forget_temp($args) }
    my $d = delete $job->{tmp}{ltodir} // return;
    forget_temp($d);
    opendir(my $dh, $d) or return;
    unlink map { "$d/$_" } grep { !/^\.\.?\z/ } readdir $dh;
    closedir $dh;
    rmdir $d;
    return;
}

# The build ID style the command asks the linker for: the last
# --build-id; a bare one (Debian's GCC and clang pass it) is sha1 for GNU
# ld and gold, fast for lld (its xxHash64; tree is its sha1 too).
sub _build_id_style {
    my ($cmd, $linker) = @_;
    my $style = '';
    for (ld_words($cmd)) {
        $style = '' if /^--?build-id\z/;
        $style = $1 if /^--?build-id=(.*)\z/s;
    }
    return $linker eq 'lld' ? ($style eq '' ? 'fast' : $style eq 'tree' ? 'sha1' : $style) : $style || 'sha1';
}

# mcount-scan's --build-id: how the linker hashes the style it asks.
my %BUILD_ID = (bfd => { sha1 => 'bfd' }, gold => { sha1 => 'gold' }, lld => { sha1 => 'lld', fast => 'lld-fast' });

# try_one_link(JOB, CMD) with JOB as RecordMcount::Link's ({o}: options,
# {out}, {label}, {tmp}; MCOUNT_LINK_METHOD=multi: never): the result
# hash of the one link, or why it could not be (a reason: the command's
# output is then left to the links with -q, which also say whose failure
# a failed link is).
sub try_one_link {
    my ($job, $cmd) = @_;
    my ($o, $out) = ($job->{o}, $job->{out});
    my $method = $o->{link_method} // $ENV{MCOUNT_LINK_METHOD} // 'auto';
    return 'MCOUNT_LINK_METHOD=multi' if $method eq 'multi';
    my $ld = is_ld($cmd);
    my $why = one_link_refusal($cmd, $ld);
    return $why if defined $why;
    my ($r, $reason) = eval { _one_link($job, $cmd, $ld) };
    # (a GNU ld older than --no-print-map-discarded, 2.34, or an `ld`
    # that is not GNU ld: it stops at the option, before it reads an
    # input; linked again without)
    if (!$r && !defined $reason && !$job->{long_map}
        && (caught($@)->{link_stderr} // '') =~ /no-print-map-discarded/) {
        $job->{long_map} = 1;
        $job->{links} = 0;
        ($r, $reason) = eval { _one_link($job, $cmd, $ld) };
    }
    # (the map's symbols left mangled, and so the linker's messages: a
    # link that named a symbol on stderr is linked again as the command
    # asks, for its words)
    if ($r && $r->{mangled} && ($r->{stderr} // '') =~ $MANGLED) {
        ($r, $reason) = eval { _one_link($job, $cmd, $ld, undef, 1) };
        $r->{for_words} = 1 if $r;
    }
    # LTO made more calls than its inputs' bound: linked again with room
    # for as many (its code generation gives the same code again), not
    # three times as the links with -q would
    if (!$r && defined $reason && $reason =~ /^the link has (\d+) calls to the hook, more than the \d+ its inputs gave/) {
        my $at_least = $1;
        remove_lto_temps($job);
        ($r, $reason) = eval { _one_link($job, $cmd, $ld, $at_least) };
        $r->{again} = 1 if $r;
    }
    # (an LTO link's kept objects, whatever became of it)
    remove_lto_temps($job);
    if (!$r && !defined $reason) {
        my $e = caught($@);
        # (a link that fails: the links after tell whose failure it is,
        # the command's own or the table's object's)
        $reason = defined $e->{link_status} ? 'the link failed' : "$e" =~ s/\n.*\z//sr;
    }
    if (!$r) {
        # (the links after write the output again)
        unlink $out if defined $job->{tmp}{final};
        forget_temp(delete $job->{tmp}{final} // ());
        $job->{links} = 0;
        return $reason;
    }
    forget_temp(delete $job->{tmp}{final} // ());
    print STDERR delete $r->{stderr} if length($r->{stderr} // '');
    mend_side_files($cmd, $job->{placeholder}) if defined $job->{placeholder};
    $r->{output} = $out;
    return $r;
}

# The placeholder of N entries: the object the bound's step wrote, or
# its assembly assembled (a target whose row leaves that to `as`).
sub _placeholder {
    my ($job, $cmd, $b) = @_;
    my $tmp = $job->{tmp};
    return $job->{placeholder} = $tmp->{ps} if ($b->{placeholder} // '') eq 'object';
    # (the target's assembler, as the links with -q would choose it, and
    # the record pipeline's command for it: loaded for these alone)
    if (!$job->{o}{as} && !$job->{o}{cc} && $job->{o}{tools}) {
        my ($tools) = $job->{o}{tools}->($cmd);
        $job->{o} = { %{ $job->{o} }, %$tools };
    }
    my $o = $job->{o};
    require RecordMcount::Pipeline;
    my %ph = (o => $o, label => $job->{label}, plan => $b, tmp => { s => $tmp->{ps}, o => $tmp->{po} //= temp_path($job->{out}, 'po') });
    run_step($job->{label}, 'assembling the placeholder table', RecordMcount::Pipeline::assemble_cmd(\%ph));
    return $job->{placeholder} = $tmp->{po};
}

# The one link: the result hash, or (undef, reason) before the link
# writes anything it cannot stand behind.  (DEMANGLE: the map as the
# command would have it.)
sub _one_link {
    my ($job, $cmd, $is_ld, $at_least, $demangle) = @_;
    my ($o, $out) = ($job->{o}, $job->{out});
    # the inputs' calls, the bound and its placeholder (an object, or
    # assembly), and the target's facts from the first ELF object
    my $ps = $job->{tmp}{ps} //= temp_path($out, 'ps');
    my @in = _inputs($cmd, $is_ld);
    my @least = $at_least ? ("--at-least=$at_least") : ();
    my %b = _helper($o, "the calls of the link's inputs", '--bound', @least, '-o', $ps, '--', @in);
    # (clang's LTO of bitcode alone: the target from an empty object)
    if (defined $b{refused} && defined(my $first = stand_in_object($cmd, $job->{tmp}{first} //= temp_path($out, 'first.o')))) {
        %b = _helper($o, "the calls of the link's inputs", '--object', $first, '--bound', @least, '-o', $ps, '--', @in);
    }
    return (undef, $b{refused}) if defined $b{refused};
    my $twhy = _target_refusal($cmd, \%b, $is_ld);
    return (undef, $twhy) if defined $twhy;
    return (undef, 'the target names no hook') unless length($b{hooks} // '');
    return (undef, 'an input brings its own table (per-object mode)') if $b{tabled};
    my $n = $b{bound} // throw("the calls of the link's inputs: no bound");
    my $linker = linker_of($cmd, $is_ld);
    # clang's LTO (LLVM bitcode among the inputs), or GCC's, which lld
    # does not run (GCC's plugin is not lld's: it links the fat objects'
    # own code)
    my $clang = $b{bitcode} ? _clang_lto($cmd, $is_ld, $linker, \%b) : undef;
    return (undef, $clang->{refused}) if $clang && $clang->{refused};
    my $words = lto_words($cmd, $is_ld);
    my $lto = !$clang && $linker ne 'lld' && ($words eq 'on' || ($words eq '' && $b{lto}));
    if ($lto) {
        return (undef, 'LTO objects without their code (-fno-fat-lto-objects) give no bound') if $b{slim};
        return (undef, 'an LTO link without the linker plugin (-fno-use-linker-plugin)')
            if grep { $_ eq '-fno-use-linker-plugin' } @$cmd;
    }
    # (the build ID: sha1 the helper computes again; none, or the
    # command's own 0xHEX, stays as the linker wrote it)
    my $style = _build_id_style($cmd, $linker);
    my $hash = $BUILD_ID{$linker}{$style};
    return (undef, "a build ID of style $style") unless $hash || $style =~ /^(?:none|0x)/;
    my $map = $job->{tmp}{map} //= temp_path($out, 'map');
    my @extra = ($n ? (_placeholder($job, $cmd, \%b)) : (), $is_ld ? "-Map=$map" : "-Wl,-Map=$map");
    # LTO: the objects its code generation writes (the map names them,
    # their relocations are the calls) kept until the table is filled:
    # GCC's linker plugin keeps them with its -save-temps, in TMPDIR (a
    # directory of the pass's own), and its arguments' file beside the
    # output (OUTPUT.lto_wrapper_args), removed after.  The output is the
    # plain link's: the plugin's option changes no code.
    # (the map's symbols mangled: demangling them was a third of the
    # map's cost in a C++ link; the output is the same either way)
    my $mangled = !$demangle && !$lto && !$b{bitcode} && !grep { /^--?(?:no-)?demangle(?:=|\z)/ } ld_words($cmd);
    push @extra, $is_ld ? '--no-demangle' : '-Wl,--no-demangle' if $mangled;
    # (nor GNU ld's list of the sections it discarded, which the fill
    # never reads: a twentieth of a C++ link)
    if ($linker eq 'bfd' && !$lto && !$b{bitcode} && !$job->{long_map}) {
        push @extra, $is_ld ? '--no-print-map-discarded' : '-Wl,--no-print-map-discarded';
    }
    my $dir;
    if ($lto) {
        $dir = $job->{tmp}{ltodir} //= _temp_dir($out);
        my $args = "$out.lto_wrapper_args";
        register_temp($job->{tmp}{ltoargs} = $args) unless -e $args;
        push @extra, '-Wl,-plugin-opt=-save-temps';
    }
    # clang's LTO: the objects it writes kept in a directory of the
    # pass's own, by the plugin's obj-path (LLVMgold.so's, and lld's
    # alias of --lto-obj-path: DIR/lto.o, DIR/lto.o1, ...), or for lld's
    # ThinLTO alone (where obj-path adds an object to the link) as its
    # cache's entries; neither changes the output.
    if ($clang) {
        $dir = $job->{tmp}{ltodir} //= _temp_dir($out);
        my $w = $clang->{cache} ? "--thinlto-cache-dir=$dir" : "-plugin-opt=obj-path=$dir/lto.o";
        push @extra, $is_ld ? $w : "-Wl,$w";
    }
    # (started with TMPDIR set for GCC's LTO; as it was, unset or not, else)
    my $start = sub {
        my $fin = start_link($job, 'linking once, the table reserved', link_cmd($cmd, $out, @extra),
            first => 1, show => 1, hold => 1);
        return sub {
            my $err = $fin->();
            register_temp($job->{tmp}{final} = $out) if -f $out && !-l $out;
            return $err;
        };
    };
    my $err = ($lto ? do { local $ENV{TMPDIR} = $dir; $start->() } : $start->())->();
    # (lld's map names each object of its LTO lto.tmp: the objects kept)
    my @kept = $clang && $linker eq 'lld' ? _kept_objects($dir) : ();
    my %f = _helper($o, 'filling in the table', "--arch=$b{arch}", "--fill-linked=$map", '--object', $out,
        $hash ? "--build-id=$hash" : (), map { "--lto-object=$_" } @kept);
    remove_lto_temps($job) if $lto || $clang;
    return (undef, $f{refused}) if defined $f{refused};
    return (undef, 'the output has a table of its own') if !$n && $f{slots};
    return (undef, 'the output has no __mcount_loc of the bound\'s size') if $f{slots} != $n;
    my $bid = ($f{'build-id'} // 'left') eq 'left' ? $style : $f{'build-id'};
    return { status => $f{sites} ? 'recorded' : 'no-sites', sites => $f{sites}, passed_over => 0,
        dropped => $f{dropped}, links => $job->{links}, slots => $n, method => 'one link', build_id => $bid, stderr => $err,
        mangled => $mangled,
        lto => $lto || ($clang ? $clang->{what} : 0) };
}

1;
