#!/bin/sh
# --logging-format of nodelet-mockapi and nodelet: json lines parsed as
# component-base writes them (ts, caller, msg, v / err, the pairs), text
# lines in klog's structured form (log_format.py reads both).
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
PYTHON=${NL_PYTHON:-/usr/bin/python3}
srcdir=${srcdir:-.}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

"$MOCKAPI" --port 0 --logging-format json --v 2 --kubeconfig-out "$work/kubeconfig" \
	>"$work/out" 2>"$work/mock.log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$work/out")
[ -n "$url" ] || { cat "$work/mock.log"; fail "server did not start"; }
curl -s -o /dev/null "$url/api/v1/nodes" || fail "GET nodes"
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name log-json --once \
	--logging-format=json 2>"$work/agent-json.log" || fail "nodelet --once (json)"
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name log-text --once \
	2>"$work/agent-text.log" || fail "nodelet --once (text)"
kill "$pid"
wait "$pid"
pid=
"$PYTHON" "$srcdir/tests/integration/log_format.py" "json:mockapi:$work/mock.log" \
	"json:agent:$work/agent-json.log" "text:agent:$work/agent-text.log"
