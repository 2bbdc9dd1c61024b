#!/bin/sh
# nodelet-mockapi's /metrics parsed by the Prometheus client library's own
# text parser (metrics_scrape.py): process_*, in-flight requests, watch
# metrics and injected faults, each moving as the requests happen.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
PYTHON=${NL_PYTHON:-/usr/bin/python3}
srcdir=${srcdir:-.}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
"$PYTHON" -c 'import prometheus_client' 2>/dev/null || {
	echo "FAIL: $PYTHON cannot import prometheus_client (sh tests/install-deps.sh installs python3-prometheus-client)"
	exit 1
}
"$MOCKAPI" --port 0 --fixtures "$srcdir/fixtures/manifests/sample.yaml" >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$work/out")
[ -n "$url" ] || { cat "$work/log"; echo "FAIL: server did not start"; exit 1; }
"$PYTHON" "$srcdir/tests/integration/metrics_scrape.py" "$url"
