#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# report.pl: the results of tools/workloads/workloads.sh. Reads
# $OUT/guest.log (the guest's CXDVIRT-WL-* lines), $OUT/sim/*.json (the
# replays) and $OUT/trace/*.json (the traced runs); writes
# $OUT/results.json, $OUT/results.csv, the plots (gnuplot) and, when $DOC
# is set, the "Workloads" section of $DOC between its markers (appended
# when the markers are missing). Exit status 1 when a run failed or an own
# workload's hit ratio differs from the simulator's by more than 5 points.
use strict;
use warnings;
use JSON::PP;
use File::Basename;
use File::Copy;

my $out = $ENV{OUT} or die "report.pl: OUT not set\n";
my $doc = $ENV{DOC} // '';
my $AGREE_PP = 5;
my (@runs, %run, $cur);
my $json = JSON::PP->new->canonical->pretty;

open(my $g, '<', "$out/guest.log") or die "report.pl: $out/guest.log: $!\n";
while (<$g>) {
	chomp;
	if (/^CXDVIRT-WL-BEGIN (\S+)/) {
		my $id = $1;
		$cur = { id => $id, notes => [], hist => [], stats => {} };
		($cur->{workload}, $cur->{mode}, $cur->{ratio}) = ($id =~ /^(.*)-(dram|node|dax)(?:-([\d.]+))?$/);
		push @runs, $cur;
		$run{$id} = $cur;
	} elsif (!$cur) {
		next;
	} elsif (/^CXDVIRT-WL-JSON (.*)$/) {
		my $j = eval { decode_json($1) };
		if ($j) {
			$cur->{prog} = $j;	# the last: exec's, for a server
			push @{$cur->{jsons}}, $j;
		}
	} elsif (/^CXDVIRT-WL-STAT (\S+) (\d+)/) {
		$cur->{stats}{$1} = $2 + 0;
	} elsif (/^CXDVIRT-WL-HIST (\d+) (\d+)/) {
		push @{$cur->{hist}}, [$1 + 0, $2 + 0];
	} elsif (/^CXDVIRT-WL-NOTE (.*)$/) {
		push @{$cur->{notes}}, $1;
	} elsif (/^CXDVIRT-WL-OUT (.*)$/) {
		push @{$cur->{output}}, $1;
	} elsif (/^CXDVIRT-WL-END (\S+) (\S+)/) {
		$cur->{status} = $2;
		undef $cur;
	}
}
close $g;
# The cache of each run: wl.runs, "ID KIND MODE CACHE_BYTES ARGS".
open(my $rf, '<', "$out/wl.runs") or die "report.pl: $out/wl.runs: $!\n";
while (<$rf>) {
	my ($id, undef, undef, $c) = split;
	$run{$id}{cache_bytes} = $c + 0 if $id && $run{$id};
}
close $rf;
sub kib { my $b = shift; defined $b ? ($b % 1048576 ? sprintf('%d KiB', $b / 1024) : sprintf('%d MiB', $b / 1048576)) : '-' }

