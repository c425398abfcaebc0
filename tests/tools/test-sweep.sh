#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cxdvirt-sim sweep: a grid of 8 jobs run here (-j 2), checked against
# analytic results and against cxdvirt-sim itself on the same trace; bad
# grids refused before anything runs; the same grid through GNU parallel
# and as a Slurm job array on a one-node Slurm started here (munged,
# slurmctld and slurmd in a temporary folder, stopped at the end), each
# job's JSON identical to the local run's; --merge's CSV and chart.
# Prints TAP; exits non-zero if any test fails. A missing GNU parallel,
# Slurm or munge is a failure (tests/vm/install-deps.sh installs them).
#
# Usage: tests/tools/test-sweep.sh [path/to/cxdvirt-sim [path/to/gen-trace]]

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
sim=${1:-$top/tools/cxdvirt-sim}
gen=${2:-$top/tools/bench/progs/gen-trace}
tmp=$(mktemp -d)
# munged wants every folder above its socket searchable by all.
chmod 755 "$tmp"
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

. "$top/tests/tools/tap.bash"

# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected '$2', got '$3'"
	fi
}

# same_results DESCRIPTION DIR_A DIR_B: every result file byte for byte
same_results() {
	local f diffs=0 count=0
	for f in "$2"/results/*.json; do
		count=$((count + 1))
		cmp -s "$f" "$3/results/${f##*/}" || diffs=$((diffs + 1))
	done
	check "$1" "8 0" "$count $diffs"
}

# csv COLUMN NAME: the value of COLUMN in job NAME's row of $tmp/local/results.csv
csv() {
	awk -F, -v col="$1" -v name="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == name { print $(c[col]) }' "$tmp/local/results.csv"
}

plan=47
echo "1..$plan"

if [ ! -x "$sim" ] || [ ! -x "$gen" ]; then
	for i in $(seq $plan); do
		echo "not ok $i - cxdvirt-sim or gen-trace not built ($sim, $gen)"
	done
	exit 1
fi

# --- The grid -----------------------------------------------------------
# A cyclic scan of 65 pages, 10 passes, through 64 lines: FIFO never hits,
# LIFO hits 63 pages per pass after the first (as in test-sim.sh). The 4M
# cache holds it all: 65 misses, 585 hits under either policy.
mkdir -p "$tmp/grid"
for _ in $(seq 10); do seq 0 64 | sed 's/^/R /'; done >"$tmp/grid/scan65.txt"
cat >"$tmp/grid/small.ini" <<'EOF'
# 2 traces x 2 policies x 2 cache sizes
[traces]
scan = scan65.txt                   ; a file, relative to this grid
uni  = uniform pages=2048 accesses=20000 write-pct=25 seed=7

[params]
capacity   = 8M
policy     = fifo,lifo
cache-size = 256K, 4M
EOF

"$sim" sweep --list "$tmp/grid/small.ini" >"$tmp/list" 2>&1
check "--list: 8 jobs, names from the sorted swept keys" \
	"0 scan__cache-size=256K__policy=fifo|7 uni__cache-size=4M__policy=lifo" \
	"$(sed -n '1p;$p' "$tmp/list" | tr '\t' ' ' | paste -sd'|')"

check "tools/sim/example.ini: 36 jobs" 36 \
	"$("$sim" sweep --list "$top/tools/sim/example.ini" 2>&1 | wc -l)"

t0=$(date +%s%N)
"$sim" sweep -j 2 --out "$tmp/local" "$tmp/grid/small.ini" >"$tmp/out" 2>&1
rc=$?
check "local -j 2: exit 0, 8 results" "0 8" "$rc $(find "$tmp/local/results" -name '*.json' | wc -l)"
echo "# local run: $(( ($(date +%s%N) - t0) / 1000000 )) ms"

