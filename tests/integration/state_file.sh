#!/bin/sh
# --state-file under a running agent (issue 10): nodelet-mockapi is killed
# with SIGKILL and started again on the same port and state file while a
# nodelet renews its 4 s lease (every second) and watches its Node. Then:
# every acknowledged object is back with its uid, the resourceVersion
# counter has skipped ahead (an old watch gets 410, never stale versions),
# the lease renews again within about one renew interval, and the agent's
# Node informer has recovered (relisted after the 410): a config assigned
# through the Node's annotation after the restart is picked up. Finally a
# clean stop (SIGTERM) keeps the counter exactly, and a corrupt log stops
# the server with the offset unless --discard-bad-state.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
work=$(mktemp -d)
mock= agent=
cleanup() {
	[ -n "$agent" ] && kill "$agent" 2>/dev/null
	[ -n "$mock" ] && kill "$mock" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*"
	for f in agent.log mock.err mock2.err body; do
		[ -s "$work/$f" ] && { echo "--- $f"; tail -n 20 "$work/$f"; }
	done
	exit 1
}
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
[ -x "$NODELET" ] || { echo "SKIP: $NODELET not built"; exit 77; }

now_ms() { date +%s%3N; }

# start_mock PORT OUTFILE [flags]: start, wait for "listening on".
start_mock() {
	port=$1 out=$2
	shift 2
	"$MOCKAPI" --port "$port" --state-file "$work/state" --kubeconfig-out "$work/kubeconfig" \
		"$@" >"$work/$out.out" 2>"$work/$out.err" &
	mock=$!
	for _ in $(seq 1 200); do
		grep -q "listening on" "$work/$out.out" 2>/dev/null && return 0
		kill -0 "$mock" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

json_field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -n 1; }
# A list's own resourceVersion (the first member of its metadata).
list_rv() { curl -s "$1" | sed -n 's/^{"kind":"[A-Za-z]*List","apiVersion":"v1","metadata":{"resourceVersion":"\([0-9]*\)".*/\1/p'; }