my $failed = 0;
for my $r (@runs) {
	my $w = $r->{workload};
	unless (defined $r->{status} && $r->{status} eq '0' && $r->{prog} && defined $r->{prog}{run_ns}) {
		print STDERR "workloads: run $r->{id} failed (status " . ($r->{status} // 'none') . "): " .
			join(' | ', @{$r->{notes}}) . "\n";
		$r->{failed} = 1;
		$failed = 1;
		next;
	}
	my $base = $run{"$w-dram"};
	$r->{run_ns} = $r->{prog}{run_ns};
	$r->{norm_time} = $base && $base->{prog} ? $r->{run_ns} / $base->{prog}{run_ns} : undef;
	my $s = $r->{stats};
	if (%$s && $s->{misses}) {
		$r->{miss_mean_ns} = $s->{miss_ns_total} / $s->{misses};
		my ($n, $acc) = (0, 0);
		$n += $_->[1] for @{$r->{hist}};
		for my $b (@{$r->{hist}}) {
			$acc += $b->[1];
			if (!defined $r->{miss_p50_ns} && $acc * 2 >= $n) { $r->{miss_p50_ns} = $b->[0] }
			if (!defined $r->{miss_p99_ns} && $acc * 100 >= $n * 99) { $r->{miss_p99_ns} = $b->[0] }
		}
	}
	my $simf = "$out/sim/$r->{id}.json";
	if (-f $simf) {
		open(my $f, '<', $simf) or die;
		local $/;
		my $sj = decode_json(<$f>);
		close $f;
		$r->{sim} = { map { $_ => $sj->{$_} } qw(accesses misses native_hits hits hit_ratio evictions) };
		(my $lf = $simf) =~ s/\.json$/.less1.json/;
		if (open(my $l, '<', $lf)) {
			my $lj = decode_json(join('', <$l>));
			$r->{sim}{misses_one_line_less} = $lj->{misses};
			close $l;
		}
		my $acc = $sj->{accesses};
		$r->{hit_ratio} = 1 - $s->{misses} / $acc;
		$r->{agree_pp} = 100 * ($r->{hit_ratio} - $sj->{hit_ratio});
		$r->{agree} = abs($r->{agree_pp}) <= $AGREE_PP ? JSON::PP::true : JSON::PP::false;
		# The own workloads must agree; a server's row says why not
		# (docs/workloads.md), it does not fail the run.
		my $own = $w =~ /^(chase|bfs|pagerank)$/;
		$failed = 1 unless $r->{agree} || !$own;
		print STDERR "workloads: $r->{id}: guest hit ratio differs from the simulator's by " .
			sprintf("%.2f", $r->{agree_pp}) . " points\n" unless $r->{agree};
		if (open(my $t, '<', "$out/trace/$w.json")) {
			# The traced run's result line against the guest's: the
			# checksum (own), the GETs and their hits (zipf's clients).
			my $tj = eval { decode_json(scalar <$t>) };
			close $t;
			my ($gj) = grep { $tj && defined $_->{workload} && $_->{workload} eq $tj->{workload} }
				@{$r->{jsons} // []};
			if ($tj && $gj && defined $tj->{check}) {
				$r->{same_check} = $tj->{check} == $gj->{check} ? JSON::PP::true : JSON::PP::false;
			} elsif ($tj && $gj && defined $tj->{gets}) {
				$r->{same_check} = ($tj->{gets} == $gj->{gets} && $tj->{get_hits} == $gj->{get_hits}) ?
					JSON::PP::true : JSON::PP::false;
			}
		}
	}
}

open(my $jf, '>', "$out/results.json") or die;
print $jf $json->encode({ icount => $ENV{ICOUNT}, kernel => $ENV{KVER}, runs => \@runs });
close $jf;
my @cols = qw(id workload mode ratio cache_bytes run_ns norm_time misses minor_hits evictions writebacks
	      miss_mean_ns miss_p50_ns miss_p99_ns hit_ratio sim_accesses sim_misses sim_hit_ratio agree_pp same_check);
open(my $cf, '>', "$out/results.csv") or die;
print $cf join(',', @cols), "\n";
for my $r (@runs) {
	my %v = (%$r, %{$r->{stats} // {}});
	$v{sim_accesses} = $r->{sim}{accesses} if $r->{sim};
	$v{sim_misses} = $r->{sim}{misses} if $r->{sim};
	$v{sim_hit_ratio} = $r->{sim}{hit_ratio} if $r->{sim};
	$v{same_check} = defined $r->{same_check} ? ($r->{same_check} ? 1 : 0) : '';
	print $cf join(',', map { defined $v{$_} && !ref $v{$_} ? $v{$_} : '' } @cols), "\n";
}
close $cf;

# --- plots -------------------------------------------------------------------
my @wls;
{ my %seen; @wls = grep { !$seen{$_}++ } map { $_->{workload} } @runs; }
my @ratios = split ' ', ($ENV{RATIOS} // '');
my $have_gp = system('command -v gnuplot > /dev/null 2>&1') == 0;
my @plots;
{
	# Run time / DRAM: one row per workload, one column per mode x ratio.
	my @series;
	for my $m (qw(node dax)) { push @series, map { "$m-$_" } @ratios }
	open(my $d, '>', "$out/time.dat") or die;
	print $d join("\t", 'workload', @series), "\n";
	for my $w (@wls) {
		print $d join("\t", $w, map { my $r = $run{"$w-$_"}; $r && defined $r->{norm_time} ?
			sprintf("%.4f", $r->{norm_time}) : '-' } @series), "\n";
	}
	close $d;
	open(my $p, '>', "$out/time.gp") or die;
	print $p "set terminal pngcairo size 1000,420 noenhanced\nset output 'workloads-time.png'\n",
		"set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n",
		"set datafile missing '-'\nset logscale y\nset ylabel 'run time / plain DRAM (icount)'\n",
		"set key outside right\nset grid ytics\nset xtics rotate by -20\n",
		"plot for [i=2:" . (@series + 1) . "] 'time.dat' using i:xtic(1) title columnheader(i)\n";
	close $p;
	push @plots, 'time';
	# Miss latency CDF at the largest ratio, every device run.
	my $rmax = $ratios[-1];
	my @cdf;
	for my $r (grep { ($_->{ratio} // '') eq $rmax && @{$_->{hist}} } @runs) {
		my $n = 0;
		$n += $_->[1] for @{$r->{hist}};
		my $f = "cdf-$r->{id}.dat";
		open(my $c, '>', "$out/$f") or die;
		my $acc = 0;
		# A step at each bucket's lower bound, from 0 below the first.
		printf $c "%.3f 0\n", $r->{hist}[0][0] / 1000;
		for my $b (@{$r->{hist}}) {
			$acc += $b->[1];
			printf $c "%.3f %.5f\n", $b->[0] / 1000, $acc / $n;
		}
		close $c;
		push @cdf, [$f, "$r->{workload} $r->{mode}"];
	}
	if (@cdf) {
		open(my $q, '>', "$out/cdf.gp") or die;
		print $q "set terminal pngcairo size 1000,420 noenhanced\nset output 'workloads-cdf.png'\n",
			"set yrange [0:1.02]\n",
			"set logscale x\nset xlabel 'miss latency, us (log2 buckets, lower bound)'\n",
			"set ylabel 'fraction of misses'\nset key outside right\nset grid\n",
			"plot " . join(", ", map { "'$_->[0]' using 1:2 with steps title '$_->[1]'" } @cdf) . "\n";
		close $q;
		push @plots, 'cdf';
	}
	if ($have_gp) {
		for my $pl (@plots) {
			system("cd '$out' && gnuplot $pl.gp") == 0 or print STDERR "workloads: gnuplot $pl.gp failed\n";
		}
	} else {
		print STDERR "workloads: gnuplot missing (gnuplot-nox): no plots\n";
	}
}

# --- the document section -----------------------------------------------------
my $md = '';
sub f { my ($fmt, $v) = @_; defined $v ? sprintf($fmt, $v) : '-' }
my $kind_of = sub { my $w = shift; $w =~ /^(chase|bfs|pagerank)$/ ? 'own' : 'server' };
$md .= "Generated by `make workloads` (tools/workloads/workloads.sh) from one guest run on\n" .
       "$ENV{KVER} under QEMU -icount $ENV{ICOUNT}: guest time advances one ns per\n" .
       "instruction executed plus the modeled waits, so a run's time does not depend on\n" .
       "how busy the host is (two whole runs: docs/workloads.md, \"Repeatability\"); it also means that\n" .
       "plain DRAM costs no more than the instructions that touch it (no caches, no TLB\n" .
       "cost in TCG), so *run time / DRAM* is the cost the device's misses add to a\n" .
       "run, not a prediction of a real host's slowdown. Every device is fresh per run:\n" .
       "FIFO, accessed-bit scan off, 8 channels x 4 dies, tR 3 us. *ratio* is the\n" .
       "working set over the cache (the bytes the program allocates; for redis the\n" .
       "key range x 1 KiB values). How to run each workload yourself: docs/workloads.md.\n\n";
$md .= "| workload | mode | ratio | cache | run time / DRAM | misses | minor hits | mean miss us | P50 miss us | P99 miss us | hit ratio |\n";
$md .= "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
for my $r (@runs) {
	next if $r->{mode} eq 'dram';
	my $s = $r->{stats};
	if ($r->{failed}) {
		$md .= "| $r->{workload} | $r->{mode} | $r->{ratio} | - | failed: " .
			join('; ', @{$r->{notes}}) . " | | | | | | |\n";
		next;
	}
	$md .= sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$r->{workload}, $r->{mode}, $r->{ratio}, kib($r->{cache_bytes}), f('%.2f', $r->{norm_time}),
		$s->{misses} // '-', $s->{minor_hits} // '-', f('%.1f', defined $r->{miss_mean_ns} ? $r->{miss_mean_ns} / 1000 : undef),
		f('%.1f', defined $r->{miss_p50_ns} ? $r->{miss_p50_ns} / 1000 : undef),
		f('%.1f', defined $r->{miss_p99_ns} ? $r->{miss_p99_ns} / 1000 : undef),
		f('%.4f', $r->{hit_ratio}));
}
$md .= "\nP50/P99 are the lower bounds of stats/miss_latency_hist's log2 buckets. The\n" .
       "hit ratio needs every access counted; native hits never reach the device, so\n" .
       "it is given only for the traced workloads (below). Notes of the runs:\n\n";
for my $r (grep { @{$_->{notes}} } @runs) {
	$md .= "- $r->{id}: " . join('; ', @{$r->{notes}}) . "\n";
}
$md .= "\n### Agreement: guest against cxdvirt-sim\n\n" .
       "Each own workload ran once more on the build host under valgrind lackey (every\n" .
       "load and store), the same static binary with the same arguments and seed; the\n" .
       "trace was replayed with cxdvirt-sim --faults --policy fifo and the run's cache\n" .
       "size. node: every data access of the process (the whole process is bound to the\n" .
       "node); dax: the accesses to the arena, as device offsets. The guest's hit\n" .
       "ratio is 1 - (device misses / the trace's accesses): the guest cannot count\n" .
       "native hits, and the program is deterministic (*same result*: the checksum of\n" .
       "the guest run equals the traced run's). Agreement: within $AGREE_PP points.\n" .
       "*1 line less*: the simulator's misses with a cache one line (4 KiB) smaller.\n" .
       "The servers ran under lackey too, driven as in the guest: memcached, and\n" .
       "redis-server three ways (redis-sync: cxdvirt-wl zipf --redis, one request at a\n" .
       "time; redis-zipf: the same client's requests piped into redis-cli --pipe;\n" .
       "redis-bench: redis-benchmark), from the server's start to its exit, replayed\n" .
       "with --warmup over the accesses before the guest resets the counters (the start\n" .
       "and the load), and sysbench memory, seeded and whole, and fio's mmap engine on\n" .
       "a file (dax: the accesses to its mapping). *same result* for the servers: the\n" .
       "GETs and their hits of the client (redis-zipf and redis-bench do not report\n" .
       "them).\n\n";
$md .= "| workload | mode | ratio | accesses | sim misses | guest misses | misses guest/sim | sim misses, 1 line less | sim hit ratio | guest hit ratio | difference, points | same result |\n";
$md .= "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
for my $r (grep { $_->{sim} } @runs) {
	$md .= sprintf("| %s | %s | %s | %d | %d | %d | %s | %s | %.4f | %.4f | %+.2f | %s |\n",
		$r->{workload}, $r->{mode}, $r->{ratio}, $r->{sim}{accesses}, $r->{sim}{misses},
		$r->{stats}{misses}, $r->{sim}{misses} ? sprintf('%.3f', $r->{stats}{misses} / $r->{sim}{misses}) : '-',
		$r->{sim}{misses_one_line_less} // '-',
		$r->{sim}{hit_ratio}, $r->{hit_ratio}, $r->{agree_pp},
		defined $r->{same_check} ? ($r->{same_check} ? 'yes' : 'NO') : '-');
}
$md .= "\ndevdax: the device sees exactly the arena, and the misses are the\n" .
       "simulator's. node: the process's other pages differ between the guest and\n" .
       "valgrind (the kernel builds the initial stack on the node; valgrind places\n" .
       "the stack and the brk heap elsewhere, across a different number of pages).\n" .
       "At ratio 0.33 only cold misses remain, and the difference is that count of\n" .
       "pages. At 2.1 a page the process keeps using takes one cache line from the\n" .
       "workload on every FIFO cycle: where the workload sits on a miss cliff, one\n" .
       "line matters, as the *1 line less* column shows (docs/workloads.md).\n" .
       "The servers are dynamically linked: the C library, the dynamic loader and\n" .
       "valgrind's own placement give them more pages that differ than a static\n" .
       "program has, and their background threads run on timers (redis's serverCron,\n" .
       "memcached's LRU maintainer), so that under valgrind, many times slower, they\n" .
       "run more often per request than in the guest (docs/workloads.md, \"Guest and\n" .
       "simulator agreement\"). Their rows do not fail the run; a row beyond\n" .
       "$AGREE_PP points is marked below.\n" .
       "redis-zipf and redis-bench are not the same run twice: redis-cli --pipe\n" .
       "batches as the socket allows, so the traced server can get the requests in\n" .
       "other reads and grow other reply buffers than the guest's; redis-benchmark\n" .
       "seeds its uniform keys from the clock, so each run draws other keys. The\n" .
       "batching of each run is below.\n";
my @far = grep { $_->{sim} && !$_->{agree} } @runs;
$md .= "Beyond $AGREE_PP points: " . join(', ', map { "$_->{id} (" . sprintf('%+.2f', $_->{agree_pp}) . ")" } @far) .
       ".\n" if @far;
# How the requests reached redis in each run: the server's reads during the
# requests and its peak memory over its memory after the load (a reply
# buffer's growth), the traced run's (workloads.sh) beside the guest's.
my @bat;
for my $w (grep { /^redis-/ } @wls) {
	my ($tm, $tb);
	if (open(my $f, '<', "$out/trace/$w.mem")) { $tm = <$f>; close $f; }
	if (open(my $f, '<', "$out/trace/$w.batch")) { $tb = <$f>; close $f; }
	if (defined $tm && defined $tb && $tb =~ /^reads (\d+) peak (\d+)/) {
		push @bat, [$w, 'traced', $1, $2 - $tm];
	}
	for my $r (grep { $_->{workload} eq $w && !$_->{failed} } @runs) {
		my ($m) = map { /^redis used_memory (\d+)/ ? $1 : () } @{$r->{notes}};
		my ($n, $p) = map { /^redis batching reads (\d+) peak (\d+)/ ? ($1, $2) : () } @{$r->{notes}};
		push @bat, [$w, "guest $r->{mode}" . (defined $r->{ratio} ? " $r->{ratio}" : ''), $n, $p - $m]
			if defined $m && defined $p;
	}
}
if (@bat) {
	$md .= "\nRequest batching of the redis runs: the reads the server processed during\n" .
	       "the requests (`INFO`'s total_reads_processed, reset after the load) and its\n" .
	       "peak memory over its memory after the load (used_memory_peak - used_memory;\n" .
	       "mostly reply buffers); *traced*: the run replayed above.\n\n" .
	       "| workload | run | reads | peak over the load, KiB |\n|---|---|---:|---:|\n";
	$md .= sprintf("| %s | %s | %d | %d |\n", $_->[0], $_->[1], $_->[2], $_->[3] / 1024) for @bat;
}
my @png = grep { -f "$out/workloads-$_.png" } qw(time cdf);
if ($doc) {
	my $dir = dirname($doc);
	for my $p (@png) {
		copy("$out/workloads-$p.png", "$dir/workloads-$p.png") or die "report.pl: copy: $!\n";
	}
	$md .= "\n![run time / DRAM](workloads-time.png)\n" if grep { $_ eq 'time' } @png;
	$md .= "\n![miss latency CDF at ratio $ratios[-1]](workloads-cdf.png)\n" if grep { $_ eq 'cdf' } @png;
	open(my $in, '<', $doc) or die "report.pl: $doc: $!\n";
	local $/;
	my $text = <$in>;
	close $in;
	my $begin = "<!-- workloads: generated by make workloads, do not edit -->";
	my $end = "<!-- workloads: end -->";
	my $section = "$begin\n$md$end";
	unless ($text =~ s/\Q$begin\E.*?\Q$end\E/$section/s) {
		$text .= "\n## Workloads\n\n$section\n";
	}
	open(my $o, '>', $doc) or die;
	print $o $text;
	close $o;
	print STDERR "workloads: wrote the Workloads section of $doc\n";
}
open(my $mo, '>', "$out/workloads.md") or die;
print $mo $md;
close $mo;
print $md;
exit $failed;