"$sim" sweep --merge "$tmp/local" >"$tmp/out" 2>&1
check "--merge: exit 0" 0 "$?"
check "--merge: a header and 8 rows" 9 "$(wc -l <"$tmp/local/results.csv")"
check "--merge: parameter columns, then results" \
	"job,name,trace,cache-size,capacity,policy,accesses,reads,writes,hits" \
	"$(head -n 1 "$tmp/local/results.csv" | cut -d, -f1-10)"
check "fifo: a cyclic scan of 65 pages through 64 lines never hits" "0 650" \
	"$(csv hits scan__cache-size=256K__policy=fifo) $(csv misses scan__cache-size=256K__policy=fifo)"
check "lifo: 63 hits per pass after the first" $((9 * 63)) \
	"$(csv hits scan__cache-size=256K__policy=lifo)"
check "4M: 65 misses, hit ratio 0.9" "65 1" \
	"$(csv misses scan__cache-size=4M__policy=fifo) $(csv hit_ratio scan__cache-size=4M__policy=lifo | awk '{ print ($1 == 0.9) }')"
check "the CSV's numbers are the JSON's" \
	"$(sed -n 's/^  "hit_ratio":\(.*\),$/\1/p' "$tmp/local/results/uni__cache-size=256K__policy=lifo.json")" \
	"$(csv hit_ratio uni__cache-size=256K__policy=lifo)"
check "a uniform trace: 20000 accesses, about 25% writes" "20000 1" \
	"$(csv accesses uni__cache-size=4M__policy=fifo) $(csv writes uni__cache-size=4M__policy=fifo | awk '{ print ($1 > 4500 && $1 < 5500) }')"
