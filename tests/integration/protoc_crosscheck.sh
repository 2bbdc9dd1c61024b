#!/bin/sh
# nodelet-mockapi's protobuf answers read by protoc, which shares no code
# with nodelet: each body (after the "k8s\0" magic) must decode under
# tests/data/protobuf/crosscheck.proto - upstream's field numbers and
# types - with no field protoc does not know, and protoc's re-encoding of
# what it decoded must be the very bytes the mock sent. That proves wire
# types, nesting, lengths and varints agree with the upstream schema and
# that fields come in field-number order, each once. It cannot prove that
# an empty field gogo would write is written (protoc re-encodes what it
# read): the kubectl golden vectors check that (tests/unit/test_protobuf).
set -u

command -v protoc >/dev/null 2>&1 || { echo "FAIL: no protoc (protobuf-compiler)"; exit 1; }
command -v curl >/dev/null 2>&1 || { echo "FAIL: no curl"; exit 1; }
. "$(dirname "$0")/../mockapi-lib.sh"
data=$(cd "$(dirname "$0")/../data/protobuf" && pwd)
fail() {
	echo "FAIL: $*"
	[ -s "$work/err" ] && { echo "--- protoc"; cat "$work/err"; }
	exit 1
}

# No garbage collector: the objects below name an owner that does not
# exist, and on a busy machine its sweep could delete them between the POST
# and the GET.
start_mockapi --controllers=-garbagecollector

pb=application/vnd.kubernetes.protobuf
post() { # PATH JSON
	curl -sf -o /dev/null -H 'Content-Type: application/json' --data "$2" "$url$1" ||
		fail "POST $1"
}
owner='"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"edge-1","uid":"4f3c2b1a-0000-4000-8000-000000000001","controller":true,"blockOwnerDeletion":false}]'
post "/api/v1/namespaces/default/configmaps?fieldManager=crosscheck" \
	'{"metadata":{"name":"cc","labels":{"b":"2","a":"1"},"annotations":{"n":"\u65e5\u672c"},'"$owner"',"finalizers":["example.com/keep"]},"data":{"z":"last","a":"first"},"binaryData":{"bin":"AP8B"},"immutable":false}'
post "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases" \
	'{"metadata":{"name":"edge-1",'"$owner"'},"spec":{"holderIdentity":"edge-1","leaseDurationSeconds":40,"acquireTime":"2026-01-02T03:04:05.123456Z","renewTime":"2026-01-02T03:04:15.654321Z","leaseTransitions":3}}'

# check NAME PATH MESSAGE: GET PATH as protobuf, decode as MESSAGE, re-encode.
check() {
	curl -s -o "$work/$1.body" -H "Accept: $pb" -w '%{content_type}' "$url$2" >"$work/ct" ||
		fail "GET $2"
	[ "$(cat "$work/ct")" = "$pb" ] || fail "$2 answered $(cat "$work/ct")"
	[ "$(head -c 4 "$work/$1.body" | od -An -tx1 | tr -d ' ')" = 6b387300 ] ||
		fail "$2: no k8s magic"
	tail -c +5 "$work/$1.body" >"$work/$1.pb"
	protoc -I"$data" --decode="nodelet.crosscheck.$3" crosscheck.proto \
		<"$work/$1.pb" >"$work/$1.txt" 2>"$work/err" || fail "protoc cannot decode $2 as $3"
	# A field protoc does not know is printed by number.
	if grep -Eq '^ *[0-9]+:' "$work/$1.txt"; then
		fail "$2: fields unknown to upstream's schema: $(grep -E '^ *[0-9]+:' "$work/$1.txt" | head -3)"
	fi
	protoc -I"$data" --encode="nodelet.crosscheck.$3" crosscheck.proto \
		<"$work/$1.txt" >"$work/$1.again" 2>"$work/err" || fail "protoc cannot encode $1"
	cmp -s "$work/$1.pb" "$work/$1.again" ||
		fail "$2: protoc writes the message differently ($(cmp "$work/$1.pb" "$work/$1.again"))"
	echo "ok: $2 as $3 ($(wc -c <"$work/$1.pb") bytes)"
}

check cm /api/v1/namespaces/default/configmaps/cc ConfigMapEnvelope
grep -q 'key: "a"' "$work/cm.txt" && grep -q 'value: "first"' "$work/cm.txt" ||
	fail "the ConfigMap's data is not where upstream's schema puts it"
check ns /api/v1/namespaces/default NamespaceEnvelope
grep -q 'phase: "Active"' "$work/ns.txt" || fail "the Namespace phase is not field 1 of its status"
check lease /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-1 LeaseEnvelope
grep -q 'leaseTransitions: 3' "$work/lease.txt" || fail "leaseTransitions not read back as 3"
grep -q 'nanos: 654321000' "$work/lease.txt" || fail "renewTime's microseconds are not nanos"
check leases /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases LeaseListEnvelope
# A CSR, approved through /approval (the []byte fields and conditions).
if command -v openssl >/dev/null 2>&1; then
	openssl ecparam -name prime256v1 -genkey -noout -out "$work/k.pem" 2>/dev/null &&
		openssl req -new -key "$work/k.pem" -subj "/O=system:nodes/CN=system:node:n" \
			-out "$work/r.csr" 2>/dev/null || fail "openssl req"
	post "/apis/certificates.k8s.io/v1/certificatesigningrequests" \
		'{"metadata":{"name":"n"},"spec":{"request":"'"$(base64 -w0 "$work/r.csr")"'","signerName":"example.com/s","expirationSeconds":3600,"usages":["client auth"]}}'
	curl -sf -o /dev/null -X PUT -H 'Content-Type: application/json' \
		--data '{"metadata":{"name":"n"},"spec":{"request":"'"$(base64 -w0 "$work/r.csr")"'","signerName":"example.com/s","usages":["client auth"]},"status":{"conditions":[{"type":"Approved","status":"True","reason":"R"}]}}' \
		"$url/apis/certificates.k8s.io/v1/certificatesigningrequests/n/approval" || fail "PUT approval"
	check csr /apis/certificates.k8s.io/v1/certificatesigningrequests/n CertificateSigningRequestEnvelope
	grep -q 'expirationSeconds: 3600' "$work/csr.txt" && grep -q 'reason: "R"' "$work/csr.txt" ||
		fail "the CSR's fields are not where upstream's schema puts them"
fi
check notfound /api/v1/namespaces/default/configmaps/missing StatusEnvelope
grep -q 'code: 404' "$work/notfound.txt" && grep -q 'reason: "NotFound"' "$work/notfound.txt" ||
	fail "the 404 Status fields"
echo "PASS: protoc reads and rewrites the mock's protobuf byte for byte"
