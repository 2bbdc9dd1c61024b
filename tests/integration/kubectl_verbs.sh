#!/bin/sh
# Everyday kubectl 1.32 on every served kind, each command's output as
# kube-apiserver would make kubectl print it: create, get, apply (first and
# changed), label, annotate, replace, describe, wait, explain, auth can-i,
# events, delete --wait; cordon, uncordon and drain on a Node. One table of
# kinds drives the same commands, so a kind that gains a verb gains its
# test here. Skips (exit 77) when no kubectl is installed.
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
# says TEXT WHAT: the last command printed the line TEXT.
says() { grep -qxF -- "$1" "$work/out" || fail "$2: want the line '$1'"; }

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
	Namespace)
		printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, annotations: {v: "%s"}}\n' "$2" "$4" ;;
	esac
}

# kind, resource as kubectl names it in output, namespace ("" = cluster),
# two values of the changed field.
while read -r kind res ns v1 v2; do
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
		run "$kind replace" replace -f "$work/a.yaml"
		says "$res/$name replaced" "$kind replace"
		run "$kind describe" describe $nsflag "$res/$name"
		grep -q "^Name: *$name$" "$work/out" || fail "$kind describe: no Name line"
		run "$kind wait" wait $nsflag "$res/$name" --for=jsonpath='{.metadata.name}'="$name" --timeout=10s
		says "$res/$name condition met" "$kind wait"
		run "$kind explain" explain "$(echo "$kind" | tr 'A-Z' 'a-z')"
		grep -q "^KIND: *$kind$" "$work/out" || fail "$kind explain: no KIND line"
		grep -q "^DESCRIPTION:" "$work/out" || fail "$kind explain: no DESCRIPTION"
		run "$kind auth can-i" auth can-i delete "$res" $nsflag
		says "yes" "$kind auth can-i"
		run "$kind delete" delete $nsflag "$res/$name" --wait --timeout=30s
		says "$res \"$name\" deleted" "$kind delete"
		k get $nsflag "$res/$name" >"$work/out" 2>&1 && fail "$kind still there after delete"
		grep -q "NotFound\|not found" "$work/out" || fail "$kind get after delete: no NotFound"
	}
	echo "ok: $kind: create get apply label annotate replace describe wait explain auth delete"
done <<'TABLE'
ConfigMap configmap default one two
Lease lease.coordination.k8s.io default a b
Event event default first second
Node node - one two
Namespace namespace - one two
TABLE

# kubectl events lists the Events of a namespace with kubectl's columns.
printf 'apiVersion: v1\nkind: Event\nmetadata: {name: ev1, namespace: default}\ninvolvedObject: {kind: Node, name: verbs-node}\nreason: Rebooted\nmessage: "it came back"\ntype: Warning\n' >"$work/ev.yaml"
run "events create" create -f "$work/ev.yaml"
run "events" events -n default
grep -q "^LAST SEEN *TYPE *REASON *OBJECT *MESSAGE$" "$work/out" || fail "kubectl events: header"
grep -q "Warning *Rebooted *node/verbs-node *it came back" "$work/out" || fail "kubectl events: the event"

# cordon, uncordon and drain on a Node.
manifest Node edge-c - one >"$work/n.yaml"
run "node create" create -f "$work/n.yaml"
run "cordon" cordon edge-c
says "node/edge-c cordoned" "cordon"
run "cordoned" get node edge-c -o 'jsonpath={.spec.unschedulable}'
says "true" "cordon sets spec.unschedulable"
run "uncordon" uncordon edge-c
says "node/edge-c uncordoned" "uncordon"
run "drain" drain edge-c --ignore-daemonsets --timeout=30s
grep -q "^node/edge-c drained$" "$work/out" || fail "drain: no 'drained' line"
echo "PASS: kubectl verbs on every served kind, events, cordon, uncordon, drain"
