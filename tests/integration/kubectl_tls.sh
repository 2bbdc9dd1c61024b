#!/bin/sh
# kubectl 1.32 against nodelet-mockapi over HTTPS: the kubeconfig written by
# --generate-certs + --kubeconfig-out (CA and client certificate embedded)
# works as is; a bearer token from --token-auth-file works; an unknown token
# and an untrusted server are refused with kubectl's usual errors; in Node
# authorization mode a node reads Nodes but gets kube-apiserver's 403 for
# ConfigMaps. Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
npid=
cleanup() {
	stop_pid "$npid"
	mockapi_cleanup
}

printf '%s\n' 'alice-token,alice,uid-alice' \
	'node-a-token,system:node:a,uid-a,system:nodes' >"$work/tokens.csv"

mockapi_launch pid open --fixtures "$FIXTURES/manifests/sample.yaml" \
	--generate-certs "$work/pki" --token-auth-file "$work/tokens.csv" \
	--kubeconfig-out "$work/kubeconfig"
case "$url" in https://*) ;; *) fail "not HTTPS: $url" ;; esac
echo "using $KUBECTL against $url"

# The written kubeconfig: CA and the generated admin certificate embedded.
"$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache1" \
	get nodes,configmaps,leases -A >"$work/out" 2>&1 || fail "kubectl via --kubeconfig-out"
cat "$work/out"
grep -q "edge-1" "$work/out" || fail "node edge-1 not listed"
grep -q "certificate-authority-data" "$work/kubeconfig" || fail "no CA in the kubeconfig"
grep -q "client-key-data" "$work/kubeconfig" || fail "no client key in the kubeconfig"

# A bearer token from the token file, the CA from --generate-certs.
k() { "$KUBECTL" --server "$url" --certificate-authority "$work/pki/ca.crt" "$@"; }
k --cache-dir "$work/cache2" --token alice-token get configmap counter >"$work/out" 2>&1 ||
	fail "kubectl with a token"
grep -q "counter" "$work/out" || fail "configmap counter not shown with a token"

# An unknown token: 401, which kubectl reports as "You must be logged in to
# the server (the server has asked for the client to provide credentials)".
if k --cache-dir "$work/cache3" --token wrong-token get configmaps >"$work/out" 2>&1; then
	fail "an unknown token was accepted"
fi
grep -q "You must be logged in to the server" "$work/out" || fail "no 401 for an unknown token"

# Without the CA the server is not trusted.
if "$KUBECTL" --server "$url" --cache-dir "$work/cache4" --token alice-token \
	get configmaps >"$work/out" 2>&1; then
	fail "an untrusted server certificate was accepted"
fi
grep -q "certificate" "$work/out" || fail "no certificate error without the CA"

# Node mode, with the same certificates: a node reads Nodes, not ConfigMaps.
mockapi_launch npid node --fixtures "$FIXTURES/manifests/sample.yaml" \
	--tls-cert-file "$work/pki/server.crt" --tls-private-key-file "$work/pki/server.key" \
	--client-ca-file "$work/pki/ca.crt" --token-auth-file "$work/tokens.csv" \
	--authorization-mode Node
k --cache-dir "$work/cache5" --token node-a-token get nodes >"$work/out" 2>&1 ||
	fail "node a cannot list nodes"
grep -q "edge-1" "$work/out" || fail "node edge-1 not listed for node a"
if k --cache-dir "$work/cache5" --token node-a-token get configmaps -n default >"$work/out" 2>&1; then
	fail "node a listed configmaps"
fi
cat "$work/out"
grep -q 'Error from server (Forbidden): configmaps is forbidden: User "system:node:a" cannot list resource "configmaps" in API group "" in the namespace "default"' "$work/out" ||
	fail "no Forbidden text for node a"
# The generated admin certificate (system:masters) may do anything there.
"$KUBECTL" --kubeconfig "$work/kubeconfig" --server "$url" --cache-dir "$work/cache6" \
	get configmaps -n default >"$work/out" 2>&1 || fail "admin certificate in Node mode"
grep -q "counter" "$work/out" || fail "configmap counter not listed for the admin"
echo "PASS: kubectl over HTTPS with the generated kubeconfig, tokens, 401 and Node-mode 403"
