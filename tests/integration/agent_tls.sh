#!/bin/sh
# The nodelet program's TLS bootstrap against a nodelet-mockapi process over
# HTTPS in Node authorization mode, in real time: given only
# --bootstrap-kubeconfig (a bootstrap token), it writes --kubeconfig (0600)
# pointing at <cert-dir>/kubelet-client-current.pem, a link to
# kubelet-client-<timestamp>.pem (0600, certificate and key), after one CSR
# for system:node:edge-tls that csrapproving approved and csrsigning
# issued; it registers and renews its Lease as system:node:edge-tls. A
# restart uses the stored certificate: no new CSR, no bootstrap token.
set -u
NODELET=${NL_NODELET:-./client/nodelet}
. "$(dirname "$0")/../mockapi-lib.sh"
agent_pid=
cleanup() {
	stop_pid "$agent_pid"
	mockapi_cleanup
}
fail() {
	echo "FAIL: $*"
	for f in agent.log server.err out; do
		[ -s "$work/$f" ] && { echo "--- $f"; tail -n 30 "$work/$f"; }
	done
	exit 1
}

printf '%s\n' 'abcdef.0123456789abcdef,system:bootstrap:abcdef,,system:bootstrappers' >"$work/tokens.csv"
start_mockapi --generate-certs "$work/pki" --token-auth-file "$work/tokens.csv" \
	--authorization-mode Node
admin() { curl -sf --cacert "$work/pki/ca.crt" --cert "$work/pki/client.crt" --key "$work/pki/client.key" "$@"; }
cat >"$work/bootstrap-kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: mock
  cluster: {server: "$url", certificate-authority: "$work/pki/ca.crt"}
users:
- name: bootstrap
  user: {token: abcdef.0123456789abcdef}
contexts:
- name: default
  context: {cluster: mock, user: bootstrap}
current-context: default
EOF
lease="$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-tls"
renew_time() { admin "$lease" | sed -n 's/.*"renewTime":"\([^"]*\)".*/\1/p'; }
# journal_count PATTERN: requests whose journal entry matches PATTERN (an
# extended regular expression over the entry's compact JSON).
journal_count() { admin "$url/mockapi/v1/requests" | sed 's/},{"seq"/}\n{"seq"/g' | grep -cE "$1"; }
start_agent() {
	"$NODELET" --bootstrap-kubeconfig "$work/bootstrap-kubeconfig" --kubeconfig "$work/kubeconfig" \
		--cert-dir "$work/node-pki" --node-name edge-tls --lease-duration-seconds 4 -v 2 \
		>>"$work/agent.log" 2>&1 &
	agent_pid=$!
}
# wait_renewal AFTER: a renewTime other than AFTER within 10 s.
wait_renewal() {
	for _ in $(seq 1 100); do
		t=$(renew_time)
		[ -n "$t" ] && [ "$t" != "$1" ] && return 0
		kill -0 "$agent_pid" 2>/dev/null || fail "nodelet exited"
		sleep 0.1
	done
	fail "no lease renewal after $1"
}

start_agent
wait_renewal ""
first=$(renew_time)
wait_renewal "$first"
echo "lease created and renewed"

[ "$(stat -c %a "$work/kubeconfig")" = 600 ] || fail "kubeconfig mode $(stat -c %a "$work/kubeconfig")"
grep -q "client-certificate: \"$work/node-pki/kubelet-client-current.pem\"" "$work/kubeconfig" ||
	fail "kubeconfig does not use the stored certificate: $(cat "$work/kubeconfig")"
grep -q "abcdef.0123456789abcdef" "$work/kubeconfig" && fail "the bootstrap token was written to --kubeconfig"
current=$(readlink "$work/node-pki/kubelet-client-current.pem")
case "$current" in
"$work"/node-pki/kubelet-client-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9].pem) ;;
*) fail "kubelet-client-current.pem links to '$current'" ;;
esac
[ "$(stat -c %a "$current")" = 600 ] || fail "certificate file mode $(stat -c %a "$current")"
grep -q "BEGIN CERTIFICATE" "$current" && grep -q "BEGIN EC PRIVATE KEY" "$current" ||
	fail "the stored file is not certificate then EC key"
[ -e "$work/node-pki/kubelet-client.key.tmp" ] && fail "the bootstrap key file is left behind"

admin "$url/apis/certificates.k8s.io/v1/certificatesigningrequests" >"$work/out" || fail "list CSRs"
[ "$(grep -o '"signerName":"kubernetes.io/kube-apiserver-client-kubelet"' "$work/out" | wc -l)" = 1 ] ||
	fail "not one kubelet client CSR"
grep -q '"username":"system:bootstrap:abcdef"' "$work/out" || fail "the CSR's requester is not the bootstrap user"
grep -q '"type":"Approved"' "$work/out" || fail "the CSR is not approved"
[ "$(journal_count '"verb":"create","resource":"certificatesigningrequests".*"code":201')" = 1 ] ||
	fail "not one CSR created"
# The certificate's subject is the user the mock authenticates.
[ "$(journal_count '"resource":"leases".*"user":"system:node:edge-tls"')" -ge 2 ] ||
	fail "the lease is not written as system:node:edge-tls"
[ "$(journal_count '"resource":"leases".*"user":"system:bootstrap:abcdef"')" = 0 ] ||
	fail "the bootstrap user wrote the lease"

# SIGTERM, then a restart: the stored certificate, no second CSR.
kill "$agent_pid"
wait "$agent_pid" || fail "nodelet exited with $? on SIGTERM"
agent_pid=
before=$(journal_count '"user":"system:bootstrap:abcdef"')
start_agent
last=$(renew_time)
wait_renewal "$last"
echo "renewed again after a restart"
[ "$(journal_count '"verb":"create","resource":"certificatesigningrequests"')" = 1 ] ||
	fail "a restart made a new CSR"
[ "$(journal_count '"user":"system:bootstrap:abcdef"')" = "$before" ] ||
	fail "a restart used the bootstrap token"
[ "$(readlink "$work/node-pki/kubelet-client-current.pem")" = "$current" ] ||
	fail "a restart replaced the certificate"
echo "PASS"
