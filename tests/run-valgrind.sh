#!/bin/sh
# Run every test program of a built tree under valgrind memcheck: any error
# or definite/indirect leak fails. Usage: tests/run-valgrind.sh BUILDDIR
set -u
b=${1:-.}
src=$(cd "$(dirname "$0")/.." && pwd)
status=0
# The soak programs run on a real-time budget: a short one here, where
# everything is some 50 times slower (they always finish one fault window).
NL_SOAK_SECONDS=${NL_SOAK_SECONDS:-2}
export NL_SOAK_SECONDS
for t in "$b"/tests/unit/test_* "$b"/tests/integration/test_* "$b"/tests/soak/soak_*; do
	case "$t" in *.c|*.h|*.o|*.log|*.trs) continue ;; esac
	[ -x "$t" ] || continue
	echo "valgrind: $t"
	if ! NL_FIXTURES_DIR="$src/fixtures" valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--suppressions="$src/tests/valgrind.supp" "$t" >"$t.valgrind.log" 2>&1; then
		echo "FAILED under valgrind: $t"
		cat "$t.valgrind.log"
		status=1
	else
		grep -E "Run Summary|tests  |asserts|: passed [(]" "$t.valgrind.log" | head -3
	fi
done
exit $status
