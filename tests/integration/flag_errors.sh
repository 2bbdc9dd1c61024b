#!/bin/sh
# Loud failures of the three programs: a flag or output problem exits
# non-zero with one line naming it and a pointer to --help (as kubectl's
# and the components' pflag errors do), before any work is done; klog's
# -v=N / --v=N spellings are accepted by all three.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
RUNNER=${NL_SCENARIO:-./client/nodelet-scenario}
FIXTURES=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() {
	echo "FAIL: $*"
	[ -f "$work/err" ] && sed 's/^/  stderr: /' "$work/err"
	exit 1
}

# expect_usage STATUS LINE PROGRAM ARGS...: exit STATUS, stderr exactly LINE
# and the --help pointer, nothing on stdout.
expect_usage() {
	want=$1 line=$2 prog=$3
	shift 3
	"$prog" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	name=$(basename "$prog")
	[ "$rc" -eq "$want" ] || fail "$name $*: exit $rc, want $want"
	printf '%s\nRun '\''%s --help'\'' for usage.\n' "$line" "$name" >"$work/want"
	cmp -s "$work/want" "$work/err" || fail "$name $*: stderr is not one line + the --help pointer"
	[ ! -s "$work/out" ] || fail "$name $*: wrote to stdout"
}

for p in "$MOCKAPI" "$NODELET" "$RUNNER"; do
	n=$(basename "$p")
	expect_usage 2 "$n: unknown flag: --no-such-flag" "$p" --no-such-flag
	expect_usage 2 "$n: unknown shorthand flag: 'Z' in -Z" "$p" -Z
	expect_usage 2 "$n: flag needs an argument: --v" "$p" --v
done

# The scenario runner's outputs are checked before anything runs.
sc="$FIXTURES/scenarios/lease"
expect_usage 2 "nodelet-scenario: --junit $work/no/dir/j.xml: No such file or directory" \
	"$RUNNER" --junit "$work/no/dir/j.xml" "$sc"
expect_usage 2 "nodelet-scenario: --html $work/no/dir/r.html: No such file or directory" \
	"$RUNNER" --html "$work/no/dir/r.html" "$sc"
expect_usage 2 "nodelet-scenario: --journal-dir $work/missing: No such file or directory" \
	"$RUNNER" --journal-dir "$work/missing" "$sc"
: >"$work/plain"
expect_usage 2 "nodelet-scenario: --journal-dir $work/plain: Not a directory" \
	"$RUNNER" --journal-dir "$work/plain" "$sc"
expect_usage 2 "nodelet-scenario: no scenario matches --filter no-such-scenario-*" \
	"$RUNNER" --filter 'no-such-scenario-*' "$sc"
mkdir "$work/empty"
expect_usage 2 "nodelet-scenario: no scenario found in $work/empty" "$RUNNER" "$work/empty"

# An output that fails while being written (a full disk) fails the run.
one=$(ls "$sc"/*.yaml | head -1)
"$RUNNER" --junit /dev/full "$one" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 1 ] || fail "--junit /dev/full: exit $rc, want 1"
grep -q "^nodelet-scenario: --junit /dev/full: No space left on device$" "$work/err" ||
	fail "--junit /dev/full: no line naming the problem"

# klog's verbosity spellings: -v=N, --v=N, -v N, --v N.
for v in -v=3 --v=3; do
	"$RUNNER" "$v" --check "$one" >"$work/out" 2>"$work/err" || fail "nodelet-scenario $v refused"
	"$NODELET" "$v" --help >"$work/out" 2>"$work/err" || fail "nodelet $v refused"
	"$MOCKAPI" "$v" --port 0 >"$work/out" 2>"$work/err" &
	pid=$!
	for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
	grep -q "listening on" "$work/out" || fail "nodelet-mockapi $v did not start"
	kill "$pid"
	wait "$pid" || fail "nodelet-mockapi $v: exit status $? after SIGTERM"
	pid=
done
expect_usage 2 'nodelet-mockapi: invalid value "=x" for -v' "$MOCKAPI" -v=x
# --logging-format: component-base's two names, its validation error.
for p in "$MOCKAPI" "$NODELET" "$RUNNER"; do
	n=$(basename "$p")
	expect_usage 2 "$n: format: Invalid value: \"xml\": Unsupported log format" \
		"$p" --logging-format xml
	expect_usage 2 "$n: format: Invalid value: \"JSON\": Unsupported log format" \
		"$p" --logging-format=JSON
done
echo "PASS: flag and output problems exit non-zero with one line; -v=N and --v=N accepted"
