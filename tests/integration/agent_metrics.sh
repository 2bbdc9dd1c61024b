#!/bin/sh
# nodelet --metrics-bind-address against a nodelet-mockapi process: lease
# renewals are counted, /healthz answers ok, and with dynamic config the
# node_config_* gauges appear.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
work=$(mktemp -d)
mock= agent=
trap '[ -n "$agent" ] && kill $agent 2>/dev/null; [ -n "$mock" ] && kill $mock 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; cat "$work/agent.log" 2>/dev/null | tail -20; exit 1; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
[ -x "$NODELET" ] || { echo "SKIP: $NODELET not built"; exit 77; }

"$MOCKAPI" --port 0 --kubeconfig-out "$work/kubeconfig" >"$work/mock.out" 2>"$work/mock.log" &
mock=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/mock.out" && break; sleep 0.05; done
grep -q "listening on" "$work/mock.out" || fail "mock did not start"

# wait_for URL PATTERN: up to 10 s for the body of URL to contain PATTERN.
wait_for() {
	for _ in $(seq 1 100); do
		curl -s "$1" >"$work/body" 2>/dev/null && grep -qE "$2" "$work/body" && return 0
		sleep 0.1
	done
	cat "$work/body"
	fail "$1 never showed $2"
}

"$NODELET" --kubeconfig "$work/kubeconfig" --node-name edge-m --lease-duration-seconds 4 \
	--metrics-bind-address 127.0.0.1:0 --dynamic-config-dir "$work/dyn" >"$work/agent.log" 2>&1 &
agent=$!
for _ in $(seq 1 100); do grep -q "serving metrics and healthz on port" "$work/agent.log" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/.*serving metrics and healthz on port \([0-9]*\).*/\1/p' "$work/agent.log")
[ -n "$port" ] || fail "no metrics port in the log"
m=http://127.0.0.1:$port

wait_for "$m/metrics" 'nodelet_node_lease_renewals_total\{result="success"\} [2-9]'
grep -q 'nodelet_node_lease_renewals_total{result="failure"} 0' "$work/body" || fail "failures counted"
grep -qE 'nodelet_node_lease_last_renew_timestamp_seconds [1-9][0-9]{9}\.' "$work/body" ||
	fail "last renew time"
grep -q 'nodelet_node_config_active{node_config_kubelet_key="",node_config_resource_version="",node_config_source="local",node_config_uid=""} 1' "$work/body" ||
	{ cat "$work/body"; fail "node_config_active local"; }
grep -q 'nodelet_node_config_error 0' "$work/body" || fail "node_config_error"
[ "$(curl -s "$m/healthz")" = ok ] || fail "/healthz"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$m/other")" = 404 ] || fail "404"

# Renewal failures are counted while the API server is away.
kill $mock; wait $mock 2>/dev/null; mock=
wait_for "$m/metrics" 'nodelet_node_lease_renewals_total\{result="failure"\} [1-9]'
[ "$(curl -s "$m/healthz")" = ok ] || fail "/healthz while the server is away"

kill $agent; wait $agent; rc=$?; agent=
[ $rc -eq 0 ] || fail "nodelet exit status $rc"
curl -s "$m/metrics" >/dev/null 2>&1 && fail "still serving after exit"
echo PASS
