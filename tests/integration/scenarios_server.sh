#!/bin/sh
# The scenario suite with --server against a nodelet-mockapi process: faults
# and the journal through its control API, the agent on virtual time, the
# server reset before each scenario. Scenarios that need the embedded server
# (its controllers on virtual time, restartServer, server settings) are
# skipped with the reason; the rest must pass.
set -u

RUNNER=${NL_SCENARIO:-./client/nodelet-scenario}
. "$(dirname "$0")/../mockapi-lib.sh"
fail() {
	echo "FAIL: $*"
	exit 1
}

start_mockapi

rc=0
"$RUNNER" --server "$url" --fixtures-dir "$FIXTURES" "$FIXTURES/scenarios" >"$work/tap" 2>&1 || rc=$?
cat "$work/tap"
[ "$rc" -eq 0 ] || fail "scenarios failed against $url (exit $rc)"
grep -q "# SKIP requires .*embedded (not available with --server)" "$work/tap" ||
	fail "no scenario was skipped for needing the embedded server"
summary=$(tail -1 "$work/tap")
passed=${summary%% passed*}
[ "$passed" -ge 20 ] || fail "only $passed scenarios passed with --server"
# The agent's clock is virtual on a running server.
[ "$(grep -c '^# ran [^:]*: target=server clock=virtual$' "$work/tap")" -eq "$passed" ] ||
	fail "not every scenario says it ran on the server, on virtual time"
echo "PASS: $summary against $url"
