#!/bin/sh
# Everyday kubectl 1.32 on every served kind, each command's output as
# kube-apiserver would make kubectl print it: create, get, apply (first and
# changed), label, annotate, patch, edit, replace, describe, wait, explain,
# auth can-i,
# events, delete --wait; cordon, uncordon and drain (evicting a Pod) on a
# Node. One table of
# kinds drives the same commands, so a kind that gains a verb gains its
# test here. Where the mock differs on purpose, docs/mockapi.md says so.
# Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

start_mockapi --kubeconfig-out "$work/kubeconfig"
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache" "$@"; }
# run WHAT ARGS...: kubectl ARGS into $work/out, failing with WHAT.
run() {
	what=$1
	shift
	k "$@" >"$work/out" 2>&1 || fail "$what: kubectl $* exited $?"
}
# kubectl edit's editor: the annotation p goes from "1" to "2".
printf '#!/bin/sh\nsed -i "s/p: \\"1\\"/p: \\"2\\"/" "$1"\n' >"$work/editor"
chmod +x "$work/editor"
KUBE_EDITOR=$work/editor
export KUBE_EDITOR
# says TEXT WHAT: the last command printed the line TEXT.
says() { grep -qxF -- "$1" "$work/out" || fail "$2: want the line '$1'"; }

# A PKCS#10 request (CN=verbs, P-256; made once with openssl req) for the
# CertificateSigningRequest row, whose signer example.com/verbs the mock's
# csrsigning does not issue for, so nothing but kubectl writes it.
verbs_csr=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlISk1ISUNBUUF3RURFT01Bd0dBMVVFQXd3RmRtVnlZbk13V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPUFFNQgpCd05DQUFRNWQ2bnBFNGwrWTNJT2hrMmxaNmIwOURadUY1UGU0bEJJRjgrNlRlVjVpL3hLbGx2MGdOVmg4WXprCnJaTFVnZktBQk9OY0ZOUzhqU2ZjekpBNzFSU3lvQUF3Q2dZSUtvWkl6ajBFQXdJRFJ3QXdSQUlnU21KMk9OUUsKd3lkM2Q1QVZBQ3AyYXRnRHc3SGw3T3k5UWlIalFZRlBsVVlDSUYxM2NnSWFBb1dJOUpJQWZFamZvMjhOZGszcwo4ZmoyTTBaaG04WUZzZ2F2Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=

# manifest KIND NAME NS VALUE: a minimal object of KIND whose one field
# (kind-specific; an annotation where the kind's spec fields are immutable)
# carries VALUE, so apply can change it.
manifest() {
	case $1 in
	ConfigMap)
		printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\ndata: {v: "%s"}\n' "$2" "$3" "$4" ;;
	Lease)
		printf 'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: %s, namespace: %s}\nspec: {holderIdentity: "%s", leaseDurationSeconds: 15}\n' "$2" "$3" "$4" ;;
	Event)
		printf 'apiVersion: v1\nkind: Event\nmetadata: {name: %s, namespace: %s}\ninvolvedObject: {kind: Node, name: verbs-node}\nreason: Test\nmessage: "%s"\ntype: Normal\n' "$2" "$3" "$4" ;;
	Node)
		printf 'apiVersion: v1\nkind: Node\nmetadata: {name: %s, annotations: {v: "%s"}}\n' "$2" "$4" ;;
	Pod)
		printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: %s, annotations: {v: "%s"}}\nspec: {containers: [{name: c, image: "busybox:1.36"}]}\n' "$2" "$3" "$4" ;;
	Namespace)
		printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, annotations: {v: "%s"}}\n' "$2" "$4" ;;
	CertificateSigningRequest)
		printf 'apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: %s, annotations: {v: "%s"}}\nspec: {signerName: example.com/verbs, usages: [client auth], request: %s}\n' "$2" "$4" "$verbs_csr" ;;
	esac
}