if [ "$(head -c 4 "$tmp/local/plot.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then
	ok "--merge: plot.png is a PNG"
else
	not_ok "--merge: plot.png is a PNG" "$(cat "$tmp/out")"
fi
check "the chart: hit_ratio against cache-size, a line per trace and policy" 4 \
	"$(grep -c 'index [0-9]* using' "$tmp/local/plot.gp")"

# A failed merge leaves no earlier CSV or chart behind: a copy of the
# merged folder with one result gone. A bad axis is refused first and
# changes nothing.
cp -r "$tmp/local" "$tmp/stale"
"$sim" sweep --merge "$tmp/stale" --plot-y nosuch >/dev/null 2>"$tmp/err"
check "--merge --plot-y nosuch: exit 2, the earlier outputs untouched" "2 1 4" \
	"$? $(grep -c 'plot-y nosuch: not a result column' "$tmp/err") $(ls "$tmp/stale" | grep -c -E '^(results\.csv|plot\.(gp|dat|png))$')"
rm "$tmp/stale/results/uni__cache-size=4M__policy=fifo.json"
"$sim" sweep --merge "$tmp/stale" >/dev/null 2>"$tmp/err"
check "a failed --merge: exit 1, no results.csv or plot.* left" "1 1 0" \
	"$? $(grep -c '1 of 8 results missing' "$tmp/err") $(ls "$tmp/stale" | grep -c -E '^(results\.csv|plot\.(gp|dat|png))$')"

# Without gnuplot: said on stderr, the CSV and the script still written.
rm -f "$tmp/local/plot.png" "$tmp/local/results.csv"
PATH=/nonexistent "$sim" sweep --merge "$tmp/local" >/dev/null 2>"$tmp/err"
rc=$?
check "--merge without gnuplot: exit 0, says so, CSV and script, no PNG" \
	"0 1 9 1 0" \
	"$rc $(grep -c 'gnuplot not found' "$tmp/err") $(wc -l <"$tmp/local/results.csv") $(test -s "$tmp/local/plot.gp" && echo 1) $(test -e "$tmp/local/plot.png" && echo 1 || echo 0)"

# Bad options: a usage error (exit 2), nothing run.
r=
for args in "--jobs 0" "--jobs x" "--job -1" "--run foo" "--sshlogin h1" "--wait" "--partition p"; do
	# shellcheck disable=SC2086 # one option and its value
	"$sim" sweep $args --out "$tmp/badopt" "$tmp/grid/small.ini" >/dev/null 2>&1
	r="$r $?"
done
check "bad options (--jobs 0/x, --job -1, --run foo, parallel/slurm options with --run local): exit 2, nothing run" \
	" 2 2 2 2 2 2 2 0" "$r $(find "$tmp/badopt" 2>/dev/null | wc -l)"

# The generated trace is gen-trace's (one source): the same job through
# cxdvirt-sim itself gives the same JSON, byte for byte.
"$gen" "$tmp/uni.bin" 20000 2048 uniform 25 7
"$sim" --json --capacity 8M --policy lifo --cache-size 256K "$tmp/uni.bin" \
	>"$tmp/direct.json" 2>&1
if cmp -s "$tmp/direct.json" "$tmp/local/results/uni__cache-size=256K__policy=lifo.json"; then
	ok "a job's JSON = cxdvirt-sim --json on gen-trace's file"
else
	not_ok "a job's JSON = cxdvirt-sim --json on gen-trace's file" \
		"$(diff "$tmp/direct.json" "$tmp/local/results/uni__cache-size=256K__policy=lifo.json" | head -5)"
fi

"$sim" sweep --out "$tmp/job3" --job 3 "$tmp/grid/small.ini" 2>"$tmp/err"
name=$(sed -n '4s/^3\t//p' "$tmp/list")
if cmp -s "$tmp/job3/results/$name.json" "$tmp/local/results/$name.json"; then
	ok "--job 3 alone writes job 3's result"
else
	not_ok "--job 3 alone writes job 3's result" "$(cat "$tmp/err")"
fi

# --- Bad grids: one line, exit 2, nothing run ------------------------------
# bad NAME EXPECTED-IN-THE-MESSAGE GRID-LINES...
bad() {
	local name=$1 want=$2 rc
	shift 2
	printf '%s\n' "$@" >"$tmp/grid/bad.ini"
	rm -rf "$tmp/bad"
	"$sim" sweep --out "$tmp/bad" "$tmp/grid/bad.ini" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	   grep -qF -- "$want" "$tmp/err" && [ ! -e "$tmp/bad" ]; then
		ok "bad grid: $name"
	else
		not_ok "bad grid: $name" "exit $rc, $(find "$tmp/bad" 2>/dev/null | wc -l) outputs: $(cat "$tmp/err")"
	fi
}
gen_line='t = uniform pages=64 accesses=100'
# A trace file without an access (only D records) is a bad grid too.
printf 'D 1\n' >"$tmp/grid/donly.txt"
bad "a trace of D records only" "donly.txt: only discard (D) records, no access (R or W): nothing to replay" \
	'[traces]' 'd = donly.txt' '[params]' 'policy = fifo'
bad "unknown option, listing the own keys" "bad.ini:4: [params] polcy: unknown option (a device option, preset, think, hit-ns, warmup, power-fail-at or faults;" \
	'[traces]' "$gen_line" '[params]' 'polcy = fifo'
# docs/tools.md's example lines of a refused grid are the real messages:
# grids whose bad line is at the example's line number.
mkdir -p "$tmp/doc"
r=
while IFS= read -r line; do
	l=${line#cxdvirt-sim: grid.ini:}
	l=${l%%:*}
	case $line in
	*polcy*) body='polcy = lru' ;;
	*"empty value"*) body='policy = lru,' ;;
	*app:*) body='app = /data/app.bin' ;;
	*"duplicate key"*) body='policy = lru' ;;
	*) r="$r [no grid for: $line]"; continue ;;
	esac
	{
		printf '[traces]\nt = t.txt\n'
		if [ "$l" = 3 ]; then
			echo "$body"
			printf '[params]\ncache-size = 64K\n'
		else
			for _ in $(seq 3 $((l - 4))); do echo; done
			printf '[params]\ncache-size = 64K\n'
			case $line in *"duplicate key"*) echo 'policy = fifo' ;; *) echo ;; esac
			echo "$body"
		fi
	} >"$tmp/doc/grid.ini"
	printf 'R 1\n' >"$tmp/doc/t.txt"
	got=$(cd "$tmp/doc" && "$sim" sweep --list grid.ini 2>&1 >/dev/null)
	[ "$got" = "$line" ] || r="$r [$line != $got]"
