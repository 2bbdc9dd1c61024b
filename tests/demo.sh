#!/bin/sh
# The main job, visibly: start nodelet-mockapi with the sample fixtures, read
# a ConfigMap, update it with its resourceVersion (200), then send the same
# update again — now stale — and show the 409 Conflict the real
# kube-apiserver would send.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
MOCKAPI=${NL_MOCKAPI:-$top/mockapi/nodelet-mockapi}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "starting nodelet-mockapi with fixtures/manifests/sample.yaml"
"$MOCKAPI" --port 0 --fixtures "$top/fixtures/manifests/sample.yaml" -v 2 \
	--kubeconfig-out "$work/kubeconfig" >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/out")
[ -n "$url" ] || { cat "$work/log"; echo "server did not start"; exit 1; }
echo "listening on $url (kubeconfig: $work/kubeconfig)"
cm="$url/api/v1/namespaces/default/configmaps/counter"

step "GET $cm"
curl -sS "$cm" | tee "$work/cm.json"; echo
rv=$(sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' "$work/cm.json")
body=$(printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"counter","namespace":"default","resourceVersion":"%s"},"data":{"count":"1"}}' "$rv")

step "PUT with resourceVersion $rv (current): accepted"
curl -sS -X PUT -H 'Content-Type: application/json' -d "$body" -w '\nHTTP %{http_code}\n' "$cm"

step "PUT again with resourceVersion $rv (now stale): refused"
code=$(curl -sS -X PUT -H 'Content-Type: application/json' -d "$body" -o "$work/conflict" -w '%{http_code}' "$cm")
cat "$work/conflict"; echo; echo "HTTP $code"
[ "$code" = 409 ] || { echo "expected 409 Conflict"; exit 1; }

step "what the server logged (-v 2)"
cat "$work/log"
step "done: the stale update was refused with 409 Conflict"