# kind, resource as kubectl names it in output, namespace ("" = cluster),
# two values of the changed field, the columns of kubectl get (the
# server's Table; "~" a space inside a column's name).
while read -r kind res ns v1 v2 columns; do
	[ "$ns" = - ] && ns=
	name=verbs-$(echo "$kind" | tr 'A-Z' 'a-z')
	nsflag=${ns:+-n $ns}
	manifest "$kind" "$name" "${ns:-default}" "$v1" >"$work/a.yaml"
	[ -z "$ns" ] && sed -i 's/, namespace: default//' "$work/a.yaml"
	manifest "$kind" "$name" "${ns:-default}" "$v2" >"$work/b.yaml"
	[ -z "$ns" ] && sed -i 's/, namespace: default//' "$work/b.yaml"

	# shellcheck disable=SC2086 # $nsflag is empty or two words
	{
		run "$kind create" create -f "$work/a.yaml"
		says "$res/$name created" "$kind create"
		run "$kind get" get $nsflag "$res/$name" -o name
		says "$res/$name" "$kind get -o name"
		run "$kind get table" get $nsflag "$res/$name"
		header=$(echo "$columns" | sed 's/|/ +/g; s/~/ /g')
		head -1 "$work/out" | grep -Eq "^$header\$" || fail "$kind get: want the header $header"
		# an Event's row starts with LAST SEEN, the others' with the name
		row="^$name "
		[ "$kind" = Event ] && row="^<unknown> +Normal +Test +node/verbs-node +$v1\$"
		sed -n 2p "$work/out" | grep -Eq "$row" || fail "$kind get: no row for $name"
		run "$kind apply (first)" apply -f "$work/a.yaml"
		grep -q "^$res/$name configured$" "$work/out" || fail "$kind apply of a created object"
		run "$kind apply (changed)" apply -f "$work/b.yaml"
		says "$res/$name configured" "$kind apply"
		run "$kind apply (same)" apply -f "$work/b.yaml"
		says "$res/$name unchanged" "$kind apply of the same manifest"
		run "$kind label" label $nsflag "$res/$name" team=a
		says "$res/$name labeled" "$kind label"
		run "$kind annotate" annotate $nsflag "$res/$name" note=b
		says "$res/$name annotated" "$kind annotate"
		run "$kind get labels" get $nsflag "$res/$name" -o 'jsonpath={.metadata.labels.team}/{.metadata.annotations.note}'
		says "a/b" "$kind label and annotation stored"
		run "$kind patch" patch $nsflag "$res/$name" -p '{"metadata":{"annotations":{"p":"1"}}}'
		says "$res/$name patched" "$kind patch"
		run "$kind patch (same)" patch $nsflag "$res/$name" -p '{"metadata":{"annotations":{"p":"1"}}}'
		says "$res/$name patched (no change)" "$kind patch that changes nothing"
		run "$kind edit" edit $nsflag "$res/$name"
		says "$res/$name edited" "$kind edit"
		run "$kind get yaml" get $nsflag "$res/$name" -o yaml
		grep -q "^kind: $kind$" "$work/out" || fail "$kind get -o yaml: no kind line"
		grep -q '^    p: "2"$' "$work/out" || fail "$kind edit did not store the change"
		run "$kind replace" replace -f "$work/a.yaml"
		says "$res/$name replaced" "$kind replace"
		run "$kind describe" describe $nsflag "$res/$name"
		grep -q "^Name: *$name$" "$work/out" || fail "$kind describe: no Name line"
		if [ -n "$ns" ]; then
			grep -q "^Namespace: *$ns$" "$work/out" || fail "$kind describe: no Namespace line"
		fi
		run "$kind wait" wait $nsflag "$res/$name" --for=jsonpath='{.metadata.name}'="$name" --timeout=10s
		says "$res/$name condition met" "$kind wait"
		run "$kind explain" explain "$(echo "$kind" | tr 'A-Z' 'a-z')"
		grep -q "^KIND: *$kind$" "$work/out" || fail "$kind explain: no KIND line"
		grep -q "^VERSION: *v1$" "$work/out" || fail "$kind explain: no VERSION line"
		grep -q "^DESCRIPTION:" "$work/out" || fail "$kind explain: no DESCRIPTION"
		run "$kind auth can-i" auth can-i delete "$res" $nsflag
		says "yes" "$kind auth can-i"
		run "$kind delete" delete $nsflag "$res/$name" --wait --timeout=30s
		says "$res \"$name\" deleted" "$kind delete"
		k get $nsflag "$res/$name" >"$work/out" 2>&1 && fail "$kind still there after delete"
		grep -q "NotFound\|not found" "$work/out" || fail "$kind get after delete: no NotFound"
	}
	echo "ok: $kind: create get apply label annotate patch edit replace describe wait explain auth delete"
