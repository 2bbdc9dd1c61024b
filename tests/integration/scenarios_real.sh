#!/bin/sh
# The scenario suite in real-cluster mode (--kubeconfig, real time) against
# nodelet-mockapi started as a separate process over HTTPS with a client
# certificate: the code path a real cluster takes. The agent's requests
# come from the runner's client-side journal. Scenarios that need faults,
# the server's journal (a program's requests), virtual time or
# nodelet-mockapi's own behaviour are skipped with the reason; the rest must pass, and every object they
# created must be gone afterwards. Skips (77) when the mock has no TLS.
set -u

RUNNER=${NL_SCENARIO:-./client/nodelet-scenario}
. "$(dirname "$0")/../mockapi-lib.sh"
fail() {
	echo "FAIL: $*"
	[ -f "$work/tap" ] && cat "$work/tap"
	[ -f "$work/server.err" ] && tail -20 "$work/server.err"
	exit 1
}

"$MOCKAPI" --help 2>&1 | grep -q -- --generate-certs ||
	{ echo "SKIP: nodelet-mockapi has no TLS support (--generate-certs)"; exit 77; }

start_mockapi --generate-certs "$work/pki" --kubeconfig-out "$work/kubeconfig"
case "$url" in https://*) ;; *) fail "not HTTPS: $url" ;; esac
grep -q "client-key-data" "$work/kubeconfig" || fail "no client certificate in the kubeconfig"

# Every object's kind, namespace and name, through the control API with the
# generated admin certificate (curl when there is one).
objects() {
	command -v curl >/dev/null 2>&1 || return 0
	curl -sf --cacert "$work/pki/ca.crt" --cert "$work/pki/client.crt" \
		--key "$work/pki/client.key" "$url/mockapi/v1/objects" |
		grep -o '"kind":"[A-Za-z]*","apiVersion":"[^"]*","metadata":{"name":"[^"]*"\(,"namespace":"[^"]*"\)\?' |
		sort
}
objects >"$work/before"

rc=0
mkdir "$work/journals"
"$RUNNER" --kubeconfig "$work/kubeconfig" --junit "$work/junit.xml" -j 2 \
	--journal-dir "$work/journals" \
	--fixtures-dir "$FIXTURES" "$FIXTURES/scenarios" >"$work/tap" 2>"$work/runner.err" || rc=$?
cat "$work/tap"
[ "$rc" -eq 0 ] || fail "scenarios failed against $url (exit $rc)"

summary=$(tail -1 "$work/tap")
passed=${summary%% passed*}
[ "$passed" -ge 9 ] || fail "only $passed scenarios ran against the cluster"
# expect: requests about the agent's own requests holds on a cluster too:
# the runner's client-side journal has them, on real time.
grep -q "^ok [0-9]* - lease-retry-update-node-not-found$" "$work/tap" ||
	fail "the agent's requests were not checked against the cluster"
j="$work/journals/lease-retry-update-node-not-found.journal"
head -1 "$j" | grep -q '^# real time:' || fail "$j does not say it is on real time"
[ "$(grep -c ' get nodes/edge-1 404$' "$j")" -eq 5 ] || { cat "$j"; fail "$j: not five 404s"; }
# Each scenario says where it ran, so two runs can be diffed: a TAP
# comment after its result and JUnit properties.
grep -q "^# ran lease-retry-update-node-not-found: target=kubeconfig clock=real$" "$work/tap" ||
	fail "no target report for a scenario that ran"
grep -q "^# ran config-assign-and-graduate: not run$" "$work/tap" ||
	fail "no target report for a skipped scenario"
[ "$(grep -c '^# ran ' "$work/tap")" -eq "$(grep -c '^\(not \)\?ok ' "$work/tap")" ] ||
	fail "not every scenario says where it ran"
grep -q '<property name="target" value="kubeconfig"/><property name="clock" value="real"/>' \
	"$work/junit.xml" || fail "no target properties in the JUnit report"
# A program's requests are only in a server's journal.
grep -q "^ok [0-9]* - programs-leader-takeover # SKIP requires .*journal" "$work/tap" ||
	fail "no scenario was skipped for the journal"
grep -q "(not available with --kubeconfig)" "$work/tap" || fail "skips do not say why"
grep -q '<testsuite name="nodelet-scenario"' "$work/junit.xml" || fail "no JUnit report"

objects >"$work/after"
diff "$work/before" "$work/after" >"$work/diff" ||
	{ cat "$work/diff"; fail "scenarios left objects behind"; }
echo "PASS: $summary against $url"
