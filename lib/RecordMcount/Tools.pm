package RecordMcount::Tools;
# Which binutils record an object.  One place for the lookup order, used
# by mcount-record and mcount-cc (recordmcount.pl is always told its tools):
#   1. explicit options, then the environment (OBJDUMP, OBJCOPY, LD, AS);
#   2. a cross prefix: --cross PREFIX, else CROSS_COMPILE;
#   3. the GNU triple of the object's machine, when <triple>-objdump is on PATH;
#   4. the host tools.
use strict;
use warnings;

use Exporter 'import';
use Text::ParseWords qw(shellwords);
use RecordMcount::Run qw(find_program run_tool);

our @EXPORT_OK = qw(find_tools identify_object);

my @TOOLS = qw(objdump objcopy ld as);
my %ENVVAR = (objdump => 'OBJDUMP', objcopy => 'OBJCOPY', ld => 'LD', as => 'AS');

# The architecture facts mcount-scan reads from an object's ELF header:
# { arch, bits, endian, triple, ... }, or undef with $@ set.
sub identify_object {
    my ($helper, $file) = @_;
    my ($st, $err, $out) = run_tool(cmd => [$helper, '--identify', '--object', $file],
        capture_stdout => 1);
    if ($st != 0) {
        $err =~ s/^[^:]+: (?:\Q$file\E: )?//;
        $err =~ s/\s+\z//;
        $@ = $err || 'cannot identify the object';
        return undef;
    }
    my %id = map { split /\t/, $_, 2 } grep { /\t/ } split /\n/, $out;
    return \%id;
}

# find_tools(explicit => {tool => [cmd...]}, cross => PREFIX, triple => TRIPLE)
# -> { objdump => [...], objcopy => [...], ld => [...], as => [...] }
sub find_tools {
    my (%a) = @_;
    my %found;
    my $cross = $a{cross} // $ENV{CROSS_COMPILE};
    $cross = undef if defined $cross && !length $cross;
    for my $tool (@TOOLS) {
        if (my $cmd = $a{explicit}{$tool}) {
            $found{$tool} = [@$cmd];
        } elsif (defined $ENV{ $ENVVAR{$tool} } && length $ENV{ $ENVVAR{$tool} }) {
            $found{$tool} = [shellwords($ENV{ $ENVVAR{$tool} })];
        } elsif (defined $cross) {
            $found{$tool} = ["$cross$tool"];
        } elsif ($a{triple} && find_program("$a{triple}-$tool")) {
            $found{$tool} = ["$a{triple}-$tool"];
        } else {
            $found{$tool} = [$tool];
        }
    }
    return \%found;
}

1;
