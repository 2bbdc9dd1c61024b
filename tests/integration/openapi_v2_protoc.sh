#!/bin/sh
# /openapi/v2 as protobuf, read by protoc (which shares no code with the
# mock): the body must decode as gnostic's openapi.v2.Document
# (tests/data/openapi/openapiv2.proto has its field numbers) with no field
# protoc does not know, and protoc's re-encoding of what it read must be
# the very bytes served - wire types, lengths and field order agree.
set -u

command -v protoc >/dev/null 2>&1 || { echo "FAIL: no protoc (protobuf-compiler)"; exit 1; }
command -v curl >/dev/null 2>&1 || { echo "FAIL: no curl"; exit 1; }
. "$(dirname "$0")/../mockapi-lib.sh"
data=$(cd "$(dirname "$0")/../data/openapi" && pwd)
fail() {
	echo "FAIL: $*"
	[ -s "$work/err" ] && { echo "--- protoc"; cat "$work/err"; }
	exit 1
}

start_mockapi

# What client-go's discovery OpenAPISchema() sends.
accept='application/com.github.proto-openapi.spec.v2@v1.0+protobuf'
ct=$(curl -s -o "$work/v2.pb" -H "Accept: $accept" -w '%{content_type}' "$url/openapi/v2") ||
	fail "GET /openapi/v2"
[ "$ct" = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" ] ||
	fail "/openapi/v2 answered $ct"

protoc -I"$data" --decode=openapi.v2.Document openapiv2.proto <"$work/v2.pb" \
	>"$work/v2.txt" 2>"$work/err" || fail "protoc cannot decode the document"
# protoc prints a field it does not know as its bare number.
if grep -Eq '^ *[0-9]+:' "$work/v2.txt"; then
	grep -En '^ *[0-9]+:' "$work/v2.txt" | head -5
	fail "fields unknown to openapiv2.proto"
fi
protoc -I"$data" --encode=openapi.v2.Document openapiv2.proto <"$work/v2.txt" \
	>"$work/again.pb" 2>"$work/err" || fail "protoc cannot re-encode"
cmp -s "$work/v2.pb" "$work/again.pb" || fail "protoc's re-encoding differs from the bytes served"

# The content is the document's: a kind, its group-version-kind, a description.
grep -q 'name: "io.k8s.api.coordination.v1.LeaseSpec"' "$work/v2.txt" || fail "no LeaseSpec"
grep -q 'yaml: "{\\"group\\":\\"\\",\\"kind\\":\\"Node\\",\\"version\\":\\"v1\\"}"' \
	"$work/v2.txt" || fail "no Node group-version-kind"
grep -q 'description: "When the holder last renewed the lease' "$work/v2.txt" ||
	fail "no renewTime description"
grep -q 'operation_id: "patchCoreV1NodeStatus"' "$work/v2.txt" || fail "no node status patch"
echo "ok: /openapi/v2 protobuf ($(wc -c <"$work/v2.pb") bytes) decodes and re-encodes identically"
