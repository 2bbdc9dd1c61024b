#!/bin/sh
# The fixture scenario suite (fixtures/scenarios/) on the embedded server
# and virtual time, as `make check` runs it; then the same suite again to
# show runs are deterministic (the same journal of agent requests, request
# by request and time by time), and a malformed file rejected with FILE:LINE
# instead of a crash.
set -u

RUNNER=${NL_SCENARIO:-./client/nodelet-scenario}
FIXTURES=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
fail() {
	echo "FAIL: $*"
	exit 1
}

mkdir "$work/j1" "$work/j2"
"$RUNNER" -j 4 --fixtures-dir "$FIXTURES" --journal-dir "$work/j1" --junit "$work/junit.xml" \
	"$FIXTURES/scenarios" >"$work/tap" 2>"$work/err"
rc=$?
cat "$work/tap"
[ "$rc" -eq 0 ] || { cat "$work/err"; fail "scenarios failed (exit $rc)"; }
summary=$(tail -1 "$work/tap")
case "$summary" in *" passed, 0 failed, 0 skipped") ;; *) fail "unexpected summary: $summary" ;; esac
grep -q '<testcase classname=' "$work/junit.xml" || fail "no JUnit report"
# Each says where it ran: all on the embedded server, on virtual time.
[ "$(grep -c '^# ran [^:]*: target=embedded clock=virtual$' "$work/tap")" -eq "${summary%% passed*}" ] ||
	fail "not every scenario says it ran on the embedded server"

# Determinism: another run, other parallelism, the same journals.
"$RUNNER" -j 2 --fixtures-dir "$FIXTURES" --journal-dir "$work/j2" "$FIXTURES/scenarios" \
	>"$work/tap2" 2>&1 || fail "second run failed"
[ "$(ls "$work/j1" | wc -l)" -ge 20 ] || fail "too few journals written"
# A scenario that ran a program (run: with a command) is on real time; its
# journal says so on its first line and is left out.
for f in "$work/j1"/*; do
	b=$(basename "$f")
	head -1 "$f" | grep -q '^# real time:' && continue
	diff "$f" "$work/j2/$b" || fail "the same scenarios sent different requests ($b)"
done

# A scenario docs/scenarios.md shows as a file (after a line
# `<!-- the file PATH -->`) is that file, word for word.
docs=$FIXTURES/../docs/scenarios.md
files=$(sed -n 's/^<!-- the file \(.*\) -->$/\1/p' "$docs")
[ -n "$files" ] || fail "docs/scenarios.md shows no scenario file"
for f in $files; do
	awk -v want="<!-- the file $f -->" '
		$0 == want { found = 1; next }
		found == 1 && /^```yaml$/ { found = 2; next }
		found == 2 && /^```$/ { exit }
		found == 2 { print }
	' "$docs" >"$work/shown.yaml"
	diff "$FIXTURES/${f#fixtures/}" "$work/shown.yaml" ||
		fail "docs/scenarios.md shows $f otherwise than it is"
done

# A malformed scenario: rejected with the file and line, exit status 1.
printf 'name: broken\nsteps:\n  - sync: leese\n' >"$work/broken.yaml"
"$RUNNER" "$work/broken.yaml" >"$work/out" 2>&1
rc=$?
cat "$work/out"
[ "$rc" -eq 1 ] || fail "a malformed scenario gave exit status $rc"
grep -q "broken.yaml:3:5: steps\[0\].sync: " "$work/out" || fail "no FILE:LINE:COL for a malformed scenario"
grep -q "^0 passed, 1 failed, 0 skipped$" "$work/out" || fail "no closing line"
# A scenario that hangs (a watch the server stalls) is killed at its
# timeout, the others still run, and the report says where it was.
cat >"$work/hangs.yaml" <<'YAML'
name: hangs
timeout: 1s
steps:
  - fault: {match: {verb: watch, userAgent: nodelet-scenario}, action: {watch: {stall: true}}}
  - watch: {kind: ConfigMap, namespace: default, timeoutSeconds: 60}
YAML
"$RUNNER" --fixtures-dir "$FIXTURES" "$work/hangs.yaml" "$FIXTURES/scenarios/mock/conflict.yaml" \
	>"$work/out" 2>&1
cat "$work/out"
grep -q "timed out after 1s in steps\[1\] (.*hangs.yaml:5)" "$work/out" || fail "no timeout report"
grep -q "^1 passed, 1 failed, 0 skipped$" "$work/out" || fail "the other scenario did not run"
echo "PASS: $summary, deterministic"
