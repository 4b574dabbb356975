# SPDX-License-Identifier: GPL-2.0-or-later
package RecordMcount::LinkOnce;
# The link-time pass in one link (GNU ld, x86_64 and i386, no LTO):
#
#   objdump -r INPUTS            -> the calls to the hook each input section
#                                   holds; their number is the bound N
#   link  CMD placeholder(N) -Map  -> output (the command's own link: no -q)
#   the map: where each input section went; an input it names that was
#            not read (the driver's own files, -l found by ld) is read now
#   entries = output address of the section + the call's offset in it,
#            each checked against the output's bytes (a call, or the form
#            the linker relaxed it to); none outside every function
#            symbol (an overridden weak copy); sorted, the rest holes
#   the output edited in place: the slots, the addends of their dynamic
#   relocations, the build ID computed again as ld computes it
#
# A hole is a slot of 0: in a program or library the loader relocates,
# it reads as the load base at run time.  Holes come after the entries.
#
# one_link returns undef and a reason where it cannot make the table
# (RecordMcount::Link then links as before, three times): the caller
# says which ran.
use strict;
use warnings;

use Cwd qw(abs_path);
use RecordMcount::Exports;
use RecordMcount::Run qw(run_tool basename temp_path);
use RecordMcount::Message qw(throw);
use RecordMcount::Elf qw(elf_header);

our @EXPORT_OK = qw(one_link_refusal one_link build_id_of fill_build_id);