done < <(sed -n '/^cxdvirt-sim: grid.ini:[0-9]*:/p' "$top/docs/tools.md")
check "docs/tools.md's grid errors are the messages printed" "" "$r"
bad "empty list" "policy: empty value in the list" \
	'[traces]' "$gen_line" '[params]' 'policy ='
bad "empty value in a list" "policy: empty value in the list" \
	'[traces]' "$gen_line" '[params]' 'policy = fifo,,lru'
bad "unreadable trace" "nosuch.txt: No such file or directory" \
	'[traces]' 't = nosuch.txt'
bad "duplicate keys" "bad.ini:5: [params] policy: duplicate key" \
	'[traces]' "$gen_line" '[params]' 'policy = fifo' 'policy = lru'
bad "a bad value" "policy: bad value 'bogus' (one of:" \
	'[traces]' "$gen_line" '[params]' 'policy = fifo,bogus'
bad "a job sim_run would refuse" "job 1 (t__cache-size=4097): --cache-size and --capacity must be multiples of 4K" \
	'[traces]' "$gen_line" '[params]' 'cache-size = 8K,4097'
bad "a power failure beyond a generated trace" \
	"job 1 (t__power-fail-at=101): --power-fail-at 101: beyond the trace (100 accesses)" \
	'[traces]' "$gen_line" '[params]' 'power-fail-at = 50,101'
bad "a power failure beyond a trace file" \
	"job 0 (t): --power-fail-at 651: beyond the trace (650 accesses)" \
	'[traces]' 't = scan65.txt' '[params]' 'power-fail-at = 651'
bad "a warm-up beyond the trace" \
	"--warmup 100 leaves none of the trace's 100 accesses to measure" \
	'[traces]' "$gen_line" '[params]' 'warmup = 10,100'
bad "a warm-up that reaches the power failure" \
	"--warmup 60 leaves none of the 50 accesses before --power-fail-at to measure" \
	'[traces]' "$gen_line" '[params]' 'warmup = 60' 'power-fail-at = 50'

# --- Power failures in the CSV ---------------------------------------------
cat >"$tmp/grid/pf.ini" <<'EOF'
[traces]
w = uniform pages=256 accesses=2000 write-pct=50 seed=3

[params]
capacity      = 1M
cache-size    = 64K
power-fail-at = 500,2000
EOF
"$sim" sweep --out "$tmp/pf" "$tmp/grid/pf.ini" >/dev/null 2>&1 &&
	"$sim" sweep --merge "$tmp/pf" --no-plot >/dev/null 2>&1
pfcsv() {	# pfcsv COLUMN NAME: as csv, in $tmp/pf/results.csv
	awk -F, -v col="$1" -v name="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == name { print $(c[col]) }' "$tmp/pf/results.csv"
}
pfjson() {	# pfjson NAME: "saved lost bytes" from the job's JSON
	tr -d ' \n' <"$tmp/pf/results/$1.json" |
		sed -n 's/.*"lines_saved":\([0-9]*\),"lines_lost":\([0-9]*\),"bytes_lost":\([0-9]*\).*/\1 \2 \3/p'
}
pfrows() {	# pfrows: "saved lost bytes|..." of both jobs from the CSV
	local j
	for j in w__power-fail-at=500 w__power-fail-at=2000; do
		echo "$(pfcsv power_fail_lines_saved "$j") $(pfcsv power_fail_lines_lost "$j") $(pfcsv power_fail_bytes_lost "$j")"
	done | paste -sd'|'
}
check "--merge: the power failure's lines kept and lost, as the JSON has them" \
	"$(pfjson w__power-fail-at=500)|$(pfjson w__power-fail-at=2000)" "$(pfrows)"
