# SPDX-License-Identifier: GPL-2.0
# TAP for the host tool tests (sourced by test-sim, test-sweep, test-lane, test-bench-report,
# test-sweep-grid, test-cmmh, test-fidelity and test-wl):
# ok DESCRIPTION passes a test, not_ok DESCRIPTION [DETAIL] fails one and
# shows the first 20 lines of DETAIL; n counts the tests, fails the
# failures. The caller prints the plan and exits with [ "$fails" -eq 0 ].
# shellcheck shell=bash

n=0
fails=0

ok() {	# ok DESCRIPTION: pass
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {	# not_ok DESCRIPTION [DETAIL]
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	[ -n "${2-}" ] && printf '# %s\n' "$2" | head -n 20
}
