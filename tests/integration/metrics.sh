#!/bin/sh
# nodelet-mockapi's /metrics over HTTP: requests are counted with
# kube-apiserver's labels, watches and stored objects show up, and the
# endpoint is authorized like /healthz.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

start() {
	: >"$work/out"
	"$MOCKAPI" --port 0 "$@" >"$work/out" 2>"$work/log" &
	pid=$!
	for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
	url=$(sed -n 's/.*listening on //p' "$work/out")
	[ -n "$url" ] || { cat "$work/log"; fail "server did not start"; }
}
stop() { kill "$pid"; wait "$pid"; pid=; }
has() { grep -qF -- "$1" "$work/metrics" || { grep apiserver_request_total "$work/metrics"; fail "missing: $1"; }; }

start
lease=$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases
curl -s -o /dev/null "$lease/edge-1"
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' "$lease" \
	-d '{"metadata":{"name":"edge-1"},"spec":{"holderIdentity":"edge-1"}}'
curl -s -o /dev/null "$lease/edge-1"
curl -s -o /dev/null "$url/api/v1/nodes"
curl -s -N "$url/api/v1/nodes?watch=true" >/dev/null &
watcher=$!
sleep 0.3
curl -s -D "$work/headers" -o "$work/metrics" "$url/metrics" || fail "GET /metrics"
kill $watcher 2>/dev/null
grep -qi '^content-type: text/plain; version=0.0.4' "$work/headers" || fail "content type"
has 'apiserver_request_total{code="404",component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="GET",version="v1"} 1'
has 'apiserver_request_total{code="200",component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="GET",version="v1"} 1'
has 'apiserver_request_total{code="201",component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="POST",version="v1"} 1'
has 'apiserver_request_total{code="200",component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1"} 1'
has 'apiserver_request_duration_seconds_count{component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="GET",version="v1"} 2'
has 'apiserver_longrunning_requests{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="WATCH",version="v1"} 1'
has 'apiserver_storage_objects{resource="leases.coordination.k8s.io"} 1'
has 'apiserver_storage_objects{resource="namespaces"} 4'
stop

# Authorized as /healthz: any authenticated user, not anonymous.
printf 'secret,alice,1\n' >"$work/tokens"
start --token-auth-file "$work/tokens" --anonymous-auth=false --authorization-mode Node
code=$(curl -s -o /dev/null -w '%{http_code}' "$url/metrics")
[ "$code" = 401 ] || fail "anonymous /metrics: $code, want 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer secret' "$url/metrics")
[ "$code" = 200 ] || fail "authenticated /metrics: $code, want 200"
stop
echo "PASS"
