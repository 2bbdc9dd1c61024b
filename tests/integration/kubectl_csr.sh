#!/bin/sh
# TLS bootstrap against nodelet-mockapi with kubectl 1.32: a bootstrap
# token (group system:bootstrappers) creates a CSR made with `openssl req`
# for system:node:<name>; csrapproving approves it after its
# SubjectAccessReview, csrsigning issues the certificate; the certificate
# then authenticates as system:node:<name> and reads its Node in Node
# authorization mode, while the bootstrap user may not; kubectl certificate
# deny works for an admin only; a bad request is 422. Skips (exit 77)
# without kubectl or openssl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: no openssl"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

printf '%s\n' 'boot-token,system:bootstrap:abcdef,,system:bootstrappers' >"$work/tokens.csv"
mockapi_launch pid node --fixtures "$FIXTURES/manifests/sample.yaml" \
	--generate-certs "$work/pki" --token-auth-file "$work/tokens.csv" \
	--authorization-mode Node --kubeconfig-out "$work/kubeconfig"
k() { "$KUBECTL" --server "$url" --certificate-authority "$work/pki/ca.crt" --cache-dir "$work/cache" "$@"; }

openssl ecparam -name prime256v1 -genkey -noout -out "$work/node.key" 2>/dev/null || fail "ecparam"
openssl req -new -key "$work/node.key" -subj "/O=system:nodes/CN=system:node:edge-1" \
	-out "$work/node.csr" 2>/dev/null || fail "openssl req"
cat >"$work/csr.yaml" <<YAML
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: node-csr-edge-1
spec:
  request: $(base64 -w0 "$work/node.csr")
  signerName: kubernetes.io/kube-apiserver-client-kubelet
  expirationSeconds: 3600
  usages: [digital signature, client auth]
  username: someone-else
YAML
k --token boot-token create -f "$work/csr.yaml" >"$work/out" 2>&1 || fail "bootstrap user cannot create a CSR"

# The requester is the token's user, whatever the client sent.
for _ in $(seq 1 100); do
	k --token boot-token get csr node-csr-edge-1 -o jsonpath='{.status.certificate}' >"$work/cert.b64" 2>"$work/out"
	[ -s "$work/cert.b64" ] && break
	sleep 0.1
done
[ -s "$work/cert.b64" ] || fail "no certificate issued"
k --token boot-token get csr >"$work/out" 2>&1 || fail "get csr"
cat "$work/out"
grep -q 'NAME *AGE *SIGNERNAME *REQUESTOR *REQUESTEDDURATION *CONDITION' "$work/out" || fail "CSR columns"
grep -q 'node-csr-edge-1 .* kubernetes.io/kube-apiserver-client-kubelet *system:bootstrap:abcdef *60m *Approved,Issued' "$work/out" ||
	fail "CSR row"
k --token boot-token get csr node-csr-edge-1 -o jsonpath='{.status.conditions[0].reason}/{.status.conditions[0].message}' >"$work/out" 2>&1
grep -q '^AutoApproved/Auto approving kubelet client certificate after SubjectAccessReview.$' "$work/out" ||
	fail "approval condition: $(cat "$work/out")"
base64 -d "$work/cert.b64" >"$work/node.crt"
openssl x509 -in "$work/node.crt" -noout -subject | grep -q 'system:node:edge-1' || fail "subject"

# The bootstrap user reads no Nodes; the issued certificate does.
if k --token boot-token get node edge-1 >"$work/out" 2>&1; then
	fail "bootstrap user read a node"
fi
k --client-certificate "$work/node.crt" --client-key "$work/node.key" get node edge-1 >"$work/out" 2>&1 ||
	fail "the issued certificate cannot read its node"
grep -q edge-1 "$work/out" || fail "node edge-1 not shown"
k --client-certificate "$work/node.crt" --client-key "$work/node.key" auth whoami >"$work/out" 2>&1
grep -q 'system:node:edge-1' "$work/out" || fail "whoami: $(cat "$work/out")"

# A CSR for another signer stays pending until an admin denies it; denied,
# it is never issued. The bootstrap user may not deny.
sed -e 's/node-csr-edge-1/other/' -e 's|kubernetes.io/kube-apiserver-client-kubelet|example.com/signer|' \
	"$work/csr.yaml" >"$work/other.yaml"
k --token boot-token create -f "$work/other.yaml" >"$work/out" 2>&1 || fail "create other: $(cat "$work/out")"
if k --token boot-token certificate deny other >"$work/out" 2>&1; then
	fail "the bootstrap user denied a CSR"
fi
grep -q 'cannot update resource "certificatesigningrequests/approval"' "$work/out" || fail "deny 403: $(cat "$work/out")"
"$KUBECTL" --kubeconfig "$work/kubeconfig" --server "$url" --cache-dir "$work/cache" \
	certificate deny other >"$work/out" 2>&1 || fail "admin deny: $(cat "$work/out")"
sleep 0.5
"$KUBECTL" --kubeconfig "$work/kubeconfig" --server "$url" --cache-dir "$work/cache" \
	get csr other --no-headers >"$work/out" 2>&1
grep -q ' Denied *$' "$work/out" || fail "denied row: $(cat "$work/out")"

# A request that is not a CSR: 422 with upstream's text.
sed -e 's/node-csr-edge-1/bad/' -e 's/^  request: .*/  request: bm90IGEgcmVxdWVzdA==/' "$work/csr.yaml" >"$work/bad.yaml"
if k --token boot-token create -f "$work/bad.yaml" >"$work/out" 2>&1; then
	fail "a bad request was accepted"
fi
grep -q 'The CertificateSigningRequest "bad" is invalid: spec.request: Invalid value: \[\]byte{0x6e, 0x6f, 0x74, .*}: PEM block type must be CERTIFICATE REQUEST' "$work/out" ||
	fail "bad request text: $(cat "$work/out")"
echo "PASS: CSR created by a bootstrap token, auto-approved, signed, and its certificate used; deny; 422"