check "a volatile cache of 16 lines loses dirty lines, at most 16" 1 \
	"$(pfcsv power_fail_lines_lost w__power-fail-at=2000 | awk '{ print ($1 > 0 && $1 <= 16) }')"
check "--merge: no power-failure columns without --power-fail-at" 0 \
	"$(head -n 1 "$tmp/local/results.csv" | grep -c power_fail)"
# The discards (JSON "discards": records, lines, dirty) are the last three
# columns, after the power failure's; a trace with D records fills them.
last4() {	# last4 CSV: the last four columns of its header
	head -n 1 "$1" | awk -F, '{ print $(NF - 3) "," $(NF - 2) "," $(NF - 1) "," $NF }'
}
check "--merge: the discard columns come last" \
	"power_fail_bytes_lost,discard_records,discards,dirty_discards|mshr_waits,discard_records,discards,dirty_discards" \
	"$(last4 "$tmp/pf/results.csv")|$(last4 "$tmp/local/results.csv")"
printf 'W 0\nR 1\nR 2\nR 3\nD 0\nR 4\nD 1\nR 1\nR 0\n' >"$tmp/grid/disc.txt"
cat >"$tmp/grid/disc.ini" <<'EOF'
[traces]
d = disc.txt
[params]
capacity   = 1M
cache-size = 16K
policy     = fifo,lru
EOF
"$sim" sweep --out "$tmp/disc" "$tmp/grid/disc.ini" >/dev/null 2>&1 &&
	"$sim" sweep --merge "$tmp/disc" --no-plot >/dev/null 2>&1
check "--merge: the discard columns are the JSON's (2 records, 2 lines, 1 dirty)" \
	"2,2,1|2,2,1" \
	"$(awk -F, 'NR > 1 { print $(NF - 2) "," $(NF - 1) "," $NF }' "$tmp/disc/results.csv" | paste -sd'|')"
bad "scatter not a power of two" "[traces] t: scatter is not a power of two from pages to 2^32" \
	'[traces]' 't = uniform pages=64 accesses=100 scatter=96' '[params]' 'policy = fifo'
bad "scatter below pages" "[traces] t: scatter is not a power of two from pages to 2^32" \
	'[traces]' 't = uniform pages=64 accesses=100 scatter=32' '[params]' 'policy = fifo'

# scatter: the same working set, contiguous and scattered over 2^16 pages,
# in a direct-mapped cache of twice its size. Contiguous pages fill distinct
# sets (page % sets) and never miss once warm; scattered ones conflict.
printf '%s\n' '[traces]' 'c = uniform pages=512 accesses=20000' \
	's = uniform pages=512 accesses=20000 scatter=65536' \
	'[params]' 'capacity = 256M' 'cache-size = 4M' 'ways = 1' 'policy = lru' \
	'warmup = 50%' >"$tmp/grid/scatter.ini"
"$sim" sweep --out "$tmp/scatter" "$tmp/grid/scatter.ini" >/dev/null 2>&1 &&
	"$sim" sweep --merge "$tmp/scatter" --no-plot >/dev/null 2>&1
m=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "misses") c = i; next }
	{ printf "%s%s", (NR > 2 ? " " : ""), ($c > 500 ? "many" : $c) }' "$tmp/scatter/results.csv" 2>/dev/null)
check "scatter: a direct-mapped cache of 2x the working set: no misses contiguous, many scattered" "0 many" "$m"

# --- GNU parallel ----------------------------------------------------------
if command -v parallel >/dev/null; then
	"$sim" sweep --run parallel -j 2 --out "$tmp/par" "$tmp/grid/small.ini" \
		>"$tmp/out" 2>&1
	check "parallel: exit 0" 0 "$?"
	same_results "parallel: every job's JSON = the local run's" "$tmp/local" "$tmp/par"
