#!/bin/sh
# kubectl 1.32's `auth can-i` and `auth whoami` against nodelet-mockapi in
# Node authorization mode, answered by the mock's own authenticator and
# authorizer through SelfSubjectAccessReview and SelfSubjectReview (sent
# as protobuf, as kubectl does): the admin certificate, a token user, a
# node and an anonymous request each get what kube-apiserver with
# --authorization-mode=Node,RBAC and its bootstrap roles would print.
# Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

printf '%s\n' 'alice-token,alice,uid-alice' \
	'node-a-token,system:node:a,uid-a,system:nodes' >"$work/tokens.csv"
start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml" --generate-certs "$work/pki" \
	--token-auth-file "$work/tokens.csv" --authorization-mode Node --kubeconfig-out "$work/kubeconfig"
echo "using $KUBECTL against $url"
admin() { "$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache0" "$@"; }
as() {
	token=$1
	shift
	"$KUBECTL" --server "$url" --certificate-authority "$work/pki/ca.crt" --token "$token" \
		--cache-dir "$work/cache-$token" "$@"
}
anon() { "$KUBECTL" --server "$url" --certificate-authority "$work/pki/ca.crt" \
	--cache-dir "$work/cache-anon" "$@"; }
# expect WANT_EXIT WANT_OUTPUT COMMAND...: the exact standard output and
# exit status (kubectl's own warnings go to standard error).
expect() {
	want_rc=$1
	want=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ "$rc" = "$want_rc" ] || fail "$*: exit $rc, want $want_rc"
	[ "$(cat "$work/out")" = "$want" ] || { echo "want: $want"; fail "$*: output"; }
}

# system:masters may do anything; the privileged-group authorizer gives no reason.
expect 0 yes admin auth can-i '*' '*'
expect 0 yes admin auth can-i delete nodes
expect 0 "ATTRIBUTE   VALUE
Username    kubernetes-admin
Groups      [system:masters system:authenticated]" admin auth whoami

# A token user: only the bootstrap roles (discovery, basic-user).
expect 1 no as alice-token auth can-i get configmaps
expect 0 yes as alice-token auth can-i create selfsubjectaccessreviews.authorization.k8s.io
expect 0 yes as alice-token auth can-i get /version
expect 1 no as alice-token auth can-i get /metricsx
expect 0 "ATTRIBUTE   VALUE
Username    alice
UID         uid-alice
Groups      [system:authenticated]" as alice-token auth whoami

# A node: the Node authorizer's rules and its reasons.
expect 0 yes as node-a-token auth can-i get nodes
expect 0 yes as node-a-token auth can-i update leases/a -n kube-node-lease
expect 1 "no - can only access node lease with the same name as the requesting node" \
	as node-a-token auth can-i update leases/b -n kube-node-lease
expect 1 "no - no relationship found between node 'a' and this object" \
	as node-a-token auth can-i get configmaps/other -n kube-system

# Anonymous is refused the review itself (basic-user is for
# system:authenticated); kubectl would prompt for credentials, so curl asks.
curl -s --cacert "$work/pki/ca.crt" -X POST -H 'Content-Type: application/json' \
	-d '{"spec":{"resourceAttributes":{"verb":"get","resource":"nodes"}}}' \
	"$url/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" >"$work/out" ||
	fail "curl the anonymous review"
grep -q '"message":"selfsubjectaccessreviews.authorization.k8s.io is forbidden: User \\"system:anonymous\\" cannot create resource \\"selfsubjectaccessreviews\\" in API group \\"authorization.k8s.io\\" at the cluster scope"' \
	"$work/out" || fail "anonymous 403 text"
echo "PASS: kubectl auth can-i and auth whoami print what kube-apiserver would"
