#!/bin/sh
# The nodelet-mockapi program itself: --help/--version, flag errors, the
# ready line, --kubeconfig-out (mode 0600), bad fixtures refused at start,
# and a clean exit (status 0) on SIGTERM and SIGINT.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
FIXTURES=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

"$MOCKAPI" --help >"$work/help" 2>&1 || fail "--help exit status"
grep -q -- "--kubeconfig-out" "$work/help" || fail "--help does not list flags"
"$MOCKAPI" --version | grep -q "v1.32" || fail "--version"
"$MOCKAPI" --port nope >/dev/null 2>"$work/err"; [ $? -eq 2 ] || fail "bad --port must exit 2"
grep -q 'invalid value "nope" for --port' "$work/err" || fail "bad --port message"
"$MOCKAPI" --no-such-flag >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown flag must exit 2"

# A fixture the API would refuse is refused at start, with the server's message.
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n' >"$work/bad.yaml"
"$MOCKAPI" --port 0 --fixtures "$work/bad.yaml" >/dev/null 2>"$work/err"
[ $? -eq 1 ] || fail "invalid fixture must exit 1"
# cli.Run's line for an error after logging started; the message %q-quoted.
grep -q '^E[0-9]\{4\} .*] "command failed" err=".*ConfigMap \\"Bad_Name\\" is invalid' "$work/err" ||
	{ cat "$work/err"; fail "invalid fixture message"; }
"$MOCKAPI" --port 0 --fixtures "$work/missing.yaml" >/dev/null 2>"$work/err"
[ $? -eq 1 ] || fail "missing fixture must exit 1"

start() {
	: >"$work/out"
	"$MOCKAPI" --port 0 --fixtures "$FIXTURES/manifests/sample.yaml" \
		--kubeconfig-out "$work/kubeconfig" >"$work/out" 2>"$work/log" &
	pid=$!
	for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && return 0; sleep 0.05; done
	cat "$work/log"
	fail "server did not print its URL"
}

stop_with() {
	kill -"$1" "$pid"
	wait "$pid"
	rc=$?
	pid=
	[ "$rc" -eq 0 ] || fail "exit status $rc after SIG$1"
}

start
grep -q "^nodelet-mockapi listening on http://127.0.0.1:[0-9][0-9]*$" "$work/out" || fail "ready line"
[ "$(stat -c %a "$work/kubeconfig")" = 600 ] || fail "kubeconfig must be mode 0600"
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/out")
grep -q "server: $url" "$work/kubeconfig" || fail "kubeconfig points elsewhere"
stop_with TERM
start
stop_with INT
echo "PASS: nodelet-mockapi flags, ready line, kubeconfig-out, fixture errors and signals"
