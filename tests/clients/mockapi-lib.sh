# Sourced by tests/integration/python_client.sh and node_client.sh: starts
# nodelet-mockapi on a free port with the sample fixtures, writes its
# kubeconfig to $work/kubeconfig and stops it on exit. Sets $work and $url.
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
FIXTURES=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

start_mockapi() {
	"$MOCKAPI" --port 0 --fixtures "$FIXTURES/manifests/sample.yaml" \
		--kubeconfig-out "$work/kubeconfig" >"$work/server.out" 2>"$work/server.err" &
	pid=$!
	for _ in $(seq 1 100); do
		grep -q "listening on" "$work/server.out" 2>/dev/null && break
		sleep 0.05
	done
	url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/server.out")
	[ -n "$url" ] || { cat "$work/server.err"; echo "FAIL: server did not start"; exit 1; }
	echo "nodelet-mockapi at $url"
}