else
	not_ok "parallel: GNU parallel not installed (make deps)"
	not_ok "parallel: every job's JSON = the local run's"
fi

# --- Slurm -----------------------------------------------------------------
# free_port: a TCP port nobody listens on, from this shell's pid.
free_port() {
	local p=$(( 20000 + ($$ * 7 + $1) % 20000 ))
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
		p=$((p + 1))
	done
	echo $p
}

# slurm_up: munged, slurmctld and slurmd in $tmp/slurm; 0 when the node is idle.
slurm_up() {
	local d=$tmp/slurm i state
	mkdir -p "$d/munge" "$d/run" "$d/state" "$d/spool" "$d/log"
	chmod 700 "$d/munge"
	chmod 755 "$d" "$d/run"
	head -c 1024 /dev/urandom >"$d/munge/munge.key"
	chmod 400 "$d/munge/munge.key"
	munged -F --key-file="$d/munge/munge.key" --socket="$d/run/munge.sock" \
		--pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" \
		--seed-file="$d/munge/seed" >"$d/log/munged.out" 2>&1 &
	pids+=($!)
	cat >"$d/slurm.conf" <<EOF
ClusterName=cxdsweep
SlurmctldHost=localhost
SlurmUser=$(id -un)
SlurmctldPort=$(free_port 0)
SlurmdPort=$(free_port 1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/run/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# Start the next tasks as soon as two finish, not seconds later.
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
NodeName=cxdsweep1 NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc)
PartitionName=sweep Nodes=cxdsweep1 Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$d/slurm.conf
	for i in $(seq 50); do
		[ -S "$d/run/munge.sock" ] && break
		sleep 0.1
	done
	slurmctld -D -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
	pids+=($!)
	slurmd -D -N cxdsweep1 -f "$SLURM_CONF" >"$d/log/slurmd.out" 2>&1 &
	pids+=($!)
	for i in $(seq 100); do
		state=$(sinfo -h -N -o %T 2>/dev/null)
		[ "$state" = idle ] && return 0
		sleep 0.2
	done
	return 1
}

# slurm_logs: the daemons' last lines, for a failure
slurm_logs() {
	tail -n 5 "$tmp"/slurm/log/* 2>/dev/null
}

missing=
for c in munged slurmctld slurmd sbatch sinfo; do
	command -v $c >/dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
	for i in 1 2 3 4 5; do
		not_ok "slurm: not installed:$missing (make deps)"
	done
elif ! slurm_up; then
	for i in 1 2 3 4 5; do
		not_ok "slurm: the one-node cluster did not come up" "$(slurm_logs)"
	done
else
	ok "slurm: munged, slurmctld and slurmd up, the node idle"
	t0=$(date +%s%N)
	"$sim" sweep --run slurm --wait --time 5 --out "$tmp/slurm-out" \
		"$tmp/grid/small.ini" >"$tmp/out" 2>&1
	rc=$?
	echo "# slurm sweep (submit, 8 array tasks, wait): $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	if [ $rc = 0 ]; then
		ok "slurm --wait: exit 0"
	else
		not_ok "slurm --wait: exit 0" "exit $rc: $(cat "$tmp/out"; slurm_logs)"
	fi
	check "slurm: one array task per job" 8 \
		"$(find "$tmp/slurm-out/logs" -name 'slurm-*_*.out' | wc -l)"
	same_results "slurm: every job's JSON = the local run's" "$tmp/local" "$tmp/slurm-out"
	"$sim" sweep --merge "$tmp/slurm-out" --no-plot >"$tmp/out" 2>&1
	if cmp -s "$tmp/local/results.csv" "$tmp/slurm-out/results.csv"; then
		ok "slurm: --merge gives the local run's CSV"
	else
		not_ok "slurm: --merge gives the local run's CSV" "$(cat "$tmp/out")"
	fi
fi

[ "$fails" -eq 0 ]