my %ARCH_OK = map { $_ => 1 } qw(x86_64 i386);

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
    return "the one-link method knows x86_64 and i386, not $id->{arch}" unless $ARCH_OK{ $id->{arch} // '' };
    my $ld = linker_of($cmd, $is_ld);
    return "the linker is $ld, not GNU ld or gold" unless $ld eq 'bfd' || $ld eq 'gold';
    for my $a (@$cmd[1 .. $#$cmd]) {
        return 'an LTO link (-flto)' if !$is_ld && $a =~ /^-flto(?:=|\z)/;
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

# The inputs a link names (objects and archives, -l found in the -L
# directories), as absolute paths.
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
    return grep { !$seen{$_}++ } map { abs_path($_) // $_ } grep { _is_input($_) } @files;
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

# objdump -r of FILES: { "FILE" or "ARCHIVE(MEMBER)" => { sec => { NAME =>
# [[offset, type], ...] }, dup => { NAME => 1 }, tabled => 1 } }, and the
# number of references to the hook.  Keys are absolute paths.
sub _read_relocs {
    my ($o, $hooks, $files, $into) = @_;
    return _parse_listing(_listing($o, $files), $hooks, $into);
}

# objdump -r (with -t: -t) of FILES, its text.
sub _listing {
    my ($o, $files, $what) = @_;
    return '' unless @$files;
    my ($st, $err, $out) = run_tool(cmd => [@{ $o->{objdump} // ['objdump'] }, $what // '-r', @$files],
        capture_stdout => 1);
    throw("objdump -r of the link's inputs: " . ($err =~ /^(.*)/ ? $1 : 'failed')) if $st != 0;
    return $out;
}

# The relocations against the hook in a listing, counted as _parse_listing
# counts them, but at once.
sub _count_hooks {
    my ($out, $hooks) = @_;
    my $hook_re = join '|', map { quotemeta } @$hooks;
    my $n = () = $out =~ /^[0-9a-f]{8,16} +\S+ +(?:$hook_re)(?:[-+]0x[0-9a-f]+)? *$/mg;
    return $n;
}

sub _parse_listing {
    my ($out, $hooks, $into) = @_;
    my $hook_re = join '|', map { quotemeta } @$hooks;
    my ($arch, $cur, $sec, $n) = (undef, undef, undef, 0);
    my %secs_seen;
    my $hook_any = qr/$hook_re/;
    for (split /\n/, $out) {
        # (most lines of a C++ library's listing are relocations against
        # other symbols and symbols that are no weak function)
        if (/^[0-9a-f]{8,16} /) {
            next unless $cur && (/$hook_any/ || / w    F /);
            if (defined $sec && /^([0-9a-f]+)\s+(\S+)\s+(?:$hook_re)(?:[-+]0x[0-9a-f]+)?\s*\z/) {
                push @{ $cur->{sec}{$sec} }, [hex $1, $2];
                $n++;
            } elsif (/^([0-9a-f]+) .w.{4}F (\S+)\s+([0-9a-f]+)\s+(?:\.\w+\s+)?(\S+)\z/) {
                # a weak function: its code is no function where another
                # definition overrides it
                push @{ $cur->{weak}{$2} }, [hex $1, hex $3, $4];
            }
            next;
        }
        if (/^In archive (.+):\z/) { $arch = abs_path($1) // $1; next }
        if (/^(\S.*?):\s+file format \S+\z/) {
            my $f = $1;
            my $key = defined $arch && $f !~ m{/} ? "$arch($f)" : (abs_path($f) // $f);
            undef $arch if !defined $arch || $f =~ m{/};
            $cur = $into->{$key} //= { sec => {}, dup => {} };
            %secs_seen = ();
            undef $sec;
            next;
        }
        if ($cur && /^RELOCATION RECORDS FOR \[(.*)\]:\z/) {
            $sec = $1;
            $cur->{dup}{$sec} = 1 if $secs_seen{$sec}++;
            $cur->{tabled} = 1 if $sec eq '__mcount_loc';
        }
    }
    return $n;
}

# GNU ld's map: [output section, input section, address, file], each
# input section laid out.
sub _read_map {
    my ($map) = @_;
    open(my $fh, '<', $map) or throw("$map: $!");
    my ($in_body, $out, $pend_out, $pend_in, @r) = (0);
    while (my $l = <$fh>) {
        chomp $l;
        # (bfd's heading; gold's)
        if (!$in_body) { $in_body = 1 if $l =~ /^(?:Linker script and memory map|Memory map)\s*\z/; next }
        if ($l =~ /^(\S+)\s*\z/) { $pend_out = $1; undef $pend_in; next }
        if ($l =~ /^(\S+)\s+0x[0-9a-f]+/) { $out = $1; undef $pend_out; undef $pend_in; next }
        if (defined $pend_out && $l =~ /^\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s*\z/) { $out = $pend_out; undef $pend_out; next }
        undef $pend_out;
        if ($l =~ /^ ([^\s*]\S*)\s*\z/) { $pend_in = $1; next }
        my ($name, $addr, $size, $file);
        if ($l =~ /^ ([^\s*]\S*)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*?)\s*\z/) {
            ($name, $addr, $size, $file) = ($1, $2, $3, $4);
        } elsif (defined $pend_in && $l =~ /^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*?)\s*\z/) {
            ($name, $addr, $size, $file) = ($pend_in, $1, $2, $3);
        }
        undef $pend_in;
        next unless defined $name && defined $out && $out ne '/DISCARD/';
        push @r, [$out, $name, hex $addr, hex $size, $file];
    }
    return \@r;
}

# A file as the map names it, as _read_relocs keys it.
my %map_key;
sub _map_key {
    my ($f) = @_;
    return @{ $map_key{$f} //= [_map_key_of($f)] };
}

sub _map_key_of {
    my ($f) = @_;
    return ((abs_path($1) // $1) . "($2)", abs_path($1) // $1) if $f =~ /^(.*)\(([^()]*)\)\z/s && -f $1;
    return (abs_path($f) // $f, abs_path($f) // $f);
}

# --- the output, as bytes ---------------------------------------------------

sub _elf {
    my ($file) = @_;
    throw("$file: not a regular file") unless -f $file;
    open(my $fh, '<:raw', $file) or throw("$file: $!");
    local $/;
    my $d = <$fh>;
    close $fh;
    throw("$file: no ELF file") unless length $d >= 64 && substr($d, 0, 4) eq "\x7fELF";
    my $is64 = substr($d, 4, 1) eq "\2";
    my $e = substr($d, 5, 1) eq "\2" ? '>' : '<';
    my $A = $is64 ? "Q$e" : "L$e";
    my %x = (d => $d, is64 => $is64, e => $e, A => $A, word => $is64 ? 8 : 4);
    ($x{type}) = unpack("x16 S$e", $d);
    @x{qw(phoff shoff)} = unpack('x' . ($is64 ? 32 : 28) . " $A $A", $d);
    @x{qw(phentsize phnum shentsize shnum shstrndx)} = unpack('x' . ($is64 ? 54 : 42) . " S$e S$e S$e S$e S$e", $d);
    my @sh;
    for my $i (0 .. $x{shnum} - 1) {
        my %s;
        @s{qw(name type flags addr off size link info align entsize)} =
            unpack("L$e L$e $A $A $A $A L$e L$e $A $A", substr($d, $x{shoff} + $i * $x{shentsize}, $x{shentsize}));
        $s{idx} = $i;
        push @sh, \%s;
    }
    my $str = $sh[ $x{shstrndx} ];
    for my $s (@sh) {
        my $z = index($d, "\0", $str->{off} + $s->{name});
        $s->{name} = substr($d, $str->{off} + $s->{name}, $z - $str->{off} - $s->{name});
    }
    $x{sh} = \@sh;
    return \%x;
}

sub _sec { my ($x, $name) = @_; my ($s) = grep { $_->{name} eq $name } @{ $x->{sh} }; return $s }

sub _bytes_at {
    my ($x, $addr, $len) = @_;
    my $last = $x->{last_sec};
    return substr($x->{d}, $last->{off} + $addr - $last->{addr}, $len)
        if $last && $addr >= $last->{addr} && $addr + $len <= $last->{addr} + $last->{size};
    for my $s (@{ $x->{sh} }) {
        next unless $s->{flags} & 2 && $s->{type} != 8 && $addr >= $s->{addr} && $addr + $len <= $s->{addr} + $s->{size};
        $x->{last_sec} = $s;
        return substr($x->{d}, $s->{off} + $addr - $s->{addr}, $len);
    }
    return undef;
}

# The function symbols of .symtab: ({ name => value } of the global and
# weak ones, [[start, end], ...] of all sorted, a function of no size
# holding its first byte); () without one.
sub _symbols {
    my ($x) = @_;
    my $st = _sec($x, '.symtab') or return undef;
    my $strs = $x->{sh}[ $st->{link} ] or return undef;
    my $e = $x->{e};
    my $ent = $x->{is64} ? 24 : 16;
    my (%f, @r);
    for (my $o = $st->{off} + $ent; $o + $ent <= $st->{off} + $st->{size}; $o += $ent) {
        my ($name, $value, $size, $info, $shndx);
        if ($x->{is64}) {
            ($name, $info, $shndx, $value, $size) = unpack("L$e C x S$e Q$e Q$e", substr($x->{d}, $o, 24));
        } else {
            ($name, $value, $size, $info, $shndx) = unpack("L$e L$e L$e C x S$e", substr($x->{d}, $o, 16));
        }
        next unless (($info & 15) == 2 || ($info & 15) == 10) && $shndx;
        push @r, [$value, $value + ($size || 1)];
        next unless $info >> 4;
        my $p = $strs->{off} + $name;
        $f{ substr($x->{d}, $p, index($x->{d}, "\0", $p) - $p) } = $value;
    }
    return (\%f, [sort { $a->[0] <=> $b->[0] } @r]);
}

# Is ADDR in one of the sorted ranges?
sub _covered {
    my ($r, $addr) = @_;
    my ($lo, $hi) = (0, $#$r);
    while ($lo <= $hi) {
        my $m = ($lo + $hi) >> 1;
        if ($r->[$m][0] > $addr) { $hi = $m - 1 } else { $lo = $m + 1 }
    }
    # (the ranges before it that start at or below ADDR: one may reach it)
    for (my $i = $hi; $i >= 0 && $i >= $hi - 64; $i--) { return 1 if $addr < $r->[$i][1] }
    return 0;
}

# The call forms of the helper's facts: { TYPE => [len, at, op, mask, op_at] },
# and the linker's relaxed forms [len, at, call_at, op, mask, op_at].
sub _forms {
    my ($id) = @_;
    my (%call, @linker);
    my $parse = sub {
        my ($t, $len, $at, @rest) = split m{/}, $_[0];
        my %k = map { /^(\w+)=(.*)\z/ ? ($1 => $2) : () } @rest;
        return ($t, $len, $at, $k{call_at} // 0, pack('H*', $k{op} // ''), pack('H*', $k{mask} // ''), $k{at} // 0);
    };
    for (split ' ', $id->{'call-forms'} // '') { my ($t, @f) = $parse->($_); $call{$t} = \@f }
    for (split ' ', $id->{'linker-forms'} // '') { my (undef, @f) = $parse->($_); push @linker, \@f }
    return (\%call, \@linker);
}

sub _matches {
    my ($x, $start, $f) = @_;
    my ($len, undef, undef, $op, $mask, $op_at) = @$f;
    my $b = _bytes_at($x, $start, $len) // return 0;
    return (substr($b, $op_at, length $op) & $mask) eq $op;
}

# --- the build ID -----------------------------------------------------------

# Where the output's GNU build ID is: (offset of the note section, its
# size, offset of the ID, its length), or ().
sub build_id_of {
    my ($x) = @_;
    my $s = _sec($x, '.note.gnu.build-id') or return ();
    my ($namesz, $descsz, $type) = unpack("L$x->{e} L$x->{e} L$x->{e}", substr($x->{d}, $s->{off}, 12));
    return () unless $type == 3 && $namesz == 4;
    return ($s->{off}, $s->{size}, $s->{off} + 16, $descsz);
}

# The ID as GNU ld computes it (ld/ldbuildid.c, bfd's checksum of the
# contents): the ELF header with e_phoff and e_shoff 0, the program
# headers, then each section header with sh_offset 0 followed by the
# section's contents, but for sections with none (NOBITS) and those ld
# writes after the ID (.symtab, .strtab, .shstrtab); the note itself is
# all zeros at that time.  STYLE: sha1, md5 (others: undef).
sub fill_build_id {
    my ($x, $style, $linker) = @_;
    my ($noff, $nsize, $idoff, $idlen) = build_id_of($x) or return 'none';
    my $h;
    if ($style eq 'sha1' && $idlen == 20) { require Digest::SHA; $h = Digest::SHA->new(1) }
    elsif ($style eq 'md5' && $idlen == 16) { require Digest::MD5; $h = Digest::MD5->new }
    else { return undef }
    my $d = $x->{d};
    if (($linker // 'bfd') eq 'gold') {
        # gold: the whole file, the ID's bytes 0 (its tree style, for
        # large files, is another style)
        substr($d, $idoff, $idlen) = "\0" x $idlen;
        $h->add($d);
        substr($x->{d}, $idoff, $idlen) = $h->digest;
        return "$style (gold's)";
    }
    my $zeroed = substr($d, 0, $noff) . ("\0" x $nsize) . substr($d, $noff + $nsize);
    my ($A, $e) = @$x{qw(A e)};
    my $eh = substr($zeroed, 0, $x->{is64} ? 64 : 52);
    substr($eh, $x->{is64} ? 32 : 28, 2 * $x->{word}) = "\0" x (2 * $x->{word});
    $h->add($eh);
    $h->add(substr($zeroed, $x->{phoff}, $x->{phentsize} * $x->{phnum}));
    my %late = ($x->{shstrndx} => 1);
    for my $s (@{ $x->{sh} }) { if ($s->{type} == 2) { $late{ $s->{idx} } = 1; $late{ $s->{link} } = 1 } }
    for my $s (@{ $x->{sh} }) {
        my $hdr = substr($zeroed, $x->{shoff} + $s->{idx} * $x->{shentsize}, $x->{shentsize});
        substr($hdr, $x->{is64} ? 24 : 16, $x->{word}) = "\0" x $x->{word};
        $h->add($hdr);
        next if $s->{type} == 8 || $late{ $s->{idx} };
        $h->add(substr($zeroed, $s->{off}, $s->{size}));
    }
    substr($x->{d}, $idoff, $idlen) = $h->digest;
    return $style;
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

# --- the method -------------------------------------------------------------

# one_link(JOB, CMD, ID, hooks => [...]) with JOB as RecordMcount::Link's:
# link => sub (what, command) running one link that writes the output,
# placeholder => sub (N) writing the placeholder's object (its path).
# Returns the result hash, or (undef, reason) before the link writes
# anything it cannot stand behind.
sub one_link {
    my ($job, $cmd, $id, %a) = @_;
    my ($o, $out) = ($job->{o}, $job->{out});
    my @hooks = split ' ', $id->{hooks} // '';
    return (undef, 'the target names no hook') unless @hooks;
    my $is_ld = $a{is_ld};
    my %rel;
    my @inputs = _inputs($cmd, $is_ld);
    my $listing = _listing($o, \@inputs);
    my $n = _count_hooks($listing, \@hooks);
    return (undef, 'an input brings its own table (per-object mode)')
        if $listing =~ /^RELOCATION RECORDS FOR \[__mcount_loc\]:$/m;
    my $map = $job->{tmp}{map} //= temp_path($out, 'map');
    my @extra = ($n ? ($a{placeholder}->($n)) : (), $is_ld ? "-Map=$map" : "-Wl,-Map=$map");
    # the link runs while the listing is read (a failed reading waits
    # for it all the same: the output is then written again)
    my $fin = $a{link}->('linking once, the table reserved', \@extra);
    my $counted = eval { _parse_listing($listing, \@hooks, \%rel) };
    my $why = $@;
    my $err = $fin->();
    die $why unless defined $counted;
    return (undef, "the inputs' listing counts $counted calls to the hook, not $n") if $counted != $n;
    my $x = _elf($out);

    # each input section laid out in code: its calls to the hook
    my $laid = _read_map($map);
    my %code = map { $_->{name} => 1 } grep { $_->{flags} & 4 } @{ $x->{sh} };
    my @in_code = grep { $code{ $_->[0] } } @$laid;
    my @unread;
    my %seen;
    for my $s (@in_code) {
        my ($key, $file) = _map_key($s->[4]);
        push @unread, $file if !$rel{$key} && !$seen{$file}++ && -f $file;
    }
    $n += _read_relocs($o, \@hooks, [grep { _is_input($_) } @unread], \%rel) if @unread;
    my ($call, $linker) = _forms($id);
    my (@sites, @at);
    for my $s (@in_code) {
        my ($out_sec, $name, $addr, $size, $file) = @$s;
        my ($key) = _map_key($file);
        my $r = $rel{$key};
        # (every file objdump read has its entry: one without is an input
        # of the map's naming that was not read, whose calls are unknown)
        if (!$r) {
            next if !$size;
            return (undef, "the map names an input whose calls are not known: $file");
        }
        my $list = $r->{sec}{$name} or next;
        return (undef, "$file has two sections $name") if $r->{dup}{$name};
        for my $c (@$list) {
            my ($off, $type) = @$c;
            my $f = $call->{$type}
                or return (undef, sprintf('%s: %s at %s+0x%x is no call to the hook', $file, $type, $name, $off));
            my $start = $addr + $off - $f->[1];
            if (!_matches($x, $start, $f)) {
                my ($l) = grep { $_->[0] == $f->[0] && $_->[1] == $f->[1] && _matches($x, $start, $_) } @$linker;
                return (undef, sprintf('the call at 0x%x (%s+0x%x of %s) is not where the link was expected to put it',
                    $start, $name, $off, $file)) unless $l;
                $start += $l->[2];
            }
            push @sites, $start;
            push @at, [$start, $key, $file, $name, $off, $addr];
        }
    }
    my %u;
    @sites = sort { $a <=> $b } grep { !$u{$_}++ } @sites;
    return (undef, sprintf('the link has %d calls to the hook, more than the %d its inputs gave', scalar @sites, $n))
        if @sites > $n;
    # none in the copy of a weak function that another definition
    # overrode: no function of the program.  A call in no function of the
    # output's symbol table is looked at: its input's weak function
    # symbols (objdump -t of those inputs only), and the output's symbol
    # of that name elsewhere.  (Without a symbol table, the output's
    # symbols are not known: kept.)
    my ($globals, $ranges) = _symbols($x);
    my @odd = $ranges ? grep { !_covered($ranges, $_->[0]) } @at : ();
    my %gone;
    if (@odd) {
        my %files = map { (($_->[2] =~ /^(.*)\(([^()]*)\)\z/s && -f $1) ? $1 : $_->[2]) => 1 } @odd;
        my %syms;
        _parse_listing(_listing($o, [map { abs_path($_) // $_ } sort keys %files], '-t'), \@hooks, \%syms);
        for my $c (@odd) {
            my ($start, $key, undef, $name, $off, $addr) = @$c;
            for my $w (@{ $syms{$key}{weak}{$name} // [] }) {
                next unless $off >= $w->[0] && $off < $w->[0] + $w->[1];
                $gone{$start} = 1 if defined $globals->{ $w->[2] } && $globals->{ $w->[2] } != $addr + $w->[0];
            }
        }
    }
    my $all = @sites;
    @sites = grep { !$gone{$_} } @sites;
    my $dropped = $all - @sites;

    my $tab = _sec($x, '__mcount_loc');
    if ($n) {
        return (undef, 'the output has no __mcount_loc of the bound\'s size')
            unless $tab && $tab->{size} == $n * $x->{word};
        _fill($x, $tab, \@sites) or return (undef, 'the table\'s dynamic relocations are not relative');
    } elsif ($tab) {
        return (undef, 'the output has a table of its own');
    }
    my $style = _build_id_style($cmd, $is_ld);
    my $bid = $style =~ /^(?:none|0x)/ ? $style : fill_build_id($x, $style, linker_of($cmd, $is_ld));
    return (undef, "a build ID of style $style") unless defined $bid;
    if ($n) {
        open(my $w, '+<:raw', $out) or throw("$job->{label}: $out: $!");
        print {$w} $x->{d} or throw("$job->{label}: $out: $!");
        close($w) or throw("$job->{label}: $out: $!");
    }
    return { status => @sites ? 'recorded' : 'no-sites', sites => scalar @sites, passed_over => 0,
        dropped => $dropped, links => 1, slots => $n, method => 'one link', build_id => $bid, stderr => $err };
}

# Write the entries (sorted; the rest of the slots 0) into the table,
# and into the addends of its dynamic relocations (RELA), which must be
# relative ones (no symbol); REL and RELR take the word in place.
sub _fill {
    my ($x, $tab, $sites) = @_;
    my ($word, $A, $e) = @$x{qw(word A e)};
    my $n = $tab->{size} / $word;
    my @v = (@$sites, (0) x ($n - @$sites));
    substr($x->{d}, $tab->{off}, $tab->{size}) = pack("$A*", @v);
    my $lo = $tab->{addr};
    my $hi = $lo + $tab->{size};
    my $covered = 0;
    for my $rs (grep { ($_->{type} == 4 || $_->{type} == 9) && $_->{flags} & 2 } @{ $x->{sh} }) {
        my $rela = $rs->{type} == 4;
        my $ent = $rela ? 3 * $word : 2 * $word;
        for (my $p = $rs->{off}; $p + $ent <= $rs->{off} + $rs->{size}; $p += $ent) {
            my ($off, $info) = unpack("$A $A", substr($x->{d}, $p, 2 * $word));
            next unless $off >= $lo && $off < $hi;
            my $sym = $x->{is64} ? $info >> 32 : $info >> 8;
            return 0 if $sym || ($off - $lo) % $word;
            substr($x->{d}, $p + 2 * $word, $word) = pack($A, $v[($off - $lo) / $word]) if $rela;
            $covered++;
        }
    }
    return 0 if $covered && $covered != $n;
    return 1;
}

1;
