#!/bin/sh
# nodelet-mockapi's /metrics parsed by the Prometheus client library's own
# text parser (metrics_scrape.py): process_*, in-flight requests, watch
# metrics and injected faults, each moving as the requests happen; then
# the agent's (metrics_scrape_agent.py): process_* and rest_client_*.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
PYTHON=${NL_PYTHON:-/usr/bin/python3}
srcdir=${srcdir:-.}
work=$(mktemp -d)
pid= agent=
trap '[ -n "$agent" ] && kill $agent 2>/dev/null; [ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
"$PYTHON" -c 'import prometheus_client' 2>/dev/null || {
	echo "FAIL: $PYTHON cannot import prometheus_client (sh tests/install-deps.sh installs python3-prometheus-client)"
	exit 1
}
"$MOCKAPI" --port 0 --fixtures "$srcdir/fixtures/manifests/sample.yaml" \
	--kubeconfig-out "$work/kubeconfig" >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$work/out")
[ -n "$url" ] || { cat "$work/log"; echo "FAIL: server did not start"; exit 1; }
"$PYTHON" "$srcdir/tests/integration/metrics_scrape.py" "$url" || exit 1

"$NODELET" --kubeconfig "$work/kubeconfig" --node-name scrape-agent --lease-duration-seconds 4 \
	--metrics-bind-address 127.0.0.1:0 2>"$work/agent.log" &
agent=$!
for _ in $(seq 1 100); do grep -q '"Serving metrics and healthz" port=' "$work/agent.log" && break; sleep 0.05; done
port=$(sed -n 's/.*"Serving metrics and healthz" port=\([0-9]*\)$/\1/p' "$work/agent.log")
[ -n "$port" ] || { cat "$work/agent.log"; echo "FAIL: no agent metrics port"; exit 1; }
"$PYTHON" "$srcdir/tests/integration/metrics_scrape_agent.py" "http://127.0.0.1:$port"
