#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation run over the device model (make mutation; docs/testing.md).
#
# Each line of the mutant list (tests/mutation/mutants, see its header) is
# one deliberate bug: a sed expression applied to one file of
# driver/model/. For every mutant, on a scratch copy of the tree (the
# worktree itself is never modified): restore the pristine sources, apply
# the expression, check that it changed the file, rebuild the model library
# and relink the unit tests, run them, and if they all pass build the tools
# and run their tests too (the host tests of make unit: tests/unit/test_*,
# then tests/tools/*.sh), stopping at the first failure.
# A mutant is killed when a test fails or times out, and survives when they
# all pass. A mutant that does not apply (the code it names is gone) or does
# not compile is an error in the list: the run fails, whatever the score.
#
# Usage: tests/mutation/run.sh [-l LIST] [-m MIN_PCT] [-k] [-n] [NAME_REGEX]
#   -l LIST      mutant list (default: tests/mutation/mutants)
#   -m MIN_PCT   fail below this mutation score in % (default 95)
#   -k           keep the scratch directory (its path is printed)
#   -n           check the unmutated scratch copy against the unit tests
#                only, not also the tools' tests (about a minute less;
#                make check passes it, having just run make unit)
#   NAME_REGEX   run only the mutants whose name matches (grep -E); the
#                score then covers those only and MIN_PCT still applies
#
# Environment: MUTATION_TIMEOUT seconds per tools test (default 60),
# MUTATION_UNIT_TIMEOUT seconds per unit test program (default 10; each
# takes under a second, so a mutant that loops is killed soon), TMPDIR for
# the scratch copy, MUTATION_JOBS mutants at a time (default: the number
# of CPUs).
#
# Exit status: 0 score >= MIN_PCT and no list error, 1 score below, 2 list
# error (bad line, mutant not applying or not compiling) or the unmutated
# tree failing its own tests.

set -u

# The whole script is this function (not indented), so that bash parses it
# completely before running: editing the file during a run is safe.
main() {
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LIST=$TOP/tests/mutation/mutants
MIN_PCT=95
KEEP=0
TIMEOUT=${MUTATION_TIMEOUT:-60}
UNIT_TIMEOUT=${MUTATION_UNIT_TIMEOUT:-10}
JOBS=${MUTATION_JOBS:-$(nproc)}
BASE_TOOLS=1

while getopts "l:m:knh" opt; do
	case "$opt" in
	l) LIST=$OPTARG ;;
	m) MIN_PCT=$OPTARG ;;
	k) KEEP=1 ;;
	n) BASE_TOOLS=0 ;;
	h) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
FILTER=${1-}
case "$JOBS" in
''|*[!0-9]*|0) echo "mutation: MUTATION_JOBS wants a positive number, got '$JOBS'" >&2; exit 2 ;;
esac
case "$MIN_PCT" in
''|*[!0-9]*) echo "mutation: -m wants a whole percentage, got '$MIN_PCT'" >&2; exit 2 ;;
esac
[ -r "$LIST" ] || { echo "mutation: cannot read the list $LIST" >&2; exit 2; }
LIST=$(cd "$(dirname "$LIST")" && pwd)/$(basename "$LIST")

