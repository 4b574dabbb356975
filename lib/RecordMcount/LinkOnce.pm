# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::LinkOnce;
# The link-time pass in one link (GNU ld on every row of arches.tab,
# riscv64's linked with --no-relax; gold on x86_64 and i386; GCC's LTO
# of fat objects, the objects LTO writes kept for the table):
#
#   mcount-scan --bound INPUTS   -> the calls to the hook the inputs (their
#                                   relocations) can bring: the bound N,
#                                   and the placeholder of N entries
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
#   the build ID computed again as the linker computes it
#
# A hole is a slot of 0: in a program or library the loader relocates,
# it reads as the load base at run time.  Holes come after the entries.
#
# one_link returns undef and a reason where it cannot make the table
# (RecordMcount::Link then links as before, three times): the caller
# says which ran.
use strict;
use warnings;

use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool basename temp_path register_temp forget_temp);
use RecordMcount::Message qw(throw);

our @EXPORT_OK = qw(one_link_refusal one_link remove_lto_temps lto_link);

# The rows of arches.tab whose call forms and relocation numbers
# (src/arch.c) mcount-scan --fill-linked reads.
my %ARCH_OK = map { $_ => 1 }
    qw(x86_64 i386 aarch64 arm riscv64 ppc64le ppc64 ppc32 s390x mips mipsel mips64el sparc64 sh4);
my %GOLD_OK = map { $_ => 1 } qw(x86_64 i386);

