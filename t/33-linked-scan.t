#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# tier: host
# mcount-scan --linked: the table of an image linked with -q, built from
# its kept relocations and the bytes at them; and --placeholder, the table
# of the same layout a first link reserves.  The answers come from GCC's
# own -mrecord-mcount table of the same objects, mapped through the same
# link, and from the linked code's disassembly (the calls whose target is
# the hook's address or its GOT slot).  x86_64 and i386 here; aarch64
# and riscv64, with their cross compilers: t/52-cross-linked-scan.t.
use strict;
use warnings;
use Test::More;
use lib 't/lib';
use TestUtil qw($TOP run_cmd must spit slurp have);
use LinkedScan qw($HELPER $DIR placeholder obj scan base_of disasm_calls hook_addr sorted linked_case);

my ($helper, $dir) = ($HELPER, $DIR);    # (prog.c is there)
# the hook, defined in the program: a PIE's GOT calls become direct calls
spit("$dir/hook.S", <<'EOF');
	.text
	.globl __fentry__, mcount
	.type __fentry__, @function
	.type mcount, @function
__fentry__:
mcount:
	ret
	.size __fentry__, .-__fentry__
	.size mcount, .-mcount
	.section .note.GNU-stack,"",@progbits
EOF
# references to the hook that are no call: its address taken in code
# (lea: R_X86_64_PC32, a call's own type) and in data
spit("$dir/ref64.S", <<'EOF');
	.text
	.globl take
	.type take, @function
take:
	lea __fentry__(%rip), %rax
	ret
	.size take, .-take
	.data
	.quad mcount
	.section .note.GNU-stack,"",@progbits
EOF
spit("$dir/ref64abs.S", <<'EOF');
	.text
	.globl take
	.type take, @function
take:
	mov $__fentry__, %rax
	movabs $mcount, %rax
	ret
	.size take, .-take
	.section .note.GNU-stack,"",@progbits
EOF
# plain calls at a function's first byte, after a byte that a linker-made
# form begins with (a nop, an addr32 prefix): the entry is the function's
# start, not the byte before it
spit("$dir/edge64.S", <<'EOF');
	.text
	.globl edge1, edge2, edge3
	.type edge1, @function
	.type edge2, @function
	.type edge3, @function
edge1:
	call __fentry__
	ret
	nop
	.size edge1, .-edge1
edge2:
	call __fentry__
	ret
	.byte 0x67
	.size edge2, .-edge2
edge3:
	call __fentry__
	ret
	.size edge3, .-edge3
	.section .note.GNU-stack,"",@progbits
EOF

# the words of the image's __mcount_loc, less the placeholder's (the
# value of __ehdr_start): GCC's -mrecord-mcount entries
sub gcc_table {
    my ($image, $objdump, $size) = @_;
    my $base = base_of($image, $objdump);
    my $hex = '';
    for (split /\n/, must($objdump, '-s', '-j', '__mcount_loc', $image)) {
        $hex .= join '', split ' ', $1 if /^ [0-9a-f]+ ((?:[0-9a-f]{2,8} ){1,4})/;
    }
    my @w;
    for (my $i = 0; $i + 2 * $size <= length $hex; $i += 2 * $size) {
        my $le = join '', reverse unpack '(A2)*', substr($hex, $i, 2 * $size);
        push @w, hex $le;
    }
    return [sort { $a <=> $b } grep { $_ != $base } @w];
}

