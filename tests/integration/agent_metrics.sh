#!/bin/sh
# nodelet --metrics-bind-address against a nodelet-mockapi process: lease
# renewals are counted, /healthz and /livez answer ok, /readyz once the
# Node is registered and its Lease written, and with dynamic config the
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
for _ in $(seq 1 100); do grep -q '"Serving metrics and healthz" port=' "$work/agent.log" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/.*"Serving metrics and healthz" port=\([0-9]*\)$/\1/p' "$work/agent.log")
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
[ "$(curl -s "$m/livez")" = ok ] || fail "/livez"
# Registered and the lease written: ready (component-base's bodies).
[ "$(curl -s "$m/readyz")" = ok ] || fail "/readyz"
curl -s "$m/readyz?verbose" >"$work/body"
printf '[+]ping ok\n[+]registration ok\n[+]node-lease ok\nreadyz check passed\n' | cmp -s - "$work/body" ||
	{ cat "$work/body"; fail "/readyz?verbose"; }
curl -s -D "$work/headers" -o /dev/null "$m/livez"
grep -qi '^X-Content-Type-Options: nosniff' "$work/headers" || fail "nosniff"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$m/other")" = 404 ] || fail "404"

# client-go's rest_client_* and client_golang's process_*: every sample line
# is "name{labels} value" of a family with a TYPE, and the families, types
# and label names are the ones dashboards query.
curl -s "$m/metrics" >"$work/scrape1"
awk '
	/^# TYPE / { type[$3] = $4; next }
	/^#/ { next }
	{
		if ($0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+0-9.eE]+(Inf)?$/) {
			print "bad sample line: " $0; bad = 1
		}
		name = $0; sub(/[{ ].*/, "", name)
		base = name; sub(/_(bucket|sum|count)$/, "", base)
		if (!(name in type) && !(base in type)) { print "no TYPE for " name; bad = 1 }
	}
	END { exit bad }' "$work/scrape1" || fail "malformed exposition"
port_api=$(sed -n 's|^nodelet-mockapi listening on http://||p' "$work/mock.out")
for want in \
	'# TYPE rest_client_requests_total counter' \
	'# TYPE rest_client_request_duration_seconds histogram' \
	'# TYPE process_cpu_seconds_total counter' \
	'# TYPE process_resident_memory_bytes gauge' \
	'# TYPE process_virtual_memory_bytes gauge' \
	'# TYPE process_open_fds gauge' \
	'# TYPE process_max_fds gauge' \
	'# TYPE process_start_time_seconds gauge'; do
	grep -qxF "$want" "$work/scrape1" || fail "missing: $want"
done
grep -q "^rest_client_requests_total{code=\"201\",host=\"$port_api\",method=\"POST\"} [1-9]" "$work/scrape1" ||
	fail "rest_client_requests_total for the Node and Lease creations"
grep -q "^rest_client_request_duration_seconds_bucket{host=\"$port_api\",verb=\"PUT\",le=\"0.005\"} " "$work/scrape1" ||
	fail "rest_client_request_duration_seconds buckets"
# client-go's bucket bounds, in order, then +Inf equal to _count.
les=$(sed -n "s/^rest_client_request_duration_seconds_bucket{host=\"$port_api\",verb=\"PUT\",le=\"\([^\"]*\)\"}.*/\1/p" "$work/scrape1" | tr '\n' ' ')
[ "$les" = "0.005 0.025 0.1 0.25 0.5 1 2 4 8 15 30 60 +Inf " ] || fail "buckets: $les"
inf=$(sed -n "s/^rest_client_request_duration_seconds_bucket{host=\"$port_api\",verb=\"PUT\",le=\"+Inf\"} //p" "$work/scrape1")
cnt=$(sed -n "s/^rest_client_request_duration_seconds_count{host=\"$port_api\",verb=\"PUT\"} //p" "$work/scrape1")
[ -n "$inf" ] && [ "$inf" = "$cnt" ] || fail "+Inf bucket $inf, count $cnt"
value() { sed -n "s/^$1 //p" "$2"; }
awk -v r="$(value process_resident_memory_bytes "$work/scrape1")" \
	-v v="$(value process_virtual_memory_bytes "$work/scrape1")" \
	-v o="$(value process_open_fds "$work/scrape1")" -v x="$(value process_max_fds "$work/scrape1")" \
	-v s="$(value process_start_time_seconds "$work/scrape1")" -v now="$(date +%s)" \
	'BEGIN { exit !(r > 1000000 && v >= r && o >= 3 && o <= x && s > now - 120 && s <= now + 1) }' ||
	{ grep '^process_' "$work/scrape1"; fail "process_* values"; }
# The renewals move the PUT counter between two scrapes.
puts1=$(value "rest_client_requests_total{code=\"200\",host=\"$port_api\",method=\"PUT\"}" "$work/scrape1")
sleep 2.5
curl -s "$m/metrics" >"$work/scrape2"
puts2=$(value "rest_client_requests_total{code=\"200\",host=\"$port_api\",method=\"PUT\"}" "$work/scrape2")
[ -n "$puts1" ] && [ "$puts2" -gt "$puts1" ] || fail "PUT 200 count did not move: $puts1 then $puts2"

# Renewal failures are counted while the API server is away.
kill $mock; wait $mock 2>/dev/null; mock=
wait_for "$m/metrics" 'nodelet_node_lease_renewals_total\{result="failure"\} [1-9]'
[ "$(curl -s "$m/healthz")" = ok ] || fail "/healthz while the server is away"
# A request with no answer is client-go's code "<error>".
grep -q "^rest_client_requests_total{code=\"<error>\",host=\"$port_api\",method=\"PUT\"} [1-9]" "$work/body" ||
	fail "unanswered requests not counted as <error>"

# Once ready, an absent API server does not make the agent unready.
[ "$(curl -s "$m/readyz")" = ok ] || fail "/readyz while the server is away"

# A second agent that never reaches the API server: alive, not ready.
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name edge-m2 \
	--metrics-bind-address 127.0.0.1:0 >"$work/agent2.log" 2>&1 &
agent2=$!
for _ in $(seq 1 100); do grep -q '"Serving metrics and healthz" port=' "$work/agent2.log" 2>/dev/null && break; sleep 0.05; done
port2=$(sed -n 's/.*"Serving metrics and healthz" port=\([0-9]*\)$/\1/p' "$work/agent2.log")
[ -n "$port2" ] || { kill $agent2; fail "no metrics port for the second agent"; }
m2=http://127.0.0.1:$port2
[ "$(curl -s "$m2/livez")" = ok ] || { kill $agent2; fail "/livez before registration"; }
code=$(curl -s -o "$work/body" -w '%{http_code}' "$m2/readyz")
kill $agent2; wait $agent2
[ "$code" = 500 ] || fail "/readyz before registration answered $code"
grep -q '^\[-\]registration failed: reason withheld$' "$work/body" || { cat "$work/body"; fail "readyz body"; }
grep -q '^readyz check failed$' "$work/body" || fail "readyz check failed line"

kill $agent; wait $agent; rc=$?; agent=
[ $rc -eq 0 ] || fail "nodelet exit status $rc"
curl -s "$m/metrics" >/dev/null 2>&1 && fail "still serving after exit"
echo PASS
