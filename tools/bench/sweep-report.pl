#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# sweep-report.pl: the results of tools/bench/sweep.sh. Reads $OUT/guest.log
# (the guest's CXDVIRT-SWEEP-* lines, sweep-guest.sh), $OUT/sweep.jobs and
# $OUT/sweep.keys; writes
#
#   $OUT/jobs.json, $OUT/results/NAME.json  a cxdvirt-sim sweep folder: each
#       job's cxdvirt-bench report in the keys of a cxdvirt-sim report, so
#   $OUT/results.csv   is written by `$SIM sweep --merge $OUT`: the columns
#       of a simulated sweep (docs/tools.md, "Merging")
#   $OUT/results.json  every job's keys, cxdvirt-bench report and counters
#   $OUT/bandwidth.png, missratio.png, latency.png, cdf.png  (gnuplot)
#   $OUT/fidelity-guest.md  the guest column of the CMM-H fidelity table
#
# and, when $DOC is set and the run has the fidelity points, that column of
# the table between the cmmh-fidelity markers of $DOC.
#
# Exit status 1 when a job failed or has no device counters, the CSV's columns are not cxdvirt-sim's,
# or a property does not hold: with the random pattern (every target, the
# base configuration), the miss ratio does not fall as the working set
# grows (0.02 of slack per step) and rises by at least 0.3 from the smallest
# to the largest working set, and the bandwidth at the largest working set
# is below half of that at the smallest.
use strict;
use warnings;
use JSON::PP;
use File::Path qw(make_path);