# the bytes at a list of addresses (the first N of each), as hex strings
sub bytes_at {
    my ($image, $objdump, $addrs, $n) = @_;
    my %want = map { $_ => 1 } @$addrs;
    my %got;
    my ($cur, @q);
    for (split /\n/, must($objdump, '-d', $image)) {
        next unless /^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)/;
        my $at = hex $1;
        my @b = split ' ', $2;
        for my $i (0 .. $#b) {
            for my $a (keys %want) {
                $got{$a} .= $b[$i] if $at + $i >= $a && $at + $i < $a + $n;
            }
        }
    }
    return [map { $got{$_} // '' } @$addrs];
}

my @cc64 = ('gcc');
my $ph64 = placeholder('x86_64', 64, \@cc64);
my $ph0 = placeholder('x86_64', 0, \@cc64);
my %o;
$o{fentry} = obj(\@cc64, 'fentry', "$dir/prog.c", qw(-O2 -pg -mfentry -mrecord-mcount));
$o{mcount} = obj(\@cc64, 'mcount', "$dir/prog.c", qw(-O2 -pg -mrecord-mcount));
$o{nopie} = obj(\@cc64, 'nopie', "$dir/prog.c", qw(-O2 -pg -mfentry -mrecord-mcount -fno-pie));
$o{pic} = obj(\@cc64, 'pic', "$dir/prog.c", qw(-O2 -pg -mfentry -mrecord-mcount -fPIC));
$o{hook} = obj(\@cc64, 'hook', "$dir/hook.S");
$o{ref} = obj(\@cc64, 'ref', "$dir/ref64.S");
$o{refabs} = obj(\@cc64, 'refabs', "$dir/ref64abs.S");
$o{edge} = obj(\@cc64, 'edge', "$dir/edge64.S");
# GCC's table, and the three functions of edge64.S
my $edge_oracle = sub {
    my $syms = must('objdump', '-t', $_[0]);
    my @edges = map { $syms =~ /^([0-9a-f]+) .*\s$_$/m ? hex $1 : () } qw(edge1 edge2 edge3);
    is(scalar(@edges), 3, 'the edge functions are in the image');
    return sorted([@{ gcc_table($_[0], $_[1], 8) }, @edges]);
};
my $gcc_oracle = sub { gcc_table($_[0], $_[1], 8) };

# x86_64: GOT calls to libc's hook (ff 15), kept as they are
linked_case(name => 'pie-libc', cc => \@cc64, link => [], objs => [$o{fentry}, $ph64],
    oracle => $gcc_oracle, ambiguous => 0,
    also => sub {
        is_deeply(disasm_calls($_[0], $_[1]), $gcc_oracle->(@_), 'pie-libc: objdump -d agrees');
        my $want = $gcc_oracle->(@_);
        is_deeply([grep { !/^ff15/ } @{ bytes_at(@_, $want, 2) }], [], 'pie-libc: the calls are ff 15');
    });
# the hook in the PIE: ff 15 relaxed to 67 e8 (ld.bfd: R_X86_64_PC32 kept)
linked_case(name => 'pie-local', cc => \@cc64, link => [], objs => [$o{fentry}, $o{hook}, $ph64],
    oracle => $gcc_oracle, ambiguous => 'all',
    also => sub {
        is_deeply(disasm_calls($_[0], $_[1]), $gcc_oracle->(@_), 'pie-local: objdump -d agrees');
        my $want = $gcc_oracle->(@_);
        is_deeply([grep { !/^67e8/ } @{ bytes_at(@_, $want, 2) }], [], 'pie-local: the calls are 67 e8');
    });
# -z call-nop=prefix-0x90: 90 e8, the entry at the nop
linked_case(name => 'pie-prefix-nop', cc => \@cc64, link => ['-Wl,-z,call-nop=prefix-0x90'],
    objs => [$o{fentry}, $o{hook}, $ph64], oracle => $gcc_oracle, ambiguous => 'all',
    also => sub {
        my $want = $gcc_oracle->(@_);
        is_deeply([grep { !/^90e8/ } @{ bytes_at(@_, $want, 2) }], [], 'pie-prefix-nop: the calls are 90 e8');
    });
# -z call-nop=suffix-nop: e8 rel32 90, the relocation one byte earlier
linked_case(name => 'pie-suffix-nop', cc => \@cc64, link => ['-Wl,-z,call-nop=suffix-nop'],
    objs => [$o{fentry}, $o{hook}, $ph64], oracle => $gcc_oracle,
    also => sub {
        my $want = $gcc_oracle->(@_);
        is_deeply([grep { !/^e8\w{8}90$/ } @{ bytes_at(@_, $want, 6) }], [], 'pie-suffix-nop: the calls are e8 .. 90');
    });
# mcount after the prologue, PIE; the hook's address taken in code and data
linked_case(name => 'pie-mcount-ref', cc => \@cc64, link => [],
    objs => [$o{mcount}, $o{hook}, $o{ref}, $ph64], oracle => $gcc_oracle, passed => 1);
# -no-pie: plain e8 (PLT32), and absolute references in code
linked_case(name => 'nopie', cc => \@cc64, link => ['-no-pie'],
    objs => [$o{nopie}, $o{hook}, $o{refabs}, $ph64], oracle => $gcc_oracle, passed => 2, ambiguous => 0,
    also => sub { is_deeply(disasm_calls($_[0], $_[1]), $gcc_oracle->(@_), 'nopie: objdump -d agrees') });
linked_case(name => 'nopie-edges', cc => \@cc64, link => ['-no-pie'],
    objs => [$o{nopie}, $o{hook}, $o{edge}, $ph64], oracle => $edge_oracle, ambiguous => 0,
    also => sub {
        my ($e1, $e2) = map { hook_addr($_[0], $_[1], $_) } qw(edge2 edge3);
        is_deeply(bytes_at(@_, [$e1 - 1, $e2 - 1], 2), ['90e8', '67e8'],
            'nopie-edges: the calls at edge2 and edge3 follow a 90 and a 67');
    });
linked_case(name => 'nopie-libc', cc => \@cc64, link => ['-no-pie'],
    objs => [$o{nopie}, $ph64], oracle => $gcc_oracle);
# a shared library
linked_case(name => 'shared', cc => \@cc64, link => ['-shared'],
    objs => [$o{pic}, $o{hook}, $ph64], oracle => $gcc_oracle);
# gold: the relaxed call keeps R_X86_64_GOTPCRELX
if (have('ld.gold')) {
    my $dis = sub { disasm_calls($_[0], $_[1]) };
    linked_case(name => 'gold-pie-local', cc => \@cc64, link => ['-fuse-ld=gold'],
        objs => [$o{fentry}, $o{hook}, $ph64], oracle => $dis,
        also => sub {
            like(must('objdump', '-r', $_[0]), qr/R_X86_64_GOTPCRELX\s+__fentry__/,
                'gold-pie-local: the relaxed call keeps GOTPCRELX');
            is_deeply([grep { !/^67e8/ } @{ bytes_at(@_, $dis->(@_), 2) }], [], 'gold-pie-local: 67 e8');
        });
    linked_case(name => 'gold-pie-libc', cc => \@cc64, link => ['-fuse-ld=gold'],
        objs => [$o{fentry}, $ph64], oracle => $dis);
}

# i386: ff 93 GOT calls (PIE), relaxed to 67 e8 with the hook inside; e8 without PIC
{
    my @cc32 = ('gcc', '-m32');
    my $ph32 = placeholder('i386', 32, \@cc32);
    my $f32 = obj(\@cc32, 'pie32', "$dir/prog.c", qw(-O2 -pg -mrecord-mcount));
    my $np32 = obj(\@cc32, 'nopie32', "$dir/prog.c", qw(-O2 -pg -mrecord-mcount -fno-pie));
    my $h32 = obj(\@cc32, 'hook32', "$dir/hook.S");
    my $or = sub { gcc_table($_[0], $_[1], 4) };
    linked_case(name => 'i386-pie-libc', cc => \@cc32, link => [], objs => [$f32, $ph32], oracle => $or,
        also => sub { is_deeply([grep { !/^ff93/ } @{ bytes_at(@_, $or->(@_), 2) }], [], 'i386-pie-libc: ff 93') });
    linked_case(name => 'i386-pie-local', cc => \@cc32, link => [], objs => [$f32, $h32, $ph32], oracle => $or,
        also => sub { is_deeply([grep { !/^67e8/ } @{ bytes_at(@_, $or->(@_), 2) }], [], 'i386-pie-local: 67 e8') });
    linked_case(name => 'i386-nopie', cc => \@cc32, link => ['-no-pie'], objs => [$np32, $h32, $ph32],
        oracle => $or);
}

# aarch64 and riscv64: t/52-cross-linked-scan.t

# the placeholder: same section, same size, same dynamic relocations as
# the real table it stands for, and the second link moves nothing
{
    my $first = "$dir/pie-local";
    my (undef, $plan, $entries) = scan($first, 'objdump', '-r');
    my $n = scalar @$entries;
    my $ph = placeholder('x86_64', $n, \@cc64);
    my $real = "$dir/real.s";
    must($helper, '--linked', '--object', $first, '-o', $real, "$first.-r.txt");
    must('gcc', '-c', $real, '-o', "$real.o");
    my $nog = obj(\@cc64, 'fentry-plain', "$dir/prog.c", qw(-O2 -pg -mfentry));
    for my $link ([], ['-no-pie'], ['-shared']) {
        my @objs = @$link && $link->[0] eq '-no-pie'
            ? (obj(\@cc64, 'np-plain', "$dir/prog.c", qw(-O2 -pg -mfentry -fno-pie)))
            : @$link ? (obj(\@cc64, 'pic-plain', "$dir/prog.c", qw(-O2 -pg -mfentry -fPIC))) : ($nog);
        my $tag = "@$link" || 'pie';
        must('gcc', @$link, '-Wl,-q', '-o', "$dir/ph1", @objs, $o{hook}, $ph);
        my (undef, undef, $e) = scan("$dir/ph1", 'objdump', '-r');
        must('gcc', '-c', "$dir/ph1.s", '-o', "$dir/ph1.s.o");
        must('gcc', @$link, '-Wl,-q', '-o', "$dir/ph2", @objs, $o{hook}, "$dir/ph1.s.o");
        my $sec = sub {
            my ($f) = @_;
            my %s = must('readelf', '-SW', $f) =~ /^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+)/mg;
            return \%s;
        };
        my $nrel = sub { scalar(() = must('readelf', '-rW', $_[0]) =~ /R_X86_64_RELATIVE/g) };
        is_deeply($sec->("$dir/ph2"), $sec->("$dir/ph1"), "placeholder $tag: every section where it was");
        is($nrel->("$dir/ph2"), $nrel->("$dir/ph1"), "placeholder $tag: as many RELATIVE relocations");
        my $code = sub { (my $d = must('objdump', '-d', $_[0])) =~ s/^.*file format.*$//m; $d };
        is($code->("$dir/ph2"), $code->("$dir/ph1"), "placeholder $tag: the code is the same");
        my (undef, undef, $e2) = scan("$dir/ph2", 'objdump', '-r');
        is_deeply($e2, $e, "placeholder $tag: the final table's sites are the first link's");
        is_deeply(gcc_table("$dir/ph2", 'objdump', 8), sorted($e), "placeholder $tag: the final table holds them");
    }
    my $txt = slurp("$dir/ph-x86_64-$n.s");
    # (the assembler as oracle: a word each, against __ehdr_start + 0)
    my @at = must('readelf', '-rW', $ph) =~ /^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_64\s+0+ __ehdr_start \+ 0$/mg;
    is_deeply([map { hex } @at], [map { 8 * $_ } 0 .. $n - 1], 'placeholder: N entries of __ehdr_start');
    like($txt, qr/^\t\.section __mcount_loc,"awR",\@progbits\n\t\.balign 8\n/m, 'placeholder: the section, writable, aligned');
    like($txt, qr/^\t\.section \.note\.GNU-stack,"",\@progbits\n\z/m, 'placeholder: the stack note');
    my $r = slurp($real);
    like($r, qr/^\t\.section __mcount_loc,"awR",\@progbits\n\t\.balign 8\n(?:\t\.quad __ehdr_start \+ 0x[0-9a-f]+\n){$n}\t\.section \.note\.GNU-stack,"",\@progbits\n\z/m,
        'the real table: the same section, N entries');
    my $p0 = slurp("$dir/ph-x86_64-0.s");
    like($p0, qr/^\t\.section __mcount_loc,"awR",\@progbits\n\t\.balign 8\n\t\.section \.note\.GNU-stack/m,
        'placeholder 0: an empty section');
    like(must('readelf', '-SW', $ph0), qr/__mcount_loc\s+PROGBITS/, 'placeholder 0: the section is there');
    my $i386 = slurp("$dir/ph-i386-32.s");
    like($i386, qr/^\t\.balign 4\n/m, 'placeholder i386: aligned to 4');
    @at = must('readelf', '-rW', "$dir/ph-i386-32.s.o") =~ /^([0-9a-f]+)\s+[0-9a-f]+\s+R_386_32\s+0+\s+__ehdr_start$/mg;
    is_deeply([map { hex } @at], [map { 4 * $_ } 0 .. 31], 'placeholder i386: 32 words of __ehdr_start');
    must($helper, '--placeholder=2', '--object', $first, '-o', "$dir/byobj.s");
    must($helper, '--placeholder=2', '--arch=x86', '-o', "$dir/byarch.s");
    is(slurp("$dir/byobj.s"), slurp("$dir/byarch.s"), '--placeholder: --object and --arch agree');
}

# refusals
{
    my ($st, $out, $err) = run_cmd([$helper, '--linked', '--object', $o{fentry}, '/dev/null']);
    is($st >> 8, 1, 'a relocatable object: exit 1');
    like($err, qr/a relocatable object \(ELF type REL\): --linked reads an executable or shared object linked with -q/,
        'a relocatable object: says so');
    # linked without the placeholder: no __ehdr_start
    must('gcc', '-Wl,-q', '-o', "$dir/noph", $o{fentry}, $o{hook});
    ($st, $out, $err) = run_cmd([$helper, '--linked', '--object', "$dir/noph"],
        stdin => must('objdump', '-h', '-t', '-r', "$dir/noph"));
    is($st >> 8, 1, 'no __ehdr_start: exit 1');
    like($err, qr/no __ehdr_start in the symbol table: the image must be linked with the placeholder table/,
        'no __ehdr_start: says so');
    ($st, $out, $err) = run_cmd([$helper, '--linked', '--object', "$dir/pie-local"],
        stdin => must('objdump', '-t', '-r', "$dir/pie-local"));
    is($st >> 8, 1, 'no -h: exit 1');
    like($err, qr/the objdump listing has no section headers \(run objdump with -h\)/, 'no -h: says so');
    for my $bad (['--linked', '/dev/null'], ['--placeholder=3'], ['--placeholder=x', '--arch=x86_64'],
                 ['--placeholder=-1', '--arch=x86_64'], ['--placeholder=3', '--arch=x86_64', '--plan'],
                 ['--placeholder=3', '--arch=x86_64', 'listing']) {
        ($st, $out, $err) = run_cmd([$helper, @$bad]);
        is($st >> 8, 2, "@$bad: usage error");
        like($err, qr/^mcount-scan: --(?:linked|placeholder)/, "@$bad: names the option");
    }
    ($st, $out) = run_cmd([$helper, '--help']);
    like($out, qr/--linked\b.*--placeholder=N/s, '--help: --linked and --placeholder');
}

# --tabled: the calls an object's own table already holds get no entry
# (of the entries the case above checked against its oracles, every
# other one is given as tabled: the rest remain, the plan counts them)
{
    my ($st, $plan, $all) = scan("$dir/pie-local", 'objdump', '-r');
    cmp_ok(scalar @$all, '>=', 2, '--tabled: the image has calls to leave out');
    my @given = @$all[grep { $_ % 2 == 0 } 0 .. $#$all];
    my @rest = @$all[grep { $_ % 2 == 1 } 0 .. $#$all];
    spit("$dir/tabled.txt", join('', map { sprintf "%x\n", $_ } reverse @given) . "0x10\n");
    my ($st2, $out2, $err2) = run_cmd([$helper, '--linked', '--object', "$dir/pie-local", '--plan',
        '-o', "$dir/tabled.s", "--tabled=$dir/tabled.txt", "$dir/pie-local.-r.txt"]);
    is($st2, 0, '--tabled: exit 0') or diag $err2;
    my %p2 = map { split /\t/, $_, 2 } split /\n/, $out2;
    is($p2{tabled}, scalar @given, '--tabled: the plan counts the calls left out');
    is($p2{sites}, scalar @rest, '--tabled: the others are the sites');
    my $base = base_of("$dir/pie-local", 'objdump');
    my @got = map { /^\t\.(?:quad|long) __ehdr_start \+ 0x([0-9a-f]+)$/ ? $base + hex $1 : () }
        split /\n/, slurp("$dir/tabled.s");
    is_deeply(\@got, \@rest, '--tabled: the table holds the others, in order');
    is($plan->{tabled}, 0, 'without --tabled: none left out');
    spit("$dir/tabled-bad.txt", "0x10\nnot hex\n");
    ($st2, undef, $err2) = run_cmd([$helper, '--linked', '--object', "$dir/pie-local", '--plan',
        '-o', "$dir/tabled.s", "--tabled=$dir/tabled-bad.txt", "$dir/pie-local.-r.txt"]);
    is($st2 >> 8, 1, '--tabled, a bad line: exit 1');
    like($err2, qr/tabled-bad\.txt:2: not a hex address/, '--tabled, a bad line: names the line');
    ($st2, undef, $err2) = run_cmd([$helper, "--tabled=$dir/tabled.txt", '--arch=x86_64']);
    is($st2 >> 8, 2, '--tabled without --linked: usage error');
    like($err2, qr/^mcount-scan: --tabled needs --linked/, '--tabled without --linked: says so');
}

# the sanitized build says the same over a linked listing
if (-x "$TOP/build/asan/mcount-scan") {
    for my $case (['pie-prefix-nop', '-dr'], ['pie-mcount-ref', '-r'], ['nopie', '-dr']) {
        my ($name, $mode) = @$case;
        next unless -e "$dir/$name.$mode.txt";
        my @args = ('--linked', '--plan', '-o', '-', '--object', "$dir/$name", "$dir/$name.$mode.txt",
            -e "$dir/tabled.txt" ? "--tabled=$dir/tabled.txt" : ());
        my ($st1, $out1, $err1) = run_cmd([$helper, @args]);
        my ($st2, $out2, $err2) = run_cmd(["$TOP/build/asan/mcount-scan", @args],
            env => { ASAN_OPTIONS => 'detect_leaks=1:exitcode=99', UBSAN_OPTIONS => 'halt_on_error=1:exitcode=98' });
        is($st2, $st1, "asan $name $mode: same status");
        is($out2, $out1, "asan $name $mode: same output");
        is($err2, $err1, "asan $name $mode: same messages");
    }
}

done_testing();