# The linker the command runs: bfd, gold, or another's name.
sub linker_of {
    my ($cmd, $is_ld) = @_;
    if ($is_ld) {
        my $ld = basename($cmd->[0]);
        return $ld =~ /\bld\.(\w+)\z/ ? $1 : 'bfd';
    }
    my $l = 'bfd';
    for (@$cmd[1 .. $#$cmd]) {
        $l = $1 if /^-fuse-ld=(.*)\z/s;
        $l = 'the one --ld-path names' if /^--ld-path=/;
    }
    return $l;
}

# Why the command cannot be linked once (a reason), or undef.
sub one_link_refusal {
    my ($cmd, $id, $is_ld) = @_;
    return "the one-link method does not know $id->{arch}" unless $ARCH_OK{ $id->{arch} // '' };
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
    my $ld = linker_of($cmd, $is_ld);
    return "the linker is $ld, not GNU ld or gold" unless $ld eq 'bfd' || $ld eq 'gold';
    # (gold's stubs and maps were tried on x86 alone: on aarch64 its map
    # gives the input sections of .ref.text, .sched.text... the address
    # 0xffffffffffffffff, and on arm its -q links fail)
    return "gold links $id->{arch}, where the one link knows GNU ld only"
        if $ld eq 'gold' && !$GOLD_OK{ $id->{arch} };
    if (lto_link($cmd, $is_ld)) {
        return "an LTO link (-flto) by $cmd->[0], not GCC" if basename($cmd->[0]) =~ /clang/;
        # (the objects LTO writes are kept by the linker plugin's option)
        return 'an LTO link without the linker plugin (-fno-use-linker-plugin)'
            if grep { $_ eq '-fno-use-linker-plugin' } @$cmd;
    }
    for my $a (@$cmd[1 .. $#$cmd]) {
        my @w = $is_ld ? ($a) : $a =~ /^-Wl,(.*)\z/s ? split(/,/, $1) : ();
        for (@w) {
            return 'the command writes its own map (-Map)' if /^--?Map(?:=|\z)/ || /^-M\z/ || /^--print-map\z/;
            return 'the command keeps relocations (-q)' if /^(?:-q|--?emit-relocs)\z/;
            return 'a relocatable link (-r)' if /^(?:-r|-i|--relocatable)\z/;
            return 'a linker plugin' if /^-plugin\z/ && $is_ld;
        }
        return 'a relocatable link (-r)' if !$is_ld && $a eq '-r';
    }
    return undef;
}

# Does the compiler driver ask for LTO: 'on' (its last -flto), 'off'
# (-fno-lto), '' (neither: GCC still generates the code of objects that
# hold its intermediate language, fat ones too, at the link)?
sub lto_words {
    my ($cmd, $is_ld) = @_;
    return 'off' if $is_ld;
    my $lto = '';
    for (@$cmd[1 .. $#$cmd]) {
        $lto = 'on' if /^-flto(?:=|\z)/;
        $lto = 'off' if $_ eq '-fno-lto';
    }
    return $lto;
}
sub lto_link { return lto_words(@_) eq 'on' }

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

# An ELF relocatable object or an archive.
sub _is_input {
    my ($f) = @_;
    open(my $fh, '<:raw', $f) or return 0;
    my $n = read($fh, my $b, 18) // 0;
    return 1 if $n >= 8 && substr($b, 0, 8) eq "!<arch>\n";
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

# The build ID style the command asks ld for: the last --build-id; the
# driver's default (Debian's GCC passes --build-id) is sha1.
sub _build_id_style {
    my ($cmd, $is_ld) = @_;
    my $style = 'sha1';
    for my $a (@$cmd[1 .. $#$cmd]) {
        my @w = $is_ld ? ($a) : $a =~ /^-Wl,(.*)\z/s ? split(/,/, $1) : ();
        for (@w) {
            $style = 'sha1' if /^--?build-id\z/;
            $style = $1 if /^--?build-id=(.*)\z/s;
        }
    }
    return $style;
}

# one_link(JOB, CMD, ID, is_ld => ...) with JOB as RecordMcount::Link's:
# link => sub (what, command) starting one link that writes the output
# (a sub that waits for it), placeholder => sub (N) assembling the
# placeholder's object (its path) from its assembly at placeholder_s,
# which the bound's step writes; first => the object whose target it is.  Returns the result hash, or (undef,
# reason) before the link writes anything it cannot stand behind.
sub one_link {
    my ($job, $cmd, $id, %a) = @_;
    my ($o, $out) = ($job->{o}, $job->{out});
    return (undef, 'the target names no hook') unless length($id->{hooks} // '');
    my $is_ld = $a{is_ld};
    # (the placeholder's assembly of that many entries written too)
    my %b = _helper($o, "the calls of the link's inputs", '--object', $a{first}, '--bound', '-o',
        $a{placeholder_s}, '--', _inputs($cmd, $is_ld));
    return (undef, 'an input brings its own table (per-object mode)') if $b{tabled};
    my $n = $b{bound} // throw("the calls of the link's inputs: no bound");
    my $words = lto_words($cmd, $is_ld);
    my $lto = $words eq 'on' || ($words eq '' && $b{lto});
    if ($lto) {
        return (undef, 'LTO objects without their code (-fno-fat-lto-objects) give no bound') if $b{slim};
        return (undef, 'an LTO link without the linker plugin (-fno-use-linker-plugin)')
            if grep { $_ eq '-fno-use-linker-plugin' } @$cmd;
    }
    # (the build ID: sha1 the helper computes again; none, or the
    # command's own 0xHEX, stays as the linker wrote it)
    my $style = _build_id_style($cmd, $is_ld);
    return (undef, "a build ID of style $style") unless $style =~ /^(?:sha1|none|0x)/;
    my $map = $job->{tmp}{map} //= temp_path($out, 'map');
    my @extra = ($n ? ($a{placeholder}->($n)) : (), $is_ld ? "-Map=$map" : "-Wl,-Map=$map");
    # LTO: the objects its code generation writes (the map names them,
    # their relocations are the calls) kept until the table is filled:
    # GCC's linker plugin keeps them with its -save-temps, in TMPDIR (a
    # directory of the pass's own), and its arguments' file beside the
    # output (OUTPUT.lto_wrapper_args), removed after.  The output is the
    # plain link's: the plugin's option changes no code.
    my $dir;
    if ($lto) {
        $dir = $job->{tmp}{ltodir} //= _temp_dir($out);
        my $args = "$out.lto_wrapper_args";
        register_temp($job->{tmp}{ltoargs} = $args) unless -e $args;
        push @extra, '-Wl,-plugin-opt=-save-temps';
    }
    # (started with TMPDIR set for LTO; as it was, unset or not, else)
    my $start = sub { $a{link}->('linking once, the table reserved', \@extra) };
    my $err = ($lto ? do { local $ENV{TMPDIR} = $dir; $start->() } : $start->())->();
    my %f = _helper($o, 'filling in the table', "--arch=$id->{arch}", "--fill-linked=$map", '--object', $out,
        $style eq 'sha1' ? ('--build-id=' . (linker_of($cmd, $is_ld) eq 'gold' ? 'gold' : 'bfd')) : ());
    remove_lto_temps($job) if $lto;
    return (undef, $f{refused}) if defined $f{refused};
    return (undef, 'the output has a table of its own') if !$n && $f{slots};
    return (undef, 'the output has no __mcount_loc of the bound\'s size') if $f{slots} != $n;
    my $bid = ($f{'build-id'} // 'left') eq 'left' ? $style : $f{'build-id'};
    return { status => $f{sites} ? 'recorded' : 'no-sites', sites => $f{sites}, passed_over => 0,
        dropped => $f{dropped}, links => 1, slots => $n, method => 'one link', build_id => $bid, stderr => $err,
        lto => $lto };
}

1;