my $out = $ENV{OUT} or die "sweep-report.pl: OUT not set\n";
my $doc = $ENV{DOC} // '';
my $sim = $ENV{SIM} or die "sweep-report.pl: SIM not set\n";
my $bench = $ENV{BENCH} or die "sweep-report.pl: BENCH not set\n";
my @cdf_ratios = split ' ', ($ENV{CDF_RATIOS} // '');
my $json = JSON::PP->new->canonical->pretty;
my $NOTE = 'guest under QEMU icount: miss-side shapes only (hits are native loads, the vCPUs take turns)';
my $failed = 0;

sub fail { print STDERR "sweep: FAIL: @_\n"; $failed = 1; }

# --- the guest's log ------------------------------------------------------------
my (%run, $cur, $mode, %info);
open(my $g, '<', "$out/guest.log") or die "sweep-report.pl: $out/guest.log: $!\n";
while (<$g>) {
	chomp;
	if (/^CXDVIRT-SWEEP-INFO (\S+) (.*)$/) {
		$info{$1} = $2;
	} elsif (/^CXDVIRT-SWEEP-BEGIN (\S+)/) {
		$cur = $run{$1} = { json => '', cdf => '', stats => {} };
		$mode = '';
	} elsif (!$cur) {
		next;
	} elsif (/^CXDVIRT-SWEEP-JSON /) {
		$mode = 'json';
	} elsif (/^CXDVIRT-SWEEP-CDF /) {
		$mode = 'cdf';
	} elsif (/^CXDVIRT-SWEEP-STAT \S+ (\S+) (\d+)/) {
		$cur->{stats}{$1} = $2 + 0;
		$mode = '';
	} elsif (/^CXDVIRT-SWEEP-END \S+ (\S+)/) {
		$cur->{status} = $1;
		undef $cur;
	} elsif (/^# stderr: (.*)$/) {
		push @{$cur->{stderr}}, $1;
		$mode = '';
	} elsif ($mode) {
		$cur->{$mode} .= "$_\n";
	}
}
close $g;

# --- the jobs -----------------------------------------------------------------
open(my $kf, '<', "$out/sweep.keys") or die "sweep-report.pl: $out/sweep.keys: $!\n";
chomp(my @keys = <$kf>);
close $kf;
my (@jobs, %traces);
open(my $jf, '<', "$out/sweep.jobs") or die "sweep-report.pl: $out/sweep.jobs: $!\n";
while (<$jf>) {
	my ($name, $pattern, @kv) = split;
	my %p = map { split /=/, $_, 2 } @kv;
	push @jobs, { index => scalar @jobs, name => $name, trace => $pattern, params => \%p };
	$traces{$pattern} = "cxdvirt-bench --pattern $pattern" . ($pattern eq 'stride' ? ' --stride 2' : '');
}
close $jf;
# The CSV's key columns: every key but threads, which the result column
# "threads" (a simulated sweep's threads_replayed) already holds.
my @csvkeys = grep { $_ ne 'threads' } @keys;
open(my $mf, '>', "$out/jobs.json") or die "$out/jobs.json: $!\n";
print $mf $json->encode({ grid => 'tools/bench/sweep.sh', params => \@csvkeys,
			  traces => \%traces, jobs => \@jobs });
close $mf;

# --- each job as a cxdvirt-sim report ---------------------------------------------
make_path("$out/results");
my (@all, %by);
for my $j (@jobs) {
	my $r = $run{$j->{name}};
	if (!$r || !defined $r->{status} || $r->{status} ne '0') {
		fail("job $j->{name}: " . (!$r ? 'did not run' : 'status ' . ($r->{status} // 'none') .
		     ($r->{stderr} ? ': ' . join(' / ', @{$r->{stderr}}) : '')));
		next;
	}
	my $b = eval { decode_json($r->{json}) };
	if (!$b) {
		fail("job $j->{name}: the report is not JSON");
		next;
	}
	my $acc = $b->{accesses};
	my $ds = $b->{device_stats};
	# Both targets have the device's counters (node:N: the node-mode
	# device on node N, docs/tools.md).
	fail("job $j->{name}: no device counters in the report") unless $ds;
	# Misses: the device's count over the measured passes (the accesses
	# classified as misses only when a report lacks the counters, which
	# fails the run above).
	my $misses = $ds ? $ds->{misses} : $b->{misses}{count};
	my $wall = 0;
	$wall += $_->{wall_ns} for @{$b->{passes}};
	my $m = $b->{misses};
	my %s = (
		accesses => $acc,
		hits => $acc - $misses,
		misses => $misses,
		hit_ratio => $acc ? ($acc - $misses) / $acc : 0,
		elapsed_ns => $wall,
		threads_replayed => $b->{config}{threads},
		bandwidth_mbps => $b->{bandwidth_mbps},
		access_latency_ns => { mean => $b->{all}{mean_ns} },
		source => 'cxdvirt-bench in the guest: ' . $NOTE,
	);
	# The latency of the accesses classified as misses; none when the
	# device counted none (a few hits delayed by the emulation would
	# stand in for them otherwise).
	$s{miss_latency_ns} = { mean => $m->{mean_ns}, p50 => $m->{p50_ns}, p90 => $m->{p90_ns},
				p99 => $m->{p99_ns}, p999 => $m->{p999_ns}, max => $m->{max_ns} }
		if $misses && $m->{count};
	if ($ds) {
		$s{native_hits} = $acc - $misses - $ds->{minor_hits};
		$s{evictions} = { total => $ds->{evictions}, dirty => $ds->{dirty_evictions},
				  writebacks => $ds->{writebacks} };
	}
	open(my $rf, '>', "$out/results/$j->{name}.json") or die "$out/results/$j->{name}.json: $!\n";
	print $rf $json->encode(\%s);
	close $rf;
	my $e = { %{$j->{params}}, pattern => $j->{trace}, name => $j->{name},
		  miss_ratio => $acc ? $misses / $acc : 0, bandwidth_mbps => $b->{bandwidth_mbps},
		  lat_mean_ns => $b->{all}{mean_ns}, lat_p50_ns => $b->{all}{p50_ns},
		  lat_p99_ns => $b->{all}{p99_ns}, report => $b, counters_after => $r->{stats},
		  cdf => $r->{cdf} };
	push @all, $e;
	$by{$j->{name}} = $e;
}
if (@all) {
	open(my $af, '>', "$out/results.json") or die "$out/results.json: $!\n";
	print $af $json->encode({ note => $NOTE, info => \%info, keys => \@keys,
				  jobs => [map { my %c = %$_; delete $c{cdf}; \%c } @all] });
	close $af;
}
exit 1 if $failed;

# --- the CSV: cxdvirt-sim's merge, and its columns checked ------------------------
system($sim, 'sweep', '--merge', $out, '--no-plot') == 0 or fail("$sim sweep --merge $out");
open(my $cf, '<', "$out/results.csv") or die "$out/results.csv: $!\n";
chomp(my $hdr = <$cf>);
close $cf;
# A simulated sweep's header: a one-job grid with the same keys is not
# possible (they are guest keys), so compare the result columns: everything
# after job, name, trace and the keys.
my $tmp = "$out/simref";
make_path($tmp);
open(my $ig, '>', "$tmp/ref.ini") or die;
print $ig "[traces]\nu = uniform pages=64 accesses=100\n[params]\ncache-size = 64K\n";
close $ig;
system("'$sim' sweep --out '$tmp/o' '$tmp/ref.ini' > /dev/null 2>&1 && '$sim' sweep --merge '$tmp/o' --no-plot > /dev/null 2>&1") == 0
	or fail('the reference simulated sweep');
open(my $sf, '<', "$tmp/o/results.csv") or die "$tmp/o/results.csv: $!\n";
chomp(my $shdr = <$sf>);
close $sf;
my @sc = split /,/, $shdr;
my @gc = split /,/, $hdr;
my $want = join(',', 'job', 'name', 'trace', @csvkeys, @sc[4 .. $#sc]);
if ($hdr eq $want) {
	print STDERR "sweep: the CSV has cxdvirt-sim's columns (" . (scalar(@sc) - 4) . " result columns after job, name, trace and " . scalar(@csvkeys) . " keys)\n";
} else {
	fail("CSV header\n  guest: $hdr\n  want:  $want");
}

# --- properties ---------------------------------------------------------------
# The base curves: random pattern, per target, every other key at its most
# common value among the random jobs with several ratios.
my %curve;
for my $e (@all) {
	next unless $e->{pattern} eq 'random';
	my $k = join(' ', map { "$_=$e->{$_}" } grep { $_ ne 'ratio' } @keys);
	push @{$curve{$k}}, $e;
}
my $checked = 0;
for my $k (sort keys %curve) {
	my @c = sort { $a->{ratio} <=> $b->{ratio} } @{$curve{$k}};
	next if @c < 3 || $k !~ /write-ratio=0(\s|$)/ || $k !~ /prefetch=none/ || $k !~ /policy=lru/;
	$checked++;
	my $desc = join(', ', map { sprintf('%s: miss %.2f, %.0f MB/s', $_->{ratio}, $_->{miss_ratio}, $_->{bandwidth_mbps}) } @c);
	print STDERR "sweep: random, $k: $desc\n";
	for my $i (1 .. $#c) {
		fail("random, $k: the miss ratio falls from $c[$i - 1]{ratio} to $c[$i]{ratio}")
			if $c[$i]{miss_ratio} < $c[$i - 1]{miss_ratio} - 0.02;
	}
	fail("random, $k: the miss ratio rises by less than 0.3")
		if $c[-1]{miss_ratio} < $c[0]{miss_ratio} + 0.3;
	fail("random, $k: the bandwidth at $c[-1]{ratio} is not below half of that at $c[0]{ratio}")
		if $c[-1]{bandwidth_mbps} >= $c[0]{bandwidth_mbps} / 2;
}
fail('no random curve with three working sets to check') unless $checked;

# --- plots --------------------------------------------------------------------
sub cfg { my ($e, %w) = @_; for (keys %w) { return 0 unless ($e->{$_} // '') eq $w{$_} } 1 }
my $have_gp = system('command -v gnuplot > /dev/null 2>&1') == 0;
my $title_note = 'guest (QEMU icount, 2 vCPUs): miss-side shapes only; hits are native loads and the vCPUs take turns';
# Lines: one per target and pattern of the base configuration (the most
# common threads value), against the ratio.
my %thr;
$thr{$_->{threads}}++ for @all;
my ($bt) = sort { $thr{$b} <=> $thr{$a} || $b <=> $a } keys %thr;
my %lines;
for my $e (@all) {
	next unless cfg($e, threads => $bt, 'write-ratio' => 0, policy => 'lru', prefetch => 'none');
	push @{$lines{"$e->{target} $e->{pattern}"}}, $e;
}
open(my $df, '>', "$out/curves.dat") or die;
my @ln = sort keys %lines;
for my $l (@ln) {
	print $df "# $l\n";
	for my $e (sort { $a->{ratio} <=> $b->{ratio} } @{$lines{$l}}) {
		printf $df "%s %.6f %.3f %.1f %d %d\n", $e->{ratio}, $e->{miss_ratio},
			$e->{bandwidth_mbps}, $e->{lat_mean_ns}, $e->{lat_p50_ns}, $e->{lat_p99_ns};
	}
	print $df "\n\n";
}
close $df;
my @plots = (
	[ 'bandwidth', 'bandwidth (MB/s, 4 KiB per access)', 3, 1 ],
	[ 'missratio', 'miss ratio', 2, 0 ],
	[ 'latency', 'loaded latency, mean of all accesses (ns)', 4, 1 ],
);
for my $p (@plots) {
	my ($pl, $yl, $col, $logy) = @$p;
	open(my $gp, '>', "$out/$pl.gp") or die;
	print $gp <<"EOF";
set terminal pngcairo size 1000,650 noenhanced
set output '$pl.png'
set title "cxdvirt-bench sweep, $ENV{PRESET} preset, @{[ $ENV{CACHE} / 1048576 ]} MiB cache, $bt threads\\n$title_note"
set xlabel 'working set / cache'
set ylabel '$yl'
set logscale x
@{[ $logy ? 'set logscale y' : '' ]}
set key outside right
set grid
EOF
	print $gp 'plot ' . join(", \\\n\t", map { "'curves.dat' index $_ using 1:$col with linespoints title '$ln[$_]'" } 0 .. $#ln) . "\n";
	close $gp;
}
# The CDFs: random, base configuration, each target, at the chosen ratios.
open(my $cdf, '>', "$out/cdf.dat") or die;
print $cdf "# cxdvirt-bench latency CDF: NS FRACTION per target\n";
my $ncdf = 0;
for my $t ('dax', 'node') {
	for my $ra (@cdf_ratios) {
		my ($e) = grep { cfg($_, target => $t, pattern => 'random', threads => $bt, ratio => $ra,
				     'write-ratio' => 0, policy => 'lru', prefetch => 'none') } @all;
		next unless $e && $e->{cdf};
		(my $c = $e->{cdf}) =~ s/^# cxdvirt-bench latency CDF.*\n//m;
		$c =~ s/^# target .*$/# target $t $ra x cache/m;
		print $cdf $c;
		$ncdf++;
	}
}
close $cdf;
if ($have_gp) {
	for my $p (@plots) {
		system("cd '$out' && gnuplot $p->[0].gp") == 0 or fail("gnuplot $p->[0].gp");
	}
	if ($ncdf) {
		system($bench, '--plot-from', "$out/cdf.dat", '--plot', "$out/cdf.png", '--title',
		       "sweep: CDF, random, $bt threads, working set / cache @cdf_ratios; guest: miss-side shapes only") == 0
			or fail('cxdvirt-bench --plot-from');
	}
} else {
	print STDERR "sweep: gnuplot missing (gnuplot-nox): no plots\n";
}

# --- the guest column of the CMM-H fidelity table ----------------------------------
sub pt { my %w = @_; my ($e) = grep { cfg($_, %w) } @all; $e }
my %bw = map { $_ => pt(target => 'dax', pattern => 'random', threads => 8, ratio => $_, 'write-ratio' => 0,
			policy => 'lru', prefetch => 'none') } qw(0.33 0.67 1.33 2.67);
my %lat = map { $_ => pt(target => 'dax', pattern => 'chase', threads => 1, ratio => $_, 'write-ratio' => 0,
			 policy => 'lru', prefetch => 'none') } qw(0.083 0.42 1.25);
my %sat = map { $_ => pt(target => 'dax', pattern => 'random', threads => $_, ratio => 0.33, 'write-ratio' => 0,
			 policy => 'lru', prefetch => 'none') } qw(1 2 4 8);
my @need = (values %bw, values %lat, values %sat);
if (grep { !defined } @need) {
	print STDERR "sweep: the run lacks the fidelity points: no guest column\n";
	exit $failed;
}
my $b0 = $bw{0.33}{bandwidth_mbps};
my %col;
my $scale = sprintf('%s preset, %d MiB cache', $ENV{PRESET}, $ENV{CACHE} / 1048576);
for my $r (qw(0.33 0.67 1.33 2.67)) {
	my $q = $bw{$r}{bandwidth_mbps} / $b0;
	(my $rk = $r) =~ s/\.//;
	$col{"bandwidth, working set / cache $r, 8 threads"} = $r eq '0.33' ?
		sprintf('1.00 x (reference; miss ratio %.2f)', $bw{$r}{miss_ratio}) :
		sprintf('%.2f x of 0.33: %s (miss ratio %.2f)', $q, $q < 0.9 ? 'falls' : 'no fall', $bw{$r}{miss_ratio});
}
my $l0 = $lat{0.083}{lat_mean_ns};
$col{'latency, 4 GB working set'} = sprintf('1.00 x (reference, 0.083 x cache; miss ratio %.2f)', $lat{0.083}{miss_ratio});
$col{'latency, 20 GB working set'} = sprintf('%.2f x of 4 GB (0.42 x cache; miss ratio %.2f)', $lat{0.42}{lat_mean_ns} / $l0, $lat{0.42}{miss_ratio});
$col{'latency, 60 GB working set'} = sprintf('%.1f x of 4 GB (1.25 x cache; miss ratio %.2f: a chase is a cycle, which LRU misses entirely above 1.0)', $lat{1.25}{lat_mean_ns} / $l0, $lat{1.25}{miss_ratio});
$col{'latency, 40 GB, cold start'} = 'not measured (the sweep measures warm passes)';
my $s1 = $sat{1}{bandwidth_mbps};
$col{'threads at which bandwidth saturates'} = sprintf('not comparable: the vCPUs take turns under icount (of 1 thread: 2: %.2f, 4: %.2f, 8: %.2f x)',
	map { $sat{$_}{bandwidth_mbps} / $s1 } qw(2 4 8));
my $q67 = $bw{0.67}{bandwidth_mbps} / $b0;
$col{'bandwidth falls before the working set reaches the cache'} = sprintf('%.2f x: %s', $q67,
	$q67 < 0.5 ? 'falls' : 'no fall (LRU hits at 0.67, as in the model)');
open(my $fg, '>', "$out/fidelity-guest.md") or die;
for my $k (sort keys %col) {
	print $fg "$k: $col{$k}\n";
}
close $fg;
print STDERR "sweep: fidelity, guest column ($scale): bandwidth 0.67/1.33/2.67 of 0.33: " .
	join(', ', map { sprintf('%.2f', $bw{$_}{bandwidth_mbps} / $b0) } qw(0.67 1.33 2.67)) . "\n";
if ($doc) {
	open(my $in, '<', $doc) or die "$doc: $!\n";
	my @d = <$in>;
	close $in;
	my ($in_t, $n) = (0, 0);
	for (@d) {
		$in_t = 1, next if /<!-- cmmh-fidelity begin -->/;
		$in_t = 0 if /<!-- cmmh-fidelity end -->/;
		next unless $in_t && /^\| /;
		my @c = split /\|/, $_, -1;	# '', cells..., "\n"
		next if @c < 9;
		for my $k (keys %col) {
			next unless index($c[1], " $k") == 0;
			$c[7] = " $col{$k} ";
			$_ = join('|', @c);
			$n++;
		}
	}
	if ($n != scalar keys %col) {
		fail("$doc: $n of " . scalar(keys %col) . ' fidelity rows found');
	} else {
		# The column's header names the scale.
		s/\| guest[^|]*\|$/| guest ($scale: ratios) |/ for @d;
		open(my $o, '>', "$doc.tmp.$$") or die;
		print $o @d;
		close $o;
		rename("$doc.tmp.$$", $doc) or die "$doc: $!\n";
		print STDERR "sweep: $doc: the guest column of the CMM-H fidelity table written\n";
	}
}
exit $failed;