start_mock 0 mock --sync-writes always || fail "mock did not start"
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/mock.out")
port=${url##*:}
api=$url/api/v1

curl -s -XPOST -H 'Content-Type: application/json' "$api/namespaces/kube-system/configmaps" \
	-d '{"metadata":{"name":"edge-config"},"data":{"nodelet":"apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\nleaseDurationSeconds: 8\n"}}' \
	>"$work/body"
cm_uid=$(json_field uid <"$work/body")
[ -n "$cm_uid" ] || fail "ConfigMap not created"

"$NODELET" --kubeconfig "$work/kubeconfig" --node-name edge-k9 --lease-duration-seconds 4 \
	--dynamic-config-dir "$work/dyn" --metrics-bind-address 127.0.0.1:0 -v 4 \
	>"$work/agent.log" 2>&1 &
agent=$!
lease=$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-k9
renew_time() { curl -s --max-time 2 "$lease" | json_field renewTime; }
first=
for _ in $(seq 1 100); do
	first=$(renew_time)
	[ -n "$first" ] && break
	sleep 0.05
done
[ -n "$first" ] || fail "no lease after 5 s"
for _ in $(seq 1 60); do
	[ "$(renew_time)" != "$first" ] && break
	sleep 0.05
done
node_uid=$(curl -s "$api/nodes/edge-k9" | json_field uid)
before_rv=$(list_rv "$api/namespaces/kube-system/configmaps")
[ -n "$node_uid" ] && [ -n "$before_rv" ] || fail "no node or list resourceVersion"
last=$(renew_time)

kill -9 "$mock"
wait "$mock" 2>/dev/null
mock=
start_mock "$port" mock2 || fail "mock did not restart on port $port"
t0=$(now_ms)
grep -q '] "The last stop was not clean, resourceVersions skip ahead" path=' "$work/mock2.err" || fail "unclean stop not noticed"

[ "$(curl -s "$api/namespaces/kube-system/configmaps/edge-config" | json_field uid)" = "$cm_uid" ] ||
	fail "ConfigMap lost or has a new uid"
[ "$(curl -s "$api/nodes/edge-k9" | json_field uid)" = "$node_uid" ] || fail "Node lost"
after_rv=$(list_rv "$api/namespaces/kube-system/configmaps")
[ "$after_rv" -ge $((before_rv + 1000000)) ] ||
	fail "resourceVersion $after_rv did not skip ahead of $before_rv"
curl -s --max-time 2 "$api/namespaces/kube-system/configmaps?watch=1&resourceVersion=$before_rv" \
	>"$work/body"
grep -q '"code":410' "$work/body" || fail "a watch from before the crash did not get 410"

# The lease renews again: renew interval 1 s; allow one more for scheduling.
renewed=
while [ $(($(now_ms) - t0)) -lt 5000 ]; do
	now=$(renew_time)
	if [ -n "$now" ] && [ "$now" != "$last" ]; then
		renewed=$(($(now_ms) - t0))
		break
	fi
	sleep 0.05
done
[ -n "$renewed" ] || fail "lease not renewed within 5 s of the restart"
echo "lease renewed ${renewed} ms after the restart (renew interval 1000 ms)"
[ "$renewed" -le 2000 ] || fail "recovery took ${renewed} ms, more than one renew interval"

# The Node informer relisted: an annotation set now reaches the agent. The
# config controller acts on it at its next sync tick (upstream's 10 s with
# jitter): it posts a NodeletConfigChanged Event naming the ConfigMap's uid
# and restarts on the config.
curl -s -XPATCH -H 'Content-Type: application/merge-patch+json' "$api/nodes/edge-k9" \
	-d '{"metadata":{"annotations":{"nodelet.io/config-source":"{\"configMap\":{\"namespace\":\"kube-system\",\"name\":\"edge-config\",\"kubeletConfigKey\":\"nodelet\"}}"}}}' \
	>/dev/null
ok=
for _ in $(seq 1 300); do
	curl -s "$api/namespaces/default/events" >"$work/body"
	grep -q "NodeletConfigChanged" "$work/body" && grep -q "UID: $cm_uid" "$work/body" &&
		{ ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || fail "the agent did not pick up a config assigned after the restart"
echo "config assigned after the restart is active"

# A clean stop keeps the counter exactly.
rv1=$(list_rv "$api/namespaces/kube-system/configmaps")
kill "$agent"
wait "$agent" 2>/dev/null
agent=
rv1=$(list_rv "$api/namespaces/kube-system/configmaps")
kill "$mock"
wait "$mock" 2>/dev/null
mock=
start_mock "$port" mock3 || fail "mock did not start after a clean stop"
rv2=$(list_rv "$api/namespaces/kube-system/configmaps")
[ "$rv1" = "$rv2" ] || fail "clean stop: resourceVersion $rv1 became $rv2"
kill "$mock"
wait "$mock" 2>/dev/null
mock=

# A corrupt log: refuse to start, naming the file and offset.
printf 'garbage' >>"$work/state.log"
"$MOCKAPI" --port 0 --state-file "$work/state" >/dev/null 2>"$work/bad.err" &
bad=$!
sleep 0.5
if kill -0 "$bad" 2>/dev/null; then
	kill "$bad"
	fail "started on a corrupt log"
fi
wait "$bad"
[ $? -ne 0 ] || fail "exit status 0 on a corrupt log"
grep -q "state.log: offset [0-9]*: truncated record frame" "$work/bad.err" ||
	{ cat "$work/bad.err"; fail "error does not name the offset"; }
start_mock 0 mock4 --discard-bad-state || fail "--discard-bad-state did not start"
grep -q '] "Bad state record, --discard-bad-state keeps the records before it" path="[^"]*state.log" offset=[0-9]* reason="truncated record frame" droppedBytes=7$' "$work/mock4.err" || fail "discarded bytes not reported"
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/mock4.out")
[ "$(curl -s "$url/api/v1/namespaces/kube-system/configmaps/edge-config" | json_field uid)" = "$cm_uid" ] ||
	fail "intact state lost with --discard-bad-state"
echo PASS
