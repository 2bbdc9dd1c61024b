#!/bin/sh
# kubectl 1.32 with Pods the mock stores but never runs: create, get and
# get -o wide (printPod's columns), describe node (its non-terminated pods
# and events), drain (cordon, evictions through pods/eviction, "drained"),
# delete, a raw eviction, and the taint eviction controller removing a pod
# that does not tolerate a NoExecute taint. Skips (exit 77) when no kubectl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
fail() {
	echo "FAIL: $*"
	for f in out server.err; do
		[ -s "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
	done
	exit 1
}

start_mockapi
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" -n default "$@"; }

# gone NAME: wait up to 10 s for pod NAME to be deleted.
gone() {
	for _ in $(seq 1 100); do
		k get pod "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat >"$work/objs.yaml" <<YAML
apiVersion: v1
kind: Node
metadata: {name: edge-1}
status:
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, lastHeartbeatTime: "$now", lastTransitionTime: "$now"}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: edge-1
  containers:
  - {name: web, image: nginx:1.27, ports: [{containerPort: 80}]}
---
apiVersion: v1
kind: Pod
metadata: {name: side}
spec:
  nodeName: edge-1
  containers:
  - {name: a, image: busybox:1.36}
  - {name: b, image: busybox:1.36}
---
apiVersion: v1
kind: Pod
metadata: {name: lonely}
spec:
  containers:
  - {name: c, image: busybox}
YAML
k create -f "$work/objs.yaml" >"$work/out" 2>&1 || fail "create"
grep -q '^pod/web created' "$work/out" || fail "create did not report pod/web"

k get pods >"$work/out" 2>&1 || fail "get pods"
head -1 "$work/out" | grep -Eq '^NAME +READY +STATUS +RESTARTS +AGE$' || fail "get pods header"
grep -Eq '^side +0/2 +Pending +0 +[0-9]+s$' "$work/out" || fail "get pods row"
k get pods -o wide >"$work/out" 2>&1 || fail "get pods -o wide"
head -1 "$work/out" |
	grep -Eq '^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES$' ||
	fail "wide header"
grep -Eq '^web +0/1 +Pending +0 +[0-9]+s +<none> +edge-1 +<none> +<none>$' "$work/out" ||
	fail "wide row"
grep -Eq '^lonely .* <none> +<none> +<none> +<none>$' "$work/out" || fail "unbound wide row"
k get pods --field-selector spec.nodeName=edge-1 -o name >"$work/out" 2>&1 ||
	fail "field selector"
[ "$(cat "$work/out")" = "pod/side
pod/web" ] || fail "field selector picked the wrong pods"

k describe node edge-1 >"$work/out" 2>&1 || fail "describe node"
grep -q '^Non-terminated Pods: *(2 in total)' "$work/out" || fail "describe: non-terminated pods"
grep -Eq '^ +default +web ' "$work/out" || fail "describe: the web pod"
grep -q '^Events:' "$work/out" || fail "describe: no events section"

k delete pod lonely >"$work/out" 2>&1 || fail "delete"
grep -q 'pod "lonely" deleted' "$work/out" || fail "delete did not report"

k drain edge-1 --ignore-daemonsets --force --timeout=30s >"$work/out" 2>&1 || fail "drain"
grep -q '^node/edge-1 cordoned' "$work/out" || fail "drain did not cordon"
grep -q 'evicting pod default/web' "$work/out" || fail "drain did not evict web"
grep -q '^pod/web evicted' "$work/out" || fail "drain did not report the eviction"
grep -q '^node/edge-1 drained' "$work/out" || fail "drain did not finish"
k get pods -o name >"$work/out" 2>&1
[ ! -s "$work/out" ] || fail "pods left after the drain"
k uncordon edge-1 >"$work/out" 2>&1 || fail "uncordon"

# The eviction subresource as drain calls it, by hand.
k create -f "$work/objs.yaml" >/dev/null 2>&1
cat >"$work/eviction.json" <<'JSON'
{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web","namespace":"default"}}
JSON
k create --raw /api/v1/namespaces/default/pods/web/eviction -f "$work/eviction.json" \
	>"$work/out" 2>&1 || fail "raw eviction"
grep -q '"status":"Success"' "$work/out" || fail "eviction answer"
gone web || fail "the evicted pod stayed"

# A NoExecute taint nothing tolerates: the taint eviction controller
# deletes side at once (its default tolerations cover only not-ready and
# unreachable).
k taint nodes edge-1 example.com/maintenance=now:NoExecute >"$work/out" 2>&1 || fail "taint"
gone side || fail "taint eviction left the pod"
echo "PASS: kubectl get, describe node, drain, delete and evictions of pods"