# ---------------------------------------------------------- parse the list --
names=() files=() exprs=() descs=() seen=" "
lineno=0
bad=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case "$line" in ''|'#'*) continue ;; esac
	IFS=$'\t' read -r name file expr desc extra <<<"$line"
	if [ -z "${desc-}" ] || [ -n "${extra-}" ] || [ -z "$expr" ]; then
		echo "mutation: $LIST:$lineno: want 4 tab-separated fields (name, file, sed expression, description)" >&2
		bad=1
		continue
	fi
	case "$file" in
	driver/model/*.c | driver/model/*.h) ;;
	*) echo "mutation: $LIST:$lineno: $file is not a model source (driver/model/*.[ch])" >&2
	   bad=1; continue ;;
	esac
	if [ ! -f "$TOP/$file" ]; then
		echo "mutation: $LIST:$lineno: no file $file" >&2
		bad=1
		continue
	fi
	case "$seen" in
	*" $name "*) echo "mutation: $LIST:$lineno: duplicate name $name" >&2; bad=1 ;;
	esac
	seen="$seen$name "
	if [ -n "$FILTER" ] && ! grep -qE -- "$FILTER" <<<"$name"; then
		continue
	fi
	names+=("$name") files+=("$file") exprs+=("$expr") descs+=("$desc")
done <"$LIST"
[ "$bad" = 0 ] || exit 2
total=${#names[@]}
[ "$total" -gt 0 ] || { echo "mutation: no mutant selected" >&2; exit 2; }

# ----------------------------------------------------------- scratch copy --
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cxdvirt-mutation.XXXXXX")
if [ "$KEEP" = 1 ]; then
	echo "mutation: scratch copy kept in $SCRATCH"
else
	trap 'rm -rf "$SCRATCH"' EXIT
fi
W=$SCRATCH/tree
mkdir -p "$W/tests" "$W/driver" "$SCRATCH/orig"
# What make unit needs, without built objects of the worktree: the model
# and tools, and what the tools' tests read (the man pages against the
# module's sources, the install test against the module's files).
cp -r "$TOP/Makefile" "$TOP/Kbuild" "$TOP/LICENSE" "$TOP/include" "$TOP/tools" \
	"$TOP/docs" "$TOP/hotplug" "$W/"
[ -f "$TOP/dkms.conf" ] && cp "$TOP/dkms.conf" "$W/"
find "$TOP/driver" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) \
	-exec cp {} "$W/driver/" \;
cp -r "$TOP/driver/model" "$W/driver/"
rm -f "$W"/driver/model/*.o "$W"/driver/model/.*.cmd "$W"/hotplug/*.o "$W"/hotplug/.*.cmd
cp -r "$TOP/tests/unit" "$TOP/tests/tools" "$W/tests/"
# test-sweep-grid.sh runs tools/bench/sweep.sh --list, which sources it.
mkdir -p "$W/tests/vm"
cp "$TOP/tests/vm/lib.sh" "$W/tests/vm/"
rm -rf "$W/tools/obj" "$W/tools/libcxdmodel.a" "$W/tests/unit/build"
rm -f "$W/tools/cxdvirt-dev" "$W/tools/cxdvirt-bench" "$W/tools/cxdvirt-sim"
cp "$W"/driver/model/*.[ch] "$SCRATCH/orig/"

LOG=$SCRATCH/log
UNIT_TESTS=$(cd "$W/tests/unit" && ls test_*.c | sed 's/^/build\//; s/\.c$//')
# The model library; each unit test program is linked just before it runs
# (most mutants die in the first one or two, and linking all of them for
# every mutant took most of the run); the tools only when the unit tests
# passed (they take longest to link).
build_lib() {
	make -C "$W" -s tools/libcxdmodel.a >"$LOG" 2>&1
}
build_unit() {
	build_lib && make -C "$W/tests/unit" -s $UNIT_TESTS >>"$LOG" 2>&1
}
build_tools() {
	make -C "$W" -s tools >"$LOG" 2>&1
}

# first_failure SECONDS PROGRAM...: run it for at most SECONDS; 0 if it
# passes, else 1 with $KILLER naming it (and its first failing test).
KILLER=
first_failure() {
	local rc first secs=$1
	shift
	CMOCKA_MESSAGE_OUTPUT=TAP timeout "$secs" "$@" >"$LOG" 2>&1
	rc=$?
	[ "$rc" = 0 ] && return 0
	first=$(grep -m 1 '^not ok' "$LOG" | sed 's/^not ok [0-9]* - //')
	KILLER="$(basename "${@: -1}")${first:+: $first}"
	[ "$rc" = 124 ] && KILLER="$(basename "${@: -1}"): timeout ${secs}s"
	return 1
}
# run_unit [ORDER...]: link and run the unit tests in ORDER (default: all,
# by name), stopping at the first failure: 1 with $KILLER set, or 2 with
# $LINKERR set when a test program does not link.
LINKERR=
run_unit() {
	local t list=("$@")
	# shellcheck disable=SC2206 # a list of file names without blanks
	[ $# -gt 0 ] || list=($UNIT_TESTS)
	for t in "${list[@]}"; do
		if ! make -C "$W/tests/unit" -s "$t" >"$LOG" 2>&1; then
			LINKERR="$t: $(grep -m 1 'error' "$LOG")"
			return 2
		fi
		first_failure "$UNIT_TIMEOUT" "$W/tests/unit/$t" || return 1
	done
}
# One worker at a time: the tools' tests (the Slurm sweep test among them)
# are not written to run beside themselves.
run_tools() {
	local t fd rc=0
	exec {fd}>"$SCRATCH/tools.lock"
	flock "$fd"
	for t in "$W"/tests/tools/*.sh; do
		first_failure "$TIMEOUT" bash "$t" || { rc=1; break; }
	done
	exec {fd}>&-
	return $rc
}

start=$(date +%s)
echo "mutation: $total mutants of driver/model/ from ${LIST#"$TOP"/}; scratch copy $W"
if ! build_unit || { [ "$BASE_TOOLS" = 1 ] && ! build_tools; }; then
	echo "mutation: the unmutated tree does not build:" >&2
	tail -n 20 "$LOG" >&2
	exit 2
fi
if ! run_unit || { [ "$BASE_TOOLS" = 1 ] && ! run_tools; }; then
	echo "mutation: the unmutated tree fails its own tests ($KILLER)" >&2
	tail -n 20 "$LOG" >&2
	exit 2
fi

# -------------------------------------------------------------- the run --
# run_range FROM TO RESULTS: mutants FROM..TO-1 (indices) on the tree $W,
# one line each on stdout; RESULTS gets "killed", "error" or
# "survived<TAB>name<TAB>description" per mutant.
run_range() {
	local i name file base rc k
	local -A order=()
	for ((i = $1; i < $2; i++)); do
		name=${names[$i]} file=${files[$i]}
		base=$(basename "$file")
		# Restore every model source (fresh mtimes: make rebuilds what
		# a previous mutant changed), then mutate one.
		for f in "$SCRATCH"/orig/*.[ch]; do
			cmp -s "$f" "$W/driver/model/$(basename "$f")" ||
				cp "$f" "$W/driver/model/$(basename "$f")"
		done
		if ! sed -e "${exprs[$i]}" "$SCRATCH/orig/$base" >"$W/$file" 2>"$LOG"; then
			printf '%3d/%d %-28s ERROR: bad sed expression: %s\n' $((i + 1)) "$total" "$name" "$(head -n 1 "$LOG")"
			echo error >>"$3"
			continue
		fi
		if cmp -s "$SCRATCH/orig/$base" "$W/$file"; then
			printf '%3d/%d %-28s ERROR: does not apply (nothing in %s matches)\n' $((i + 1)) "$total" "$name" "$file"
			echo error >>"$3"
			continue
		fi
		if ! build_lib; then
			printf '%3d/%d %-28s ERROR: does not compile: %s\n' $((i + 1)) "$total" "$name" \
				"$(grep -m 1 'error' "$LOG")"
			echo error >>"$3"
			continue
		fi
		# The unit tests, the one that last killed a mutant of this
		# file first (move to front): the verdict is the same, the run
		# shorter.
		# shellcheck disable=SC2086 # order[] holds a list of test names
		run_unit ${order[$base]:-$UNIT_TESTS}
		rc=$?
		if [ "$rc" = 2 ]; then
			printf '%3d/%d %-28s ERROR: does not link: %s\n' $((i + 1)) "$total" "$name" "$LINKERR"
			echo error >>"$3"
			continue
		fi
		if [ "$rc" = 0 ]; then
			if ! build_tools; then
				printf '%3d/%d %-28s ERROR: the tools do not build: %s\n' $((i + 1)) "$total" \
					"$name" "$(grep -m 1 'error' "$LOG")"
				echo error >>"$3"
				continue
			fi
			if run_tools; then
				printf '%3d/%d %-28s SURVIVED  %s\n' $((i + 1)) "$total" "$name" "${descs[$i]}"
				printf 'survived\t%s\t%s\n' "$name" "${descs[$i]}" >>"$3"
				continue
			fi
		else
			k=build/${KILLER%%:*}
			order[$base]="$k $(tr ' ' '\n' <<<"${order[$base]:-$UNIT_TESTS}" | grep -vx -- "$k" | tr '\n' ' ')"
		fi
		printf '%3d/%d %-28s killed by %s\n' $((i + 1)) "$total" "$name" "$KILLER"
		echo killed >>"$3"
	done
}

# JOBS workers, each on its own copy of the built tree, with a contiguous
# share of the list (mutants of one file stay together, for the order
# above). The lines come as the mutants finish, so not in list order.
[ "$JOBS" -le "$total" ] || JOBS=$total
pids=()
for ((w = 0; w < JOBS; w++)); do
	if [ "$w" -gt 0 ]; then
		cp -a "$SCRATCH/tree" "$SCRATCH/tree$w"
	fi
	(
		[ "$w" = 0 ] || W=$SCRATCH/tree$w
		LOG=$SCRATCH/log$w
		: >"$SCRATCH/results$w"
		run_range $((w * total / JOBS)) $(((w + 1) * total / JOBS)) "$SCRATCH/results$w"
	) &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || { echo "mutation: a worker failed" >&2; exit 2; }
done
for f in "$SCRATCH"/orig/*.[ch]; do cp "$f" "$W/driver/model/"; done
killed=$(cat "$SCRATCH"/results* | grep -cx killed)
errors=$(cat "$SCRATCH"/results* | grep -cx error)
mapfile -t survivors < <(cat "$SCRATCH"/results* | sed -n 's/^survived\t//p')
[ $((killed + errors + ${#survivors[@]})) = "$total" ] ||
	{ echo "mutation: the workers reported $((killed + errors + ${#survivors[@]})) of $total mutants" >&2; exit 2; }

elapsed=$(($(date +%s) - start))
valid=$((total - errors))
score=0
[ "$valid" -gt 0 ] && score=$((100 * killed / valid))
echo
echo "mutation score: $killed/$valid killed = $score% (minimum $MIN_PCT%), ${elapsed}s"
if [ "${#survivors[@]}" -gt 0 ]; then
	echo "survivors:"
	printf '  %s\n' "${survivors[@]}"
fi
if [ "$errors" -gt 0 ]; then
	echo "mutation: $errors mutants do not apply or do not compile: fix the list" >&2
	exit 2
fi
# integer comparison of killed/valid against MIN_PCT without rounding up
[ $((100 * killed)) -ge $((MIN_PCT * valid)) ] || exit 1
exit 0
}

main "$@"