done <<'TABLE'
ConfigMap configmap default one two NAME|DATA|AGE
Lease lease.coordination.k8s.io default a b NAME|HOLDER|AGE
Event event default first second LAST~SEEN|TYPE|REASON|OBJECT|MESSAGE
Node node - one two NAME|STATUS|ROLES|AGE|VERSION
Pod pod default one two NAME|READY|STATUS|RESTARTS|AGE
Namespace namespace - one two NAME|STATUS|AGE
CertificateSigningRequest certificatesigningrequest.certificates.k8s.io - one two NAME|AGE|SIGNERNAME|REQUESTOR|REQUESTEDDURATION|CONDITION
TABLE

# kubectl events lists the Events of a namespace with kubectl's columns.
printf 'apiVersion: v1\nkind: Event\nmetadata: {name: ev1, namespace: default}\ninvolvedObject: {kind: Node, name: verbs-node}\nreason: Rebooted\nmessage: "it came back"\ntype: Warning\n' >"$work/ev.yaml"
run "events create" create -f "$work/ev.yaml"
run "events" events -n default
grep -q "^LAST SEEN *TYPE *REASON *OBJECT *MESSAGE$" "$work/out" || fail "kubectl events: header"
# OBJECT is involvedObject's kind/name as written; an Event without any
# timestamp was last seen <unknown>.
grep -q "^<unknown> *Warning *Rebooted *Node/verbs-node *it came back$" "$work/out" ||
	fail "kubectl events: the event"

# cordon, uncordon and drain on a Ready Node with a Pod: drain evicts it
# (pods/eviction) and waits for it to go, which the mock's stand-in for
# the kubelet finishes on a Ready node.
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat >"$work/n.yaml" <<YAML
apiVersion: v1
kind: Node
metadata: {name: edge-c}
status:
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, lastHeartbeatTime: "$now", lastTransitionTime: "$now"}
---
apiVersion: v1
kind: Pod
metadata: {name: drain-me, namespace: default}
spec:
  nodeName: edge-c
  containers:
  - {name: c, image: "busybox:1.36"}
YAML
run "node create" create -f "$work/n.yaml"
says "node/edge-c created" "node create"
says "pod/drain-me created" "pod create"
run "wait Ready" wait node/edge-c --for=condition=Ready --timeout=10s
says "node/edge-c condition met" "wait for the Ready condition"
run "cordon" cordon edge-c
says "node/edge-c cordoned" "cordon"
run "cordoned" get node edge-c -o 'jsonpath={.spec.unschedulable}'
says "true" "cordon sets spec.unschedulable"
run "uncordon" uncordon edge-c
says "node/edge-c uncordoned" "uncordon"
run "drain" drain edge-c --ignore-daemonsets --force --timeout=30s
says "node/edge-c cordoned" "drain cordons first"
says "evicting pod default/drain-me" "drain evicts"
says "pod/drain-me evicted" "drain waits for the pod"
says "node/edge-c drained" "drain"
k get pod drain-me -n default >"$work/out" 2>&1 && fail "drain left the pod"
# A review from a file, as kubectl validates it first: the mock leaves the
# review kinds out of OpenAPI (docs/mockapi.md), or kubectl's validation
# would list CustomResourceDefinitions and fail with "failed to check CRD".
printf 'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes: {verb: get, resource: pods}\n' >"$work/ssar.yaml"
run "review from a file" create -f "$work/ssar.yaml" -o 'jsonpath={.status.allowed}'
says "true" "create -f of a SelfSubjectAccessReview"
echo "PASS: kubectl verbs on every served kind, events, cordon, uncordon, drain, a review"
